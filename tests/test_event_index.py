"""The persisted event index (chain/event_index.py) against a real anvil node: a cold scan that outlives
its first caller, settling without a `finalized` tag, a restart that does not rescan, a file of
another chain dropped, and a scan through an endpoint capped at 1,000 blocks per eth_getLogs; a
chain reset under the same id, an endpoint replaced under a running index, a node behind and a
reorg deeper than the stored part. Each runs on both stores: SQLite files and a PostgreSQL
database (`INDEX_URL`, a real server, tests/postgres_server.py)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import sqlite3

import pytest

from adapters import sweep
from chain import erc20, settle_depth
from chain.event_index import Stream
from chain.index_sqlite import SqliteIndex
from chain.index_store import Entry, Holding, Progress
from errors import PositionError, ProtocolError
from tests.conftest import covered_to
from tests.evm import CHAIN_ID, Anvil
from tests.test_chain import WALLET, deploy_token


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test of an index runs on both stores: SQLite files and a shared PostgreSQL database."""
    if "open_index" in metafunc.fixturenames:
        metafunc.parametrize("open_index", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture
def anvil(artifacts):
    """A chain of its own for each test, not the session's: these tests mine thousands of blocks,
    and anvil mines slower the longer its chain (700 blocks: 0.6 s on a new chain, 8 s on one of
    5,000; the session's chain had 12,000 by the end of this module)."""
    node = fresh_chain(artifacts)
    yield node
    node.stop()


def transfers(token: str, start: int) -> Stream:
    """A test stream: each Transfer of `token` is an entry, and its recipient a holder."""

    def rows(entry):
        return [
            Entry("transfer", f"{entry.block_number}:{entry.log_index}", entry.data, entry.block_number),
            Holding("0x" + entry.topics[2][-40:], entry.address, entry.block_number),
        ]

    return Stream(f"transfers {token}", (token,), (erc20.TRANSFER.topic,), start, rows)


def amounts(view) -> list[int]:
    return [int.from_bytes(entry.value, "big") for entry in view.of("transfer")]


def reader(chains, budget=30.0, block=None):
    return chains.request(asyncio.get_running_loop().time() + budget).reader(CHAIN_ID, block)


async def indexed(indexes, stream, budget=30.0, block=None):
    """The stream as a request with `budget` seconds left sees it, at `block` (default the newest)."""
    return await indexes.view(reader(indexes.chains, budget, block), stream)


@pytest.mark.full("mines thousands of blocks")
async def test_a_cold_scan_outlives_a_short_budget_and_keeps_its_progress(anvil, artifacts, open_index, proxy):
    token = deploy_token(anvil, artifacts)
    start = anvil.block_number()
    anvil.send(token, "mint(address,uint256)", WALLET, 1)
    anvil.mine(1500)
    anvil.send(token, "mint(address,uint256)", WALLET, 2)
    proxy.delay = 0.2
    indexes = await open_index({CHAIN_ID: proxy.url}, logs_block_range=8)
    stream = transfers(token, start)
    caller = asyncio.ensure_future(indexed(indexes, stream, 0.5))
    index = indexes.store(CHAIN_ID)
    for _ in range(300):  # the scan's first window stored (under load, opening the store alone may take a while)
        if await covered_to(index, stream) >= start:
            break
        await asyncio.sleep(0.1)
    caller.cancel()  # the caller gives up while the scan is under way
    await asyncio.gather(caller, return_exceptions=True)
    reached = await covered_to(index, stream)
    assert start <= reached < anvil.finalized_block(), "the scan had begun, and not ended"
    for _ in range(50):
        if await covered_to(index, stream) > reached:
            break
        await asyncio.sleep(0.1)
    assert await covered_to(index, stream) > reached, "the scan went on after its first caller gave up"
    view = await indexed(indexes, stream)
    assert amounts(view) == [1, 2] and await view.keys(WALLET) == {token}
    assert await covered_to(index, stream) == anvil.finalized_block(), "settled up to the finalized block"


async def test_without_a_finalized_tag_logs_settle_at_the_chains_depth(anvil, artifacts, open_index, proxy):
    token = deploy_token(anvil, artifacts)
    start = anvil.block_number()
    anvil.send(token, "mint(address,uint256)", WALLET, 1)
    anvil.mine(100)
    proxy.item_faults = {"eth_getBlockByNumber:finalized": (1.0, {"code": -32602, "message": "invalid block tag"})}
    indexes = await open_index({CHAIN_ID: proxy.url})
    stream, read = transfers(token, start), reader(indexes.chains)
    assert amounts(await indexes.view(read, stream)) == [1]
    await asyncio.sleep(0.5)
    covered = await covered_to(indexes.store(CHAIN_ID), stream)
    assert covered == await read.block_number() - settle_depth(CHAIN_ID)
    assert read.endpoint.has_finalized is False


async def test_a_restart_resumes_from_the_file_without_rescanning(
    anvil, artifacts, open_index, proxy, tmp_path, caplog
):
    token = deploy_token(anvil, artifacts)
    start = anvil.block_number()
    anvil.send(token, "mint(address,uint256)", WALLET, 7)
    anvil.mine(300)
    stream = transfers(token, start)
    first = await open_index({CHAIN_ID: proxy.url}, state_dir=str(tmp_path), logs_block_range=50)
    assert amounts(await indexed(first, stream)) == [7]
    await asyncio.sleep(0.5)
    covered = await covered_to(first.store(CHAIN_ID), stream)
    assert covered == anvil.finalized_block()
    await first.close()
    await first.chains.close()
    proxy.posts.clear()
    caplog.set_level(logging.INFO, "wallet_positions.index")
    caplog.clear()
    second = await open_index({CHAIN_ID: proxy.url}, state_dir=str(tmp_path), logs_block_range=50)
    view = await indexed(second, stream)
    assert amounts(view) == [7] and await view.keys(WALLET) == {token} and view.covered_to == covered
    scanned = [r.getMessage() for r in caplog.records if "blocks done" in r.getMessage()]
    assert scanned == [], "nothing to scan: the file covers the settled history"
    assert len(proxy.calls("eth_getLogs")) <= 2, "only the unsettled tail is read"


async def test_a_file_of_another_chain_is_dropped_and_scanned_again(anvil, artifacts, open_index, tmp_path):
    token = deploy_token(anvil, artifacts)
    start = anvil.block_number()
    anvil.send(token, "mint(address,uint256)", WALLET, 3)
    anvil.mine(100)
    stream = transfers(token, start)
    indexes = await open_index({CHAIN_ID: anvil.url}, state_dir=str(tmp_path))
    index = indexes.store(CHAIN_ID)
    covered = anvil.finalized_block()
    forged = [Entry("transfer", "forged", (99).to_bytes(32, "big"), covered)]
    after = await index.progress(stream.name, stream.start_block)
    assert await index.write(stream.name, stream.start_block, forged, after, covered, "0x" + "ab" * 32)
    assert amounts(await indexed(indexes, stream)) == [3], "the forged row went with its file"


async def test_a_past_block_sees_only_what_the_index_held_then(anvil, artifacts, open_index, tmp_path):
    """Stored rows of later blocks are not offered: entries by their block, holders by their first event."""
    token = deploy_token(anvil, artifacts)
    start = anvil.block_number()
    other = "0x" + "66" * 20
    anvil.send(token, "mint(address,uint256)", WALLET, 5)
    then = anvil.block_number()
    anvil.send(token, "mint(address,uint256)", other, 6)
    anvil.send(token, "mint(address,uint256)", WALLET, 8)
    anvil.mine(100)
    stream = transfers(token, start)
    indexes = await open_index({CHAIN_ID: anvil.url}, state_dir=str(tmp_path))
    newest = await indexed(indexes, stream)
    assert amounts(newest) == [5, 6, 8] and await newest.keys(other) == {token}
    await asyncio.sleep(0.5)
    assert await covered_to(indexes.store(CHAIN_ID), stream) > then
    past = await indexed(indexes, stream, block=then)
    assert amounts(past) == [5] and await past.keys(WALLET) == {token} and await past.keys(other) == set()


async def test_an_index_file_of_the_earlier_layout_keeps_its_holdings(tmp_path):
    """Holdings stored before they had a block are kept, and offered at every block."""
    path = tmp_path / "31337.sqlite"
    db = sqlite3.connect(path)
    db.executescript("""CREATE TABLE holdings (stream TEXT NOT NULL, holder TEXT NOT NULL, key TEXT NOT NULL,
                        PRIMARY KEY (stream, holder, key)) WITHOUT ROWID;
                        INSERT INTO holdings VALUES ('transfers', '0xaa', 'early');""")
    db.commit()
    db.close()
    index = SqliteIndex(path)
    try:
        assert await index.write("transfers", 0, [Holding("0xaa", "later", 50)], Progress.none(0), 60, "0x" + "00" * 32)
        assert await index.keys("transfers", ["0xaa"], 40) == {"0xaa": {"early"}}
        assert await index.keys("transfers", ["0xaa"], 50) == {"0xaa": {"early", "later"}}
    finally:
        index.close()


@pytest.mark.full("mines thousands of blocks")
async def test_a_scan_through_an_endpoint_capped_at_1000_blocks_completes(anvil, artifacts, open_index, proxy):
    token = deploy_token(anvil, artifacts)
    start = anvil.block_number()
    for amount in (1, 2, 3):
        anvil.send(token, "mint(address,uint256)", WALLET, amount)
        anvil.mine(700)
    proxy.max_log_range = 1_000
    indexes = await open_index({CHAIN_ID: proxy.url}, logs_block_range=10_000)
    stream = transfers(token, start)
    assert amounts(await indexed(indexes, stream, 60)) == [1, 2, 3]
    spans = [
        int(c["params"][0]["toBlock"], 16) - int(c["params"][0]["fromBlock"], 16) + 1
        for c in proxy.calls("eth_getLogs")
    ]
    assert max(spans) > 1_000, "wider queries were tried, refused by the cap, and narrowed"


def test_a_bulk_read_refuses_aggregate3_data_it_cannot_cut():
    good = sweep._word(32) + sweep._word(1) + sweep._word(32) + sweep._word(1) + sweep._word(64) + sweep._word(0)
    assert sweep._decode(good, 1) == [b""]
    for bad in (good[:-32], good[:40], sweep._word(32) + sweep._word(2) + good[64:], b"\xff" * 64):
        with pytest.raises(ProtocolError):
            sweep._decode(bad, 1)


@pytest.mark.full("mines thousands of blocks")
async def test_a_scan_goes_on_through_node_failures(anvil, artifacts, open_index, proxy, caplog):
    token = deploy_token(anvil, artifacts)
    start = anvil.block_number()
    anvil.send(token, "mint(address,uint256)", WALLET, 5)
    anvil.mine(400)
    proxy.item_faults = {"eth_getLogs": (1.0, {"code": -32000, "message": "header not found"})}
    proxy.fault_limit = 200
    indexes = await open_index({CHAIN_ID: proxy.url}, logs_block_range=8)
    stream = transfers(token, start)
    with contextlib.suppress(PositionError):
        await indexed(indexes, stream, 2)
    index = indexes.store(CHAIN_ID)
    for _ in range(300):
        if await covered_to(index, stream) == anvil.finalized_block():
            break
        await asyncio.sleep(0.1)
    assert any("failed" in r.getMessage() and "again in" in r.getMessage() for r in caplog.records)
    assert await covered_to(index, stream) == anvil.finalized_block(), "the scan outlived the failures"
    assert amounts(await indexed(indexes, stream)) == [5]


async def test_many_contracts_are_asked_a_few_addresses_at_a_time(anvil, artifacts, open_index, proxy, monkeypatch):
    from chain import event_index

    monkeypatch.setattr(event_index, "MAX_LOG_ADDRESSES", 2)
    tokens = [deploy_token(anvil, artifacts) for _ in range(3)]
    start = anvil.block_number()
    for amount, token in enumerate(tokens, 1):
        anvil.send(token, "mint(address,uint256)", WALLET, amount)
    stream = Stream("three tokens", tuple(tokens), (erc20.TRANSFER.topic,), start, transfers(tokens[0], start).rows)
    indexes = await open_index({CHAIN_ID: proxy.url})
    view = await indexed(indexes, stream)
    assert amounts(view) == [1, 2, 3] and await view.keys(WALLET) == set(tokens)
    assert max(len(c["params"][0]["address"]) for c in proxy.calls("eth_getLogs")) == 2


async def test_closed_indexes_open_again_when_used_again(anvil, artifacts, open_index, tmp_path):
    """An app stopped and started again (its cleanup closes the index and the chains) keeps working."""
    token = deploy_token(anvil, artifacts)
    start = anvil.block_number()
    anvil.send(token, "mint(address,uint256)", WALLET, 4)
    indexes = await open_index({CHAIN_ID: anvil.url}, state_dir=str(tmp_path))
    stream = transfers(token, start)
    assert amounts(await indexed(indexes, stream)) == [4]
    await indexes.close()
    await indexes.chains.close()
    assert amounts(await indexed(indexes, stream)) == [4]


def rewinds(indexes, stream, outcome: str) -> float:
    """How often the stream was rewound (or dropped) after a chain change, by the app's metric."""
    labels = {"chain_id": str(CHAIN_ID), "stream": stream.name, "outcome": outcome}
    return indexes.chains.metrics.registry.get_sample_value("wp_index_rewinds_total", labels) or 0


def minted(anvil, artifacts, amount: int, blocks: int) -> tuple[str, int, Stream]:
    """A new token, a mint of `amount` to WALLET and `blocks` blocks more: the token, the block
    before its mint, and its stream from there."""
    token = deploy_token(anvil, artifacts)
    start = anvil.block_number()
    anvil.send(token, "mint(address,uint256)", WALLET, amount)
    anvil.mine(blocks)
    return token, start, transfers(token, start)


def fresh_chain(artifacts) -> Anvil:
    """A chain of its own, short: a chain started again must mine up to where the first one's
    stream starts."""
    node = Anvil()
    node.install_multicall(artifacts["Multicall3"])
    return node


def restarted_chain(artifacts, token: str, start: int, amount: int) -> Anvil:
    """A new chain under the same id, as a devnet started again: `token` at the same address
    (its code placed there), one mint of `amount` after `start`, and 100 blocks more; its
    blocks' hashes are all its own."""
    node = fresh_chain(artifacts)
    node.rpc("anvil_setCode", token, artifacts["TestToken"].runtime)
    node.mine(start - node.block_number() + 1)
    node.send(token, "mint(address,uint256)", WALLET, amount)
    node.mine(100)
    return node


async def settled_index(indexes, stream, anvil) -> int:
    """Wait until the stream's stored part reaches the finalized block; it."""
    index = indexes.store(CHAIN_ID)
    for _ in range(100):
        if await covered_to(index, stream) == anvil.finalized_block():
            break
        await asyncio.sleep(0.05)
    return await covered_to(index, stream)


async def test_a_chain_reset_under_a_kept_state_directory_is_scanned_again(
    anvil, artifacts, open_index, proxy, tmp_path, caplog
):
    """A devnet started again under a kept state directory: its head is below the stored part and
    no stored block is on it, so the stream is dropped and scanned again; never a NETWORK_ERROR."""
    old = fresh_chain(artifacts)
    proxy.upstream = old.url
    token, start, stream = minted(old, artifacts, 4, 300)
    first = await open_index({CHAIN_ID: proxy.url}, state_dir=str(tmp_path))
    assert amounts(await indexed(first, stream)) == [4]
    covered = await settled_index(first, stream, old)
    await first.close()
    await first.chains.close()
    old.stop()
    node = restarted_chain(artifacts, token, start, 9)
    try:
        assert node.block_number() < covered, "the new chain is shorter than the stored part"
        proxy.upstream = node.url
        caplog.set_level(logging.INFO, "wallet_positions.index")
        second = await open_index({CHAIN_ID: proxy.url}, state_dir=str(tmp_path))
        view = await indexed(second, stream)
        assert amounts(view) == [9] and await view.keys(WALLET) == {token}
        assert any(
            "the node has no such block" in r.getMessage() and "scanning it again" in r.getMessage()
            for r in caplog.records
        )
        assert rewinds(second, stream, "dropped") == 1
        assert await settled_index(second, stream, node) == node.finalized_block()
    finally:
        proxy.upstream = anvil.url
        node.stop()


async def test_an_endpoint_replaced_under_a_running_index_is_followed(anvil, artifacts, open_index, proxy, tmp_path):
    """The same, with the server running: the head going back makes the next request check the
    stored part again."""
    old = fresh_chain(artifacts)
    proxy.upstream = old.url
    try:
        token, start, stream = minted(old, artifacts, 4, 300)
        indexes = await open_index({CHAIN_ID: proxy.url}, state_dir=str(tmp_path))
        assert amounts(await indexed(indexes, stream)) == [4]
        await settled_index(indexes, stream, old)
        node = restarted_chain(artifacts, token, start, 9)
        try:
            proxy.upstream = node.url
            assert amounts(await indexed(indexes, stream)) == [9]
            assert await settled_index(indexes, stream, node) == node.finalized_block()
        finally:
            node.stop()
    finally:
        proxy.upstream = anvil.url
        old.stop()


@pytest.mark.full("mines thousands of blocks")
async def test_a_node_behind_the_stored_part_is_answered_at_its_head(anvil, artifacts, open_index, proxy, tmp_path):
    """A node that lacks the newest stored blocks but agrees below them is behind, not another
    chain: nothing is dropped, its head is answered from the stored part as of that head."""
    token, _, stream = minted(anvil, artifacts, 1, 100)
    indexes = await open_index({CHAIN_ID: proxy.url}, state_dir=str(tmp_path))
    assert amounts(await indexed(indexes, stream)) == [1]
    early = await settled_index(indexes, stream, anvil)
    anvil.send(token, "mint(address,uint256)", WALLET, 2)
    later = anvil.block_number()
    anvil.mine(200)
    assert amounts(await indexed(indexes, stream)) == [1, 2]
    covered = await settled_index(indexes, stream, anvil)
    assert early < later < covered
    proxy.head = later - 1
    try:
        behind = await indexed(indexes, stream)
        assert behind.block == later - 1 and amounts(behind) == [1]
        assert await covered_to(indexes.store(CHAIN_ID), stream) == covered, "nothing dropped"
    finally:
        proxy.head = None
    assert amounts(await indexed(indexes, stream)) == [1, 2]
    assert rewinds(indexes, stream, "dropped") == 0


@pytest.mark.full("mines thousands of blocks")
async def test_a_reorg_deeper_than_the_stored_part_rewinds_to_where_the_chain_agrees(
    anvil, artifacts, open_index, tmp_path
):
    """The chain replaces blocks the index had stored (anvil's snapshot and revert): the stream
    is rewound to its newest checkpoint the chain still has, the abandoned block's rows go with
    it, and the new blocks are scanned; the rest is kept."""
    token, _, stream = minted(anvil, artifacts, 1, 100)
    indexes = await open_index({CHAIN_ID: anvil.url}, state_dir=str(tmp_path))
    assert amounts(await indexed(indexes, stream)) == [1]
    early = await settled_index(indexes, stream, anvil)
    fork = anvil.rpc("evm_snapshot")
    try:
        anvil.send(token, "mint(address,uint256)", WALLET, 2)
        anvil.mine(200)
        assert amounts(await indexed(indexes, stream)) == [1, 2]
        covered = await settled_index(indexes, stream, anvil)
    finally:
        anvil.rpc("evm_revert", fork)
    anvil.send(token, "mint(address,uint256)", WALLET, 3)
    anvil.mine(300)
    assert anvil.block_number() > covered, "the new branch is longer: only hashes tell"
    assert amounts(await indexed(indexes, stream)) == [1, 3]
    assert rewinds(indexes, stream, "rewound") == 1
    checkpoints = await indexes.store(CHAIN_ID).checkpoints(stream.name, stream.start_block)
    assert [block for block, _ in checkpoints][-1] == early
    assert await settled_index(indexes, stream, anvil) == anvil.finalized_block()


async def test_checkpoints_are_thinned_to_a_few_per_power_of_two(tmp_path):
    """However long a stream, its checkpoints stay few: the 32 newest, then one per power-of-two
    distance from the newest."""
    index = SqliteIndex(tmp_path / "index.sqlite")
    stream = transfers("0x" + "11" * 20, 0)
    for block in range(1, 5_001):
        after = await index.progress(stream.name, 0)
        assert await index.write(stream.name, 0, [], after, block * 10, "0x" + f"{block:064x}")
    blocks = [block for block, _ in await index.checkpoints(stream.name, 0)]
    assert blocks[:32] == [block * 10 for block in range(5_000, 4_968, -1)]
    assert len(blocks) <= 32 + (50_000).bit_length()
    assert blocks[-1] == 10, "the first is kept"
    old = blocks[32:]
    assert all(newer - older <= 2 * (blocks[0] - older) for newer, older in itertools.pairwise(old)), (
        "no gap wider than twice its distance from the newest"
    )
    index.close()
