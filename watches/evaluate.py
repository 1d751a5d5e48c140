"""Watches evaluated at each new head: the distinct (wallet, protocol) pairs that are due read once
each, with the adapters `walletPositions` uses (so the node's cost grows with those pairs, not with
the watches), every watch of a pair judged from that one answer, and each crossing, recovery,
closing or failure written to the outbox with the state that made it (watches/store.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import zlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from errors import IndexUnavailable, PositionError
from resolvers.portfolio import INCOMPLETE
from watches import rules, webhooks
from watches.store import Kept, Watch, WatchStore

log = logging.getLogger("wallet_positions.watches")

Answer = Callable[[int, list[dict[str, Any]]], Awaitable[list[list[dict[str, Any]] | PositionError]]]
"""(chain, walletPositions inputs) -> each input's entries or its failure, at the chain's newest block."""
Hashes = Callable[[int, list[int]], Awaitable[dict[int, str]]]
"""(chain, block numbers) -> each block's hash on the chain now (one round)."""
BATCH = 200
"""Pairs answered in one go at most: their reads share lens rounds, and each input's time budget
(INPUT_TIMEOUT) starts with its batch, so a batch must be answered well within it."""


@dataclass
class Chain:
    """What the evaluator keeps of one chain between heads (in memory: a restart reads every pair)."""

    evaluated: int = -1
    due: dict[tuple[str, str], int] = field(default_factory=dict)
    """(wallet, protocol) -> the first block at which it is read again (rules.wait)."""


class Evaluator:
    def __init__(
        self,
        store: WatchStore,
        answer: Answer,
        head: Callable[[int], int | None],
        borrowing: Callable[[int], list[str]],
        woken: Callable[[], None],
        hashes: Hashes,
        owners: Callable[[], set[str]],
    ) -> None:
        self.store = store
        self.answer = answer
        self.hashes = hashes
        self.owners = owners
        """The key names whose watches are evaluated (those some active key holds)."""
        self.head = head
        """A chain's newest followed head, None where it is not followed now (the read pins its own)."""
        self.borrowing = borrowing
        """The protocols a chain serves whose answers carry a borrow's risk (a watch naming none)."""
        self.woken = woken
        """Wakes the deliverer: events were written."""
        self.wake = asyncio.Event()
        """Set by a new watch: evaluate now, not at the next poll."""
        self.chains: dict[int, Chain] = {}
        self.pairs = self.events = self.watching = 0
        """Pairs read and events written by this process; watches kept (by every process)."""
        self.due: dict[int, int] = {}
        """Pairs the last evaluation of each chain found due."""

    async def run(self, poll_seconds: float) -> None:
        """Forever: every chain with watches evaluated at its newest head, then a wait for the next
        poll (a new watch ends it early)."""
        while True:
            self.wake.clear()
            try:
                self.watching = await self.store.total()
                for chain_id in await self.store.chains():
                    if await self.store.claim(chain_id):
                        await self._evaluated(chain_id)
            except IndexUnavailable as exc:
                log.warning("watches not evaluated: %s", exc.message)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(
                    poll_seconds
                ):  # not wait_for: on 3.11 a wake racing a cancel loses the cancel
                    await self.wake.wait()

    async def _evaluated(self, chain_id: int) -> None:
        try:
            await self.evaluate(chain_id)
        except IndexUnavailable:
            raise
        except Exception:
            log.exception("watches of chain %d not evaluated", chain_id)

    async def evaluate(self, chain_id: int) -> int:
        """The chain's due watches at its newest block, unless that block was evaluated; the
        events written."""
        kept = self.chains.setdefault(chain_id, Chain())
        newest = self.head(chain_id)
        if newest is not None and newest <= kept.evaluated:
            return 0
        owners = self.owners()
        found = [(watch, last) for watch, last in await self.store.on_chain(chain_id) if watch.owner in owners]
        watches = [watch for watch, _ in found]
        pairs = {(watch.wallet, protocol): None for watch in watches for protocol in self._protocols(watch, chain_id)}
        block = newest if newest is not None else kept.evaluated + 1
        asked = [pair for pair in pairs if kept.due.get(pair, 0) <= block]
        self.due[chain_id] = len(asked)
        # The reorg check rides beside the reads, not before them: no round of its own.
        written: int
        written, answers = await asyncio.gather(
            self._retract(chain_id, newest, found, kept), self._read(chain_id, asked)
        )
        read = [one for one in answers.values() if not isinstance(one, PositionError)]
        blocks = [entry["blockNumber"] for entries in read for entry in entries if "blockNumber" in entry]
        kept.evaluated = max([block, *blocks]) if newest is None else newest
        waits: dict[tuple[str, str], int] = {}
        for watch, last in found:
            mine = {
                p: answers[(watch.wallet, p)] for p in self._protocols(watch, chain_id) if (watch.wallet, p) in answers
            }
            if mine:
                written += await self._judge(watch, last, mine, kept.evaluated, waits)
        for pair, due in waits.items():
            wait = due - kept.evaluated
            if pair not in kept.due and wait > 1:  # a first reading: pairs made together come due apart
                due = kept.evaluated + 1 + zlib.crc32(f"{pair[0]}:{pair[1]}".encode()) % wait
            kept.due[pair] = due
        self.pairs += len(asked)
        self.events += written
        if written:
            self.woken()
        return written

    async def _read(
        self, chain_id: int, asked: list[tuple[str, str]]
    ) -> dict[tuple[str, str], list[dict[str, Any]] | PositionError]:
        """Each asked (wallet, protocol) pair's answer, BATCH pairs at a time."""
        answers: dict[tuple[str, str], list[dict[str, Any]] | PositionError] = {}
        for start in range(0, len(asked), BATCH):
            batch = asked[start : start + BATCH]
            inputs = [{"protocol": p, "chainId": chain_id, "walletAddress": w} for w, p in batch]
            answers.update(zip(batch, await self.answer(chain_id, inputs)))
        return answers

    async def _retract(self, chain_id: int, newest: int | None, watches: list[tuple[Watch, Kept]], kept: Chain) -> int:
        """Events computed at a block the chain no longer has (a reorganisation within
        REORG_WINDOW) retracted, each by a `watch.retracted` event, and the position's state put
        back as it was before, so the next reading judges it afresh on the chain as it is now (a
        pair read beside this check is read again at the next head); the events written. Without
        a followed head (`newest` None) nothing is checked."""
        recent = [] if newest is None else await self.store.since(chain_id, newest - rules.REORG_WINDOW)
        if newest is None or not recent:
            return 0
        try:
            found = await self.hashes(chain_id, sorted({one.block for one in recent if one.block <= newest}))
        except PositionError as exc:  # the node's failure: checked again at the next head
            log.warning("chain %d: the blocks of recent watch events not checked: %s", chain_id, exc.message)
            return 0
        gone = [one for one in recent if one.block > newest or found.get(one.block, one.block_hash) != one.block_hash]
        written = 0
        for watch, last in watches:
            mine = [one for one in gone if one.watch_id == watch.id]
            if not mine:
                continue
            states = dict(last.states)
            events: list[tuple[dict[str, Any], str | None]] = []
            for one in mine:
                if one.position is not None and one.kind in rules.BEFORE_RETRACTED:
                    states[one.position] = rules.BEFORE_RETRACTED[one.kind]
                    protocol = one.position.split(":", 1)[0]
                    kept.due.pop((watch.wallet, protocol), None)
                else:
                    protocol = watch.protocol or ""
                data = {
                    "retracts": one.id,
                    "retractedType": one.kind,
                    "blockNumber": one.block,
                    "blockHash": one.block_hash,
                }
                events.append((_event(rules.RETRACTED, watch, protocol, data), None))
            retracts = tuple(one.id for one in mine)
            written += len(await self.store.record(watch, last, states, last.failing, events, retracts) or ())
        return written

    def _protocols(self, watch: Watch, chain_id: int) -> list[str]:
        return [watch.protocol] if watch.protocol else self.borrowing(chain_id)

    async def _judge(
        self,
        watch: Watch,
        last: Kept,
        answers: Mapping[str, list[dict[str, Any]] | PositionError],
        block: int,
        waits: dict[tuple[str, str], int],
    ) -> int:
        """One watch against the answers of its pairs read now at `block`: its states moved, its
        events written, and each pair's next read no later than this watch needs (`waits`: the
        nearest watch of a pair decides); nothing is written where nothing moved. A borrow missing
        from an answer that says it was not read in full (a part unreadable, an account not
        answered) is not called closed: its state stays until an answer read in full says so."""
        states = dict(last.states)
        failing = last.failing
        events: list[tuple[dict[str, Any], str | None]] = []
        for protocol, answer in answers.items():
            if isinstance(answer, PositionError):
                reason = f"{protocol}: {answer.code}: {answer.message}"
                if failing is None:
                    events.append((_event(rules.FAILING, watch, protocol, {"reason": reason}), None))
                failing = reason
                waits[(watch.wallet, protocol)] = block + 1
                continue
            if failing is not None and failing.startswith(f"{protocol}:"):
                failing = None
            prefix = f"{protocol}:"
            before = {p: c for p, c in states.items() if p.startswith(prefix)}
            found = rules.borrows(answer)
            header = _header(answer)
            for figures in found:
                position = prefix + figures.position
                was = before.pop(position, False)
                now = rules.judged(was, figures, watch.conditions)
                states[position] = now
                if now != was:
                    kind = rules.CROSSED if now else rules.RECOVERED
                    events.append((_event(kind, watch, protocol, {**header, **_figures(figures, watch)}), position))
            if _incomplete(answer):
                before.clear()
            for position in before:
                del states[position]
                closed = {**header, "holder": position.split(":")[1], "position": position.split(":", 2)[2]}
                events.append((_event(rules.CLOSED, watch, protocol, closed), position))
            crossed = any(states.get(prefix + f.position, False) for f in found)
            pair = (watch.wallet, protocol)
            waits[pair] = min(
                waits.get(pair, block + rules.SPREAD[0][1]), block + rules.wait(found, watch.conditions, crossed)
            )
        if (states, failing, events) == (last.states, last.failing, []):
            return 0
        return len(await self.store.record(watch, last, states, failing, events) or ())


def _incomplete(entries: list[dict[str, Any]]) -> bool:
    return any(warning["code"] in INCOMPLETE for entry in entries for warning in entry.get("warnings") or [])


def _header(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The block the answer was computed at, and the prices it used."""
    first = entries[0] if entries else {}
    prices = [price for entry in entries for price in entry.get("usdPrices") or []]
    return {"blockNumber": first.get("blockNumber"), "blockHash": first.get("blockHash"), "usdPrices": prices}


def _figures(figures: rules.Figures, watch: Watch) -> dict[str, Any]:
    holder, position = figures.position.split(":", 1)
    return {
        "holder": holder,
        "position": position,
        "label": figures.label,
        "healthFactor": figures.health_factor,
        "dropToLiquidation": figures.drop,
        "liquidationPrices": figures.risk.get("liquidationPrices"),
        "oracle": figures.risk.get("oracle"),
        "thresholds": {
            name: {"below": t.below, "recoverAbove": t.recover_above} for name, t in watch.conditions.thresholds()
        },
    }


def _event(kind: str, watch: Watch, protocol: str, data: dict[str, Any]) -> dict[str, Any]:
    return webhooks.body(
        kind,
        {"watchId": watch.id, "chainId": watch.chain_id, "walletAddress": watch.wallet, "protocol": protocol, **data},
    )
