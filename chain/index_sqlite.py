"""The event index's default store: one SQLite file per chain under the state directory, written
by this process alone (WAL, so `index status` and `export` read beside a running scan)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from chain.index_store import WALLET_STREAMS, Entries, Entry, Holding, Progress, Rows, thinned

SCHEMA = """
CREATE TABLE IF NOT EXISTS progress (stream TEXT PRIMARY KEY, start_block INTEGER NOT NULL,
    covered_to INTEGER NOT NULL, block_hash TEXT);
CREATE TABLE IF NOT EXISTS entries (stream TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
    value BLOB NOT NULL, block INTEGER NOT NULL, PRIMARY KEY (stream, kind, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS holdings (stream TEXT NOT NULL, holder TEXT NOT NULL, key TEXT NOT NULL,
    block INTEGER, PRIMARY KEY (stream, holder, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS checkpoints (stream TEXT NOT NULL, block INTEGER NOT NULL, hash TEXT NOT NULL,
    PRIMARY KEY (stream, block)) WITHOUT ROWID;
"""
HOLDING_BLOCK = "ALTER TABLE holdings ADD COLUMN block INTEGER"
"""Files written before holdings had their first block keep every row, with a null block: offered
at every block (a position is read at the block anyway, so an early one is a zero, not an error)."""
TABLES = ("progress", "entries", "holdings", "checkpoints")


class SqliteIndex:
    """One chain's SQLite file (`index-<chain>.sqlite`). Its calls are local and short, so they run
    on the event loop; entries are kept in memory until the stream's next write."""

    def __init__(self, path: Path, chain_id: int = 0) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.chain_id = chain_id
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)
        if "block" not in {column[1] for column in self._db.execute("PRAGMA table_info(holdings)")}:
            self._db.execute(HOLDING_BLOCK)
        self._entries: dict[str, Entries] = {}

    def close(self) -> None:
        self._db.close()

    async def progress(self, name: str, start_block: int) -> Progress:
        return self.progress_now(name, start_block)

    def progress_now(self, name: str, start_block: int) -> Progress:
        row = self._db.execute("SELECT start_block, covered_to, block_hash FROM progress WHERE stream = ?", (name,))
        found = row.fetchone()
        return Progress(*found) if found is not None and found[0] == start_block else Progress.none(start_block)

    async def snapshot(self, name: str, start_block: int, stale: bool = False) -> tuple[Progress, Entries]:
        return self.progress_now(name, start_block), self._stored(name)

    def _stored(self, name: str) -> Entries:
        if name not in self._entries:
            found: Entries = {}
            for kind, key, value, block in self._db.execute(
                "SELECT kind, key, value, block FROM entries WHERE stream = ?", (name,)
            ):
                found.setdefault(kind, {})[key] = Entry(kind, key, value, block)
            if name.startswith(WALLET_STREAMS):
                return found
            self._entries[name] = found
        return self._entries[name]

    async def keys(self, name: str, holders: list[str], block: int) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {holder: set() for holder in holders}
        query = "SELECT key FROM holdings WHERE stream = ? AND holder = ? AND (block IS NULL OR block <= ?)"
        for holder in holders:
            found[holder].update(key for (key,) in self._db.execute(query, (name, holder, block)))
        return found

    async def write(self, name: str, start_block: int, rows: Rows, after: Progress, to: int, block_hash: str) -> bool:
        entries = [(name, r.kind, r.key, r.value, r.block) for r in rows if isinstance(r, Entry)]
        holdings = [(name, r.holder, r.key, r.block) for r in rows if isinstance(r, Holding)]
        with self._transaction():
            if self.progress_now(name, start_block) != after:
                return False
            self._db.executemany("INSERT OR IGNORE INTO entries VALUES (?, ?, ?, ?, ?)", entries)
            self._db.executemany(
                "INSERT OR IGNORE INTO holdings (stream, holder, key, block) VALUES (?, ?, ?, ?)", holdings
            )
            self._db.execute("INSERT OR REPLACE INTO progress VALUES (?, ?, ?, ?)", (name, start_block, to, block_hash))
            self._db.execute("INSERT OR REPLACE INTO checkpoints VALUES (?, ?, ?)", (name, to, block_hash))
            blocks = [block for block, _ in self._checkpoints(name, start_block)]
            self._db.executemany(
                "DELETE FROM checkpoints WHERE stream = ? AND block = ?", [(name, block) for block in thinned(blocks)]
            )
        if entries:
            self._entries.pop(name, None)
        return True

    async def checkpoints(self, name: str, start_block: int) -> list[tuple[int, str]]:
        return self._checkpoints(name, start_block)

    def _checkpoints(self, name: str, start_block: int) -> list[tuple[int, str]]:
        """Its checkpoints, and in a file written before they were kept, the progress's own block and hash."""
        progress = self.progress_now(name, start_block)
        found: list[tuple[int, str]] = self._db.execute(
            "SELECT block, hash FROM checkpoints WHERE stream = ? AND block <= ? ORDER BY block DESC",
            (name, progress.covered_to),
        ).fetchall()
        if progress.block_hash is not None and (not found or found[0][0] != progress.covered_to):
            found.insert(0, (progress.covered_to, progress.block_hash))
        return found

    async def rewind(self, name: str, block: int, block_hash: str) -> bool:
        """Holdings of the earlier layout have no block, so their stream cannot be rewound."""
        if self._db.execute("SELECT 1 FROM holdings WHERE stream = ? AND block IS NULL LIMIT 1", (name,)).fetchone():
            return False
        with self._transaction():
            for table in TABLES[1:]:
                self._db.execute(f"DELETE FROM {table} WHERE stream = ? AND block > ?", (name, block))
            self._db.execute(
                "UPDATE progress SET covered_to = ?, block_hash = ? WHERE stream = ?", (block, block_hash, name)
            )
        self._entries.pop(name, None)
        return True

    async def drop(self, name: str) -> None:
        with self._transaction():
            for table in TABLES:
                self._db.execute(f"DELETE FROM {table} WHERE stream = ?", (name,))
        self._entries.pop(name, None)

    async def covered(self, prefix: str = "") -> list[tuple[str, int, int]]:
        query = "SELECT stream, start_block, covered_to FROM progress WHERE substr(stream, 1, ?) = ? ORDER BY stream"
        return self._db.execute(query, (len(prefix), prefix)).fetchall()

    async def status(self) -> list[tuple[str, int, int, int, int]]:
        holdings = "SELECT COUNT(*) FROM holdings WHERE stream = ?"
        return [
            (name, start, covered, await self.count(name), self._db.execute(holdings, (name,)).fetchone()[0])
            for name, start, covered in await self.covered()
        ]

    async def count(self, name: str) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM entries WHERE stream = ?", (name,)).fetchone()[0])

    async def claim(self, name: str) -> bool:
        return True

    async def export(self, target: Path) -> None:
        """SQLite's backup: consistent while scans write."""
        copy = sqlite3.connect(target)
        try:
            self._db.backup(copy)
        finally:
            copy.close()

    def _transaction(self) -> Any:
        db = self._db

        class Transaction:
            def __enter__(self) -> None:
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, kind: Any, *_: Any) -> None:
                db.execute("ROLLBACK" if kind else "COMMIT")

        return Transaction()


class SqliteStores:
    """One file per chain in `state_dir`, opened at first use."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self._files: dict[int, SqliteIndex] = {}

    def store(self, chain_id: int) -> SqliteIndex:
        if chain_id not in self._files:
            self._files[chain_id] = SqliteIndex(self.state_dir / f"index-{chain_id}.sqlite", chain_id)
        return self._files[chain_id]

    async def unreachable(self) -> str | None:
        return None

    async def close(self) -> None:
        files = list(self._files.values())
        self._files.clear()
        for index in files:
            index.close()
