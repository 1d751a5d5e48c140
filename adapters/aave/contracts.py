"""Aave's ground floor: every view the adapter calls (the Pool, its PoolAddressesProvider, the
AaveProtocolDataProvider, the AaveOracle and its price sources, the RewardsController and the
reserve tokens), with the output names Aave publishes, and the scales of their answers; then
what v2 has in their place (its data provider's reserve data, its Pool's pause, its
IncentivesController).

Names are those of Aave's ABIs (`@aave/core-v3`, `@aave/periphery-v3`, `@aave/protocol-v2`,
`@aave/aave-stake`; the tests hold these functions to them) or, where an ABI leaves an output
unnamed, of the struct or NatSpec in the source. The data provider's `getReserveData` and the
Pool's share a selector, not a layout; v2's data provider has a third layout on it.
"""

from __future__ import annotations

from chain.abi import Function
from chain.lens import Lens

RAY = 10**27
WAD = 10**18
SECONDS_PER_YEAR = 365 * 24 * 3600
MAX_RESERVES = 128
"""Aave v3's own cap on reserves per pool (ReserveConfiguration.MAX_RESERVES_COUNT)."""
EMODE_BITS = 168
"""Where a reserve's configuration keeps its e-mode category, up to v3.1 (ReserveConfiguration)."""

# The Pool.
RESERVES_LIST = Function("getReservesList()", "d1946dbc", ("address[]",))
USER_ACCOUNT_DATA = Function(
    "getUserAccountData(address)",
    "bf92857c",
    (
        "uint256 totalCollateralBase",
        "uint256 totalDebtBase",
        "uint256 availableBorrowsBase",
        "uint256 currentLiquidationThreshold",
        "uint256 ltv",
        "uint256 healthFactor",
    ),
)
"""In the oracle's base currency; the threshold and ltv in basis points, the health factor in wad."""
USER_EMODE = Function("getUserEMode(address)", "eddf1b79", ("uint256",))
POOL_RESERVE_DATA = Function(
    "getReserveData(address)",
    "35ea6a75",
    (
        "uint256 configuration",
        "uint128 liquidityIndex",
        "uint128 currentLiquidityRate",
        "uint128 variableBorrowIndex",
        "uint128 currentVariableBorrowRate",
        "uint128 currentStableBorrowRate",
        "uint40 lastUpdateTimestamp",
        "uint16 id",
        "address aTokenAddress",
        "address stableDebtTokenAddress",
        "address variableDebtTokenAddress",
        "address interestRateStrategyAddress",
        "uint128 accruedToTreasury",
        "uint128 unbacked",
        "uint128 isolationModeTotalDebt",
    ),
)
"""ReserveDataLegacy, a struct of static fields, so encoded as these in a row (its configuration
a one-word struct); the fields are at the same places from v3.0 on."""
EMODE_CATEGORY_DATA = Function(
    "getEModeCategoryData(uint8)",
    "6c6f6ae1",
    ("(uint16 ltv,uint16 liquidationThreshold,uint16 liquidationBonus,address priceSource,string label)",),
)
"""The category's terms up to v3.1 (deprecated from v3.2, where the price source reads as zero)."""
COLLATERAL_BITMAP = Function("getEModeCategoryCollateralBitmap(uint8)", "b0771dba", ("uint128",))
"""New in v3.2."""
COLLATERAL_CONFIG = Function(
    "getEModeCategoryCollateralConfig(uint8)",
    "b286f467",
    ("uint16 ltv", "uint16 liquidationThreshold", "uint16 liquidationBonus"),
)
"""CollateralConfig (v3.2 on), a struct of static fields: encoded as these three outputs."""
LTVZERO_BITMAP = Function("getEModeCategoryLtvzeroBitmap(uint8)", "fd89dee5", ("uint128",))
"""New in v3.6."""

# The PoolAddressesProvider: the market's current data provider and oracle.
GET_POOL_DATA_PROVIDER = Function("getPoolDataProvider()", "e860accb", ("address",))
GET_PRICE_ORACLE = Function("getPriceOracle()", "fca513a8", ("address",))

# The AaveProtocolDataProvider.
USER_RESERVE_DATA = Function(
    "getUserReserveData(address,address)",
    "28dd2d01",
    (
        "uint256 currentATokenBalance",
        "uint256 currentStableDebt",
        "uint256 currentVariableDebt",
        "uint256 principalStableDebt",
        "uint256 scaledVariableDebt",
        "uint256 stableBorrowRate",
        "uint256 liquidityRate",
        "uint40 stableRateLastUpdated",
        "bool usageAsCollateralEnabled",
    ),
)
RESERVE_DATA = Function(
    "getReserveData(address)",
    "35ea6a75",
    (
        "uint256 unbacked",
        "uint256 accruedToTreasuryScaled",
        "uint256 totalAToken",
        "uint256 totalStableDebt",
        "uint256 totalVariableDebt",
        "uint256 liquidityRate",
        "uint256 variableBorrowRate",
        "uint256 stableBorrowRate",
        "uint256 averageStableBorrowRate",
        "uint256 liquidityIndex",
        "uint256 variableBorrowIndex",
        "uint40 lastUpdateTimestamp",
    ),
)
"""Rates in ray (1e27) a year; the totals accrued to the block by Aave's indexes."""
RESERVE_CONFIGURATION = Function(
    "getReserveConfigurationData(address)",
    "3e150141",
    (
        "uint256 decimals",
        "uint256 ltv",
        "uint256 liquidationThreshold",
        "uint256 liquidationBonus",
        "uint256 reserveFactor",
        "bool usageAsCollateralEnabled",
        "bool borrowingEnabled",
        "bool stableBorrowRateEnabled",
        "bool isActive",
        "bool isFrozen",
    ),
)
"""ltv, liquidationThreshold and reserveFactor in basis points; liquidationBonus 1e4 + the bonus."""
RESERVE_TOKENS = Function(
    "getReserveTokensAddresses(address)",
    "d2493b6c",
    ("address aTokenAddress", "address stableDebtTokenAddress", "address variableDebtTokenAddress"),
)
RESERVE_CAPS = Function("getReserveCaps(address)", "46fbe558", ("uint256 borrowCap", "uint256 supplyCap"))
"""In whole tokens; 0 is none."""
PAUSED = Function("getPaused(address)", "b55d9904", ("bool isPaused",))
DEBT_CEILING = Function("getDebtCeiling(address)", "3c798109", ("uint256",))

# The AaveOracle.
ASSET_PRICE = Function("getAssetPrice(address)", "b3596f07", ("uint256",))
"""An asset's price (or a v3.0/v3.1 e-mode category's price source's), in the base currency."""
BASE_CURRENCY = Function("BASE_CURRENCY()", "e19f4700", ("address",), immutable=True)
BASE_CURRENCY_UNIT = Function("BASE_CURRENCY_UNIT()", "8c89b64f", ("uint256",), immutable=True)
SOURCE_OF_ASSET = Function("getSourceOfAsset(address)", "92bf2be0", ("address",))
WRAPPED_FEEDS = (
    Function("ASSET_TO_USD_AGGREGATOR()", "4ebdc284", ("address",)),
    Function("BASE_TO_USD_AGGREGATOR()", "d221087c", ("address",)),
)
"""What a price-cap (CAPO) source wraps: a stable adapter's asset feed, a ratio adapter's base feed
(bgd-labs/aave-capo's interfaces)."""

# The reserve tokens and the RewardsController they name.
INCENTIVES_CONTROLLER = Function("getIncentivesController()", "75d26413", ("address",))
REWARDS_BY_ASSET = Function("getRewardsByAsset(address)", "6657732f", ("address[]",))
REWARDS_DATA = Function(
    "getRewardsData(address,address)",
    "7eff4ba8",
    ("uint256 index", "uint256 emissionPerSecond", "uint256 lastUpdateTimestamp", "uint256 distributionEnd"),
)
"""Unnamed in the ABI: the fields of the controller's RewardData it returns, as its NatSpec lists them."""
REWARD_ORACLE = Function("getRewardOracle(address)", "2a17bf60", ("address",))
ALL_USER_REWARDS = Function(
    "getAllUserRewards(address[],address)", "4c0369c3", ("address[] rewardsList", "uint256[] unclaimedAmounts")
)
LATEST_ANSWER = Function("latestAnswer()", "50d25bcd", ("int256",))
"""The reward oracle's price (IEACAggregatorProxy)."""

LENS = Lens("AaveLens", ("address", "address[]", "address[]", "address[]", "address[]", "uint256[]"))
"""AaveLens(wallet, pools, addresses providers, data providers, oracles, versions): every market's reads."""
LENS_COLUMNS = ("pool", "addresses_provider", "data_provider", "oracle")
"""The AaveMarket fields the lens's four address lists carry, in its order (then their versions)."""

# Aave v2: its views with a layout of their own (the others are v3's, same selectors, same layouts).
V2_RESERVE_DATA = Function(
    "getReserveData(address)",
    "35ea6a75",
    (
        "uint256 availableLiquidity",
        "uint256 totalStableDebt",
        "uint256 totalVariableDebt",
        "uint256 liquidityRate",
        "uint256 variableBorrowRate",
        "uint256 stableBorrowRate",
        "uint256 averageStableBorrowRate",
        "uint256 liquidityIndex",
        "uint256 variableBorrowIndex",
        "uint40 lastUpdateTimestamp",
    ),
)
"""v2's AaveProtocolDataProvider: the reserve's cash, its debts accrued to the block, its rates."""
POOL_PAUSED = Function("paused()", "5c975abb", ("bool",))
"""A v2 LendingPool pauses as a whole (v3 pauses reserves: PAUSED)."""
V2_ASSETS = Function("assets(address)", "f11b8188", ("uint256 emissionPerSecond", "uint256 second", "uint256 third"))
"""The v2 IncentivesController's per-token distribution. Its first field is emissionPerSecond in
every version; the other two swap places between them (aave-stake: lastUpdateTimestamp, index;
the StakedTokenIncentivesController: index, lastUpdateTimestamp), so they go unnamed. Aave's own
UiIncentiveDataProviderV2V3 reads this view for the same reason where `getAssetData` fails."""
REWARD_TOKEN = Function("REWARD_TOKEN()", "99248ea7", ("address",), immutable=True)
DISTRIBUTION_END = Function("DISTRIBUTION_END()", "919cd40f", ("uint256",))
REWARDS_BALANCE = Function("getRewardsBalance(address[],address)", "8b599f26", ("uint256",))
"""What the wallet may claim on these tokens: what it accrued, stored or pending at the block."""
STAKED_TOKEN = Function("STAKED_TOKEN()", "312f6b83", ("address",), immutable=True)
"""A safety module's staked token (stkAAVE: AAVE), which Aave's own software prices it by."""
