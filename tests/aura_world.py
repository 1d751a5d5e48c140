"""Aura on anvil over the Balancer world (tests/balancer_world.py, Balancer's own Vault and pools):
Aura's Booster, reward pools, stash token and AURA as test contracts with the views of Aura's
published source (tests/contracts/TestAura.sol: no package ships Aura's bytecode or ABIs). The
Booster lists the weighted pool (pid 0) and the composable stable pool (pid 1); the depositor
deposits BPT of the stable pool, where BAL, the AURA it mints (its reward multiplier at 80%) and
an extra reward (paid in a stash token of RWD) are claimable, both paid at a rate for a week;
AURA's emissions stand past the first cliffs. It also lists Balancer v3's weighted pool (pid 2: a
v3 pool is its own BPT, with no `getPoolId()`), with a deposit and BAL of the depositor's. An
earlier Booster (no multipliers, not AURA's operator) lists the stable pool too, with a deposit
and BAL of the depositor's, shut down since (as Aura's migration left it). With `l2`, a
sidechain's parts beside them (read through `l2_addresses_override`): a BoosterLite listing the
weighted pool, with a deposit and BAL of the depositor's, an AuraOFT and an L2Coordinator holding
it with BAL and AURA accrued.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests import balancer_world
from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts

ETHER = 10**18
AURA_USD = 30_000_000
EMITTED = 12_345_678 * ETHER
"""AURA minted by claims before the world's (cliff 123 of 500)."""
EARNED = {"BAL": 3 * ETHER + 7, "RWD": 5 * ETHER}
MULTIPLIER = 8_000
"""The stable pool's reward multiplier in the current Booster (of 10000)."""
OLDER_EARNED = 2 * ETHER + 3
"""BAL earned in the earlier Booster's stable pool."""
V3_EARNED = 4 * ETHER + 9
"""BAL earned in the current Booster's Balancer v3 pool."""
L2_EARNED = 7 * ETHER + 11
"""BAL earned in the BoosterLite's weighted pool."""
L2_ACCRUED = {"BAL": 1_000 * ETHER, "AURA": 1_234 * ETHER + 5}
"""The L2Coordinator's accBalRewards and accAuraRewards (mintRate about 1.234 AURA per BAL)."""
L2_HELD = 500 * ETHER
"""The AuraOFT the L2Coordinator holds."""
RATES = {"BAL": 2 * 10**15 + 5, "RWD": 10**15 + 1}
"""BAL a second the stable pool's reward pool pays its stakers, and RWD its extra reward pool, for a week."""
WEEK = 7 * 86_400
INFO = ("address", "address", "address", "address", "address", "bool")
"""poolInfo's outputs: lptoken, token, gauge, crvRewards, stash, shutdown."""


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts([CONTRACTS / name for name in ("TestAura.sol", "TestPriceFeed.sol")])


@dataclass
class AuraWorld:
    balancer: balancer_world.BalancerWorld
    booster: str = ""
    aura: str = ""
    aura_feed: str = ""
    reward_pools: list[str] = field(default_factory=list)
    extra: str = ""
    stash: str = ""
    deposited: int = 0
    booster_block: int = 0
    """The block the current Booster was deployed in."""
    v3_pool: str = ""
    """The current Booster's reward pool of Balancer v3's weighted pool (pid 2)."""
    v3_deposited: int = 0
    older_booster: str = ""
    older_pool: str = ""
    older_deposited: int = 0
    l2_booster: str = ""
    l2_pool: str = ""
    l2_deposited: int = 0
    aura_oft: str = ""
    l2_coordinator: str = ""
    wallets: dict[str, str] = field(default_factory=dict)
    reward_finish: int = 0
    """When the stable pool's BAL and extra reward rates end (periodFinish)."""
    start_block: int = 0
    """The block of the world's first deployment: its sections' `startBlock`."""

    @property
    def node(self) -> Anvil:
        return self.balancer.node

    def addresses_override(self) -> dict[str, Any]:
        data = self.balancer.addresses_override()
        chain = data[str(self.node.chain_id)]
        chain["aura"] = {
            "booster": self.booster,
            "aura": self.aura,
            "olderBoosters": [self.older_booster],
            "startBlock": self.start_block,
        }
        chain["priceFeeds"][self.aura] = {"pair": "AURA/USD", "feed": self.aura_feed, "heartbeat": 10**9}
        return data

    def l2_addresses_override(self) -> dict[str, Any]:
        """The chain as a sidechain of Aura's: its BoosterLite, AuraOFT and L2Coordinator."""
        data = self.addresses_override()
        chain = data[str(self.node.chain_id)]
        chain["aura"] = {
            "booster": self.l2_booster,
            "aura": self.aura_oft,
            "l2Coordinator": self.l2_coordinator,
            "startBlock": self.start_block,
        }
        chain["priceFeeds"][self.aura_oft] = {"pair": "AURA/USD", "feed": self.aura_feed, "heartbeat": 10**9}
        return data

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path


def build(node: Anvil, wallets: dict[str, str] | None = None, balancer: Any = None, l2: bool = False) -> AuraWorld:
    """On `balancer` (a Balancer world on `node`, built here when None); `wallets` (depositor,
    empty) default to Balancer's lp and empty wallets; `l2`: with a sidechain's parts too."""
    artifacts = compile_all()
    world = AuraWorld(balancer or balancer_world.build(node))
    world.start_block = node.block_number() + 1
    world.wallets = wallets or {"depositor": world.balancer.wallets["lp"], "empty": world.balancer.wallets["empty"]}
    depositor, tokens = world.wallets["depositor"], world.balancer.tokens
    world.aura = node.deploy(artifacts["TestAuraToken"])
    node.send(world.aura, "mint(address,uint256)", node.accounts[0], EMITTED)
    world.aura_feed = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
    node.send(world.aura_feed, "set(int256,uint256)", AURA_USD, node.timestamp())
    world.booster = node.deploy(artifacts["TestAuraBooster"], ["address"], [tokens["BAL"]])
    world.booster_block = node.block_number()
    node.send(world.aura, "setOperator(address)", world.booster)
    node.send(world.booster, "setMinter(address)", world.aura)
    world.reward_pools = [_add_pool(node, world.booster, world.balancer.pools[kind][0], world) for kind in POOLS]
    node.send(world.booster, "setRewardMultiplier(address,uint256)", world.reward_pools[1], MULTIPLIER)
    stable = world.balancer.pools["stable"][0]
    world.deposited = node.call(stable, "balanceOf(address)", depositor) // 4
    _deposit(node, world.booster, 1, stable, world.deposited, depositor)
    world.stash = node.deploy(artifacts["TestAuraStashToken"], ["address"], [tokens["RWD"]])
    world.extra = node.deploy(
        artifacts["TestAuraRewardPool"],
        ["address", "address", "uint256", "address"],
        [world.stash, world.booster, 0, "0x" + "00" * 20],
    )
    node.send(world.reward_pools[1], "addExtraReward(address)", world.extra)
    node.send(world.reward_pools[1], "setEarned(address,uint256)", depositor, EARNED["BAL"])
    node.send(world.extra, "setEarned(address,uint256)", depositor, EARNED["RWD"])
    world.reward_finish = node.timestamp() + WEEK
    for pool, token in ((world.reward_pools[1], "BAL"), (world.extra, "RWD")):
        node.send(pool, "setRewardRate(uint256,uint256)", RATES[token], world.reward_finish)
    v3 = world.balancer.v3
    assert v3 is not None
    world.v3_pool = _add_pool(node, world.booster, v3.pool, world)
    world.v3_deposited = node.call(v3.pool, "balanceOf(address)", depositor) // 3
    _deposit(node, world.booster, 2, v3.pool, world.v3_deposited, depositor)
    node.send(world.v3_pool, "setEarned(address,uint256)", depositor, V3_EARNED)
    world.older_booster = node.deploy(artifacts["TestAuraBoosterLite"], ["address"], [tokens["BAL"]])
    node.send(world.older_booster, "setMinter(address)", world.aura)
    world.older_pool = _add_pool(node, world.older_booster, stable, world)
    world.older_deposited = world.deposited // 3
    _deposit(node, world.older_booster, 0, stable, world.older_deposited, depositor)
    node.send(world.older_pool, "setEarned(address,uint256)", depositor, OLDER_EARNED)
    node.send(world.older_booster, "shutdownPool(uint256)", 0)
    if l2:
        _sidechain(node, artifacts, world, depositor)
    return world


POOLS = ("weighted", "stable")


def _add_pool(node: Anvil, booster: str, pool: str, world: AuraWorld) -> str:
    """The reward pool of `pool`, newly listed in `booster`."""
    node.send(booster, "addPool(address,address)", pool, world.balancer.gauge)
    length = node.call(booster, "poolLength()")
    info = node.call(booster, "poolInfo(uint256)", length - 1, returns=INFO)
    return str(info[3]).lower()


def _deposit(node: Anvil, booster: str, pid: int, pool: str, amount: int, depositor: str) -> None:
    node.send(pool, "approve(address,uint256)", booster, amount, sender=depositor)
    node.send(booster, "deposit(uint256,uint256,bool)", pid, amount, True, sender=depositor)


def _sidechain(node: Anvil, artifacts: dict[str, Artifact], world: AuraWorld, depositor: str) -> None:
    """A BoosterLite listing the weighted pool (a deposit of the depositor's earning BAL), an
    AuraOFT, and the L2Coordinator that pays it."""
    world.l2_booster = node.deploy(artifacts["TestAuraBoosterLite"], ["address"], [world.balancer.tokens["BAL"]])
    weighted = world.balancer.pools["weighted"][0]
    world.l2_pool = _add_pool(node, world.l2_booster, weighted, world)
    world.l2_deposited = node.call(weighted, "balanceOf(address)", depositor) // 5
    _deposit(node, world.l2_booster, 0, weighted, world.l2_deposited, depositor)
    node.send(world.l2_pool, "setEarned(address,uint256)", depositor, L2_EARNED)
    world.aura_oft = node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], ["Aura", "AURA", 18])
    world.l2_coordinator = node.deploy(artifacts["TestL2Coordinator"], ["address"], [world.aura_oft])
    node.send(world.l2_booster, "setMinter(address)", world.l2_coordinator)
    node.send(world.aura_oft, "mint(address,uint256)", world.l2_coordinator, L2_HELD)
    node.send(world.l2_coordinator, "setAccrued(uint256,uint256)", L2_ACCRUED["BAL"], L2_ACCRUED["AURA"])
