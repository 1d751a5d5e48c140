"""The protocol registry: protocol name -> async fetch function and the chains it serves.

A fetch function takes `(ctx, chain_id, wallet_address)` with the address already validated and
lower-cased, and returns the position object as a dict holding the fields of its GraphQL type
(`blockNumber` and the position lists). The resolver adds `protocol`, `chainId`,
`walletAddress` and `warnings` (from `ctx.warnings`), so an adapter cannot get them wrong. Failures are raised as the exceptions of
`errors.py`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Mapping

import aave
import compound
import morpho
from addresses import ChainAddresses
from chain import ChainReader, ChainRequest
from position_warnings import Warnings


@dataclass(frozen=True)
class FetchContext:
    """What an adapter gets besides its input; one per input."""

    deadline: float
    """Event-loop time (`loop.time()`) at which the input's budget ends, for an adapter's own
    waits; chain reads already carry the request's deadline, which is the same moment."""
    chains: ChainRequest
    warnings: Warnings = field(default_factory=Warnings)
    """What the answer lacks (parts left out, null figures); the resolver returns it as `warnings`."""

    def reader(self, chain_id: int) -> ChainReader:
        """The request's reader for a chain: pinned to one block, batching with other inputs."""
        return self.chains.reader(chain_id)


FetchFunction = Callable[[FetchContext, int, str], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Protocol:
    name: str
    type_name: str
    """The `<Protocol>WalletPositions` member of the `WalletPositions` union."""
    chains: frozenset[int]
    fetch: FetchFunction


Registry = Mapping[str, Protocol]


def registry(addresses: dict[int, ChainAddresses]) -> dict[str, Protocol]:
    """The protocols this service answers for, each on the chains its addresses data covers."""
    return {
        "morpho": Protocol("morpho", "MorphoWalletPositions", morpho.chains(addresses),
                           functools.partial(morpho.fetch, addresses)),
        "aave": Protocol("aave", "AaveWalletPositions", aave.chains(addresses),
                         functools.partial(aave.fetch, addresses)),
        "compound": Protocol("compound", "CompoundWalletPositions", compound.chains(addresses),
                             functools.partial(compound.fetch, addresses)),
    }
