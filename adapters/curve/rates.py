"""A Curve pool's LP token priced wherever it appears (a vault's asset, a Pendle SY's), by what a
proportional `remove_liquidity` of it pays; Curve's own positions value their LP the same way
(figures.py).

- Which tokens are Curve's: a pool of a factory whose pools are their own LP token (every factory
  but the v2 crypto factory: stableswap, crvUSD, stableswap-ng, twocrypto-ng, tricrypto-ng), as
  the factory's `get_coins(token)` lists coins of it (zeros, or none, for a token it did not
  make). Curve keeps no index, so the factories are asked, in the round of the ERC-4626 probe.
  Not found here: the LP tokens of the v2 crypto factory's and the older registries' pools
  (3pool's 3CRV), which are not the pool itself.
- The basket: each coin's `balances(i)` x 10^18 whole LP / `totalSupply()`, rounded down, each coin
  priced by the order of sources (adapters/prices/). The pool is the contract read.
"""

from __future__ import annotations

import asyncio

from adapters.curve.contracts import BALANCES, coins_view, has_token
from adapters.curve.section import CurveAddresses
from adapters.position_warnings import PriceUnavailable, outcome
from adapters.prices import BASKET_DECIMALS, Basket
from chain import ChainReader, first
from chain.abi import ZERO_ADDRESS
from chain.erc20 import DECIMALS, TOTAL_SUPPLY
from chain.event_index import Indexes
from errors import ProtocolError


async def rate(indexes: Indexes, curve: CurveAddresses, reader: ChainReader, token: str) -> Basket | None:
    """A pool's LP basket; None for a token no factory (of those whose pools are their LP) made."""
    factories = [factory for factory in curve.factories if not has_token(factory)]
    listed = await asyncio.gather(
        *(
            outcome(first(reader.call(factory.address, coins_view(factory), token, label=f"Curve {factory.name}")))
            for factory in factories
        )
    )
    made = (
        [str(coin).lower() for coin in found if coin != ZERO_ADDRESS]
        for found in listed
        if not isinstance(found, ProtocolError)
    )
    held = next((coins for coins in made if coins), None)
    if held is None:
        return None
    label = f"Curve pool {token}"
    try:
        balances, (supply,), (decimals,) = await asyncio.gather(
            asyncio.gather(*(first(reader.call(token, BALANCES, i, label=label)) for i in range(len(held)))),
            reader.call(token, TOTAL_SUPPLY, label=label),
            reader.call(token, DECIMALS, label=label),
        )
    except ProtocolError as exc:
        raise PriceUnavailable(f"its Curve pool's balances or supply failed: {exc.message}") from None
    whole = 10 ** (BASKET_DECIMALS + decimals)
    amounts = tuple(balance * whole // supply if supply else 0 for balance in balances)
    return Basket(token, tuple(held), amounts, tuple(balances))
