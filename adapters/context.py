"""What a protocol adapter gets besides its input. A leaf of the adapters: adapters import it, and
the registry (protocols.py), which imports the adapters, does too."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from adapters.position_warnings import Warnings
from chain import ChainReader, ChainRequest
from chain.event_index import Indexes, Stream, View


@dataclass(frozen=True)
class FetchContext:
    """What an adapter gets besides its input; one per input."""

    deadline: float
    """Event-loop time (`loop.time()`) at which the input's budget ends, for an adapter's own
    waits; chain reads already carry the request's deadline, which is the same moment."""
    chains: ChainRequest
    indexes: Indexes
    """The app's event index, which sits above the chain reader (chain/event_index.py)."""
    block: int | None = None
    """The block the client asked for (`blockNumber`); None for the newest."""
    warnings: Warnings = field(default_factory=Warnings)
    """What the answer lacks (parts left out, null figures); the resolver returns it as `warnings`."""

    def reader(self, chain_id: int) -> ChainReader:
        """The request's reader for a chain at the input's block (the newest, or the one the client
        asked for), batching with the other inputs at that block."""
        return self.chains.reader(chain_id, self.block)

    async def events(self, chain_id: int, stream: Stream) -> View:
        """`stream` as of the reader's block: the app keeps the settled part on disk; within a
        request every input at that block shares one read of the rest."""
        reader = self.reader(chain_id)
        return await reader.shared(("events", stream.name), lambda: self.indexes.view(reader, stream))

    async def stored_events(self, chain_id: int, stream: Stream) -> View:
        """`stream`'s stored part only, as of the reader's block, read with no round trip: the
        keys to send one-call reads for while `events` reads the rest in that same round."""
        return await self.indexes.stored(self.reader(chain_id), stream)


FetchFunction = Callable[[FetchContext, int, str], Awaitable[dict[str, Any]]]
