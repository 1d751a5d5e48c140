"""What a protocol adapter gets besides its input. A leaf of the adapters: adapters import it, and
the registry (protocols.py), which imports the adapters, does too."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from adapters.position_warnings import Warnings
from addresses import ChainAddresses
from chain import ChainReader, ChainRequest
from chain.event_index import Indexes, Stream, View

Shape = TypeVar("Shape", covariant=True)
"""Covariant (the context is frozen): a protocol whose section extends another's (PancakeSwap's
Uniswap section) hands its context to the other's reads."""


@dataclass(frozen=True)
class FetchContext(Generic[Shape]):
    """What an adapter gets besides its input; one per input: the input's chain with its addresses,
    and its protocol's own part of them (`section`, typed by the protocol's declaration), its
    block, the request's readers and the app's event index."""

    deadline: float
    """Event-loop time (`loop.time()`) at which the input's budget ends, for an adapter's own
    waits; chain reads already carry the request's deadline, which is the same moment."""
    chains: ChainRequest
    indexes: Indexes
    """The app's event index, which sits above the chain reader (chain/event_index.py)."""
    chain: ChainAddresses
    """The input's chain and what the addresses data holds for it."""
    protocol: str
    """The input's protocol (one adapter may serve several: the vault-style ones, Aave and Spark)."""
    block: int | None = None
    """The block the client asked for (`blockNumber`); None for the newest."""
    block_hash: str | None = None
    """The block the client asked for by its hash (`blockHash`), lower case; None if not given."""
    warnings: Warnings = field(default_factory=Warnings)
    """What the answer lacks (parts left out, null figures); the resolver returns it as `warnings`."""
    section: Shape = field(kw_only=True)
    """The protocol's part of the chain's addresses data, as its declaration finds it
    (adapters/protocol.py): never None on a chain the protocol serves."""

    @property
    def chain_id(self) -> int:
        return self.chain.chain_id

    def reader(self) -> ChainReader:
        """The request's reader for the input's chain at its block (the newest, or the one the
        client asked for), batching with the other inputs at that block."""
        return self.chains.reader(self.chain_id, self.block, self.block_hash)

    async def events(self, stream: Stream) -> View:
        """`stream` as of the reader's block: the app keeps the settled part on disk; within a
        request every input at that block shares one read of the rest."""
        reader = self.reader()
        view = await reader.shared(("events", stream.name), lambda: self.indexes.view(reader, stream))
        if (reads := self.chains.stats.reads) is not None:
            # What the view held: stored to `covered_to`, whose hash the index keeps as a checkpoint.
            reads.append(("index", [stream.name, stream.start_block, view.covered_to], view.progress.block_hash))
        return view

    async def stored_events(self, stream: Stream) -> View:
        """`stream`'s stored part only, as of the reader's block, read with no round trip: the
        keys to send one-call reads for while `events` reads the rest in that same round."""
        return await self.indexes.stored(self.reader(), stream)


FetchFunction = Callable[[FetchContext[Any], str], Awaitable[dict[str, Any]]]
"""An adapter: (context, wallet or pool address, validated and lower-cased) -> its answer's fields
(the position lists, or {"details"}); the resolver adds the input's own fields and its block's."""
