"""Balancer v2 on anvil with Balancer's own contracts: the Authorizer, the Vault, the
ProtocolFeePercentagesProvider, the WeightedPoolFactory and the ComposableStablePoolFactory (v3
factories of 2023-02-06), each deployed from the bytecode `@balancer-labs/v2-deployments` 3.2.0
publishes (the tarball tools/packs.json pins), and a weighted 80/20 pool and a composable stable
pool created by them and joined as Balancer's INIT joins do. No package ships a deployable
gauge (LiquidityGaugeV5 needs the veBAL system behind it), so the gauges and their factory are
test contracts with the views of the published LiquidityGaugeV5 ABI and of the L2s'
ChildChainGauge (tests/contracts/TestBalancer.sol).

The `lp` wallet holds BPT of both pools and stakes part of the weighted pool's in the gauge,
where BAL and an extra reward token are claimable (the gauge paying it at a rate for a week). A
third pool, of no type the adapter reads, registers itself in the Vault as any pool does.
Balancer v3 is built on the same chain (tests/balancer_v3_world.py): the lp wallet holds BPT of a
v3 weighted pool too and stakes a quarter of it in a second gauge, one with an L2
ChildChainGauge's views; the `seller` wallet owns and seeds a v3 fixed-price LBP.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import eth_abi

from adapters.balancer.contracts import POOL_REGISTERED
from tests import balancer_v3_world
from tests.balancer_v3_world import BalancerV3
from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts, packaged
from tests.node_oracles import pack

ETHER = 10**18
PACKAGE = "@balancer-labs/v2-deployments"
TASKS = "dist/tasks"
PRICES = {"TKN": 2_000 * 10**8, "USDC": 10**8, "DAI": 99_990_000, "BAL": 2 * 10**8, "RWD": 50_000_000, "RTK": 10**8}
"""USD feed answers (8 decimals) of the world's tokens (RTK: the v3 pool's token with a rate)."""
DECIMALS = {"TKN": 18, "USDC": 6, "DAI": 18, "BAL": 18, "RWD": 18, "RTK": 18}
WEIGHTED_IN = {"TKN": 40 * ETHER, "USDC": 20_000 * 10**6}
"""The weighted pool's INIT join (80 % TKN at 2,000 USD, 20 % USDC)."""
STABLE_IN = {"USDC": 50_000 * 10**6, "DAI": 50_000 * ETHER}
STAKED_SHARE = 3
"""The lp wallet stakes a third of its weighted BPT in the gauge."""
CLAIMABLE = {"BAL": 12 * ETHER + 345, "RWD": 7 * ETHER}
REWARD_RATES = {"weighted": 3 * 10**15 + 7, "v3": 5 * 10**14 + 3}
"""RWD a second each gauge pays its stakers (reward_data's rate), for a week from the world's build."""
WEEK = 7 * 86_400
INFLATION_RATE = 38 * 10**15 + 11
"""The v2 gauge's inflation_rate(): BAL a second for all gauges, as its last checkpoint read it."""
OTHER_FEE = 25 * 10**14
"""The swap fee of the world's pool of no type the adapter reads (0.25 %)."""
MAX = 2**256 - 1


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    names = ("TestToken.sol", "TestPriceFeed.sol", "TestBalancer.sol", "TestBalancerV3.sol")
    return compile_contracts([CONTRACTS / name for name in names])


def published(task: str, name: str) -> Artifact:
    """A contract of the pinned package's task, as its artifact publishes it built."""

    def read() -> list[Any]:
        entry = json.loads(pack(PACKAGE)[f"{TASKS}/{task}/artifact/{name}.json"])
        return [entry["abi"], entry["bytecode"], entry["deployedBytecode"]]

    return Artifact(*packaged(f"balancer {task}/{name}", read))


@dataclass
class BalancerWorld:
    node: Anvil
    tokens: dict[str, str] = field(default_factory=dict)
    feeds: dict[str, str] = field(default_factory=dict)
    vault: str = ""
    start_block: int = 0
    gauge_factory: str = ""
    pools: dict[str, tuple[str, str]] = field(default_factory=dict)
    """"weighted" / "stable" -> (pool address, poolId)."""
    gauge: str = ""
    wallets: dict[str, str] = field(default_factory=dict)
    v3: BalancerV3 | None = None
    v3_gauge: str = ""
    """A gauge with a ChildChainGauge's views (an L2's), of the v3 weighted pool."""
    other_pool: str = ""
    """A pool of none of the types the adapter reads, registered in the v2 Vault with no liquidity."""
    reward_finish: int = 0
    """When the gauges' RWD rates end (period_finish)."""
    minter: str = ""
    """The BalancerMinter both gauges' BAL is claimed from (`mint(gauge)`)."""

    def addresses_override(self) -> dict[str, Any]:
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                "balancer": {
                    "v2Vault": {"address": self.vault, "startBlock": self.start_block},
                    "gaugeFactories": [{"address": self.gauge_factory, "startBlock": self.start_block}],
                    "bal": self.tokens["BAL"],
                    **({"v3Vault": {"address": self.v3.vault, "startBlock": self.v3.start_block}} if self.v3 else {}),
                },
                "priceFeeds": {
                    self.tokens[name]: {"pair": f"{name}/USD", "feed": self.feeds[name], "heartbeat": 10**9}
                    for name in PRICES
                },
            }
        }

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path

    def pool_tokens(self, kind: str) -> tuple[list[str], list[int]]:
        """The Vault's getPoolTokens of a pool, as Balancer answers it."""
        tokens, balances, _ = self.node.call(
            self.vault, "getPoolTokens(bytes32)", self.pool_id(kind), returns=("address[]", "uint256[]", "uint256")
        )
        return [token.lower() for token in tokens], list(balances)

    def pool_id(self, kind: str) -> bytes:
        return bytes.fromhex(self.pools[kind][1][2:])


def build(node: Anvil, wallets: dict[str, str] | None = None) -> BalancerWorld:
    """`wallets` (lp, empty, seller) default to anvil accounts 14-16."""
    artifacts = compile_all()
    world = BalancerWorld(node)
    world.wallets = wallets or dict(zip(("lp", "empty", "seller"), node.accounts[14:17]))
    lp = world.wallets["lp"]
    for name, answer in PRICES.items():
        token_args = [name, name, DECIMALS[name]]
        world.tokens[name] = node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], token_args)
        world.feeds[name] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
        node.send(world.feeds[name], "set(int256,uint256)", answer, node.timestamp())
    admin = node.accounts[0]
    authorizer = node.deploy(published("20210418-authorizer", "Authorizer"), ["address"], [admin])
    world.start_block = node.block_number() + 1
    world.vault = node.deploy(
        published("20210418-vault", "Vault"),
        ["address", "address", "uint256", "uint256"],
        [authorizer, world.tokens["TKN"], 0, 0],
    )
    provider = node.deploy(
        published("20220725-protocol-fee-percentages-provider", "ProtocolFeePercentagesProvider"),
        ["address", "uint256", "uint256"],
        [world.vault, ETHER // 2, ETHER // 2],
    )
    factory_args = ["address", "address", "string", "string"], [world.vault, provider, "test", "test"]
    weighted = node.deploy(published("20230206-weighted-pool-v3", "WeightedPoolFactory"), *factory_args)
    stable = node.deploy(published("20230206-composable-stable-pool-v3", "ComposableStablePoolFactory"), *factory_args)
    for name in PRICES:
        node.send(world.tokens[name], "mint(address,uint256)", lp, 10**12 * ETHER)
        node.send(world.tokens[name], "approve(address,uint256)", world.vault, MAX, sender=lp)
    pair = sorted([world.tokens["TKN"], world.tokens["USDC"]])
    weights = [8 * ETHER // 10 if token == world.tokens["TKN"] else 2 * ETHER // 10 for token in pair]
    world.pools["weighted"] = _created(
        world,
        node.send(
            weighted,
            "create(string,string,address[],uint256[],address[],uint256,address)",
            "Balancer 80 TKN 20 USDC",
            "B-80TKN-20USDC",
            pair,
            weights,
            ["0x" + "00" * 20] * 2,
            3 * 10**15,
            admin,
        ),
    )
    stables = sorted([world.tokens["USDC"], world.tokens["DAI"]])
    world.pools["stable"] = _created(
        world,
        node.send(
            stable,
            "create(string,string,address[],uint256,address[],uint256[],bool[],uint256,address)",
            "Balancer USDC-DAI Stable",
            "B-USDC-DAI",
            stables,
            200,
            ["0x" + "00" * 20] * 2,
            [0, 0],
            [False, False],
            10**14,
            admin,
        ),
    )
    _init_join(world, "weighted", WEIGHTED_IN, lp)
    _init_join(world, "stable", STABLE_IN, lp)
    world.gauge_factory = node.deploy(artifacts["TestBalancerGaugeFactory"])
    world.minter = node.deploy(artifacts["TestBalancerMinter"], ["address"], [world.tokens["BAL"]])
    receipt = node.send(world.gauge_factory, "create(address)", world.pools["weighted"][0])
    world.gauge = "0x" + receipt["logs"][0]["topics"][1][-40:]
    node.send(world.gauge, "setMinter(address)", world.minter)
    staked = node.call(world.pools["weighted"][0], "balanceOf(address)", lp) // STAKED_SHARE
    node.send(world.pools["weighted"][0], "approve(address,uint256)", world.gauge, MAX, sender=lp)
    node.send(world.gauge, "deposit(uint256)", staked, sender=lp)
    node.send(world.gauge, "add_reward(address)", world.tokens["RWD"])
    node.send(world.gauge, "setClaimable(address,address,uint256)", lp, world.tokens["RWD"], CLAIMABLE["RWD"])
    node.send(world.gauge, "setClaimableBal(address,uint256)", lp, CLAIMABLE["BAL"])
    node.send(world.gauge, "setInflationRate(uint256)", INFLATION_RATE)
    world.v3 = balancer_v3_world.build(node, world.tokens, lp, world.wallets["seller"], artifacts)
    world.v3_gauge = _staked(world, world.v3.pool, balancer_v3_world.STAKED_SHARE, child=True)
    node.send(world.v3_gauge, "add_reward(address)", world.tokens["RWD"])
    world.reward_finish = node.timestamp() + WEEK
    for gauge, kind in ((world.gauge, "weighted"), (world.v3_gauge, "v3")):
        rate = (world.tokens["RWD"], REWARD_RATES[kind], world.reward_finish)
        node.send(gauge, "setRewardRate(address,uint256,uint256)", *rate)
    others = sorted([world.tokens["TKN"], world.tokens["DAI"]])
    world.other_pool = node.deploy(
        artifacts["TestBalancerOtherPool"], ["address", "address[]", "uint256"], [world.vault, others, OTHER_FEE]
    )
    return world


def _staked(world: BalancerWorld, pool: str, share: int, child: bool = False) -> str:
    """A gauge for `pool` from the world's gauge factory (`child`: with a ChildChainGauge's views),
    and the lp wallet's deposit of 1/share of its BPT."""
    node, lp = world.node, world.wallets["lp"]
    receipt = node.send(world.gauge_factory, "createChild(address)" if child else "create(address)", pool)
    gauge = "0x" + receipt["logs"][0]["topics"][1][-40:]
    node.send(gauge, "setMinter(address)", world.minter)
    node.send(pool, "approve(address,uint256)", gauge, MAX, sender=lp)
    node.send(gauge, "deposit(uint256)", node.call(pool, "balanceOf(address)", lp) // share, sender=lp)
    return gauge


def _created(world: BalancerWorld, receipt: dict[str, Any]) -> tuple[str, str]:
    """The pool a factory's create made: the Vault's PoolRegistered log (poolId, pool address)."""
    (log,) = [
        log
        for log in receipt["logs"]
        if log["address"].lower() == world.vault and log["topics"][0] == POOL_REGISTERED.topic
    ]
    return "0x" + log["topics"][2][-40:], log["topics"][1]


def _init_join(world: BalancerWorld, kind: str, amounts: dict[str, int], sender: str) -> None:
    """Balancer's INIT join (JoinKind 0): the pool's tokens in the Vault's order; a composable
    stable pool's own BPT among them with any amount (the pool mints what the join is worth)."""
    pool, _ = world.pools[kind]
    tokens, _ = world.pool_tokens(kind)
    by_token = {world.tokens[name]: amount for name, amount in amounts.items()}
    amounts_in = [by_token.get(token, 0) for token in tokens]
    max_in = [by_token.get(token, MAX) for token in tokens]
    user_data = eth_abi.encode(["uint256", "uint256[]"], [0, amounts_in])
    world.node.send(
        world.vault,
        "joinPool(bytes32,address,address,(address[],uint256[],bytes,bool))",
        world.pool_id(kind),
        sender,
        sender,
        (tokens, max_in, user_data, False),
        sender=sender,
    )
    assert world.node.call(pool, "balanceOf(address)", sender) > 0
