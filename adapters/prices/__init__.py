"""USD prices at the answer's block, each with its source stated (`usdPrices`).

sources: the order of sources a token's price is found by; feeds, rates (with routes, the
protocols' own), twap and curve_average: the sources; lens: what a lens that prices is told;
stated: a price with its source, noted by each input whose figures use it.
"""

from adapters.prices.feeds import (
    LATEST_ROUND_DATA,
    currency_usd,
    feed_price,
    lens_feeds,
    native_feed,
    oldest_update,
    token_feeds,
)
from adapters.prices.lens import lens_market
from adapters.prices.routes import BASKET_DECIMALS, Basket, Rate, RateRoute, Routed, Routes, routing
from adapters.prices.sources import fed, shared_usd_price, usd_price, warned, warned_usd_price
from adapters.prices.stated import Kind, PriceSource, UsdPrice, noted, noting_prices, states_usd, used_prices

__all__ = [
    "BASKET_DECIMALS",
    "LATEST_ROUND_DATA",
    "Basket",
    "Kind",
    "PriceSource",
    "Rate",
    "RateRoute",
    "Routed",
    "Routes",
    "UsdPrice",
    "currency_usd",
    "fed",
    "feed_price",
    "lens_feeds",
    "lens_market",
    "native_feed",
    "noted",
    "noting_prices",
    "oldest_update",
    "routing",
    "shared_usd_price",
    "states_usd",
    "token_feeds",
    "usd_price",
    "used_prices",
    "warned",
    "warned_usd_price",
]
