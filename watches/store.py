"""Where watches, their positions' states and their events live: one SQLite file under the state
directory (`watches.sqlite`), beside the event index's. An event is written (the outbox) before it
is sent, in the same transaction as the state that made it, so a crash between the two sends it
after the restart, and never twice as two events."""

from __future__ import annotations

import base64
import contextlib
import json
import secrets
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from watches.rules import Conditions, Threshold

SCHEMA = """
CREATE TABLE IF NOT EXISTS watches (id TEXT PRIMARY KEY, owner TEXT NOT NULL, wallet TEXT NOT NULL,
    chain_id INTEGER NOT NULL, protocol TEXT, conditions TEXT NOT NULL, webhook_url TEXT,
    secret TEXT, stream INTEGER NOT NULL, created REAL NOT NULL);
CREATE INDEX IF NOT EXISTS watches_owner ON watches (owner);
CREATE TABLE IF NOT EXISTS states (watch_id TEXT NOT NULL, position TEXT NOT NULL,
    crossed INTEGER NOT NULL, PRIMARY KEY (watch_id, position)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS failing (watch_id TEXT PRIMARY KEY, reason TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
    watch_id TEXT NOT NULL, owner TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL,
    chain_id INTEGER NOT NULL, block INTEGER, block_hash TEXT, position TEXT, retracted INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL, webhook INTEGER NOT NULL, stream INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0, next_attempt REAL, delivered REAL, failed TEXT);
CREATE INDEX IF NOT EXISTS events_due ON events (next_attempt) WHERE delivered IS NULL AND failed IS NULL;
CREATE INDEX IF NOT EXISTS events_owner ON events (owner, seq);
CREATE INDEX IF NOT EXISTS events_block ON events (chain_id, block) WHERE block_hash IS NOT NULL AND retracted = 0;
"""


@dataclass(frozen=True)
class Watch:
    id: str
    owner: str
    """The name of the API key that made it (a rotated key keeps its watches)."""
    wallet: str
    chain_id: int
    protocol: str | None
    conditions: Conditions
    webhook_url: str | None
    secret: str | None
    stream: bool
    created: float


@dataclass(frozen=True)
class Event:
    seq: int
    id: str
    watch_id: str
    kind: str
    body: str
    created: float
    attempts: int


@dataclass(frozen=True)
class Recent:
    """An event a reorg may take back: the block it was computed at, and the position's state key
    it moved (None for a failure)."""

    id: str
    block: int
    block_hash: str
    position: str | None
    kind: str
    watch_id: str


def _conditions(text: str) -> Conditions:
    values = json.loads(text)
    return Conditions(*(Threshold(*value) if value else None for value in values))


def _watch(row: tuple[Any, ...]) -> Watch:
    id_, owner, wallet, chain_id, protocol, conditions, url, secret, stream, created = row
    return Watch(id_, owner, wallet, chain_id, protocol, _conditions(conditions), url, secret, bool(stream), created)


COLUMNS = "id, owner, wallet, chain_id, protocol, conditions, webhook_url, secret, stream, created"


class WatchStore:
    """The SQLite file; its calls are local and short, so they run on the event loop."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    def create(
        self,
        owner: str,
        wallet: str,
        chain_id: int,
        protocol: str | None,
        conditions: Conditions,
        webhook_url: str | None,
        stream: bool,
    ) -> Watch:
        """A new watch; its webhook secret (Standard Webhooks' `whsec_` form) where it has a URL."""
        secret = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode("ascii") if webhook_url else None
        stored = json.dumps([None if t is None else [t.below, t.recover_above] for _, t in _both(conditions)])
        watch = Watch(
            "w_" + secrets.token_hex(12),
            owner,
            wallet,
            chain_id,
            protocol,
            conditions,
            webhook_url,
            secret,
            stream,
            time.time(),
        )
        self._db.execute(
            f"INSERT INTO watches ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (watch.id, owner, wallet, chain_id, protocol, stored, webhook_url, secret, int(stream), watch.created),
        )
        return watch

    def owned(self, owner: str) -> list[Watch]:
        rows = self._db.execute(f"SELECT {COLUMNS} FROM watches WHERE owner = ? ORDER BY created, id", (owner,))
        return [_watch(row) for row in rows]

    def count(self, owner: str) -> tuple[int, int]:
        """(watches, distinct webhook URLs) the owner has."""
        row = self._db.execute(
            "SELECT count(*), count(DISTINCT webhook_url) FROM watches WHERE owner = ?", (owner,)
        ).fetchone()
        return int(row[0]), int(row[1])

    def delete(self, owner: str, watch_id: str) -> bool:
        """False where the owner has no such watch (another key's is not found either). Its events
        stay on the event stream; its webhook, whose URL and secret go with it, gets no more."""
        with self._transaction():
            gone = self._db.execute("DELETE FROM watches WHERE id = ? AND owner = ?", (watch_id, owner)).rowcount
            if gone:
                self._db.execute("DELETE FROM states WHERE watch_id = ?", (watch_id,))
                self._db.execute("DELETE FROM failing WHERE watch_id = ?", (watch_id,))
        return bool(gone)

    def on_chain(self, chain_id: int) -> list[Watch]:
        rows = self._db.execute(f"SELECT {COLUMNS} FROM watches WHERE chain_id = ?", (chain_id,))
        return [_watch(row) for row in rows]

    def total(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM watches").fetchone()[0])

    def chains(self) -> list[int]:
        return [row[0] for row in self._db.execute("SELECT DISTINCT chain_id FROM watches ORDER BY chain_id")]

    def states(self, watch_id: str) -> dict[str, bool]:
        rows = self._db.execute("SELECT position, crossed FROM states WHERE watch_id = ?", (watch_id,))
        return {position: bool(crossed) for position, crossed in rows}

    def failing(self, watch_id: str) -> str | None:
        row = self._db.execute("SELECT reason FROM failing WHERE watch_id = ?", (watch_id,)).fetchone()
        return None if row is None else str(row[0])

    def record(
        self,
        watch: Watch,
        states: dict[str, bool],
        failing: str | None,
        events: list[tuple[dict[str, Any], str | None]],
        retracts: tuple[str, ...] = (),
    ) -> list[str]:
        """A watch's new states and its events (each with the state key of the position it moved),
        and the events they retract, in one transaction (or nothing where the watch was deleted
        meanwhile); the new events' ids."""
        ids = []
        now = time.time()
        with self._transaction():
            if self._db.execute("SELECT 1 FROM watches WHERE id = ?", (watch.id,)).fetchone() is None:
                return []
            self._db.execute("DELETE FROM states WHERE watch_id = ?", (watch.id,))
            self._db.executemany(
                "INSERT INTO states VALUES (?, ?, ?)", [(watch.id, p, int(c)) for p, c in states.items()]
            )
            self._db.execute("DELETE FROM failing WHERE watch_id = ?", (watch.id,))
            if failing is not None:
                self._db.execute("INSERT INTO failing VALUES (?, ?)", (watch.id, failing))
            self._db.executemany("UPDATE events SET retracted = 1 WHERE id = ?", [(one,) for one in retracts])
            for body, position in events:
                event_id = "msg_" + secrets.token_hex(12)
                data = body["data"]
                data["eventId"] = event_id
                self._db.execute(
                    "INSERT INTO events (id, watch_id, owner, kind, body, chain_id, block, block_hash, position, "
                    "created, webhook, stream, next_attempt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        event_id,
                        watch.id,
                        watch.owner,
                        body["type"],
                        json.dumps(body),
                        watch.chain_id,
                        data.get("blockNumber"),
                        data.get("blockHash") if position is not None else None,  # a position's move: retractable
                        position,
                        now,
                        int(bool(watch.webhook_url)),
                        int(watch.stream),
                        now,
                    ),
                )
                ids.append(event_id)
        return ids

    def since(self, chain_id: int, block: int) -> list[Recent]:
        """The chain's events computed at a block after `block` and not retracted (what a reorg
        there may take back)."""
        rows = self._db.execute(
            "SELECT e.id, e.block, e.block_hash, e.position, e.kind, w.id FROM events e "
            "JOIN watches w ON w.id = e.watch_id WHERE e.chain_id = ? AND e.block > ? "
            "AND e.block_hash IS NOT NULL AND e.retracted = 0",
            (chain_id, block),
        )
        return [Recent(*row) for row in rows]

    def due(self, now: float, limit: int) -> list[tuple[Event, str, str]]:
        """The oldest due undelivered event of each webhook URL (its receivers are tried one event
        at a time, so one with a backlog holds back no other), each with its watch's URL and
        secret: a deleted watch's events are not posted (its URL and secret went with it)."""
        rows = self._db.execute(
            "SELECT e.seq, e.id, e.watch_id, e.kind, e.body, e.created, e.attempts, w.webhook_url, w.secret, "
            "min(e.seq) FROM events e JOIN watches w ON w.id = e.watch_id "  # SQLite: the row of the min
            "WHERE e.webhook = 1 AND e.delivered IS NULL AND e.failed IS NULL AND e.next_attempt <= ? "
            "GROUP BY w.webhook_url ORDER BY min(e.next_attempt) LIMIT ?",
            (now, limit),
        )
        return [(Event(*row[:7]), row[7], row[8]) for row in rows]

    def attempted(self, event_id: str, delivered: bool, next_attempt: float | None, failed: str | None) -> None:
        """One attempt's outcome: delivered, or the next attempt's time, or failed for good (why)."""
        self._db.execute(
            "UPDATE events SET attempts = attempts + 1, delivered = ?, next_attempt = ?, failed = ? WHERE id = ?",
            (time.time() if delivered else None, next_attempt, failed, event_id),
        )

    def after(self, owner: str, seq: int, limit: int) -> list[Event]:
        """The owner's stream events after `seq` (the stream's Last-Event-ID), oldest first."""
        rows = self._db.execute(
            "SELECT seq, id, watch_id, kind, body, created, attempts FROM events "
            "WHERE owner = ? AND stream = 1 AND seq > ? "
            "ORDER BY seq LIMIT ?",
            (owner, seq, limit),
        )
        return [Event(*row) for row in rows]

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")


def _both(conditions: Conditions) -> list[tuple[str, Threshold | None]]:
    return [("healthFactor", conditions.health_factor), ("dropToLiquidation", conditions.drop)]
