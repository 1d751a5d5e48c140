"""Balancer's ground floor: the events its discovery reads (the index's stream) and the functions
both Balancer and Aura call, with the output names Balancer publishes
(`@balancer-labs/v2-deployments` 3.2.0's ABIs: the v2 Vault, the WeightedPool and
ComposableStablePool, LiquidityGaugeV5; a test holds these to them), and Balancer v3's, as the
Solidity sources of `@balancer-labs/v3-vault` / `v3-pool-weighted` 1.0.0 compile them.

The stream: the v2 Vault's `PoolRegistered(poolId, poolAddress, specialization)` (every v2 pool,
whatever its factory), the v3 Vault's `PoolRegistered(pool, factory, ...)` (every v3 pool) and the
gauge factories' `GaugeCreated` (every gauge) are catalog entries;
the Transfer logs of every pool (BPT) and gauge (its staked-BPT token) are holdings, so the
wallet's pools and gauges are the keys its logs name (see positions.py for why)."""

from __future__ import annotations

import functools

from adapters.balancer.section import BalancerAddresses
from chain import Log, erc20
from chain.abi import Event, Function
from chain.event_index import Stream, View
from chain.index_store import Entry, Holding, Rows

POOL_REGISTERED = Event(
    "PoolRegistered(bytes32,address,uint8)", "0x3c13bc30b8e878c53fd2a36b679409c073afd75950be43d8858768e956fbc20e"
)
GAUGE_CREATED = Event("GaugeCreated(address)", "0xaa98436d09d130af48de49867af8b723bbbebb0d737638b5fe8f1bf31bbb71c0")
GAUGE_CREATED_V1 = Event(
    "GaugeCreated(address,address)", "0xbc0aff029cf899fe358381e295caa21dd2e8c1a6607e2b9e6c7ec915db15bd53"
)
"""The first mainnet gauge factory's event (gauge, pool)."""

GET_POOL_TOKENS = Function(
    "getPoolTokens(bytes32)", "f94d4668", ("address[] tokens", "uint256[] balances", "uint256 lastChangeBlock")
)
GET_POOL_ID = Function("getPoolId()", "38fff2d0", ("bytes32",), immutable=True)
GET_ACTUAL_SUPPLY = Function("getActualSupply()", "876f303b", ("uint256",))
TOTAL_SUPPLY = Function("totalSupply()", "18160ddd", ("uint256",))
GET_BPT_INDEX = Function("getBptIndex()", "82687a56", ("uint256",), immutable=True)
GET_NORMALIZED_WEIGHTS = Function("getNormalizedWeights()", "f89f27ed", ("uint256[]",))
GET_AMPLIFICATION_PARAMETER = Function(
    "getAmplificationParameter()", "6daccffa", ("uint256 value", "bool isUpdating", "uint256 precision")
)
LP_TOKEN = Function("lp_token()", "82c63066", ("address",), immutable=True)
CLAIMABLE_TOKENS = Function("claimable_tokens(address)", "33134583", ("uint256",))
"""Not a view (it checkpoints the gauge first): read by eth_call, last in the lens."""
REWARD_COUNT = Function("reward_count()", "963c94b9", ("uint256",))
REWARD_TOKENS = Function("reward_tokens(uint256)", "54c49fe9", ("address",))
CLAIMABLE_REWARD = Function("claimable_reward(address,address)", "33fd6f74", ("uint256",))
GET_POOL = Function("getPool(bytes32)", "f6c00927", ("address", "uint8"))
"""The v2 Vault's pool of a poolId (and its specialization); reverts for an id it never registered."""
GET_SWAP_FEE_PERCENTAGE = Function("getSwapFeePercentage()", "55c67628", ("uint256",))
REWARD_DATA = Function("reward_data(address)", "48e9c65e", ("(address,address,uint256,uint256,uint256,uint256)",))
"""LiquidityGaugeV5's Reward (token, distributor, period_finish, rate, last_update, integral)."""
CHILD_REWARD_DATA = Function("reward_data(address)", "48e9c65e", ("(address,uint256,uint256,uint256,uint256)",))
"""The L2s' ChildChainGauge's Reward, without the token (distributor, period_finish, rate,
last_update, integral): a LiquidityGaugeV5's longer answer does not decode as this, and this
one's does not as that."""
INFLATION_RATE = Function("inflation_rate()", "180692d0", ("uint256",))
"""LiquidityGaugeV5's: BAL a second for all gauges at its last checkpoint (a ChildChainGauge's
`inflation_rate(uint256 week)` takes a week)."""
IS_KILLED = Function("is_killed()", "9c868ac0", ("bool",))
MINTED = Event("Minted(address,address,uint256)", "0x9d228d69b5fdb8d273a2336f8fb8612d039631024ea9bf09c424a9503aa078f0")
"""BalancerMinter's (and the L2s' pseudo minter's) Minted(recipient indexed, gauge, minted): `minted`
is the recipient's total minted from the gauge so far, not this mint's amount."""
MINTED_SO_FAR = Function("minted(address,address)", "8b752bb0", ("uint256",))
"""BalancerMinter's minted(user, gauge): the total `Minted` last named."""

GAUGE_TOPICS = (GAUGE_CREATED.topic, GAUGE_CREATED_V1.topic)
POOL = "pool"
GAUGE = "gauge"

# Balancer v3: the pool is its own BPT (an ERC-20 whose balances the Vault keeps); the v3 Vault
# (its VaultExtension, behind the Vault's fallback) answers the pool's tokens, balances and supply.
V3_POOL_REGISTERED = Event(
    "PoolRegistered(address,address,(address,uint8,address,bool)[],uint256,uint32,(address,address,address),"
    "(bool,bool,bool,bool,bool,bool,bool,bool,bool,bool,address),(bool,bool,bool,bool))",
    "0xbc1561eeab9f40962e2fb827a7ff9c7cdb47a9d7c84caeefa4ed90e043842dad",
)
"""The v3 Vault's (pool and factory indexed; TokenConfig[], swap fee, pause window end,
PoolRoleAccounts, HooksConfig, LiquidityManagement in its data)."""
V3_GET_POOL_TOKEN_INFO = Function(
    "getPoolTokenInfo(address)",
    "67e0e076",
    (
        "address[] tokens",
        "(uint8,address,bool)[] tokenInfo",
        "uint256[] balancesRaw",
        "uint256[] lastBalancesLiveScaled18",
    ),
)
V3_GET_CURRENT_LIVE_BALANCES = Function("getCurrentLiveBalances(address)", "535cfd8a", ("uint256[]",))
V3_GET_POOL_TOKEN_RATES = Function(
    "getPoolTokenRates(address)", "7e361bde", ("uint256[] decimalScalingFactors", "uint256[] tokenRates")
)
V3_TOTAL_SUPPLY = Function("totalSupply(address)", "e4dc2aa4", ("uint256",))
LBP_IMMUTABLE_DATA = Function(
    "getLBPoolImmutableData()",
    "0ca89848",
    (
        "(address[] tokens,uint256[] decimalScalingFactors,uint256 startTime,uint256 endTime,uint256 projectTokenIndex,"
        "uint256 reserveTokenIndex,bool isProjectTokenSwapInBlocked,uint256[] startWeights,uint256[] endWeights,"
        "uint256 reserveTokenVirtualBalance,address migrationRouter,uint256 lockDurationAfterMigration,"
        "uint256 bptPercentageToMigrate,uint256 migrationWeightProjectToken,uint256 migrationWeightReserveToken)",
    ),
    immutable=True,
)
"""A v3 LBPool's LBPoolImmutableData (v3-interfaces 1.0.0, pool-weighted/ILBPool.sol); only an LBP answers it."""
LBP_DYNAMIC_DATA = Function(
    "getLBPoolDynamicData()",
    "e565c29e",
    (
        "(uint256[] balancesLiveScaled18,uint256 staticSwapFeePercentage,uint256 totalSupply,bool isPoolInitialized,"
        "bool isPoolPaused,bool isPoolInRecoveryMode,bool isSwapEnabled,uint256[] normalizedWeights)",
    ),
)
"""A v3 LBPool's LBPoolDynamicData: its weights now (interpolated from start to end over the sale)."""
FIXED_LBP_IMMUTABLE_DATA = Function(
    "getFixedPriceLBPoolImmutableData()",
    "69a7ad8c",
    (
        "(address[] tokens,uint256[] decimalScalingFactors,uint256 startTime,uint256 endTime,uint256 projectTokenIndex,"
        "uint256 reserveTokenIndex,uint256 projectTokenRate)",
    ),
    immutable=True,
)
"""A v3 FixedPriceLBPool's FixedPriceLBPoolImmutableData (v3-interfaces 1.0.0,
pool-weighted/IFixedPriceLBPool.sol); only a fixed-price LBP answers it (it is no WeightedPool)."""
FIXED_LBP_DYNAMIC_DATA = Function(
    "getFixedPriceLBPoolDynamicData()",
    "aaff392c",
    (
        "(uint256[] balancesLiveScaled18,uint256 staticSwapFeePercentage,uint256 totalSupply,bool isPoolInitialized,"
        "bool isPoolPaused,bool isPoolInRecoveryMode,bool isSwapEnabled)",
    ),
)
"""A v3 FixedPriceLBPool's FixedPriceLBPoolDynamicData: whether its sale is on."""
GYRO_ECLP_PARAMS = Function(
    "getECLPParams()",
    "7be219a2",
    (
        "(int256,int256,int256,int256,int256)",
        "((int256,int256),(int256,int256),int256,int256,int256,int256,int256)",
    ),
    immutable=True,
)
"""A Gyro E-CLP pool's EclpParams and DerivedEclpParams (v3-interfaces 1.0.0, pool-gyro/IGyroECLPPool.sol):
what tells the type, not read further."""
GYRO_2CLP_IMMUTABLE_DATA = Function(
    "getGyro2CLPPoolImmutableData()", "7e148d61", ("(address[],uint256[],uint256,uint256)",), immutable=True
)
"""A Gyro 2-CLP pool's Gyro2CLPPoolImmutableData (pool-gyro/IGyro2CLPPool.sol): what tells the type."""
RECLAMM_DYNAMIC_DATA = Function(
    "getReClammPoolDynamicData()",
    "2c357688",
    (
        "(uint256[],uint256[],uint256,uint256,uint256,uint256[],uint256,uint256,uint256,uint256,uint256,uint256,"
        "uint256,uint32,uint32,bool,bool,bool)",
    ),
)
"""A ReClamm pool's ReClammPoolDynamicData (balancer/reclamm's IReClammPoolExtension; no package
publishes it): what tells the type."""
V3_IS_POOL_REGISTERED = Function("isPoolRegistered(address)", "c673bdaf", ("bool",))
V3_GET_STATIC_SWAP_FEE_PERCENTAGE = Function("getStaticSwapFeePercentage(address)", "b45090f9", ("uint256",))
POOL_V3 = "pool-v3"


class Catalog:
    """The index's (the `stream` below) v2 pools (address -> poolId), v3 pools and gauges."""

    def __init__(self, view: View) -> None:
        self.pools = {entry.key: "0x" + entry.value.hex() for entry in view.of(POOL)}
        self.v3_pools = {entry.key for entry in view.of(POOL_V3)}
        self.gauges = {entry.key for entry in view.of(GAUGE)}

    def pool(self, key: str) -> bool:
        return key in self.pools or key in self.v3_pools


@functools.cache
def stream(deployment: BalancerAddresses) -> Stream:
    """Balancer's events in the index: pools registered in the v2 Vault (key the pool, value its
    poolId) and in the v3 Vault (key the pool), gauges created by the gauge factories (key the
    gauge), and who may hold a pool's BPT or a gauge's stake: the recipient of each of their Transfers."""
    vault = deployment.v2_vault.address.lower()
    v3_vault = deployment.v3_vault.address.lower() if deployment.v3_vault else None
    factories = {factory.address.lower() for factory in deployment.gauge_factories}
    contracts = tuple(sorted({vault} | factories | ({v3_vault} if v3_vault else set())))
    start = min(part.start_block for part in (deployment.v2_vault, *deployment.gauge_factories))

    def rows(entry: Log) -> Rows:
        """The events read have an event topic and one or two indexed arguments."""
        address = entry.address
        kind, *indexed = entry.topics or ("",)
        if address == vault and kind == POOL_REGISTERED.topic and len(indexed) == 2:
            pool_id, pool = indexed
            return [Entry(POOL, _topic_address(pool), bytes.fromhex(pool_id[2:]), entry.block_number)]
        if address == v3_vault and kind == V3_POOL_REGISTERED.topic and len(indexed) == 2:
            pool, _factory = indexed
            return [Entry(POOL_V3, _topic_address(pool), b"", entry.block_number)]
        if address in factories and kind in GAUGE_TOPICS and indexed:
            gauge, *_ = indexed
            return [Entry(GAUGE, _topic_address(gauge), b"", entry.block_number)]
        if address not in contracts and kind == erc20.TRANSFER.topic and len(indexed) == 2:
            _, to = indexed
            return [Holding(_topic_address(to), address, entry.block_number)]
        return []

    topics: tuple[str, ...] = (POOL_REGISTERED.topic, GAUGE_CREATED.topic, GAUGE_CREATED_V1.topic, erc20.TRANSFER.topic)
    if v3_vault:
        topics += (V3_POOL_REGISTERED.topic,)
    return Stream(f"balancer {','.join(contracts)}", contracts, topics, start, rows, (POOL, GAUGE, POOL_V3))


def _topic_address(topic: str) -> str:
    return "0x" + topic[-40:]
