"""USD prices from on-chain Chainlink-style feeds, with staleness checked against each heartbeat.

A token is priced only through the feed the addresses data names for it on that chain; the
native coin's address, unless named, through the chain's currency feed of its coin. The
answer of `latestRoundData()` at the pinned block is the price, scaled by the feed's
`decimals()`. No feed, a failing feed, a non-positive answer, or an answer older than the feed's
heartbeat at the pinned block's timestamp: PriceUnavailable, which the adapter turns into a null
USD field and a PRICE_UNAVAILABLE warning that says which. On an L2 with a sequencer uptime
feed, as Chainlink advises, no price either while the sequencer is down or within
SEQUENCER_GRACE seconds of it coming back (feeds may not have caught up yet).

Every price an input's figures use is noted with its age (`noting_prices`, `noted`): the entry's
`usdPrices` (schema.py), so a client judges each price's freshness itself.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar, cast

from adapters.position_warnings import PriceUnavailable, Warnings, outcome
from addresses import ChainAddresses, PriceFeed
from chain import ChainReader
from chain.abi import Function
from chain.erc20 import DECIMALS, NATIVE, native_coin
from chain.lens import NONE
from errors import ProtocolError

log = logging.getLogger("wallet_positions.prices")

SEQUENCER_GRACE = 3600
T = TypeVar("T")

LATEST_ROUND_DATA = Function(
    "latestRoundData()",
    "feaf968c",
    ("uint80 roundId", "int256 answer", "uint256 startedAt", "uint256 updatedAt", "uint80 answeredInRound"),
)
"""Chainlink's AggregatorV3Interface, by its output names."""


@dataclass(frozen=True)
class PriceSource:
    """Where a price came from, as an entry's `usdPrices` lists it (`UsdPriceSource`)."""

    asset: str
    """The token priced (lower case), or the currency a protocol quotes prices in (ETH, BTC, ...)."""
    feed: PriceFeed
    age: int
    """Seconds from the answer's updatedAt to the block's timestamp."""


@dataclass(frozen=True)
class UsdPrice:
    answer: int
    decimals: int
    """USD (or the feed's currency) per whole token = answer / 10**decimals."""
    updated_at: int = 0
    """When the feed's answer was set (unix seconds)."""
    source: PriceSource | None = None

    def value(self, amount: int, token_decimals: int) -> float:
        """USD value of `amount` raw token units, computed exactly, rounded once to a float."""
        return float(self.exact(amount, token_decimals))

    def exact(self, amount: int, token_decimals: int) -> Fraction:
        """USD value of `amount` raw token units, exactly (for sums rounded once)."""
        return Fraction(amount * self.answer, 10 ** (token_decimals + self.decimals))


async def usd_price(reader: ChainReader, chain: ChainAddresses, token: str) -> UsdPrice:
    """The token's USD price at the pinned block; PriceUnavailable when it has no feed or its feed
    gives no trustworthy price (every null USD figure is named by a warning)."""
    feed = chain.price_feeds.get(token.lower()) or native_feed(chain, token)
    if feed is None:
        raise PriceUnavailable(f"the addresses data names no USD feed for {token.lower()} on chain {reader.chain_id}")
    return await feed_price(reader, chain, feed, token)


async def warned_usd_price(
    reader: ChainReader, chain: ChainAddresses, token: str, warnings: Warnings
) -> UsdPrice | None:
    """usd_price, read once per request however many inputs ask; None with a warning in this
    input's `warnings` (each input that needs it gets its own) when the feed fails."""
    return warned(reader, await shared_usd_price(reader, chain, token), token, warnings)


async def shared_usd_price(reader: ChainReader, chain: ChainAddresses, token: str) -> UsdPrice | ProtocolError:
    """usd_price, read once per request however many inputs ask, or why not: read in the same
    round as a figure that decides whether the price is used (`warned` then warns where it is)."""
    token = token.lower()
    return await reader.shared(("usd price", token), lambda: outcome(usd_price(reader, chain, token)))


def warned(reader: ChainReader, found: UsdPrice | ProtocolError, token: str, warnings: Warnings) -> UsdPrice | None:
    """A shared_usd_price used: noted, or None with its warning."""
    return noted(reader, warnings.value(found, token.lower(), "USD values are"))


async def oldest_update(reader: ChainReader, feeds: list[str], label: str) -> int | None:
    """The oldest `updatedAt` of Chainlink-style feeds: when a price made of them all was last
    updated; None for no feed."""
    rounds: list[Any] = await asyncio.gather(
        *(reader.call(feed, LATEST_ROUND_DATA, label=f"{label} feed {feed}") for feed in feeds)
    )
    return min((cast(int, latest.updatedAt) for latest in rounds), default=None)


def token_feeds(chain: ChainAddresses) -> Mapping[str, PriceFeed]:
    """Every token's feed as usd_price finds it (priceFeeds, and the native coin's currency feed
    where priceFeeds does not name it): what a lens reads so that no price needs a round."""
    native = native_feed(chain, NATIVE)
    return chain.price_feeds if native is None or NATIVE in chain.price_feeds else {**chain.price_feeds, NATIVE: native}


def lens_feeds(chain: ChainAddresses) -> tuple[list[str], list[str], str]:
    """What a lens that prices several tokens looks feeds up in: every token with a feed
    (token_feeds), its feed in the same order, and the sequencer uptime feed (none: the zero address)."""
    feeds = token_feeds(chain)
    keys = list(feeds)
    return keys, [feeds[key].feed for key in keys], chain.sequencer_uptime_feed or NONE


def native_feed(chain: ChainAddresses, token: str) -> PriceFeed | None:
    """For the native coin's address (chain.erc20.NATIVE) that `priceFeeds` does not name, the
    chain's `currencyFeeds` entry for its coin (ETH/USD where the coin is ether)."""
    if token.lower() != NATIVE:
        return None
    symbol, _ = native_coin(chain.chain_id)
    return chain.currency_feeds.get(symbol)


async def feed_price(reader: ChainReader, chain: ChainAddresses, feed: PriceFeed, what: str) -> UsdPrice:
    """A USD feed's answer at the pinned block; PriceUnavailable when it is not trustworthy then."""
    label = f"{feed.pair} feed {feed.feed}"
    try:
        (_, answer, _, updated_at, _), (decimals,), now, sequencer_up = await asyncio.gather(
            reader.call(feed.feed, LATEST_ROUND_DATA, label=label),
            reader.call(feed.feed, DECIMALS, label=label),
            reader.block_timestamp(),
            _sequencer_up(reader, chain.sequencer_uptime_feed),
        )
    except ProtocolError as exc:
        raise PriceUnavailable(f"the {label} failed: {exc.message}") from None
    if not sequencer_up:
        raise PriceUnavailable(
            f"the chain's sequencer is down or up for less than {SEQUENCER_GRACE} s, so the {label} may lag"
        )
    if answer <= 0:
        raise PriceUnavailable(f"the {label} answers {answer}")
    if now - updated_at > feed.heartbeat:
        raise PriceUnavailable(
            f"the {label} was last updated {now - updated_at} s before the block, "
            f"more than its heartbeat of {feed.heartbeat} s"
        )
    asset = what.lower() if what.startswith("0x") else what
    return noted(reader, UsdPrice(answer, decimals, updated_at, PriceSource(asset, feed, now - updated_at)))


async def currency_usd(reader: ChainReader, chain: ChainAddresses, currency: str, what: str) -> Fraction:
    """USD per unit of `currency` (what a price is quoted in): 1 for USD, else the chain's
    currencyFeeds entry; PriceUnavailable where the chain has none (`what` names whose figures
    are then null) or it fails."""
    if currency == "USD":
        return Fraction(1)
    feed = chain.currency_feeds.get(currency)
    if feed is None:
        raise PriceUnavailable(f"the addresses data names no {currency}/USD feed on chain {reader.chain_id} ({what})")
    price = await feed_price(reader, chain, feed, currency)
    return Fraction(price.answer, 10**price.decimals)


async def _sequencer_up(reader: ChainReader, uptime_feed: str | None) -> bool:
    """True on chains without an uptime feed; else whether the sequencer has been up (answer 0)
    for at least SEQUENCER_GRACE seconds at the pinned block."""
    if uptime_feed is None:
        return True

    async def read() -> bool:
        (_, status, since, _, _), now = await asyncio.gather(
            reader.call(uptime_feed, LATEST_ROUND_DATA, label=f"sequencer uptime feed {uptime_feed}"),
            reader.block_timestamp(),
        )
        return cast(int, status) == 0 and now - since >= SEQUENCER_GRACE

    return await reader.shared(("sequencer", uptime_feed), read)


_NOTED: ContextVar[tuple[ChainReader, dict[tuple[str, str], UsdPrice]] | None] = ContextVar("noted", default=None)
"""The input being fetched: its reader (at its block) and the prices its figures use so far."""


@contextmanager
def noting_prices(reader: ChainReader) -> Iterator[dict[tuple[str, str], UsdPrice]]:
    """While an input is fetched (schema.fetch_input), the USD prices read through `reader` that
    its figures use, by asset and feed; those at other blocks (APY and flow history) are not."""
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
        prices[(price.source.asset, price.source.feed.feed)] = price
    return price


def used_prices(prices: Mapping[tuple[str, str], UsdPrice], answer: Mapping[str, Any]) -> list[dict[str, Any]]:
    """An entry's `usdPrices`: every price read at its block while it was made (`noted`), with its
    age. The reads note themselves, so no price a figure uses is left out (CRV's, a currency's: no
    address in the answer names them). An answer that states no USD figure used none (Comet reads
    its currency's price for every wallet, one that holds nothing too): it lists none."""
    if not states_usd(answer):
        return []
    return [
        {
            "asset": price.source.asset,
            "feed": price.source.feed.feed,
            "priceUsd": float(Fraction(price.answer, 10**price.decimals)),
            "updatedAt": price.updated_at,
            "ageSeconds": price.source.age,
        }
        for _, price in sorted(prices.items())
        if price.source is not None
    ]


def states_usd(value: Any) -> bool:
    """Whether an answer states a USD figure: a field named ...Usd with a value, at any depth."""
    if isinstance(value, Mapping):
        return any((name.endswith("Usd") and item is not None) or states_usd(item) for name, item in value.items())
    return isinstance(value, list) and any(states_usd(item) for item in value)
