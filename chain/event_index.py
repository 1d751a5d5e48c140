"""A persisted index of contract events per chain: where to look for a wallet's positions.

A stream (contracts, event topics, a start block, and a function that turns a log into rows) is
scanned once from its start block into a store (chain/index_store.py: one SQLite file per chain,
or one PostgreSQL database that replicas share), extended in the background as blocks settle,
and resumed after a restart from where it stands; with a shared store, one replica at a time
scans a stream and every replica reads it.
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
import time
from collections import ChainMap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chain.event_logs import Log
from chain.futures import no_read
from chain.index_sqlite import SqliteStores
from chain.index_store import WALLET_STREAMS, Entries, Entry, IndexStore, Progress, Rows, Stores, label
from chain.reader import ChainReader, Chains
from errors import IndexUnavailable, PositionError

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
CLAIM_SECONDS = 2.0
"""How often a replica that does not scan a shared stream looks at its progress, and tries to take
the scan over (the replica that scanned it died, or stopped)."""


def open_stores(state_dir: Path, index_url: str = "", pool_size: int = 10) -> Stores:
    """The SQLite files of `state_dir`, or, with `index_url`, the PostgreSQL database replicas
    share (its driver is loaded only then)."""
    if not index_url:
        return SqliteStores(state_dir)
    from chain.index_postgres import PostgresStores

    return PostgresStores(index_url, pool_size)


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

    stored: Entries
    fresh: Entries
    progress: Progress
    store: IndexStore | None
    """None where the store could not be reached: only the tail's keys are known."""
    stream: Stream
    tail: dict[str, set[str]]
    block: int
    """The request's block: stored rows of later blocks (a past `blockNumber`) are not offered."""
    complete: bool = True
    """False while the stored part is too far behind for the tail to be read (a cold index whose
    scan did not finish in half the request's budget, or a shared store that cannot be reached):
    entries and keys are then only those up to `covered_to`, and an adapter checks the catalog
    itself (see adapters/morpho/positions.py's sweep)."""

    @property
    def covered_to(self) -> int:
        return self.progress.covered_to

    def shortfall(self, chain_id: int, things: str) -> str:
        """An adapter's retryable warning for an incomplete view, `things` being what its catalog
        lists ("market and vault"): a store that could not be read reaches no block, so none is named."""
        if self.store is None:
            return (
                f"the event index of chain {chain_id} cannot be read now: only each {things} found without it was "
                f"checked, others are not listed; they are once it can be read again"
            )
        return (
            f"the event index of chain {chain_id} reaches block {self.covered_to} of {self.block}: every {things} "
            f"created up to it was checked, later ones are not listed; they are once the index has caught up"
        )

    def kind(self, kind: str) -> Mapping[str, Entry]:
        """The entries of one kind by key, as of the block."""
        stored = self.stored.get(kind, {})
        if self.block < self.covered_to:
            stored = {key: entry for key, entry in stored.items() if entry.block <= self.block}
        return ChainMap(self.fresh.get(kind, {}), stored)

    def of(self, kind: str) -> list[Entry]:
        return sorted(self.kind(kind).values(), key=lambda entry: (entry.block, entry.key))

    async def keys(self, holder: str) -> set[str]:
        """What `holder` may hold: keys its events name, stored or in the tail."""
        return (await self.holding([holder]))[holder.lower()]

    async def holding(self, holders: list[str]) -> dict[str, set[str]]:
        """`keys` of many holders (lowercased) in one question to the store."""
        wanted = [holder.lower() for holder in holders]
        stored = await self.store.keys(self.stream.name, wanted, self.block) if self.store else {}
        return {holder: stored.get(holder, set()) | self.tail.get(holder, set()) for holder in wanted}


@dataclass
class Indexes:
    """The app's event index: a store per chain (`stores`), one background scan per chain and
    stream. It sits above the chains it reads (the app owns both, and closes it first), so the
    reader knows nothing of it."""

    stores: Stores
    chains: Chains
    _scans: dict[tuple[int, str], asyncio.Task[None]] = field(default_factory=dict)
    _checked: dict[tuple[int, str], int] = field(default_factory=dict)
    """Streams whose stored part was found to be the chain's, with the follower's `rewinds` then."""
    _covered: dict[tuple[int, str], int] = field(default_factory=dict)
    """The block each stream was last seen covered to (the metrics' gauge reads it)."""

    def store(self, chain_id: int) -> IndexStore:
        return self.stores.store(chain_id)

    def progress_rows(self) -> list[tuple[int, str, int]]:
        """(chain id, stream, covered to) of every stream this process has read or scanned."""
        return [(chain_id, name, covered) for (chain_id, name), covered in list(self._covered.items())]

    async def close(self) -> None:
        """Stop the scans (each window done is kept), then close the stores; a later use (an app
        started again) opens them again."""
        scans = list(self._scans.values())
        self._scans.clear()
        self._checked.clear()
        for scan in scans:
            scan.cancel()
        await asyncio.gather(*scans, return_exceptions=True)
        await self.stores.close()

    async def _snapshot(self, chain_id: int, stream: Stream, stale: bool = False) -> tuple[Progress, Entries]:
        progress, entries = await self.store(chain_id).snapshot(stream.name, stream.start_block, stale)
        self._seen(chain_id, stream, progress)
        return progress, entries

    def _seen(self, chain_id: int, stream: Stream, progress: Progress) -> None:
        if not stream.name.startswith(WALLET_STREAMS):
            self._covered[(chain_id, stream.name)] = progress.covered_to

    async def stored(self, reader: ChainReader, stream: Stream, stale: bool = False) -> View:
        """The stream's stored part as of the reader's block, with no round trip: what an adapter
        sends its one-call reads for while `view` reads the tail in the same round (`stale`: a copy
        a shared store keeps in memory, however old; IndexStore.snapshot). Where the chain's head is
        followed, the background scan is moved on towards its settled block, as `view` does: a
        stream others consult only here (a price route's) keeps up although its own protocol is
        not asked."""
        block = await reader.block_number()
        try:
            progress, entries = await self._snapshot(reader.chain_id, stream, stale)
        except IndexUnavailable:
            return self._unavailable(stream, block)
        follower = self.chains.follower(reader.chain_id)
        if follower.current() is not None and follower.settled is not None:
            self._advance(reader.chain_id, stream, progress.covered_to, min(block, follower.settled))
        return View(entries, {}, progress, self.store(reader.chain_id), stream, {}, block)

    async def known(self, reader: ChainReader, stream: Stream) -> View:
        """The stream as another protocol's answer consults it (a price route's catalog): its stored
        part, with no round trip, once scanned and not far behind; on a cold start the view a
        request of its own protocol reads (the tail, or the scan waited for), shared with such a
        request, so an answer does not depend on whether that protocol was asked first. A shared
        store's copy in memory is taken however old (read again in the background): the reads the
        lookup decides must not wait a database query, or they miss their round."""
        stored = await self.stored(reader, stream, stale=True)
        if stored.covered_to >= stream.start_block and not self._behind(reader, stored.block, stored.covered_to):
            return stored
        return await reader.shared(("events", stream.name), lambda: self.view(reader, stream))

    async def reach(self, reader: ChainReader, stream: Stream) -> tuple[int, bool]:
        """How far the stream reaches at the reader's block, read with no round trip: the block its
        stored part reaches, and whether a request's view of it would be complete (the store can be
        read, and the rest is not too far behind for the request to read it)."""
        view = await self.stored(reader, stream)
        return view.covered_to, view.store is not None and not self._behind(reader, view.block, view.covered_to)

    @staticmethod
    def _unavailable(stream: Stream, block: int) -> View:
        """A view with nothing stored (the shared store is down): adapters check their catalogs
        themselves where they can, as on a cold start."""
        return View({}, {}, Progress.none(stream.start_block), None, stream, {}, block, complete=False)

    async def view(self, reader: ChainReader, stream: Stream, again: bool = True) -> View:
        """The stream at the reader's block: the stored part, and the blocks after it read now
        (in the round that asks for the settled block, which moves the background scan on, and
        the hash of the block the stored part reaches: where the chain has another, the stored
        part is verified again and the view made anew). While the stored part is far behind (a
        cold start), the request waits for the scan for half its budget, then gets what is
        stored (`complete` False)."""
        block = await reader.block_number()
        key = (reader.chain_id, stream.name)
        rewinds = self.chains.follower(reader.chain_id).rewinds
        try:
            progress, stored = await self._snapshot(reader.chain_id, stream)
            # Not checked yet: where the request reads the tail after the stored part, the link
            # read with it is the check (the newest checkpoint's hash), in the same round.
            unlinked = not self._linked(progress, block) or self._behind(reader, block, progress.covered_to)
            if self._checked.get(key) != rewinds and unlinked:
                await self._verify(reader, stream)
                progress, stored = await self._snapshot(reader.chain_id, stream)
        except IndexUnavailable as exc:
            log.warning("chain %d: %s; %s answered without it", reader.chain_id, exc.message, label(stream.name))
            return self._unavailable(stream, block)
        store = self.store(reader.chain_id)
        if self._behind(reader, block, progress.covered_to):
            self._advance(reader.chain_id, stream, progress.covered_to, await reader.settled_block())
            scan = self._scans.get((reader.chain_id, stream.name))
            if scan is not None and not scan.done():
                wait = (reader.deadline - asyncio.get_running_loop().time()) / 2
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(scan), max(wait, 0))
                progress, stored = await self._snapshot(reader.chain_id, stream)
                if self._behind(reader, block, progress.covered_to):
                    return View(stored, {}, progress, store, stream, {}, block, complete=False)
        linked = self._linked(progress, block)
        rows, settled, link = await asyncio.gather(
            scan_rows(reader, stream, stored, progress.covered_to + 1, block),
            reader.settled_block(),
            reader.block_hash(progress.covered_to) if linked else no_read(),
        )
        if linked and link != progress.block_hash and again:
            self._checked.pop(key, None)
            await self._verify(reader, stream)
            return await self.view(reader, stream, again=False)
        if linked and link == progress.block_hash:
            self._checked[key] = rewinds
        self._advance(reader.chain_id, stream, progress.covered_to, settled)
        fresh: Entries = {}
        tail: dict[str, set[str]] = {}
        for row in rows:
            if isinstance(row, Entry):
                fresh.setdefault(row.kind, {}).setdefault(row.key, row)
            else:
                tail.setdefault(row.holder, set()).add(row.key)
        return View(stored, fresh, progress, store, stream, tail, block)

    @staticmethod
    def _linked(progress: Progress, block: int) -> bool:
        """Whether the block the stored part reaches is one the request's reads can check."""
        return progress.block_hash is not None and progress.covered_to <= block

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
        store = self.store(chain_id)
        reader = reader.newest()
        head = await reader.block_number()
        # The newest checkpoint is the block the stored part reaches (read with them, never older).
        checkpoints = await store.checkpoints(stream.name, stream.start_block)
        covered = checkpoints[0][0] if checkpoints else stream.start_block - 1
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
        rewound = agreed is not None and await store.rewind(stream.name, *agreed)
        if not rewound:
            await store.drop(stream.name)
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

    def _advance(self, chain_id: int, stream: Stream, covered_to: int, target: int) -> None:
        """Start the stream's background scan from `covered_to` towards `target` unless one runs."""
        key = (chain_id, stream.name)
        scan = self._scans.get(key)
        if (scan is None or scan.done()) and covered_to < target:
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
        again (`_verify`) and the target kept within the node's settled block. With a shared
        store, a replica scans only while it holds the stream's claim; otherwise it watches the
        progress another makes, and takes the scan over when that one stops."""
        store = self.store(chain_id)
        first: int | None = None
        started = last_report = time.monotonic()
        failures = 0
        recheck = False
        while True:
            loop = asyncio.get_running_loop()
            reader = self.chains.request(loop.time() + WINDOW_BUDGET).reader(chain_id)
            try:
                progress, entries = await self._snapshot(chain_id, stream)
                if progress.covered_to >= target:
                    return
                if not await store.claim(stream.name):
                    await asyncio.sleep(CLAIM_SECONDS)
                    continue
                first = progress.covered_to + 1 if first is None else first
                if recheck:
                    self._checked.pop((chain_id, stream.name), None)
                    await self._verify(reader, stream)
                    target, recheck = min(target, await reader.settled_block()), False
                    continue
                high = min(target, progress.covered_to + _window_blocks(reader, stream, entries))
                rows, block_hash, link = await asyncio.gather(
                    scan_rows(reader, stream, entries, progress.covered_to + 1, high),
                    reader.block_hash(high),
                    reader.block_hash(progress.covered_to) if progress.block_hash else no_read(),
                )
                if link != progress.block_hash:
                    recheck = True
                    continue
                if not await store.write(stream.name, stream.start_block, rows, progress, high, block_hash):
                    continue  # another replica stored these blocks first
            except asyncio.CancelledError:
                reader.cancel_rounds()
                raise
            except (PositionError, TimeoutError) as exc:
                delay = RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)]
                failures += 1
                log.warning(
                    "index of %s on chain %d: a window failed (%s); again in %d s",
                    label(stream.name),
                    chain_id,
                    getattr(exc, "message", "timeout"),
                    delay,
                )
                await asyncio.sleep(delay)
                recheck = True
                continue
            failures = 0
            self._seen(chain_id, stream, Progress(stream.start_block, high, block_hash))
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


def _window_blocks(reader: ChainReader, stream: Stream, entries: Entries) -> int:
    """Blocks per scan step: WINDOW_QUERIES queries of the endpoint's range, fewer when the
    address list would make the step's batch larger than WINDOW_BYTES."""
    addresses = len(stream.addresses) + sum(len(entries.get(kind, {})) for kind in stream.followed_kinds)
    per_query = (300 + 45 * addresses + 70 * len(stream.topics)) * max(1, len(stream.filters))
    return reader.endpoint.logs_block_range * max(
        1, min(WINDOW_QUERIES // max(1, len(stream.filters)), WINDOW_BYTES // per_query)
    )


async def scan_rows(reader: ChainReader, stream: Stream, entries: Entries, low: int, high: int) -> Rows:
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
