"""Curve's flows and earnings in `positionsHistory` (adapters/curve/flows.py) on the test contracts
(tests/curve_world.py): the `lp` wallet adds liquidity to the stable pool (its own LP token) and
the legacy pool (an LP token of its own, coins by int128), stakes in and unstakes from their
gauges, removes liquidity in every way, sends LP away, claims its extra rewards from the gauge and
its CRV from the Minter, each action at a point of the series. Each flow is the action's LP in the
pool's coins at its block, read from the pool here; between two points each leg moves by its
flows plus what the pool's new balances make of the LP held before (the earnings); the claims
are claims; a pool entered and left between the points is named, not dropped."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import auth
from adapters.curve import contracts as C
from adapters.curve.flows import POOL_EVENTS
from tests import curve_world as W
from tests.evm import Anvil
from tests.test_history_flows import _block, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service

STEP = 5
"""Blocks between two actions: the series' points fall on the actions' blocks."""
MAX = 2**256 - 1
SERIES = """query($inputs: [PositionInput!]!, $from: HistoryBound!, $to: HistoryBound, $points: Int!) {
  positionsHistory(inputs: $inputs, from: $from, to: $to, points: $points) {
    data { warnings { code message target }
           points { blockNumber positions { ... on WalletEntry { allPositions { legs { key amount } } } } }
           flows { position kind blockNumber logIndex asset amount amountUsd }
           earnings { position asset debt startAmount endAmount netFlows earned } }
    errors { error { code message } } } }"""


class CurveFlows:
    """The Curve world on its own chain; the `lp` wallet with coins to add and approvals given."""

    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = W.build(self.node)
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "curve-flows")[0]


curve = chain_fixture(CurveFlows)


async def series(flows: Any, protocol: str, wallet: str, start: int, end: int, points: int) -> dict[str, Any]:
    """The wallet's series from `start` to `end` (`points` evenly spaced) with its points' legs."""
    body = {
        "query": SERIES,
        "variables": {
            "inputs": [{"protocol": protocol, "chainId": flows.node.chain_id, "walletAddress": wallet}],
            "from": {"blockNumber": start},
            "to": {"blockNumber": end},
            "points": points,
        },
    }
    async with (
        Service(flows.folder, flows.key, flows.node) as service,
        service.client.post("/graphql", json=body, headers={"x-api-key": service.key}) as response,
    ):
        answer = await response.json()
    assert "errors" not in answer, answer
    result = answer["data"]["positionsHistory"]
    assert result["errors"] == [], result["errors"]
    (entry,) = result["data"]
    return dict(entry)


class Actions:
    """A wallet's actions, each at the next point's block (STEP blocks apart from the first, the
    next block): `blocks` lists them, so a series of as many points falls on them."""

    def __init__(self, node: Anvil, wallet: str) -> None:
        self.node, self.wallet = node, wallet
        self.start = node.block_number() + 1
        self.blocks: list[int] = []

    def __call__(self, target: str, signature: str, *args: Any) -> int:
        node, at = self.node, self.start + STEP * len(self.blocks)
        node.mine(at - node.block_number() - 1)
        block = _block(node.send(target, signature, *args, sender=self.wallet))
        assert block == at
        self.blocks.append(block)
        return block


def in_coins(node: Anvil, pool: str, lp_token: str, coins: list[str], lp: int, block: int, legacy: bool) -> list[int]:
    """`lp` of the pool in each coin at `block`, read from the pool: balance x lp / supply."""
    supply = node.call(lp_token, "totalSupply()", block=block)
    view = "balances(int128)" if legacy else "balances(uint256)"
    return [node.call(pool, view, i, block=block) * lp // supply for i in range(len(coins))]


def legs_of(point: dict[str, Any]) -> dict[str, int]:
    return {leg["key"]: int(leg["amount"]) for p in point["positions"]["allPositions"] for leg in p["legs"]}


def adds_up(entry: dict[str, Any], revalued: Callable[[str, int, int], int]) -> None:
    """Between each two points, each leg moved by its flows there plus what the pools' state at
    the later point makes of what it held at the earlier (`revalued(key, from, to)`), to a unit of
    rounding a coin; and each leg's earned is end - start - net flows."""
    points = entry["points"]
    for before, after in itertools.pairwise(points):
        held, now = legs_of(before), legs_of(after)
        for key in sorted(held.keys() | now.keys()):
            if key.endswith(":reward"):
                continue
            moved = sum(
                int(flow["amount"])
                for flow in entry["flows"]
                if flow["position"] == key and before["blockNumber"] < flow["blockNumber"] <= after["blockNumber"]
            )
            change = now.get(key, 0) - held.get(key, 0)
            gain = revalued(key, before["blockNumber"], after["blockNumber"])
            assert abs(change - moved - gain) <= 2, (key, before["blockNumber"], change, moved, gain)
    for row in entry["earnings"]:
        earned_adds_up(row)


async def test_lp_stakes_removals_and_claims_are_flows_and_add_up(curve: CurveFlows) -> None:
    node, world = curve.node, curve.world
    lp, other = world.wallets["lp"], world.wallets["empty"]
    usdc, crvusd, crv, extra = (world.tokens[name] for name in ("USDC", "crvUSD", "CRV", "EXTRA"))
    stable, gauge, legacy = world.stable, world.gauge, world.older["legacy"]
    legacy_lp, legacy_gauge = world.older["legacy_lp"], world.older["legacy_gauge"]
    coins = [usdc, crvusd]
    for coin in coins:
        node.send(coin, "mint(address,uint256)", lp, 10**30)
        for spender in (stable, legacy):
            node.send(coin, "approve(address,uint256)", spender, MAX, sender=lp)
    node.send(stable, "approve(address,uint256)", gauge, MAX, sender=lp)
    node.send(legacy_lp, "approve(address,uint256)", legacy_gauge, MAX, sender=lp)
    act = Actions(node, lp)
    blocks = act.blocks
    expected: list[tuple[str, str, int, int]] = []

    def lp_flow(part: str, pool: str, token: str, kind: str, lp_amount: int, block: int, old: bool = False) -> None:
        amounts = in_coins(node, pool, token, coins, abs(lp_amount), block, old)
        expected.extend(
            (f"{part}:{coin}", kind, amount if lp_amount > 0 else -amount, block)
            for coin, amount in zip(coins, amounts)
        )

    def lp_balance(token: str, block: int) -> int:
        return int(node.call(token, "balanceOf(address)", lp, block=block))

    act(stable, "balanceOf(address)", lp)  # the first point, before any flow
    before = lp_balance(stable, blocks[-1])
    block = act(stable, "add_liquidity(uint256[],uint256)", [4_000 * 10**6, 3_500 * W.E18], 0)
    lp_flow(stable, stable, stable, "add-liquidity", lp_balance(stable, block) - before, block)
    block = act(gauge, "deposit(uint256)", 2_000 * W.E18)
    lp_flow(stable, stable, stable, "stake", -2_000 * W.E18, block)
    lp_flow(gauge, stable, stable, "stake", 2_000 * W.E18, block)
    block = act(gauge, "withdraw(uint256)", 500 * W.E18)
    lp_flow(stable, stable, stable, "unstake", 500 * W.E18, block)
    lp_flow(gauge, stable, stable, "unstake", -500 * W.E18, block)
    block = act(stable, "remove_liquidity(uint256,uint256[])", 1_000 * W.E18, [0, 0])
    lp_flow(stable, stable, stable, "remove-liquidity", -1_000 * W.E18, block)
    block = act(stable, "transfer(address,uint256)", other, 300 * W.E18)
    lp_flow(stable, stable, stable, "transfer-out", -300 * W.E18, block)
    block = act(gauge, "claim_rewards()")
    expected.append((f"{gauge}:{extra}:reward", "claim", -W.CLAIMABLE["lp"][1], block))
    block = act(world.minter, "mint(address)", gauge)
    expected.append((f"{gauge}:{crv}:reward", "claim", -W.CLAIMABLE["lp"][0], block))
    before = lp_balance(legacy_lp, block)
    block = act(legacy, "add_liquidity(uint256[],uint256)", [2_500 * 10**6, 2_400 * W.E18], 0)
    lp_flow(legacy, legacy, legacy_lp, "add-liquidity", lp_balance(legacy_lp, block) - before, block, True)
    block = act(legacy_gauge, "deposit(uint256)", 100 * W.E18)
    lp_flow(legacy, legacy, legacy_lp, "stake", -100 * W.E18, block, True)
    lp_flow(legacy_gauge, legacy, legacy_lp, "stake", 100 * W.E18, block, True)
    block = act(world.minter, "mint(address)", legacy_gauge)
    expected.append((f"{legacy_gauge}:{crv}:reward", "claim", -W.LEGACY_CLAIMABLE, block))
    block = act(stable, "remove_liquidity_one_coin(uint256,int128,uint256)", 700 * W.E18, 0, 0)
    lp_flow(stable, stable, stable, "remove-liquidity-one", -700 * W.E18, block)
    before = lp_balance(stable, block)
    block = act(stable, "remove_liquidity_imbalance(uint256[],uint256)", [1_000 * 10**6, 2_000 * W.E18], MAX)
    lp_flow(stable, stable, stable, "remove-liquidity-imbalance", lp_balance(stable, block) - before, block)

    entry = await series(curve, "curve", lp, blocks[0], blocks[-1], len(blocks))
    assert [point["blockNumber"] for point in entry["points"]] == blocks
    assert [w for w in entry["warnings"] if w["code"].startswith("FLOWS")] == [], entry["warnings"]
    found = [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]]
    assert sorted(found, key=lambda flow: (flow[3], flow[0], flow[1])) == sorted(
        expected, key=lambda flow: (flow[3], flow[0], flow[1])
    )
    kinds = {kind for _, kind, _, _ in found}
    assert {
        "add-liquidity",
        "remove-liquidity",
        "remove-liquidity-one",
        "remove-liquidity-imbalance",
        "stake",
        "unstake",
        "transfer-out",
        "claim",
    } <= kinds
    assert all(flow["amountUsd"] is not None for flow in entry["flows"])

    parts: dict[str, tuple[str, str, str, bool, bool]] = {
        stable: (stable, stable, gauge, False, False),
        gauge: (stable, stable, gauge, True, False),
        legacy: (legacy, legacy_lp, legacy_gauge, False, True),
        legacy_gauge: (legacy, legacy_lp, legacy_gauge, True, True),
    }
    parts = {part.lower(): value for part, value in parts.items()}

    def part_coins(part: str, held_at: int, state_at: int) -> list[int]:
        """What the part held at `held_at` is in the coins at `state_at`, as the legs split it."""
        pool, token, in_gauge, staked_part, old = parts[part]
        staked = lp_balance(in_gauge, held_at)
        if staked_part:
            return in_coins(node, pool, token, coins, staked, state_at, old)
        total = in_coins(node, pool, token, coins, lp_balance(token, held_at) + staked, state_at, old)
        return [a - b for a, b in zip(total, in_coins(node, pool, token, coins, staked, state_at, old))]

    def revalued(key: str, earlier: int, later: int) -> int:
        """0 for the pools it never touched (the crypto and tricrypto pools: their state stays)."""
        part, coin = key.split(":")
        if part not in parts:
            return 0
        index = [c.lower() for c in coins].index(coin)
        return part_coins(part, earlier, later)[index] - part_coins(part, earlier, earlier)[index]

    adds_up(entry, revalued)
    rows = {row["position"]: row for row in entry["earnings"]}
    claimed = rows[f"{gauge}:{crv}:reward"]
    assert int(claimed["netFlows"]) == -W.CLAIMABLE["lp"][0] and int(claimed["earned"]) >= 0


async def test_a_pool_entered_and_left_between_the_points_is_named(curve: CurveFlows) -> None:
    """A new wallet adds to the stable pool and takes it all out between two points at which it
    holds nothing: its flows cannot be derived from the points' pools, and the warning says so."""
    node, world, empty = curve.node, curve.world, curve.node.accounts[18]
    for coin in (world.tokens["USDC"], world.tokens["crvUSD"]):
        node.send(coin, "mint(address,uint256)", empty, 10**30)
        node.send(coin, "approve(address,uint256)", world.stable, MAX, sender=empty)
    start = node.block_number()
    node.send(world.stable, "add_liquidity(uint256[],uint256)", [4_000 * 10**6, 3_500 * W.E18], 0, sender=empty)
    held = node.call(world.stable, "balanceOf(address)", empty)
    node.send(world.stable, "remove_liquidity(uint256,uint256[])", held, [0, 0], sender=empty)
    node.mine(1)
    entry = await series(curve, "curve", empty, start, node.block_number(), 2)
    named = [w for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"]
    assert [w["target"] for w in named] == [world.stable.lower()], entry["warnings"]
    assert "entered and left between them" in named[0]["message"]


def test_the_test_contracts_declare_curves_events_as_the_flows_read_them() -> None:
    """The events the test pools, gauges and Minter emit are among those the flows read, with
    the fields Curve indexes (stableswap-ng's pool events, LiquidityGauge's, Minter.vy's)."""
    artifacts = W.compile_all()
    declared = {
        f"{e['name']}({','.join(i['type'] for i in e['inputs'])})": [i["indexed"] for i in e["inputs"]]
        for name in ("TestCurvePool", "TestCurveGauge", "TestCurveMinter")
        for e in artifacts[name].abi
        if e["type"] == "event" and e["name"] != "Transfer"
    }
    signatures = {event.signature: event for events in (C.ADD_LIQUIDITY, C.REMOVE_LIQUIDITY) for event in events}
    signatures |= {
        event.signature: event for events in (C.REMOVE_LIQUIDITY_ONE, C.REMOVE_LIQUIDITY_IMBALANCE) for event in events
    }
    signatures |= {event.signature: event for event in (C.GAUGE_DEPOSIT, C.GAUGE_WITHDRAW, C.MINTED)}
    for signature, indexed in declared.items():
        assert signature in signatures, signature
        assert indexed[0] and not any(indexed[1:]), signature
    assert len(POOL_EVENTS) == sum(
        len(events)
        for events in (C.ADD_LIQUIDITY, C.REMOVE_LIQUIDITY, C.REMOVE_LIQUIDITY_ONE, C.REMOVE_LIQUIDITY_IMBALANCE)
    )
