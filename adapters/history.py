"""Figures that compare the pinned block with one a period earlier: the block at a time, and an
APY from the growth of a rate between the two.

- The earlier block is the newest one whose timestamp is at most the pinned block's less the
  period, found from block timestamps, and always confirmed by the headers of the block found
  and the one after it (read, or kept in the app's immutable cache once settled; a recorded
  request reads them, so they are in its provenance). The block last found on the chain is
  kept across requests as a hint: it (while the target falls before the next block's time),
  or it moved on at the chain's block time, and the block after it are the first probes, which
  settle it in that round while blocks keep their pace. Without a hint, the first round probes
  around the nominal block time's guess, or a ladder of powers of the square root of two back from the pinned
  block on a chain of unknown block time. Every later round reads the whole bracket where it
  is DENSE blocks or fewer, else the interpolated block with WINDOW either side and SPLITS cuts.
- The rate is read at each round's likely block in that round, before it is confirmed (every
  input that needs the figure follows the request's one search), so a search settled in its
  round costs no round more; an adapter starts the first round with its own first reads
  (`read_ahead`).
- The rate is read at both blocks by the same view; the earlier read goes through a reader
  pinned to that block, so an endpoint without that state (a pruned node) says so
  (HistoryUnavailable) instead of being retried.
- APY = (rate_now / rate_then) ^ (YEAR / (t_now - t_then)) - 1, with the two blocks' own
  timestamps and YEAR = 365 days: the growth over the period, compounded over a year.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from fractions import Fraction
from typing import TypeVar, cast

from adapters.position_warnings import HISTORY_UNAVAILABLE, Warnings
from chain import BLOCK_SECONDS, ChainReader, shared_future
from errors import HistoryUnavailable, ProtocolError

T = TypeVar("T")
YEAR = 365 * 24 * 3600
WEEK = 7 * 24 * 3600
MAX_ROUNDS = 64
SPREAD = 200
"""Without a hint, the first round probes the nominal guess's neighbours a 1/SPREAD of the
period's blocks either side: Ethereum misses about 0.5% of its slots, so the answer lies after
the guess by about that much."""
DENSE = 32
"""A bracket of at most this many blocks is read whole in one round: the answer is then known,
however uneven the block times (a test chain's jumps, a halted chain)."""
WINDOW = 4
"""Blocks either side of an interpolated guess read in its round."""
SPLITS = 16
"""A bracket too wide to read whole is also cut in this many parts in the same round, so it
narrows at least that much where interpolation misses (block times uneven: a halt, a test
chain's jump of days)."""
MAX_ISO_TIMESTAMP = 253_402_300_799
"""9999-12-31T23:59:59Z."""


async def block_at(
    reader: ChainReader, target: int, likely: Callable[[int], object] = lambda block: None
) -> tuple[int, int] | None:
    """The newest block at or before the pinned one whose timestamp is at most `target`, with
    its timestamp; None when the chain's first block is younger. `likely` is told, in each round,
    the block the search expects, so a figure read there travels with that round's probes."""
    hi = await reader.block_number()
    t_hi = await reader.timestamp_of(hi)
    if t_hi <= target:
        return hi, t_hi
    found = await _search(reader, target, hi, t_hi, likely)
    if found is None:
        return None
    reader.hints[(reader.chain_id, "block at")] = found
    at, _ = found
    return at


def guess(reader: ChainReader, target: int) -> int | None:
    """The block last found at a time (itself while `target` is before the next block's time),
    moved on by `target`'s distance at the chain's block time: where the next search looks first,
    and where a rate may be read before it confirms."""
    hint = reader.hints.get((reader.chain_id, "block at"))
    if hint is None:
        return None
    (block, stamp), (_, t_after) = cast(tuple[tuple[int, int], tuple[int, int]], hint)
    if stamp <= target < t_after:
        return block
    return max(0, block + math.floor((target - stamp) / BLOCK_SECONDS.get(reader.chain_id, 12)))


def _first_probes(reader: ChainReader, target: int, hi: int, t_hi: int) -> tuple[list[int], int | None]:
    """The first round's probes and the block they make likely. With a hint, the block it guesses
    and the one after. Without one (a fresh server, or an answer read afresh for its provenance),
    from the chain's nominal block time: the block that time puts at `target`, the one after it
    (the answer on a chain of exact block times), and neighbours SPREAD apart either side (missed
    slots put the answer after the guess); on a chain of unknown block time, a ladder back from
    the pinned block by powers of the square root of two to block 0, which brackets any target
    within 0.42 of its distance (DENSE blocks or fewer, read whole the next round, for a target
    up to 90 blocks back)."""
    if (start := guess(reader, target)) is not None and start < hi:
        return [start, start + 1], start
    if seconds := BLOCK_SECONDS.get(reader.chain_id):
        blocks = math.ceil((t_hi - target) / seconds)
        start, step = max(0, hi - blocks), max(1, blocks // SPREAD)
        probes = [start - step, start, start + 1, start + step, start + 2 * step]
        return [block for block in probes if 0 <= block < hi], start
    steps = sorted({math.isqrt(1 << k) for k in range(2 * hi.bit_length())})
    return [*(hi - step for step in steps if hi - step > 0), 0], None


async def _search(
    reader: ChainReader, target: int, hi: int, t_hi: int, likely: Callable[[int], object]
) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Probe rounds narrowing a bracket around `target`: the first round's probes (_first_probes),
    then inside the bracket either every block (DENSE or fewer: found that round, however uneven
    the block times) or the interpolated block with WINDOW either side (found that round while
    blocks keep their pace) and SPLITS cuts. Returns the block found and the one after it, each
    with its timestamp."""
    stamps = {hi: t_hi}
    probes, expected = _first_probes(reader, target, hi, t_hi)
    for _ in range(MAX_ROUNDS):
        if expected is not None:
            likely(expected)
        new = sorted(set(probes) - stamps.keys())
        stamps.update(zip(new, await asyncio.gather(*(reader.timestamp_of(block) for block in new))))
        below = [block for block, stamp in stamps.items() if stamp <= target]
        up = min(block for block, stamp in stamps.items() if stamp > target)
        if not below:
            if 0 in stamps:
                return None
            probes, expected = _extrapolated(min(stamps.items()), (hi, t_hi), target), None
            continue
        lo = max(below)
        if up - lo <= 1:
            return (lo, stamps[lo]), (up, stamps[up])
        probes, expected = _interpolated((lo, stamps[lo]), (up, stamps[up]), target)
    raise ProtocolError(f"no block found at timestamp {target} on chain {reader.chain_id} within {MAX_ROUNDS} rounds")


def _extrapolated(oldest: tuple[int, int], newest: tuple[int, int], target: int) -> list[int]:
    """Probes below every block seen, at the recent block time: the estimate and a margin
    before it (a twentieth of the way), so that one likely lands at or before `target`."""
    (b0, t0), (b1, t1) = oldest, newest
    per_block = Fraction(max(t1 - t0, 1), max(b1 - b0, 1))
    guess = b1 - int((t1 - target) / per_block) - 1
    margin = (b0 - guess) // 20 + 1
    return [max(0, min(guess, b0 - 1)), max(0, min(guess, b0 - 1) - margin)]


def _interpolated(lo: tuple[int, int], hi: tuple[int, int], target: int) -> tuple[list[int], int]:
    """Inside the bracket: every block where it holds DENSE or fewer, else the interpolated block
    with WINDOW either side and the bracket's SPLITS cuts; and the interpolated block, the likely
    answer."""
    (b0, t0), (b1, t1) = lo, hi
    guess = b0 + (target - t0) * (b1 - b0) // max(t1 - t0, 1)
    guess = min(max(guess, b0 + 1), b1 - 1)
    if b1 - b0 - 1 <= DENSE:
        return list(range(b0 + 1, b1)), guess
    window = range(max(b0 + 1, guess - WINDOW), min(b1, guess + WINDOW + 1))
    return [*window, *(b0 + (b1 - b0) * part // SPLITS for part in range(1, SPLITS))], guess


class _Search:
    """A request's search for the block a period back, shared by its inputs: each round's likely
    block is told to every rate that follows it (read there in that round), found or not."""

    def __init__(self, reader: ChainReader, target: int) -> None:
        self.seen: list[int] = []
        self._followers: list[Callable[[int], object]] = []
        self.found = shared_future(block_at(reader, target, self._likely))

    def _likely(self, block: int) -> None:
        if block not in self.seen:
            self.seen.append(block)
            for follower in self._followers:
                follower(block)

    def follow(self, follower: Callable[[int], object]) -> None:
        self._followers.append(follower)
        for block in self.seen:
            follower(block)


async def _search_of(reader: ChainReader, period: int) -> _Search:
    """The request's search for the block `period` before the pinned one, started by the first
    figure that needs it."""
    t_now = await reader.block_timestamp()

    async def start() -> _Search:
        return _Search(reader, t_now - period)

    return await reader.shared(("block at", period), start)


def _ahead(
    reader: ChainReader, rate: Callable[[ChainReader], Awaitable[int]]
) -> Callable[[int], asyncio.Future[int | Exception]]:
    """`rate` read at a block the search finds likely, before it is confirmed: its failure counts
    only if that block is the answer. Identical calls are asked once per request, so every
    asker's read of one block is one read."""
    reads: dict[int, asyncio.Future[int | Exception]] = {}

    def read(block: int) -> asyncio.Future[int | Exception]:
        if block not in reads:
            reads[block] = shared_future(_outcome(rate(reader.at(block))))
        return reads[block]

    return read


def read_ahead(reader: ChainReader, period: int, rate: Callable[[ChainReader], Awaitable[int]]) -> None:
    """The search's first round, now, so that it travels in the request's first round: its probes
    (`_first_probes`), and `rate` at the block they make likely; `period_apy`, if the wallet
    turns out to need it, finds the same headers and calls there (the reader asks each once)
    instead of starting them after the reads it depends on. No round after the first is spent
    before a figure needs it."""

    if not reader.endpoint.ahead:
        return

    async def read() -> None:
        hi, t_now = await reader.block_number(), await reader.block_timestamp()
        target = t_now - period
        if t_now <= target:
            return
        probes, expected = _first_probes(reader, target, hi, t_now)
        if expected is not None:
            _ahead(reader, rate)(expected)
        await asyncio.gather(*(reader.timestamp_of(block) for block in probes))

    shared_future(_outcome(read()))


async def _outcome(read: Awaitable[T]) -> T | Exception:
    """A read made ahead of knowing whether it is needed: its failure counts only if it is."""
    try:
        return await read
    except Exception as exc:
        return exc


def compounded(now: int, then: int, seconds: int) -> float | None:
    """The growth from `then` to `now` over `seconds`, compounded over a year; None without a
    base (a rate of zero then, or no time between); ProtocolError for a growth no float holds."""
    if then <= 0 or now <= 0 or seconds <= 0:
        return None
    try:
        return math.pow(float(Fraction(now, then)), YEAR / seconds) - 1
    except OverflowError:
        raise ProtocolError(f"a growth from {then} to {now} in {seconds} s is too large to be an APY") from None


async def period_apy(
    reader: ChainReader,
    period: int,
    rate: Callable[[ChainReader], Awaitable[int]],
    warnings: Warnings,
    target: str,
    what: str,
) -> float | None:
    """The APY of `rate` (a view read through the reader it is given) over the `period` before the
    pinned block; None with a warning naming `what` when the earlier state cannot be read."""
    try:
        search = await _search_of(reader, period)
        ahead = _ahead(reader, rate)
        if reader.endpoint.ahead:
            search.follow(ahead)
        now, earlier = await asyncio.gather(rate(reader), asyncio.shield(search.found))
        t_now = await reader.block_timestamp()
        if earlier is None:
            warnings.add(HISTORY_UNAVAILABLE, target, f"{what} null: the chain has no block {period} s before this one")
            return None
        block, t_then = earlier
        then = await asyncio.shield(ahead(block))
        if isinstance(then, Exception):
            raise then
        return compounded(now, then, t_now - t_then)
    except HistoryUnavailable as exc:
        warnings.add(HISTORY_UNAVAILABLE, target, f"{what} null: {exc.message}")
        return None
    except ProtocolError as exc:
        warnings.figure(target, what, exc)
        return None


def iso_date(timestamp: int) -> str | None:
    """A unix time as ISO 8601 in UTC to the second; None past the year 9999 (a contract's
    sentinel or garbage)."""
    if not 0 <= timestamp <= MAX_ISO_TIMESTAMP:
        return None
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
