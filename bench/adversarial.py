"""Benchmark: the costliest documents within the request limits, and what they do to the server.

    .venv/bin/python bench/adversarial.py [--candidates 400] [--requests 100] [--concurrency 10]

Run by hand, never in CI. Part 1 searches for the GraphQL documents that cost the most CPU to
parse, bound-check and validate (graphql_http.prepare) while staying within every limit: shapes
known to be costly for graphql-core (fields merged at one response path, fragments spread many
times, aliases, long argument lists, deep nesting), each at many sizes, plus random mixtures. It
prints the worst times found. Part 2 serves the app on a loopback port (stand-in adapters, no
chain), sends the worst documents with one key, `--concurrency` at a time, and meanwhile asks
`GET /healthz` every 5 ms, then prints the /healthz p50 and p99: what every other client of the
server sees while one key sends its most expensive requests.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import aiohttp
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import auth
import graphql_http
import limits
import schema
import server
from config import Settings
from tests.stand_ins import StandIns
from tests.test_fault_schedules import SCHEMA, widest_document

INPUT = '{protocol: "morpho", chainId: 1, walletAddress: "0x0000000000000000000000000000000000000001"}'
VAULT = "vaultV1Positions { vaultAddress vaultName asset { address symbol name decimals } shares assets apy }"
MARKET = "marketPositions { marketId loanAsset { address symbol } supplyAssets borrowAssets healthFactor }"


def repeated(width: int, depth: int) -> str:
    """The same fields repeated `width` times at each of `depth` levels: merged groups multiply."""
    inner = " ".join([VAULT] * width)
    fragments = " ".join([f"... on MorphoWalletPositions {{ {inner} }}"] * width)
    return "{ " + " ".join([f"walletPositions(inputs: [{INPUT}]) {{ data {{ {fragments} }} }}"] * depth) + " }"


def aliases(count: int, body: str) -> str:
    return (
        "{ "
        + " ".join(
            f"a{i}: walletPositions(inputs: [{INPUT}]) {{ data {{ ... on MorphoWalletPositions {{ {body} }} }} }}"
            for i in range(count)
        )
        + " }"
    )


def spread(fragments: int, spreads: int, body: str) -> str:
    definitions = " ".join(f"fragment F{i} on MorphoWalletPositions {{ {body} }}" for i in range(fragments))
    uses = " ".join(f"...F{i % fragments}" for i in range(spreads))
    return f"{{ walletPositions(inputs: [{INPUT}]) {{ data {{ {uses} }} }} }} {definitions}"


def long_arguments(count: int) -> str:
    return "{ walletPositions(inputs: [" + ", ".join([INPUT] * count) + "]) { errors { protocol } } }"


def nested_inline(depth: int) -> str:
    return (
        "{ walletPositions(inputs: []) { data { "
        + "... on MorphoWalletPositions { " * depth
        + VAULT
        + " }" * depth
        + " } } }"
    )


def random_document(rng: random.Random) -> str:
    body = " ".join(
        rng.choice([VAULT, MARKET, "protocol chainId blockNumber", "warnings { code message target }"])
        for _ in range(rng.randint(1, 6))
    )
    kind = rng.randrange(3)
    if kind == 0:
        return aliases(rng.randint(1, 40), body)
    if kind == 1:
        return spread(rng.randint(1, 32), rng.randint(1, 70), body)
    return repeated(rng.randint(1, 4), rng.randint(1, 4))


def positions_of_types(count: int, fields: str) -> str:
    """`allPositions` with a fragment on `count` types that implement Position, each selecting
    `fields`: a field in more of them than MAX_MERGED less the interface's is refused."""
    implementing = [t.name for t in SCHEMA.get_possible_types(SCHEMA.type_map["Position"])][:count]
    fragments = " ".join(f"... on {name} {{ {fields} }}" for name in implementing)
    entry = f"... on WalletEntry {{ allPositions {{ {fragments} }} }}"
    return f"{{ walletPositions(inputs: [{INPUT}]) {{ data {{ {entry} }} }} }}"


def candidates(count: int, seed: int = 7) -> Iterator[str]:
    widest = widest_document()  # its variables written in: no request carries them here
    yield (
        widest[widest.index("{") :]
        .replace("$inputs", "[]")
        .replace("$pools", "[]")
        .replace("$from", "{blockNumber: 0}")
    )
    for count_ in (7, 35):
        for fields in (
            "id",
            "legs { role amount usd }",
            "id label legs { role key amount amountDecimal usd priceSource }",
        ):
            yield positions_of_types(count_, fields)
    for width in range(1, 6):
        for depth in range(1, 6):
            yield repeated(width, depth)
    for count_ in (8, 16, 24, 32, 33):
        for body in (VAULT, f"{VAULT} {MARKET}", "protocol"):
            yield aliases(count_, body)
    for fragments in (1, 8, 16, 32):
        for spreads in (16, 32, 64):
            yield spread(fragments, spreads, f"{VAULT} {MARKET}")
    for count_ in (5, 50, 100, 150):
        yield long_arguments(count_)
    for depth in (10, 50, 200):
        yield nested_inline(depth)
    rng = random.Random(seed)
    for _ in range(count):
        yield random_document(rng)


def cost(document: str, graphql_schema: object, repeat: int = 3) -> tuple[float, str]:
    """Best-of-`repeat` seconds of graphql_http.prepare, and how it ended (OK or the code)."""
    body = json.dumps({"query": document}).encode()
    best, outcome = float("inf"), "OK"
    for _ in range(repeat):
        started = time.perf_counter()
        try:
            graphql_http.prepare(body, graphql_schema, False)
        except graphql_http.RequestError as exc:
            outcome = exc.errors[0]["extensions"]["code"]
        best = min(best, time.perf_counter() - started)
    return best, outcome


def search(count: int) -> list[tuple[float, str, str]]:
    graphql_schema = schema.build(StandIns().registry())
    results = [(*cost(document, graphql_schema), document) for document in candidates(count)]
    return sorted(results, reverse=True)


async def load(documents: list[str], requests: int, concurrency: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        keys = Path(folder) / "keys.env"
        key = auth.create_key(keys, "adversary")[0]
        app = server.create_app(
            Settings(keys_file=str(keys), rate_limit=10**9, state_dir=folder), StandIns().registry()
        )
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        base = f"http://127.0.0.1:{runner.addresses[0][1]}"
        try:
            async with aiohttp.ClientSession() as session:
                idle = await probe_healthz(session, base, lambda: False, 200)
                done = asyncio.Event()
                attack = asyncio.create_task(send(session, base, key, documents, requests, concurrency, done))
                busy = await probe_healthz(session, base, done.is_set, 10**6)
                await attack
        finally:
            await runner.cleanup()
    for label, samples in (("idle", idle), ("under attack", busy)):
        print(
            f"/healthz {label:13} p50 {percentile(samples, 50):7.2f} ms  p99 {percentile(samples, 99):7.2f} ms  "
            f"({len(samples)} probes)"
        )


async def send(
    session: aiohttp.ClientSession,
    base: str,
    key: str,
    documents: list[str],
    requests: int,
    concurrency: int,
    done: asyncio.Event,
) -> None:
    queue = [documents[i % len(documents)] for i in range(requests)]
    statuses: dict[int, int] = {}

    async def worker() -> None:
        while queue:
            document = queue.pop()
            async with session.post(
                f"{base}/graphql", json={"query": document}, headers={"x-api-key": key}
            ) as response:
                await response.read()
                statuses[response.status] = statuses.get(response.status, 0) + 1

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    print(
        f"{requests} worst requests, {concurrency} at a time: {time.perf_counter() - started:.2f} s, "
        f"statuses {statuses}"
    )
    done.set()


async def probe_healthz(session: aiohttp.ClientSession, base: str, stop: Callable[[], bool], limit: int) -> list[float]:
    samples: list[float] = []
    while not stop() and len(samples) < limit:
        started = time.perf_counter()
        async with session.get(f"{base}/healthz") as response:
            await response.read()
        samples.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(0.005)
    return samples


def percentile(samples: list[float], p: int) -> float:
    return statistics.quantiles(samples, n=100)[p - 1] if len(samples) > 1 else samples[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidates", type=int, default=400, help="random documents tried beside the shapes")
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=10)
    args = parser.parse_args()
    results = search(args.candidates)
    reaching = ("OK", "TOO_MANY_INPUTS", "GRAPHQL_VALIDATION_FAILED")
    passing = [(seconds, document) for seconds, outcome, document in results if outcome in reaching]
    refused = [seconds for seconds, outcome, _ in results if outcome not in reaching]
    print(
        f"{len(results)} documents tried; limits: {limits.MAX_TOKENS} tokens, {limits.MAX_FIELDS} fields, "
        f"{limits.MAX_EXPANDED} expanded, {limits.MAX_MERGED} merged per path"
    )
    goal = f"goal: under {limits.ANALYSIS_GOAL_MS} ms"
    print(f"worst documents that reach validation (parse + bounds + validation; {goal}):")
    for seconds, document in passing[:5]:
        print(f"  {seconds * 1000:7.2f} ms  {len(document):6} bytes  {document[:70]}...")
    print(f"worst refused document (parse + bounds): {max(refused, default=0.0) * 1000:.2f} ms")
    asyncio.run(load([document for _, document in passing[: args.requests]], args.requests, args.concurrency))


if __name__ == "__main__":
    main()
