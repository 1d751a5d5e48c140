"""Benchmark: Morpho queries as the chain grows to mainnet scale, figures printed.

    .venv/bin/python bench/morpho_scale.py [--markets 10000] [--vaults 1000] [--queries 40]

Run by hand (after ./scripts/test has installed the tools), never in CI. On anvil with the real
Morpho Blue and the Morpho test world, it measures 1- and 5-input queries of the demo wallets at
about 100 markets, then creates markets (random parameters) and announces vaults (random
addresses) until the chain has `--markets` and `--vaults`, builds the event index in the
background as the service does, and measures again. The server runs as an operator runs it
(`python server.py`, a process of its own); every RPC request goes through a loopback proxy
(tests/rpc_proxy.py, forwarding only) that records body sizes. Printed per world: latency p50,
RPC HTTP requests and sub-calls per query (from the access log), the largest request body, the
RSS of the server's processes (its validation worker included), and `/healthz` p99 while the
5-input queries run.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import eth_abi
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import auth
from bench import percentile
from config import Settings
from tests import morpho_world
from tests.evm import CHAIN_ID, GAS_PRICE, Anvil, selector
from tests.rpc_proxy import RpcProxy

QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on MorphoWalletPositions { blockNumber vaultV1Positions { shares assetsUsd apy }
    vaultV2Positions { shares assetsUsd apy } marketPositions { supplyAssets borrowAssets healthFactor } } }
  errors { error { code message } } } }"""
PARAMS = "(address,address,address,address,uint256)"
SEND_BATCH = 500
HEAD_POLL = 0.1
"""Seconds between the server's polls of the head: the bench waits three of them after mining."""
ANSWER_CACHE_MIB = Settings.answer_cache_bytes / 2**20
SERVER = Path(__file__).resolve().parents[1] / "server.py"


async def run(markets: int, vaults: int, queries: int) -> None:
    node = Anvil()
    try:
        world = morpho_world.build(node, morpho_world.compile_all())
        grow(world, 100, 0)
        proxy = RpcProxy(node.url)
        proxy_runner = web.AppRunner(proxy.app(), access_log=None)
        await proxy_runner.setup()
        await web.TCPSite(proxy_runner, "127.0.0.1", 0).start()
        proxy.url = f"http://127.0.0.1:{proxy_runner.addresses[0][1]}/"
        with tempfile.TemporaryDirectory() as folder:
            keys = Path(folder) / "keys.env"
            key = auth.create_key(keys, "bench")[0]
            path = world.write_addresses(Path(folder) / "addresses.json")
            settings = {
                "API_KEYS_FILE": str(keys),
                "RATE_LIMIT": str(10**9),
                "ADDRESSES_FILE": str(path),
                "STATE_DIR": str(Path(folder) / "state"),
                f"RPC_URL_{CHAIN_ID}": proxy.url,
                "PORT": "0",
                "METRICS_PORT": "0",
                "HEAD_POLL_SECONDS": str(HEAD_POLL),
            }
            demo = [world.wallets[name] for name in ("lender", "borrower", "depositor", "saver", "empty")]
            async with Served(settings) as served:
                print(f"world: {count(world, 'markets')} markets, {count(world, 'vaults')} vaults")
                await measure(served, node, key, demo, queries, proxy)
                started = time.perf_counter()
                grow(world, markets, vaults)
                print(f"\ncreated in {time.perf_counter() - started:.0f} s; the index scans them as they settle")
                await settle(served.url, key, demo[:1])
                print(f"world: {count(world, 'markets')} markets, {count(world, 'vaults')} vaults")
                await measure(served, node, key, demo, queries, proxy)
                await fill(served, key)
        await proxy_runner.cleanup()
    finally:
        node.stop()


class Served:
    """`python server.py` in a process of its own, as an operator runs it, so that its RSS (and
    its validation worker's) is the server's alone; its access lines are collected from stderr."""

    def __init__(self, settings: dict[str, str]) -> None:
        self.settings = settings
        self.access: list[dict] = []
        self.url = self.metrics = ""

    async def __aenter__(self) -> Served:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            str(SERVER),
            env={**os.environ, **self.settings},
            stderr=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
        )
        listening = asyncio.get_running_loop().create_future()
        self.reader = asyncio.create_task(self.read(listening))
        self.url = f"http://127.0.0.1:{await asyncio.wait_for(listening, 60)}"
        return self

    async def read(self, listening: asyncio.Future[int]) -> None:
        assert self.process.stderr is not None
        async for raw in self.process.stderr:
            line = json.loads(raw)
            if line["logger"] == "wallet_positions.access":
                self.access.append(line)
            elif "port" in line and not listening.done():
                listening.set_result(line["port"])
            elif "metrics_port" in line:
                self.metrics = f"http://127.0.0.1:{line['metrics_port']}/metrics"
            elif line["level"] in ("warning", "error"):
                print(f"server: {line['message']}")
        if not listening.done():
            listening.set_exception(RuntimeError("the server stopped before listening"))

    async def answer_cache_mib(self, session: aiohttp.ClientSession) -> float:
        """`wp_answer_cache_bytes` from the server's metrics."""
        async with session.get(self.metrics) as reply:
            text = await reply.text()
        return (
            float(next(line.split()[1] for line in text.splitlines() if line.startswith("wp_answer_cache_bytes")))
            / 2**20
        )

    def rss_mib(self) -> float:
        """The RSS of the server's process and its children (the validation worker)."""
        pids, total = [self.process.pid], 0
        while pids:
            pid = pids.pop()
            status = Path(f"/proc/{pid}/status").read_text()
            total += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
            for task in Path(f"/proc/{pid}/task").iterdir():
                pids += [int(child) for child in (task / "children").read_text().split()]
        return total / 1024

    async def __aexit__(self, *_: object) -> None:
        self.process.terminate()
        await self.process.wait()
        await self.reader


def count(world: morpho_world.MorphoWorld, what: str) -> int:
    topics = {
        "markets": "0xac4b2400f169220b0c0afdde7a0b32e775ba727ea1cb30b35f935cdaab8683ac",
        "vaults": "0xed8c95d05909b0f217f3e68171ef917df4b278d5addfe4dda888e90279be7d1d",
    }
    address = world.morpho if what == "markets" else world.factory
    return len(
        world.node.rpc(
            "eth_getLogs", {"address": address, "topics": [topics[what]], "fromBlock": "0x0", "toBlock": "latest"}
        )
    )


def grow(world: morpho_world.MorphoWorld, markets: int, vaults: int) -> None:
    """Create markets (random collateral and oracle addresses) and announce vaults (random
    addresses) until the chain has that many, sent in JSON-RPC batches of transactions."""
    rng = random.Random(count(world, "markets"))
    node = world.node
    create = "0x" + selector(f"createMarket({PARAMS})").hex()
    announce = "0x" + selector("announceV1(address,address,string,string)").hex()

    def address() -> str:
        return "0x" + rng.randbytes(20).hex()

    txs = [
        {
            "to": world.morpho,
            "data": create
            + eth_abi.encode([PARAMS], [(world.usdc, address(), address(), world.irm, morpho_world.LLTV_A)]).hex(),
        }
        for _ in range(max(0, markets - count(world, "markets")))
    ]
    txs += [
        {
            "to": world.factory,
            "data": announce
            + eth_abi.encode(["address", "address", "string", "string"], [address(), world.usdc, "v", "v"]).hex(),
        }
        for _ in range(max(0, vaults - count(world, "vaults")))
    ]
    sender = node.accounts[0]
    nonce = int(node.rpc("eth_getTransactionCount", sender, "pending"), 16)
    hashes = []
    for start in range(0, len(txs), SEND_BATCH):
        batch = [
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "eth_sendTransaction",
                "params": [
                    {
                        "from": sender,
                        "gas": hex(250_000),
                        "gasPrice": hex(GAS_PRICE),
                        "nonce": hex(nonce + start + i),
                        **tx,
                    }
                ],
            }
            for i, tx in enumerate(txs[start : start + SEND_BATCH])
        ]
        answers = node.rpc_batch(batch)
        if any("error" in answer for answer in answers):
            raise RuntimeError(f"anvil refused a transaction: {next(a for a in answers if 'error' in a)}")
        hashes += [answer["result"] for answer in answers]
    while hashes and node.rpc("eth_getTransactionReceipt", hashes[-1]) is None:
        node.rpc("evm_mine")
    receipts = [
        answer.get("result")
        for start in range(0, len(hashes), SEND_BATCH)
        for answer in node.rpc_batch(
            [
                {"jsonrpc": "2.0", "id": i, "method": "eth_getTransactionReceipt", "params": [h]}
                for i, h in enumerate(hashes[start : start + SEND_BATCH])
            ]
        )
    ]
    failed = [r for r in receipts if r is None or r["status"] != "0x1"]
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(receipts)} creation transactions failed or were not mined")
    node.mine(70)


async def settle(url: str, key: str, wallets: list[str]) -> None:
    """Ask until an answer comes (the first waits for the scan within its budget)."""
    async with aiohttp.ClientSession(headers={"x-api-key": key}) as session:
        while True:
            started = time.perf_counter()
            body = await post(session, url, wallets)
            if not body["data"]["walletPositions"]["errors"]:
                print(f"index ready; last query {time.perf_counter() - started:.1f} s")
                return


async def post(session: aiohttp.ClientSession, url: str, wallets: list[str]) -> dict:
    inputs = [{"protocol": "morpho", "chainId": CHAIN_ID, "walletAddress": w} for w in wallets]
    async with session.post(f"{url}/graphql", json={"query": QUERY, "variables": {"inputs": inputs}}) as reply:
        return await reply.json()


async def measure(served: Served, node: Anvil, key: str, demo: list[str], queries: int, proxy: RpcProxy) -> None:
    url = served.url
    proxy.body_sizes.clear()
    health: list[float] = []
    async with aiohttp.ClientSession(headers={"x-api-key": key}) as session:
        for inputs in (1, 5):
            served.access.clear()
            latencies, fresh = [], 0
            done = asyncio.Event()

            async def probe(done: asyncio.Event) -> None:
                while not done.is_set():
                    started = time.perf_counter()
                    async with session.get(f"{url}/healthz") as reply:
                        await reply.read()
                    health.append(time.perf_counter() - started)
                    await asyncio.sleep(0.01)

            prober = asyncio.create_task(probe(done)) if inputs == 5 else None
            for i in range(queries):
                node.mine()
                await asyncio.sleep(3 * HEAD_POLL)
                started = time.perf_counter()
                body = await post(session, url, demo[:inputs] if inputs == 5 else [demo[i % len(demo)]])
                assert not body["data"]["walletPositions"]["errors"], body
                fresh += body["data"]["walletPositions"]["data"][0]["blockNumber"] == node.block_number()
                latencies.append(time.perf_counter() - started)
            done.set()
            if prober:
                await prober
            lines = [f for f in served.access if f["inputs"] == inputs and f["path"] == "/graphql"]
            print(
                f"{inputs} input(s): p50 {percentile(sorted(latencies), 50) * 1000:7.1f} ms, "
                f"RPC requests/query {statistics.mean(f['rpc_requests'] for f in lines):5.1f}, "
                f"sub-calls/query {statistics.mean(f['rpc_subcalls'] for f in lines):7.1f}, "
                f"answered at the newest block {fresh}/{queries}"
            )
        print(
            f"largest RPC body {max(proxy.body_sizes) / 1024:.1f} KiB; "
            f"server RSS {served.rss_mib():.0f} MiB (with its worker, {await served.answer_cache_mib(session):.1f} "
            "MiB of answers kept); "
            f"/healthz p99 while 5-input queries run {percentile(sorted(health), 99) * 1000:.1f} ms"
        )


async def fill(served: Served, key: str) -> None:
    """Random wallets, 5 per query at the same block, until the answers kept reach their bound:
    the RSS the bound allows."""
    rng = random.Random(7)
    async with aiohttp.ClientSession(headers={"x-api-key": key}) as session:
        for queries in itertools.count(1):
            await post(session, served.url, ["0x" + rng.randbytes(20).hex() for _ in range(5)])
            if queries % 200 == 0 and await served.answer_cache_mib(session) > 0.95 * ANSWER_CACHE_MIB:
                break
        print(
            f"after {queries} queries of random wallets: server RSS {served.rss_mib():.0f} MiB "
            f"(with its worker, {await served.answer_cache_mib(session):.1f} MiB of answers kept)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markets", type=int, default=10_000)
    parser.add_argument("--vaults", type=int, default=1_000)
    parser.add_argument("--queries", type=int, default=40)
    args = parser.parse_args()
    asyncio.run(run(args.markets, args.vaults, args.queries))


if __name__ == "__main__":
    main()
