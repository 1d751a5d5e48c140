"""USD prices at the answer's block, each with its source stated (`usdPrices`).

feeds: Chainlink-style feeds from the addresses data, with heartbeat staleness.
"""

from adapters.prices.feeds import (
    LATEST_ROUND_DATA,
    PriceSource,
    UsdPrice,
    currency_usd,
    feed_price,
    lens_feeds,
    native_feed,
    noted,
    noting_prices,
    oldest_update,
    shared_usd_price,
    states_usd,
    token_feeds,
    usd_price,
    used_prices,
    warned,
    warned_usd_price,
)

__all__ = [
    "LATEST_ROUND_DATA",
    "PriceSource",
    "UsdPrice",
    "currency_usd",
    "feed_price",
    "lens_feeds",
    "native_feed",
    "noted",
    "noting_prices",
    "oldest_update",
    "shared_usd_price",
    "states_usd",
    "token_feeds",
    "usd_price",
    "used_prices",
    "warned",
    "warned_usd_price",
]
