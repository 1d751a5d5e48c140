"""Uniswap v3's `poolDetails`: one pool by its address, at the pinned block.

- A pool if the configured factory's `getPool(token0(), token1(), fee())` is that address.
- Price and tick from `slot0()` (price: whole token1 per whole token0, as for positions),
  `liquidity()` the liquidity in range now, `tickSpacing()`.
- balance0/balance1: each token's `balanceOf(pool)`, which includes fees not yet collected;
  tvlUsd their sum through the tokens' USD feeds (null unless both have one).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, cast

from adapters.formats import ratio
from adapters.prices import warned_usd_price
from adapters.uniswap import tick_math
from adapters.uniswap.positions import LABEL_POOL, pool_of, pool_state, usd
from addresses import ChainAddresses, UniswapAddresses
from chain import erc20
from chain.abi import Function
from errors import InputValidationError, ProtocolError

if TYPE_CHECKING:
    from adapters.context import FetchContext

TOKEN0 = Function("token0()", "0dfe1681", ("address",), immutable=True)
TOKEN1 = Function("token1()", "d21220a7", ("address",), immutable=True)
FEE = Function("fee()", "ddca3f43", ("uint24",), immutable=True)
TICK_SPACING = Function("tickSpacing()", "d0c93a7c", ("int24",), immutable=True)
LIQUIDITY = Function("liquidity()", "1a686502", ("uint128",))


async def details(addresses: dict[int, ChainAddresses], ctx: FetchContext, chain_id: int, pool: str) -> dict[str, Any]:
    chain = addresses[chain_id]
    uniswap = cast(UniswapAddresses, chain.uniswap)
    reader = ctx.reader(chain_id)
    label = LABEL_POOL.format(pool)
    block = await reader.block_number()
    try:
        token0, token1, (fee,) = await asyncio.gather(
            *(reader.call(pool, function, label=label) for function in (TOKEN0, TOKEN1)),
            reader.call(pool, FEE, label=label),
        )
        registered = await pool_of(reader, uniswap, token0[0], token1[0], fee)
    except ProtocolError:
        registered = None
    if registered != pool:
        raise InputValidationError(
            f"{pool} is not a Uniswap v3 pool on chain {chain_id} at block {block}: the configured factory "
            "did not create it. Expected a Uniswap v3 pool address."
        )
    tokens = (token0[0].lower(), token1[0].lower())
    state, (spacing,), (liquidity,), info, balances, prices = await asyncio.gather(
        pool_state(reader, pool),
        reader.call(pool, TICK_SPACING, label=label),
        reader.call(pool, LIQUIDITY, label=label),
        asyncio.gather(*(erc20.token_info(reader, token) for token in tokens)),
        asyncio.gather(*(reader.call(token, erc20.BALANCE_OF, pool, label=f"token {token}") for token in tokens)),
        asyncio.gather(*(warned_usd_price(reader, chain, token, ctx.warnings) for token in tokens)),
    )
    decimals = [token["decimals"] for token in info]
    held = [balance for (balance,) in balances]
    return {
        "blockNumber": block,
        "details": {
            "__typename": "UniswapPool",
            "type": "uniswap-v3-pool",
            "poolAddress": pool,
            "chainId": chain_id,
            "token0": info[0],
            "token1": info[1],
            "feeTier": fee,
            "tickSpacing": spacing,
            "tickCurrent": state.tick,
            "sqrtPriceX96": str(state.sqrt_price),
            "price": ratio(tick_math.price(state.sqrt_price, *decimals)),
            "activeLiquidity": str(liquidity),
            "balance0": str(held[0]),
            "balance1": str(held[1]),
            "tvlUsd": usd(prices, held, decimals),
        },
    }
