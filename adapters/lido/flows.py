"""A wallet's flows in Lido (docs/protocols/lido.md), both legs in stETH:

- stETH (`<stETH address>`): every `Transfer` to or from the wallet, mints (`submit`) and burns
  included, in stETH as Lido emits it; the rebases between them are what it earned;
- wstETH (`<wstETH address>`): every wstETH `Transfer` to or from the wallet (wraps and unwraps
  are mints and burns), in stETH at `getStETHByWstETH` at its block: what it earned is the growth
  of stETH per share while held.

Withdrawal requests are not derived yet (`FLOWS_UNAVAILABLE` names them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import cast

from adapters.context import FetchContext
from adapters.flows import Flow, WalletLogs, own_transfers, topic
from adapters.lido.positions import STETH_BY_WSTETH
from addresses import LidoAddresses


async def flows(ctx: FetchContext, wallet: str, logs: WalletLogs, legs: Mapping[str, str]) -> list[Flow]:
    lido = cast(LidoAddresses, ctx.chain.lido)
    steth, wsteth, named = lido.steth.lower(), lido.wsteth.lower(), topic(wallet)
    found = [flow for log in logs if log.address == steth for flow in own_transfers(log, named)]
    wrapped = [flow for log in logs if log.address == wsteth for flow in own_transfers(log, named)]

    async def in_steth(flow: Flow) -> Flow:
        reader = ctx.chains.reader(ctx.chain_id, flow.block)
        (amount,) = await reader.call(wsteth, STETH_BY_WSTETH, abs(flow.amount), label="Lido wstETH")
        return flow._replace(asset=steth, amount=amount if flow.amount > 0 else -amount)

    found += await asyncio.gather(*(in_steth(flow) for flow in wrapped))
    return sorted(found, key=lambda flow: flow[2:4])
