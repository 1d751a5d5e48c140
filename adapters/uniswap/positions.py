"""Uniswap v3: the liquidity positions (NFTs) a wallet owns, read from the chain at the pinned block.

How each figure is derived (docs/protocols/uniswap.md has the long form; tick_math.py the integer
math, equal to the contracts'):

- Which positions: the NonfungiblePositionManager's `balanceOf(wallet)` and
  `tokenOfOwnerByIndex(wallet, i)` (it enumerates its owners' NFTs: no event scan). Only NFTs the
  wallet itself owns: one staked in a farm or gauge is owned by that contract.
- Each NFT's `positions(tokenId)`: tokens, fee, tick range, liquidity, the fee growth inside the
  range it last accounted at and the fees it holds (`tokensOwed`). An NFT with no liquidity and
  nothing owed (closed, not yet burned) holds nothing and is not listed.
- Its pool: the factory's `getPool(token0, token1, fee)`; the pool's `slot0()` (sqrt price,
  tick), `feeGrowthGlobal{0,1}X128()` and `ticks(tickLower)`, `ticks(tickUpper)` (fee growth
  outside each end).
- amount0/amount1: what burning the whole liquidity would pay at the block, by the current tick
  against the range (tick_math.amounts, the pool's own rounding, the SDK's Position.amount0/1).
- Uncollected fees: tokensOwed + liquidity x (fee growth inside now - at last accounting) / 2**128,
  what the manager's `collect` pays (tick_math.fees_owed).
- Prices: whole token1 per whole token0, (sqrtPrice / 2**96)**2 x 10**(decimals0 - decimals1),
  at the pool's price and at each end of the range (TickMath.getSqrtRatioAtTick).
- USD: each token's amount through its USD feed; null unless both tokens have one.

All reads go out at once in UniswapLens (lenses/, chain/lens.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from adapters.formats import ratio
from adapters.position_warnings import PART_UNREADABLE, Warnings
from adapters.prices import UsdPrice, token_feeds, warned_usd_price
from adapters.uniswap import tick_math
from addresses import ChainAddresses, UniswapAddresses
from chain import ChainReader, erc20
from chain.abi import ZERO_ADDRESS, Function
from chain.lens import NONE, Lens
from errors import ProtocolError

if TYPE_CHECKING:
    from adapters.context import FetchContext

TOKEN_OF_OWNER_BY_INDEX = Function("tokenOfOwnerByIndex(address,uint256)", "2f745c59", ("uint256",))
POSITIONS = Function(
    "positions(uint256)",
    "99fbab88",
    (
        *("uint96", "address", "address", "address", "uint24", "int24", "int24", "uint128"),
        *("uint256", "uint256", "uint128", "uint128"),
    ),
)
"""(nonce, operator, token0, token1, fee, tickLower, tickUpper, liquidity,
feeGrowthInside0LastX128, feeGrowthInside1LastX128, tokensOwed0, tokensOwed1)."""
GET_POOL = Function("getPool(address,address,uint24)", "1698ee82", ("address",))
SLOT0 = Function("slot0()", "3850c7bd", ("uint160", "int24", "uint16", "uint16", "uint16", "uint8", "bool"))
FEE_GROWTH_GLOBAL = (
    Function("feeGrowthGlobal0X128()", "f3058399", ("uint256",)),
    Function("feeGrowthGlobal1X128()", "46141319", ("uint256",)),
)
TICKS = Function(
    "ticks(int24)", "f30dba93", ("uint128", "int128", "uint256", "uint256", "int56", "uint160", "uint32", "bool")
)
"""(liquidityGross, liquidityNet, feeGrowthOutside0X128, feeGrowthOutside1X128, ...)."""
MAX_POSITIONS = 500
"""NFTs read per wallet; beyond them the answer names how many are left out."""
LENS_POSITIONS = 40
"""NFTs the lens reads (its answer is capped at 24 KB, about 600 bytes a position); the rest take rounds."""
LENS = Lens("UniswapLens", ("address", "address", "address", "uint256", "address[]", "address[]", "address"))
LABEL = "Uniswap v3 position manager"
LABEL_POOL = "Uniswap v3 pool {}"


@dataclass(frozen=True)
class PoolState:
    """A pool at the block: what every position in it needs."""

    address: str
    sqrt_price: int
    tick: int
    fee_growth: tuple[int, int]


def chains(addresses: dict[int, ChainAddresses]) -> frozenset[int]:
    return frozenset(chain_id for chain_id, chain in addresses.items() if chain.uniswap)


async def fetch(addresses: dict[int, ChainAddresses], ctx: FetchContext, chain_id: int, wallet: str) -> dict[str, Any]:
    chain = addresses[chain_id]
    uniswap = cast(UniswapAddresses, chain.uniswap)
    reader = ctx.reader(chain_id)
    _prefetch(reader, chain, uniswap, wallet)
    block, positions = await asyncio.gather(
        reader.block_number(), _positions(reader, chain, uniswap, wallet, ctx.warnings)
    )
    return {"blockNumber": block, "positions": positions}


def _prefetch(reader: ChainReader, chain: ChainAddresses, uniswap: UniswapAddresses, wallet: str) -> None:
    """The wallet's first LENS_POSITIONS NFTs, their pools and tokens and the tokens' USD feeds,
    in one lens call."""
    priced = token_feeds(chain)
    sequencer = chain.sequencer_uptime_feed or NONE
    reader.prefetch(
        [
            LENS.initcode(
                wallet,
                uniswap.position_manager,
                uniswap.factory,
                LENS_POSITIONS,
                list(priced),
                [feed.feed for feed in priced.values()],
                sequencer,
            )
        ],
        [uniswap.position_manager, uniswap.factory, *(feed.feed for feed in priced.values()), sequencer],
    )


async def _positions(
    reader: ChainReader, chain: ChainAddresses, uniswap: UniswapAddresses, wallet: str, warnings: Warnings
) -> list[dict[str, Any]]:
    manager = uniswap.position_manager
    (count,) = await reader.call(manager, erc20.BALANCE_OF, wallet, label=LABEL)
    if count > MAX_POSITIONS:
        warnings.add(
            PART_UNREADABLE,
            manager,
            f"the wallet owns {count} position NFTs; {count - MAX_POSITIONS} after the first {MAX_POSITIONS} "
            "are left out",
        )
    ids = await asyncio.gather(
        *(
            reader.call(manager, TOKEN_OF_OWNER_BY_INDEX, wallet, i, label=LABEL)
            for i in range(min(count, MAX_POSITIONS))
        )
    )
    outcomes = await asyncio.gather(
        *(position(reader, chain, uniswap, token_id, warnings) for (token_id,) in ids), return_exceptions=True
    )
    found = warnings.survivors("position", [(f"{manager} #{token_id}", o) for (token_id,), o in zip(ids, outcomes)])
    return [p for p in found if p is not None]


async def position(
    reader: ChainReader, chain: ChainAddresses, uniswap: UniswapAddresses, token_id: int, warnings: Warnings
) -> dict[str, Any] | None:
    """One NFT's position at the block; None when it holds nothing."""
    manager = uniswap.position_manager
    (_, _, token0, token1, fee, lower, upper, liquidity, last0, last1, owed0, owed1) = await reader.call(
        manager, POSITIONS, token_id, label=LABEL
    )
    if not liquidity and not owed0 and not owed1:
        return None
    pool_address = await pool_of(reader, uniswap, token0, token1, fee)
    (pool, ends, info0, info1, price0, price1) = await asyncio.gather(
        pool_state(reader, pool_address),
        asyncio.gather(
            *(reader.call(pool_address, TICKS, tick, label=LABEL_POOL.format(pool_address)) for tick in (lower, upper))
        ),
        erc20.token_info(reader, token0),
        erc20.token_info(reader, token1),
        warned_usd_price(reader, chain, token0, warnings),
        warned_usd_price(reader, chain, token1, warnings),
    )
    amount0, amount1 = tick_math.amounts(pool.sqrt_price, pool.tick, lower, upper, liquidity)
    fees = [
        tick_math.fees_owed(
            owed,
            liquidity,
            tick_math.fee_growth_inside(pool.tick, lower, upper, pool.fee_growth[i], ends[0][2 + i], ends[1][2 + i]),
            last,
        )
        for i, (owed, last) in enumerate(((owed0, last0), (owed1, last1)))
    ]
    decimals0, decimals1 = info0["decimals"], info1["decimals"]
    prices, decimals = (price0, price1), (decimals0, decimals1)
    return {
        "type": "uniswap-v3-position",
        "tokenId": str(token_id),
        "positionManager": manager,
        "pool": pool.address,
        "token0": info0,
        "token1": info1,
        "feeTier": fee,
        "tickLower": lower,
        "tickUpper": upper,
        "tickCurrent": pool.tick,
        "sqrtPriceX96": str(pool.sqrt_price),
        "priceLower": ratio(tick_math.price(tick_math.sqrt_ratio_at_tick(lower), decimals0, decimals1)),
        "priceUpper": ratio(tick_math.price(tick_math.sqrt_ratio_at_tick(upper), decimals0, decimals1)),
        "priceCurrent": ratio(tick_math.price(pool.sqrt_price, decimals0, decimals1)),
        "inRange": lower <= pool.tick < upper,
        "liquidity": str(liquidity),
        "amount0": str(amount0),
        "amount1": str(amount1),
        "uncollectedFees0": str(fees[0]),
        "uncollectedFees1": str(fees[1]),
        "valueUsd": usd(prices, (amount0, amount1), decimals),
        "uncollectedFeesUsd": usd(prices, fees, decimals),
    }


async def pool_of(reader: ChainReader, uniswap: UniswapAddresses, token0: str, token1: str, fee: int) -> str:
    """The factory's pool for the pair and fee; ProtocolError when it has none."""
    (pool,) = await reader.call(uniswap.factory, GET_POOL, token0, token1, fee, label="Uniswap v3 factory")
    if pool == ZERO_ADDRESS:
        raise ProtocolError(f"Uniswap v3 factory: no pool for {token0}/{token1} at fee {fee}.")
    return cast(str, pool).lower()


async def pool_state(reader: ChainReader, pool: str) -> PoolState:
    label = LABEL_POOL.format(pool)
    slot0, (growth0,), (growth1,) = await asyncio.gather(
        reader.call(pool, SLOT0, label=label),
        *(reader.call(pool, function, label=label) for function in FEE_GROWTH_GLOBAL),
    )
    return PoolState(pool, slot0[0], slot0[1], (growth0, growth1))


def usd(prices: Sequence[UsdPrice | None], amounts: Sequence[int], decimals: Sequence[int]) -> float | None:
    """Both tokens' amounts in USD, summed exactly and rounded once; null unless both have a price."""
    known = [price for price in prices if price is not None]
    if len(known) < len(prices):
        return None
    return float(sum(price.exact(amount, d) for price, amount, d in zip(known, amounts, decimals)))
