"""Compound v3's ground floor: the Comet and CometRewards functions both queries call, with the
output names Compound publishes, and the scales of their answers.

Comet's ABI is Compound's (npm `@compound-finance/compound-js`, a test holds these to it);
CometRewards' is from its source, `contracts/CometRewards.sol`.
"""

from __future__ import annotations

from chain.abi import Event, Function

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
GET_ASSET_INFO_BY_ADDRESS = Function("getAssetInfoByAddress(address)", "3b3bec2e", (ASSET_INFO,))
BALANCE_OF = Function("balanceOf(address)", "70a08231", ("uint256",))
BORROW_BALANCE_OF = Function("borrowBalanceOf(address)", "374c49b4", ("uint256",))
USER_BASIC = Function(
    "userBasic(address)",
    "dc4abafd",
    (
        "int104 principal",
        "uint64 baseTrackingIndex",
        "uint64 baseTrackingAccrued",
        "uint16 assetsIn",
        "uint8 reserved",
    ),
)
"""An account's base principal, reward tracking and the bits of the collateral assets it holds
(`reserved`, Comet's `_reserved`, holds more such bits where a Comet lists more than 16 assets):
all zero for an account Comet has nothing of (compound-finance/comet CometStorage.UserBasic)."""
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
REWARDS_CLAIMED = Function("rewardsClaimed(address,address)", "65e12392", ("uint256",))
"""CometRewards' public `rewardsClaimed[comet][account]`: what the account has claimed in a market."""

SUPPLY = Event("Supply(address,address,uint256)", "0xd1cf3d156d5f8f0d50f6c122ed609cec09d35c9b9fb3fff6ea0959134dae424e")
TRANSFER = Event(
    "Transfer(address,address,uint256)", "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
)
WITHDRAW = Event(
    "Withdraw(address,address,uint256)", "0x9b1bfa7fa9ee420a16e124f794c35ac9f90472acc99140eb2f6447c714cad8eb"
)
SUPPLY_COLLATERAL = Event(
    "SupplyCollateral(address,address,address,uint256)",
    "0xfa56f7b24f17183d81894d3ac2ee654e3c26388d17a28dbd9549b8114304e1f4",
)
TRANSFER_COLLATERAL = Event(
    "TransferCollateral(address,address,address,uint256)",
    "0x29db89d45e1a802b4d55e202984fce9faf1d30aedf86503ff1ea0ed9ebb64201",
)
WITHDRAW_COLLATERAL = Event(
    "WithdrawCollateral(address,address,address,uint256)",
    "0xd6d480d5b3068db003533b170d67561494d72e3bf9fa40a266471351ebba9e16",
)
ABSORB_DEBT = Event(
    "AbsorbDebt(address,address,uint256,uint256)", "0x1547a878dc89ad3c367b6338b4be6a65a5dd74fb77ae044da1e8747ef1f4f62f"
)
ABSORB_COLLATERAL = Event(
    "AbsorbCollateral(address,address,address,uint256,uint256)",
    "0x9850ab1af75177e4a9201c65a2cf7976d5d28e40ef63494b44366f86b2f9412e",
)
"""Comet's events (CometMainInterface.sol; every address indexed): Supply(from, dst, amount),
Transfer(from, to, amount) of the base's supply (to or from the zero address), Withdraw(src, to,
amount), the collateral ones with the asset third, AbsorbDebt(absorber, borrower, basePaidOut,
usdValue), AbsorbCollateral(absorber, borrower, asset, collateralAbsorbed, usdValue)."""
REWARD_CLAIMED = Event(
    "RewardClaimed(address,address,address,uint256)",
    "0x2422cac5e23c46c890fdcf42d0c64757409df6832174df639337558f09d99c68",
)
"""CometRewards' RewardClaimed(src, recipient, token, amount), the addresses indexed: no market."""
