"""A token's USD price by the first source that gives one, in a fixed order anyone can audit:

1. its Chainlink-style feed in the addresses data (feeds.py);
2. its protocol's own rate of another token (rates.py), that token priced by this same order;
3. Uniswap v3's average over 30 minutes against a token priced by its feed, from a pool deep
   enough (twap.py);
4. Curve's own moving average against a token priced by its feed, from a pool deep enough
   (curve_average.py);
5. otherwise none: PriceUnavailable naming the token and every source tried.

Sources 2 and 3 are read together, in the same rounds (each takes two: what the token is or which
pools hold it, then their figures with the other token's price), and the first that prices the
token is used; Curve's (two rounds more) only where neither does. A derived price is derived
at most DEPTH tokens deep, never through itself.
"""

from __future__ import annotations

import asyncio

from adapters.position_warnings import PriceUnavailable, Warnings, outcome
from adapters.prices.curve_average import curve_price
from adapters.prices.feeds import feed_price, native_feed
from adapters.prices.rates import rate_price
from adapters.prices.stated import UsdPrice, noted, unnoted
from adapters.prices.twap import twap_price
from addresses import ChainAddresses
from chain import ChainReader
from chain.erc20 import NATIVE
from errors import ProtocolError

DEPTH = 3
"""Tokens a derived price may pass through (wstETH -> stETH -> ether is two)."""


def fed(chain: ChainAddresses, token: str) -> bool:
    """Whether the token has a feed: its price then costs no more than the feed's reads."""
    return token.lower() in chain.price_feeds or native_feed(chain, token) is not None


async def usd_price(reader: ChainReader, chain: ChainAddresses, token: str, through: tuple[str, ...] = ()) -> UsdPrice:
    """The token's USD price at the pinned block by the first source in order; PriceUnavailable
    naming every source tried (every null USD figure is named by a warning). `through`: the
    tokens a derived price is being derived for."""
    token = token.lower()
    feed = chain.price_feeds.get(token) or native_feed(chain, token)
    if feed is not None:
        return await feed_price(reader, chain, feed, token)
    no_feed = f"the addresses data names no USD feed for {token} on chain {reader.chain_id}"
    if token == NATIVE:
        raise PriceUnavailable(f"{no_feed} (nor for its coin in currencyFeeds); the native coin has no other source")
    if token in through or len(through) >= DEPTH:
        raise PriceUnavailable(f"{no_feed}, and a price derived from it would pass through {' -> '.join(through)}")

    async def other(priced: str) -> UsdPrice:
        with unnoted():
            return await usd_price(reader, chain, priced, (*through, token))

    # The rate's and Uniswap's reads together (a lens that prices what it finds records both);
    # Curve's only where neither prices. Each read to its end, so the reads do not depend on
    # timing and `verify` replays them all.
    reasons = [no_feed]
    for sources in ((rate_price, twap_price), (curve_price,)):
        found = await asyncio.gather(*(outcome(source(reader, chain, token, other)) for source in sources))
        for price in found:
            if isinstance(price, UsdPrice):
                return noted(reader, price)
            reasons.append(price.message)
    raise PriceUnavailable("; ".join(reasons))


async def warned_usd_price(
    reader: ChainReader, chain: ChainAddresses, token: str, warnings: Warnings
) -> UsdPrice | None:
    """usd_price, read once per request however many inputs ask; None with a warning in this
    input's `warnings` (each input that needs it gets its own) when no source prices it."""
    return warned(reader, await shared_usd_price(reader, chain, token), token, warnings)


async def shared_usd_price(reader: ChainReader, chain: ChainAddresses, token: str) -> UsdPrice | ProtocolError:
    """usd_price, read once per request however many inputs ask, or why not: read in the same
    round as a figure that decides whether the price is used (`warned` then warns where it is)."""
    token = token.lower()
    return await reader.shared(("usd price", token), lambda: outcome(usd_price(reader, chain, token)))


def warned(reader: ChainReader, found: UsdPrice | ProtocolError, token: str, warnings: Warnings) -> UsdPrice | None:
    """A shared_usd_price used: noted, or None with its warning."""
    return noted(reader, warnings.value(found, token.lower(), "USD values are"))
