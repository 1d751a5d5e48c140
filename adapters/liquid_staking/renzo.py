"""Renzo on Ethereum: the wallet's ezETH in ether by what backs it, on-chain.

How each figure is derived (all at the request's pinned block; docs/protocols/renzo.md has the
long form):

- ezETH (`renzo-ezeth`): `balance` = `balanceOf(wallet)` (ezETH does not rebase; `shares` = the
  balance); `eth` = balance x totalTVL / `totalSupply()`, rounded down, where totalTVL is the third
  answer of the RestakeManager's `calculateTVLs()` (every operator delegator's and the deposit
  queue's assets in ether, by Renzo's oracle): what RenzoOracle's `calculateRedeemAmount` (a pure
  function) gives and the WithdrawQueue pays by; `ethPerToken` = 1e18 x totalTVL / totalSupply,
  as Renzo's BalancerRateProvider `getRate` computes it.
- USD: eth x Chainlink's ETH/USD feed.
- APY: the growth of `ethPerToken` over the period before the block (7 days), compounded to a year.

Renzo's WithdrawQueue is not read yet (docs/protocols/renzo.md). All reads go out at once in
RenzoLens (lenses/, chain/lens.py).
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, cast

from adapters import history
from adapters.context import FetchContext
from adapters.liquid_staking import tokens
from adapters.liquid_staking.contracts import CALCULATE_TVLS, ONE, RENZO_LENS
from addresses import RenzoAddresses
from chain import ChainReader, erc20


async def backing(reader: ChainReader, renzo: RenzoAddresses) -> tuple[int, int]:
    """(totalTVL, ezETH's totalSupply) at the reader's block."""
    (_, _, tvl), (supply,) = await asyncio.gather(
        reader.call(renzo.restake_manager, CALCULATE_TVLS, label="Renzo RestakeManager"),
        reader.call(renzo.ezeth, erc20.TOTAL_SUPPLY, label="Renzo ezETH"),
    )
    return cast(int, tvl), cast(int, supply)


async def worth(reader: ChainReader, renzo: RenzoAddresses, amount: int) -> int:
    """What `amount` ezETH redeems for: amount x totalTVL / totalSupply (0 without a supply)."""
    tvl, supply = await backing(reader, renzo)
    return amount * tvl // supply if supply else 0


async def fetch(ctx: FetchContext, wallet: str) -> dict[str, Any]:
    chain, reader = ctx.chain, ctx.reader()
    renzo = cast(RenzoAddresses, chain.renzo)
    feeds, sequencer = tokens.feeds(chain)
    reader.prefetch(
        [RENZO_LENS.initcode(wallet, renzo.ezeth, renzo.restake_manager, feeds, sequencer)],
        [renzo.ezeth, renzo.restake_manager, *feeds, sequencer],
    )
    rate = functools.partial(worth, renzo=renzo, amount=ONE)
    history.read_ahead(reader, renzo.apy_period, rate)
    staked = await tokens.held(
        reader,
        chain,
        ctx.warnings,
        ("renzo-ezeth", renzo.ezeth),
        wallet,
        renzo.apy_period,
        rate,
        lambda balance: worth(reader, renzo, balance),
    )
    return {"stakedPositions": staked}
