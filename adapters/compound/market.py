"""A Comet's rates and prices as both queries give them, so a position and its market's pool
details never disagree: APR and APY of a per-second rate, Comet's price of a feed and its USD
per raw unit."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import cast

from adapters.compound.contracts import GET_PRICE, PRICE_SCALE, SECONDS_PER_YEAR, WAD
from adapters.position_warnings import PriceUnavailable
from chain import ChainReader
from errors import ProtocolError


def apr(rate: int) -> float:
    """Compound's documented APR of a per-second rate (1e18)."""
    return rate * SECONDS_PER_YEAR / WAD


def apy(rate: int) -> float:
    """The per-second rate compounded over the year."""
    try:
        return math.expm1(SECONDS_PER_YEAR * math.log1p(rate / WAD))
    except OverflowError:
        raise ProtocolError(f"a Comet reports a rate of {rate} per second, too large to be an APY") from None


def usd_per_unit(
    price: int | ProtocolError, scale: int, unit_usd: Fraction | ProtocolError | None
) -> Fraction | ProtocolError | None:
    """USD per raw unit: Comet's price is per whole unit (`scale` raw units), 8 decimals, in the
    market's currency, worth `unit_usd` (None: no feed for that currency)."""
    if isinstance(price, ProtocolError):
        return price
    if isinstance(unit_usd, ProtocolError):
        return unit_usd
    return None if unit_usd is None else Fraction(price, scale * PRICE_SCALE) * unit_usd


async def comet_price(reader: ChainReader, comet: str, feed: str, label: str) -> int:
    """Comet's price for a feed; PriceUnavailable when Comet refuses it."""
    try:
        (price,) = await reader.call(comet, GET_PRICE, feed, label=label)
    except ProtocolError as exc:
        raise PriceUnavailable(f"{label} gives no price for feed {feed}: {exc.message}") from None
    return cast(int, price)
