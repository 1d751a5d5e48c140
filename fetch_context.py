"""What a protocol adapter gets besides its input. A leaf module: adapters import it, and the
registry (protocols.py), which imports the adapters, does too."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from chain import ChainReader, ChainRequest
from position_warnings import Warnings


@dataclass(frozen=True)
class FetchContext:
    """What an adapter gets besides its input; one per input."""

    deadline: float
    """Event-loop time (`loop.time()`) at which the input's budget ends, for an adapter's own
    waits; chain reads already carry the request's deadline, which is the same moment."""
    chains: ChainRequest
    block: int | None = None
    """The block the client asked for (`blockNumber`); None for the newest."""
    warnings: Warnings = field(default_factory=Warnings)
    """What the answer lacks (parts left out, null figures); the resolver returns it as `warnings`."""

    def reader(self, chain_id: int) -> ChainReader:
        """The request's reader for a chain at the input's block (the newest, or the one the client
        asked for), batching with the other inputs at that block."""
        return self.chains.reader(chain_id, self.block)


FetchFunction = Callable[[FetchContext, int, str], Awaitable[dict[str, Any]]]
