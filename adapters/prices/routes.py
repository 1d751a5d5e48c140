"""Protocols' own rates for their own tokens, wherever those appear (a Pendle PT as a lending
market's collateral, a Balancer pool's token in a vault): the second source's try after the
addresses data's `priceRates`.

Only a protocol's package knows which tokens are its own (Pendle's and Balancer's from their
index; Curve's by asking its factories), so the registry binds each package's route to its
addresses and the app's index (adapters/protocol.py), and each input is fetched `routing` by them
(resolvers/inputs.py). A route gives a `Rate` (one token's worth in one other) or, for a pool's
token, a `Basket` (its worth in each of the pool's tokens).
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


BASKET_DECIMALS = 18
"""A `Basket`'s amounts are of 10**BASKET_DECIMALS whole pool tokens: fine enough that rounding each amount down to
a raw unit loses nothing a USD figure shows."""


@dataclass(frozen=True)
class Basket:
    """What a pool's token is worth in the pool's tokens: what a proportional exit of it pays,
    by the pool's own balances and supply at the block. A trade moves them, so it is a market's."""

    contract: str
    """The contract its balances are read on (a leg's `priceSource`): Balancer's Vault, the Curve pool."""
    tokens: tuple[str, ...]
    """The pool's tokens (lower case), its own left out."""
    amounts: tuple[int, ...]
    """Raw units of each that 10**BASKET_DECIMALS whole pool tokens pay, rounded down."""
    balances: tuple[int, ...]
    """The pool's raw balances of each: the depth behind the price (`liquidityUsd`)."""


Routed = Rate | Basket
RateRoute = Callable[[ChainReader, str], Awaitable[Routed | None]]
"""(the input's reader, a token) -> its protocol's rate, None where the token is not the
protocol's own; PriceUnavailable where it is but has no rate."""


@dataclass(frozen=True)
class Routes:
    """The registry's routes, by how they know their tokens."""

    lookups: tuple[RateRoute, ...] = ()
    """Those that know with no round trip (an index): asked before any read of the token."""
    probes: tuple[RateRoute, ...] = ()
    """Those that ask the chain (Curve's factories): asked beside the ERC-4626 probe, in its round."""


_ROUTES: ContextVar[Routes | None] = ContextVar("price routes", default=None)


@contextmanager
def routing(routes: Routes) -> Iterator[None]:
    """While an input is fetched: the registry's routes (a test's fetch has none)."""
    token = _ROUTES.set(routes)
    try:
        yield
    finally:
        _ROUTES.reset(token)


async def routed_rate(reader: ChainReader, token: str) -> Routed | None:
    """The rate of the protocol whose token this is by its index, None where it is no such protocol's."""
    routes = _ROUTES.get()
    return await _first(reader, token, routes.lookups if routes else ())


async def probed_rate(reader: ChainReader, token: str) -> Routed | None:
    """The rate of the protocol that says the token is its own when asked, None where none does."""
    routes = _ROUTES.get()
    return await _first(reader, token, routes.probes if routes else ())


async def _first(reader: ChainReader, token: str, routes: tuple[RateRoute, ...]) -> Routed | None:
    found = await asyncio.gather(*(route(reader, token) for route in routes))
    return next((rate for rate in found if rate is not None), None)
