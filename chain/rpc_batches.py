"""The JSON-RPC requests of one chain for one GraphQL request: grouped into batches bounded by count
and by bytes, each answer classified (rpc.classify), a node's failures retried alone with
backoff inside the budget, an oversized answer asked again in halves, a refused large batch
sent again in halves, and an endpoint that takes no batches asked one call at a time."""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Sequence
from typing import Any, cast

from chain.rpc import RATE_LIMITED, AnswerTooLarge, Endpoint, NodeFailure, RpcError, RpcStats, backoff, classify
from errors import HistoryUnavailable, NetworkError
from immutable_cache import weight

log = logging.getLogger("wallet_positions.chain")

MAX_BATCH_ITEMS = 50
"""JSON-RPC requests per HTTP request: a round larger than this (a cold history scan, thousands
of aggregate3 chunks) is split so that no single answer grows without bound."""
MAX_RPC_BODY_BYTES = 1024 * 1024
"""HTTP request body at most: batches are split by bytes too (anvil refuses about 2 MiB, geth
5 MiB, many providers less)."""
SPLIT_BYTES = 64 * 1024
"""A refused batch at least this large is split (every endpoint takes this much); a smaller one
refused means the endpoint refuses batches."""


class Exchange:
    """One chain's JSON-RPC traffic of one request (its endpoint, counters and deadline)."""

    def __init__(
        self,
        endpoint: Endpoint,
        stats: RpcStats,
        deadline: float,
        max_attempts: int,
        history: bool = False,
        shared: Coalescer | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.chain_id = endpoint.chain_id
        self.stats = stats
        self.deadline = deadline
        self.max_attempts = max_attempts
        self.history = history
        """Reads of an old block: a node that has no state there is pruned, and is not asked again."""
        self.shared = shared
        """Where the batches of the request's other readers of the chain ready at the same moment
        are sent with this one's as one HTTP request."""

    async def rpc(self, calls: Sequence[tuple[str, list[Any]]], batch_size: int | None = None) -> list[Any]:
        """Answers of `calls`, in order: results, or RpcError where the error is the answer (see
        rpc.classify). Calls the node failed are sent again, alone of the rest, with backoff while
        the budget allows; a failure that persists is a NetworkError for the whole round. Reads of an
        old block that the node has no state for fail at once with HistoryUnavailable."""
        loop = asyncio.get_running_loop()
        deadline, attempts = self.deadline, self.max_attempts
        answers: list[Any] = [None] * len(calls)
        todo = list(range(len(calls)))
        for attempt in range(1, attempts + 1):
            asked = [calls[i] for i in todo]
            got = await self._exchange(asked, batch_size)
            self._count(asked, got)
            failed = [(i, answer) for i, answer in zip(todo, got) if isinstance(answer, NodeFailure)]
            for i, answer in zip(todo, got):
                answers[i] = answer
            if not failed:
                if self.stats.reads is not None:
                    self.stats.reads.extend(
                        (method, params, answer) for (method, params), answer in zip(calls, answers)
                    )
                return answers
            todo, failure = [i for i, _ in failed], failed[0][1]
            if self.history and (pruned := [answer for _, answer in failed if answer.missing_state]):
                raise HistoryUnavailable(
                    f"The RPC endpoint for chain {self.chain_id} has no state that old "
                    f"(it {pruned[0].message}); an archive node has it."
                )
            log.warning(
                "node failure on chain %d (attempt %d of %d, %d of %d calls): %s",
                self.chain_id,
                attempt,
                attempts,
                len(failed),
                len(calls),
                failure.message,
            )
            delay = backoff(attempt)
            if attempt == attempts or loop.time() + delay >= deadline:
                break
            await asyncio.sleep(delay)
        raise NetworkError(f"The RPC endpoint for chain {self.chain_id} {failure.message}.")

    def _count(self, calls: Sequence[tuple[str, list[Any]]], answers: Sequence[Any]) -> None:
        """`wp_rpc_calls`: the answers by method and kind, one increment per distinct pair."""
        counts = collections.Counter(
            (
                method,
                "node_failure"
                if isinstance(answer, NodeFailure)
                else "answer_error"
                if isinstance(answer, RpcError)
                else "ok",
            )
            for (method, _), answer in zip(calls, answers)
        )
        endpoint = self.endpoint
        for (method, outcome), count in counts.items():
            endpoint.metrics.rpc_calls.labels(endpoint.label, method, outcome).inc(count)

    async def _exchange(self, calls: Sequence[tuple[str, list[Any]]], batch_size: int | None) -> list[Any]:
        """Classified answers of `calls`: one HTTP request per batch of `batch_size` (default
        MAX_BATCH_ITEMS), or one per call while the endpoint refuses batches."""
        if not self.endpoint.batches_supported or (len(calls) == 1 and self.shared is None):
            return list(await asyncio.gather(*(self.single(method, params) for method, params in calls)))
        groups = _groups(calls, batch_size or MAX_BATCH_ITEMS)
        alone = batch_size is not None or len(groups) > 1  # split on purpose: each goes as it was cut
        answers = await asyncio.gather(*(self._batch_or_halves(group, alone) for group in groups))
        if any(answer is None for answer in answers):
            self.endpoint.refuse_batches()
            return await self._exchange(calls, batch_size)
        return [item for answer in answers if answer is not None for item in answer]

    async def _batch_or_halves(self, group: list[tuple[str, list[Any]]], alone: bool = False) -> list[Any] | None:
        """A large batch the endpoint refuses (over its body limit) is sent again in halves; a
        small one refused means the endpoint takes no batches at all (None)."""
        answer = await self._batch(group, alone)
        if answer is not None or len(group) == 1 or sum(weight(params) for _, params in group) < SPLIT_BYTES:
            return answer
        half = len(group) // 2
        first, second = await asyncio.gather(
            self._batch_or_halves(group[:half], True), self._batch_or_halves(group[half:], True)
        )
        return None if first is None or second is None else first + second

    async def _batch(self, group: list[tuple[str, list[Any]]], alone: bool = False) -> list[Any] | None:
        """One JSON-RPC batch (riding with other readers' where shared, unless cut to a size on
        purpose); None if the endpoint refused the batch form. An answer over the size ceiling is
        asked again in halves, so no batch is cut short for good."""
        try:
            shared = self.shared if not alone else None
            return await (shared.post(self, group) if shared is not None else self.post(group))
        except AnswerTooLarge:
            if len(group) == 1:
                return [self._too_large()]
            half = len(group) // 2
            first, second = await asyncio.gather(self._batch(group[:half], True), self._batch(group[half:], True))
            return None if first is None or second is None else first + second

    async def post(self, group: list[tuple[str, list[Any]]]) -> list[Any] | None:
        """`group` in one HTTP request, each answer classified; None if the endpoint refused the
        batch form; AnswerTooLarge as the endpoint raised it."""
        payload = [
            {"jsonrpc": "2.0", "id": index, "method": method, "params": params}
            for index, (method, params) in enumerate(group)
        ]
        answer = await self.endpoint.post(payload, self.stats, self.deadline)
        if isinstance(answer, dict):
            return [RATE_LIMITED] * len(group) if classify(answer, "a batch", []) == RATE_LIMITED else None
        if not isinstance(answer, list):
            return None
        by_id = {item["id"]: item for item in answer if isinstance(item, dict) and isinstance(item.get("id"), int)}
        return [classify(by_id.get(index), method, params) for index, (method, params) in enumerate(group)]

    async def single(self, method: str, params: list[Any]) -> Any:
        """One call in an HTTP request of its own, classified."""
        try:
            answer = await self.endpoint.post(
                {"jsonrpc": "2.0", "id": 0, "method": method, "params": params}, self.stats, self.deadline
            )
        except AnswerTooLarge:
            return self._too_large()
        return classify(answer, method, params)

    def _too_large(self) -> NodeFailure:
        return NodeFailure(f"answered with more than {self.endpoint.max_response_bytes} bytes")


ALONE = object()
"""What a batch of a merged request that could not go merged gets: go alone."""


class Coalescer:
    """The batches of one request's readers of one chain (each pinned to its own block: a series'
    points, a figure's block a period back) that are ready in the same turn of the event loop,
    sent as one HTTP request within MAX_BATCH_ITEMS and MAX_RPC_BODY_BYTES: what a provider counts
    as requests, and what its connections carry, stay few however many blocks are read. A merged
    request the endpoint calls too large, or refuses, leaves each batch to go alone."""

    def __init__(self) -> None:
        self._pending: list[tuple[Exchange, list[tuple[str, list[Any]]], asyncio.Future[Any]]] = []
        self._sending: set[asyncio.Task[None]] = set()

    async def post(self, exchange: Exchange, group: list[tuple[str, list[Any]]]) -> list[Any] | None:
        """Exchange.post, riding with the other batches ready now."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if not self._pending:
            loop.call_soon(self._flush)
        self._pending.append((exchange, group, future))
        answer = await future
        if answer is not ALONE:
            return cast(list[Any] | None, answer)
        return await exchange.post(group) if len(group) > 1 else [await exchange.single(*group[0])]

    def _flush(self) -> None:
        pending, self._pending = self._pending, []
        packs: list[list[tuple[Exchange, list[tuple[str, list[Any]]], asyncio.Future[Any]]]] = []
        items = used = 0
        for entry in pending:
            size = sum(weight(params) + 64 for _, params in entry[1])
            full = items + len(entry[1]) > MAX_BATCH_ITEMS or used + size > MAX_RPC_BODY_BYTES
            if not packs or full or any(owner is entry[0] for owner, _, _ in packs[-1]):
                packs.append([])
                items = used = 0
            packs[-1].append(entry)
            items, used = items + len(entry[1]), used + size
        for pack in packs:
            if len(pack) == 1:
                _resolve(pack[0][2], ALONE)
                continue
            task = asyncio.ensure_future(self._send(pack))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    @staticmethod
    async def _send(pack: list[tuple[Exchange, list[tuple[str, list[Any]]], asyncio.Future[Any]]]) -> None:
        """One HTTP request for the pack's batches, each given its own answers back."""
        try:
            merged = await pack[0][0].post([call for _, group, _ in pack for call in group])
        except AnswerTooLarge:
            merged = None
        except BaseException as exc:
            for _, _, future in pack:
                if not future.done():
                    future.set_exception(exc if isinstance(exc, Exception) else asyncio.CancelledError())
            if not isinstance(exc, Exception):
                raise
            return
        start = 0
        for _, group, future in pack:
            _resolve(future, ALONE if merged is None else merged[start : start + len(group)])
            start += len(group)


def _resolve(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _groups(calls: Sequence[tuple[str, list[Any]]], size: int) -> list[list[tuple[str, list[Any]]]]:
    """JSON-RPC batches of at most `size` requests and about MAX_RPC_BODY_BYTES each (a request
    larger than that alone goes alone)."""
    groups: list[list[tuple[str, list[Any]]]] = []
    used = MAX_RPC_BODY_BYTES
    for call in calls:
        size_of = weight(call[1]) + 64
        if used + size_of > MAX_RPC_BODY_BYTES or len(groups[-1]) >= size:
            groups.append([])
            used = 0
        groups[-1].append(call)
        used += size_of
    return groups
