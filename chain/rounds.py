"""One reader's rounds: the calls and other JSON-RPC requests its callers issue, coalesced (the
DataLoader pattern) and sent together, so a GraphQL request's HTTP requests number its dependent
read rounds, not its calls.

Calls queue until IDLE_TICKS loop iterations pass with no new one and the previous round is back,
then leave together as Multicall3 `aggregate3` calls with `allowFailure` (chunked to `max_calls`
sub-calls, in JSON-RPC batches bounded by rpc_batches), so one failing sub-call fails only itself;
without Multicall3 they go as small JSON-RPC batches. A sub-call that failed with empty revert
data inside an `aggregate3` (an earlier sub-call may have used up the gas) is run again on its
own, at the same block, before it counts as its contract's failure.

Every read names its block by hash (EIP-1898's `{"blockHash": ...}`) once the hash is known and
the endpoint has shown it takes one (the head follower asks, chain/head.py), so a request's rounds
can never read two forks; an endpoint that refuses keeps number tags.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from chain.abi import AbiError, Function, decode
from chain.rpc import Endpoint, RpcError, RpcStats, clean, hex_bytes, safe_text
from chain.rpc_batches import Exchange
from errors import NetworkError, ProtocolError

log = logging.getLogger("wallet_positions.chain")

MULTICALL3 = "0xca11bde05977b3631167028862be2a173976ca11"
AGGREGATE3 = Function("aggregate3((address,bool,bytes)[])", "82ad56cb", ("(bool,bytes)[]",))
ERROR_STRING_SELECTOR = "08c379a0"
"""Error(string), the revert payload of `require(cond, "reason")`."""

IDLE_TICKS = 12
"""Loop iterations without a new call before a round leaves: callers resumed by the previous
round reach their next call through a few awaits (gather, shield, tasks); waiting a dozen
iterations, microseconds, lets all of them join the round instead of trailing into the next
(8 was measured too few for Morpho's discovery beside Aave and Compound inputs)."""

PLAIN_BATCH_SIZE = 20
"""eth_calls per JSON-RPC batch when a chain has no Multicall3: small, as public nodes cap it."""
MAX_CHUNK_CALLDATA = 128 * 1024
"""Sub-call calldata bytes per aggregate3 call (hex in JSON doubles it), beside `max_calls`."""


PINNED: Any = object()
"""Put in a ride-along request's params where its block goes: the round puts its block tag there."""


@dataclass(frozen=True)
class Pin:
    """The block a round reads: its number (for messages) and its hash where known."""

    number: int
    hash: str | None = None


@dataclass(frozen=True)
class _At:
    """A round's block: its number, for messages, and the block parameter its reads carry."""

    number: int
    tag: Any


class UndecodableReturn(ProtocolError):
    """A call succeeded but its return data does not decode as the function's outputs."""


class NoCode(ProtocolError):
    """A call succeeded with no data where the function returns some: no contract at the target
    (a call to an address without code succeeds), as for a pool address computed, never deployed."""


@dataclass
class Call:
    """An eth_call waiting for the next round."""

    target: str
    function: Function
    calldata: bytes
    label: str
    future: asyncio.Future[tuple[Any, ...]]
    alone: bool = False
    """Sent as a plain eth_call, not inside aggregate3: a re-run of a starved sub-call, or a call that
    writes before it answers (Function.writes), whose writes the batch's later calls would see."""


@dataclass
class _Raw:
    """Another JSON-RPC request that rides along in the next round's batch."""

    method: str
    params: list[Any]
    future: asyncio.Future[Any]


class Rounds:
    """The queue of one reader's requests, sent in rounds at its pinned block; each caller gets its
    own result or error. `multicall` is the reader's to set once it has pinned the block."""

    def __init__(
        self, endpoint: Endpoint, exchange: Exchange, stats: RpcStats, max_calls: int, pin: Callable[[], Awaitable[Pin]]
    ) -> None:
        self.endpoint = endpoint
        self.chain_id = endpoint.chain_id
        self.multicall = False
        """Whether Multicall3 has code at the pinned block (known once pinned)."""
        self._exchange = exchange
        self._stats = stats
        self._max_calls = max_calls
        self._pin = pin
        self._by_hash: bool | None = None
        """Whether this reader's rounds name their block by hash: decided at its first round, so
        a request never switches tags between rounds (the endpoint may be learnt meanwhile)."""
        self._pending: list[Call | _Raw] = []
        self._flush_scheduled = False
        self._idle_ticks = 0
        self._sending: set[asyncio.Task[None]] = set()

    async def read(self, call: Call) -> tuple[Any, ...]:
        """A call's answer from the next round."""
        self._queue(call)
        return await call.future

    async def ride_along(self, method: str, params: list[Any]) -> Any:
        """Another JSON-RPC request, sent with the next round's calls."""
        return await self.queued(method, params)

    def queued(self, method: str, params: list[Any]) -> asyncio.Future[Any]:
        """`ride_along` queued now, before the caller's next await: a round being pinned takes it."""
        raw = _Raw(method, params, asyncio.get_running_loop().create_future())
        self._queue(raw)
        return raw.future

    def cancel(self) -> None:
        """Stop the rounds in flight."""
        for task in self._sending:
            task.cancel()

    def _queue(self, item: Call | _Raw) -> None:
        self._pending.append(item)
        self._idle_ticks = 0
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._maybe_flush)

    def _maybe_flush(self) -> None:
        """Send the queue once IDLE_TICKS loop iterations pass in which no caller added to it, and no
        earlier round is still in flight: calls queued meanwhile, by any input, wait for it and
        then travel together, so inputs move in lockstep and rounds are shared."""
        loop = asyncio.get_running_loop()
        self._idle_ticks += 1
        if self._idle_ticks < IDLE_TICKS:
            loop.call_soon(self._maybe_flush)
            return
        if self._sending:
            self._flush_scheduled = False
            return
        self._flush_scheduled = False
        batch, self._pending = self._pending, []
        task = loop.create_task(self._send(batch))
        self._sending.add(task)
        task.add_done_callback(self._round_done)

    def _round_done(self, task: asyncio.Task[None]) -> None:
        self._sending.discard(task)
        if self._pending and not self._flush_scheduled:
            self._flush_scheduled = True
            self._idle_ticks = 0
            asyncio.get_running_loop().call_soon(self._maybe_flush)

    async def _send(self, batch: list[Call | _Raw]) -> None:
        """One round: every queued call (as aggregate3 chunks, or plain eth_calls) and every
        ride-along request in one JSON-RPC batch; each caller gets its own result or error."""
        try:
            pin = await self._pin()
            batch, self._pending = batch + self._pending, []  # what pinning queued (a probe) rides along
            at = _At(pin.number, self._tag(pin))
            calls = [item for item in batch if isinstance(item, Call)]
            raws = [item for item in batch if isinstance(item, _Raw)]
            grouped = [call for call in calls if not call.alone] if self.multicall else []
            plain = [call for call in calls if call.alone] if self.multicall else calls
            chunks = _chunks(grouped, self._max_calls)
            requests = (
                [_aggregate3(chunk, at.tag) for chunk in chunks]
                + [_eth_call(call, at.tag) for call in plain]
                + [(raw.method, [at.tag if param is PINNED else param for param in raw.params]) for raw in raws]
            )
            self._stats.subcalls += len(calls)
            self.endpoint.metrics.rpc_subcalls.labels(self.endpoint.label).inc(len(calls))
            answers = await self._exchange.rpc(requests, None if self.multicall else PLAIN_BATCH_SIZE)
            for raw, answer in zip(raws, answers[len(chunks) + len(plain) :]):
                _resolve(raw.future, answer)
            for call, answer in zip(plain, answers[len(chunks) :]):
                self._settle_plain(call, answer, at)
            await asyncio.gather(*(self._settle_chunk(chunk, answer, at) for chunk, answer in zip(chunks, answers)))
        except GeneratorExit:
            raise
        except BaseException as exc:
            error = exc if isinstance(exc, Exception) else asyncio.CancelledError()
            for item in batch:
                _resolve(item.future, error=error)
            if not isinstance(exc, Exception):
                raise

    def _tag(self, pin: Pin) -> Any:
        """The block parameter of the round's reads: the hash where the endpoint takes one."""
        if self._by_hash is None:
            self._by_hash = self.endpoint.hash_tags is True
        return {"blockHash": pin.hash} if pin.hash is not None and self._by_hash else hex(pin.number)

    async def _settle_chunk(self, chunk: list[Call], answer: Any, at: _At) -> None:
        """Give each call of a chunk its result. A whole aggregate3 that the EVM failed (one
        sub-call running it out of gas or memory, say) is split in halves and sent again, down
        to plain eth_calls, so that only the culprit fails. A sub-call that failed with empty
        revert data may have been starved of gas by an earlier one: it is queued to run alone."""
        if answer == "0x":
            self.multicall = False  # no Multicall3 at this block (chain/reader.py probes it alongside)
            await self._resend_plain(chunk, at)
            return
        try:
            if isinstance(answer, RpcError):
                raise AbiError(answer.message)
            (results,) = AGGREGATE3.decode(hex_bytes(answer, "aggregate3", self.chain_id))
            if len(results) != len(chunk):
                raise AbiError("result count differs from call count")
        except AbiError as exc:
            log.info(
                "aggregate3 of %d calls failed on chain %d (%s); splitting it",
                len(chunk),
                self.chain_id,
                clean(exc, 80),
            )
            await self._resend(chunk, at)
            return
        for call, (success, data) in zip(chunk, results):
            if not success and _empty_revert(data):
                self._queue(replace(call, alone=True))
            else:
                self.settle(call, at.number, data if success else None, None if success else data)

    async def _resend_plain(self, chunk: list[Call], at: _At) -> None:
        answers = await self._exchange.rpc([_eth_call(call, at.tag) for call in chunk], PLAIN_BATCH_SIZE)
        for call, answer in zip(chunk, answers):
            self._settle_plain(call, answer, at)

    async def _resend(self, chunk: list[Call], at: _At) -> None:
        if len(chunk) == 1:
            await self._resend_plain(chunk, at)
            return
        halves = [chunk[: len(chunk) // 2], chunk[len(chunk) // 2 :]]
        answers = await self._exchange.rpc([_aggregate3(half, at.tag) for half in halves])
        await asyncio.gather(*(self._settle_chunk(half, answer, at) for half, answer in zip(halves, answers)))

    def _settle_plain(self, call: Call, answer: Any, at: _At) -> None:
        if isinstance(answer, RpcError):
            self.settle(call, at.number, None, answer.data, answer.message)
            return
        try:
            self.settle(call, at.number, hex_bytes(answer, call.function.name, self.chain_id), None)
        except NetworkError as exc:
            _resolve(call.future, error=exc)

    def settle(self, call: Call, block: int, data: bytes | None, revert: Any, message: str = "") -> None:
        """A call's result from its return data, or its failure from its revert data; strings in
        the result are capped and stripped of control characters (rpc.safe_text)."""
        where = f"{call.label}: {call.function.name} on chain {self.chain_id} at block {block}"
        if data is None:
            reason = _revert_reason(revert, call.function) if revert else clean(message) or "no reason given"
            _resolve(call.future, error=ProtocolError(f"{where} reverted ({reason})."))
        elif not data and call.function.outputs:
            _resolve(call.future, error=NoCode(f"{where} returned no data (no contract code at {call.target}?)."))
        else:
            try:
                _resolve(call.future, _safe(call.function.decode(data)))
            except AbiError as exc:
                _resolve(call.future, error=UndecodableReturn(f"{where} returned undecodable data ({exc})."))


def _chunks(calls: list[Call], size: int) -> list[list[Call]]:
    """aggregate3 chunks of at most `size` sub-calls and MAX_CHUNK_CALLDATA bytes of calldata."""
    chunks: list[list[Call]] = []
    used = MAX_CHUNK_CALLDATA
    for call in calls:
        if used + len(call.calldata) > MAX_CHUNK_CALLDATA or len(chunks[-1]) >= size:
            chunks.append([])
            used = 0
        chunks[-1].append(call)
        used += len(call.calldata)
    return chunks


def _eth_call(call: Call, tag: Any) -> tuple[str, list[Any]]:
    return ("eth_call", [{"to": call.target, "data": "0x" + call.calldata.hex()}, tag])


def _aggregate3(chunk: list[Call], tag: Any) -> tuple[str, list[Any]]:
    return (
        "eth_call",
        [
            {
                "to": MULTICALL3,
                "data": "0x" + AGGREGATE3.calldata([(call.target, True, call.calldata) for call in chunk]).hex(),
            },
            tag,
        ],
    )


def _resolve(future: asyncio.Future[Any], result: Any = None, error: BaseException | None = None) -> None:
    """Settle a caller's future unless it is already settled (its caller may have been cancelled)."""
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


def _revert_reason(data: Any, function: Function) -> str:
    """The reason of an Error(string) revert payload, or the function's custom error it is, else
    a short description of it."""
    try:
        raw = bytes.fromhex(data[2:]) if isinstance(data, str) and data.startswith("0x") else data
    except ValueError:
        return "undecodable revert data"
    if not isinstance(raw, bytes) or not raw:
        return "no reason given"
    if raw[:4].hex() == ERROR_STRING_SELECTOR:
        try:
            return f"reason {clean(decode(['string'], raw[4:])[0])!r}"
        except AbiError:
            pass
    named = function.named_error(raw)
    return f"error {clean(named)}" if named else f"revert data 0x{raw[:36].hex()}"


def _safe(value: Any) -> Any:
    """A decoded return value with every string made safe (rpc.safe_text) before any use."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, tuple):
        items = [_safe(item) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, list):
        return [_safe(item) for item in value]
    return value


def _empty_revert(revert: Any) -> bool:
    return revert in (b"", "0x", None)
