"""Uniswap: the liquidity positions (NFTs) a wallet owns, v3 and v4, read from the chain at the
pinned block. The v3 reads are here, the v4 ones in v4.py, the answer of one position in figures.py;
the functions they call are in contracts.py, the v3 pool's reads that pools.py makes too in v3_pool.py.

How each figure is derived (docs/protocols/uniswap.md has the long form; tick_math.py the integer
math, equal to the contracts'):

- Which positions: the NonfungiblePositionManager's `balanceOf(wallet)` and
  `tokenOfOwnerByIndex(wallet, i)` (it enumerates its owners' NFTs: no event scan). Only NFTs the
  wallet itself owns: one staked in a farm or gauge is owned by that contract.
- Each NFT's `positions(tokenId)`: tokens, fee, tick range, liquidity, the fee growth inside the
  range it last accounted at and what it owes the NFT (`tokensOwed`: fees, and principal
  withdrawn and not collected). An NFT with no liquidity and nothing owed (closed, not yet
  burned) holds nothing and is not listed.
- Its pool: the factory's `getPool(token0, token1, fee)`; the pool's `slot0()` (sqrt price,
  tick), `tickSpacing()`, `feeGrowthGlobal{0,1}X128()` and `ticks(tickLower)`,
  `ticks(tickUpper)` (fee growth outside each end).
- amount0/amount1: what burning the whole liquidity would pay at the block, by the current tick
  against the range (tick_math.amounts, the pool's own rounding, the SDK's Position.amount0/1).
- Principal owed: where tokensOwed is not 0, the part of it that is withdrawn principal, from the
  NFT's DecreaseLiquidity and Collect events (owed.py; while the index has not read them all,
  all of tokensOwed, with a warning).
- Uncollected fees: tokensOwed - principal owed + liquidity x (fee growth inside now - at last
  accounting) / 2**128; with the principal, what the manager's `collect` pays (tick_math.fees_owed).
- Prices: whole token1 per whole token0, (sqrtPrice / 2**96)**2 x 10**(decimals0 - decimals1),
  at the pool's price and at each end of the range (TickMath.getSqrtRatioAtTick).
- USD: each token's amount through its USD feed; null unless both tokens have one.

Both versions' reads go out at once in UniswapLens (lenses/, chain/lens.py), one call for each
version in the same round, the v4 token ids the event index has stored passed to it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters import deployment
from adapters.accounts.probes import Probe, balances
from adapters.context import FetchContext
from adapters.position_warnings import PART_UNREADABLE
from adapters.prices import lens_feeds, warned_usd_price
from adapters.tick_math import fee_growth_inside, fees_owed
from adapters.uniswap import owed, v4
from adapters.uniswap.contracts import (
    POSITIONS,
    TICK_SPACING,
    TICKS,
    TOKEN_OF_OWNER_BY_INDEX,
    codebase,
    label,
    pool_label,
)
from adapters.uniswap.figures import position_answer
from adapters.uniswap.section import UniswapAddresses, UniswapV3Addresses, UniswapV4Addresses
from adapters.uniswap.v3_pool import pool_of, pool_state
from addresses import ChainAddresses
from chain import ChainReader, erc20
from chain.lens import NONE, Lens

MAX_POSITIONS = 500
"""NFTs read per wallet and version; beyond them the answer names how many are left out."""
LENS_POSITIONS = 14
"""v3 NFTs the lens reads: its answer is capped at 24 KB, and a v3 position's reads take about
1,160 bytes of it (its pool's and tokens' once more); the rest take rounds."""
V4_LENS_POSITIONS = 20
"""v4 candidates a second lens call reads, in the same round (about 710 bytes a position)."""
LENS = Lens(
    "UniswapLens",
    (
        *("address", "(address,address,address)", "uint256", "address", "address", "uint256[]"),
        *("address[]", "address[]", "address"),
    ),
)
"""(wallet, v3 (manager, factory, farm), NFTs, v4 manager, state view, v4 ids, feeds' tokens, feeds,
sequencer)."""


def probes(uniswap: UniswapAddresses) -> tuple[Probe, ...]:
    """What an account must hold to be shown anything: a v3 or a v4 position NFT."""
    managers = (uniswap.v3 and uniswap.v3.position_manager, uniswap.v4 and uniswap.v4.position_manager.address)
    return balances(*(manager for manager in managers if manager))


async def fetch(ctx: FetchContext[UniswapAddresses], wallet: str) -> dict[str, Any]:
    chain = ctx.chain
    uniswap = ctx.section
    reader = ctx.reader()
    block = await reader.block_number()
    v3_on, v4_on = await _deployed(reader, ctx.protocol, uniswap, block)
    stored = await v4.candidates(ctx, v4_on, wallet, stored=True) if v4_on else []
    _prefetch(reader, chain, v3_on, v4_on, wallet, stored)
    v3_positions, v4_positions = await asyncio.gather(
        _v3_positions(ctx, v3_on, wallet) if v3_on else _none(),
        v4.positions(ctx, v4_on, wallet, MAX_POSITIONS) if v4_on else _none(),
    )
    return {"positions": v3_positions + v4_positions}


async def _deployed(
    reader: ChainReader, protocol: str, uniswap: UniswapAddresses, block: int
) -> tuple[UniswapV3Addresses | None, UniswapV4Addresses | None]:
    """The versions whose position manager existed at the block: at a past block, those with
    code (and v4 not before its scan starts); VALIDATION_ERROR when neither did (a block before
    a v4-only chain's position manager is refused by the declaration, adapters/protocol.py)."""
    v3, v4_addresses = uniswap.v3, uniswap.v4
    if v4_addresses and block < v4_addresses.position_manager.start_block:
        v4_addresses = None
    managers = [m for m in (v3 and v3.position_manager, v4_addresses and v4_addresses.position_manager.address) if m]
    present = await deployment.deployed(reader, protocol, managers, lambda manager: manager, "position managers")
    return (
        v3 if v3 and v3.position_manager in present else None,
        v4_addresses if v4_addresses and v4_addresses.position_manager.address in present else None,
    )


async def _none() -> list[dict[str, Any]]:
    return []


def _prefetch(
    reader: ChainReader,
    chain: ChainAddresses,
    v3: UniswapV3Addresses | None,
    v4_addresses: UniswapV4Addresses | None,
    wallet: str,
    ids: list[int],
) -> None:
    """The wallet's first LENS_POSITIONS v3 NFTs, and its first V4_LENS_POSITIONS v4 candidates
    (`ids`), their pools and tokens and the tokens' USD feeds: a lens call for each version read,
    in one round."""
    if v3:
        lens(reader, chain, wallet, (v3.position_manager, v3.factory, NONE), [v3.position_manager, v3.factory])
    if v4_addresses:
        manager, state_view = v4_addresses.position_manager.address, v4_addresses.state_view
        lens(reader, chain, wallet, (NONE, NONE, NONE), [manager, state_view], (manager, state_view, ids))


def lens(
    reader: ChainReader,
    chain: ChainAddresses,
    wallet: str,
    v3: tuple[str, str, str],
    targets: list[str],
    v4: tuple[str, str, list[int]] = (NONE, NONE, []),
) -> None:
    """One UniswapLens call in the next round: the v3 NFTs of `v3` (manager, factory, and the farm
    that lists them, NONE for the manager's own) or the v4 candidates of `v4` (manager, state
    view, ids), with the tokens' USD feeds; reads of `targets` and the feeds wait for it."""
    tokens, feeds, sequencer = lens_feeds(chain)
    v3_manager, *_ = v3
    nfts = LENS_POSITIONS if v3_manager != NONE else 0
    manager, state_view, ids = v4
    code = LENS.initcode(wallet, v3, nfts, manager, state_view, ids[:V4_LENS_POSITIONS], tokens, feeds, sequencer)
    reader.prefetch([code], [*targets, *feeds, sequencer])


async def _v3_positions(ctx: FetchContext[Any], v3: UniswapV3Addresses, wallet: str) -> list[dict[str, Any]]:
    ids = await owned_ids(ctx, v3.position_manager, label(v3), wallet)
    return await v3_positions(ctx, v3, ids)


async def owned_ids(ctx: FetchContext[Any], enumerator: str, name: str, wallet: str, how: str = "owns") -> list[int]:
    """The NFTs `enumerator` lists for the wallet (`balanceOf`, `tokenOfOwnerByIndex`), the first
    MAX_POSITIONS of them: a position manager's own, or a farm's that keeps the NFTs staked in it
    (`how` the wallet has them, for the warning)."""
    reader = ctx.reader()
    (count,) = await reader.call(enumerator, erc20.BALANCE_OF, wallet, label=name)
    if count > MAX_POSITIONS:
        ctx.warnings.add(
            PART_UNREADABLE,
            enumerator,
            f"the wallet {how} {count} position NFTs; {count - MAX_POSITIONS} after the first {MAX_POSITIONS} "
            "are left out",
        )
    ids = await asyncio.gather(
        *(
            reader.call(enumerator, TOKEN_OF_OWNER_BY_INDEX, wallet, i, label=name)
            for i in range(min(count, MAX_POSITIONS))
        )
    )
    return [token_id for (token_id,) in ids]


async def v3_positions(ctx: FetchContext[Any], v3: UniswapV3Addresses, ids: list[int]) -> list[dict[str, Any]]:
    """The NFTs' positions, those that hold something; one that cannot be read is named in a warning."""
    reader, manager = ctx.reader(), v3.position_manager
    outcomes = await asyncio.gather(*(position(ctx, reader, v3, token_id) for token_id in ids), return_exceptions=True)
    found = ctx.warnings.survivors("position", [(f"{manager} #{token_id}", o) for token_id, o in zip(ids, outcomes)])
    return [p for p in found if p is not None]


async def position(
    ctx: FetchContext[Any], reader: ChainReader, v3: UniswapV3Addresses, token_id: int
) -> dict[str, Any] | None:
    """One v3 NFT's position at the reader's block; None when it holds nothing."""
    manager, chain, warnings = v3.position_manager, ctx.chain, ctx.warnings
    nft: Any = await reader.call(manager, POSITIONS, token_id, label=label(v3))
    owed_now = (nft.tokensOwed0, nft.tokensOwed1)
    if not nft.liquidity and not any(owed_now):
        return None
    pool_address = await pool_of(reader, v3, nft.token0, nft.token1, nft.fee)
    at_pool = pool_label(v3, pool_address)
    pair, lower, upper = (nft.token0, nft.token1), nft.tickLower, nft.tickUpper
    pool, (spacing,), (outside_lower, outside_upper), infos, prices, principal = await asyncio.gather(
        pool_state(reader, v3, pool_address),
        reader.call(pool_address, TICK_SPACING, label=at_pool),
        asyncio.gather(*(_fee_growth_outside(reader, pool_address, tick, at_pool) for tick in (lower, upper))),
        asyncio.gather(*(erc20.token_info(reader, token) for token in pair)),
        asyncio.gather(*(warned_usd_price(reader, chain, token, warnings) for token in pair)),
        _principal(ctx, reader, manager, token_id, owed_now),
    )
    fees = [
        fees_owed(held - part, nft.liquidity, fee_growth_inside(pool.tick, lower, upper, growth, below, above), last)
        for held, part, last, growth, below, above in zip(
            owed_now,
            principal,
            (nft.feeGrowthInside0LastX128, nft.feeGrowthInside1LastX128),
            pool.fee_growth,
            outside_lower,
            outside_upper,
        )
    ]
    return position_answer(
        kind=f"{codebase(v3).kind}-position",
        token_id=token_id,
        manager=manager,
        pool=pool.address,
        hooks=None,
        tokens=infos,
        prices=prices,
        fee=nft.fee,
        spacing=spacing,
        ticks=(lower, upper),
        state=(pool.sqrt_price, pool.tick),
        liquidity=nft.liquidity,
        fees=fees,
        principal=principal,
    )


async def _principal(
    ctx: FetchContext[Any], reader: ChainReader, manager: str, token_id: int, owed_now: tuple[int, int]
) -> tuple[int, int]:
    """What of `owed_now` (tokensOwed at the reader's block) is principal withdrawn and not
    collected: none where nothing is owed (no events read), all of it, named in a retryable
    warning, while the index has not read the NFT's events (no principal is ever counted as fees)."""
    if not any(owed_now):
        return 0, 0
    found = await owed.events(ctx, manager, token_id, await reader.block_number())
    if found is None:
        ctx.warnings.add(
            PART_UNREADABLE,
            manager,
            f"NFT {token_id}: the event index has not read its withdrawals yet, so all it is owed counts as "
            "principal owed, none as uncollected fees",
            retryable=True,
        )
        return owed_now
    return owed.walk(found)[0]


async def _fee_growth_outside(reader: ChainReader, pool: str, tick: int, label: str) -> tuple[int, int]:
    """The fee growth per token on the other side of `tick` from the current one (`ticks(tick)`)."""
    outside: Any = await reader.call(pool, TICKS, tick, label=label)
    return outside.feeGrowthOutside0X128, outside.feeGrowthOutside1X128
