"""Convex on anvil, on the Curve world's pools: a Booster, BaseRewardPools, an extra reward pool
and the CVX token as test contracts with the views of convex-eth/platform's sources
(tests/contracts/TestConvex.sol; Convex publishes no npm package of its contracts).

Booster pools: 0 a Curve pool no one here deposits in, 1 the stable pool (CRV and an extra
reward), 2 the crypto pool (its LP token's minter is the pool), 3 shut down. The `depositor`
has deposits in pools 1 and 2; `empty` has none. CVX's supply sits in its 642nd cliff. Deposits,
withdrawals and claims go through the Booster's and the reward pools' own entry points
(tests/test_history_convex.py acts through them).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests import curve_world
from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts

E18 = 10**18
CVX_SUPPLY = 64_123_456 * E18 + 7 * E18 // 10
CVX_USD = 210_000_000
DEPOSITS = {1: 2_500 * E18, 2: 40 * E18}
"""The depositor's Curve LP in each Booster pool."""
EARNED = {1: 310 * E18 + 17, 2: 12 * E18}
"""CRV each pool has earned for the depositor."""
EXTRA = 44 * E18
"""The extra reward (the Curve world's EXTRA token) pool 1 has earned for the depositor."""

CRV_RATE = (1_268_391_679_350_583, 2**31 - 1)
"""Pool 1's CRV stream: (a second, period end): 40,000 CRV a year."""
EXTRA_RATE = (95_129_375_951, 1)
"""Pool 1's extra reward stream, ended (its period finished at second 1)."""


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts([CONTRACTS / "TestConvex.sol", CONTRACTS / "TestToken.sol"])


@dataclass
class ConvexWorld:
    node: Anvil
    curve: curve_world.CurveWorld
    wallets: dict[str, str] = field(default_factory=dict)
    booster: str = ""
    cvx: str = ""
    cvx_feed: str = ""
    rewards: dict[int, str] = field(default_factory=dict)
    extra: str = ""
    start_block: int = 0
    """The block of the world's first deployment: its sections' `startBlock`."""

    def addresses_override(self) -> dict[str, Any]:
        chain = str(self.node.chain_id)
        return {
            chain: {
                "name": "anvil devnet",
                "convex": {
                    "booster": self.booster,
                    "cvx": self.cvx,
                    "crv": self.curve.tokens["CRV"],
                    "startBlock": self.start_block,
                },
                "priceFeeds": self.price_feeds(),
            }
        }

    def price_feeds(self) -> dict[str, Any]:
        return {
            **self.curve.price_feeds(),
            self.cvx: {"pair": "CVX/USD", "feed": self.cvx_feed, "heartbeat": 10**9},
        }

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path


def build(
    node: Anvil, curve: curve_world.CurveWorld | None = None, wallets: dict[str, str] | None = None
) -> ConvexWorld:
    """On `curve` (a Curve world built here when None); `wallets` (depositor, empty) default to
    anvil accounts 11-12."""
    artifacts = compile_all()
    curve = curve or curve_world.build(node)
    world = ConvexWorld(node, curve)
    world.start_block = node.block_number() + 1
    world.wallets = wallets or dict(zip(("depositor", "empty"), node.accounts[11:13]))
    depositor = world.wallets["depositor"]
    crv = curve.tokens["CRV"]
    world.booster = node.deploy(artifacts["TestBooster"])
    world.cvx = node.deploy(artifacts["TestCvx"])
    node.send(world.cvx, "mint(address,uint256)", node.accounts[0], CVX_SUPPLY)
    world.cvx_feed = node.deploy(curve_world.compile_all()["TestPriceFeed"], ["uint8"], [8])
    node.send(world.cvx_feed, "set(int256,uint256)", CVX_USD, node.timestamp())
    lp_tokens = {0: curve.stable, 1: curve.stable, 2: curve.crypto_lp, 3: curve.stable}
    for pid, lp in lp_tokens.items():
        world.rewards[pid] = node.deploy(artifacts["TestBaseRewardPool"], ["address"], [crv])
        zero = "0x" + "00" * 20
        node.send(
            world.booster, "add(address,address,address,address,bool)", lp, lp, zero, world.rewards[pid], pid == 3
        )
        node.send(world.rewards[pid], "setPool(address,uint256)", world.booster, pid)
        node.send(world.rewards[pid], "setStakingToken(address)", lp)
    node.send(world.booster, "setMinter(address)", world.cvx)
    for pid, amount in DEPOSITS.items():
        node.send(world.rewards[pid], "set(address,uint256,uint256)", depositor, amount, EARNED[pid])
    world.extra = node.deploy(artifacts["TestVirtualBalanceRewardPool"], ["address"], [curve.tokens["EXTRA"]])
    node.send(world.extra, "set(address,uint256)", depositor, EXTRA)
    node.send(world.rewards[1], "addExtraReward(address)", world.extra)
    node.send(world.rewards[1], "setRate(uint256,uint256)", *CRV_RATE)
    node.send(world.extra, "setRate(uint256,uint256)", *EXTRA_RATE)
    return world
