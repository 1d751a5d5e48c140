"""A persisted index of contract events per chain: where to look for a wallet's positions.

A stream (contracts, event topics, a start block, and a function that turns a log into rows) is
scanned once from its start block into one SQLite file per chain under the state directory,
extended in the background as blocks settle, and resumed after a restart from where it stands.
Rows are of two kinds: catalog entries (a market and its parameters, a vault) and holdings (a
wallet that may hold something under a key). The index only says where to look: positions are
read on-chain at the request's block. Logs after the settled block are read by each request and
never stored, so a reorg leaves no trace; the stored part is tied to the chain by the hashes of
the blocks it reached (checkpoints: each scan step's last block, the recent ones all kept, older
ones thinned to one per power-of-two distance), checked when the stream is first used, after the
head went back (chain/head.py's `rewinds`) and by every scan step. Where the node's hash differs
(a reorg deeper than the stored part, a chain reset under the same id, another network), the
stream is rewound to the newest checkpoint the node agrees with and scanned again from there,
or from its start where none agrees; where the node lacks the stored blocks but agrees below
them, the node is behind: its head is answered from the stored part as of that head, and the
check is made again by the next request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections import ChainMap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chain.event_logs import Log
from chain.futures import no_read
from chain.reader import ChainReader, Chains
from errors import PositionError

log = logging.getLogger("wallet_positions.index")

TAIL_QUERIES = 20
"""eth_getLogs queries a request may spend on the blocks the index does not cover yet; beyond
that it waits for the background scan for half its budget, then answers from what is stored
(View.complete is False)."""
WINDOW_QUERIES = 50  # eth_getLogs queries per step of a scan, fewer when the address list makes them large
WINDOW_BYTES = 512 * 1024  # request bytes one step of a scan may send (its queries ride in one JSON-RPC batch)
WINDOW_BUDGET = 120.0  # seconds one step of a scan may take; a step that fails is tried again after a pause
MAX_LOG_ADDRESSES = 1_000  # contract addresses per eth_getLogs query; more are asked in several queries
PROGRESS_SECONDS = 5.0
RETRY_SECONDS = (1, 5, 30, 60)

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
RECENT_CHECKPOINTS = 32
"""Checkpoints kept as they are behind the newest; older ones are thinned to one per power-of-two
distance from it (about 60 in all however long the stream), so a rewind goes back at most about
twice as far as the chain changed."""
HOLDING_BLOCK = "ALTER TABLE holdings ADD COLUMN block INTEGER"
"""Files written before holdings had their first block keep every row, with a null block: offered
at every block (a position is read at the block anyway, so an early one is a zero, not an error)."""


@dataclass(frozen=True)
class Entry:
    kind: str
    key: str
    value: bytes
    block: int


@dataclass(frozen=True)
class Holding:
    holder: str
    key: str
    block: int
    """The block of the event that named it: the first such event is the one stored."""


Rows = list["Entry | Holding"]

WALLET_STREAMS = "wallet-"
"""Streams of one wallet or its positions (adapters/flows.py), as many as wallets asked: not held
in memory, no metric's label, and named by `label` without the wallet."""


def label(name: str) -> str:
    return "wallet logs" if name.startswith(WALLET_STREAMS) else name


@dataclass(frozen=True)
class Stream:
    """What to scan: `topics` (topic0 alternatives) of `addresses` from `start_block`, and of the
    contracts that entries of `followed_kinds` name (their keys are addresses) from their block.
    `filters`: whole topic filters instead, each asked on its own, logs merged (a wallet in any
    indexed position, every contract's; Uniswap's events of some token ids)."""

    name: str
    addresses: tuple[str, ...]
    topics: tuple[str, ...]
    start_block: int
    rows: Callable[[Log], Rows]
    followed_kinds: tuple[str, ...] = ()
    filters: tuple[tuple[str | tuple[str, ...] | None, ...], ...] = ()  # a topic, alternatives, or any

    @property
    def topic_filters(self) -> list[list[Any]]:  # each query's eth_getLogs `topics`
        found = [[list(topic) if isinstance(topic, tuple) else topic for topic in part] for part in self.filters]
        return found or [[list(self.topics)]]


@dataclass
class View:
    """A stream as of a request's block: its entries (stored, and new in the tail), and whose
    keys are whose. Nothing is copied: a chain's thousands of entries are shared by requests."""

    stored: dict[str, dict[str, Entry]]
    fresh: dict[str, dict[str, Entry]]
    covered_to: int
    index: ChainIndex
    stream: Stream
    tail: dict[str, set[str]]
    block: int
    """The request's block: stored rows of later blocks (a past `blockNumber`) are not offered."""
    complete: bool = True
    """False while the stored part is too far behind for the tail to be read (a cold index whose
    scan did not finish in half the request's budget): entries and keys are then only those up
    to `covered_to`, and an adapter checks the catalog itself (see adapters/morpho/positions.py's sweep)."""

    def kind(self, kind: str) -> Mapping[str, Entry]:
        """The entries of one kind by key, as of the block."""
        stored = self.stored.get(kind, {})
        if self.block < self.covered_to:
            stored = {key: entry for key, entry in stored.items() if entry.block <= self.block}
        return ChainMap(self.fresh.get(kind, {}), stored)

    def of(self, kind: str) -> list[Entry]:
        return sorted(self.kind(kind).values(), key=lambda entry: (entry.block, entry.key))

    def keys(self, holder: str) -> set[str]:
        """What `holder` may hold: keys its events name, stored or in the tail."""
        as_of = self.block if self.block < self.covered_to else None
        return self.index.keys(self.stream, holder, as_of) | self.tail.get(holder.lower(), set())


@dataclass
class _Progress:
    start_block: int
    covered_to: int
    block_hash: str | None


class ChainIndex:
    """One chain's SQLite file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)
        if "block" not in {column[1] for column in self._db.execute("PRAGMA table_info(holdings)")}:
            self._db.execute(HOLDING_BLOCK)
        self._entries: dict[str, dict[str, dict[str, Entry]]] = {}

    def close(self) -> None:
        self._db.close()

    def progress(self, stream: Stream) -> _Progress:
        row = self._db.execute(
            "SELECT start_block, covered_to, block_hash FROM progress WHERE stream = ?", (stream.name,)
        ).fetchone()
        if row is None or row[0] != stream.start_block:
            return _Progress(stream.start_block, stream.start_block - 1, None)
        return _Progress(*row)

    def entries(self, stream: Stream) -> dict[str, dict[str, Entry]]:
        """Every entry of the stream by kind and key (kept in memory until the next write; a wallet's not)."""
        if stream.name not in self._entries:
            found: dict[str, dict[str, Entry]] = {}
            for kind, key, value, block in self._db.execute(
                "SELECT kind, key, value, block FROM entries WHERE stream = ?", (stream.name,)
            ):
                found.setdefault(kind, {})[key] = Entry(kind, key, value, block)
            if stream.name.startswith(WALLET_STREAMS):
                return found
            self._entries[stream.name] = found
        return self._entries[stream.name]

    def keys(self, stream: Stream, holder: str, block: int | None = None) -> set[str]:
        """What `holder` may hold, by events up to `block` (None: all stored)."""
        query = "SELECT key FROM holdings WHERE stream = ? AND holder = ?"
        args: tuple[str | int, ...] = (stream.name, holder.lower())
        if block is not None:
            query, args = query + " AND (block IS NULL OR block <= ?)", (*args, block)
        return {key for (key,) in self._db.execute(query, args)}

    def write(self, stream: Stream, rows: Rows, covered_to: int, block_hash: str) -> None:
        """The rows of the blocks up to `covered_to`, the new progress and its checkpoint, in one
        transaction."""
        entries = [(stream.name, r.kind, r.key, r.value, r.block) for r in rows if isinstance(r, Entry)]
        holdings = [(stream.name, r.holder, r.key, r.block) for r in rows if isinstance(r, Holding)]
        with self._transaction():
            self._db.executemany("INSERT OR IGNORE INTO entries VALUES (?, ?, ?, ?, ?)", entries)
            self._db.executemany(
                "INSERT OR IGNORE INTO holdings (stream, holder, key, block) VALUES (?, ?, ?, ?)", holdings
            )
            self._db.execute(
                "INSERT OR REPLACE INTO progress VALUES (?, ?, ?, ?)",
                (stream.name, stream.start_block, covered_to, block_hash),
            )
            self._db.execute(
                "INSERT OR REPLACE INTO checkpoints VALUES (?, ?, ?)", (stream.name, covered_to, block_hash)
            )
            self._db.executemany(
                "DELETE FROM checkpoints WHERE stream = ? AND block = ?",
                [(stream.name, block) for block in _thinned([block for block, _ in self.checkpoints(stream)])],
            )
        if entries:
            self._entries.pop(stream.name, None)

    def checkpoints(self, stream: Stream) -> list[tuple[int, str]]:
        """(block, hash) the stored part is tied to, newest first: its checkpoints, and in a file
        written before they were kept, the progress's own block and hash."""
        progress = self.progress(stream)
        found: list[tuple[int, str]] = self._db.execute(
            "SELECT block, hash FROM checkpoints WHERE stream = ? AND block <= ? ORDER BY block DESC",
            (stream.name, progress.covered_to),
        ).fetchall()
        if progress.block_hash is not None and (not found or found[0][0] != progress.covered_to):
            found.insert(0, (progress.covered_to, progress.block_hash))
        return found

    def rewind(self, stream: Stream, block: int, block_hash: str) -> bool:
        """Forget what the blocks after `block` stored, in one transaction, leaving the stream
        covered to `block` (whose hash the node agrees with). False, and nothing changed, where
        that cannot be told: holdings of the earlier layout have no block."""
        name = stream.name
        if self._db.execute("SELECT 1 FROM holdings WHERE stream = ? AND block IS NULL LIMIT 1", (name,)).fetchone():
            return False
        with self._transaction():
            for table in ("entries", "holdings", "checkpoints"):
                self._db.execute(f"DELETE FROM {table} WHERE stream = ? AND block > ?", (name, block))
            self._db.execute(
                "UPDATE progress SET covered_to = ?, block_hash = ? WHERE stream = ?", (block, block_hash, name)
            )
        self._entries.pop(name, None)
        return True

    def covered(self) -> list[tuple[str, int, int]]:
        """(stream, start block, covered to) of every stream in the file."""
        return self._db.execute("SELECT stream, start_block, covered_to FROM progress ORDER BY stream").fetchall()

    def status(self) -> list[tuple[str, int, int, int, int]]:
        """(stream, start block, covered to, entries, holdings) of every stream in the file."""
        return [
            (
                name,
                start,
                covered,
                self.count(name),
                self._db.execute("SELECT COUNT(*) FROM holdings WHERE stream = ?", (name,)).fetchone()[0],
            )
            for name, start, covered in self.covered()
        ]

    def count(self, name: str) -> int:
        """Entries the stream stores (a wallet's are read whole: flows check this first)."""
        return int(self._db.execute("SELECT COUNT(*) FROM entries WHERE stream = ?", (name,)).fetchone()[0])

    def export(self, target: Path) -> None:
        """A consistent copy of the file, taken while scans may write (SQLite's backup)."""
        copy = sqlite3.connect(target)
        try:
            self._db.backup(copy)
        finally:
            copy.close()

    def drop(self, stream: Stream) -> None:
        with self._transaction():
            for table in ("progress", "entries", "holdings", "checkpoints"):
                self._db.execute(f"DELETE FROM {table} WHERE stream = ?", (stream.name,))
        self._entries.pop(stream.name, None)

    def _transaction(self) -> Any:
        db = self._db

        class Transaction:
            def __enter__(self) -> None:
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, kind: Any, *_: Any) -> None:
                db.execute("ROLLBACK" if kind else "COMMIT")

        return Transaction()


@dataclass
class Indexes:
    """The app's indexes: one file per chain, one background scan per chain and stream. It sits
    above the chains it reads (the app owns both, and closes it first), so the reader knows
    nothing of it."""

    state_dir: Path
    chains: Chains
    _files: dict[int, ChainIndex] = field(default_factory=dict)
    _scans: dict[tuple[int, str], asyncio.Task[None]] = field(default_factory=dict)
    _checked: dict[tuple[int, str], int] = field(default_factory=dict)
    """Streams whose stored part was found to be the chain's, with the follower's `rewinds` then."""

    def file(self, chain_id: int) -> ChainIndex:
        if chain_id not in self._files:
            self._files[chain_id] = ChainIndex(self.state_dir / f"index-{chain_id}.sqlite")
        return self._files[chain_id]

    def progress_rows(self) -> list[tuple[int, str, int]]:
        """(chain id, stream, covered to) of every stream of the files open in this process."""
        return [
            (chain_id, stream, covered)
            for chain_id, index in list(self._files.items())
            for stream, _, covered in index.covered()
            if not stream.startswith(WALLET_STREAMS)
        ]

    async def close(self) -> None:
        """Stop the scans (each window done is kept), then close the files; a later use (an app
        started again) opens them again."""
        scans, files = list(self._scans.values()), list(self._files.values())
        self._scans.clear()
        self._files.clear()
        self._checked.clear()
        for scan in scans:
            scan.cancel()
        await asyncio.gather(*scans, return_exceptions=True)
        for index in files:
            index.close()

    async def stored(self, reader: ChainReader, stream: Stream) -> View:
        """The stream's stored part as of the reader's block, with no round trip: what an adapter
        sends its one-call reads for while `view` reads the tail in the same round."""
        index = self.file(reader.chain_id)
        block = await reader.block_number()
        return View(index.entries(stream), {}, index.progress(stream).covered_to, index, stream, {}, block)

    async def view(self, reader: ChainReader, stream: Stream, again: bool = True) -> View:
        """The stream at the reader's block: the stored part, and the blocks after it read now
        (in the round that asks for the settled block, which moves the background scan on, and
        the hash of the block the stored part reaches: where the chain has another, the stored
        part is verified again and the view made anew). While the stored part is far behind (a
        cold start), the request waits for the scan for half its budget, then gets what is
        stored (`complete` False)."""
        index = self.file(reader.chain_id)
        block = await reader.block_number()
        await self._verify(reader, stream)
        progress = index.progress(stream)
        if self._behind(reader, block, progress.covered_to):
            self._advance(reader.chain_id, stream, await reader.settled_block())
            scan = self._scans.get((reader.chain_id, stream.name))
            if scan is not None and not scan.done():
                wait = (reader.deadline - asyncio.get_running_loop().time()) / 2
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(scan), max(wait, 0))
                progress = index.progress(stream)
                if self._behind(reader, block, progress.covered_to):
                    return View(
                        index.entries(stream), {}, progress.covered_to, index, stream, {}, block, complete=False
                    )
        stored = index.entries(stream)
        linked = progress.block_hash is not None and progress.covered_to <= block
        rows, settled, link = await asyncio.gather(
            scan_rows(reader, stream, stored, progress.covered_to + 1, block),
            reader.settled_block(),
            reader.block_hash(progress.covered_to) if linked else no_read(),
        )
        if linked and link != progress.block_hash and again:
            self._checked.pop((reader.chain_id, stream.name), None)
            await self._verify(reader, stream)
            return await self.view(reader, stream, again=False)
        self._advance(reader.chain_id, stream, settled)
        fresh: dict[str, dict[str, Entry]] = {}
        tail: dict[str, set[str]] = {}
        for row in rows:
            if isinstance(row, Entry):
                fresh.setdefault(row.kind, {}).setdefault(row.key, row)
            else:
                tail.setdefault(row.holder, set()).add(row.key)
        return View(stored, fresh, progress.covered_to, index, stream, tail, block)

    @staticmethod
    def _behind(reader: ChainReader, block: int, covered_to: int) -> bool:
        return (block - covered_to) // reader.endpoint.logs_block_range > TAIL_QUERIES

    async def _verify(self, reader: ChainReader, stream: Stream) -> None:
        """That the stored part is this chain's: once per process and stream, again after the head
        went back, and while the node is behind it. The hash of its newest checkpoint the node has
        is compared (one header, riding with the next round); where it differs, the older ones
        (one round more) find where the node's chain and the stored part agree, and the stream is
        rewound there, or dropped where they agree nowhere."""
        chain_id = reader.chain_id
        key = (chain_id, stream.name)
        rewinds = self.chains.follower(chain_id).rewinds
        if self._checked.get(key) == rewinds:
            return
        index = self.file(chain_id)
        covered = index.progress(stream).covered_to
        reader = reader.newest()
        head = await reader.block_number()
        checkpoints = index.checkpoints(stream)
        points = [(block, known) for block, known in checkpoints if block <= head]
        agreed = None
        if points and await reader.block_hash(points[0][0]) == points[0][1]:
            agreed = points[0]
        elif len(points) > 1:
            found = await asyncio.gather(*(reader.block_hash(block) for block, _ in points[1:]))
            agreed = next(((block, known) for (block, known), hash_ in zip(points[1:], found) if hash_ == known), None)
        if agreed is not None and agreed == points[0] and covered > head:
            log.info(
                "chain %d: the node's head %d is behind the index of %s (block %d), which agrees with it below;"
                " answered as of the node's head",
                chain_id,
                head,
                label(stream.name),
                covered,
            )
            return
        if not checkpoints or (agreed is not None and agreed[0] == covered):
            self._checked[key] = rewinds
            return
        rewound = agreed is not None and index.rewind(stream, *agreed)
        if not rewound:
            index.drop(stream)
        log.warning(
            "index of %s on chain %d does not match the chain at block %d (%s): %s",
            label(stream.name),
            chain_id,
            covered,
            "the node has no such block" if covered > head else "another hash",
            f"rewound to block {agreed[0]}, the newest it agrees with" if agreed and rewound else "scanning it again",
        )
        self.chains.metrics.index_rewinds.labels(
            str(chain_id), label(stream.name), "rewound" if rewound else "dropped"
        ).inc()
        self._checked[key] = rewinds

    async def build(self, reader: ChainReader, stream: Stream, report: Callable[[int, int, int], None]) -> int:
        """Scan the stream up to the settled block now (`index build`); `report(first, done_to,
        target)` after every window. Returns the block it reaches."""
        await self._verify(reader, stream)
        target = await reader.settled_block()
        await self._scan(reader.chain_id, stream, target, report)
        return target

    def _advance(self, chain_id: int, stream: Stream, target: int) -> None:
        """Start the stream's background scan towards `target` unless one runs."""
        key = (chain_id, stream.name)
        scan = self._scans.get(key)
        if (scan is None or scan.done()) and self.file(chain_id).progress(stream).covered_to < target:
            self._scans[key] = scan = asyncio.ensure_future(self._scan(chain_id, stream, target))
            scan.add_done_callback(lambda done: done.cancelled() or done.exception())

    async def _scan(
        self,
        chain_id: int,
        stream: Stream,
        target: int,
        report: Callable[[int, int, int], None] | None = None,
    ) -> None:
        """Window after window up to `target`, each stored with its progress; a failing window is
        tried again after a pause, for as long as it takes (no cap on the number of queries).
        Each window also reads the hash of the block the stored part reaches: where the node's
        differs, or a window failed (the node may have gone back), the stored part is verified
        again (`_verify`) and the target kept within the node's settled block."""
        index = self.file(chain_id)
        first = index.progress(stream).covered_to + 1
        started = last_report = time.monotonic()
        failures = 0
        recheck = False
        while (covered := index.progress(stream).covered_to) < target:
            loop = asyncio.get_running_loop()
            reader = self.chains.request(loop.time() + WINDOW_BUDGET).reader(chain_id)
            entries = index.entries(stream)
            high = min(target, covered + _window_blocks(reader, stream, entries))
            stored_hash = index.progress(stream).block_hash
            try:
                if recheck:
                    self._checked.pop((chain_id, stream.name), None)
                    await self._verify(reader, stream)
                    target, recheck = min(target, await reader.settled_block()), False
                    continue
                rows, block_hash, link = await asyncio.gather(
                    scan_rows(reader, stream, entries, covered + 1, high),
                    reader.block_hash(high),
                    reader.block_hash(covered) if stored_hash else no_read(),
                )
            except asyncio.CancelledError:
                reader.cancel_rounds()
                raise
            except (PositionError, TimeoutError) as exc:
                delay = RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)]
                failures += 1
                log.warning(
                    "index of %s on chain %d: blocks %d-%d failed (%s); again in %d s",
                    label(stream.name),
                    chain_id,
                    covered + 1,
                    high,
                    getattr(exc, "message", "timeout"),
                    delay,
                )
                await asyncio.sleep(delay)
                recheck = True
                continue
            if link != stored_hash:
                recheck = True
                continue
            failures = 0
            index.write(stream, rows, high, block_hash)
            if report:
                report(first, high, target)
            now = time.monotonic()
            if now - last_report >= PROGRESS_SECONDS or high == target:
                done, left = high - first + 1, target - high
                rate = done / max(now - started, 1e-9)
                log.info(
                    "index of %s on chain %d: %d blocks done, %d left, %.0f blocks/s, ETA %.0f s",
                    label(stream.name),
                    chain_id,
                    done,
                    left,
                    rate,
                    left / rate if rate else 0,
                )
                last_report = now


def _thinned(blocks: list[int]) -> list[int]:
    """Of checkpoint blocks (newest first), those to forget: past the RECENT_CHECKPOINTS newest,
    all but the oldest of each power-of-two distance from the newest (the oldest stays oldest,
    so the first checkpoint is never forgotten)."""
    kept: set[int] = set()
    thinned = []
    for block in reversed(blocks[RECENT_CHECKPOINTS:]):
        distance = (blocks[0] - block).bit_length()
        if distance in kept:
            thinned.append(block)
        kept.add(distance)
    return thinned


def _window_blocks(reader: ChainReader, stream: Stream, entries: dict[str, dict[str, Entry]]) -> int:
    """Blocks per scan step: WINDOW_QUERIES queries of the endpoint's range, fewer when the
    address list would make the step's batch larger than WINDOW_BYTES."""
    addresses = len(stream.addresses) + sum(len(entries.get(kind, {})) for kind in stream.followed_kinds)
    per_query = (300 + 45 * addresses + 70 * len(stream.topics)) * max(1, len(stream.filters))
    return reader.endpoint.logs_block_range * max(
        1, min(WINDOW_QUERIES // max(1, len(stream.filters)), WINDOW_BYTES // per_query)
    )


async def scan_rows(
    reader: ChainReader, stream: Stream, entries: dict[str, dict[str, Entry]], low: int, high: int
) -> Rows:
    """The rows of blocks low..high: one getLogs over the stream's contracts and the followed
    ones known before `low`, then, for contracts that appear in these blocks, their own logs
    from the block they appear in."""
    if high < low:
        return []
    followed = {key for kind in stream.followed_kinds for key in entries.get(kind, {})}
    addresses = [*stream.addresses, *sorted(followed)]
    if not addresses and not stream.filters:
        return []  # nothing to follow yet (every contract's logs only where filters name a wallet)
    logs = await _logs(reader, addresses, stream.topic_filters, low, high)
    rows = [row for entry in logs for row in stream.rows(entry)]
    new = sorted(
        {
            (row.block, row.key)
            for row in rows
            if isinstance(row, Entry) and row.kind in stream.followed_kinds and row.key not in followed
        }
    )
    if new:
        later = await _logs(reader, [key for _, key in new], stream.topic_filters, new[0][0], high)
        rows += [row for entry in later for row in stream.rows(entry)]
    return rows


async def _logs(reader: ChainReader, addresses: list[str], filters: list[list[Any]], low: int, high: int) -> list[Log]:
    """getLogs over many addresses, MAX_LOG_ADDRESSES at a time (Infura caps a query's
    parameters at 5,000), for each topic filter, all in the same round, merged in chain order
    (a log found twice once). No addresses: every contract's."""
    chunks = [addresses[i : i + MAX_LOG_ADDRESSES] for i in range(0, len(addresses), MAX_LOG_ADDRESSES)] or [[]]
    parts = await asyncio.gather(*(reader.get_logs(chunk, topics, low, high) for chunk in chunks for topics in filters))
    merged = {(entry.block_number, entry.log_index): entry for part in parts for entry in part}
    return [merged[key] for key in sorted(merged)]
