"""The event index shared through PostgreSQL (`INDEX_URL`, chain/index_postgres.py): a real
PostgreSQL server (tests/postgres_server.py) and a real anvil, several `Indexes` standing in for
replicas, each with its own chains and connections, as separate processes would have."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import asyncpg
import pytest

import server
from chain.event_index import CLAIM_SECONDS, Indexes, open_stores
from chain.index_postgres import SCHEMA_VERSION, PostgresStores, migrate
from chain.index_store import Progress
from config import Settings
from errors import IndexUnavailable
from tests.conftest import covered_to
from tests.evm import CHAIN_ID
from tests.test_chain import WALLET, deploy_token
from tests.test_event_index import amounts, indexed, reader, transfers

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
async def replicas(open_chains: Any, database: str) -> Any:
    """Make replicas: an `Indexes` on the test's database over its own Chains; closed after the test."""
    made: list[Indexes] = []

    async def make(url: str, **config: Any) -> Indexes:
        indexes = Indexes(open_stores(Path("unused"), database, 4), await open_chains({CHAIN_ID: url}, **config))
        made.append(indexes)
        return indexes

    yield make
    for indexes in made:
        await indexes.close()


async def test_a_stream_in_postgresql_reads_as_in_sqlite(anvil, artifacts, replicas, open_index):
    token = deploy_token(anvil, artifacts)
    start = anvil.block_number()
    for amount in (4, 5):
        anvil.send(token, "mint(address,uint256)", WALLET, amount)
    anvil.mine(100)
    stream = transfers(token, start)
    shared, files = await replicas(anvil.url), await open_index({CHAIN_ID: anvil.url})
    for indexes in (shared, files):
        view = await indexed(indexes, stream)
        assert amounts(view) == [4, 5] and await view.keys(WALLET) == {token}
    await asyncio.sleep(0.5)
    assert await covered_to(shared.store(CHAIN_ID), stream) == anvil.finalized_block()
    past = await indexed(shared, stream, block=start + 1)
    assert amounts(past) == [4] and await past.holding([WALLET, "0x" + "76" * 20]) == {
        WALLET.lower(): {token},
        "0x" + "76" * 20: set(),
    }


async def test_a_second_replica_reads_what_the_first_stored_without_scanning(
    anvil, artifacts, replicas, proxy, aiohttp_server
):
    token = deploy_token(anvil, artifacts)
    start = anvil.block_number()
    anvil.send(token, "mint(address,uint256)", WALLET, 7)
    anvil.mine(300)
    stream = transfers(token, start)
    first = await replicas(anvil.url, logs_block_range=50)
    assert amounts(await indexed(first, stream)) == [7]
    for _ in range(100):
        if await covered_to(first.store(CHAIN_ID), stream) == anvil.finalized_block():
            break
        await asyncio.sleep(0.05)
    second = await replicas(proxy.url, logs_block_range=50)
    view = await indexed(second, stream)
    assert amounts(view) == [7] and view.covered_to == anvil.finalized_block()
    ranges = [
        (int(call["params"][0]["fromBlock"], 16), call["params"][0]["toBlock"]) for call in proxy.calls("eth_getLogs")
    ]
    assert ranges and all(low > view.covered_to for low, _ in ranges), "only the unsettled tail is read"


async def test_one_replica_scans_and_another_takes_over_when_it_dies(anvil, artifacts, replicas, database, proxy):
    """The scanning replica dies mid-scan (its connections cut, its tasks gone): the other, which
    only watched, takes the scan over within seconds, and every log is stored once, none skipped."""
    token = deploy_token(anvil, artifacts)
    start = anvil.block_number()
    minted = []
    for amount in range(1, 41):
        anvil.send(token, "mint(address,uint256)", WALLET, amount)
        minted.append(anvil.block_number())
        anvil.mine(25)
    stream = transfers(token, start)
    proxy.delay = 0.3  # the first replica's windows are slow: it is mid-scan when it dies
    first, second = await replicas(proxy.url, logs_block_range=1), await replicas(anvil.url, logs_block_range=5)
    target = anvil.finalized_block()
    reader = first.chains.request(asyncio.get_running_loop().time() + 60).reader(CHAIN_ID)
    scanning = asyncio.ensure_future(first.build(reader, stream, lambda *_: None))
    store = first.store(CHAIN_ID)
    while await covered_to(store, stream) < start + 200:
        await asyncio.sleep(0.01)
    other = second.chains.request(asyncio.get_running_loop().time() + 60).reader(CHAIN_ID)
    watching = asyncio.ensure_future(second.build(other, stream, lambda *_: None))
    await asyncio.sleep(CLAIM_SECONDS / 2)
    assert not watching.done(), "the second replica waits: the first holds the stream"
    dead = first.stores
    assert isinstance(dead, PostgresStores)
    scanning.cancel()
    dead_pool = await dead.pool()
    dead_pool.terminate()
    assert dead._locks is not None
    dead._locks.terminate()
    async with asyncio.timeout(CLAIM_SECONDS * 10):
        await watching
    covered = await covered_to(second.store(CHAIN_ID), stream)
    assert covered >= target
    view = await indexed(second, stream)
    assert amounts(view) == list(range(1, 41)), "every log once, none skipped"
    check = await asyncpg.connect(database)
    try:
        query = "SELECT array_agg(block ORDER BY block) FROM entries WHERE stream = $1"
        assert await check.fetchval(query, stream.name) == [block for block in minted if block <= covered]
    finally:
        await check.close()


async def test_a_window_is_stored_once_whoever_writes_it(database):
    """Two writers that read the same progress: the first stores its window, the second nothing."""
    stores = [PostgresStores(database, 2), PostgresStores(database, 2)]
    try:
        first, second = (stores_.store(CHAIN_ID) for stores_ in stores)
        after = await first.progress("s", 10)
        assert after == Progress.none(10)
        assert await first.write("s", 10, [], after, 20, "0x" + "aa" * 32)
        assert not await second.write("s", 10, [], after, 30, "0x" + "bb" * 32)
        assert (await second.progress("s", 10)).covered_to == 20
    finally:
        for each in stores:
            await each.close()


async def test_the_schema_is_made_once_and_a_newer_one_refused(database):
    stores = PostgresStores(database, 2)
    try:
        await stores.pool()
    finally:
        await stores.close()
    connection = await asyncpg.connect(database)
    try:
        await migrate(connection)  # type: ignore[arg-type]
        assert await connection.fetchval("SELECT array_agg(version) FROM index_schema") == list(
            range(1, SCHEMA_VERSION + 1)
        )
        await connection.execute("INSERT INTO index_schema VALUES ($1)", SCHEMA_VERSION + 1)
    finally:
        await connection.close()
    newer = PostgresStores(database, 2)
    try:
        with pytest.raises(IndexUnavailable):
            await newer.pool()
    finally:
        await newer.close()


def minted_stream(anvil, artifacts, amount: int) -> tuple[str, int, Any]:
    """A token with one mint to WALLET, 100 blocks back: (token, start block, its stream)."""
    token = deploy_token(anvil, artifacts)
    start = anvil.block_number()
    anvil.send(token, "mint(address,uint256)", WALLET, amount)
    anvil.mine(100)
    return token, start, transfers(token, start)


async def test_a_database_down_answers_without_it_and_recovers(anvil, artifacts, postgres, replicas, caplog):
    token, _, stream = minted_stream(anvil, artifacts, 3)
    indexes = await replicas(anvil.url)
    assert amounts(await indexed(indexes, stream)) == [3]
    await asyncio.sleep(1.1)  # past the snapshot's refresh: the next view asks the database
    postgres.kill()
    try:
        view = await indexed(indexes, stream)
        assert view.complete is False and view.store is None and await view.keys(WALLET) == set()
        said = view.shortfall(CHAIN_ID, "market")
        assert "cannot be read now" in said and "reaches block" not in said, said
        assert not any(postgres.url in record.getMessage() for record in caplog.records)
    finally:
        postgres.start()
    await asyncio.sleep(2.1)  # a failed pool is made again no sooner than this
    view = await indexed(indexes, stream)
    assert view.complete and amounts(view) == [3] and await view.keys(WALLET) == {token}
    assert f"reaches block {view.covered_to} of {view.block}" in view.shortfall(CHAIN_ID, "market")


async def test_a_price_routes_lookup_takes_the_copy_in_memory_and_never_waits_the_database(
    anvil, artifacts, postgres, replicas
):
    """A route's lookup (`Indexes.known`) takes the stored part a replica keeps in memory however
    old, and has it read again in the background: with the database gone past the copy's refresh
    time it still finds what was stored, where a request of the stream's own protocol is told the
    index cannot be read now; once the database is back, the background read brings what was
    stored since."""
    token, _, stream = minted_stream(anvil, artifacts, 3)
    indexes = await replicas(anvil.url)
    assert amounts(await indexed(indexes, stream)) == [3]
    await asyncio.sleep(1.1)  # past the copy's refresh
    postgres.kill()
    try:
        known = await indexes.known(reader(indexes.chains), stream)
        assert known.store is not None and amounts(known) == [3]
        assert (await indexes.stored(reader(indexes.chains), stream)).store is None
    finally:
        postgres.start()
    await asyncio.sleep(2.1)  # a failed pool is made again no sooner than this
    anvil.send(token, "mint(address,uint256)", WALLET, 4)
    anvil.mine(100)
    await indexed(indexes, stream)  # the scan stores the new mint
    for _ in range(100):
        await asyncio.sleep(0.1)  # the copy's refresh, then its background read
        if amounts(await indexes.known(reader(indexes.chains), stream)) == [3, 4]:
            break
    assert amounts(await indexes.known(reader(indexes.chains), stream)) == [3, 4]


def test_a_malformed_index_url_stops_start_up_naming_the_setting(tmp_path):
    secret = "postgresql://user:hunter2@"
    done = subprocess.run(
        [sys.executable, str(ROOT / "server.py"), "--port", "0"],
        env={**os.environ, "INDEX_URL": secret, "API_KEYS_FILE": str(tmp_path / "keys.env")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "INDEX_URL" in done.stderr and "hunter2" not in done.stderr


async def test_the_index_commands_work_on_the_database(anvil, artifacts, replicas, database, tmp_path):
    """`index status`, `export` and `import` against INDEX_URL: a snapshot written from the database
    is an SQLite index file, and installed again it is what the database held."""
    _, start, stream = minted_stream(anvil, artifacts, 9)
    indexes = await replicas(anvil.url)
    await indexed(indexes, stream)
    await asyncio.sleep(0.5)
    covered = await covered_to(indexes.store(CHAIN_ID), stream)

    def command(*args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "INDEX_URL": database}
        argv = [sys.executable, str(ROOT / "server.py"), "index", *args]
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)

    status = command("status")
    assert status.returncode == 0 and f"{CHAIN_ID}  transfers  {start}  {covered}  1  1" in status.stdout
    snapshot = tmp_path / "snapshot.sqlite"
    assert command("export", "--chain", str(CHAIN_ID), str(snapshot)).returncode == 0
    with sqlite3.connect(snapshot) as copy:
        assert copy.execute("SELECT stream, covered_to FROM progress").fetchall() == [(stream.name, covered)]
    installed = command("import", "--chain", "1", str(snapshot))
    assert installed.returncode == 0, installed.stderr
    again = command("status").stdout
    assert f"1  transfers  {start}  {covered}  1  1" in again and json.dumps(database) not in again


async def test_readyz_says_whether_the_database_can_be_read(postgres, database, aiohttp_client, keys_file):
    app = server.create_app(Settings(keys_file=str(keys_file), index_url=database, head_poll_seconds=0))
    client = await aiohttp_client(app)
    assert (await client.get("/readyz")).status == 200
    postgres.kill()
    try:
        reply = await client.get("/readyz")
        body = await reply.json()
        assert reply.status == 503 and body["reason"] == "the event index database cannot be reached", body
    finally:
        postgres.start()
    for _ in range(50):
        if (await client.get("/readyz")).status == 200:
            break
        await asyncio.sleep(0.1)
    assert (await client.get("/readyz")).status == 200, "ready again by itself"


async def test_many_streams_scan_at_once_on_one_lock_connection(anvil, artifacts, replicas, caplog):
    """A replica scans its streams concurrently; their claims share one connection, one at a time."""
    made = [minted_stream(anvil, artifacts, amount) for amount in range(1, 6)]
    indexes = await replicas(anvil.url, logs_block_range=5)
    views = await asyncio.gather(*(indexed(indexes, stream) for _, _, stream in made))
    assert [amounts(view) for view in views] == [[amount] for amount in range(1, 6)]
    for _ in range(100):
        covered = [await covered_to(indexes.store(CHAIN_ID), stream) for _, _, stream in made]
        if min(covered) == anvil.finalized_block():
            break
        await asyncio.sleep(0.1)
    assert min(covered) == anvil.finalized_block()
    assert not [record for record in caplog.records if "cannot" in record.getMessage()]
