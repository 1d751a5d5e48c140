"""A Curve pool's LP token priced wherever it appears (a vault's asset, a Pendle SY's), by what a
proportional `remove_liquidity` of it pays; Curve's own positions value their LP the same way
(figures.py).

- Which tokens are Curve's, asked in the round of the ERC-4626 probe (Curve keeps no index): a
  pool of a factory whose pools are their own LP token (every factory but the v2 crypto
  factory), as the factory's `get_coins(token)` lists coins of it (zeros, or none, for a token
  it did not make); with them, the older registries the AddressProvider names at the block
  (sources.older_registries). Where no factory made it, each registry's
  `get_pool_from_lp_token(token)` (3pool's 3CRV, the stETH pool's steCRV), a round later. Not
  found here: the LP tokens of the v2 crypto factory's pools, which no view maps back to their pool.
- The basket: each coin's balance x 10^18 whole LP / the LP's `totalSupply()`, rounded down:
  the pool's `balances(i)` for a factory's pool, the registry's `get_coins(pool)` and
  `get_balances(pool)` (the oldest pools index theirs by int128) for a registry's, each coin
  priced by the order of sources (adapters/prices/). The pool is the contract stated.
lenses/Prices.sol records these reads where a lens prices the tokens it finds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from adapters.curve.contracts import (
    BALANCES,
    GET_BALANCES_8,
    GET_COINS_8,
    GET_POOL_FROM_LP_TOKEN,
    coins_view,
    has_token,
)
from adapters.curve.section import CurveAddresses, CurveFactory
from adapters.curve.sources import older_registries
from adapters.position_warnings import PriceUnavailable, outcome
from adapters.prices import BASKET_DECIMALS, Basket
from chain import ChainReader, first
from chain.abi import ZERO_ADDRESS
from chain.erc20 import DECIMALS, TOTAL_SUPPLY
from chain.event_index import Indexes
from errors import ProtocolError


async def rate(indexes: Indexes, curve: CurveAddresses, reader: ChainReader, token: str) -> Basket | None:
    """A pool's LP basket; None for a token no factory or older registry knows as an LP token."""
    factories = [factory for factory in curve.factories if not has_token(factory)]
    listed, registries = await asyncio.gather(
        asyncio.gather(
            *(
                outcome(first(reader.call(factory.address, coins_view(factory), token, label=f"Curve {factory.name}")))
                for factory in factories
            )
        ),
        outcome(older_registries(reader, curve)),
    )
    answered = (found for found in listed if not isinstance(found, ProtocolError))
    held = next((coins for coins in map(_coins, answered) if coins), None)
    if held is not None:
        return await _own_pool(reader, token, held)
    if isinstance(registries, ProtocolError) or not registries:
        return None
    pools = await asyncio.gather(
        *(
            outcome(first(reader.call(registry.address, GET_POOL_FROM_LP_TOKEN, token, label=f"Curve {registry.name}")))
            for registry in registries
        )
    )
    for registry, pool in zip(registries, pools):
        if isinstance(pool, str) and pool != ZERO_ADDRESS:
            return await _registry_pool(reader, registry, pool.lower(), token)
    return None


async def _own_pool(reader: ChainReader, pool: str, coins: list[str]) -> Basket:
    """A factory's pool, its own LP token: its `balances(i)`."""
    label = f"Curve pool {pool}"
    try:
        balances, supply = await asyncio.gather(
            asyncio.gather(*(first(reader.call(pool, BALANCES, i, label=label)) for i in range(len(coins)))),
            _supply(reader, pool),
        )
    except ProtocolError as exc:
        raise PriceUnavailable(f"its Curve pool's balances or supply failed: {exc.message}") from None
    return _basket(pool, coins, balances, *supply)


async def _registry_pool(reader: ChainReader, registry: CurveFactory, pool: str, token: str) -> Basket:
    """An older registry's pool, with an LP token of its own: the registry's coins and balances of it."""
    label = f"Curve {registry.name}"
    try:
        coins, balances, supply = await asyncio.gather(
            first(reader.call(registry.address, GET_COINS_8, pool, label=label)),
            first(reader.call(registry.address, GET_BALANCES_8, pool, label=label)),
            _supply(reader, token),
        )
    except ProtocolError as exc:
        raise PriceUnavailable(f"its Curve pool {pool}'s coins, balances or supply failed: {exc.message}") from None
    held = _coins(coins)
    return _basket(pool, held, balances[: len(held)], *supply)


async def _supply(reader: ChainReader, token: str) -> tuple[int, int]:
    """The LP token's `totalSupply()` and `decimals()`."""
    label = f"Curve LP token {token}"
    (supply,), (decimals,) = await asyncio.gather(
        reader.call(token, TOTAL_SUPPLY, label=label), reader.call(token, DECIMALS, label=label)
    )
    return supply, decimals


def _basket(pool: str, coins: list[str], balances: Sequence[int], supply: int, decimals: int) -> Basket:
    """What 10^BASKET_DECIMALS whole LP tokens pay of each coin: balance x that / supply, rounded down."""
    whole = 10 ** (BASKET_DECIMALS + decimals)
    amounts = tuple(balance * whole // supply if supply else 0 for balance in balances)
    return Basket(pool, tuple(coins), amounts, tuple(balances))


def _coins(found: Sequence[str]) -> list[str]:
    """A `get_coins` answer's coins, lower case, up to its zeros."""
    return [str(coin).lower() for coin in found if coin != ZERO_ADDRESS]
