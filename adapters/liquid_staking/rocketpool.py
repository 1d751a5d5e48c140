"""Rocket Pool on Ethereum: the wallet's rETH and what of it a burn pays now, on-chain.

How each figure is derived (all at the request's pinned block; docs/protocols/rocketpool.md has
the long form):

- rETH (`rocketpool-reth`): `balance` = `balanceOf(wallet)` (rETH does not rebase; `shares` = the
  balance); `eth` = `getEthValue(balance)`, rETH's own rate (the network's total ETH balance over
  the rETH supply, as the oracle DAO reports them); `ethPerToken` = `getExchangeRate()`.
- USD: eth x Chainlink's ETH/USD feed.
- APY: the growth of `getExchangeRate()` over the period before the block (7 days), compounded to
  a year (adapters/history.py).
- Burn: `burn(amount)` pays `getEthValue(amount)` at once, while `getTotalCollateral()` (the rETH
  contract's ether and the deposit pool's excess) covers it: `burnableEth` = min(eth, total
  collateral), `burnableREth` = the balance when all of it is covered, else
  `getRethValue(total collateral)`, the rETH whose ether the collateral pays (rETH's own view).

All reads go out at once in RocketPoolLens (lenses/, chain/lens.py).
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, cast

from adapters import history
from adapters.accounts.probes import Probe, balances
from adapters.context import FetchContext
from adapters.deployment import require
from adapters.liquid_staking import tokens
from adapters.liquid_staking.contracts import (
    RETH_ETH_VALUE,
    RETH_EXCHANGE_RATE,
    RETH_TOTAL_COLLATERAL,
    RETH_VALUE,
    ROCKET_POOL_LENS,
)
from adapters.liquid_staking.section import RocketPoolAddresses
from adapters.prices import warned_usd_price
from chain import ChainReader, erc20
from chain.erc20 import NATIVE

LABEL = "Rocket Pool rETH"


async def exchange_rate(reader: ChainReader, reth: str) -> int:
    (rate,) = await reader.call(reth, RETH_EXCHANGE_RATE, label=LABEL)
    return cast(int, rate)


def probes(rocketpool: RocketPoolAddresses) -> tuple[Probe, ...]:
    """What an account must hold to be shown anything: rETH."""
    return balances(rocketpool.reth)


async def fetch(ctx: FetchContext[RocketPoolAddresses], wallet: str) -> dict[str, Any]:
    chain, reader, warnings = ctx.chain, ctx.reader(), ctx.warnings
    rocketpool = ctx.section
    reth = rocketpool.reth
    rate_at = functools.partial(exchange_rate, reth=reth)
    feeds, sequencer = tokens.feeds(chain)
    reader.prefetch([ROCKET_POOL_LENS.initcode(wallet, reth, feeds, sequencer)], [reth, *feeds, sequencer])
    history.read_ahead(reader, rocketpool.apy_period, rate_at)
    await require(reader, "rocketpool", reth, "rETH")
    (balance,) = await reader.call(reth, erc20.BALANCE_OF, wallet, label=LABEL)
    if not balance:
        return {"stakedPositions": [], "burn": None}
    token, rate, (eth,), (collateral,), price, apy = await asyncio.gather(
        erc20.token_info(reader, reth),
        exchange_rate(reader, reth),
        reader.call(reth, RETH_ETH_VALUE, balance, label=LABEL),
        reader.call(reth, RETH_TOTAL_COLLATERAL, label=LABEL),
        warned_usd_price(reader, chain, NATIVE, warnings),
        tokens.apy(reader, rocketpool.apy_period, rate_at, warnings, reth),
    )
    burnable, burnable_reth = eth, balance
    if collateral < eth:
        burnable = collateral
        (burnable_reth,) = await reader.call(reth, RETH_VALUE, collateral, label=LABEL)
    return {
        "stakedPositions": [
            tokens.position("rocketpool-reth", token, balance, balance, eth, rate, price, apy, reader.chain_id)
        ],
        "burn": {
            "token": token,
            "totalCollateral": str(collateral),
            "burnableREth": str(burnable_reth),
            "burnableEth": str(burnable),
            "burnableEthUsd": price.value(burnable, 18) if price else None,
        },
    }
