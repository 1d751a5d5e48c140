"""Curve's lending pools' wrapped coins (compound and usdt: cTokens; y, busd and pax: yTokens; aave
and saave: aTokens; ib: Iron Bank's cyTokens): what each is in the token it wraps, and its USD
through that token's feed (no feed prices a wrapper).

- A coin wraps another where the pool's `underlying_coins(i)` (int128 index on the oldest pools,
  whose coins are by int128 too; uint256 on aave, saave and ib) answers and differs from `coins(i)`;
  on most pools it reverts, read in the round of `balances(i)`, so they pay no round for it.
- The wrapper's rate, 1e18 scale: 1e18 where its `UNDERLYING_ASSET_ADDRESS()` is the underlying
  (an aToken, one for one), else its `exchangeRateStored()` (cToken, cyToken), else its
  `getPricePerFullShare()` (yToken): all three read in one round, as @curvefi/api's pools
  (`_getRates`) take them. The underlying amount is the coin's amount x rate / 1e18, rounded down,
  in the underlying's raw units; none of the three answering leaves it and its USD null, named
  by a warning.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from adapters.curve.contracts import UNDERLYING_COINS, UNDERLYING_COINS_INT128
from adapters.formats import raw
from adapters.position_warnings import FIGURE_UNAVAILABLE, Warnings, outcome
from adapters.prices import UsdPrice, warned_usd_price
from addresses import ChainAddresses
from chain import ChainReader, erc20, first
from chain.abi import ZERO_ADDRESS, Function
from errors import ProtocolError

EXCHANGE_RATE_STORED = Function("exchangeRateStored()", "182df0f5", ("uint256",))
"""A cToken's (and Iron Bank's cyToken's) underlying per token, 1e18 scale (@curvefi/api's cERC20.json)."""
GET_PRICE_PER_FULL_SHARE = Function("getPricePerFullShare()", "77c7b8fc", ("uint256",))
"""A yToken's underlying per share, 1e18 scale (@curvefi/api's yERC20.json)."""
UNDERLYING_ASSET_ADDRESS = Function("UNDERLYING_ASSET_ADDRESS()", "b16a19de", ("address",))
"""An aToken's underlying (Aave's AToken), which it is worth one for one."""
ONE = 10**18
"""The rates' scale."""
RATE_VIEWS = (UNDERLYING_ASSET_ADDRESS, EXCHANGE_RATE_STORED, GET_PRICE_PER_FULL_SHARE)
"""A wrapper's candidate rate views, in the order `wrapped` takes them."""


@dataclass(frozen=True)
class Wrapped:
    """A wrapped coin's underlying token (TokenInfo), its rate (None where the wrapper answers no
    rate view) and the underlying's USD price."""

    token: dict[str, Any]
    rate: int | None
    price: UsdPrice | None

    def amount(self, amount: int) -> int | None:
        """`amount` of the wrapper in the underlying's raw units, rounded down."""
        return None if self.rate is None else amount * self.rate // ONE

    def usd(self, amount: int) -> Fraction | None:
        underlying = self.amount(amount)
        if underlying is None or self.price is None:
            return None
        return self.price.exact(underlying, self.token["decimals"])

    def row(self, amount: int) -> dict[str, Any]:
        """`CurveUnderlyingCoin` of `amount` of the wrapper."""
        usd = self.usd(amount)
        return {
            "token": self.token,
            "rate": raw(self.rate),
            "amount": raw(self.amount(amount)),
            "amountUsd": None if usd is None else float(usd),
        }


async def underlying_coins(reader: ChainReader, pool: str, coins: list[str], legacy: bool) -> list[str | None]:
    """Each coin's underlying (`underlying_coins(i)`, by int128 where the coins are), None where
    the pool has none or it is the coin itself."""
    view = UNDERLYING_COINS_INT128 if legacy else UNDERLYING_COINS
    found = await asyncio.gather(
        *(outcome(first(reader.call(pool, view, i, label=f"Curve pool {pool}"))) for i in range(len(coins)))
    )
    return [
        None if isinstance(under, ProtocolError) or under.lower() in (coin.lower(), ZERO_ADDRESS) else under
        for coin, under in zip(coins, found)
    ]


async def wrapped(
    reader: ChainReader, chain: ChainAddresses, coin: str, underlying: str | None, warnings: Warnings
) -> Wrapped | None:
    """The wrapper `coin` of `underlying` (None: the coin wraps nothing): its rate views in one round."""
    if underlying is None:
        return None
    label = f"Curve wrapped coin {coin}"
    info, price, asset, stored, per_share = await asyncio.gather(
        erc20.token_info(reader, underlying),
        warned_usd_price(reader, chain, underlying, warnings),
        *(outcome(first(reader.call(coin, view, label=label))) for view in RATE_VIEWS),
    )
    if isinstance(asset, str) and asset.lower() == underlying.lower():
        rate: int | None = ONE
    elif not isinstance(stored, ProtocolError):
        rate = stored
    elif not isinstance(per_share, ProtocolError):
        rate = per_share
    else:
        rate = None
        warnings.add(
            FIGURE_UNAVAILABLE,
            coin,
            f"underlying amount and USD values are null: the coin wraps {underlying.lower()} (the pool's "
            "underlying_coins) but answers none of exchangeRateStored(), getPricePerFullShare() and "
            "UNDERLYING_ASSET_ADDRESS() naming it",
        )
    return Wrapped(info, rate, price)
