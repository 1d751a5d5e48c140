"""One input answered: its adapter called under the input's time budget at its block, its answer
kept per input and block (in this process, and shared with the other replicas), its provenance
recorded where asked. Every root field's input, a series' point and a portfolio's check is
answered here (schema.py shapes the answers into the fields)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from adapters.context import FetchFunction
from adapters.prices import Routes, noting_prices, routing, used_prices
from adapters.protocol import price_routes
from chain import ChainReader, ChainRequest, shared_future
from chain.event_index import Indexes
from chain.provenance import entries as provenance_entries
from errors import BudgetExceeded, PositionError
from immutable_cache import ImmutableCache
from metrics import Outcome
from protocols import Protocol, Registry
from resolvers.watches import Watches

log = logging.getLogger("wallet_positions.resolver")

INTERNAL_ERROR = "Internal error while reading positions; it has been logged."
InputKey = tuple[str, str, int, str, "int | None", "str | None", bool]
"""(root field, protocol, chain, address, block, block hash, provenance): what names one input's fetch."""


class SharedAnswers(typing.Protocol):
    """Answers the replicas share (replicas/answers.py), asked after a miss of `answers`: `get`
    is None for whatever Redis cannot answer, and `put` never waits for it."""

    async def get(self, key: tuple[Any, ...]) -> dict[str, Any] | None: ...

    def put(self, key: tuple[Any, ...], answer: dict[str, Any]) -> None: ...

    async def close(self) -> None:
        """What the server calls at shutdown."""


@dataclass
class RequestContext:
    """Per-request state shared by every root field of one operation."""

    registry: Registry
    input_timeout: float
    chains: ChainRequest
    indexes: Indexes
    answers: ImmutableCache
    """Answers kept across requests per input and block (`fetch_input`); a bound of 0 bytes keeps none."""
    shared: SharedAnswers | None = None
    """The same, shared with the other replicas through Redis (None: REDIS_URL unset, or sharing off)."""
    outcomes: list[Outcome] = field(default_factory=list)
    """One per resolved input, for the access log and the metrics."""
    fetches: dict[InputKey, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    series_points: int = 0
    """Points the operation's `positionsHistory` fields asked so far (series.SERIES_BUDGET)."""
    owner: str = ""
    """The name of the calling key (whose watches the watch fields read and write)."""
    watches: Watches | None = None
    """The watch fields' store and rules; None where the server runs none."""

    @functools.cached_property
    def routes(self) -> Routes:
        """The protocols' rates of their own tokens, for their prices wherever they appear."""
        return price_routes(self.registry.values(), self.indexes)


@contextlib.contextmanager
def unexpected(timed_out: str, what: str, chain_id: int) -> Iterator[None]:
    """A time budget's end as TIMEOUT (`timed_out` says which), anything unexpected as
    UNKNOWN_ERROR with its detail in the log only; a PositionError as it is."""
    try:
        yield
    except PositionError:
        raise
    except TimeoutError:
        raise BudgetExceeded(timed_out) from None
    except Exception:
        log.exception("unexpected failure in %s (chain %d)", what, chain_id)
        raise PositionError(INTERNAL_ERROR) from None


def recorded(chains: ChainRequest, position: dict[str, Any]) -> list[dict[str, str]]:
    """The reads the answer was made of (chain/provenance.py), its block's header first."""
    header = {"number": hex(position["blockNumber"]), "hash": position["blockHash"]}
    header["timestamp"] = hex(position["blockTimestamp"])
    reads = chains.stats.reads or []
    return provenance_entries([("eth_getBlockByHash", [position["blockHash"], False], header), *reads])


async def fetch_input(
    protocol: Protocol, function: FetchFunction, key: InputKey, request: RequestContext, gated: bool = True
) -> dict[str, Any]:
    """One adapter call under the input's time budget, at the input's block; anything unexpected
    is UNKNOWN_ERROR.

    An answer is kept per input and block, the block named by its hash (ChainReader.block_key),
    so the same input at the same block is answered again without an RPC request, and a
    reorganised block's answer is never served for its successor; with `request.shared`, other
    replicas answer it too. Not kept: failures, and answers whose warnings a retry could clear
    (Warnings.retryable). What is kept is the adapter's whole answer, whatever the selection:
    every selection of the input shares it."""
    _, _, chain_id, address, block, block_hash, provenance = key
    budget = request.input_timeout
    chains = request.chains.chains.request(request.chains.deadline, recorded=True) if provenance else request.chains
    context = protocol.context(
        asyncio.get_running_loop().time() + budget, chains, request.indexes, chain_id, block, block_hash
    )
    if gated:  # not `gated`: a read of the protocol's chain that is not its own (the accounts' discovery)
        protocol.existed(chain_id, block)
    kept: Kept = (None, None)
    with unexpected(f"The input did not resolve within its time budget of {budget:g} s.", protocol.name, chain_id):
        async with asyncio.timeout(budget):
            reader = context.reader()
            if protocol.kept and not provenance:
                kept, answer = await recalled(request, reader, key)
                if answer is not None:
                    return answer
            header = shared_future(reader.block_header()) if protocol.kept else None
            with noting_prices(reader) as prices, routing(request.routes), planned(request, reader, key):
                position = await (protocol.answer(function, context, address) if gated else function(context, address))
            if not isinstance(position, dict):
                raise TypeError(f"fetch returned {type(position).__name__}, not a dict")
            position.setdefault("usdPrices", used_prices(prices, position))
            # The pinned reader's block, its hash and its time (a given block's header rides with the
            # adapter's first round); a test's stand-in that reads no chain gives its own.
            if "blockNumber" not in position:
                position["blockNumber"] = await reader.block_number()
            if "blockHash" not in position:
                head = await (header if header is not None else reader.block_header())
                position["blockHash"], position["blockTimestamp"] = head.hash, head.timestamp
            if provenance:
                position["provenance"] = recorded(chains, position)
                request.chains.stats.requests += chains.stats.requests  # the access line counts them
                request.chains.stats.subcalls += chains.stats.subcalls
        position["warnings"] = context.warnings.as_list()
    here, there = kept
    if here is not None and not context.warnings.retryable:
        request.answers.put(here, position)
        if there is not None and request.shared is not None:
            request.shared.put(there, position)
    return position


def planned(request: RequestContext, reader: ChainReader, key: InputKey) -> contextlib.AbstractContextManager[None]:
    """The input's plan started (its last answer's calls in rounds, in this answer's first round),
    and this answer's calls recorded as its next (chain/plans.py); neither with provenance."""
    if key[6]:
        return contextlib.nullcontext()
    plans = request.chains.chains.plans
    reader.plan(plans.get(key[:4]))
    return plans.recording(key[:4], reader)


Kept = tuple["tuple[Any, ...] | None", "tuple[Any, ...] | None"]
"""Where an answer is kept: in this process, and shared with the other replicas."""


async def recalled(request: RequestContext, reader: ChainReader, key: InputKey) -> tuple[Kept, dict[str, Any] | None]:
    """Where the input's answer at the reader's block is kept (neither where no block hash names
    the block without a round trip), and the answer if this process or, after a miss, the other
    replicas hold it (then kept here too)."""
    answers, shared = request.answers, request.shared
    if (answers.max_bytes == 0 and shared is None) or (block_key := await reader.block_key()) is None:
        return (None, None), None
    block = await reader.block_number(probed=False)  # no Multicall3 probe: a hit needs none
    here, there = (*key[:4], block, block_key), None
    answer = answers.get(here)
    if shared is not None and (shared_key := await reader.block_key(shared=True)) is not None:
        there = (*key[:4], block, shared_key)
        if answer is None and (answer := await shared.get(there)) is not None:
            answers.put(here, answer)
    return (here, there), answer
