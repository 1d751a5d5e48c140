"""Uniswap's `poolDetails`: a v3 pool by its address, a v4 pool by its PoolId, at the pinned block.

- v3: a pool if the configured factory's `getPool(token0(), token1(), fee())` is that address.
- Price and tick from `slot0()` (price: whole token1 per whole token0, as for positions),
  `liquidity()` the liquidity in range now, `tickSpacing()`.
- balance0/balance1: each token's `balanceOf(pool)`, which includes fees not yet collected;
  tvlUsd their sum through the tokens' USD feeds (null unless both have one).
- v4: a pool if the PositionManager knows its key (`poolKeys(bytes25(poolId))`, set when a
  position was first minted in it) and keccak256(abi.encode(key)) is the id; price, tick and LP
  fee from the StateView's `getSlot0`, `getLiquidity`. The PoolManager holds every pool's tokens
  together, so a v4 pool has no balances of its own: balance0, balance1 and tvlUsd are null.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters import deployment, tick_math
from adapters.context import FetchContext
from adapters.formats import ratio
from adapters.prices import warned_usd_price
from adapters.uniswap.contracts import (
    FEE,
    GET_LIQUIDITY,
    GET_SLOT0,
    LIQUIDITY,
    POOL_KEYS,
    STATE_VIEW,
    TICK_SPACING,
    TOKEN0,
    TOKEN1,
    V4_LABEL,
    codebase,
    currency,
    pool_id,
    pool_label,
)
from adapters.uniswap.figures import usd
from adapters.uniswap.section import UniswapAddresses, UniswapV4Addresses
from adapters.uniswap.v3_pool import pool_of, pool_state
from addresses import ChainAddresses
from chain import ChainReader, erc20
from chain.abi import ZERO_ADDRESS
from errors import InputValidationError, ProtocolError


async def details(ctx: FetchContext[UniswapAddresses], pool: str) -> dict[str, Any]:
    chain_id, chain = ctx.chain_id, ctx.chain
    uniswap = ctx.section
    reader = ctx.reader()
    block = await reader.block_number()
    if len(pool) == 66:
        return {"details": await _v4_pool(reader, chain, uniswap.v4, pool, block)}
    v3 = uniswap.v3
    if v3 is None:
        raise InputValidationError(f"Uniswap v3 is not configured on chain {chain_id}. Expected a v4 PoolId.")
    await deployment.require(reader, ctx.protocol, pool, "pool")
    label, name = pool_label(v3, pool), codebase(v3).name
    try:
        (token0,), (token1,), (fee,) = await asyncio.gather(
            *(reader.call(pool, function, label=label) for function in (TOKEN0, TOKEN1, FEE))
        )
        registered = await pool_of(reader, v3, token0, token1, fee)
    except ProtocolError:
        registered = None
    if registered != pool:
        raise InputValidationError(
            f"{pool} is not a {name} pool on chain {chain_id} at block {block}: the configured factory "
            f"did not create it. Expected a {name} pool address."
        )
    tokens = (str(token0).lower(), str(token1).lower())
    state, (spacing,), (liquidity,), info, balances, prices = await asyncio.gather(
        pool_state(reader, v3, pool),
        reader.call(pool, TICK_SPACING, label=label),
        reader.call(pool, LIQUIDITY, label=label),
        asyncio.gather(*(erc20.token_info(reader, token) for token in tokens)),
        asyncio.gather(*(reader.call(token, erc20.BALANCE_OF, pool, label=f"token {token}") for token in tokens)),
        asyncio.gather(*(warned_usd_price(reader, chain, token, ctx.warnings) for token in tokens)),
    )
    held = [balance for (balance,) in balances]
    balance0, balance1 = held
    kind = f"{codebase(v3).kind}-pool"
    answer = _pool_answer(kind, chain, info, fee, spacing, (state.sqrt_price, state.tick), liquidity)
    return {
        "details": {
            **answer,
            "poolAddress": pool,
            "balance0": str(balance0),
            "balance1": str(balance1),
            "tvlUsd": usd(prices, held, [token["decimals"] for token in info]),
        },
    }


async def _v4_pool(
    reader: ChainReader, chain: ChainAddresses, v4: UniswapV4Addresses | None, pool: str, block: int
) -> dict[str, Any]:
    wanted = bytes.fromhex(pool[2:])
    key: Any = None
    if v4 is not None:
        deployment.started(reader, "uniswap", block, v4.position_manager.start_block, "its v4 position manager")
        key = await reader.call(v4.position_manager.address, POOL_KEYS, wanted[:25], label=V4_LABEL)
    if key is None or key.currency1 == ZERO_ADDRESS or pool_id(key) != wanted:
        raise InputValidationError(
            f"{pool} is not a Uniswap v4 pool on chain {chain.chain_id} at block {block} that the configured "
            "position manager knows. Expected a v4 PoolId with positions, or a v3 pool address."
        )
    assert v4 is not None
    slot0: Any
    liquidity: int
    slot0, (liquidity,) = await asyncio.gather(
        reader.call(v4.state_view, GET_SLOT0, wanted, label=STATE_VIEW),
        reader.call(v4.state_view, GET_LIQUIDITY, wanted, label=STATE_VIEW),
    )
    tokens = (currency(key.currency0), currency(key.currency1))
    info = await asyncio.gather(*(erc20.token_info(reader, token) for token in tokens))
    state = (slot0.sqrtPriceX96, slot0.tick)
    answer = _pool_answer("uniswap-v4-pool", chain, info, slot0.lpFee, key.tickSpacing, state, liquidity)
    return {**answer, "poolId": pool, "hooks": str(key.hooks).lower()}


def _pool_answer(
    kind: str,
    chain: ChainAddresses,
    tokens: list[dict[str, Any]],
    fee: int,
    spacing: int,
    state: tuple[int, int],
    liquidity: int,
) -> dict[str, Any]:
    """A `UniswapPool`'s fields both versions fill alike; the rest null until the caller sets them
    (a v4 pool has no balances of its own: the PoolManager holds every pool's tokens together)."""
    (token0, token1), (sqrt_price, tick) = tokens, state
    return {
        "__typename": "UniswapPool",
        "type": kind,
        "poolAddress": None,
        "poolId": None,
        "hooks": None,
        "chainId": chain.chain_id,
        "token0": token0,
        "token1": token1,
        "feeTier": fee,
        "tickSpacing": spacing,
        "tickCurrent": tick,
        "sqrtPriceX96": str(sqrt_price),
        "price": ratio(tick_math.price(sqrt_price, token0["decimals"], token1["decimals"])),
        "activeLiquidity": str(liquidity),
        "balance0": None,
        "balance1": None,
        "tvlUsd": None,
    }
