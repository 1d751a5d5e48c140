"""Liquid staking and restaking tokens on Ethereum, one adapter for several protocol names: each
name's module reads its own contracts (`etherfi.py`, `rocketpool.py`, `renzo.py`, `kelp.py`); every token's position
has the same shape (`tokens.py`). This module routes an input by its protocol."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapters.context import FetchContext, FetchFunction
from adapters.liquid_staking import etherfi, flows, kelp, renzo, rocketpool
from adapters.liquid_staking.contracts import withdraw_requests
from addresses import ChainAddresses
from chain.event_index import Stream

PROTOCOLS = ("etherfi", "rocketpool", "renzo", "kelp")
"""The protocol names this adapter answers, each a section of the addresses data."""
FETCH: dict[str, FetchFunction] = {
    "etherfi": etherfi.fetch,
    "rocketpool": rocketpool.fetch,
    "renzo": renzo.fetch,
    "kelp": kelp.fetch,
}


def chains(addresses: dict[int, ChainAddresses], protocol: str) -> frozenset[int]:
    return frozenset(chain_id for chain_id, chain in addresses.items() if getattr(chain, protocol) is not None)


async def fetch(ctx: FetchContext, wallet: str) -> dict[str, Any]:
    return await FETCH[ctx.protocol](ctx, wallet)


def etherfi_streams(chain: ChainAddresses) -> tuple[Stream, ...]:
    """ether.fi's withdraw request NFTs' Transfers, where the chain has ether.fi."""
    return (withdraw_requests(chain.etherfi),) if chain.etherfi else ()


def no_streams(chain: ChainAddresses) -> tuple[Stream, ...]:
    return ()


Streams = Callable[[ChainAddresses], tuple[Stream, ...]]
STREAMS: dict[str, Streams] = {
    "etherfi": etherfi_streams,
    "rocketpool": no_streams,
    "renzo": no_streams,
    "kelp": no_streams,
}


def entries(addresses: dict[int, ChainAddresses]) -> list[dict[str, Any]]:
    """Each protocol name's registry entry (protocols.py): its chains, this adapter's fetch and
    flows, and the event streams its discovery reads."""
    return [
        {
            "name": name,
            "chains": chains(addresses, name),
            "fetch": fetch,
            "streams": STREAMS[name],
            "flows": flows.flows,
        }
        for name in PROTOCOLS
    ]
