"""What the watches keep and how a store is asked (watches/evaluate.py, watches/webhooks.py and the
watch fields drive it): the watches, their positions' states and their events, the outbox. Two
stores keep them, with the same tables and the same statements: one SQLite file under the state
directory (store_sqlite.py, the default) and the PostgreSQL database replicas share for the event
index (store_postgres.py, `INDEX_URL`).

An event is written before it is sent, in the same transaction as the state that made it, and only
where that state is still the one the evaluator judged (the watch's `version`), so a crash between
writing and sending sends it after the restart, and two evaluators never write one change twice.
An event is sent by whoever claims it: the claim is a lease (LEASE_SECONDS) taken in the same
statement that finds it due, so one process sends each attempt, and one whose process died is
attempted again, with the same id, when its lease ends."""

from __future__ import annotations

import base64
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from watches.rules import Conditions, Threshold

LEASE_SECONDS = 60.0
"""How long a claimed event is another sender's to attempt: well above an attempt's own bound
(webhooks.TIMEOUT_SECONDS), so a live sender always records its outcome first."""
COLUMNS = "id, owner, wallet, chain_id, protocol, conditions, webhook_url, secret, stream, created"
EVENT_COLUMNS = "e.seq, e.id, e.watch_id, e.kind, e.body, e.created, e.attempts"
T = TypeVar("T")


@dataclass(frozen=True)
class Draft:
    """A watch as createWatch asks for it, before it has an id or a secret."""

    owner: str
    """The name of the API key that made it (a rotated key keeps its watches)."""
    wallet: str
    chain_id: int
    protocol: str | None
    conditions: Conditions
    webhook_url: str | None
    stream: bool


@dataclass(frozen=True)
class Watch(Draft):
    id: str
    secret: str | None
    created: float
    failing: str | None = None
    """Why its last reading failed, where it did (read with the watch, not kept in step with it)."""


@dataclass(frozen=True)
class Full:
    """Why a watch was not made: the owner already has `held` of `what` ("watches" or "webhooks")."""

    what: str
    held: int


@dataclass
class Kept:
    """A watch's positions' states (state key -> crossed), why it fails (None: it does not), and the
    version a change must still find to be written."""

    states: dict[str, bool] = field(default_factory=dict)
    failing: str | None = None
    version: int = 0


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


class Db(Protocol):
    """One connection inside one transaction, asked in PostgreSQL's `$n` placeholders."""

    async def fetch(self, sql: str, *args: Any) -> list[tuple[Any, ...]]: ...

    async def execute(self, sql: str, *args: Any) -> int:
        """The rows changed."""
        ...

    async def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None: ...


class WatchStore:
    """The statements both stores share; each store gives a transaction (`run`) and the lines its
    dialect writes differently."""

    FOR_UPDATE = ""
    """What locks a selected row until the transaction ends, where another process may write it."""
    SKIP_LOCKED = ""
    """What leaves rows another process is claiming to it."""

    async def run(self, work: Callable[[Db], Awaitable[T]]) -> T:
        """`work` in one transaction."""
        raise NotImplementedError

    async def claim(self, chain_id: int) -> bool:
        """Whether this process evaluates the chain's watches now (replicas: one at a time)."""
        raise NotImplementedError

    async def lock(self, db: Db, name: str) -> None:
        """`name` held until the transaction ends, where writers are many (one process's
        transactions already follow each other)."""

    async def close(self) -> None:
        raise NotImplementedError

    async def create(self, draft: Draft, per_key: int, webhooks_per_key: int) -> Watch | Full:
        """A new watch, with its webhook secret (Standard Webhooks' `whsec_` form) where it has a
        URL, unless the owner is at a cap (counted in the same transaction)."""

        async def work(db: Db) -> Watch | Full:
            await self.lock(db, f"watch owner {draft.owner}")
            [(held, hooks)] = await db.fetch(
                "SELECT count(*), count(DISTINCT webhook_url) FROM watches WHERE owner = $1", draft.owner
            )
            if held >= per_key:
                return Full("watches", held)
            url = draft.webhook_url
            known = "SELECT 1 FROM watches WHERE owner = $1 AND webhook_url = $2"
            if url is not None and hooks >= webhooks_per_key and not await db.fetch(known, draft.owner, url):
                return Full("webhooks", hooks)
            secret = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode("ascii") if url else None
            watch = Watch(**vars(draft), id="w_" + secrets.token_hex(12), secret=secret, created=time.time())
            stored = json.dumps([None if t is None else [t.below, t.recover_above] for _, t in _both(draft.conditions)])
            await db.execute(
                f"INSERT INTO watches ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                watch.id,
                watch.owner,
                watch.wallet,
                watch.chain_id,
                watch.protocol,
                stored,
                url,
                secret,
                int(watch.stream),
                watch.created,
            )
            return watch

        return await self.run(work)

    async def owned(self, owner: str) -> list[Watch]:
        rows = await self.run(
            lambda db: db.fetch(f"SELECT {COLUMNS}, failing FROM watches WHERE owner = $1 ORDER BY created, id", owner)
        )
        return [_watch(row) for row in rows]

    async def delete(self, owner: str, watch_id: str) -> bool:
        """False where the owner has no such watch (another key's is not found either). Its events
        stay on the event stream; its webhook, whose URL and secret go with it, gets no more."""

        async def work(db: Db) -> bool:
            gone = await db.execute("DELETE FROM watches WHERE id = $1 AND owner = $2", watch_id, owner)
            if gone:
                await db.execute("DELETE FROM states WHERE watch_id = $1", watch_id)
            return bool(gone)

        return await self.run(work)

    async def on_chain(self, chain_id: int) -> list[tuple[Watch, Kept]]:
        """The chain's watches, each with what its last reading left, read together."""

        async def work(db: Db) -> list[tuple[Watch, Kept]]:
            rows = await db.fetch(f"SELECT {COLUMNS}, failing, version FROM watches WHERE chain_id = $1", chain_id)
            kept = {row[0]: Kept(failing=row[-2], version=row[-1]) for row in rows}
            for watch_id, position, crossed in await db.fetch(
                "SELECT s.watch_id, s.position, s.crossed FROM states s JOIN watches w ON w.id = s.watch_id "
                "WHERE w.chain_id = $1",
                chain_id,
            ):
                kept[watch_id].states[position] = bool(crossed)
            return [(_watch(row[:-1]), kept[row[0]]) for row in rows]

        return await self.run(work)

    async def total(self) -> int:
        [(count,)] = await self.run(lambda db: db.fetch("SELECT count(*) FROM watches"))
        return int(count)

    async def chains(self) -> list[int]:
        rows = await self.run(lambda db: db.fetch("SELECT DISTINCT chain_id FROM watches ORDER BY chain_id"))
        return [int(chain_id) for (chain_id,) in rows]

    async def record(
        self,
        watch: Watch,
        kept: Kept,
        states: dict[str, bool],
        failing: str | None,
        events: list[tuple[dict[str, Any], str | None]],
        retracts: tuple[str, ...] = (),
    ) -> list[str] | None:
        """A watch's new states and its events (each with the state key of the position it moved),
        and the events they retract, in one transaction, where the watch still stands at `kept`'s
        version; the new events' ids, or None (nothing written) where it was deleted or changed
        meanwhile. `kept` then holds what was written."""
        now = time.time()

        async def work(db: Db) -> list[str] | None:
            found = await db.fetch("SELECT version FROM watches WHERE id = $1" + self.FOR_UPDATE, watch.id)
            if found != [(kept.version,)]:
                return None
            await db.execute("DELETE FROM states WHERE watch_id = $1", watch.id)
            await db.executemany(
                "INSERT INTO states VALUES ($1, $2, $3)", [(watch.id, p, int(c)) for p, c in states.items()]
            )
            await db.execute("UPDATE watches SET failing = $2, version = version + 1 WHERE id = $1", watch.id, failing)
            await db.executemany("UPDATE events SET retracted = 1 WHERE id = $1", [(one,) for one in retracts])
            if events:  # numbered in the order they commit, so a stream reading after a number misses none
                await self.lock(db, "watch events")
            ids = []
            for body, position in events:
                event_id = "msg_" + secrets.token_hex(12)
                data = body["data"]
                data["eventId"] = event_id
                await db.execute(
                    "INSERT INTO events (id, watch_id, owner, kind, body, chain_id, block, block_hash, position, "
                    "created, webhook, stream, next_attempt) "
                    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
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
                )
                ids.append(event_id)
            return ids

        ids = await self.run(work)
        if ids is not None:
            kept.states, kept.failing, kept.version = dict(states), failing, kept.version + 1
        return ids

    async def since(self, chain_id: int, block: int) -> list[Recent]:
        """The chain's events computed at a block after `block` and not retracted (what a reorg
        there may take back)."""
        rows = await self.run(
            lambda db: db.fetch(
                "SELECT e.id, e.block, e.block_hash, e.position, e.kind, w.id FROM events e "
                "JOIN watches w ON w.id = e.watch_id WHERE e.chain_id = $1 AND e.block > $2 "
                "AND e.block_hash IS NOT NULL AND e.retracted = 0",
                chain_id,
                block,
            )
        )
        return [Recent(*row) for row in rows]

    async def due(self, now: float, limit: int) -> list[tuple[Event, str, str]]:
        """Claimed for LEASE_SECONDS: the oldest due undelivered event of each webhook URL that has
        no attempt under way (a receiver is tried one event at a time, so one with a backlog holds
        back no other), each with its watch's URL and secret. A deleted watch's events are not
        posted (its URL and secret went with it)."""

        async def work(db: Db) -> list[tuple[Event, str, str]]:
            rows = await db.fetch(
                "WITH pending AS (SELECT e.seq, e.next_attempt, e.leased_until, w.webhook_url FROM events e "
                "JOIN watches w ON w.id = e.watch_id "
                "WHERE e.webhook = 1 AND e.delivered IS NULL AND e.failed IS NULL), "
                "busy AS (SELECT DISTINCT webhook_url FROM pending WHERE leased_until > $1), "
                "ranked AS (SELECT seq, row_number() OVER (PARTITION BY webhook_url ORDER BY seq) AS n FROM pending "
                "WHERE next_attempt <= $1 AND webhook_url NOT IN (SELECT webhook_url FROM busy)) "
                f"SELECT {EVENT_COLUMNS}, w.webhook_url, w.secret FROM events e JOIN watches w ON w.id = e.watch_id "
                "WHERE e.seq IN (SELECT seq FROM ranked WHERE n = 1) "
                "AND (e.leased_until IS NULL OR e.leased_until <= $1) "
                "ORDER BY e.next_attempt LIMIT $2" + self.SKIP_LOCKED,
                now,
                limit,
            )
            await db.executemany(
                "UPDATE events SET leased_until = $1 WHERE seq = $2", [(now + LEASE_SECONDS, row[0]) for row in rows]
            )
            return [(Event(*row[:7]), row[7], row[8]) for row in rows]

        return await self.run(work)

    async def attempted(self, event_id: str, delivered: bool, next_attempt: float | None, failed: str | None) -> None:
        """One attempt's outcome: delivered, or the next attempt's time, or failed for good (why);
        its lease ends."""
        await self.run(
            lambda db: db.execute(
                "UPDATE events SET attempts = attempts + 1, delivered = $1, next_attempt = $2, failed = $3, "
                "leased_until = NULL WHERE id = $4",
                time.time() if delivered else None,
                next_attempt,
                failed,
                event_id,
            )
        )

    async def release(self, event_ids: list[str]) -> None:
        """Leases given back unattempted (a sender stopping): the events are due again at once."""
        await self.run(
            lambda db: db.executemany("UPDATE events SET leased_until = NULL WHERE id = $1", [(i,) for i in event_ids])
        )

    async def after(self, owner: str, seq: int, limit: int) -> list[Event]:
        """The owner's stream events after `seq` (the stream's Last-Event-ID), oldest first."""
        rows = await self.run(
            lambda db: db.fetch(
                f"SELECT {EVENT_COLUMNS} FROM events e WHERE e.owner = $1 AND e.stream = 1 AND e.seq > $2 "
                "ORDER BY e.seq LIMIT $3",
                owner,
                seq,
                limit,
            )
        )
        return [Event(*row) for row in rows]


def _watch(row: tuple[Any, ...]) -> Watch:
    id_, owner, wallet, chain_id, protocol, conditions, url, secret, stream, created, failing = row
    values = json.loads(conditions)
    asked = Conditions(*(Threshold(*value) if value else None for value in values))
    draft = Draft(owner, wallet, chain_id, protocol, asked, url, bool(stream))
    return Watch(**vars(draft), id=id_, secret=secret, created=created, failing=failing)


def _both(conditions: Conditions) -> list[tuple[str, Threshold | None]]:
    return [("healthFactor", conditions.health_factor), ("dropToLiquidation", conditions.drop)]
