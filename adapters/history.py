"""Figures that compare the pinned block with one a period earlier: the block at a time, and an
APY from the growth of a rate between the two.

- The earlier block is the newest one whose timestamp is at most the pinned block's less the
  period, found from block timestamps. The block last found on the chain and the one after it,
  with their timestamps, are kept across requests: while the target time falls between the
  two, the block is known with no read at all. Otherwise that block moved on at the chain's
  block time, and the block after it, are the first probes, which settle it in that one round
  while blocks keep their pace, and the rate is read at that guess in the same round, before
  it is confirmed; without a hint, a step back from the pinned block at the nominal block
  time. Then interpolation inside a bracket that every round narrows, two headers per round,
  halving where interpolation is slow. Settled headers are kept in the app's immutable cache,
  so a later request at the same head reads none.
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
from typing import NamedTuple, TypeVar, cast

from adapters.position_warnings import HISTORY_UNAVAILABLE, Warnings
from chain import BLOCK_SECONDS, ChainReader, shared_future
from errors import HistoryUnavailable, ProtocolError

T = TypeVar("T")
YEAR = 365 * 24 * 3600
WEEK = 7 * 24 * 3600
FIRST_STEP = 1024
"""Blocks back of the first probe on a chain of unknown block time, which measures it."""
MAX_ROUNDS = 64
MAX_ISO_TIMESTAMP = 253_402_300_799
"""9999-12-31T23:59:59Z."""


class Stamped(NamedTuple):
    """A block with its timestamp."""

    block: int
    timestamp: int


async def block_at(reader: ChainReader, target: int) -> tuple[int, int] | None:
    """The newest block at or before the pinned one whose timestamp is at most `target`, with
    its timestamp; None when the chain's first block is younger."""
    hi = await reader.block_number()
    t_hi = await reader.timestamp_of(hi)
    if t_hi <= target:
        return hi, t_hi
    if (known := _bracketed(reader, target, hi)) is not None:
        return known
    found = await _search(reader, target, hi, t_hi)
    if found is None:
        return None
    reader.hints[(reader.chain_id, "block at")] = found
    at, _ = found
    return at


def _bracketed(reader: ChainReader, target: int, hi: int) -> tuple[int, int] | None:
    """The block last found, while `target` is still before the next block's timestamp: it is then
    the answer again, with no header read (the cache of block timestamps this module keeps)."""
    hint = reader.hints.get((reader.chain_id, "block at"))
    if hint is None:
        return None
    (block, stamp), (after, t_after) = cast(tuple[tuple[int, int], tuple[int, int]], hint)
    return (block, stamp) if stamp <= target < t_after and after <= hi else None


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


async def _search(
    reader: ChainReader, target: int, hi: int, t_hi: int
) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Probe rounds narrowing a bracket: first the guessed block and the one after it (found in
    that one round while blocks keep their pace), else the chain's nominal block time's guess.
    Returns the block found and the one after it, each with its timestamp."""
    lo: Stamped | None = None
    if (start := guess(reader, target)) is not None and start < hi:
        probes = [start, start + 1]
    elif seconds := BLOCK_SECONDS.get(reader.chain_id):
        start = hi - math.ceil((t_hi - target) / seconds)
        probes = [max(0, start), max(0, start - (hi - start) // 20 - 1)]
    else:
        probes = [max(0, hi - FIRST_STEP)]
    width = hi
    for _ in range(MAX_ROUNDS):
        blocks = sorted(set(probes))
        stamps = list(zip(blocks, await asyncio.gather(*(reader.timestamp_of(block) for block in blocks))))
        for block, stamp in stamps:
            if stamp <= target and (lo is None or block > lo.block):
                lo = Stamped(block, stamp)
            elif stamp > target and block < hi:
                hi, t_hi = block, stamp
        if lo is None:
            if 0 in probes:
                return None
            probes = _extrapolated(min(stamps), (hi, t_hi), target)
            continue
        if hi - lo.block <= 1:
            return lo, (hi, t_hi)
        slow = hi - lo.block > width // 2
        width = hi - lo.block
        probes = _interpolated(lo, (hi, t_hi), target, halve=slow)
    raise ProtocolError(f"no block found at timestamp {target} on chain {reader.chain_id} within {MAX_ROUNDS} rounds")


def _extrapolated(oldest: tuple[int, int], newest: tuple[int, int], target: int) -> list[int]:
    """Probes below every block seen, at the recent block time: the estimate and a margin
    before it (a twentieth of the way), so that one likely lands at or before `target`."""
    (b0, t0), (b1, t1) = oldest, newest
    per_block = Fraction(max(t1 - t0, 1), max(b1 - b0, 1))
    guess = b1 - int((t1 - target) / per_block) - 1
    margin = (b0 - guess) // 20 + 1
    return [max(0, min(guess, b0 - 1)), max(0, min(guess, b0 - 1) - margin)]


def _interpolated(lo: tuple[int, int], hi: tuple[int, int], target: int, halve: bool) -> list[int]:
    """Inside the bracket: the interpolated block and the one after it (both found when the
    interpolation is exact), plus the middle when the last round did not halve the bracket."""
    (b0, t0), (b1, t1) = lo, hi
    guess = b0 + (target - t0) * (b1 - b0) // max(t1 - t0, 1)
    guess = min(max(guess, b0 + 1), b1 - 1)
    probes = [guess, min(guess + 1, b1 - 1)]
    if halve:
        probes.append((b0 + b1) // 2)
    return probes


def read_ahead(reader: ChainReader, period: int, rate: Callable[[ChainReader], Awaitable[int]]) -> None:
    """Start `rate` at the block a period back where it is known or guessed, now, so that it
    travels in the request's first round: `period_apy` finds the same call there (the reader asks
    each call once) instead of starting it after the reads it depends on. A failure here is
    only the real read's to report."""

    async def read() -> None:
        t_now = await reader.block_timestamp()
        early = guess(reader, t_now - period)
        if early is not None and early < await reader.block_number():
            await _outcome(rate(reader.at(early)))

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
        t_now = await reader.block_timestamp()
        early = guess(reader, t_now - period)
        ahead = (
            asyncio.ensure_future(_outcome(rate(reader.at(early))))
            if early is not None and early < await reader.block_number()
            else None
        )
        now, earlier = await asyncio.gather(
            rate(reader), reader.shared(("block at", period), lambda: block_at(reader, t_now - period))
        )
        if earlier is None:
            warnings.add(HISTORY_UNAVAILABLE, target, f"{what} null: the chain has no block {period} s before this one")
            return None
        block, t_then = earlier
        then = await ahead if ahead is not None and block == early else await rate(reader.at(block))
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
