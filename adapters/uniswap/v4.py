"""Uniswap v4: the position NFTs of the v4 PositionManager a wallet owns, at the pinned block.

How each figure is derived (docs/protocols/uniswap.md has the long form):

- Which positions: the PositionManager does not enumerate its owners' NFTs, so the event index
  keeps the recipient of every Transfer it emitted (from its deployment block); each token id
  sent to the wallet is a candidate, and `ownerOf(tokenId)` at the block decides (a burned NFT's
  `ownerOf` reverts). `balanceOf(wallet)` tells whether the index missed any: the answer then
  names how many with a warning.
- Each NFT's `getPoolAndPositionInfo(tokenId)`: its PoolKey (currency0, currency1, fee,
  tickSpacing, hooks) and the packed info (tickLower = bits 8-31, tickUpper = bits 32-55, each
  sign-extended). The PoolId is keccak256(abi.encode(PoolKey)).
- The StateView (over the PoolManager's storage): `getSlot0(poolId)` (sqrt price, tick, and the
  LP fee now, which a dynamic-fee pool's hook may change), `getPositionInfo(poolId,
  positionManager, tickLower, tickUpper, bytes32(tokenId))` (liquidity, fee growth inside at
  last accounting) and `getFeeGrowthInside(poolId, tickLower, tickUpper)` (the pool's own
  computation of the growth inside the range now).
- Amounts by the same tick math as v3 (tick_math.amounts); uncollected fees = liquidity x
  (growth inside now - at last accounting) / 2**128, fees alone: v4 keeps no tokensOwed (a
  withdrawal pays its principal and the fees out at once), so no principal is ever owed.
  Currency 0x0 is the chain's native coin.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters import tick_math
from adapters.context import FetchContext
from adapters.position_warnings import PART_UNREADABLE, Warnings
from adapters.prices import warned_usd_price
from adapters.uniswap.contracts import (
    GET_FEE_GROWTH_INSIDE,
    GET_POSITION_INFO,
    GET_SLOT0,
    OWNER_OF,
    POOL_AND_POSITION_INFO,
    STATE_VIEW,
    V4_LABEL,
    currency,
    pool_id,
    stream,
    ticks,
)
from adapters.uniswap.figures import position_answer
from adapters.uniswap.section import UniswapV4Addresses
from addresses import ChainAddresses
from chain import ChainReader, erc20
from errors import ProtocolError

MAX_CANDIDATES = 2_000
"""Token ids sent to a wallet whose owner is asked (the newest); a wallet that received more is told."""


async def candidates(ctx: FetchContext[Any], v4: UniswapV4Addresses, wallet: str, stored: bool) -> list[int]:
    """Token ids the index has seen sent to the wallet (stored only, or with the tail)."""
    events = stream(v4)
    view = await (ctx.stored_events(events) if stored else ctx.events(events))
    return sorted(int(key) for key in await view.keys(wallet))


async def positions(ctx: FetchContext[Any], v4: UniswapV4Addresses, wallet: str, most: int) -> list[dict[str, Any]]:
    """The wallet's v4 positions that hold liquidity, in token id order; `most` NFTs at most."""
    chain, reader, warnings = ctx.chain, ctx.reader(), ctx.warnings
    manager = v4.position_manager.address
    ids, (count,) = await asyncio.gather(
        candidates(ctx, v4, wallet, stored=False),
        reader.call(manager, erc20.BALANCE_OF, wallet, label=V4_LABEL),
    )
    if len(ids) > MAX_CANDIDATES:
        warnings.add(
            PART_UNREADABLE,
            manager,
            f"{len(ids)} v4 position NFTs were sent to the wallet; only the newest {MAX_CANDIDATES} are checked",
        )
        ids = ids[-MAX_CANDIDATES:]
    owners = await asyncio.gather(*(_owner(reader, manager, token_id) for token_id in ids))
    owned = [token_id for token_id, owner in zip(ids, owners) if owner == wallet]
    if count > len(owned):
        warnings.add(
            PART_UNREADABLE,
            manager,
            f"the wallet owns {count} v4 position NFTs; {count - len(owned)} not among those the event index "
            "has seen sent to it (or beyond those checked) are left out",
            retryable=True,
        )
    if len(owned) > most:
        warnings.add(
            PART_UNREADABLE,
            manager,
            f"the wallet owns {len(owned)} v4 position NFTs; {len(owned) - most} after the first {most} are left out",
        )
        owned = owned[:most]
    outcomes = await asyncio.gather(
        *(position(reader, chain, v4, token_id, warnings) for token_id in owned), return_exceptions=True
    )
    found = warnings.survivors("position", [(f"{manager} #{i}", o) for i, o in zip(owned, outcomes)])
    return [p for p in found if p is not None]


async def _owner(reader: ChainReader, manager: str, token_id: int) -> str | None:
    """The NFT's owner at the block; None once burned (ownerOf reverts NOT_MINTED)."""
    try:
        (owner,) = await reader.call(manager, OWNER_OF, token_id, label=V4_LABEL)
    except ProtocolError:
        return None
    return str(owner).lower()


async def position(
    reader: ChainReader, chain: ChainAddresses, v4: UniswapV4Addresses, token_id: int, warnings: Warnings
) -> dict[str, Any] | None:
    """One NFT's position at the block; None when it holds no liquidity."""
    manager = v4.position_manager.address
    key, info = await reader.call(manager, POOL_AND_POSITION_INFO, token_id, label=V4_LABEL)
    lower, upper = ticks(info)
    pool = pool_id(key)
    pair = (currency(key.currency0), currency(key.currency1))
    salt = token_id.to_bytes(32, "big")
    slot0: Any
    (liquidity, *growth_then), slot0, growth_now, infos = await asyncio.gather(
        reader.call(v4.state_view, GET_POSITION_INFO, pool, manager, lower, upper, salt, label=STATE_VIEW),
        reader.call(v4.state_view, GET_SLOT0, pool, label=STATE_VIEW),
        reader.call(v4.state_view, GET_FEE_GROWTH_INSIDE, pool, lower, upper, label=STATE_VIEW),
        asyncio.gather(*(erc20.token_info(reader, token) for token in pair)),
    )
    if not liquidity:
        return None
    # Read once it holds something, so that a failed feed is named only where a figure is null
    # (the lens has read the feeds already).
    prices = await asyncio.gather(*(warned_usd_price(reader, chain, token, warnings) for token in pair))
    return position_answer(
        kind="uniswap-v4-position",
        token_id=token_id,
        manager=manager,
        pool="0x" + pool.hex(),
        hooks=str(key.hooks).lower(),
        tokens=infos,
        prices=prices,
        fee=slot0.lpFee,
        spacing=key.tickSpacing,
        ticks=(lower, upper),
        state=(slot0.sqrtPriceX96, slot0.tick),
        liquidity=liquidity,
        fees=[tick_math.fees_accrued(liquidity, now, then) for now, then in zip(growth_now, growth_then)],
        principal=(0, 0),
    )
