"""Benchmark: what a user waits for, in round trips to the RPC provider.

    .venv/bin/python bench/latency.py [--rtts 0,50,100] [--runs 5] [--only portfolio]

Run by hand (after ./scripts/test has installed the tools), never in CI. Every test world on one
anvil chain (tests/all_worlds.py), a fork of it under another chain id (a second chain, for the
two-chain portfolio), the service in this process, and between them and each chain the tests' RPC
proxy, in a thread of its own (`served`), holding every RPC HTTP request for the round-trip time
(a provider's latency: a cloud server to a paid provider is 20 to 80 ms, to a public endpoint 100
ms and more). For each query, warm (its caches and the event index filled by one run first), a
freshly mined block before each run (seen by the head follower first); it prints the p50 per
round-trip time, the RPC HTTP requests per query (not the follower's polls), those of the same
query asked again at the same block ("again"), and the effective round trips at each RTT: how
many requests the user waited for one after another.

The round-trip times take turns within one server (each run asks at every RTT in turn, the
proxies' delay set before each), so a run at 50 ms and the run at 0 beside it share the server's
state and the machine's load of that moment; the effective round trips are the median over runs
of (time at the RTT - time at 0) / the RTT. Where a query spends more CPU than its round trips
take (half a second for a portfolio of many accounts against 50 ms), that CPU hides some rounds
and its noise stays large: a long RTT (`--rtts 0,50,1000`) shows the dependent rounds themselves.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import server
from chain.head import Follower
from config import Settings
from tests import all_worlds
from tests.evm import Anvil
from tests.rpc_proxy import RpcProxy, served, settled

QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { __typename } errors { error { code message } } } }"""
QUERIES = [
    ("morpho (saver: markets, V1 and V2 vaults)", [("morpho", "saver")]),
    ("morpho (depositor)", [("morpho", "depositor")]),
    ("morpho (borrower: a market, its risk)", [("morpho", "borrower")]),
    ("aave (borrower)", [("aave", "borrower")]),
    ("compound (borrower)", [("compound", "borrower")]),
    ("pendle (saver)", [("pendle", "saver")]),
    ("fluid (borrower)", [("fluid", "borrower")]),
    ("midas (saver)", [("midas", "saver")]),
    ("neutrl (saver)", [("neutrl", "saver")]),
    ("spark (borrower)", [("spark", "borrower")]),
    ("sky (saver)", [("sky", "saver")]),
    ("ethena (saver)", [("ethena", "saver")]),
    ("avantis (saver)", [("avantis", "saver")]),
    ("avant (saver: a vault and its cooldown)", [("avant", "saver")]),
    ("erc4626 (saver: a vault the addresses data lists)", [("erc4626", "saver")]),
    ("lido (saver: stETH, wstETH)", [("lido", "saver")]),
    ("lido (borrower: withdrawal requests)", [("lido", "borrower")]),
    ("uniswap (saver: 6 v3 and 6 v4 positions)", [("uniswap", "saver")]),
    ("maker (controller: a vault through its DSProxy)", [("maker", "controller")]),
    ("morpho (controller: a DSProxy, 2 DSAs, 2 DPM accounts)", [("morpho", "controller")]),
    ("aave (controller: a DSA's supply)", [("aave", "controller")]),
    ("euler (controller: two sub-accounts, one borrowing)", [("euler", "controller")]),
    (
        "balancer (saver: v2 weighted and composable stable BPT, v3 weighted and stable BPT, 2 gauge stakes)",
        [("balancer", "saver")],
    ),
    ("aura (saver: deposits in the current and the 2022 Booster, BAL, AURA, an extra reward)", [("aura", "saver")]),
    ("etherfi (saver: eETH, weETH)", [("etherfi", "saver")]),
    ("etherfi (borrower: withdraw request NFTs)", [("etherfi", "borrower")]),
    ("rocketpool (saver: rETH, its burn)", [("rocketpool", "saver")]),
    ("renzo (saver: ezETH)", [("renzo", "saver")]),
    ("renzo (borrower: WithdrawQueue requests in ETH and stETH)", [("renzo", "borrower")]),
    ("kelp (saver: rsETH)", [("kelp", "saver")]),
    ("eigenlayer (saver: 2 strategies, 2 queued withdrawals)", [("eigenlayer", "saver")]),
    ("eigenlayer (borrower: an EigenPod, a queued withdrawal)", [("eigenlayer", "borrower")]),
    ("curve (saver: stableswap-ng, cryptoswap, main and crypto registry pools, 2 gauge stakes)", [("curve", "saver")]),
    ("curve (borrower: a gauge stake alone)", [("curve", "borrower")]),
    ("convex (saver: 2 deposits, CRV, CVX, an extra reward)", [("convex", "saver")]),
    ("pancakeswap (saver: 6 held and 2 staked positions, CAKE)", [("pancakeswap", "saver")]),
    ("venus (borrower: the core pool and two isolated pools)", [("venus", "borrower")]),
    ("compound-v2 (borrower: cETH collateral, USDC and DAI debts, COMP)", [("compound-v2", "borrower")]),
    ("liquity (depositor: a trove and a Stability Pool deposit with its gains)", [("liquity", "depositor")]),
    (
        "5 inputs: morpho, aave, compound, pendle, fluid",
        [
            ("morpho", "saver"),
            ("aave", "borrower"),
            ("compound", "borrower"),
            ("pendle", "saver"),
            ("fluid", "borrower"),
        ],
    ),
]
POOLS = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) {
  data { details { __typename } } errors { error { code message } } } }"""


FLOW_ROWS = [
    ("euler (controller)", [("euler", "controller")]),
    ("eigenlayer (saver)", [("eigenlayer", "saver")]),
    ("renzo (borrower: WithdrawQueue requests)", [("renzo", "borrower")]),
    ("maker (saver)", [("maker", "saver")]),
    ("curve (saver)", [("curve", "saver")]),
    ("convex (saver)", [("convex", "saver")]),
    ("balancer (saver)", [("balancer", "saver")]),
    ("aura (saver)", [("aura", "saver")]),
]
"""Series rows of the protocols whose flows came last (their own streams and events)."""
PORTFOLIO = """query($wallet: String!, $chains: [Int!]) { portfolio(walletAddress: $wallet, chainIds: $chains) {
  data { __typename } errors { error { code message } } coverage { complete } } }"""
PAST = 10
"""Blocks back for the mix at a past block."""
SERIES = """query($inputs: [PositionInput!]!, $from: HistoryBound!, $points: Int!) {
  positionsHistory(inputs: $inputs, from: $from, points: $points) {
    data { points { blockNumber error { code message } positions { __typename } } }
    errors { error { code message } } } }"""
FLOWS_SERIES = SERIES.replace("data { points", "data { flows { kind amountUsd } earnings { earned } points")
"""A series with its flows and earnings: the rows of FLOW_ROWS."""
SERIES_POINTS, SERIES_SPAN = 30, 290
"""The series rows: 30 points over the newest 290 blocks (a point every 10), new blocks each run."""
FOLLOWER_WAIT = 10
"""Seconds the benchmark waits for the head follower to see a mined block before it says so."""


Chain = tuple[Anvil, RpcProxy, Follower]
"""A chain the service reads: its node, the proxy in front of it, the service's head follower."""


Timed = tuple[dict[int, list[float]], float, float]
"""A row: the time in ms of each run at each round-trip time, the RPC HTTP requests per query, and
per query asked again at the same blocks."""


async def timed(
    client: TestClient,
    chains: list[Chain],
    key: str,
    inputs: list[dict[str, Any]] | str,
    runs: int,
    rtts: list[int],
    series: bool = False,
    portfolio_chains: list[int] | None = None,
    pools: bool = False,
    flows: bool = False,
) -> Timed:
    """`runs` runs, each asking once at every RTT of `rtts` in turn (each chain's proxy holding
    every request that long; a block mined on every chain before each ask, and seen by its head
    follower before the query, as on chains whose blocks come while nobody asks, and the server's
    work in the background settled, as tests/test_rounds.py does), after one warm-up
    run (which also starts the followers, where no query has yet). `inputs` a wallet's address: its
    `portfolio` (on `portfolio_chains`, or the server's own chains); with `pools`, `poolDetails` of
    the inputs; with `flows`, a series' flows and earnings too."""
    node = chains[0][0]
    durations: dict[int, list[float]] = {rtt: [] for rtt in rtts}
    requests, again = [], []
    for run in range(runs + 1):
        for rtt in rtts:
            for chain_node, proxy, follower in chains:
                proxy.delay = rtt / 1000
                chain_node.mine(1)
                waited = time.monotonic() + FOLLOWER_WAIT
                while run and (follower.head is None or follower.head.number != chain_node.block_number()):
                    if time.monotonic() > waited:
                        newest = chain_node.block_number()
                        raise RuntimeError(f"the head follower did not see block {newest} in {FOLLOWER_WAIT} s")
                    await asyncio.sleep(0.005)
            await settled(lambda: sum(proxy.handling for _, proxy, _ in chains))
            since = node.block_number() - SERIES_SPAN if series else None
            before = sum(proxy.reads() for _, proxy, _ in chains)
            started = time.perf_counter()
            await ask(client, key, inputs, since, portfolio_chains, pools, flows)
            elapsed = (time.perf_counter() - started) * 1000
            between = sum(proxy.reads() for _, proxy, _ in chains)
            await ask(client, key, inputs, since, portfolio_chains, pools, flows)
            if run:
                durations[rtt].append(elapsed)
                requests.append(between - before)
                again.append(sum(proxy.reads() for _, proxy, _ in chains) - between)
    return durations, statistics.mean(requests), statistics.mean(again)


async def ask(
    client: TestClient,
    key: str,
    inputs: list[dict[str, Any]] | str,
    series_from: int | None = None,
    portfolio_chains: list[int] | None = None,
    pools: bool = False,
    flows: bool = False,
) -> None:
    """One query: `walletPositions` of the inputs, or from `series_from` their SERIES_POINTS-point
    series to the newest block; more than five inputs, five a request, the requests at once (what
    a client sends without `portfolio` for a wallet's whole portfolio); a wallet's `portfolio` on
    `portfolio_chains` (None: the server's own); with `pools`, the inputs' `poolDetails`; with
    `flows`, the series' flows and earnings."""
    if isinstance(inputs, str):
        variables = {"wallet": inputs, "chains": portfolio_chains}
        async with client.post(
            "/graphql", json={"query": PORTFOLIO, "variables": variables}, headers={"x-api-key": key}
        ) as response:
            body = await response.json()
        found = body["data"]["portfolio"]
        assert not found["errors"] and all(chain["complete"] for chain in found["coverage"]), found
        assert len(found["coverage"]) == len(portfolio_chains or [None]), found["coverage"]
        return
    if len(inputs) > 5:
        await asyncio.gather(*(ask(client, key, inputs[i : i + 5], series_from) for i in range(0, len(inputs), 5)))
        return
    variables: dict[str, Any] = {"inputs": inputs}
    query, field = (POOLS, "poolDetails") if pools else (QUERY, "walletPositions")
    if series_from is not None:
        variables |= {"from": {"blockNumber": series_from}, "points": SERIES_POINTS}
        query, field = FLOWS_SERIES if flows else SERIES, "positionsHistory"
    async with client.post(
        "/graphql", json={"query": query, "variables": variables}, headers={"x-api-key": key}
    ) as response:
        body = await response.json()
    result = body["data"][field]
    assert not result["errors"], result["errors"]
    failed = [point["error"] for entry in result["data"] for point in entry.get("points", []) if point["error"]]
    assert not failed, failed


async def measure(
    worlds: Any, fork: Anvil, folder: Path, key: str, rtts: list[int], runs: int, only: str = ""
) -> dict[str, Timed]:
    """Every row (whose name holds `only`) at the round-trip times in turn: the worlds' chain, and
    `fork` (a second chain) for the two-chain portfolio, each behind its own proxy."""
    proxies = {node.chain_id: RpcProxy(node.url) for node in (worlds.node, fork)}
    found = {}
    with contextlib.ExitStack() as stack:
        urls = {chain_id: stack.enter_context(served(proxy)) for chain_id, proxy in proxies.items()}
        app = server.create_app(
            Settings(
                keys_file=str(folder / "keys.env"),
                addresses_file=str(folder / "addresses.json"),
                state_dir=str(folder / "state"),
                rate_limit=10**9,
                input_timeout=max(10.0, max(rtts) * 0.06),  # rounds, not the budget, at a long RTT
            ),
            rpc_urls=urls,
        )
        async with TestClient(TestServer(app, host="127.0.0.1")) as client:
            chain = worlds.node.chain_id
            one: list[Chain] = [(worlds.node, proxies[chain], app[server.CHAINS].follower(chain))]

            async def row(name: str, chains: list[Chain], asked: list[dict[str, Any]] | str, **more: Any) -> None:
                if only in name:
                    found[name] = await timed(client, chains, key, asked, runs, rtts, **more)

            both = [*one, (fork, proxies[fork.chain_id], app[server.CHAINS].follower(fork.chain_id))]
            for name, wanted in QUERIES:
                inputs = [{"protocol": p, "chainId": chain, "walletAddress": worlds.wallets[w]} for p, w in wanted]
                await row(name, one, inputs)
            for name, wanted_pools in all_worlds.pools(worlds):
                asked = [{"protocol": p, "chainId": chain, "poolAddress": a} for p, a in wanted_pools]
                await row(name, one, asked, pools=True)
            saver = worlds.wallets["saver"]
            every = [{"protocol": name, "chainId": chain, "walletAddress": saver} for name in app[server.REGISTRY]]
            await row(
                f"a portfolio today: the saver in all {len(every)} protocols, five a request, at once", one, every
            )
            for role in ("saver", "controller", "empty"):
                name = f"portfolio (the {role}: every protocol in one query)"
                await row(name, one, worlds.wallets[role], portfolio_chains=[chain])
            for role in ("saver", "controller"):
                name = f"portfolio on two chains (the {role}, the second a fork of the first)"
                await row(name, both, worlds.wallets[role], portfolio_chains=[chain, fork.chain_id])
            mix = [{"protocol": p, "chainId": chain, "walletAddress": worlds.wallets[w]} for p, w in QUERIES[-1][1]]
            past = [{**item, "blockNumber": worlds.node.block_number() - PAST} for item in mix]
            await row(f"the same 5 inputs, {PAST} blocks back", one, past)
            worlds.node.mine(SERIES_SPAN)  # a span past the worlds' making, where each is as it stays
            flows = [
                (name, [{"protocol": p, "chainId": chain, "walletAddress": worlds.wallets[w]} for p, w in wanted])
                for name, wanted in FLOW_ROWS
            ]
            for name, inputs in (("morpho (saver)", mix[:1]), ("the same 5 inputs", mix)):
                await row(f"{name}, a {SERIES_POINTS}-point series", one, inputs, series=True)
            for name, inputs in flows:
                await row(f"{name}, a {SERIES_POINTS}-point series with flows", one, inputs, series=True, flows=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rtts", default="0,50,100", help="round-trip times in ms, the first 0")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="", help="the rows whose name holds this text (all by default)")
    args = parser.parse_args()
    rtts = [int(value) for value in args.rtts.split(",")]
    node = Anvil()
    fork = None
    try:
        folder = Path(tempfile.mkdtemp(prefix="latency-"))
        worlds, key = all_worlds.prepare(node, folder, "latency")
        fork = Anvil(chain_id=node.chain_id + 1, fork=node.url)
        data = json.loads((folder / "addresses.json").read_text())
        data[str(fork.chain_id)] = data[str(node.chain_id)]
        (folder / "addresses.json").write_text(json.dumps(data))
        results = asyncio.run(measure(worlds, fork, folder, key, rtts, args.runs, args.only))
    finally:
        node.stop()
        if fork is not None:
            fork.stop()
    width = max(len(name) for name in results)
    head = "".join(f"{f'RTT {rtt} ms':>12}" for rtt in rtts)
    tail = "".join(f"{f'at {rtt} ms':>11}" for rtt in rtts[1:])
    print(f"p50 of {args.runs} warm runs at each RTT in turn, a block mined before each\n")
    print(f"{'query':<{width}}  {'RPC requests':>12}{'again':>6}{head}  effective round trips:{tail}")
    for name, (durations, requests, again) in results.items():
        cells = "".join(f"{statistics.median(durations[rtt]):>9.0f} ms" for rtt in rtts)
        effective = "".join(f"{rounds(durations, rtts[0], rtt):>11.1f}" for rtt in rtts[1:])
        print(f"{name:<{width}}  {requests:>12.1f}{again:>6.1f}{cells}  {'':>22}{effective}")


def rounds(durations: dict[int, list[float]], base: int, rtt: int) -> float:
    """Effective round trips at `rtt`: the median of each run's (time at `rtt` - time at `base`),
    in round trips."""
    paired = zip(durations[rtt], durations[base], strict=True)
    return statistics.median((slow - fast) / (rtt - base) for slow, fast in paired)


if __name__ == "__main__":
    main()
