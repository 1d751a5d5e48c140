"""`positionsHistory` (series.py) on the chain of tests/test_past_blocks.py, which moves through
steps (markets and vaults created, deposits, withdrawals, prices moved, days passed): every point
is the answer `walletPositions` gives at its block, for every protocol; times resolve to the last
block at or before them; totals add up the positions' USD figures; bad ranges are refused with
clear errors; points before a deployment are left out with a warning; a pruned endpoint fails
points, not the series; a repeat reads nothing."""

from __future__ import annotations

import asyncio
import json
import math
import re
from typing import Any

import pytest
from graphql import GraphQLFloat, GraphQLList, GraphQLNonNull, GraphQLObjectType

import protocols
import server
from tests.evm import ROOT
from tests.null_figures import FIGURES, unexplained
from tests.rpc_proxy import RpcProxy
from tests.test_fault_schedules import members_of, positions_query, select_all
from tests.test_past_blocks import LLTV_C, SCHEMA, USDC, Service, history, market_id, position_inputs

__all__ = ["history"]


def series_query(inputs: list[dict[str, Any]], more: str = "") -> str:
    """`positionsHistory` selecting every field of its points' answers to `inputs`, and `more` of each series."""
    return (
        "query($inputs: [PositionInput!]!, $from: HistoryBound!, $to: HistoryBound, $points: Int!) {"
        " positionsHistory(inputs: $inputs, from: $from, to: $to, points: $points) {"
        f" data {{ protocol chainId walletAddress warnings {{ code message target }} {more}"
        " points { blockNumber timestamp error { code message retryable }"
        " totals { suppliedUsd collateralUsd debtUsd rewardsUsd netUsd }"
        " positions " + select_all(SCHEMA.type_map["WalletPositions"], members=members_of(inputs)) + " } }"
        " errors { protocol chainId walletAddress blockNumber blockHash error { code message retryable } } } }"
    )


async def ask_series(service: Service, inputs: list[dict[str, Any]], **arguments: Any) -> dict[str, Any]:
    body = {"query": series_query(inputs), "variables": {"inputs": inputs, "points": 2, **arguments}}
    async with service.client.post("/graphql", json=body, headers={"x-api-key": service.key}) as response:
        assert response.status == 200, await response.text()
        answer = await response.json()
    assert "errors" not in answer, answer
    result: dict[str, Any] = answer["data"]["positionsHistory"]
    return result


EVERY_OTHER = [
    *(("spark", "saver"), ("lido", "saver"), ("maker", "saver"), ("euler", "controller"), ("uniswap", "saver")),
    *(("ethena", "saver"), ("sky", "saver"), ("erc4626", "saver"), ("etherfi", "saver"), ("rocketpool", "saver")),
    *(("renzo", "saver"), ("kelp", "saver"), ("balancer", "saver"), ("aura", "saver"), ("curve", "saver")),
    *(("convex", "saver"), ("pancakeswap", "saver"), ("venus", "borrower"), ("compound-v2", "borrower")),
    ("liquity", "borrower"),
]
"""With tests/test_past_blocks.py's INPUTS, a demo wallet holding something of every protocol."""


def inputs_of(worlds: Any) -> list[dict[str, Any]]:
    chain = worlds.node.chain_id
    return [
        *({key: value for key, value in item.items() if key != "blockNumber"} for item in position_inputs(worlds)),
        *({"protocol": p, "chainId": chain, "walletAddress": worlds.wallets[role]} for p, role in EVERY_OTHER),
    ]


async def test_every_point_is_the_answer_at_its_block(history):
    """Every protocol and demo wallet, over the steps the fixture kept: each point's positions are
    `walletPositions` at that block, field for field, its totals add up its USD figures, and each
    null figure (and so each null total) is named by a warning (tests/null_figures.py)."""
    worlds, folder, key, kept = history
    start, end = min(kept), max(kept)
    inputs = inputs_of(worlds)
    movers = []
    async with Service(folder, key, worlds.node, rate_limit=100_000) as service:
        for first in range(0, len(inputs), 5):
            batch = inputs[first : first + 5]
            answer = await ask_series(
                service, batch, **{"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 4}
            )
            assert answer["errors"] == [], answer["errors"]
            assert len(answer["data"]) == len(batch)
            blocks = [start + (end - start) * step // 3 for step in range(4)]
            for number, entry in enumerate(answer["data"]):
                assert [point["blockNumber"] for point in entry["points"]] == blocks
                assert entry["warnings"] == []
                for point in entry["points"]:
                    assert point["error"] is None and point["timestamp"] is None
                    asked = {**batch[number], "blockNumber": point["blockNumber"], "controlledAccounts": False}
                    (alone,) = (await service.ask(positions_query([asked]), [asked]))["data"]
                    assert point["positions"] == alone, (batch[number]["protocol"], point["blockNumber"])
                    where = (batch[number]["protocol"], point["blockNumber"])
                    assert point["totals"] == alone["totals"] == from_legs(alone), where
                    ids = [position["id"] for position in alone["allPositions"]]
                    assert len(ids) == len(set(ids)), ("each position once, by its id", where)
                    if batch[number]["protocol"] not in {p for p, _ in EVERY_OTHER}:  # those by_hand spells out
                        assert close(point["totals"], by_hand(alone)), where
                    assert unexplained(alone, FIGURES) == [], where
                    if None in point["totals"].values():
                        assert alone["warnings"], "a null total is named by its positions' warnings"
            movers += [entry for entry in answer["data"] if len({json.dumps(p["totals"]) for p in entry["points"]}) > 1]
    assert movers, "the steps move some totals"


def from_legs(entry: dict[str, Any]) -> dict[str, float | None]:
    """The totals as the Position interface gives them: each role's legs' USD, summed exactly
    (math.fsum), null where one is null but of a leg of amount 0 (which counts 0)."""
    sums: dict[str, list[float] | None] = {
        name: [] for name in ("suppliedUsd", "collateralUsd", "debtUsd", "rewardsUsd")
    }
    for position in entry["allPositions"]:
        for leg in position["legs"]:
            name = ROLE_TOTALS[leg["role"]]
            counted = sums[name]
            if leg["amount"] != "0":
                sums[name] = None if counted is None or leg["usd"] is None else [*counted, leg["usd"]]
    found = {name: None if values is None else math.fsum(values) for name, values in sums.items()}
    if None in sums.values():
        return {**found, "netUsd": None}
    signed = [
        usd for name, values in sums.items() for usd in values or () for usd in [-usd if name == "debtUsd" else usd]
    ]
    return {**found, "netUsd": math.fsum(signed)}


ROLE_TOTALS = {
    **dict.fromkeys(("SUPPLIED", "LIQUIDITY", "STAKED", "REQUESTED", "CLAIMABLE"), "suppliedUsd"),
    "COLLATERAL": "collateralUsd",
    "DEBT": "debtUsd",
    "REWARD": "rewardsUsd",
}


def close(one: dict[str, float | None], other: dict[str, float | None]) -> bool:
    """The same totals, null for null, to a float's rounding (sums in another order)."""
    return one.keys() == other.keys() and all(
        (one[name] is None) == (other[name] is None)
        and (one[name] is None or math.isclose(one[name], other[name], rel_tol=1e-12, abs_tol=1e-9))
        for name in one
    )


def by_hand(entry: dict[str, Any]) -> dict[str, float | None]:
    """The totals, spelled out per protocol's lists (docs/history.md)."""
    sums: dict[str, float | None] = dict.fromkeys(("suppliedUsd", "collateralUsd", "debtUsd", "rewardsUsd"), 0.0)

    def add(total: str, figure: float | None, *amounts: str | None) -> None:
        if figure is None and all(amount == "0" for amount in amounts):
            figure = 0.0
        current = sums[total]
        sums[total] = None if current is None or figure is None else current + figure

    for position in entry.get("vaultV1Positions", []) + entry.get("vaultV2Positions", []):
        add("suppliedUsd", position["assetsUsd"], position["shares"])
    for position in entry.get("marketPositions", []):
        add("suppliedUsd", position["supplyAssetsUsd"], position["supplyShares"])
        add("debtUsd", position["borrowAssetsUsd"], position["borrowShares"])
        add("collateralUsd", position["collateralUsd"], position["collateral"])
    for position in entry.get("supplyPositions", []):
        total = "collateralUsd" if position.get("isCollateral") else "suppliedUsd"
        add(total, position["balanceUsd"], position["balance"])
    for position in entry.get("borrowPositions", []):
        add("debtUsd", position["debtUsd"], position["debt"])
    for position in entry.get("rewardPositions", []):
        add("rewardsUsd", position["accruedUsd"], position["accrued"])
    for position in entry.get("collateralPositions", []):
        add("collateralUsd", position["balanceUsd"], position["balance"])
    for name in ("ptPositions", "ytPositions", "lpPositions", "syPositions", "tokenPositions", "stakedPositions"):
        for position in entry.get(name, []):
            add("suppliedUsd", position["balanceUsd"], position["balance"])
            for amount in [position.get("accruedInterest"), *(position.get("rewards") or [])]:
                if amount is not None and "amount" in amount:
                    add("rewardsUsd", amount["amountUsd"], amount["amount"])
    for position in entry.get("vaultPositions", []):
        if "supplyUsd" in position:  # Fluid's vault NFTs
            add("collateralUsd", position["supplyUsd"], position["supply"])
            add("debtUsd", position["borrowUsd"], position["borrow"])
            continue
        add("suppliedUsd", position["balanceUsd"], position["balance"])
        if position.get("cooldown"):
            add("suppliedUsd", position["cooldown"]["underlyingAmountUsd"], position["cooldown"]["underlyingAmount"])
    for position in entry.get("lendingPositions", []):
        add("suppliedUsd", position["underlyingAmountUsd"], position["shares"])
    for request in entry.get("withdrawalRequests", []):
        add("suppliedUsd", request["amountOfStETHUsd"], request["amountOfStETH"])
    for position in entry.get("restakedPositions", []):
        add("suppliedUsd", position["amountUsd"], position["amount"])
    for withdrawal in entry.get("queuedWithdrawals", []):
        for strategy in withdrawal["strategies"]:
            add("suppliedUsd", strategy["amountUsd"], strategy["amount"])
    if entry.get("eigenPod"):
        add("suppliedUsd", entry["eigenPod"]["restakedEthUsd"], entry["eigenPod"]["restakedEth"])
    for position in entry.get("positions", []):
        add("suppliedUsd", position["valueUsd"], position["amount0"], position["amount1"])
        add("rewardsUsd", position["uncollectedFeesUsd"], position["uncollectedFees0"], position["uncollectedFees1"])
        add("suppliedUsd", position["principalOwedUsd"], position["principalOwed0"], position["principalOwed1"])
    parts = [sums["suppliedUsd"], sums["collateralUsd"], sums["rewardsUsd"]]
    debt = sums["debtUsd"]
    net = None if None in parts or debt is None else sum(p for p in parts if p is not None) - debt
    return {**sums, "netUsd": net}


def test_every_usd_figure_of_a_member_is_in_a_position_or_says_why_not():
    """A holding's USD figure lives in a typed position object, which implements Position, so its
    legs carry it into `totals`, the series' totals and earnings. Below the members, outside any
    Position, only these figures are left: prices, the totals themselves, Aave's account totals as
    the Pool states them (its positions are counted) and what burning Rocket Pool's rETH pays now
    (a part of the rETH position). A new protocol that gives a USD figure outside a Position fails
    here."""
    outside: set[tuple[str, str]] = set()
    seen: set[str] = set()
    position = SCHEMA.type_map["Position"]

    def walk(object_type: GraphQLObjectType) -> None:
        if object_type.name in seen or position in object_type.interfaces:
            return
        seen.add(object_type.name)
        for name, graphql_field in object_type.fields.items():
            inner = graphql_field.type
            while isinstance(inner, (GraphQLNonNull, GraphQLList)):
                inner = inner.of_type
            if inner is GraphQLFloat and name.endswith("Usd"):
                outside.add((object_type.name, name))
            elif isinstance(inner, GraphQLObjectType):
                walk(inner)

    for member in SCHEMA.type_map["WalletPositions"].types:
        walk(member)
    account = {("AaveMarketState", name) for name in ("netWorthUsd", "totalCollateralUsd", "totalDebtUsd")}
    for state in ("VenusAccountState", "CompoundV2AccountState"):
        account |= {(state, name) for name in ("netWorthUsd", "totalSupplyUsd", "totalDebtUsd")}
    totals = {("PositionTotals", name) for name in ("suppliedUsd", "collateralUsd", "debtUsd", "rewardsUsd", "netUsd")}
    prices = {("LiquidationPrice", "priceUsd"), ("UsdPriceSource", "priceUsd"), ("UsdPriceSource", "liquidityUsd")}
    parts = {("AaveMarketState", "availableBorrowsUsd"), ("RocketpoolBurn", "burnableEthUsd")}
    parts |= {
        (state, name)
        for state in ("VenusAccountState", "CompoundV2AccountState")
        for name in ("liquidityUsd", "shortfallUsd")
    }
    assert outside == account | totals | prices | parts
    assert len(SCHEMA.get_possible_types(position)) > 30


async def quiet(proxy: RpcProxy) -> int:
    """The proxy's reads once none came for half a second (an index's scan in the background ends)."""
    count = -1
    while count != proxy.reads():
        count = proxy.reads()
        await asyncio.sleep(0.5)
    return count


def stamp(worlds: Any, block: int) -> int:
    return int(worlds.node.rpc("eth_getBlockByNumber", hex(block), False)["timestamp"], 16)


async def test_times_stand_for_the_last_block_at_or_before_them(history):
    worlds, folder, key, kept = history
    start, end = stamp(worlds, min(kept)) + 1, stamp(worlds, max(kept))
    item = inputs_of(worlds)[:1]
    async with Service(folder, key, worlds.node) as service:
        answer = await ask_series(
            service, item, **{"from": {"timestamp": start}, "to": {"timestamp": end}, "points": 9}
        )
        (entry,) = answer["data"]
        times = [start + (end - start) * step // 8 for step in range(9)]
        assert [point["timestamp"] for point in entry["points"]] == times
        for point, moment in zip(entry["points"], times):
            block = point["blockNumber"]
            assert stamp(worlds, block) <= moment < stamp(worlds, block + 1), (moment, block)
            assert point["positions"]["blockNumber"] == block
        newest = await ask_series(service, item, **{"from": {"timestamp": start}, "points": 2})
        (entry,) = newest["data"]
        assert entry["points"][-1]["blockNumber"] == worlds.node.block_number()


async def test_bad_ranges_are_refused_with_clear_errors(history):
    worlds, folder, key, _ = history
    head = worlds.node.block_number()
    item = inputs_of(worlds)[:1]
    cases = [
        ({"from": {"blockNumber": 20}, "to": {"blockNumber": 10}}, "from (20) is after to (10)"),
        ({"from": {"blockNumber": 1}, "points": 367}, "points must be from 1 to 366"),
        ({"from": {"blockNumber": 1}, "points": 0}, "points must be from 1 to 366"),
        ({"from": {"blockNumber": head + 5}}, f"its newest block is {head}"),
        ({"from": {"timestamp": 2**31 - 1}}, "is in the future"),
        ({"from": {"timestamp": 4102444800}}, "is in the future"),  # 2100: past Int's 32 bits
        ({"from": {"blockNumber": 1}, "to": {"timestamp": 5}}, "both be blocks or both be timestamps"),
        ({"from": {"blockNumber": 1, "timestamp": 5}}, "exactly one of blockNumber and timestamp"),
        ({"from": {}}, "exactly one of blockNumber and timestamp"),
        ({"from": {"blockNumber": -1}}, "must be 0 or more"),
        (
            {"from": {"blockNumber": head - 2}, "to": {"blockNumber": head}, "points": 4},
            "4 points do not fit in the 3 blocks",
        ),
        ({"from": {"timestamp": 0}}, "has no block as old as timestamp 0"),
        ({"from": {"blockNumber": 0}, "to": {"blockNumber": 1}}, "before morpho's deployment"),
    ]
    async with Service(folder, key, worlds.node) as service:
        for arguments, said in cases:
            answer = await ask_series(service, item, **arguments)
            assert answer["data"] == [], arguments
            (error,) = answer["errors"]
            assert error["error"]["code"] == "VALIDATION_ERROR" and error["error"]["retryable"] is False
            assert said in error["error"]["message"], (arguments, error)
        for written in ("2" * 30, "-1", '"1700000000"', "1.5"):  # a Timestamp is whole seconds, 0 to 2^63 - 1
            text = f"{{ positionsHistory(inputs: [], from: {{timestamp: {written}}}) {{ errors {{ chainId }} }} }}"
            headers = {"x-api-key": service.key}
            async with service.client.post("/graphql", json={"query": text}, headers=headers) as response:
                body = await response.json()
            assert response.status == 400 and "Timestamp" in body["errors"][0]["message"], (written, body)
        given = await ask_series(service, [{**item[0], "blockNumber": head}], **{"from": {"blockNumber": 1}})
        assert "leave out blockNumber and blockHash" in given["errors"][0]["error"]["message"]
        five = inputs_of(worlds)[:5]
        over = await ask_series(service, five, **{"from": {"blockNumber": head - 100}, "points": 81})
        assert [e["error"]["message"] for e in over["errors"]] == [
            "The operation asks for 405 points in all (inputs x points); the limit is 400 per operation."
        ] * 5


async def test_points_before_the_deployment_are_left_out_with_a_warning(history):
    """Every protocol: a series from block 0 leaves out the points before its deployment (the
    block its data names, Morpho's, or its contracts' code, Lido's), with one BEFORE_DEPLOYMENT
    warning, and answers the rest."""
    worlds, folder, key, kept = history
    served = protocols.registry(protocols.load_addresses(folder / "addresses.json"))
    chain = worlds.node.chain_id
    items = [{"protocol": name, "chainId": chain, "walletAddress": worlds.wallets["saver"]} for name in sorted(served)]
    assert len(items) >= 26
    entries = []
    async with Service(folder, key, worlds.node) as service:
        for first in range(0, len(items), 5):
            answer = await ask_series(
                service, items[first : first + 5], **{"from": {"blockNumber": 0}, "to": {"blockNumber": max(kept)}}
            )
            assert answer["errors"] == []
            entries += answer["data"]
    for item, entry in zip(items, entries, strict=True):
        (warning,) = [warning for warning in entry["warnings"] if warning["code"] == "BEFORE_DEPLOYMENT"]
        assert f"before {item['protocol']}'s deployment" in warning["message"], warning
        assert warning["message"].startswith("1 points"), warning
        (point,) = entry["points"]
        assert point["error"] is None and point["blockNumber"] == max(kept), point


async def test_a_pruned_endpoint_fails_the_old_points_only_and_a_repeat_reads_nothing(history, aiohttp_server):
    worlds, folder, key, kept = history
    node = worlds.node
    proxy = RpcProxy(node.url)
    proxied = await aiohttp_server(proxy.app(), host="127.0.0.1")
    head = node.block_number()
    proxy.history_from = head - 20
    item = [i for i in inputs_of(worlds) if i["protocol"] == "aave"][:1]
    arguments = {"from": {"blockNumber": max(kept)}, "to": {"blockNumber": head - 5}, "points": 3}
    try:
        async with Service(folder, key, node, str(proxied.make_url("/"))) as service:
            answer = await ask_series(service, item, **arguments)
            recent = {**arguments, "from": {"blockNumber": head - 15}}
            first = await ask_series(service, item, **recent)
            before = await quiet(proxy)
            again = await ask_series(service, item, **recent)
            assert proxy.reads() == before, "a repeat at the same blocks reads nothing"
            proxy.history_from = head + 1
            none = await ask_series(service, item, **{**arguments, "to": {"blockNumber": head - 25}})
            counted = service.app[server.METRICS].registry.get_sample_value
            assert counted("wp_history_points_total", {"protocol": "aave", "outcome": "HISTORY_UNAVAILABLE"}) >= 4
            assert counted("wp_history_points_total", {"protocol": "aave", "outcome": "OK"}) >= 5
    finally:
        proxy.released.set()
    assert again == first and [point["error"] for point in first["data"][0]["points"]] == [None] * 3
    (entry,) = answer["data"]
    old, _, recent = entry["points"]
    assert old["error"]["code"] == "HISTORY_UNAVAILABLE" and old["positions"] is None and old["totals"] is None
    assert recent["error"] is None and recent["positions"]["blockNumber"] == head - 5
    assert "127.0.0.1" not in json.dumps(answer)
    (error,) = none["errors"]
    assert error["error"]["code"] == "HISTORY_UNAVAILABLE", "every point failed: the input fails"


async def test_the_points_of_a_series_share_their_http_requests(history, aiohttp_server):
    """Ten points at ten blocks, each read by its own reader, ride in the same HTTP requests
    (chain/rpc_batches.py Coalescer): the rounds count, not the blocks."""
    worlds, folder, key, _ = history
    node = worlds.node
    proxy = RpcProxy(node.url)
    proxied = await aiohttp_server(proxy.app(), host="127.0.0.1")
    head = node.block_number()
    item = [i for i in inputs_of(worlds) if i["protocol"] == "aave"][:1]
    try:
        async with Service(folder, key, node, str(proxied.make_url("/"))) as service:
            await ask_series(service, item, **{"from": {"blockNumber": head - 1}, "points": 2})
            before = await quiet(proxy)
            answer = await ask_series(service, item, **{"from": {"blockNumber": head - 40}, "points": 10})
            used = proxy.reads() - before
    finally:
        proxy.released.set()
    assert [point["error"] for point in answer["data"][0]["points"]] == [None] * 10
    assert used <= 4, f"{used} HTTP requests for 10 points"


async def test_flows_over_the_steps_are_what_the_steps_did(history):
    """The lender's Morpho flows between the first and the last kept block are the two the steps
    made (tests/test_past_blocks.py): a supply of 10,000 USDC to market C, a withdrawal of 100,000
    from market A; the Aave borrower's, the 2 WETH the first step supplied to the core market."""
    worlds, folder, key, kept = history
    morpho, lender = worlds.parts["morpho"], worlds.wallets["lender"]
    inputs = [
        {"protocol": "morpho", "chainId": worlds.node.chain_id, "walletAddress": lender},
        {"protocol": "aave", "chainId": worlds.node.chain_id, "walletAddress": worlds.wallets["borrower"]},
    ]
    query = series_query(
        inputs, "flows { position kind amount blockNumber } earnings { position earned netFlows debt }"
    )
    body = {
        "query": query,
        "variables": {
            "inputs": inputs,
            "from": {"blockNumber": min(kept)},
            "to": {"blockNumber": max(kept)},
            "points": 2,
        },
    }
    async with (
        Service(folder, key, worlds.node) as service,
        service.client.post("/graphql", json=body, headers={"x-api-key": key}) as response,
    ):
        answer = (await response.json())["data"]["positionsHistory"]
    lent, aave = answer["data"]
    market_c = (morpho.usdc, morpho.weth, morpho.oracle, morpho.irm, LLTV_C)
    assert [(f["position"], f["kind"], f["amount"]) for f in lent["flows"]] == [
        (f"{market_id(market_c)}:supply", "supply", str(10_000 * USDC)),
        (f"{market_id(morpho.market_a)}:supply", "withdraw", str(-100_000 * USDC)),
    ]
    earned = {row["position"]: row for row in lent["earnings"]}
    assert int(earned[f"{market_id(morpho.market_a)}:supply"]["earned"]) > 0, "four days of interest"
    core = worlds.parts["aave"].markets[0]
    weth = core.tokens["WETH"].lower()
    assert [(f["position"], f["kind"], f["amount"]) for f in aave["flows"]] == [
        (f"{core.pool.lower()}:{weth}:supply", "supply", str(2 * 10**18))
    ]
    (weth_earned,) = [row for row in aave["earnings"] if row["position"] == f"{core.pool.lower()}:{weth}:supply"]
    assert int(weth_earned["netFlows"]) == 2 * 10**18 and int(weth_earned["earned"]) >= 0


async def test_every_protocol_gives_flows_and_earnings_that_add_up(history):
    """Every protocol and demo wallet over the kept steps, flows and earnings selected: no input
    fails, every earned is end - start - net flows (negated for a debt), and every flow without a
    USD value is named by a FLOWS_UNPRICED warning of its asset: nothing left out silently. Exactly
    the protocols whose flows are not derived yet (the registry's `flows`) say so of themselves.
    Every protocol whose flows are derived finds some over the steps (the owner's measurement of
    the devnet: the worlds make their positions at their deployment, before the first kept step,
    and all_worlds.later_day acts in each). EigenLayer's saver deposited and queued withdrawals."""
    worlds, folder, key, kept = history
    more = (
        "warnings { code target } flows { position kind asset amount amountUsd }"
        " earnings { position debt startAmount endAmount netFlows earned }"
    )
    inputs, seen, flowless = inputs_of(worlds), {"flows": 0, "earnings": 0}, set()
    kinds: dict[str, set[str]] = {}
    async with Service(folder, key, worlds.node, rate_limit=100_000) as service:
        for first in range(0, len(inputs), 5):
            body = {
                "query": series_query(inputs[first : first + 5], more),
                "variables": {
                    "inputs": inputs[first : first + 5],
                    "from": {"blockNumber": min(kept)},
                    "to": {"blockNumber": max(kept)},
                    "points": 2,
                },
            }
            async with service.client.post("/graphql", json=body, headers={"x-api-key": key}) as response:
                answer = (await response.json())["data"]["positionsHistory"]
            assert answer["errors"] == [], answer["errors"]
            for entry in answer["data"]:
                seen = {name: seen[name] + len(entry[name]) for name in seen}
                named = {(w["code"], w["target"]) for w in entry["warnings"]}
                flowless |= {entry["protocol"]} & {target for code, target in named if code == "FLOWS_UNAVAILABLE"}
                kinds.setdefault(entry["protocol"], set()).update(flow["kind"] for flow in entry["flows"])
                unpriced = {w["target"] for w in entry["warnings"] if w["code"] == "FLOWS_UNPRICED"}
                assert {f["asset"] for f in entry["flows"] if f["amountUsd"] is None} <= unpriced, entry
                for row in entry["earnings"]:
                    if row["earned"] is not None:
                        change = int(row["endAmount"]) - int(row["startAmount"]) - int(row["netFlows"])
                        assert int(row["earned"]) == (-change if row["debt"] else change), row
    assert seen["flows"] >= 3 and seen["earnings"] >= 30, seen
    served = protocols.registry(protocols.load_addresses(folder / "addresses.json"))
    without = {item["protocol"] for item in inputs if served[item["protocol"]].flows is None}
    assert flowless == without, "only a protocol without flows says so of itself"
    assert "euler" in {item["protocol"] for item in inputs} - without, "euler's flows are derived"
    assert kinds["eigenlayer"] == {"deposit", "queued"}, "the saver's deposits and queued withdrawals"
    assert sorted(p for p in kinds.keys() - without if not kinds[p]) == sorted(STILL), repr(kinds)
    assert {"lock", "draw"} <= kinds["maker"] and "deposit" in kinds["euler"], "the owner's own account"
    assert {"add-liquidity", "stake", "claim"} <= kinds["curve"] and {"deposit", "claim"} <= kinds["convex"]
    assert {"join", "stake"} <= kinds["balancer"] and "deposit" in kinds["aura"]


VAULT_STYLE = "all_worlds.later_day acts in none of the vault-style protocols (their world's shares are minted)"
STILL = {
    "fluid": "its world is resolvers publishing the holdings they are told (fluid_world.publish): no entry point",
    "uniswap": "all_worlds.later_day does not act in it (the saver's demo position is kept as built)",
    **dict.fromkeys(("neutrl", "avant", "avantis", "ethena", "sky", "erc4626"), VAULT_STYLE),
}
"""The protocols whose flows are derived but that find none over the kept steps, and why."""


def _token(position: dict[str, Any]) -> str:
    """A PT or LP position's token address."""
    return str((position.get("ptToken") or position.get("lpToken"))["address"]).lower()


async def test_pendle_tokens_sent_and_a_yts_due_claimed_are_flows(history):
    """PT and LP sent away are transfers out, in the token's own units, valued as the positions
    are (Pendle's PT and LP prices): what is left earned nothing in them (a PT's gain is its
    price's, in USD). The YT's interest (in SY) and rewards claimed are flows out of their legs,
    as much as the wallet received. Runs last: it moves the chain on."""
    worlds, folder, key, _ = history
    node, pendle, saver = worlds.node, worlds.parts["pendle"], worlds.wallets["saver"]
    start = node.block_number()
    sent = {}
    for token in (pendle.active.pt, pendle.active.market):
        sent[token.lower()] = node.call(token, "balanceOf(address)", saver) // 3
        node.send(token, "transfer(address,uint256)", worlds.wallets["lender"], sent[token.lower()], sender=saver)
    yt, sy, reward = pendle.active.yt.lower(), pendle.sy.lower(), pendle.tokens["RWD"].lower()
    before = [node.call(token, "balanceOf(address)", saver) for token in (sy, reward)]
    claim = node.send(yt, "redeemDueInterestAndRewards(address,bool,bool)", saver, True, True, sender=saver)
    paid = [node.call(token, "balanceOf(address)", saver) - was for token, was in zip((sy, reward), before)]
    node.mine(1)
    item = [{"protocol": "pendle", "chainId": node.chain_id, "walletAddress": saver}]
    query = series_query(item, "flows { position kind amount amountUsd blockNumber } earnings { position earned }")
    body = {"query": query, "variables": {"inputs": item, "from": {"blockNumber": start}, "points": 2}}
    async with (
        Service(folder, key, node) as service,
        service.client.post("/graphql", json=body, headers={"x-api-key": key}) as response,
    ):
        (entry,) = (await response.json())["data"]["positionsHistory"]["data"]
        priced = {}  # as the positions are: the sender's own figures at the flow's block
        for flow in entry["flows"]:
            if flow["position"] in sent:
                (answer,) = (await service.positions([{**item[0], "blockNumber": flow["blockNumber"]}]))["data"]
                (position,) = [
                    p for p in answer["ptPositions"] + answer["lpPositions"] if _token(p) == flow["position"]
                ]
                priced[flow["position"]] = position["balanceUsd"] / int(position["balance"])
    block = int(claim["blockNumber"], 16)
    assert min(paid) > 0
    assert sorted((f["position"], f["kind"], f["amount"], f["blockNumber"]) for f in entry["flows"]) == sorted(
        [
            *((token, "transfer-out", str(-amount), start + 1 + i) for i, (token, amount) in enumerate(sent.items())),
            (f"{yt}:interest", "claim", str(-paid[0]), block),
            (sy, "transfer-in", str(paid[0]), block),  # the interest, paid in SY, which the wallet holds too
            (f"{yt}:{reward}:reward", "claim", str(-paid[1]), block),
        ]
    )
    for flow in entry["flows"]:
        assert flow["amountUsd"] is not None, flow
        if flow["position"] in priced:
            assert flow["amountUsd"] == pytest.approx(int(flow["amount"]) * priced[flow["position"]], rel=1e-9)
    assert not [w for w in entry["warnings"] if w["code"] in ("FLOWS_UNPRICED", "FLOWS_UNAVAILABLE")]
    earned = {row["position"]: row["earned"] for row in entry["earnings"]}
    assert {earned[token] for token in sent} == {"0"}
    assert earned[f"{yt}:interest"] == "0" and earned[f"{yt}:{reward}:reward"] == "0", "nothing accrued since"


def devnet_examples() -> list[tuple[str, str, dict[str, Any]]]:
    """Each ```graphql operation of the README and the docs that a ```json block after it gives
    the devnet's variables for ("chainId": 31337), and the README's query with the devnet's chain
    and the saver's address, as the README says to paste it: (page, query, variables)."""
    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        block = r"^```graphql\n((?:(?!```).)*?)^```\n(?:(?!```)[^\n]*\n)*?^```json\n(.*?)^```"
        pairs = re.findall(block, page.read_text(), re.S | re.M)
        found += [
            (page.name, query, json.loads(variables)) for query, variables in pairs if '"chainId": 31337' in variables
        ]
    curl = re.search(r"-d '(\{.*?\})'\n", (ROOT / "README.md").read_text(), re.S)
    assert curl is not None
    readme = json.loads(curl.group(1))
    (item,) = readme["variables"]["inputs"]
    item |= {"chainId": 31337, "walletAddress": SAVER}
    return [("README.md", readme["query"], readme["variables"]), *found]


SAVER = "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65"
"""The devnet's saver (anvil's fifth account), whose address the docs' devnet examples paste."""


async def test_the_docs_devnet_examples_answer_on_the_devnets_worlds(history):
    """Pasted as written on the chain the devnet builds (tests/all_worlds.py): each answers, with
    no error and something held."""
    worlds, folder, key, _ = history
    assert worlds.wallets["saver"].lower() == SAVER
    examples = devnet_examples()
    assert {page for page, _, _ in examples} >= {"README.md", "history.md", "verifying.md"}
    async with Service(folder, key, worlds.node) as service:
        for page, query, variables in examples:
            body = {"query": query, "variables": variables}
            async with service.client.post("/graphql", json=body, headers={"x-api-key": service.key}) as response:
                assert response.status == 200, (page, await response.text())
                answer = await response.json()
            assert "errors" not in answer, (page, answer)
            (result,) = answer["data"].values()
            assert result["errors"] == [] and result["data"], (page, result)
            if page == "history.md":
                (entry,) = result["data"]
                assert entry["earnings"] and all(point["error"] is None for point in entry["points"]), entry
