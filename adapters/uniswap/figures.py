"""One Uniswap position's answer (`UniswapPosition`) from what was read of it, for v3 and v4 alike:
amounts by the tick math, prices at the pool's price and the range's ends, USD through both
tokens' feeds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters import tick_math
from adapters.formats import ratio
from adapters.legs import CLAIMABLE, LIQUIDITY, LIQUIDITY_POSITION, REWARD, feed_of, leg, position
from adapters.prices import UsdPrice

LEGS = (("token", "amount"), ("fees", "uncollectedFees"), ("owed", "principalOwed"))
"""Each leg and the field of a position's answer that holds its amounts (both tokens' each)."""
ROLES = {"token": LIQUIDITY, "fees": REWARD, "owed": CLAIMABLE}


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
    tokens: Sequence[dict[str, Any]],
    prices: Sequence[UsdPrice | None],
    fee: int,
    spacing: int,
    ticks: tuple[int, int],
    state: tuple[int, int],
    liquidity: int,
    fees: Sequence[int],
    principal: Sequence[int],
) -> dict[str, Any]:
    """`tokens`, `prices`, `fees` and `principal` are pairs (token0's, token1's); `state` is the
    pool's (sqrtPriceX96, tick); `fees` the fees not collected, `principal` what was withdrawn and
    not collected (v3), apart so that only fees count as earned."""
    (lower, upper), (sqrt_price, tick), (token0, token1), (fees0, fees1) = ticks, state, tokens, fees
    decimals = (token0["decimals"], token1["decimals"])
    amount0, amount1 = amounts = tick_math.amounts(sqrt_price, tick, lower, upper, liquidity)

    def price(sqrt: int) -> float | None:
        return ratio(tick_math.price(sqrt, *decimals))

    key = f"{manager.lower()}:{token_id}"
    pairs = {"amount": amounts, "uncollectedFees": fees, "principalOwed": principal}
    legs = [
        leg(
            ROLES[name],
            f"{key}:{name}{side}",
            tokens[side],
            amount,
            usd(prices[side : side + 1], (amount,), decimals[side : side + 1]),
            feed_of(prices[side]),
        )
        for name, field in LEGS
        for side, amount in enumerate(pairs[field])
    ]
    label = f"{token0['symbol']}/{token1['symbol']} #{token_id}"
    return {
        **position("UniswapPosition", key, LIQUIDITY_POSITION, label, legs),
        "type": kind,
        "tokenId": str(token_id),
        "positionManager": manager,
        "farm": None,
        "pool": pool,
        "hooks": hooks,
        "token0": token0,
        "token1": token1,
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
        "amount0": str(amount0),
        "amount1": str(amount1),
        "uncollectedFees0": str(fees0),
        "uncollectedFees1": str(fees1),
        "principalOwed0": str(principal[0]),
        "principalOwed1": str(principal[1]),
        "valueUsd": usd(prices, amounts, decimals),
        "uncollectedFeesUsd": usd(prices, fees, decimals),
        "principalOwedUsd": usd(prices, principal, decimals),
        **{
            f"{name}{side}Usd": usd(prices[side : side + 1], (amount,), decimals[side : side + 1])
            for name, pair in (("amount", amounts), ("uncollectedFees", fees), ("principalOwed", principal))
            for side, amount in enumerate(pair)
        },
    }
