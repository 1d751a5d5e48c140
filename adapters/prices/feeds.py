"""The first source of USD prices: Chainlink-style feeds, with staleness checked against each heartbeat.

A token's feed is the one the addresses data names for it on that chain; the native coin's
address, unless named, the chain's currency feed of its coin. The answer of `latestRoundData()`
at the pinned block is the price, scaled by the feed's `decimals()`. A failing feed, a
non-positive answer, or an answer older than the feed's heartbeat at the pinned block's
timestamp: PriceUnavailable, which names why. On an L2 with a sequencer uptime feed, as
Chainlink advises, no price either while the sequencer is down or within SEQUENCER_GRACE seconds
of it coming back (feeds may not have caught up yet).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, cast

from adapters.position_warnings import PriceUnavailable
from adapters.prices.stated import PriceSource, UsdPrice, noted
from addresses import ChainAddresses, PriceFeed
from chain import ChainReader
from chain.abi import Function
from chain.erc20 import DECIMALS, NATIVE, native_coin
from chain.lens import NONE
from errors import ProtocolError

SEQUENCER_GRACE = 3600

LATEST_ROUND_DATA = Function(
    "latestRoundData()",
    "feaf968c",
    ("uint80 roundId", "int256 answer", "uint256 startedAt", "uint256 updatedAt", "uint80 answeredInRound"),
)
"""Chainlink's AggregatorV3Interface, by its output names."""


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
    return noted(reader, UsdPrice(answer, decimals, updated_at, PriceSource(asset, feed.feed, now - updated_at)))


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
