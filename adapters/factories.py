"""Which factory vouches for a contract: a pool's kind, from the registries factories keep of what
they created (MetaMorpho's `isMetaMorpho`, Vault V2's `isVaultV2`, Pendle's `isValidMarket`).
Asked at the request's block, so the answer is exact whatever the event index has reached."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from adapters.position_warnings import outcome
from chain import ChainReader, first
from chain.abi import Function
from errors import ProtocolError

Probe = tuple[str, Function, str]
"""(factory address, its `is...(address) -> bool` view, the kind it vouches for)."""


async def vouched_kind(reader: ChainReader, probes: Sequence[Probe], address: str) -> str | None:
    """The kind of the first factory that says it created `address`; None when none does. A
    factory whose view fails is a ProtocolError, unless another one vouches."""
    answers = await asyncio.gather(
        *(
            outcome(first(reader.call(factory, view, address, label=f"factory {factory}")))
            for factory, view, _ in probes
        )
    )
    for (_, _, kind), answer in zip(probes, answers):
        if not isinstance(answer, ProtocolError) and answer:
            return kind
    for answer in answers:
        if isinstance(answer, ProtocolError):
            raise answer
    return None
