"""Benchmark: what many watches cost on one chain, per block.

    .venv/bin/python bench/watches.py [--watches 10000] [--blocks 24] [--rtt 50] [--protocol morpho]

Run by hand (after ./scripts/test has installed the tools), never in CI. Every test world on one
anvil chain (tests/all_worlds.py), the service in this process behind the tests' RPC proxy (in a
thread of its own, holding each request `--rtt` ms), and `--watches` watches written to its store:
one on each demo wallet that borrows, the rest on distinct new addresses (a service's watches
are mostly of wallets that hold little where it looks), on `--protocol` (left out: every protocol
with borrows, as a watch naming none reads). Then `--blocks` blocks, one at a time, each mined
once the evaluator is done with the one before: for each, the (wallet, protocol) pairs read, the
RPC HTTP requests, the seconds from its mining to the end of its evaluation (the follower polls
every 0.1 s), and the CPU seconds the service's thread spent meanwhile (the proxy's thread left
out). It prints the figures per block and the blocks until every watch was read once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

from aiohttp.test_utils import TestClient, TestServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import server
from api.state import KEYS, WATCH_WORKERS, WATCHES
from config import Settings
from tests import all_worlds
from tests.evm import Anvil
from tests.rpc_proxy import RpcProxy, served
from watches import rules
from watches.store import Draft

BORROWERS = ("borrower", "borrower_b", "controller")
WAIT_SECONDS = 600


async def measure(
    worlds: all_worlds.AllWorlds, folder: Path, args: argparse.Namespace
) -> list[tuple[int, int, float, float]]:
    """(pairs read, RPC HTTP requests, seconds, CPU seconds) per block."""
    node, proxy = worlds.node, RpcProxy(worlds.node.url)
    proxy.delay = args.rtt / 1000
    with served(proxy) as url:
        app = server.create_app(
            Settings(
                keys_file=str(folder / "keys.env"),
                addresses_file=str(folder / "addresses.json"),
                state_dir=str(folder / "state"),
                head_poll_seconds=0.1,
            ),
            rpc_urls={node.chain_id: url},
        )
        async with TestClient(TestServer(app, host="127.0.0.1")):
            store, (evaluator, _) = app[WATCHES].store, app[WATCH_WORKERS]
            asked = rules.conditions({rules.HEALTH_FACTOR: {"below": 1.1}})
            owner = app[KEYS].active_names().pop()  # a watch no active key holds is not evaluated
            wallets = [worlds.wallets[role] for role in BORROWERS]
            wallets += ["0x" + secrets.token_hex(20) for _ in range(args.watches - len(wallets))]
            for wallet in wallets:
                draft = Draft(owner, wallet.lower(), node.chain_id, args.protocol, asked, None, True)
                await store.create(draft, args.watches, 0)
            evaluator.wake.set()
            found = []
            for _ in range(args.blocks):
                node.mine(1)
                mined, cpu, reads, pairs = time.monotonic(), time.thread_time(), proxy.reads(), evaluator.pairs
                while (
                    evaluator.chains.get(node.chain_id) is None
                    or evaluator.chains[node.chain_id].evaluated < node.block_number()
                ):
                    if time.monotonic() - mined > WAIT_SECONDS:
                        raise RuntimeError(f"block {node.block_number()} not evaluated in {WAIT_SECONDS} s")
                    await asyncio.sleep(0.01)
                took = time.monotonic() - mined, time.thread_time() - cpu
                found.append((evaluator.pairs - pairs, proxy.reads() - reads, *took))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watches", type=int, default=10_000)
    parser.add_argument("--blocks", type=int, default=24)
    parser.add_argument("--rtt", type=int, default=50, help="the proxy's round-trip time in ms")
    parser.add_argument("--protocol", default=None, help="the protocol each watch names (none: every one with borrows)")
    args = parser.parse_args()
    node = Anvil()
    try:
        folder = Path(tempfile.mkdtemp(prefix="watches-"))
        worlds, _ = all_worlds.prepare(node, folder, "watches")
        rows = asyncio.run(measure(worlds, folder, args))
    finally:
        node.stop()
    print(f"{args.watches} watches ({args.protocol or 'every protocol with borrows'}), RTT {args.rtt} ms\n")
    print(f"{'block':>5} {'pairs read':>10} {'RPC requests':>12} {'seconds':>8} {'CPU s':>6}")
    for index, (pairs, requests, seconds, cpu) in enumerate(rows, 1):
        print(f"{index:>5} {pairs:>10} {requests:>12} {seconds:>8.2f} {cpu:>6.2f}")
    later = rows[1:] or rows
    per_pair = sum(r[3] for r in later) / max(sum(r[0] for r in later), 1)
    print(
        f"\nfirst block (every pair read once): {rows[0][0]} pairs, {rows[0][1]} requests, {rows[0][2]:.1f} s; "
        f"then per block: median {statistics.median(r[0] for r in later):.0f} pairs, "
        f"{statistics.median(r[1] for r in later):.0f} requests, {statistics.median(r[2] for r in later):.2f} s, "
        f"at most {max(r[2] for r in later):.2f} s; CPU {per_pair * 1000:.2f} ms a pair"
    )
    print(json.dumps({"first": rows[0], "later": later}))


if __name__ == "__main__":
    main()
