"""The event index in one PostgreSQL database that every replica shares (`INDEX_URL`).

One replica at a time scans a stream: the one holding the stream's advisory lock, taken on a
connection of its own, so the lock goes when that replica dies (or loses its connection) and
another takes the scan over at its next try (chain/event_index.py's CLAIM_SECONDS). Every
window is written in one transaction that first locks the stream's progress row and checks it
still stands where the writer read it: a writer that lost its lock unnoticed stores nothing, so
no window is stored twice and none is skipped. Every replica reads: a stream's progress and
entries are kept in memory and read again once REFRESH_SECONDS old (only the entries of the
blocks since, unless the stream was rewound: `epoch` counts rewinds); a caller that takes a
stale copy (a price route's lookup) has it read again in the background. The tables are made and
migrated by the service itself (`index_schema` holds the version). A database that cannot be
reached is `IndexUnavailable` (retryable); the pool is made again at the next use, no sooner
than RETRY_SECONDS after a failure, so a database down costs requests no waiting.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias, TypeVar

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from chain.index_sqlite import SCHEMA as SQLITE_SCHEMA
from chain.index_store import WALLET_STREAMS, Entries, Entry, Holding, Progress, Rows, thinned
from errors import IndexUnavailable

log = logging.getLogger("wallet_positions.index")

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE progress (chain BIGINT NOT NULL, stream TEXT NOT NULL, start_block BIGINT NOT NULL,
            covered_to BIGINT NOT NULL, block_hash TEXT, epoch BIGINT NOT NULL DEFAULT 0,
            PRIMARY KEY (chain, stream))""",
        """CREATE TABLE entries (chain BIGINT NOT NULL, stream TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
            value BYTEA NOT NULL, block BIGINT NOT NULL, PRIMARY KEY (chain, stream, kind, key))""",
        "CREATE INDEX entries_block ON entries (chain, stream, block)",
        """CREATE TABLE holdings (chain BIGINT NOT NULL, stream TEXT NOT NULL, holder TEXT NOT NULL, key TEXT NOT NULL,
            block BIGINT, PRIMARY KEY (chain, stream, holder, key))""",
        """CREATE TABLE checkpoints (chain BIGINT NOT NULL, stream TEXT NOT NULL, block BIGINT NOT NULL,
            hash TEXT NOT NULL, PRIMARY KEY (chain, stream, block))""",
    ),
)
"""The schema's versions: MIGRATIONS[n] takes a database from version n to n + 1."""
SCHEMA_VERSION = len(MIGRATIONS)
MIGRATION_LOCK = 0x5750_4958_0000_0001
"""The advisory lock migrations run under, so replicas starting together migrate once."""
REFRESH_SECONDS = 1.0
RETRY_SECONDS = 2.0
CONNECT_SECONDS = 5.0
QUERY_SECONDS = 30.0
TABLES = ("entries", "holdings", "checkpoints")
FAILURES = (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError)
"""What a database that is down, restarting or unreachable raises (never logged with its URL)."""
T = TypeVar("T")
Connection: TypeAlias = "PoolConnectionProxy[Any]"
"""A connection of the pool (every query but the advisory locks' goes through one)."""


@dataclass
class _Cached:
    progress: Progress
    entries: Entries
    epoch: int
    read_at: float


class PostgresStores:
    """The database of `url` (a pool of `pool_size` connections, made at first use)."""

    def __init__(self, url: str, pool_size: int) -> None:
        self._url = url
        self._pool_size = pool_size
        self._pool: asyncpg.Pool | None = None
        self._opening: asyncio.Task[asyncpg.Pool] | None = None
        self._failed_at = -RETRY_SECONDS
        self._locks: asyncpg.Connection[Any] | None = None
        self._held: set[int] = set()
        self._claiming = asyncio.Lock()
        """One question at a time on the locks' connection (a connection takes one at a time)."""
        self._stores: dict[int, PostgresIndex] = {}

    def store(self, chain_id: int) -> PostgresIndex:
        if chain_id not in self._stores:
            self._stores[chain_id] = PostgresIndex(self, chain_id)
        return self._stores[chain_id]

    async def pool(self) -> asyncpg.Pool:
        """The pool, made (and the schema migrated) at first use and again after a failure; for
        RETRY_SECONDS after a failure, IndexUnavailable at once (a database that does not answer
        would otherwise hold every request for CONNECT_SECONDS)."""
        if time.monotonic() - self._failed_at < RETRY_SECONDS:
            raise IndexUnavailable("the event index database cannot be reached")
        if self._pool is not None:
            return self._pool
        if self._opening is None:
            self._opening = asyncio.ensure_future(self._open())
        try:
            self._pool = await asyncio.shield(self._opening)
        except FAILURES as exc:
            self._failed_at = time.monotonic()
            log.warning("the event index database cannot be reached (%s)", type(exc).__name__)
            raise IndexUnavailable("the event index database cannot be reached") from None
        finally:
            self._opening = None
        return self._pool

    async def _open(self) -> asyncpg.Pool:
        pool: asyncpg.Pool = await asyncpg.create_pool(
            self._url,
            min_size=1,
            max_size=self._pool_size,
            timeout=CONNECT_SECONDS,
            command_timeout=QUERY_SECONDS,
        )
        try:
            async with pool.acquire() as connection:
                await migrate(connection)
        except BaseException:
            await pool.close()
            raise
        return pool

    async def run(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        """`work` on a pooled connection; a failure of the database is IndexUnavailable."""
        pool = await self.pool()
        try:
            async with pool.acquire(timeout=CONNECT_SECONDS) as connection:
                return await work(connection)
        except FAILURES as exc:
            self._failed_at = time.monotonic()
            log.warning("the event index database failed a query (%s)", type(exc).__name__)
            raise IndexUnavailable("the event index database cannot be reached") from None

    async def claim(self, chain_id: int, name: str) -> bool:
        """Whether this process holds the stream's advisory lock (taken now if free)."""
        async with self._claiming:
            return await self._claim(lock_key(chain_id, name))

    async def _claim(self, key: int) -> bool:
        try:
            if self._locks is None or self._locks.is_closed():
                self._held.clear()
                self._locks = await asyncpg.connect(self._url, timeout=CONNECT_SECONDS)
            if key in self._held:
                await self._locks.execute("SELECT 1", timeout=CONNECT_SECONDS)
                return True
            if await self._locks.fetchval("SELECT pg_try_advisory_lock($1)", key, timeout=CONNECT_SECONDS):
                self._held.add(key)
                return True
            return False
        except FAILURES as exc:
            log.warning("the event index database cannot lock a stream (%s)", type(exc).__name__)
            if self._locks is not None:
                self._locks.terminate()
            self._locks = None
            raise IndexUnavailable("the event index database cannot be reached") from None

    async def unreachable(self) -> str | None:
        try:
            await self.run(lambda connection: connection.execute("SELECT 1"))
        except IndexUnavailable as exc:
            return exc.message
        return None

    async def chains(self) -> list[int]:
        """The chains the database holds streams of."""
        rows = await self.run(lambda connection: connection.fetch("SELECT DISTINCT chain FROM progress ORDER BY chain"))
        return [chain for (chain,) in rows]

    async def close(self) -> None:
        for store in self._stores.values():
            store.cancel_refreshes()
        if self._locks is not None:
            self._locks.terminate()
        self._locks = None
        self._held.clear()
        if self._pool is not None:
            await self._pool.close()
        self._pool = None


def lock_key(chain_id: int, name: str) -> int:
    """A stream's advisory lock: a signed 64-bit digest of its chain and name."""
    return int.from_bytes(hashlib.sha256(f"{chain_id} {name}".encode()).digest()[:8], "big", signed=True)


async def migrate(connection: Connection) -> None:
    """Bring the schema to SCHEMA_VERSION, under a lock, in one transaction."""
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        await connection.execute("CREATE TABLE IF NOT EXISTS index_schema (version INTEGER NOT NULL)")
        version = await connection.fetchval("SELECT coalesce(max(version), 0) FROM index_schema")
        if version > SCHEMA_VERSION:
            raise asyncpg.InterfaceError(f"the index database's schema is version {version}, newer than this service's")
        for number in range(version, SCHEMA_VERSION):
            for statement in MIGRATIONS[number]:
                await connection.execute(statement)
            await connection.execute("INSERT INTO index_schema VALUES ($1)", number + 1)


class PostgresIndex:
    """One chain's streams in the shared database."""

    def __init__(self, stores: PostgresStores, chain_id: int) -> None:
        self.stores = stores
        self.chain_id = chain_id
        self._cached: dict[str, _Cached] = {}
        self._refreshing: dict[str, asyncio.Future[_Cached]] = {}

    async def _row(self, connection: Connection, name: str, start_block: int, lock: str = "") -> Any:
        row = await connection.fetchrow(
            "SELECT start_block, covered_to, block_hash, epoch FROM progress WHERE chain = $1 AND stream = $2" + lock,
            self.chain_id,
            name,
        )
        return row if row is not None and row["start_block"] == start_block else None

    async def progress(self, name: str, start_block: int) -> Progress:
        return (await self.snapshot(name, start_block))[0]

    async def snapshot(self, name: str, start_block: int, stale: bool = False) -> tuple[Progress, Entries]:
        cached = self._cached.get(name)
        if cached is not None and cached.progress.start_block == start_block:
            if time.monotonic() - cached.read_at < REFRESH_SECONDS:
                return cached.progress, cached.entries
            if stale:
                self._refresh(name, start_block)
                return cached.progress, cached.entries
        # A read of the same stream already under way in the background is joined, not made twice.
        same = cached is not None and cached.progress.start_block == start_block
        refreshing = self._refreshing.get(name) if same else None
        fresh = await (asyncio.shield(refreshing) if refreshing is not None else self._fresh(name, start_block))
        return fresh.progress, fresh.entries

    async def _fresh(self, name: str, start_block: int) -> _Cached:
        cached = self._cached.get(name)
        fresh = await self.stores.run(lambda connection: self._read(connection, name, start_block, cached))
        if not name.startswith(WALLET_STREAMS):
            self._cached[name] = fresh
        return fresh

    def _refresh(self, name: str, start_block: int) -> None:
        """Read a stream again in the background, once at a time: what a caller that takes a stale
        copy (a price route's lookup, which must not wait a database query: the reads it decides
        would miss their round) leaves behind. A failure keeps the copy; the next use tries again."""
        if name in self._refreshing:
            return
        task = asyncio.ensure_future(self._fresh(name, start_block))
        self._refreshing[name] = task
        task.add_done_callback(lambda done: self._refreshed(name, done))

    def _refreshed(self, name: str, done: asyncio.Future[_Cached]) -> None:
        self._refreshing.pop(name, None)
        if not done.cancelled():
            done.exception()  # IndexUnavailable, logged where it was raised

    def cancel_refreshes(self) -> None:
        for task in list(self._refreshing.values()):
            task.cancel()

    async def _read(self, connection: Connection, name: str, start_block: int, cached: _Cached | None) -> _Cached:
        """The progress, and the entries: those since the cached progress where it still holds."""
        async with connection.transaction(isolation="repeatable_read", readonly=True):
            row = await self._row(connection, name, start_block)
            progress = Progress(*tuple(row)[:3]) if row is not None else Progress.none(start_block)
            epoch = row["epoch"] if row is not None else -1
            known = (
                cached
                if cached is not None
                and (cached.epoch, cached.progress.start_block) == (epoch, start_block)
                and progress.covered_to >= cached.progress.covered_to
                else None
            )
            found = await connection.fetch(
                "SELECT kind, key, value, block FROM entries WHERE chain = $1 AND stream = $2 AND block > $3",
                self.chain_id,
                name,
                known.progress.covered_to if known else start_block - 1,
            )
        if known is not None and not found:
            return _Cached(progress, known.entries, epoch, time.monotonic())
        # Copied, not changed in place: views made from the older snapshot hold its dicts.
        entries: Entries = {kind: dict(keyed) for kind, keyed in known.entries.items()} if known else {}
        for kind, key, value, block in found:
            entries.setdefault(kind, {})[key] = Entry(kind, key, bytes(value), block)
        return _Cached(progress, entries, epoch, time.monotonic())

    async def keys(self, name: str, holders: list[str], block: int) -> dict[str, set[str]]:
        rows = await self.stores.run(
            lambda connection: connection.fetch(
                "SELECT holder, key FROM holdings WHERE chain = $1 AND stream = $2 AND holder = ANY($3::text[])"
                " AND (block IS NULL OR block <= $4)",
                self.chain_id,
                name,
                holders,
                block,
            )
        )
        found: dict[str, set[str]] = {holder: set() for holder in holders}
        for holder, key in rows:
            found[holder].add(key)
        return found

    async def write(self, name: str, start_block: int, rows: Rows, after: Progress, to: int, block_hash: str) -> bool:
        async def work(connection: Connection) -> bool:
            async with connection.transaction():
                await connection.execute(
                    "INSERT INTO progress VALUES ($1, $2, $3, $4, NULL, 0) ON CONFLICT DO NOTHING",
                    self.chain_id,
                    name,
                    start_block,
                    start_block - 1,
                )
                row = await connection.fetchrow(
                    "SELECT start_block, covered_to, block_hash FROM progress WHERE chain = $1 AND stream = $2"
                    " FOR UPDATE",
                    self.chain_id,
                    name,
                )
                assert row is not None, "inserted above"
                stands = Progress(*tuple(row)) if row["start_block"] == start_block else Progress.none(start_block)
                if stands != after:
                    return False
                await self._insert(connection, name, rows)
                await connection.execute(
                    "UPDATE progress SET start_block = $3, covered_to = $4, block_hash = $5"
                    " WHERE chain = $1 AND stream = $2",
                    self.chain_id,
                    name,
                    start_block,
                    to,
                    block_hash,
                )
                await connection.execute(
                    "INSERT INTO checkpoints VALUES ($1, $2, $3, $4) ON CONFLICT (chain, stream, block)"
                    " DO UPDATE SET hash = excluded.hash",
                    self.chain_id,
                    name,
                    to,
                    block_hash,
                )
                blocks = [block for block, _ in await self._checkpoints(connection, name, to)]
                await connection.execute(
                    "DELETE FROM checkpoints WHERE chain = $1 AND stream = $2 AND block = ANY($3::bigint[])",
                    self.chain_id,
                    name,
                    thinned(blocks),
                )
                return True

        try:
            return await self.stores.run(work)
        finally:
            self._cached.pop(name, None)  # written, or another wrote first: read it afresh either way

    async def _insert(self, connection: Connection, name: str, rows: Rows) -> None:
        chain = self.chain_id
        entries = [(chain, name, r.kind, r.key, r.value, r.block) for r in rows if isinstance(r, Entry)]
        holdings = [(chain, name, r.holder, r.key, r.block) for r in rows if isinstance(r, Holding)]
        if entries:
            await connection.executemany(
                "INSERT INTO entries VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING", entries
            )
        if holdings:
            await connection.executemany(
                "INSERT INTO holdings VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING", holdings
            )

    async def checkpoints(self, name: str, start_block: int) -> list[tuple[int, str]]:
        async def work(connection: Connection) -> list[tuple[int, str]]:
            row = await self._row(connection, name, start_block)
            return await self._checkpoints(connection, name, row["covered_to"]) if row is not None else []

        return await self.stores.run(work)

    async def _checkpoints(self, connection: Connection, name: str, covered_to: int) -> list[tuple[int, str]]:
        rows = await connection.fetch(
            "SELECT block, hash FROM checkpoints WHERE chain = $1 AND stream = $2 AND block <= $3 ORDER BY block DESC",
            self.chain_id,
            name,
            covered_to,
        )
        return [(block, hash_) for block, hash_ in rows]

    async def rewind(self, name: str, block: int, block_hash: str) -> bool:
        await self._forget(name, block, block_hash)
        return True

    async def drop(self, name: str) -> None:
        await self._forget(name, None, None)

    async def _forget(self, name: str, block: int | None, block_hash: str | None) -> None:
        """What the blocks after `block` stored (all where None), in one transaction; the progress
        row stays, its epoch counted up, so every replica reads the stream afresh."""

        async def work(connection: Connection) -> None:
            async with connection.transaction():
                row = await connection.fetchrow(
                    "SELECT start_block FROM progress WHERE chain = $1 AND stream = $2 FOR UPDATE", self.chain_id, name
                )
                if row is None:
                    return
                after = row["start_block"] - 1 if block is None else block
                for table in TABLES:
                    await connection.execute(
                        f"DELETE FROM {table} WHERE chain = $1 AND stream = $2 AND block > $3",
                        self.chain_id,
                        name,
                        after,
                    )
                await connection.execute(
                    "UPDATE progress SET covered_to = $3, block_hash = $4, epoch = epoch + 1"
                    " WHERE chain = $1 AND stream = $2",
                    self.chain_id,
                    name,
                    after,
                    block_hash,
                )

        await self.stores.run(work)
        self._cached.pop(name, None)

    async def covered(self, prefix: str = "") -> list[tuple[str, int, int]]:
        rows = await self.stores.run(
            lambda connection: connection.fetch(
                "SELECT stream, start_block, covered_to FROM progress WHERE chain = $1 AND starts_with(stream, $2)"
                " ORDER BY stream",
                self.chain_id,
                prefix,
            )
        )
        return [(name, start, covered) for name, start, covered in rows]

    async def status(self) -> list[tuple[str, int, int, int, int]]:
        rows = await self.stores.run(
            lambda connection: connection.fetch(
                "SELECT p.stream, p.start_block, p.covered_to,"
                " (SELECT COUNT(*) FROM entries e WHERE e.chain = p.chain AND e.stream = p.stream),"
                " (SELECT COUNT(*) FROM holdings h WHERE h.chain = p.chain AND h.stream = p.stream)"
                " FROM progress p WHERE p.chain = $1 ORDER BY p.stream",
                self.chain_id,
            )
        )
        return [tuple(row) for row in rows]

    async def count(self, name: str) -> int:
        query = "SELECT COUNT(*) FROM entries WHERE chain = $1 AND stream = $2"
        return int(await self.stores.run(lambda connection: connection.fetchval(query, self.chain_id, name)))

    async def claim(self, name: str) -> bool:
        return await self.stores.claim(self.chain_id, name)

    async def export(self, target: Path) -> None:
        """The chain's rows as one consistent read, written as an SQLite index file (`index import`
        installs it in either store)."""

        async def work(connection: Connection) -> dict[str, list[Any]]:
            async with connection.transaction(isolation="repeatable_read", readonly=True):
                columns = {
                    "progress": "stream, start_block, covered_to, block_hash",
                    "entries": "stream, kind, key, value, block",
                    "holdings": "stream, holder, key, block",
                    "checkpoints": "stream, block, hash",
                }
                return {
                    table: [
                        tuple(row)
                        for row in await connection.fetch(
                            f"SELECT {names} FROM {table} WHERE chain = $1", self.chain_id
                        )
                    ]
                    for table, names in columns.items()
                }

        tables = await self.stores.run(work)
        partial = target.with_name(target.name + ".partial")
        partial.unlink(missing_ok=True)
        copy = sqlite3.connect(partial)
        try:
            copy.executescript(SQLITE_SCHEMA)
            for table, rows in tables.items():
                if rows:
                    marks = ", ".join("?" * len(rows[0]))
                    copy.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
            copy.commit()
        finally:
            copy.close()
        partial.replace(target)

    async def install(self, source: Path) -> None:
        """An SQLite index file's streams in place of the chain's, in one transaction; every
        replica reads them afresh (each stream's epoch counts up)."""
        snapshot = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        try:
            tables = {
                table: snapshot.execute(f"SELECT * FROM {table}").fetchall()
                for table in ("progress", "entries", "holdings", "checkpoints")
            }
        finally:
            snapshot.close()

        async def work(connection: Connection) -> None:
            chain = self.chain_id
            async with connection.transaction():
                epoch = await connection.fetchval(
                    "SELECT coalesce(max(epoch), 0) + 1 FROM progress WHERE chain = $1", chain
                )
                for table in ("progress", *TABLES):
                    await connection.execute(f"DELETE FROM {table} WHERE chain = $1", chain)
                await connection.executemany(
                    "INSERT INTO progress VALUES ($1, $2, $3, $4, $5, $6)",
                    [(chain, *row, epoch) for row in tables["progress"]],
                )
                for table in TABLES:
                    if tables[table]:
                        marks = ", ".join(f"${n}" for n in range(1, len(tables[table][0]) + 2))
                        await connection.executemany(
                            f"INSERT INTO {table} VALUES ({marks})", [(chain, *row) for row in tables[table]]
                        )

        await self.stores.run(work)
        self._cached.clear()
