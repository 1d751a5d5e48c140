"""The watches in one SQLite file under the state directory (`watches.sqlite`), for one process:
its calls are local and short, so they run on the event loop, and a transaction, which never
waits inside, is never interleaved with another."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Awaitable, Callable
from functools import cache
from pathlib import Path
from typing import Any

from watches.store import Db, T, WatchStore

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE IF NOT EXISTS watches (id TEXT PRIMARY KEY, owner TEXT NOT NULL, wallet TEXT NOT NULL,
        chain_id INTEGER NOT NULL, protocol TEXT, conditions TEXT NOT NULL, webhook_url TEXT,
        secret TEXT, stream INTEGER NOT NULL, created REAL NOT NULL);
    CREATE INDEX IF NOT EXISTS watches_owner ON watches (owner);
    CREATE TABLE IF NOT EXISTS states (watch_id TEXT NOT NULL, position TEXT NOT NULL,
        crossed INTEGER NOT NULL, PRIMARY KEY (watch_id, position)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS failing (watch_id TEXT PRIMARY KEY, reason TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
        watch_id TEXT NOT NULL, owner TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL,
        chain_id INTEGER NOT NULL, block INTEGER, block_hash TEXT, position TEXT,
        retracted INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL, webhook INTEGER NOT NULL,
        stream INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt REAL, delivered REAL,
        failed TEXT);
    CREATE INDEX IF NOT EXISTS events_due ON events (next_attempt) WHERE delivered IS NULL AND failed IS NULL;
    CREATE INDEX IF NOT EXISTS events_owner ON events (owner, seq);
    CREATE INDEX IF NOT EXISTS events_block ON events (chain_id, block) WHERE block_hash IS NOT NULL AND retracted = 0;
    """,
    """
    ALTER TABLE watches ADD COLUMN failing TEXT;
    ALTER TABLE watches ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
    UPDATE watches SET failing = (SELECT reason FROM failing WHERE watch_id = watches.id);
    DROP TABLE failing;
    ALTER TABLE events ADD COLUMN leased_until REAL;
    CREATE INDEX watches_chain ON watches (chain_id);
    """,
)
"""The file's versions (`PRAGMA user_version`): MIGRATIONS[n] takes it from version n to n + 1.
The first is written so a file made before versions were counted takes it unchanged."""


@cache
def _sqlite(sql: str) -> str:
    """PostgreSQL's `$n` placeholders as SQLite's `?n`."""
    return re.sub(r"\$(\d+)", r"?\1", sql)


class _Connection:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    async def fetch(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        return self._db.execute(_sqlite(sql), args).fetchall()

    async def execute(self, sql: str, *args: Any) -> int:
        return self._db.execute(_sqlite(sql), args).rowcount

    async def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        self._db.executemany(_sqlite(sql), rows)


class SqliteWatchStore(WatchStore):
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        for number in range(version, len(MIGRATIONS)):
            try:
                self._db.executescript(f"BEGIN IMMEDIATE; {MIGRATIONS[number]}; PRAGMA user_version = {number + 1};")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        self._db.execute("UPDATE events SET leased_until = NULL WHERE leased_until IS NOT NULL")  # no other sender
        self._connection = _Connection(self._db)

    async def run(self, work: Callable[[Db], Awaitable[T]]) -> T:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            result = await work(self._connection)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")
        return result

    async def claim(self, chain_id: int) -> bool:
        return True

    async def close(self) -> None:
        self._db.close()
