"""`provenance` and `python server.py verify` (verify.py) on every test world: an honest answer of
every protocol, wallets and pools, replays to the same bytes and the same figures on the node; a
figure changed in the answer, a result changed in a recorded read, a read left out of it and a
block of another chain are each caught and named; the answer without `provenance` is the answer as it was."""

from __future__ import annotations

import asyncio
import copy
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

import server
from config import Settings
from tests.conftest import served_fixture
from tests.evm import ROOT, Anvil, as_child
from tests.test_devnet_restart import every_input
from tests.test_fault_schedules import positions_query
from tests.test_past_blocks import INPUTS, pool_inputs

worlds = served_fixture("verify")
ANSWERS = 100

MORE = [
    ("lido", "saver"),
    ("uniswap", "saver"),
    ("spark", "borrower"),
    ("sky", "saver"),
    ("ethena", "saver"),
    ("curve", "saver"),
    ("convex", "saver"),
    ("pancakeswap", "saver"),
]
WALLETS, PLAIN = "every field with provenance", "every field"
"""What `ask` selects of its inputs' answers (tests/test_fault_schedules.py's positions_query), or a
query of its own."""
POOLS = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) {
  data { protocol chainId poolAddress blockNumber blockHash blockTimestamp data
         provenance { method params result } }
  errors { protocol error { code message } } } }"""


async def ask(folder: Path, key: str, node: Anvil, query: str, inputs: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole GraphQL answer of a fresh app, as a client would save it."""
    return (await ask_many(folder, key, node, [(query, inputs)]))[0]


async def ask_many(
    folder: Path, key: str, node: Anvil, asked: list[tuple[str, list[dict[str, Any]]]]
) -> list[dict[str, Any]]:
    """The whole answer to each (query, inputs) in turn, of one long-running app (no inputs: a block
    mined): what it keeps from one request to the next (facts, answers, hints, what it learnt of
    the endpoint) shapes the next."""
    app = server.create_app(
        Settings(
            keys_file=str(folder / "keys.env"),
            addresses_file=str(folder / "addresses.json"),
            state_dir=str(folder / "state"),
            rate_limit=10**6,
            input_timeout=60.0,  # as tests/test_past_blocks.py's Service: anvil's old states on a loaded machine
        ),
        rpc_urls={node.chain_id: node.url},
    )
    answers = []
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        for query, inputs in asked:
            if not inputs:  # a block mined between two requests
                node.mine(1)
                continue
            text = {WALLETS: positions_query(inputs, skip=()), PLAIN: positions_query(inputs)}.get(query, query)
            body = {"query": text, "variables": {"inputs": inputs}}
            async with client.post("/graphql", json=body, headers={"x-api-key": key}) as response:
                assert response.status == 200
                answer: dict[str, Any] = await response.json()
            assert "errors" not in answer, answer
            answers.append(answer)
    return answers


def verify(folder: Path, answer: dict[str, Any], url: str, configured: bool = True) -> subprocess.CompletedProcess[str]:
    """`verify` run as a user runs it; `configured`: with the server's ADDRESSES_FILE."""
    path = folder / f"answer-{os.getpid()}.json"
    path.write_text(json.dumps(answer))
    env = {name: value for name, value in os.environ.items() if name != "ADDRESSES_FILE"}
    return subprocess.run(
        [sys.executable, str(ROOT / "server.py"), "verify", str(path), "--rpc", url],
        env={**env, "ADDRESSES_FILE": str(folder / "addresses.json")} if configured else env,
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=as_child,
    )


def wallet_inputs(built: Any) -> list[dict[str, Any]]:
    return [
        {"protocol": protocol, "chainId": built.node.chain_id, "walletAddress": built.wallets[role]}
        for protocol, role in [*INPUTS, *MORE]
    ]


def test_honest_answers_of_every_protocol_and_demo_wallet_verify(worlds):
    """100 consecutive answers of one long-running server, as users meet it, from its first (an
    empty event index): every input in turn, then mixes of up to five; some asked without
    provenance first, some again, a block mined now and then."""
    built, folder, key = worlds
    inputs = every_input(built, folder)
    assert len(inputs) >= 90, "15 protocols, 6 demo wallets"
    rng = random.Random(63)
    asked: list[tuple[str, list[dict[str, Any]]]] = []
    batches = [inputs[start : start + 5] for start in range(0, len(inputs), 5)]
    while len([query for query, _ in asked if query == WALLETS]) < ANSWERS:
        batch = batches.pop(0) if batches else rng.sample(inputs, rng.randint(1, 5))
        asked += [(PLAIN, batch)] * (rng.random() < 0.3) + [(WALLETS, batch)] * (1 + (rng.random() < 0.2))
        asked += [(WALLETS, [])] * (rng.random() < 0.15)
    answers = asyncio.run(ask_many(folder, key, built.node, asked))
    entries = []
    for (query, _), answer in zip([item for item in asked if item[1]], answers):
        assert answer["data"]["walletPositions"]["errors"] == []
        if query == WALLETS:
            entries += answer["data"]["walletPositions"]["data"]
    assert all(entry["provenance"] for entry in entries)
    derived = {price["kind"] for entry in entries for price in entry["usdPrices"]}
    assert {"FEED", "UNISWAP_V3_TWAP"} <= derived, "a pool's average is verified with the feeds"
    done = verify(folder, {"data": {"walletPositions": {"data": entries, "errors": []}}}, built.node.url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(entries)} entries" in done.stdout and done.stdout.rstrip().endswith("agree")
    pools = asyncio.run(ask(folder, key, built.node, POOLS, pool_inputs(built)))
    assert pools["data"]["poolDetails"]["errors"] == []
    done = verify(folder, pools, built.node.url)
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_answer_verifies_on_another_node_of_the_chain(worlds):
    """The same reads give the same bytes on a second node (an anvil that forks the first at its
    head and answers the blocks before from it), so the figures agree there too."""
    built, folder, key = worlds
    inputs = [item for item in wallet_inputs(built) if item["protocol"] in ("aave", "uniswap", "morpho")]
    answer = asyncio.run(ask(folder, key, built.node, WALLETS, inputs[:5]))
    second = Anvil(fork=built.node.url)
    try:
        done = verify(folder, answer, second.url)
    finally:
        second.stop()
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_changed_figure_a_changed_read_and_another_chain_are_caught(worlds):
    built, folder, key = worlds
    inputs = [item for item in wallet_inputs(built) if item["protocol"] in ("aave", "morpho")][:2]
    answer = asyncio.run(ask(folder, key, built.node, WALLETS, inputs))
    assert verify(folder, answer, built.node.url).returncode == 0

    bare = verify(folder, answer, built.node.url, configured=False)  # the devnet's contracts unknown to it
    assert bare.returncode == 2 and "Traceback" not in bare.stderr, bare.stdout + bare.stderr
    assert "set ADDRESSES_FILE" in bare.stdout and bare.stdout.rstrip().endswith("not verified")

    figure = copy.deepcopy(answer)
    entry = figure["data"]["walletPositions"]["data"][0]
    entry["blockTimestamp"] += 1
    done = verify(folder, figure, built.node.url)
    assert done.returncode == 1
    assert f"walletPositions.data[0].blockTimestamp: answered {entry['blockTimestamp']}" in done.stdout

    read = copy.deepcopy(answer)
    calls = [r for r in read["data"]["walletPositions"]["data"][1]["provenance"] if r["method"] == "eth_call"]
    calls[0]["result"] = json.dumps("0x" + "00" * 32)
    done = verify(folder, read, built.node.url)
    assert done.returncode == 1
    assert "walletPositions.data[1].provenance: eth_call" in done.stdout and "recorded" in done.stdout

    lacking = copy.deepcopy(answer)
    reads = lacking["data"]["walletPositions"]["data"][0]["provenance"]
    dropped = next(r for r in reads if r["method"] == "eth_call" and "lens" in json.loads(r["params"])[0])
    reads.remove(dropped)
    done = verify(folder, lacking, built.node.url)
    assert done.returncode == 1
    assert "walletPositions.data[0].provenance: lacks the call to 0x" in done.stdout, done.stdout

    other = Anvil()
    try:
        done = verify(folder, answer, other.url)
    finally:
        other.stop()
    assert done.returncode == 2 and "the node has no block" in done.stdout


def test_the_answer_without_provenance_is_unchanged(worlds):
    built, folder, key = worlds
    inputs = wallet_inputs(built)[:5]
    without = asyncio.run(ask(folder, key, built.node, PLAIN, inputs))
    with_it = asyncio.run(ask(folder, key, built.node, WALLETS, inputs))
    for entry in with_it["data"]["walletPositions"]["data"]:
        assert entry.pop("provenance")
    assert with_it == without
    small = "query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) { data { %s } } }"
    fields = "... on AaveWalletPositions { protocol blockHash supplyPositions { balance } %s }"
    skipped = small % (fields % "provenance @skip(if: true) { method }")
    assert asyncio.run(ask(folder, key, built.node, skipped, inputs[2:3])) == asyncio.run(
        ask(folder, key, built.node, small % (fields % ""), inputs[2:3])
    )


def test_verify_refuses_what_it_cannot_read(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    for args in (["verify", str(bad), "--rpc", "http://127.0.0.1:9"], ["verify", str(bad), "--rpc", "ftp://x"]):
        done = subprocess.run([sys.executable, str(ROOT / "server.py"), *args], capture_output=True, text=True)
        assert done.returncode == 2 and "cannot verify" in done.stderr
    entry = {"protocol": "aave", "chainId": 1, "walletAddress": "0x" + "11" * 20, "blockNumber": 1}
    entry |= {"blockHash": "0x" + "22" * 32, "blockTimestamp": 1, "provenance": []}
    for answer, said in (
        ({"data": {"walletPositions": {"data": [], "errors": []}}}, "0 entries"),
        ({"data": {"walletPositions": None}}, "0 entries"),
        ({"data": {"walletPositions": {"data": [{**entry, "chainId": None, "provenance": None}]}}}, "no provenance"),
        ({"data": {"walletPositions": {"data": [{k: v for k, v in entry.items() if k != "chainId"}]}}}, "KeyError"),
        ({"data": {"walletPositions": {"data": [entry]}}}, "the node did not answer"),
    ):
        bad.write_text(json.dumps(answer))
        done = subprocess.run(
            [sys.executable, str(ROOT / "server.py"), "verify", str(bad), "--rpc", "http://127.0.0.1:9"],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 2 and "Traceback" not in done.stderr and "127.0.0.1:9" not in done.stderr
        assert said in done.stdout, done.stdout


def test_a_series_with_provenance_verifies_point_by_point(worlds):
    """Each answered point of a `positionsHistory` series carries its own provenance when selected,
    and `verify` checks every point's answer as it checks any entry; a point's figure changed is
    caught and named by its path."""
    built, folder, key = worlds
    inputs = [item for item in wallet_inputs(built) if item["protocol"] in ("aave", "morpho")][:2]
    head = built.node.block_number()
    query = (
        "query($inputs: [PositionInput!]!) { positionsHistory(inputs: $inputs, "
        f"from: {{blockNumber: {head - 4}}}, to: {{blockNumber: {head}}}, points: 2) "
        "{ data { points { blockNumber positions { ... on MorphoWalletPositions { protocol chainId walletAddress "
        "blockNumber blockHash blockTimestamp warnings { code } provenance { method params result } } "
        "... on AaveWalletPositions { protocol chainId walletAddress blockNumber blockHash blockTimestamp "
        "warnings { code } provenance { method params result } } } } } errors { error { message } } } }"
    )
    answer = asyncio.run(ask(folder, key, built.node, query, inputs))
    series = answer["data"]["positionsHistory"]
    assert series["errors"] == [] and all(p["positions"]["provenance"] for e in series["data"] for p in e["points"])
    done = verify(folder, answer, built.node.url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 entries" in done.stdout
    changed = copy.deepcopy(answer)
    changed["data"]["positionsHistory"]["data"][1]["points"][0]["positions"]["blockTimestamp"] += 1
    done = verify(folder, changed, built.node.url)
    assert done.returncode == 1
    assert "positionsHistory.data[1].points[0].positions.blockTimestamp" in done.stdout


def test_a_portfolio_with_provenance_verifies_what_it_lists_and_every_empty_check(worlds):
    """A portfolio's entries carry their provenance as walletPositions' do, and its coverage the
    entries of the protocols it left out as empty: `verify` replays both, so an auditor proves
    that each protocol left out held nothing at the block; an empty check's figure changed is
    caught and named by its path."""
    built, folder, key = worlds
    entry = (
        "... on WalletEntry { protocol chainId walletAddress holder via blockNumber blockHash blockTimestamp "
        "allPositions { id label legs { role key amount usd } } totals { netUsd } warnings { code target message } "
        "provenance { method params result } }"
    )
    query = (
        f'query {{ portfolio(walletAddress: "{built.wallets["lender"]}") {{ data {{ {entry} }} '
        "errors { protocol error { code message } } "
        f"coverage {{ chainId complete empty emptyEntries {{ {entry} }} }} }} }}"
    )
    answer = asyncio.run(ask(folder, key, built.node, query, wallet_inputs(built)[:1]))  # inputs unused
    found = answer["data"]["portfolio"]
    (coverage,) = found["coverage"]
    assert found["errors"] == [] and coverage["complete"] and found["data"] and coverage["emptyEntries"]
    assert {e["protocol"] for e in coverage["emptyEntries"]} <= set(coverage["empty"])
    assert all(e["provenance"] and e["allPositions"] == [] for e in coverage["emptyEntries"])
    done = verify(folder, answer, built.node.url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(found['data']) + len(coverage['emptyEntries'])} entries" in done.stdout
    changed = copy.deepcopy(answer)
    changed["data"]["portfolio"]["coverage"][0]["emptyEntries"][0]["blockTimestamp"] += 1
    done = verify(folder, changed, built.node.url)
    assert done.returncode == 1
    assert "portfolio.coverage[0].emptyEntries[0].blockTimestamp" in done.stdout
