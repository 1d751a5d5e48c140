"""A USD price and where it came from, noted by each input whose figures use it (`usdPrices`).

Every price names its kind of source (`Kind`), the contract read for it, and the Chainlink-style
feed it rests on: its own, or for a price derived from another token's (a protocol's rate, a
DEX's time-weighted price), that token's feed at the root. A price that rests on a market (a
TWAP, a moving average) is `market`: a trade can move it, so no liquidation check uses it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Any, TypeVar

from chain import ChainReader

T = TypeVar("T")


class Kind(Enum):
    """The sources in the order they are tried (docs/chain-access.md, "USD prices")."""

    FEED = "FEED"
    PROTOCOL_RATE = "PROTOCOL_RATE"
    UNISWAP_V3_TWAP = "UNISWAP_V3_TWAP"
    CURVE_ORACLE = "CURVE_ORACLE"


@dataclass(frozen=True)
class PriceSource:
    """Where a price came from, as an entry's `usdPrices` lists it (`UsdPriceSource`)."""

    asset: str
    """The token priced (lower case), or the currency a protocol quotes prices in (ETH, BTC, ...)."""
    feed: str
    """The Chainlink-style feed the price rests on: the asset's own, or its root's."""
    age: int
    """Seconds from the root feed's updatedAt to the block's timestamp."""
    kind: Kind = Kind.FEED
    source: str = ""
    """The contract read for this price itself: the feed, the rate's contract, the pool ("" = feed)."""
    derived_from: str | None = None
    """The priced token this price is derived from (the vault's asset, the pool's other token)."""
    window: int | None = None
    """A time-weighted price's window, or a moving average's time, in seconds."""
    liquidity_usd: float | None = None
    """The USD depth behind a market price (twap.py says how it is measured)."""
    market: bool = False
    """Rests on a market price, here or in what it is derived from: a trade can move it."""

    @property
    def read(self) -> str:
        """The contract read for this price (a leg's `priceSource`)."""
        return self.source or self.feed


@dataclass(frozen=True)
class UsdPrice:
    answer: int
    decimals: int
    """USD (or the feed's currency) per whole token = answer / 10**decimals."""
    updated_at: int = 0
    """When the root feed's answer was set (unix seconds)."""
    source: PriceSource | None = None
    rests_on: tuple[UsdPrice, ...] = ()
    """The price a derived one is made of (the vault's asset's, the pool's other token's): noted
    with it, since its figures use that price too."""

    def value(self, amount: int, token_decimals: int) -> float:
        """USD value of `amount` raw token units, computed exactly, rounded once to a float."""
        return float(self.exact(amount, token_decimals))

    def exact(self, amount: int, token_decimals: int) -> Fraction:
        """USD value of `amount` raw token units, exactly (for sums rounded once)."""
        return Fraction(amount * self.answer, 10 ** (token_decimals + self.decimals))

    def per_token(self) -> Fraction:
        """USD per whole token, exactly."""
        return Fraction(self.answer, 10**self.decimals)

    def for_checks(self) -> Fraction | None:
        """USD per whole token for a liquidation figure: None where the price rests on a market
        (a trade could move it), so those figures keep to feeds and protocol rates."""
        return None if self.source is not None and self.source.market else self.per_token()


Price = Callable[[str], Awaitable[UsdPrice]]
"""The USD price of another token by the whole order of sources: what a derived source is given."""

_NOTED: ContextVar[tuple[ChainReader, dict[tuple[str, str], UsdPrice]] | None] = ContextVar("noted", default=None)
"""The input being fetched: its reader (at its block) and the prices its figures use so far."""


@contextmanager
def noting_prices(reader: ChainReader) -> Iterator[dict[tuple[str, str], UsdPrice]]:
    """While an input is fetched (schema.fetch_input), the USD prices read through `reader` that
    its figures use, by asset and source; those at other blocks (APY and flow history) are not."""
    prices: dict[tuple[str, str], UsdPrice] = {}
    token = _NOTED.set((reader, prices))
    try:
        yield prices
    finally:
        _NOTED.reset(token)


def noted(reader: ChainReader, price: T) -> T:
    """`price`, noted among the current input's prices when read at its block. A price read once
    for several inputs (ChainReader.shared) is noted by each input that awaits it."""
    noting = _NOTED.get()
    if noting is None or not isinstance(price, UsdPrice) or price.source is None:
        return price
    pinned, prices = noting
    if pinned is reader:
        prices[(price.source.asset, price.source.read)] = price
        for base in price.rests_on:
            noted(reader, base)
    return price


@contextmanager
def unnoted() -> Iterator[None]:
    """While a source reads the price of the token a candidate price would rest on: noted only
    with the candidate that is chosen (`rests_on`), not as it is read."""
    token = _NOTED.set(None)
    try:
        yield
    finally:
        _NOTED.reset(token)


def used_prices(prices: Mapping[tuple[str, str], UsdPrice], answer: Mapping[str, Any]) -> list[dict[str, Any]]:
    """An entry's `usdPrices`: every price read at its block while it was made (`noted`), with its
    source and age. The reads note themselves, so no price a figure uses is left out (CRV's, a
    currency's, the feed a derived price rests on: no address in the answer names them). An
    answer that states no USD figure used none (Comet reads its currency's price for every
    wallet, one that holds nothing too): it lists none."""
    if not states_usd(answer):
        return []
    return [
        {
            "asset": price.source.asset,
            "kind": price.source.kind.value,
            "source": price.source.read,
            "feed": price.source.feed,
            "priceUsd": float(price.per_token()),
            "updatedAt": price.updated_at,
            "ageSeconds": price.source.age,
            "derivedFrom": price.source.derived_from,
            "windowSeconds": price.source.window,
            "liquidityUsd": price.source.liquidity_usd,
        }
        for _, price in sorted(prices.items())
        if price.source is not None
    ]


def states_usd(value: Any) -> bool:
    """Whether an answer states a USD figure: a field named ...Usd, or a leg's `usd`, with a value,
    at any depth (a position whose USD figures are its legs' alone, as Liquity's, states them)."""
    if isinstance(value, Mapping):
        return any(
            ((name.endswith("Usd") or name == "usd") and item is not None) or states_usd(item)
            for name, item in value.items()
        )
    return isinstance(value, list) and any(states_usd(item) for item in value)
