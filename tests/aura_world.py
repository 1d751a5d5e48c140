"""Aura on anvil over the Balancer world (tests/balancer_world.py, Balancer's own Vault and pools):
Aura's Booster, reward pools, stash token and AURA as test contracts with the views of Aura's
published source (tests/contracts/TestAura.sol: no package ships Aura's bytecode or ABIs). The
Booster lists the weighted pool (pid 0) and the composable stable pool (pid 1); the depositor
deposits BPT of the stable pool, where BAL, the AURA it mints and an extra reward (paid in a stash
token of RWD) are claimable; AURA's emissions stand past the first cliffs.
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
    wallets: dict[str, str] = field(default_factory=dict)

    @property
    def node(self) -> Anvil:
        return self.balancer.node

    def addresses_override(self) -> dict[str, Any]:
        data = self.balancer.addresses_override()
        chain = data[str(self.node.chain_id)]
        chain["aura"] = {"booster": self.booster, "aura": self.aura}
        chain["priceFeeds"][self.aura] = {"pair": "AURA/USD", "feed": self.aura_feed, "heartbeat": 10**9}
        return data

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path


def build(node: Anvil, wallets: dict[str, str] | None = None, balancer: Any = None) -> AuraWorld:
    """On `balancer` (a Balancer world on `node`, built here when None); `wallets` (depositor,
    empty) default to Balancer's lp and empty wallets."""
    artifacts = compile_all()
    world = AuraWorld(balancer or balancer_world.build(node))
    world.wallets = wallets or {"depositor": world.balancer.wallets["lp"], "empty": world.balancer.wallets["empty"]}
    depositor, tokens = world.wallets["depositor"], world.balancer.tokens
    world.aura = node.deploy(artifacts["TestAuraToken"])
    node.send(world.aura, "mint(address,uint256)", node.accounts[0], EMITTED)
    world.aura_feed = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
    node.send(world.aura_feed, "set(int256,uint256)", AURA_USD, node.timestamp())
    world.booster = node.deploy(artifacts["TestAuraBooster"], ["address"], [tokens["BAL"]])
    for kind in ("weighted", "stable"):
        pool = world.balancer.pools[kind][0]
        node.send(world.booster, "addPool(address,address)", pool, world.balancer.gauge)
        info = node.call(world.booster, "poolInfo(uint256)", len(world.reward_pools), returns=INFO)
        world.reward_pools.append(info[3].lower())
    stable = world.balancer.pools["stable"][0]
    world.deposited = node.call(stable, "balanceOf(address)", depositor) // 4
    node.send(stable, "approve(address,uint256)", world.booster, world.deposited, sender=depositor)
    node.send(world.booster, "deposit(uint256,uint256)", 1, world.deposited, sender=depositor)
    world.stash = node.deploy(artifacts["TestAuraStashToken"], ["address"], [tokens["RWD"]])
    world.extra = node.deploy(artifacts["TestAuraRewardPool"], ["address", "address"], [world.stash, world.booster])
    node.send(world.reward_pools[1], "addExtraReward(address)", world.extra)
    node.send(world.reward_pools[1], "setEarned(address,uint256)", depositor, EARNED["BAL"])
    node.send(world.extra, "setEarned(address,uint256)", depositor, EARNED["RWD"])
    return world
