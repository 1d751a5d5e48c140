"""Flows and earnings of PancakeSwap v3 positions (adapters/pancakeswap/flows.py) in
`positionsHistory`, on PancakeSwap's own contracts (tests/pancakeswap_world.py): the wallet stakes
an NFT in MasterChefV3, adds liquidity to a staked one through the farm, harvests, withdraws one
to another address and one back to itself, and sends one into the farm by a plain `transferFrom`
(no Deposit: stuck there). Staking and a withdrawal back move nothing; the farm's increase is the
wallet's; each CAKE leg loses what a Harvest paid, read from the CAKE balances; the NFT withdrawn
to another address is sent out of the wallet's series and into the receiver's, and the one sent
by `transferFrom` is sent out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import auth
from tests import pancakeswap_world as P
from tests import uniswap_world as U
from tests.evm import Anvil
from tests.test_history_flows import ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service

INCREASE = "increaseLiquidity((uint256,uint256,uint256,uint256,uint256,uint256))"


class PancakeFlows:
    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = P.build(self.node)
        self.wallet, self.trader = self.world.wallets["lp"], self.world.wallets["trader"]
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "pancakeswap-flows")[0]

    def balances(self, holder: str | None = None) -> tuple[int, ...]:
        tokens = (self.world.token0, self.world.token1, self.world.cake)
        return tuple(self.node.call(t, "balanceOf(address)", holder or self.wallet) for t in tokens)


pancake = chain_fixture(PancakeFlows)


async def test_staking_moves_nothing_and_harvests_take_from_the_cake_legs(pancake: PancakeFlows) -> None:
    node, world, wallet, trader = pancake.node, pancake.world, pancake.wallet, pancake.trader
    chef, manager = world.master_chef, world.manager
    expected: list[tuple[str, str, int, int]] = []

    def claimed(name: str, before: tuple[int, ...], holder: str) -> None:
        paid = pancake.balances(holder)[2] - before[2]
        assert paid > 0
        expected.append((f"{chef}:{world.ids[name]}:cake", "claim", -paid, node.block_number()))

    start = node.block_number()
    world.stake("wide")
    for token in (world.token0, world.token1):
        node.send(token, "approve(address,uint256)", chef, 2**256 - 1, sender=wallet)
    before = pancake.balances()
    node.send(chef, INCREASE, (world.ids["ranged"], 10**20, 10**20, 0, 0, U.FOREVER), sender=wallet)
    paid = tuple(b - a for b, a in zip(before[:2], pancake.balances()[:2]))
    ranged = f"{manager}:{world.ids['ranged']}"
    expected += [(f"{ranged}:token{side}", "liquidity-added", paid[side], node.block_number()) for side in (0, 1)]
    expected = [flow for flow in expected if flow[2]]
    node.rpc("evm_increaseTime", 600)  # the farm pays by the second
    world.swap_to(world.base - 100)
    before = pancake.balances()
    node.send(chef, "harvest(uint256,address)", world.ids["ranged"], wallet, sender=wallet)
    claimed("ranged", before, wallet)
    before = pancake.balances(trader)
    node.send(chef, "withdraw(uint256,address)", world.ids["harvested"], trader, sender=wallet)
    claimed("harvested", before, trader)
    sent = node.block_number()
    before = pancake.balances()
    node.send(chef, "withdraw(uint256,address)", world.ids["wide"], wallet, sender=wallet)
    claimed("wide", before, wallet)
    node.send(manager, "transferFrom(address,address,uint256)", wallet, chef, world.ids["below"], sender=wallet)
    stuck = node.block_number()
    node.mine(1)
    end = node.block_number()
    inputs = [{"protocol": "pancakeswap", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(pancake.folder, pancake.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
        receiver = {**inputs[0], "walletAddress": trader, "blockNumber": sent}
        held: list[dict[str, Any]] = (await service.positions([receiver]))["data"][0]["positions"]
        (theirs,) = (await ask(service, [{**inputs[0], "walletAddress": trader}], **arguments))["data"]
        before_stuck = {**inputs[0], "blockNumber": stuck - 1}
        kept: list[dict[str, Any]] = (await service.positions([before_stuck]))["data"][0]["positions"]
    (away,) = [p for p in held if p["tokenId"] == str(world.ids["harvested"])]
    (below,) = [p for p in kept if p["tokenId"] == str(world.ids["below"])]
    received = []
    for leg, field in (("token", "amount"), ("fees", "uncollectedFees"), ("owed", "principalOwed")):
        for side in (0, 1):
            if amount := int(away[f"{field}{side}"]):
                key = f"{manager}:{world.ids['harvested']}:{leg}{side}"
                expected.append((key, "transfer-out", -amount, sent))
                received.append((key, "transfer-in", amount, sent))
            if amount := int(below[f"{field}{side}"]):
                expected.append((f"{manager}:{world.ids['below']}:{leg}{side}", "transfer-out", -amount, stuck))
    their_flows = [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in theirs["flows"]]
    assert sorted(their_flows) == sorted(received), "the receiver's: the NFT came in, the staker's past is not its"
    flows = [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]]
    assert sorted(flows, key=lambda f: (f[3], f[0])) == sorted(expected, key=lambda f: (f[3], f[0]))
    assert not [w for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"]
    rows = {row["position"]: row for row in entry["earnings"]}
    for name in ("ranged", "harvested", "wide"):
        cake = rows[f"{chef}:{world.ids[name]}:cake"]
        assert earned_adds_up(cake) > 0, (name, cake)
        assert cake["asset"] == world.cake
        in_usd = int(cake["earned"]) * P.CAKE_USD / 10**26
        assert cake["earnedUsd"] == pytest.approx(in_usd, rel=1e-9), "at CAKE's price, a leg claimed to 0 too"
    assert not [w for w in entry["warnings"] if w["code"] == "PRICE_UNAVAILABLE"]
    for name in ("wide", "ranged"):
        fees = [earned_adds_up(rows[f"{manager}:{world.ids[name]}:fees{side}"]) for side in (0, 1)]
        assert min(fees) >= 0 and max(fees) > 0, "staked, it earned the swap's fees as the wallet's"
