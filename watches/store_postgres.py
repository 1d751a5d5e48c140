"""The watches in the PostgreSQL database the replicas share for the event index (`INDEX_URL`),
through its pool (chain/index_postgres.py), so a database down is `IndexUnavailable` here too.

One replica at a time evaluates a chain's watches: the one holding the chain's advisory lock, as
one scans each index stream (a replica that dies frees it). Replicas write every change under
the watch's row lock and version, number events under one transaction lock (so they commit in
number order and a stream reading after a number misses none), and claim due events with
`SKIP LOCKED`, so each attempt is made by one replica. The tables are made by the service itself
(`watch_schema` holds the version)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from chain.index_postgres import Connection, PostgresStores, lock_key
from watches.store import Db, T, WatchStore

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE watches (id TEXT PRIMARY KEY, owner TEXT NOT NULL, wallet TEXT NOT NULL,
            chain_id BIGINT NOT NULL, protocol TEXT, conditions TEXT NOT NULL, webhook_url TEXT, secret TEXT,
            stream INTEGER NOT NULL, created DOUBLE PRECISION NOT NULL, failing TEXT,
            version BIGINT NOT NULL DEFAULT 0)""",
        "CREATE INDEX watches_owner ON watches (owner)",
        "CREATE INDEX watches_chain ON watches (chain_id)",
        """CREATE TABLE states (watch_id TEXT NOT NULL, position TEXT NOT NULL, crossed INTEGER NOT NULL,
            PRIMARY KEY (watch_id, position))""",
        """CREATE TABLE events (seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE, watch_id TEXT NOT NULL,
            owner TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL, chain_id BIGINT NOT NULL, block BIGINT,
            block_hash TEXT, position TEXT, retracted INTEGER NOT NULL DEFAULT 0,
            created DOUBLE PRECISION NOT NULL, webhook INTEGER NOT NULL, stream INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0, next_attempt DOUBLE PRECISION, delivered DOUBLE PRECISION,
            failed TEXT, leased_until DOUBLE PRECISION)""",
        "CREATE INDEX events_due ON events (next_attempt) WHERE delivered IS NULL AND failed IS NULL",
        "CREATE INDEX events_owner ON events (owner, seq)",
        "CREATE INDEX events_block ON events (chain_id, block) WHERE block_hash IS NOT NULL AND retracted = 0",
    ),
)
"""The schema's versions: MIGRATIONS[n] takes the database from version n to n + 1."""
MIGRATION_LOCK = 0x5750_4958_0000_0002
"""The advisory lock migrations run under (the index's is ...0001)."""
EVALUATION = "watch evaluation"
"""The name of a chain's evaluation lock (chain/index_postgres.py's `claim`)."""


class _Connection:
    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    async def fetch(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in await self._connection.fetch(sql, *args)]

    async def execute(self, sql: str, *args: Any) -> int:
        status = await self._connection.execute(sql, *args)
        return int(status.rsplit(" ", 1)[-1])  # "DELETE 1", "INSERT 0 1", "UPDATE 3"

    async def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            await self._connection.executemany(sql, rows)


class PostgresWatchStore(WatchStore):
    FOR_UPDATE = " FOR UPDATE"
    SKIP_LOCKED = " FOR UPDATE OF e SKIP LOCKED"

    def __init__(self, stores: PostgresStores) -> None:
        self._stores = stores
        self._migrated = False

    async def run(self, work: Callable[[Db], Awaitable[T]]) -> T:
        if not self._migrated:
            await self._stores.run(migrate)
            self._migrated = True

        async def transacted(connection: Connection) -> T:
            async with connection.transaction():
                return await work(_Connection(connection))

        return await self._stores.run(transacted)

    async def lock(self, db: Db, name: str) -> None:
        await db.fetch("SELECT pg_advisory_xact_lock($1)", lock_key(0, name))

    async def claim(self, chain_id: int) -> bool:
        return await self._stores.claim(chain_id, EVALUATION)

    async def close(self) -> None:
        """The pool is the event index's, closed with it."""


async def migrate(connection: Connection) -> None:
    """Bring the watches' tables to the newest version, under a lock, in one transaction."""
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        await connection.execute("CREATE TABLE IF NOT EXISTS watch_schema (version INTEGER NOT NULL)")
        version = await connection.fetchval("SELECT coalesce(max(version), 0) FROM watch_schema")
        for number in range(version, len(MIGRATIONS)):
            for statement in MIGRATIONS[number]:
                await connection.execute(statement)
            await connection.execute("INSERT INTO watch_schema VALUES ($1)", number + 1)
