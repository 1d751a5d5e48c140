"""Benchmark: anvil + the service, a fixed mix of walletPositions queries, figures printed.

    .venv/bin/python bench/bench.py [--requests 300] [--concurrency 16]

Run by hand (after ./scripts/test has installed the tools), never in CI. It deploys the test
worlds (Morpho, two Aave v3 markets, two Comet markets) and test tokens, serves the app on a
loopback port with the real adapters and the chain-reading stand-in of the tests, sends each
scenario's mix, and
prints requests/s, p50/p99 latency and the RPC HTTP requests and sub-calls per GraphQL request
taken from the access log.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import auth
import protocols
import server
from config import Settings
from tests import all_worlds, morpho_world
from tests.evm import CHAIN_ID, Anvil
from tests.stand_ins import chain_balances

QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on MorphoWalletPositions { blockNumber vaultV1Positions { shares assetsUsd apy }
    vaultV2Positions { shares assetsUsd apy } marketPositions { supplyAssets borrowAssets healthFactor } }
    ... on AaveWalletPositions { marketStates { healthFactor } supplyPositions { balanceUsd apy } }
    ... on CompoundWalletPositions { borrowPositions { debtUsd borrowCapacityUsd } rewardPositions { accrued } }
    ... on PendleWalletPositions { ptPositions { balanceUsd impliedApy } ytPositions { accruedInterest { amount } }
      lpPositions { lpPrice } syPositions { balanceUsd } } }
  errors { error { code message } } } }"""
MIX = (1, 3, 5)
"""Inputs per query, cycled."""


class AccessFields(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == "wallet_positions.access":
            self.lines.append(record.fields)


async def run(requests: int, concurrency: int, token_count: int) -> None:
    artifacts = morpho_world.compile_all()
    node = Anvil()
    try:
        worlds = all_worlds.build(node)
        tokens = [
            node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], ["B", "B", 18])
            for _ in range(token_count)
        ]
        wallets = ["0x" + f"{i + 1:040x}" for i in range(max(MIX))]
        for index, wallet in enumerate(wallets):
            node.send(tokens[index % token_count], "mint(address,uint256)", wallet, 10**18 + index)
        demo = [worlds.wallets[name] for name in ("lender", "borrower", "depositor", "saver", "empty")]
        override = worlds.addresses
        with tempfile.TemporaryDirectory() as folder:
            keys = Path(folder) / "keys.env"
            key = auth.create_key(keys, "bench")[0]
            path = Path(folder) / "addresses.json"
            path.write_text(json.dumps(override))
            data = protocols.load_addresses(path)
            registry = {**protocols.registry(data), "balances": chain_balances(tokens, CHAIN_ID)}
            app = server.create_app(
                Settings(keys_file=str(keys), rate_limit=10**9, state_dir=folder),
                registry,
                rpc_urls={CHAIN_ID: node.url},
            )
            print(f"scenario balances: {token_count} token balances per input")
            await measure(app, key, [("balances", w) for w in wallets], requests, concurrency)
            print("\nscenario morpho: the demo wallets (markets, V1 and V2 vaults, nothing)")
            await measure(app, key, [("morpho", w) for w in demo], requests, concurrency)
            print("\nscenario mixed: morpho, aave, compound and pendle inputs in one request")
            await measure(app, key, mixed(worlds.wallets), requests, concurrency)
    finally:
        node.stop()


def mixed(wallets: dict[str, str]) -> list[tuple[str, str]]:
    """The mixed scenario's inputs (protocol, wallet): morpho, aave, compound and pendle."""
    return [
        ("morpho", wallets["saver"]),
        ("aave", wallets["borrower"]),
        ("compound", wallets["borrower"]),
        ("pendle", wallets["saver"]),
        ("compound", wallets["saver"]),
    ]


async def measure(app: web.Application, key: str, mix: list[tuple[str, str]], requests: int, concurrency: int) -> None:
    """Send `requests` queries of 1, 3 and 5 inputs taken from `mix` (protocol, wallet) in turn."""
    fields = AccessFields()
    logging.getLogger("wallet_positions").setLevel(logging.ERROR)
    access = logging.getLogger("wallet_positions.access")
    access.handlers, access.propagate = [fields], False
    access.setLevel(logging.INFO)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    elapsed, latencies = await send(
        [f"http://127.0.0.1:{runner.addresses[0][1]}/graphql"], key, mix, requests, concurrency
    )
    await runner.cleanup()
    report(requests, concurrency, elapsed, latencies, fields.lines)


async def send(
    urls: list[str], key: str, mix: list[tuple[str, str]], requests: int, concurrency: int
) -> tuple[float, dict[int, list[float]]]:
    """`requests` queries of 1, 3 and 5 inputs of `mix` by `concurrency` workers, each to the next
    of `urls` in turn (a client-side round robin); the seconds they took and their latencies."""
    latencies: dict[int, list[float]] = {n: [] for n in MIX}
    queue = list(range(requests))
    async with aiohttp.ClientSession(headers={"x-api-key": key}) as session:

        async def worker() -> None:
            while queue:
                index = queue.pop()
                n = MIX[index % len(MIX)]
                inputs = [{"protocol": p, "chainId": CHAIN_ID, "walletAddress": w} for p, w in mix[:n]]
                started = time.perf_counter()
                async with session.post(
                    urls[index % len(urls)], json={"query": QUERY, "variables": {"inputs": inputs}}
                ) as reply:
                    body = await reply.json()
                    assert reply.status == 200 and not body["data"]["walletPositions"]["errors"], body
                latencies[n].append(time.perf_counter() - started)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started, latencies


def report(
    requests: int, concurrency: int, elapsed: float, latencies: dict[int, list[float]], lines: list[dict]
) -> None:
    """Throughput, latency and RPC requests per query (from the access lines `lines`) of a run."""
    everything = sorted(t for values in latencies.values() for t in values)
    print(f"{requests} requests, concurrency {concurrency}, mix {MIX} inputs")
    print(f"throughput     {requests / elapsed:8.1f} requests/s")
    print(f"latency p50    {percentile(everything, 50) * 1000:8.1f} ms")
    print(f"latency p99    {percentile(everything, 99) * 1000:8.1f} ms")
    print("inputs  requests  p50 ms  p99 ms  rpc requests/query  rpc sub-calls/query")
    for n in MIX:
        found = [line for line in lines if line["inputs"] == n]
        print(
            f"{n:6d}  {len(latencies[n]):8d}  {percentile(sorted(latencies[n]), 50) * 1000:6.1f}  "
            f"{percentile(sorted(latencies[n]), 99) * 1000:6.1f}  "
            f"{statistics.mean(line['rpc_requests'] for line in found):18.2f}  "
            f"{statistics.mean(line['rpc_subcalls'] for line in found):19.2f}"
        )


def percentile(values: list[float], rank: float) -> float:
    return values[min(len(values) - 1, int(len(values) * rank / 100))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--tokens", type=int, default=8, help="token balances read per input")
    args = parser.parse_args()
    asyncio.run(run(args.requests, args.concurrency, args.tokens))


if __name__ == "__main__":
    main()
