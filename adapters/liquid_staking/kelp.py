"""Kelp on Ethereum: the wallet's rsETH in ether by Kelp's own oracle, on-chain.

How each figure is derived (all at the request's pinned block; docs/protocols/kelp.md has the long
form):

- rsETH (`kelp-rseth`): `balance` = `balanceOf(wallet)` (rsETH does not rebase; `shares` = the
  balance); `ethPerToken` = the LRTOracle's `rsETHPrice()` (ether per rsETH, 1e18 scale, which
  Kelp's `updateRSETHPrice` sets from the assets in the protocol less its fee); `eth` = balance x
  rsETHPrice / 1e18, rounded down, as the LRTWithdrawalManager values rsETH in ether.
- USD: eth x Chainlink's ETH/USD feed.
- APY: the growth of `rsETHPrice()` over the period before the block (7 days), compounded to a year.

Kelp's LRTWithdrawalManager is not read yet (docs/protocols/kelp.md). All reads go out at once in
RestakedTokenLens (lenses/, chain/lens.py).
"""

from __future__ import annotations

import functools
from typing import Any, cast

from adapters import history
from adapters.context import FetchContext
from adapters.liquid_staking import tokens
from adapters.liquid_staking.contracts import ONE, RESTAKED_TOKEN_LENS, RSETH_PRICE
from addresses import KelpAddresses
from chain import ChainReader


async def price(reader: ChainReader, oracle: str) -> int:
    (answer,) = await reader.call(oracle, RSETH_PRICE, label="Kelp LRTOracle")
    return cast(int, answer)


async def fetch(ctx: FetchContext, wallet: str) -> dict[str, Any]:
    chain, reader = ctx.chain, ctx.reader()
    kelp = cast(KelpAddresses, chain.kelp)
    feeds, sequencer = tokens.feeds(chain)
    reader.prefetch(
        [RESTAKED_TOKEN_LENS.initcode(wallet, kelp.rseth, kelp.lrt_oracle, True, feeds, sequencer)],
        [kelp.rseth, kelp.lrt_oracle, *feeds, sequencer],
    )
    rate = functools.partial(price, oracle=kelp.lrt_oracle)
    history.read_ahead(reader, kelp.apy_period, rate)

    async def worth(balance: int) -> int:
        return balance * await price(reader, kelp.lrt_oracle) // ONE

    staked = await tokens.held(
        reader, chain, ctx.warnings, ("kelp-rseth", kelp.rseth), wallet, kelp.apy_period, rate, worth
    )
    return {"stakedPositions": staked}
