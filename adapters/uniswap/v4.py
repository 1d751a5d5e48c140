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
  (growth inside now - at last accounting) / 2**128 (v4 keeps no tokensOwed: a withdrawal pays
  out at once). Currency 0x0 is the chain's native coin.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from adapters.context import FetchContext
from adapters.position_warnings import PART_UNREADABLE, Warnings
from adapters.prices import warned_usd_price
from adapters.uniswap import tick_math
from adapters.uniswap.figures import position_answer
from addresses import ChainAddresses, UniswapV4Addresses
from chain import ChainReader, erc20
from chain.abi import ZERO_ADDRESS, Function, encode
from chain.erc20 import NATIVE
from chain.event_index import Holding, Rows, Stream
from chain.keccak import keccak256
from chain.reader import Log
from errors import ProtocolError

POOL_KEY = ("address", "address", "uint24", "int24", "address")
"""currency0, currency1, fee, tickSpacing, hooks."""
OWNER_OF = Function("ownerOf(uint256)", "6352211e", ("address",))
POOL_AND_POSITION_INFO = Function("getPoolAndPositionInfo(uint256)", "7ba03aad", (f"({','.join(POOL_KEY)})", "uint256"))
POOL_KEYS = Function("poolKeys(bytes25)", "86b6be7d", POOL_KEY)
GET_SLOT0 = Function("getSlot0(bytes32)", "c815641c", ("uint160", "int24", "uint24", "uint24"))
GET_POSITION_INFO = Function(
    "getPositionInfo(bytes32,address,int24,int24,bytes32)", "dacf1d2f", ("uint128", "uint256", "uint256")
)
GET_FEE_GROWTH_INSIDE = Function("getFeeGrowthInside(bytes32,int24,int24)", "53e9c1fb", ("uint256", "uint256"))
GET_LIQUIDITY = Function("getLiquidity(bytes32)", "fa6793d5", ("uint128",))
MAX_CANDIDATES = 2_000
"""Token ids sent to a wallet whose owner is asked (the newest); a wallet that received more is told."""
LABEL = "Uniswap v4 position manager"
STATE_VIEW = "Uniswap v4 state view"


def stream(v4: UniswapV4Addresses) -> Stream:
    """Who may hold a v4 position NFT: the recipient of each of the PositionManager's Transfers."""
    manager = v4.position_manager.address.lower()

    def rows(entry: Log) -> Rows:
        topics = entry.topics
        if entry.address == manager and len(topics) == 4 and topics[0] == erc20.TRANSFER.topic:
            return [Holding("0x" + topics[2][-40:], str(int(topics[3], 16)), entry.block_number)]
        return []

    return Stream(f"uniswap-v4 {manager}", (manager,), (erc20.TRANSFER.topic,), v4.position_manager.start_block, rows)


@functools.lru_cache(maxsize=4096)
def pool_id(key: tuple[str, str, int, int, str]) -> bytes:
    """keccak256(abi.encode(PoolKey)): a pool's id, as PoolIdLibrary.toId computes it."""
    return keccak256(encode(POOL_KEY, key))


def ticks(info: int) -> tuple[int, int]:
    """(tickLower, tickUpper) of a packed PositionInfo (PositionInfoLibrary)."""
    return _int24(info >> 8), _int24(info >> 32)


def _int24(word: int) -> int:
    value = word & 0xFFFFFF
    return value - (1 << 24) if value >= 1 << 23 else value


def currency(address: str) -> str:
    """A currency of a PoolKey as the service names tokens: 0x0 is the native coin."""
    return NATIVE if address == ZERO_ADDRESS else address.lower()


async def candidates(ctx: FetchContext, v4: UniswapV4Addresses, wallet: str, stored: bool) -> list[int]:
    """Token ids the index has seen sent to the wallet (stored only, or with the tail)."""
    events = stream(v4)
    view = await (ctx.stored_events(events) if stored else ctx.events(events))
    return sorted(int(key) for key in view.keys(wallet))


async def positions(ctx: FetchContext, v4: UniswapV4Addresses, wallet: str, most: int) -> list[dict[str, Any]]:
    """The wallet's v4 positions that hold liquidity, in token id order; `most` NFTs at most."""
    chain, reader, warnings = ctx.chain, ctx.reader(), ctx.warnings
    manager = v4.position_manager.address
    ids, (count,) = await asyncio.gather(
        candidates(ctx, v4, wallet, stored=False),
        reader.call(manager, erc20.BALANCE_OF, wallet, label=LABEL),
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
        (owner,) = await reader.call(manager, OWNER_OF, token_id, label=LABEL)
    except ProtocolError:
        return None
    return str(owner).lower()


async def position(
    reader: ChainReader, chain: ChainAddresses, v4: UniswapV4Addresses, token_id: int, warnings: Warnings
) -> dict[str, Any] | None:
    """One NFT's position at the block; None when it holds no liquidity."""
    manager = v4.position_manager.address
    key, info = await reader.call(manager, POOL_AND_POSITION_INFO, token_id, label=LABEL)
    lower, upper = ticks(info)
    pool = pool_id(tuple(key))
    pair = (currency(key[0]), currency(key[1]))
    salt = token_id.to_bytes(32, "big")
    (liquidity, last0, last1), slot0, inside, infos = await asyncio.gather(
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
    fees = [tick_math.fees_accrued(liquidity, now, last) for now, last in zip(inside, (last0, last1))]
    return position_answer(
        kind="uniswap-v4-position",
        token_id=token_id,
        manager=manager,
        pool="0x" + pool.hex(),
        hooks=str(key[4]).lower(),
        tokens=(infos[0], infos[1]),
        prices=(prices[0], prices[1]),
        fee=slot0[3],
        spacing=key[3],
        ticks=(lower, upper),
        state=(slot0[0], slot0[1]),
        liquidity=liquidity,
        fees=(fees[0], fees[1]),
    )
