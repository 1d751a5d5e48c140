"""Venus's ground floor: every view the adapter calls on the core pool's Comptroller (a Diamond
behind its Unitroller: MarketFacet, PolicyFacet, RewardFacet), its vTokens, their interest rate
models and the pool's oracle, with the output names Venus publishes (`@venusprotocol/venus-protocol`
10.3.0's artifacts), and on the isolated pools' PoolRegistry, Comptrollers, vTokens and
RewardsDistributors (`@venusprotocol/isolated-pools` 4.4.0's deployment records); the tests hold
these functions to them. Also the scales of their answers.

A vToken's `exchangeRateCurrent()` and `borrowBalanceCurrent(account)` are not views: they accrue
the market's interest first. An eth_call runs them with no effect, so they give the market's own
figures accrued to the block (what CompoundLens and VenusLens read too); each goes alone
(`writes`), so that no other read of its round sees the accrual.
"""

from __future__ import annotations

from chain.abi import Function
from chain.lens import Lens

MANTISSA = 10**18
"""Venus's fixed point (Exp): rates, factors and exchange rates are mantissas of 1e18."""
DOUBLE = 10**36
"""Its reward indexes' fixed point (Double)."""
PRICE_SCALE = 10**36
"""`getUnderlyingPrice` is USD x 10^(36 - the underlying's decimals) per whole unit of it."""
MAX_MARKETS = 256
"""More markets than any Comptroller lists (the core pool has about 50): a longer list is not one
to read with a call per market."""
LTV_FACTOR, THRESHOLD_FACTOR = 0, 1
"""`getEffectiveLtvFactor`'s WeightFunction: the collateral factor, the liquidation threshold."""

# The Comptroller.
ALL_MARKETS = Function("getAllMarkets()", "b0772d0b", ("address[]",))
ASSETS_IN = Function("getAssetsIn(address)", "abfceffc", ("address[]",))
"""The markets the account has entered: its supplies there count as collateral."""
ORACLE = Function("oracle()", "7dc0d1d0", ("address",))
ACCOUNT_LIQUIDITY = Function("getAccountLiquidity(address)", "5ec88c79", ("uint256", "uint256", "uint256"))
"""(error, liquidity, shortfall) in USD x 1e18, against the liquidation thresholds (Venus v10),
from stored balances; unnamed in the ABI: PolicyFacet's NatSpec."""
MARKETS = Function(
    "markets(address)",
    "8e8f294b",
    (
        "bool isListed",
        "uint256 collateralFactorMantissa",
        "bool isVenus",
        "uint256 liquidationThresholdMantissa",
        "uint256 liquidationIncentiveMantissa",
        "uint96 marketPoolId",
        "bool isBorrowAllowed",
    ),
)
"""The market's core-pool terms (Venus v10's layout: Compound's has three fields)."""
EFFECTIVE_LTV_FACTOR = Function("getEffectiveLtvFactor(address,address,uint8)", "19ef3e8b", ("uint256",))
"""The factor the Comptroller applies to this account's collateral in this market (its e-mode
pool's where it joined one): LTV_FACTOR or THRESHOLD_FACTOR."""
VENUS_ACCRUED = Function("venusAccrued(address)", "8a7dc165", ("uint256",))
XVS_ADDRESS = Function("getXVSAddress()", "bf32442d", ("address",), immutable=True)
SUPPLY_STATE = Function("venusSupplyState(address)", "b8324c7c", ("uint224 index", "uint32 block"))
BORROW_STATE = Function("venusBorrowState(address)", "e37d4b79", ("uint224 index", "uint32 block"))
SUPPLY_SPEED = Function("venusSupplySpeeds(address)", "5dd3fc9d", ("uint256",))
BORROW_SPEED = Function("venusBorrowSpeeds(address)", "bbb8864a", ("uint256",))
SUPPLIER_INDEX = Function("venusSupplierIndex(address,address)", "41a18d2c", ("uint256",))
BORROWER_INDEX = Function("venusBorrowerIndex(address,address)", "08e0225c", ("uint256",))
INITIAL_INDEX = Function("venusInitialIndex()", "c5b4db55", ("uint224",), immutable=True)
SUPPLY_CAP = Function("supplyCaps(address)", "02c3bcbb", ("uint256",))
BORROW_CAP = Function("borrowCaps(address)", "4a584432", ("uint256",))
"""In the underlying's raw units; 0 stops new supply (or borrows) in Venus v10."""

VAI_CONTROLLER = Function("vaiController()", "9254f5e5", ("address",))
"""The core pool's VAIController (the zero address: none): VAI minted against the account's
collateral is a debt the Comptroller's liquidity counts, at 1 USD a VAI."""

# The VAIController.
VAI_REPAY_AMOUNT = Function("getVAIRepayAmount(address)", "78c2f922", ("uint256",))
"""What the account must repay: the VAI it minted and the interest on it, at the block."""
VAI_ADDRESS = Function("getVAIAddress()", "cbeb2b28", ("address",), immutable=True)
VAI_RATE = Function("getVAIRepayRatePerBlock()", "75c3de43", ("uint256",))
VAI_BLOCKS_PER_YEAR = Function("getBlocksPerYear()", "741de148", ("uint256",))

# A vToken.
ACCOUNT_SNAPSHOT = Function("getAccountSnapshot(address)", "c37f68e2", ("uint256", "uint256", "uint256", "uint256"))
"""(error, vToken balance, borrow balance stored, exchange rate stored); unnamed in the ABI."""
EXCHANGE_RATE_CURRENT = Function("exchangeRateCurrent()", "bd6d894d", ("uint256",), writes=True)
BORROW_BALANCE_CURRENT = Function("borrowBalanceCurrent(address)", "17bfdfbc", ("uint256",), writes=True)
UNDERLYING = Function("underlying()", "6f307dc3", ("address",), immutable=True)
"""None on vBNB, whose underlying is the chain's coin."""
SUPPLY_RATE = Function("supplyRatePerBlock()", "ae9d70b0", ("uint256",))
BORROW_RATE = Function("borrowRatePerBlock()", "f8f9da28", ("uint256",))
INTEREST_RATE_MODEL = Function("interestRateModel()", "f3fdb15a", ("address",))
TOTAL_BORROWS = Function("totalBorrows()", "47bd3718", ("uint256",))
BORROW_INDEX = Function("borrowIndex()", "aa5af0fd", ("uint256",))
BORROW_BALANCE_STORED = Function("borrowBalanceStored(address)", "95dd9193", ("uint256",))
TOTAL_BORROWS_CURRENT = Function("totalBorrowsCurrent()", "73acee98", ("uint256",), writes=True)
"""The market's borrows accrued to the block (its accrual, run with no effect)."""
CASH = Function("getCash()", "3b1d21a2", ("uint256",))
TOTAL_RESERVES = Function("totalReserves()", "8f840ddd", ("uint256",))
RESERVE_FACTOR = Function("reserveFactorMantissa()", "173b9904", ("uint256",))

# Its interest rate model and the pool's oracle.
BLOCKS_PER_YEAR = Function("blocksPerYear()", "a385fb96", ("uint256",))
"""The model's periods a year: BNB Chain's blocks (70,080,000 since its 0.45 s blocks)."""
UNDERLYING_PRICE = Function("getUnderlyingPrice(address)", "fc57d4df", ("uint256",))
ASSET_PRICE = Function("getPrice(address)", "41976e09", ("uint256",))
"""An asset's price by the pool's oracle (the ResilientOracle), on getUnderlyingPrice's scale: XVS's."""

# The isolated pools: the chain's PoolRegistry and each pool's Comptroller.
ALL_POOLS = Function(
    "getAllPools()",
    "d88ff1f4",
    ("(string name,address creator,address comptroller,uint256 blockPosted,uint256 timestampPosted)[]",),
)
REWARD_DISTRIBUTORS = Function("getRewardDistributors()", "61252fd1", ("address[]",))
POOL_MARKETS = Function(
    "markets(address)",
    "8e8f294b",
    ("bool isListed", "uint256 collateralFactorMantissa", "uint256 liquidationThresholdMantissa"),
)
"""An isolated pool's terms for a market (its Comptroller's three-field layout)."""
ACTION_PAUSED = Function("actionPaused(address,uint8)", "e85a2960", ("bool",))
BORROW_ACTION = 2
"""Action.BORROW, whose pause stops new borrows in an isolated pool's market."""
PERIODS_PER_YEAR = Function("blocksOrSecondsPerYear()", "6857249c", ("uint256",), immutable=True)
"""An isolated vToken's periods a year: its chain's blocks, or 31,536,000 seconds where it counts
time (its `isTimeBased()`: the pools on Arbitrum, Base, OP Mainnet and Unichain); its
`...PerBlock` rates are then per second."""

# A RewardsDistributor (an isolated pool's rewards, in any token).
REWARD_TOKEN = Function("rewardToken()", "f7c618c1", ("address",), immutable=True)
TIME_BASED = Function("isTimeBased()", "c7ad0895", ("bool",), immutable=True)
"""Whether the distributor counts seconds; the distributors BNB Chain's and Ethereum's pools
deployed first have no such view (they count blocks)."""
REWARD_ACCRUED = Function("rewardTokenAccrued(address)", "1627ee89", ("uint256",))
REWARD_INITIAL_INDEX = Function("INITIAL_INDEX()", "160c3a03", ("uint224",), immutable=True)
REWARD_SUPPLY_STATE = Function(
    "rewardTokenSupplyState(address)", "92a18235", ("uint224 index", "uint32 block", "uint32 lastRewardingBlock")
)
REWARD_BORROW_STATE = Function(
    "rewardTokenBorrowState(address)", "2c427b57", ("uint224 index", "uint32 block", "uint32 lastRewardingBlock")
)
REWARD_SUPPLY_STATE_BY_TIME = Function(
    "rewardTokenSupplyStateTimeBased(address)",
    "81814945",
    ("uint224 index", "uint256 timestamp", "uint256 lastRewardingTimestamp"),
)
REWARD_BORROW_STATE_BY_TIME = Function(
    "rewardTokenBorrowStateTimeBased(address)",
    "8f693ec7",
    ("uint224 index", "uint256 timestamp", "uint256 lastRewardingTimestamp"),
)
REWARD_SUPPLY_SPEED = Function("rewardTokenSupplySpeeds(address)", "74c4c1cc", ("uint256",))
REWARD_BORROW_SPEED = Function("rewardTokenBorrowSpeeds(address)", "7c05a7c5", ("uint256",))
REWARD_SUPPLIER_INDEX = Function("rewardTokenSupplierIndex(address,address)", "552c0971", ("uint256",))
REWARD_BORROWER_INDEX = Function("rewardTokenBorrowerIndex(address,address)", "6dfd08ca", ("uint256",))
VTOKEN_COMPTROLLER = Function("comptroller()", "5fe3b567", ("address",), immutable=True)
"""A vToken's pool (its Comptroller)."""

# Compound v2's Comptroller, which Venus forked (compound-js 0.6.2's ABI): what it names otherwise.
COMPOUND_MARKETS = Function(
    "markets(address)", "8e8f294b", ("bool isListed", "uint256 collateralFactorMantissa", "bool isComped")
)
"""Its three-field terms: the collateral factor is also where liquidation starts."""
COMP_ACCRUED = Function("compAccrued(address)", "cc7ebdc4", ("uint256",))
COMP_ADDRESS = Function("getCompAddress()", "9d1b5a0a", ("address",), immutable=True)
COMP_INITIAL_INDEX = Function("compInitialIndex()", "a7f0e231", ("uint224",), immutable=True)
COMP_SUPPLY_STATE = Function("compSupplyState(address)", "6b79c38d", ("uint224 index", "uint32 block"))
COMP_BORROW_STATE = Function("compBorrowState(address)", "8c57804e", ("uint224 index", "uint32 block"))
COMP_SUPPLY_SPEED = Function("compSupplySpeeds(address)", "6aa875b5", ("uint256",))
COMP_BORROW_SPEED = Function("compBorrowSpeeds(address)", "f4a433c0", ("uint256",))
COMP_SUPPLIER_INDEX = Function("compSupplierIndex(address,address)", "b21be7fd", ("uint256",))
COMP_BORROWER_INDEX = Function("compBorrowerIndex(address,address)", "ca0af043", ("uint256",))
BORROW_GUARDIAN_PAUSED = Function("borrowGuardianPaused(address)", "6d154ea5", ("bool",))
"""Whether new borrows are paused in the market (Compound v2 has no supply caps, and borrowCaps as Venus's)."""

LENS = Lens("VenusLens", ("address", "address"))
"""VenusLens(wallet, comptroller): every read of an input in the core pool."""
POOLS_LENS = Lens("VenusPoolsLens", ("address", "address"))
"""VenusPoolsLens(wallet, poolRegistry): every read of an input in the isolated pools."""
COMPOUND_LENS = Lens("CompoundV2Lens", ("address", "address"))
"""CompoundV2Lens(wallet, comptroller): every read of an input in Compound v2."""
