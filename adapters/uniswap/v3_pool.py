"""A v3 pool's reads that both queries make: the factory's pool for a pair and fee (what vouches
for a pool), and the pool's state at the block."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, cast

from adapters.uniswap.contracts import FEE_GROWTH_GLOBAL, GET_POOL, codebase, pool_label
from adapters.uniswap.section import UniswapV3Addresses
from chain import ChainReader
from chain.abi import ZERO_ADDRESS
from errors import ProtocolError


@dataclass(frozen=True)
class PoolState:
    """A v3 pool at the block: what every position in it needs."""

    address: str
    sqrt_price: int
    tick: int
    fee_growth: tuple[int, int]
    """feeGrowthGlobal{0,1}X128."""


async def pool_of(reader: ChainReader, v3: UniswapV3Addresses, token0: str, token1: str, fee: int) -> str:
    """The factory's pool for the pair and fee; ProtocolError when it has none."""
    factory = f"{codebase(v3).name} factory"
    (pool,) = await reader.call(v3.factory, GET_POOL, token0, token1, fee, label=factory)
    if pool == ZERO_ADDRESS:
        raise ProtocolError(f"{factory}: no pool for {token0}/{token1} at fee {fee}.")
    return cast(str, pool).lower()


async def pool_state(reader: ChainReader, v3: UniswapV3Addresses, pool: str) -> PoolState:
    label = pool_label(v3, pool)
    slot0: Any
    slot0, (growth0,), (growth1,) = await asyncio.gather(
        reader.call(pool, codebase(v3).slot0, label=label),
        *(reader.call(pool, function, label=label) for function in FEE_GROWTH_GLOBAL),
    )
    return PoolState(pool, slot0.sqrtPriceX96, slot0.tick, (growth0, growth1))
