"""Compound v3's ground floor: the Comet and CometRewards functions both queries call, with the
output names Compound publishes, and the scales of their answers.

Comet's ABI is Compound's (npm `@compound-finance/compound-js`, a test holds these to it);
CometRewards' is from its source, `contracts/CometRewards.sol`.
"""

from __future__ import annotations

from chain.abi import Function

WAD = 10**18
PRICE_SCALE = 10**8
"""Comet's `getPrice`: 8 decimals, in the market's price currency."""
SECONDS_PER_YEAR = 365 * 24 * 3600
MAX_ASSETS = 32
"""Comet holds at most 15 collateral assets (24 with the extended asset list); a market
reporting more than this is refused."""

ASSET_INFO = (
    "(uint8 offset,address asset,address priceFeed,uint64 scale,uint64 borrowCollateralFactor,"
    "uint64 liquidateCollateralFactor,uint64 liquidationFactor,uint128 supplyCap)"
)
"""CometCore.AssetInfo: the factors are 1e18 fractions, `scale` the asset's whole unit."""

BASE_TOKEN = Function("baseToken()", "c55dae63", ("address",), immutable=True)
BASE_TOKEN_PRICE_FEED = Function("baseTokenPriceFeed()", "e7dad6bd", ("address",))
BASE_SCALE = Function("baseScale()", "44c1e5eb", ("uint256",), immutable=True)
NUM_ASSETS = Function("numAssets()", "a46fe83b", ("uint8",))
GET_ASSET_INFO = Function("getAssetInfo(uint8)", "c8c7fe6b", (ASSET_INFO,))
BALANCE_OF = Function("balanceOf(address)", "70a08231", ("uint256",))
BORROW_BALANCE_OF = Function("borrowBalanceOf(address)", "374c49b4", ("uint256",))
COLLATERAL_BALANCE_OF = Function("collateralBalanceOf(address,address)", "5c2549ee", ("uint128",))
GET_PRICE = Function("getPrice(address)", "41976e09", ("uint256",))
GET_UTILIZATION = Function("getUtilization()", "7eb71131", ("uint256",))
GET_SUPPLY_RATE = Function("getSupplyRate(uint256)", "d955759d", ("uint64",))
GET_BORROW_RATE = Function("getBorrowRate(uint256)", "9fa83b5a", ("uint64",))
TOTAL_SUPPLY = Function("totalSupply()", "18160ddd", ("uint256",))
TOTAL_BORROW = Function("totalBorrow()", "8285ef40", ("uint256",))
GET_RESERVES = Function("getReserves()", "0902f1ac", ("int256",))
BASE_BORROW_MIN = Function("baseBorrowMin()", "300e6beb", ("uint256",))
TOTALS_COLLATERAL = Function("totalsCollateral(address)", "59e017bd", ("uint128 totalSupplyAsset", "uint128 reserved"))
GET_REWARD_OWED = Function("getRewardOwed(address,address)", "41e0cad6", ("address token", "uint256 owed"))
"""CometRewards' RewardOwed, a struct of two static fields: encoded as these two outputs."""
