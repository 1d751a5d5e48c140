"""PancakeSwap v3: the liquidity NFTs a wallet owns and those it has staked in MasterChefV3, with
the CAKE each staked one has earned (docs/protocols/pancakeswap.md).

A PancakeSwap v3 position is a Uniswap v3 position (PancakeSwap's v3 is Uniswap v3's code): its
figures are the Uniswap package's (adapters/uniswap/positions.py, the same reads and math, the pool's
wider `slot0` decoded as PancakeSwap's). What is PancakeSwap's own is the farm:

- A staked NFT is owned by MasterChefV3, which lists it for the wallet that staked it: its
  `balanceOf(wallet)` and `tokenOfOwnerByIndex(wallet, i)` (MasterChefV3 keeps that enumeration,
  Enumerable.sol). Each is read as a held one, with `farm` the MasterChef.
- Its CAKE earned and not harvested: MasterChefV3's `pendingCake(tokenId)`, the farm's own view
  (the LM pool's reward growth inside the range since the NFT was last accounted, times its
  boosted liquidity, plus what was accounted and not harvested). One `PancakeFarmReward` per
  staked NFT, none pending included (its leg is followed through harvests), CAKE (MasterChefV3's
  `CAKE()`) in USD by its feed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters import deployment
from adapters.accounts.probes import Probe, balances
from adapters.context import FetchContext
from adapters.legs import REWARD, REWARDS, feed_of, leg, position
from adapters.pancakeswap.contracts import CAKE, MASTER_CHEF, PENDING_CAKE, cake_leg
from adapters.pancakeswap.section import PancakeSwapAddresses
from adapters.position_warnings import outcome
from adapters.prices import warned_usd_price
from adapters.uniswap import positions as uniswap
from chain import erc20
from errors import ProtocolError


def probes(pancake: PancakeSwapAddresses) -> tuple[Probe, ...]:
    """What an account must hold to be shown anything: a position NFT, its own or staked."""
    return balances(*(part for part in (pancake.v3 and pancake.v3.position_manager, pancake.master_chef) if part))


async def fetch(ctx: FetchContext[PancakeSwapAddresses], wallet: str) -> dict[str, Any]:
    held, farmed = await asyncio.gather(uniswap.fetch(ctx, wallet), outcome(_farmed(ctx, wallet)))
    staked: list[dict[str, Any]] = []
    rewards: list[dict[str, Any]] = []
    if isinstance(farmed, ProtocolError):  # the held NFTs answer without the farm, which is named
        ctx.warnings.left_out("the farm", str(ctx.section.master_chef), farmed)
    else:
        staked, rewards = farmed
    return {"positions": held["positions"] + staked, "farmRewards": rewards}


async def _farmed(
    ctx: FetchContext[PancakeSwapAddresses], wallet: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The wallet's NFTs staked in MasterChefV3 and the CAKE they have earned."""
    pancake, reader = ctx.section, ctx.reader()
    chef, v3 = pancake.master_chef, pancake.v3
    if chef is None or v3 is None or not await deployment.existing(reader, [chef], lambda farm: farm):
        return [], []
    uniswap.lens(reader, ctx.chain, wallet, (v3.position_manager, v3.factory, chef), [chef, v3.position_manager])
    ids = await uniswap.owned_ids(ctx, chef, MASTER_CHEF, wallet, "has staked")
    found, rewards = await asyncio.gather(uniswap.v3_positions(ctx, v3, ids), _rewards(ctx, chef, ids))
    return [{**found_position, "farm": chef} for found_position in found], rewards


async def _rewards(ctx: FetchContext[PancakeSwapAddresses], chef: str, ids: list[int]) -> list[dict[str, Any]]:
    if not ids:
        return []
    reader = ctx.reader()
    ((cake,), pending) = await asyncio.gather(
        reader.call(chef, CAKE, label=MASTER_CHEF),
        asyncio.gather(*(outcome(reader.call(chef, PENDING_CAKE, token_id, label=MASTER_CHEF)) for token_id in ids)),
    )
    cake = str(cake).lower()
    info, price = await asyncio.gather(
        erc20.token_info(reader, cake), warned_usd_price(reader, ctx.chain, cake, ctx.warnings)
    )
    found = []
    for token_id, read in zip(ids, pending):
        if isinstance(read, ProtocolError):  # its LM pool's view failed: this reward alone is left out
            ctx.warnings.left_out("the CAKE pending of NFT", f"{chef} #{token_id}", read)
            continue
        (amount,) = read
        usd = None if price is None else price.value(amount, info["decimals"])
        found.append(
            {
                "tokenId": str(token_id),
                "farm": chef,
                "rewardToken": info,
                "pending": str(amount),
                "pendingUsd": usd,
                **position(
                    "PancakeFarmReward",
                    cake_leg(chef, token_id),
                    REWARDS,
                    f"CAKE of #{token_id}",
                    [leg(REWARD, cake_leg(chef, token_id), info, amount, usd, feed_of(price))],
                ),
            }
        )
    return found
