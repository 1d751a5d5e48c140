"""Flows and earnings of Uniswap v3 positions (adapters/uniswap/flows.py) in `positionsHistory`, on
Uniswap's own v3 contracts (tests/uniswap_world.py): the wallet mints, adds liquidity, lets a
trader swap through its ranges, withdraws, collects and sends an NFT away. The flows are what the
chain says moved, read another way (the wallet's token balances, the manager's tokensOwed, the
receiver's own answer), the fees legs earn what the swaps paid, and the token legs can only lose
against holding (a position's value is concave in the price: impermanent loss is never a gain)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import eth_abi
import pytest

import auth
from adapters import tick_math
from tests import uniswap_world as U
from tests.evm import Anvil
from tests.test_history_flows import ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service

INCREASE = "increaseLiquidity((uint256,uint256,uint256,uint256,uint256,uint256))"


class UniswapFlows:
    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = U.build(self.node)
        self.wallet, self.trader = self.world.wallets["lp"], self.world.wallets["trader"]
        self.manager = self.world.manager.lower()
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "uniswap-flows")[0]

    def balances(self) -> tuple[int, int]:
        return tuple(
            self.node.call(t, "balanceOf(address)", self.wallet) for t in (self.world.token0, self.world.token1)
        )


uniswap = chain_fixture(UniswapFlows)


def _block(receipt: dict[str, Any]) -> int:
    return int(receipt["blockNumber"], 16)


async def test_uniswap_v3_flows_fees_and_impermanent_loss(uniswap: UniswapFlows) -> None:
    node, world, wallet = uniswap.node, uniswap.world, uniswap.wallet
    expected: list[tuple[str, str, int, int]] = []

    def legs(name: str, kind: str, block: int, amounts: tuple[int, int], leg: str = "token") -> None:
        key = f"{uniswap.manager}:{world.ids[name]}"
        expected.extend((f"{key}:{leg}{side}", kind, amount, block) for side, amount in enumerate(amounts) if amount)

    start = node.block_number()
    before = uniswap.balances()
    world.mint("fresh", 3000, world.base - 600, world.base + 600)
    paid = tuple(b - a for b, a in zip(before, uniswap.balances()))
    legs("fresh", "liquidity-added", node.block_number(), paid)

    before = uniswap.balances()
    params = (world.ids["wide"], 10**21, 10**21, 0, 0, U.FOREVER)
    block = _block(node.send(world.manager, INCREASE, params, sender=wallet))
    legs("wide", "liquidity-added", block, tuple(b - a for b, a in zip(before, uniswap.balances())))

    for offset in (300, -200, 100):  # the trader pays fees to the ranges it crosses
        world.swap_to(world.base + offset)

    taken, (sqrt_price, tick) = world.liquidity("fresh") // 2, world.slot0(3000)
    lower, upper = world.position("fresh")[5:7]
    removed = tick_math.amounts(sqrt_price, tick, lower, upper, taken)  # what burning it pays (fees aside)
    world.decrease("fresh", taken)
    legs("fresh", "liquidity-removed", node.block_number(), (-removed[0], -removed[1]))
    legs("fresh", "owed", node.block_number(), removed, "owed")

    before = uniswap.balances()
    world.collect("fresh")
    collected = tuple(a - b for a, b in zip(uniswap.balances(), before))
    legs("fresh", "collect", node.block_number(), (-removed[0], -removed[1]), "owed")  # the principal first
    legs("fresh", "collect", node.block_number(), (removed[0] - collected[0], removed[1] - collected[1]), "fees")

    call = "transferFrom(address,address,uint256)"
    sent = _block(node.send(world.manager, call, wallet, uniswap.trader, world.ids["narrow"], sender=wallet))
    away = (world.ids["narrow"], world.liquidity("narrow") // 2, 0, 0, U.FOREVER)  # its new owner's: not the wallet's
    node.send(world.manager, U.DECREASE, away, sender=uniswap.trader)
    node.send(
        world.manager,
        U.COLLECT,
        (world.ids["narrow"], uniswap.trader, U.UINT128_MAX, U.UINT128_MAX),
        sender=uniswap.trader,
    )
    node.mine(1)
    end = node.block_number()
    inputs = [{"protocol": "uniswap", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(uniswap.folder, uniswap.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
        receiver = {**inputs[0], "walletAddress": uniswap.trader, "blockNumber": sent}
        held = (await service.positions([receiver]))["data"][0]["positions"]
    (narrow,) = [p for p in held if p["tokenId"] == str(world.ids["narrow"])]
    for leg, field in (("token", "amount"), ("fees", "uncollectedFees"), ("owed", "principalOwed")):
        legs("narrow", "transfer-out", sent, (-int(narrow[f"{field}0"]), -int(narrow[f"{field}1"])), leg)

    flows = [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]]
    assert sorted(flows, key=lambda f: f[3]) == sorted(expected, key=lambda f: f[3])
    unavailable = {w["target"] for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"}
    assert unavailable == set()
    rows = {row["position"]: row for row in entry["earnings"]}
    sqrt_price, _ = world.slot0(3000, end)
    for position in {key.rsplit(":", 1)[0] for key in rows}:
        legs_earned = ("token0", "token1", "fees0", "fees1", "owed0", "owed1")
        earned = {leg: earned_adds_up(rows[f"{position}:{leg}"]) for leg in legs_earned}
        assert earned["fees0"] >= 0 and earned["fees1"] >= 0, earned
        assert earned["owed0"] == earned["owed1"] == 0, "principal owed earns nothing"
        against_holding = earned["token0"] * sqrt_price**2 / 2**192 + earned["token1"]  # in token1, at the end
        assert against_holding <= 2 * (1 + sqrt_price**2 / 2**192), (position, earned)
    fresh = f"{uniswap.manager}:{world.ids['fresh']}"
    assert int(rows[f"{fresh}:fees0"]["earned"]) + int(rows[f"{fresh}:fees1"]["earned"]) > 0, "the swaps paid it"
    feeds = {world.tokens["WETH"]: U.WETH_USD / 10**26, world.tokens["USDC"]: U.USDC_USD / 10**14}  # USD per raw
    against = sum(
        int(rows[f"{fresh}:token{side}"]["earned"]) * feeds[token]
        for side, token in enumerate((world.token0, world.token1))
    )
    assert sum(rows[f"{fresh}:token{side}"]["earnedUsd"] for side in (0, 1)) == pytest.approx(against, rel=1e-9)
    assert rows[f"{fresh}:token0"]["pnlUsd"] == pytest.approx(
        rows[f"{fresh}:token0"]["earnedUsd"] + rows[f"{fresh}:token0"]["priceEffectUsd"], rel=1e-9
    )


async def test_uniswap_v4_flows_fees_and_impermanent_loss(uniswap: UniswapFlows) -> None:
    """v4's ModifyLiquidity carries liquidity, not amounts: what a mint cost is the pool's math
    rounded up (equal to what the wallet paid), and what a decrease and take paid is its
    principal plus every fee owed (equal, side by side, to what the wallet received)."""
    node, world, wallet = uniswap.node, uniswap.world, uniswap.wallet
    key, posm, base = world.keys["erc20"], world.posm.lower(), world.v4_base["erc20"]
    start = node.block_number()
    before = [world.balance(currency, wallet) for currency in key[:2]]
    world.v4_mint("fresh4", "erc20", base - 600, base + 600, 10**19)
    minted = node.block_number()
    paid = [b - a for b, a in zip(before, (world.balance(currency, wallet) for currency in key[:2]))]
    for offset in (300, -200, 100):
        world.v4_swap_to("erc20", base + offset)
    token_id = world.v4_ids["fresh4"]
    liquidity = node.call(world.posm, "getPositionLiquidity(uint256)", token_id)
    before = [world.balance(currency, wallet) for currency in key[:2]]
    decrease = eth_abi.encode(
        ["uint256", "uint256", "uint128", "uint128", "bytes"], [token_id, liquidity // 2, 0, 0, b""]
    )
    take = eth_abi.encode(["address", "address", "address"], [*key[:2], wallet])
    taken = _block(world.modify(wallet, [(U.DECREASE_LIQUIDITY, decrease), (U.TAKE_PAIR, take)]))
    received = [a - b for a, b in zip((world.balance(currency, wallet) for currency in key[:2]), before)]
    entry = await _series(uniswap, start)
    position = f"{posm}:{token_id}"
    flows = [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]]
    assert [flow for flow in flows if flow[3] == minted] == [
        (f"{position}:token{side}", "liquidity-added", paid[side], minted) for side in (0, 1)
    ], "the pool's math rounded up: what the wallet paid"
    at_take = [flow for flow in flows if flow[3] == taken]
    for side in (0, 1):
        legs = [flow for flow in at_take if flow[0] in (f"{position}:token{side}", f"{position}:fees{side}")]
        assert -sum(flow[2] for flow in legs) == received[side], (side, legs)
    assert {flow[1] for flow in at_take} == {"liquidity-removed", "collect"}
    rows = {row["position"]: row for row in entry["earnings"]}
    earned = {leg: earned_adds_up(rows[f"{position}:{leg}"]) for leg in ("token0", "token1", "fees0", "fees1")}
    assert earned["fees0"] >= 0 and earned["fees1"] >= 0 and earned["fees0"] + earned["fees1"] > 0
    sqrt_price, _ = world.v4_slot0("erc20", node.block_number())
    assert earned["token0"] * sqrt_price**2 / 2**192 + earned["token1"] <= 2 * (1 + sqrt_price**2 / 2**192)
    assert not [w for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"]


async def test_an_nft_minted_and_burned_between_the_points(uniswap: UniswapFlows) -> None:
    """Neither point holds it: its flows still count, from the mint to the burn, and its fees
    legs earn what the swaps paid while it was open."""
    node, world, wallet = uniswap.node, uniswap.world, uniswap.wallet
    start = node.block_number()
    before = uniswap.balances()
    world.mint("brief", 3000, world.base - 1200, world.base + 1200)
    paid = tuple(b - a for b, a in zip(before, uniswap.balances()))
    for offset in (200, -100):
        world.swap_to(world.base + offset)
    world.decrease("brief", world.liquidity("brief"))
    world.collect("brief")
    node.send(world.manager, "burn(uint256)", world.ids["brief"], sender=wallet)
    entry = await _series(uniswap, start)
    key = f"{uniswap.manager}:{world.ids['brief']}"
    kinds = [(f["position"][len(key) + 1 :], f["kind"]) for f in entry["flows"] if f["position"].startswith(f"{key}:")]
    assert kinds[:2] == [("token0", "liquidity-added"), ("token1", "liquidity-added")]
    assert {kind for _, kind in kinds} == {"liquidity-added", "liquidity-removed", "owed", "collect"}
    added = [
        int(f["amount"])
        for f in entry["flows"]
        if f["position"].startswith(f"{key}:") and f["kind"] == "liquidity-added"
    ]
    assert tuple(added) == paid
    rows = {row["position"][len(key) + 1 :]: row for row in entry["earnings"] if row["position"].startswith(f"{key}:")}
    assert all(row["startAmount"] == row["endAmount"] == "0" for row in rows.values())
    assert int(rows["fees0"]["earned"]) + int(rows["fees1"]["earned"]) > 0, "the swaps paid it while open"


async def _series(uniswap: UniswapFlows, start: int) -> dict[str, Any]:
    """The wallet's series from `start` to a block mined now: its one entry."""
    uniswap.node.mine(1)
    inputs = [{"protocol": "uniswap", "chainId": uniswap.node.chain_id, "walletAddress": uniswap.wallet}]
    async with Service(uniswap.folder, uniswap.key, uniswap.node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": uniswap.node.block_number()}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    return entry


async def test_v4_nfts_burned_in_the_range(uniswap: UniswapFlows) -> None:
    """A v4 NFT held at the start and one minted in the range, each emptied and burned: the burn's
    own removal counts (v4 emits the burn's Transfer before it), and each side's flows at the burn
    are what the wallet received; neither is left holding anything."""
    node, world, wallet = uniswap.node, uniswap.world, uniswap.wallet
    key, posm, base = world.keys["erc20"], world.posm.lower(), world.v4_base["erc20"]
    start = node.block_number()
    world.v4_mint("brief4", "erc20", base - 1200, base + 1200, 10**19)
    world.v4_swap_to("erc20", base + 60)
    burns = {}
    for name in ("below", "brief4"):
        before = [world.balance(currency, wallet) for currency in key[:2]]
        if name == "below":  # emptied first, then burned
            world.v4_take(name, world.v4_pools[name], burn=True)
        else:  # burned with its liquidity in it: the burn's Transfer comes before its removal
            burn = eth_abi.encode(["uint256", "uint128", "uint128", "bytes"], [world.v4_ids[name], 0, 0, b""])
            take = eth_abi.encode(["address", "address", "address"], [*key[:2], wallet])
            world.modify(wallet, [(U.BURN_POSITION, burn), (U.TAKE_PAIR, take)])
        after = [world.balance(currency, wallet) for currency in key[:2]]
        burns[world.v4_ids[name]] = (node.block_number(), [a - b for a, b in zip(after, before)])
    entry = await _series(uniswap, start)
    assert not [w for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"], entry["warnings"]
    for token_id, (block, received) in burns.items():
        position = f"{posm}:{token_id}"
        at_burn = [f for f in entry["flows"] if f["position"].startswith(f"{position}:") and f["blockNumber"] == block]
        for side in (0, 1):
            legs = (f"{position}:token{side}", f"{position}:fees{side}")
            assert -sum(int(f["amount"]) for f in at_burn if f["position"] in legs) == received[side], (token_id, side)
        rows = [row for row in entry["earnings"] if row["position"].startswith(f"{position}:")]
        assert rows and all(row["endAmount"] == "0" for row in rows)
