"""Benchmark: a second replica's cold start, two replicas against one, and the event index's write
rate in PostgreSQL against SQLite, on the Morpho scale world; figures printed.

    .venv/bin/python bench/replicas.py [--markets 10000] [--vaults 1000] [--requests 2000]
        [--concurrency 16] [--starts 3] [--rounds 3] [--block-seconds 1] [--logs-block-range 10000]

Run by hand (after ./scripts/test has installed the tools and PostgreSQL), never in CI. Every
test world on one anvil chain (bench/bench.py's mixed query needs Aave, Compound and Pendle),
the Morpho world grown as bench/morpho_scale.py grows it (`--markets` markets, `--vaults`
announced vaults), one PostgreSQL (tests/postgres_server.py) and one Redis. Servers run as
`python server.py`, a process each, straight on anvil; their RPC HTTP requests and eth_getLogs
calls are read from their own metrics. The world is about 1,000 blocks, one eth_getLogs range at
the default LOGS_BLOCK_RANGE: `--logs-block-range 4` makes a scan of it about 240 queries, as
2.4 M blocks take at 10,000 (Morpho Blue's history on mainnet is of that order).

1. Backfill: `index build` of the chain (cli.py's build, in this process) into SQLite files, then
   into PostgreSQL: wall time, blocks (summed over streams) and rows (entries and holdings) per
   second, and the time spent in the store's writes.
2. Cold start of a replica, from its process's start to its first answered Morpho query (the
   `saver` demo wallet), `--starts` times in each of three setups: an empty state directory; a state directory that got
   the SQLite index built in 1 by `index export` and `index import` (timed); and the PostgreSQL
   index built in 1 with Redis, while a first replica serves from both (a block is mined before
   each second replica starts, so no answer of the first's is shared with it). The last second
   replica stays for 3.
3. The mixed query (bench/bench.py's mix of 1, 3 and 5 inputs), `--requests` at `--concurrency`
   from this process to the first replica alone, then to both in turn (a client-side round robin,
   the same concurrency in all), alternating `--rounds` times: at one block (answers kept), then
   with a block mined every `--block-seconds`. Prints requests/s, latency, the RPC requests made,
   the answers found in Redis, the CPU seconds the servers, this process (the load) and the
   helpers (anvil, Redis, PostgreSQL) spent, and how busy the machine's cores were; then the
   medians of the runs (requests/s, the servers' CPU per request).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Iterator
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from morpho_scale import HEAD_POLL, SERVER, Served, grow, post

import bench
import cli
import protocols
from chain.event_index import open_stores
from chain.index_postgres import PostgresIndex
from chain.index_sqlite import SqliteIndex
from config import Settings
from tests import all_worlds
from tests.evm import CHAIN_ID, Anvil
from tests.postgres_server import PostgresServer
from tests.redis_server import RedisServer

TICKS = os.sysconf("SC_CLK_TCK")


async def run(args: argparse.Namespace) -> None:
    node = Anvil()
    postgres = PostgresServer()
    redis: RedisServer | None = None
    try:
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            started = time.perf_counter()
            worlds, key = all_worlds.prepare(node, folder, "bench")
            grow(worlds.parts["morpho"], args.markets, args.vaults)
            print(
                f"world: every test world, Morpho grown to {args.markets} markets and {args.vaults} vaults, "
                f"{node.block_number()} blocks, built in {time.perf_counter() - started:.0f} s"
            )
            postgres.start()
            redis = RedisServer(folder)
            redis.start()
            registry = protocols.registry(protocols.load_addresses(folder / "addresses.json"))
            os.environ[f"RPC_URL_{CHAIN_ID}"] = node.url
            common = {
                "API_KEYS_FILE": str(folder / "keys.env"),
                "RATE_LIMIT": str(10**9),
                "ADDRESSES_FILE": str(folder / "addresses.json"),
                f"RPC_URL_{CHAIN_ID}": node.url,
                "PORT": "0",
                "METRICS_PORT": "0",
                "HEAD_POLL_SECONDS": str(HEAD_POLL),
                "LOGS_BLOCK_RANGE": str(args.logs_block_range),
            }
            print("\n1. backfill (index build of the chain, in this process)")
            print("store       wall s  blocks  rows    blocks/s  rows/s  in the store's writes")
            built = Settings(state_dir=str(folder / "built"), logs_block_range=args.logs_block_range)
            await backfill("SQLite", built, registry, SqliteIndex)
            shared_index = dataclasses.replace(built, state_dir=str(folder / "unused"), index_url=postgres.url)
            await backfill("PostgreSQL", shared_index, registry, PostgresIndex)

            print("\n2. cold start: process start to the first answered Morpho query (the saver)")
            print(f"{'setup':<42}  listening s  answered s  RPC requests  eth_getLogs  imported in s")
            wallet = worlds.wallets["saver"]
            for start in range(args.starts):
                empty = {**common, "STATE_DIR": str(folder / f"empty-{start}")}
                async with cold_start("empty SQLite state dir", empty, key, wallet):
                    pass
            snapshot = folder / "snapshot.sqlite"
            index_command(folder / "built", "export", snapshot)
            for start in range(args.starts):
                imported = index_command(folder / f"imported-{start}", "import", snapshot)
                state = {**common, "STATE_DIR": str(folder / f"imported-{start}")}
                async with cold_start("SQLite from a snapshot", state, key, wallet, imported):
                    pass
            shared = {**common, "INDEX_URL": postgres.url, "REDIS_URL": redis.url}
            async with Served({**shared, "STATE_DIR": str(folder / "first")}) as first:
                await answer(first.url, key, wallet)
                for start in range(args.starts):
                    node.mine()
                    await asyncio.sleep(3 * HEAD_POLL)
                    setup, second = "shared PostgreSQL, a first replica serving", str(folder / f"second-{start}")
                    async with cold_start(setup, {**shared, "STATE_DIR": second}, key, wallet) as served:
                        if start == args.starts - 1:
                            helpers = [node.process.pid, redis.process.pid, postgres.process.pid]
                            await throughput(args, node, key, worlds.wallets, [first, served], helpers)
    finally:
        if redis is not None:
            redis.kill()
        postgres.remove()
        node.stop()


@contextlib.contextmanager
def timed_writes(store: Any) -> Iterator[list[float]]:
    """The seconds `store.write` (a store class's) takes, summed while the block runs."""
    spent = [0.0]
    original = store.write

    async def write(self: Any, *args: Any) -> bool:
        started = time.perf_counter()
        try:
            return bool(await original(self, *args))
        finally:
            spent[0] += time.perf_counter() - started

    store.write = write
    try:
        yield spent
    finally:
        store.write = original


async def backfill(label: str, settings: Settings, registry: protocols.Registry, store: Any) -> None:
    """`index build` of the chain into the store `settings` name, and what it wrote."""
    output = io.StringIO()
    with timed_writes(store) as spent, contextlib.redirect_stderr(output):
        started = time.perf_counter()
        code = await cli._build(CHAIN_ID, settings, registry)
        wall = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"index build into {label} failed: {output.getvalue()}")
    stores = open_stores(Path(settings.state_dir), settings.index_url, 2)
    try:
        streams = await stores.store(CHAIN_ID).status()
    finally:
        await stores.close()
    blocks = sum(covered - start + 1 for _, start, covered, _, _ in streams)
    rows = sum(entries + holdings for *_, entries, holdings in streams)
    print(
        f"{label:<10}  {wall:6.2f}  {blocks:6d}  {rows:6d}  {blocks / wall:8.0f}  {rows / wall:6.0f}  "
        f"{spent[0]:.2f} s ({rows / spent[0]:,.0f} rows/s)"
    )


def index_command(state_dir: Path, action: str, snapshot: Path) -> float:
    """`python server.py index <action>` of the chain's snapshot, as an operator runs it; its wall time."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, str(SERVER), "index", action, "--chain", str(CHAIN_ID), str(snapshot)],
        env={**os.environ, "STATE_DIR": str(state_dir)},
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


@contextlib.asynccontextmanager
async def cold_start(
    setup: str, settings: dict[str, str], key: str, wallet: str, imported: float | None = None
) -> AsyncIterator[Served]:
    """A server started with `settings`, its first answer timed from the process's start, then served."""
    started = time.perf_counter()
    async with Served(settings) as served:
        listening = time.perf_counter() - started
        await answer(served.url, key, wallet)
        answered = time.perf_counter() - started
        requests = await metric(served, "outcome=", "wp_rpc_http_requests_total")
        logs = await metric(served, 'method="eth_getLogs"', "wp_rpc_calls_total")
        after = f"{imported:13.2f}" if imported is not None else ""
        print(f"{setup:<42}  {listening:11.2f}  {answered:10.2f}  {requests:12.0f}  {logs:11.0f}  {after}")
        yield served


async def answer(url: str, key: str, wallet: str) -> None:
    """Ask until the input is answered without an error."""
    async with aiohttp.ClientSession(headers={"x-api-key": key}) as session:
        while (await post(session, url, [wallet]))["data"]["walletPositions"]["errors"]:
            await asyncio.sleep(0.05)


async def metric(served: Served, label: str, name: str) -> float:
    """The sum of a metric's samples whose labels include `label`."""
    async with aiohttp.ClientSession() as session, session.get(served.metrics) as reply:
        text = await reply.text()
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name) and label in line)


async def throughput(
    args: argparse.Namespace, node: Anvil, key: str, wallets: dict[str, str], replicas: list[Served], helpers: list[int]
) -> None:
    """The mixed query to the first replica alone and to both, alternating, `--rounds` times each."""
    print(
        f"\n3. the mixed query, {args.requests} requests at concurrency {args.concurrency}, on {os.cpu_count()} cores "
        "(anvil, PostgreSQL, Redis and this load beside the servers)"
    )
    mix = bench.mixed(wallets)
    urls = [f"{served.url}/graphql" for served in replicas]
    await bench.send(urls, key, mix, len(bench.MIX) * len(urls), 1)  # each replica's answers at this block
    idle, ticks = busy(), [cpu(served.process.pid) for served in replicas]
    await asyncio.sleep(2)
    print(
        f"without this load, the machine's cores were {share(idle, busy())} busy, "
        f"the servers {' + '.join(f'{(cpu(s.process.pid) - t) / TICKS / 2:.0%}' for s, t in zip(replicas, ticks))}"
        " of a core"
    )
    print(
        "replicas  blocks               requests/s  p50 ms  p99 ms  RPC requests  shared hits  "
        "CPU s: servers / load / anvil, Redis, PostgreSQL  machine busy"
    )
    rates: dict[tuple[float, int], list[tuple[float, float]]] = {}
    for mining in (0.0, args.block_seconds):
        for count in [1, 2] * args.rounds:
            for served in replicas:
                served.access.clear()
            hits = [await metric(served, 'outcome="hit"', "wp_shared_answer_lookups_total") for served in replicas]
            ticks = [cpu(served.process.pid) for served in replicas]
            others, load, machine = sum(cpu(pid) for pid in helpers), time.process_time(), busy()
            elapsed, latencies = await mined(
                node, mining, bench.send(urls[:count], key, mix, args.requests, args.concurrency)
            )
            after = busy()
            spent = [(cpu(served.process.pid) - before) / TICKS for served, before in zip(replicas, ticks)]
            others = (sum(cpu(pid) for pid in helpers) - others) / TICKS
            for i, served in enumerate(replicas):
                hits[i] = await metric(served, 'outcome="hit"', "wp_shared_answer_lookups_total") - hits[i]
            everything = sorted(t for values in latencies.values() for t in values)
            rates.setdefault((mining, count), []).append((args.requests / elapsed, sum(spent) / args.requests))
            print(
                f"{count:8d}  {pace(mining):<19}  {args.requests / elapsed:10.1f}  "
                f"{bench.percentile(everything, 50) * 1000:6.1f}  {bench.percentile(everything, 99) * 1000:6.1f}  "
                f"{sum(line['rpc_requests'] for served in replicas for line in served.access):12d}  "
                f"{sum(hits):11.0f}  {' + '.join(f'{s:.1f}' for s in spent[:count]):>14} / "
                f"{time.process_time() - load:.1f} / {others:.1f}{'':>24}"
                f"{share(machine, after):>6}"
            )
    print(f"medians of {args.rounds} runs: requests/s, and the servers' CPU per request")
    for (mining, count), runs in rates.items():
        rate, spent = (statistics.median(values) for values in zip(*runs))
        print(f"{count:8d}  {pace(mining):<19}  {rate:10.1f}  {spent * 1000:6.2f} ms")


def pace(mining: float) -> str:
    return f"a block every {mining:g} s" if mining else "one block"


def share(before: tuple[int, int], after: tuple[int, int]) -> str:
    return f"{(after[0] - before[0]) / (after[1] - before[1]):.0%}"


def busy() -> tuple[int, int]:
    """The machine's busy and total clock ticks so far, over every core (/proc/stat)."""
    ticks = [int(n) for n in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks)


async def mined(
    node: Anvil, seconds: float, load: Awaitable[tuple[float, dict[int, list[float]]]]
) -> tuple[float, dict[int, list[float]]]:
    """`load` awaited while a block is mined every `seconds` (none when 0)."""
    if not seconds:
        return await load
    done = asyncio.Event()

    async def mine() -> None:
        while not done.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), seconds)
            if not done.is_set():
                await asyncio.to_thread(node.mine)

    miner = asyncio.create_task(mine())
    try:
        return await load
    finally:
        done.set()
        await miner


def cpu(pid: int) -> int:
    """Clock ticks of CPU (user and system) a process and its living children have spent."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        tasks = [(task / "children").read_text().split() for task in Path(f"/proc/{pid}/task").iterdir()]
    except FileNotFoundError:  # it ended meanwhile
        return 0
    return int(fields[11]) + int(fields[12]) + sum(cpu(int(child)) for children in tasks for child in children)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markets", type=int, default=10_000)
    parser.add_argument("--vaults", type=int, default=1_000)
    parser.add_argument("--requests", type=int, default=2000, help="mixed queries per throughput run")
    parser.add_argument("--rounds", type=int, default=3, help="throughput runs of one and of two replicas, alternating")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--starts", type=int, default=3, help="cold starts in each setup")
    parser.add_argument("--block-seconds", type=float, default=1.0, help="a block mined this often in the second pass")
    parser.add_argument(
        "--logs-block-range", type=int, default=10_000, help="LOGS_BLOCK_RANGE of every server and build"
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
