"""Benchmark: what `provenance` costs when it is selected, per input (bytes and time).

    .venv/bin/python bench/provenance.py [--runs 5]

Run by hand, never in CI. Every test world on one anvil chain (tests/all_worlds.py), the service
in this process. For each query of tests/test_verify.py's wallets, one at a time and warm (one run
first), it prints the answer's size and the p50 time without `provenance` and with it, and the
reads the provenance lists. With it, an input is read on its own and from the node (no fact the
server kept, no answer kept), so its time is that of a cold input.
"""

from __future__ import annotations

import argparse
import asyncio
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
from config import Settings
from tests import all_worlds
from tests.evm import Anvil
from tests.test_fault_schedules import positions_query
from tests.test_past_blocks import INPUTS
from tests.test_verify import MORE


async def main(runs: int) -> None:
    node = Anvil()
    try:
        with tempfile.TemporaryDirectory() as folder:
            worlds, key = all_worlds.prepare(node, Path(folder), "bench")
            app = server.create_app(
                Settings(
                    keys_file=f"{folder}/keys.env",
                    addresses_file=f"{folder}/addresses.json",
                    state_dir=f"{folder}/s",
                    rate_limit=100_000,
                ),
                rpc_urls={node.chain_id: node.url},
            )
            async with TestClient(TestServer(app, host="127.0.0.1")) as client:

                async def ask(text: str, item: dict[str, Any]) -> tuple[float, bytes]:
                    body = {"query": text, "variables": {"inputs": [item]}}
                    started = time.perf_counter()
                    async with client.post("/graphql", json=body, headers={"x-api-key": key}) as response:
                        raw = await response.read()
                    return time.perf_counter() - started, raw

                print(f"{'input':24} {'bytes':>8} {'with':>9} {'reads':>6} {'ms':>6} {'with ms':>8}")
                for protocol, role in [*INPUTS, *MORE]:
                    item = {"protocol": protocol, "chainId": node.chain_id, "walletAddress": worlds.wallets[role]}
                    figures = []
                    for text in (positions_query([item]), positions_query([item], skip=())):
                        await ask(text, item)
                        timed = [await ask(text, item) for _ in range(runs)]
                        figures.append((statistics.median(t for t, _ in timed) * 1000, len(timed[-1][1]), timed[-1][1]))
                    (plain_ms, plain_bytes, _), (with_ms, with_bytes, raw) = figures
                    entry = json.loads(raw)["data"]["walletPositions"]["data"][0]
                    print(
                        f"{protocol + ' ' + role:24} {plain_bytes:>8,} {with_bytes:>9,} "
                        f"{len(entry['provenance']):>6} {plain_ms:>6.1f} {with_ms:>8.1f}"
                    )
    finally:
        node.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    asyncio.run(main(parser.parse_args().runs))
