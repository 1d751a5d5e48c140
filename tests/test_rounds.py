"""What a user waits for, held: the dependent RPC rounds and the RPC HTTP requests each query
costs, counted (not timed) by the tests' proxy in lockstep (tests/rpc_proxy.py `Lockstep`), on
one chain holding every test world, with a block mined before each query as on a live chain.

- every protocol of the registry with every demo wallet that holds anything in it (found by asking
  each, so a protocol added later gets its rows), warm: at most ROUNDS rounds; asked again at the
  same block, no request at all;
- with `provenance` selected (its reads its own: no answer or fact kept is served; the block last
  found a week back is only where the search looks first): at most AFRESH rounds; the first query
  of a fresh server on the state an earlier one left (a restart: no hint, no fact kept in memory,
  its event index as stored): at most COLD; on an empty state directory (a first deployment,
  whose event index is scanned from each stream's start): at most FIRST;
- the five-input mix at the head and ten blocks back: at most ROUNDS; 30-point series: at most SERIES;
- each demo wallet's `portfolio` (every protocol on the chain at once): at most ROUNDS, and again
  at the same block no request at all;
- `poolDetails` of a pool of each kind (tests/all_worlds.py `pools`), once asked before (its read
  plan kept, chain/plans.py): at most ROUNDS (POOL_ROUNDS names the exceptions); its first
  answer's rounds are printed, not held.

bench/latency.py times the same paths behind a provider's round-trip time; this counts them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

import server
from tests import all_worlds
from tests.conftest import served_fixture
from tests.evm import Anvil
from tests.rpc_proxy import Lockstep, RpcProxy, settled
from tests.test_fault_schedules import positions_query
from tests.test_past_blocks import Service

ROUNDS = 2
"""Dependent rounds of a query (walletPositions, up to five inputs) on a server in use."""
AFRESH = 3
"""Rounds of an answer with `provenance` (its reads its own, nothing kept served)."""
COLD = 3
"""Rounds of a fresh server's first query (its chains pinned at boot, chain/head.py; its event
index checked in the round that reads its tail; the block a week back found without a hint: on
this chain, whose days pass in single blocks, a ladder and a whole bracket)."""
FIRST = 8
"""Rounds of a first deployment's first query, as today: its event index's first scans, then what
they found read in dependent rounds (Balancer 8, Morpho's controller 6, Pendle, Euler and Uniswap
5, ether.fi 4). On a real chain the first scans take minutes, not rounds: a first deployment
builds its index before it serves (`index build`, docs/operations.md)."""
SERIES = 3
"""Rounds of a positionsHistory series."""
MIX = [("morpho", "saver"), ("aave", "borrower"), ("compound", "borrower"), ("pendle", "saver"), ("fluid", "borrower")]
PAST = 10
SERIES_POINTS, SERIES_SPAN = 30, 290
FOLLOWER_WAIT = 30.0
"""Seconds a test waits for the head follower to see a mined block (a poll every 0.1 s)."""

worlds = served_fixture("rounds")


def query(inputs: list[dict[str, Any]], provenance: bool = False) -> str:
    return positions_query(inputs, skip=() if provenance else ("provenance",))


SERIES_QUERY = """query($inputs: [PositionInput!]!, $from: HistoryBound!, $points: Int!) {
  positionsHistory(inputs: $inputs, from: $from, points: $points) {
    data { points { blockNumber error { code message } positions { __typename } } }
    errors { error { code message } } } }"""


POOLS = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) {
  data { details { __typename } } errors { error { code message } } } }"""
POOL_ROUNDS = {"balancer": 4}
"""A pool's rounds where more than ROUNDS: Balancer's gauges are found among every gauge the event
index lists (its tail read, then a sweep of their `lp_token()`, in rounds a plan does not hold)."""


PORTFOLIO = """query($wallet: String!) { portfolio(walletAddress: $wallet) {
  data { __typename } errors { error { code message } } coverage { complete } } }"""
"""A wallet's whole portfolio: every protocol of the chain, in as many rounds as one of them."""


class Counted:
    """A server behind its own proxy in lockstep, a head follower polling once a second."""

    def __init__(self, node: Anvil, folder: Path, key: str, state: str) -> None:
        self.node, self.folder, self.key, self.state = node, folder, key, state
        self.proxy = RpcProxy(node.url)

    async def __aenter__(self) -> Counted:
        self.proxy_server = TestServer(self.proxy.app(), host="127.0.0.1")
        await self.proxy_server.start_server()
        self.service = Service(
            self.folder,
            self.key,
            self.node,
            str(self.proxy_server.make_url("/")),
            head_poll_seconds=0.1,
            state=self.state,
            rate_limit=10**6,
        )
        await self.service.__aenter__()
        return self

    async def __aexit__(self, *_: Any) -> None:
        await self.service.__aexit__()
        self.proxy.released.set()
        await self.proxy_server.close()

    async def seen(self) -> None:
        """Until the head follower has seen the node's newest block (a request then pins it with no
        round trip, as on a chain whose blocks come while nobody asks)."""
        follower = self.service.app[server.CHAINS].follower(self.node.chain_id)
        newest, deadline = self.node.block_number(), time.monotonic() + FOLLOWER_WAIT
        while follower.head is None or follower.head.number != newest:
            assert time.monotonic() < deadline, f"the head follower did not see block {newest}"
            await asyncio.sleep(0.02)

    async def quiet(self) -> None:
        """Until the server has nothing left to send (its pins at boot, the event index's
        background scans): the loop settled with no post being handled."""
        await settled(lambda: self.proxy.handling)

    async def count(
        self, text: str, inputs: list[dict[str, Any]], more: dict[str, Any] | None = None
    ) -> tuple[int, int, dict[str, Any]]:
        """The rounds and RPC HTTP requests one query costs, and its answer: once the server has
        nothing left to send (`quiet`), so that what an earlier query left in the background (the
        event index following the chain, say) is not counted as this one's."""
        await self.quiet()
        self.proxy.lockstep = lockstep = Lockstep(self.proxy)
        before = self.proxy.reads()
        try:
            answer = await self.service.ask(text, inputs, more)
        finally:
            self.proxy.lockstep = None
        return lockstep.waves, self.proxy.reads() - before, answer

    async def fresh(
        self, text: str, inputs: list[dict[str, Any]], more: dict[str, Any] | None = None
    ) -> tuple[int, int]:
        """A block mined and seen, then the query counted; its answer must hold no error."""
        self.node.mine(1)
        await self.seen()
        rounds, requests, answer = await self.count(text, inputs, more)
        assert not answer["errors"], answer["errors"]
        failed = [point["error"] for entry in answer["data"] for point in entry.get("points", []) if point["error"]]
        assert not failed, failed
        return rounds, requests


def held(entry: dict[str, Any]) -> int:
    """How much an entry holds: the items of its lists, nested ones included."""
    return sum(
        len(value) + sum(held(item) for item in value if isinstance(item, dict))
        for name, value in entry.items()
        if isinstance(value, list) and name not in ("warnings", "usdPrices", "provenance")
    )


@pytest.fixture(scope="module")
def holders(worlds: Any) -> dict[str, list[str]]:
    """Each protocol of the registry on the worlds' chain: the demo wallets that hold anything in
    it, the fullest first (by asking every one, so a protocol added later gets its rows)."""
    built, folder, key = worlds

    async def find() -> dict[str, list[str]]:
        async with Service(folder, key, built.node, state="holders", rate_limit=10**6) as service:
            found = {}
            roles = list(built.wallets)
            for name, protocol in service.app[server.REGISTRY].items():
                if built.node.chain_id not in protocol.chains:
                    continue
                inputs = [
                    {"protocol": name, "chainId": built.node.chain_id, "walletAddress": built.wallets[role]}
                    for role in roles
                ]
                sizes = dict.fromkeys(roles, 0)
                for entry in (await service.positions(inputs))["data"]:
                    role = next(role for role in roles if built.wallets[role] == entry["walletAddress"])
                    sizes[role] += held(entry)
                found[name] = sorted((role for role in roles if sizes[role]), key=lambda role: -sizes[role])
            return found

    return asyncio.run(find())


@pytest.fixture(scope="module")
def counted(worlds: Any, holders: dict[str, list[str]]) -> Iterator[dict[str, Any]]:
    """Every query's rounds and requests, counted in one run of one long-running server (and a
    fresh server per protocol for its fullest wallet's first query): {scenario: (rounds, requests)}."""
    built, folder, key = worlds
    node, chain = built.node, built.node.chain_id

    def inputs(*wanted: tuple[str, str], **more: Any) -> list[dict[str, Any]]:
        return [{"protocol": p, "chainId": chain, "walletAddress": built.wallets[w], **more} for p, w in wanted]

    async def run() -> dict[str, Any]:
        found: dict[str, Any] = {}
        pairs = [(name, role) for name, roles in holders.items() for role in roles]
        for name, (role, *_) in holders.items():
            for scenario in ("a first deployment's first query", "a fresh server's first query"):
                async with Counted(node, folder, key, f"cold-{name}") as cold:
                    node.mine(1)
                    found[f"{name} ({role}), {scenario}"] = (
                        await cold.count(query(inputs((name, role))), inputs((name, role)))
                    )[:2]
                    await cold.quiet()
        async with Counted(node, folder, key, "warm") as server_:
            for name, role in pairs:
                await server_.service.ask(query(inputs((name, role))), inputs((name, role)))
            for name, role in pairs:
                found[f"{name} ({role})"] = await server_.fresh(query(inputs((name, role))), inputs((name, role)))
                found[f"{name} ({role}), again at the same block"] = (
                    await server_.count(query(inputs((name, role))), inputs((name, role)))
                )[:2]
                found[f"{name} ({role}), with provenance"] = await server_.fresh(
                    query(inputs((name, role)), provenance=True), inputs((name, role))
                )
            for role, wallet in built.wallets.items():
                await server_.service.ask(PORTFOLIO, [], {"wallet": wallet})
                found[f"portfolio ({role})"] = await server_.fresh(PORTFOLIO, [], {"wallet": wallet})
                found[f"portfolio ({role}), again at the same block"] = (
                    await server_.count(PORTFOLIO, [], {"wallet": wallet})
                )[:2]
            for name, wanted in all_worlds.pools(built):
                asked = [{"protocol": p, "chainId": chain, "poolAddress": a} for p, a in wanted]
                found[f"poolDetails, the first: {name}"] = await server_.fresh(POOLS, asked)
                found[f"poolDetails: {name}"] = await server_.fresh(POOLS, asked)
            found["the 5-input mix"] = await server_.fresh(query(inputs(*MIX)), inputs(*MIX))
            back = node.block_number() + 1 - PAST
            found[f"the 5-input mix, {PAST} blocks back"] = await server_.fresh(
                query(inputs(*MIX, blockNumber=back)), inputs(*MIX, blockNumber=back)
            )
            node.mine(SERIES_SPAN)
            for name, wanted in (("morpho (saver)", MIX[:1]), ("the 5-input mix", MIX)):
                more = {"from": {"blockNumber": node.block_number() + 1 - SERIES_SPAN}, "points": SERIES_POINTS}
                await server_.fresh(SERIES_QUERY, inputs(*wanted), more)
                found[f"{name}, a {SERIES_POINTS}-point series"] = await server_.fresh(
                    SERIES_QUERY,
                    inputs(*wanted),
                    {**more, "from": {"blockNumber": node.block_number() + 1 - SERIES_SPAN}},
                )
        return found

    found = asyncio.run(run())
    width = max(map(len, found))
    print(
        "\n".join(
            f"{name:<{width}}  {rounds} rounds, {requests} requests" for name, (rounds, requests) in found.items()
        )
    )
    yield found


def over(counted: dict[str, Any], budget: int, which: Any) -> dict[str, Any]:
    return {name: figures for name, figures in counted.items() if which(name) and figures[0] > budget}


def test_every_protocol_is_counted(counted: dict[str, Any], holders: dict[str, list[str]]) -> None:
    """Rows for every protocol of the registry on the worlds' chain, each with a wallet holding something."""
    assert len(holders) >= 26
    for name, roles in holders.items():
        assert roles, f"no demo wallet holds anything in {name}"
        assert all(f"{name} ({role})" in counted for role in roles)


def test_a_query_takes_at_most_two_rounds(counted: dict[str, Any]) -> None:
    plain = lambda name: ("," not in name or "blocks back" in name) and not name.startswith("poolDetails")  # noqa: E731
    assert not over(counted, ROUNDS, plain)


def test_a_repeat_at_the_same_block_costs_no_request(counted: dict[str, Any]) -> None:
    assert {name: figures for name, figures in counted.items() if "again" in name and figures[1]} == {}


def test_a_provenance_answer_takes_at_most_three_rounds(counted: dict[str, Any]) -> None:
    assert not over(counted, AFRESH, lambda name: "provenance" in name)


def test_a_fresh_servers_first_query_takes_at_most_three_rounds(counted: dict[str, Any]) -> None:
    assert not over(counted, COLD, lambda name: "fresh server's first query" in name)


def test_a_first_deployments_first_query_takes_at_most_first_rounds(counted: dict[str, Any]) -> None:
    assert not over(counted, FIRST, lambda name: "first deployment" in name)


def test_a_series_takes_at_most_three_rounds(counted: dict[str, Any]) -> None:
    assert not over(counted, SERIES, lambda name: "series" in name)


def test_a_pools_details_take_at_most_two_rounds_once_asked(counted: dict[str, Any]) -> None:
    """The second `poolDetails` of a pool: its plan's calls go in its first round (chain/plans.py)."""
    asked = {name: figures for name, figures in counted.items() if name.startswith("poolDetails: ")}
    assert len(asked) >= 15
    over_budget = {
        name: rounds for name, (rounds, _) in asked.items() if rounds > POOL_ROUNDS.get(name.split()[1], ROUNDS)
    }
    assert over_budget == {}
