"""Protocols' own rates for their own tokens, wherever those appear (a Pendle PT as a lending
market's collateral): the second source's try after the addresses data's `priceRates`.

Only a protocol's package knows which tokens are its own (Pendle's from its index), so the
registry binds each package's route to its addresses and the app's index (adapters/protocol.py),
and each input is fetched `routing` by them (resolvers/inputs.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from chain import ChainReader


@dataclass(frozen=True)
class Rate:
    """What one token of a protocol's is worth in another, by the protocol's own contract."""

    contract: str
    """The contract read (a leg's `priceSource`)."""
    of: str
    """The token it is a claim on (lower case)."""
    rate: int
    """Scaled by 1e18: whole `of` per whole token, or raw per raw where `decimals` is given."""
    decimals: int | None = None
    """This token's decimals where the rate is of raw units; None where of whole ones."""
    window: int | None = None
    """The seconds a time-weighted rate averages over."""
    market: bool = False
    """Whether the rate follows a market's trades (Pendle's implied rate): no liquidation check uses it."""


RateRoute = Callable[[ChainReader, str], Awaitable[Rate | None]]
"""(the input's reader, a token) -> its protocol's rate, None where the token is not the
protocol's own (known without a round trip); PriceUnavailable where it is but has no rate."""

_ROUTES: ContextVar[tuple[RateRoute, ...]] = ContextVar("price routes", default=())


@contextmanager
def routing(routes: tuple[RateRoute, ...]) -> Iterator[None]:
    """While an input is fetched: the registry's routes (a test's fetch has none)."""
    token = _ROUTES.set(routes)
    try:
        yield
    finally:
        _ROUTES.reset(token)


async def routed_rate(reader: ChainReader, token: str) -> Rate | None:
    """The rate of the protocol whose token this is, None where it is no protocol's."""
    found = await asyncio.gather(*(route(reader, token) for route in _ROUTES.get()))
    return next((rate for rate in found if rate is not None), None)
