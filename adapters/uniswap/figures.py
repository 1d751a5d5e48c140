"""One Uniswap position's answer (`UniswapPosition`) from what was read of it, for v3 and v4 alike:
amounts by the tick math, prices at the pool's price and the range's ends, USD through both
tokens' feeds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters.formats import ratio
from adapters.prices import UsdPrice
from adapters.uniswap import tick_math


def usd(prices: Sequence[UsdPrice | None], amounts: Sequence[int], decimals: Sequence[int]) -> float | None:
    """Both tokens' amounts in USD, summed exactly and rounded once; null unless both have a price."""
    known = [price for price in prices if price is not None]
    if len(known) < len(prices):
        return None
    return float(sum(price.exact(amount, d) for price, amount, d in zip(known, amounts, decimals)))


def position_answer(
    *,
    kind: str,
    token_id: int,
    manager: str,
    pool: str,
    hooks: str | None,
    tokens: tuple[dict[str, Any], dict[str, Any]],
    prices: tuple[UsdPrice | None, UsdPrice | None],
    fee: int,
    spacing: int,
    ticks: tuple[int, int],
    state: tuple[int, int],
    liquidity: int,
    fees: tuple[int, int],
) -> dict[str, Any]:
    """`state` is the pool's (sqrtPriceX96, tick); `fees` what is owed and not collected."""
    (lower, upper), (sqrt_price, tick) = ticks, state
    decimals = (tokens[0]["decimals"], tokens[1]["decimals"])
    amounts = tick_math.amounts(sqrt_price, tick, lower, upper, liquidity)

    def price(sqrt: int) -> float | None:
        return ratio(tick_math.price(sqrt, *decimals))

    return {
        "type": kind,
        "tokenId": str(token_id),
        "positionManager": manager,
        "pool": pool,
        "hooks": hooks,
        "token0": tokens[0],
        "token1": tokens[1],
        "feeTier": fee,
        "tickSpacing": spacing,
        "tickLower": lower,
        "tickUpper": upper,
        "tickCurrent": tick,
        "sqrtPriceX96": str(sqrt_price),
        "priceLower": price(tick_math.sqrt_ratio_at_tick(lower)),
        "priceUpper": price(tick_math.sqrt_ratio_at_tick(upper)),
        "priceCurrent": price(sqrt_price),
        "inRange": lower <= tick < upper,
        "liquidity": str(liquidity),
        "amount0": str(amounts[0]),
        "amount1": str(amounts[1]),
        "uncollectedFees0": str(fees[0]),
        "uncollectedFees1": str(fees[1]),
        "valueUsd": usd(prices, amounts, decimals),
        "uncollectedFeesUsd": usd(prices, fees, decimals),
    }
