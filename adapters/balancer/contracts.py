"""Balancer's ground floor: the events its discovery reads (the index's stream) and the functions
both Balancer and Aura call, with the output names Balancer publishes
(`@balancer-labs/v2-deployments` 3.2.0's ABIs: the v2 Vault, the WeightedPool and
ComposableStablePool, LiquidityGaugeV5; a test holds these to them).

The stream: the v2 Vault's `PoolRegistered(poolId, poolAddress, specialization)` (every v2 pool,
whatever its factory) and the gauge factories' `GaugeCreated` (every gauge) are catalog entries;
the Transfer logs of every pool (BPT) and gauge (its staked-BPT token) are holdings, so the
wallet's pools and gauges are the keys its logs name (see positions.py for why)."""

from __future__ import annotations

import functools

from addresses import BalancerAddresses, ChainAddresses
from chain import Log, erc20
from chain.abi import Event, Function
from chain.event_index import Stream
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

GAUGE_TOPICS = (GAUGE_CREATED.topic, GAUGE_CREATED_V1.topic)
POOL = "pool"
GAUGE = "gauge"


@functools.cache
def stream(deployment: BalancerAddresses) -> Stream:
    """Balancer's events in the index: pools registered in the v2 Vault (key the pool, value its
    poolId), gauges created by the gauge factories (key the gauge), and who may hold a pool's BPT
    or a gauge's stake: the recipient of each of their Transfers."""
    vault = deployment.v2_vault.address.lower()
    factories = {factory.address.lower() for factory in deployment.gauge_factories}
    contracts = tuple(sorted({vault} | factories))
    start = min(part.start_block for part in (deployment.v2_vault, *deployment.gauge_factories))

    def rows(entry: Log) -> Rows:
        """The events read have an event topic and one or two indexed arguments."""
        address = entry.address
        kind, *indexed = entry.topics or ("",)
        if address == vault and kind == POOL_REGISTERED.topic and len(indexed) == 2:
            pool_id, pool = indexed
            return [Entry(POOL, _topic_address(pool), bytes.fromhex(pool_id[2:]), entry.block_number)]
        if address in factories and kind in GAUGE_TOPICS and indexed:
            gauge, *_ = indexed
            return [Entry(GAUGE, _topic_address(gauge), b"", entry.block_number)]
        if address not in contracts and kind == erc20.TRANSFER.topic and len(indexed) == 2:
            _, to = indexed
            return [Holding(_topic_address(to), address, entry.block_number)]
        return []

    topics = (POOL_REGISTERED.topic, GAUGE_CREATED.topic, GAUGE_CREATED_V1.topic, erc20.TRANSFER.topic)
    return Stream(f"balancer {','.join(contracts)}", contracts, topics, start, rows, (POOL, GAUGE))


def _topic_address(topic: str) -> str:
    return "0x" + topic[-40:]


def streams(chain: ChainAddresses) -> tuple[Stream, ...]:
    deployment = chain.balancer
    return (stream(deployment),) if deployment else ()
