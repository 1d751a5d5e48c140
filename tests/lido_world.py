"""Lido on anvil: stETH, wstETH and the withdrawal queue as test contracts with the views of Lido's
published ABI (tests/contracts/TestLido.sol), stETH/USD and ETH/USD feeds, a holder of stETH and
wstETH (staked by `submit`, wrapped by `wrap`) and a wallet with withdrawal requests (pending,
finalized, claimed). stETH per share grows between two blocks a week apart, so the APY follows from
the two states.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts, selector

WEEK = 7 * 24 * 3600
ETHER = 10**18
TOTALS = ((9_000_000 * ETHER, 7_500_000 * ETHER), (9_001_200 * ETHER, 7_500_000 * ETHER))
"""(pooled ether, shares) at `then` and now."""
STETH_USD, ETH_USD = 2_990 * 10**8, 3_000 * 10**8
REQUESTS = {
    7: (5 * ETHER, 4 * ETHER, True, True, 0),
    3: (2 * ETHER, 16 * ETHER // 10, True, False, 2 * ETHER - 3),
    9: (1 * ETHER, 8 * ETHER // 10, False, False, 0),
}
"""Request id -> (amountOfStETH, amountOfShares, finalized, claimed, claimable ether), in the order made."""


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts([CONTRACTS / "TestLido.sol", CONTRACTS / "TestPriceFeed.sol"])


@dataclass
class LidoWorld:
    node: Anvil
    wallets: dict[str, str] = field(default_factory=dict)
    steth: str = ""
    wsteth: str = ""
    queue: str = ""
    feeds: dict[str, str] = field(default_factory=dict)
    shares: dict[str, int] = field(default_factory=dict)
    """The holder's stETH shares and wstETH."""
    requested_at: int = 0
    then: int = 0
    t_then: int = 0
    start_block: int = 0
    """The block of the world's first deployment: its sections' `startBlock`."""

    def addresses_override(self) -> dict[str, Any]:
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                "lido": {
                    "stETH": self.steth,
                    "wstETH": self.wsteth,
                    "withdrawalQueue": self.queue,
                    "startBlock": self.start_block,
                },
                "priceFeeds": {self.steth: {"pair": "stETH/USD", "feed": self.feeds["stETH"], "heartbeat": 10**9}},
                "currencyFeeds": {"ETH": {"pair": "ETH/USD", "feed": self.feeds["ETH"], "heartbeat": 10**9}},
            }
        }

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path

    def per_share(self, state: int) -> Fraction:
        pooled, shares = TOTALS[state]
        return Fraction(ETHER * pooled // shares)


def build(node: Anvil, wallets: dict[str, str] | None = None) -> LidoWorld:
    """`wallets` (holder, requester, empty) default to anvil accounts 17-19."""
    artifacts = compile_all()
    world = LidoWorld(node)
    world.wallets = wallets or dict(zip(("holder", "requester", "empty"), node.accounts[17:20]))
    holder, requester = world.wallets["holder"], world.wallets["requester"]
    world.steth = node.deploy(artifacts["TestStETH"])
    world.wsteth = node.deploy(artifacts["TestWstETH"], ["address"], [world.steth])
    world.queue = node.deploy(artifacts["TestWithdrawalQueue"])
    world.start_block = node.block_number()  # its contracts all there: a point at it reads each
    for name, answer in (("stETH", STETH_USD), ("ETH", ETH_USD)):
        world.feeds[name] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
        node.send(world.feeds[name], "set(int256,uint256)", answer, node.timestamp())
    world.shares = {"stETH": 12 * ETHER + 345, "wstETH": 3 * ETHER}
    # The holder stakes and wraps through Lido's entry points at 1:1 (a share per wei, so the shares
    # come out as pinned); the oracle's report then sets the totals.
    node.send(world.steth, "setTotals(uint256,uint256)", 1, 1)
    submit = "0x" + (selector("submit(address)") + bytes(32)).hex()
    staked = world.shares["stETH"] + world.shares["wstETH"]
    node.transact({"to": world.steth, "data": submit, "value": hex(staked)}, holder)
    node.send(world.steth, "approve(address,uint256)", world.wsteth, world.shares["wstETH"], sender=holder)
    node.send(world.wsteth, "wrap(uint256)", world.shares["wstETH"], sender=holder)
    node.send(world.steth, "setTotals(uint256,uint256)", *TOTALS[0])
    world.requested_at = node.timestamp()
    for request, (steth, shares, finalized, claimed, payable) in REQUESTS.items():
        status = (steth, shares, requester, world.requested_at, finalized, claimed)
        node.send(
            world.queue,
            "setRequest(uint256,(uint256,uint256,address,uint256,bool,bool),uint256)",
            request,
            status,
            payable,
        )
    world.then = node.block_number()
    world.t_then = node.timestamp(world.then)
    node.rpc("evm_setNextBlockTimestamp", hex(world.t_then + WEEK + 600))
    node.send(world.steth, "setTotals(uint256,uint256)", *TOTALS[1])
    for name, answer in (("stETH", STETH_USD), ("ETH", ETH_USD)):
        node.send(world.feeds[name], "set(int256,uint256)", answer, node.timestamp())
    return world
