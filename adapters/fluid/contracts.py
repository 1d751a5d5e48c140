"""Fluid's ground floor: the resolver and vault functions both queries call, their structs by the
names Fluid's resolvers give them, and the scales and bit layouts of their answers.

The layouts are those of the ABIs Fluid deployed (Instadapp/fluid-contracts-public, recorded in
tests/fluid_abi.json with the structs' field names; a test holds these to both).
"""

from __future__ import annotations

from chain.abi import Function

RATE_SCALE = 10**4
"""Fluid's percent with two decimals: 10,000 = 100 %."""
REWARDS_RATE_SCALE = 10**14
"""The lending rewards model's scale: 1e12 = 1 %."""
ORACLE_PRICE_SCALE = 10**27
X19, X24, X30 = 2**19 - 1, 2**24 - 1, 2**30 - 1
LIQUIDATED = 1
"""A branch's status (branchData bits 0-1): 1 liquidated (2 merged, 3 closed)."""

USER_SUPPLY_DATA = (
    "(bool modeWithInterest,uint256 supply,uint256 withdrawalLimit,uint256 lastUpdateTimestamp,"
    "uint256 expandPercent,uint256 expandDuration,uint256 baseWithdrawalLimit,uint256 withdrawableUntilLimit,"
    "uint256 withdrawable,uint256 decayEndTimestamp,uint256 decayAmount)"
)
LENDING_DETAILS = (
    "(address tokenAddress,bool eip2612Deposits,bool isNativeUnderlying,string name,string symbol,"
    "uint256 decimals,address asset,uint256 totalAssets,uint256 totalSupply,uint256 convertToShares,"
    "uint256 convertToAssets,uint256 rewardsRate,uint256 supplyRate,int256 rebalanceDifference,"
    f"{USER_SUPPLY_DATA} liquidityUserSupplyData)"
)
"""Structs.FTokenDetails: an fToken, its asset and its rates."""
LENDING_POSITION = "(uint256 fTokenShares,uint256 underlyingAssets,uint256 underlyingBalance,uint256 allowance)"
"""The LendingResolver's Structs.UserPosition: a wallet's shares of an fToken and their assets."""
TOKENS = "(address token0,address token1)"
"""IFluidVault.Tokens: a normal side's token (token1 zero), or a smart side's DEX pair."""
VAULT_ENTIRE_DATA = (
    "(address vault,bool isSmartCol,bool isSmartDebt,"
    "(address liquidity,address factory,address operateImplementation,address adminImplementation,"
    "address secondaryImplementation,address deployer,address supply,address borrow,"
    f"{TOKENS} supplyToken,{TOKENS} borrowToken,uint256 vaultId,uint256 vaultType,"
    "bytes32 supplyExchangePriceSlot,bytes32 borrowExchangePriceSlot,bytes32 userSupplySlot,"
    "bytes32 userBorrowSlot) constantVariables,"
    "(uint16 supplyRateMagnifier,uint16 borrowRateMagnifier,uint16 collateralFactor,"
    "uint16 liquidationThreshold,uint16 liquidationMaxLimit,uint16 withdrawalGap,uint16 liquidationPenalty,"
    "uint16 borrowFee,address oracle,uint256 oraclePriceOperate,uint256 oraclePriceLiquidate,"
    "address rebalancer,uint256 lastUpdateTimestamp) configs,"
    "(uint256 lastStoredLiquiditySupplyExchangePrice,uint256 lastStoredLiquidityBorrowExchangePrice,"
    "uint256 lastStoredVaultSupplyExchangePrice,uint256 lastStoredVaultBorrowExchangePrice,"
    "uint256 liquiditySupplyExchangePrice,uint256 liquidityBorrowExchangePrice,uint256 vaultSupplyExchangePrice,"
    "uint256 vaultBorrowExchangePrice,uint256 supplyRateLiquidity,uint256 borrowRateLiquidity,"
    "int256 supplyRateVault,int256 borrowRateVault,int256 rewardsOrFeeRateSupply,"
    "int256 rewardsOrFeeRateBorrow) exchangePricesAndRates,"
    "(uint256 totalSupplyVault,uint256 totalBorrowVault,uint256 totalSupplyLiquidityOrDex,"
    "uint256 totalBorrowLiquidityOrDex,uint256 absorbedSupply,uint256 absorbedBorrow) totalSupplyAndBorrow,"
    "(uint256 withdrawLimit,uint256 withdrawableUntilLimit,uint256 withdrawable,uint256 borrowLimit,"
    "uint256 borrowableUntilLimit,uint256 borrowable,uint256 borrowLimitUtilization,"
    "uint256 minimumBorrowing) limitsAndAvailability,"
    "(uint256 totalPositions,int256 topTick,uint256 currentBranch,uint256 totalBranch,uint256 totalBorrow,"
    "uint256 totalSupply,(uint256 status,int256 minimaTick,uint256 debtFactor,uint256 partials,"
    "uint256 debtLiquidity,uint256 baseBranchId,int256 baseBranchMinima) currentBranchState) vaultState,"
    f"{USER_SUPPLY_DATA} liquidityUserSupplyData,"
    "(bool modeWithInterest,uint256 borrow,uint256 borrowLimit,uint256 lastUpdateTimestamp,"
    "uint256 expandPercent,uint256 expandDuration,uint256 baseBorrowLimit,uint256 maxBorrowLimit,"
    "uint256 borrowableUntilLimit,uint256 borrowable,uint256 borrowLimitUtilization) liquidityUserBorrowData)"
)
"""Structs.VaultEntireData: a vault's sides, configs (factors / 1e4, oracle prices 1e27), rates,
totals and limits."""
VAULT_POSITION = (
    "(uint256 nftId,address owner,bool isLiquidated,bool isSupplyPosition,int256 tick,uint256 tickId,"
    "uint256 beforeSupply,uint256 beforeBorrow,uint256 beforeDustBorrow,uint256 supply,uint256 borrow,"
    "uint256 dustBorrow)"
)
"""The VaultResolver's Structs.UserPosition: a position NFT's amounts, liquidation applied."""

GET_USER_POSITIONS = Function(
    "getUserPositions(address)",
    "2a6bc2dd",
    (f"({LENDING_DETAILS} fTokenDetails,{LENDING_POSITION} userPosition)[]",),
)
POSITIONS_BY_USER = Function("positionsByUser(address)", "347ca8bb", (f"{VAULT_POSITION}[]", f"{VAULT_ENTIRE_DATA}[]"))
GET_ALL_FTOKENS = Function("getAllFTokens()", "4af955c8", ("address[]",))
GET_ALL_VAULTS = Function("getAllVaultsAddresses()", "a8d9f493", ("address[]",))
GET_FTOKEN_DETAILS = Function("getFTokenDetails(address)", "d7a6fdb0", (LENDING_DETAILS,))
GET_VAULT_ENTIRE_DATA = Function("getVaultEntireData(address)", "09c062e2", (VAULT_ENTIRE_DATA,))
GET_POSITION_DATA_RAW = Function("getPositionDataRaw(address,uint256)", "cbc7be65", ("uint256",))
GET_TICK_DATA_RAW = Function("getTickDataRaw(address,int256)", "168a11c2", ("uint256",))
FETCH_LATEST_POSITION = Function(
    "fetchLatestPosition(int256,uint256,uint256,uint256)",
    "22348cc7",
    ("int256", "uint256", "uint256", "uint256", "uint256"),
)
"""The vault's own view of a position after liquidations: (tick, raw debt, raw collateral,
branch id, branch data); the resolver's `positionByNftId` calls it."""
