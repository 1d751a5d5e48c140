"""A wallet's flows in the liquid staking tokens (docs/protocols/liquid-staking.md), every leg in
ether, as its `LiquidStakingPosition.eth`:

- each `Transfer` of a token to or from the wallet, mints and burns included (a deposit, a wrap,
  a withdrawal request, a burn), keyed by the token's address, in ether by the protocol's own
  conversion at the transfer's block, the one the position uses: eETH 1:1 (its balance is ether),
  weETH `getEETHByWeETH`, rETH `getEthValue`, ezETH amount x `calculateTVLs` total / supply,
  rsETH amount x `rsETHPrice` / 1e18. The state read is that after the block, the closest a read
  can name.
- What a token earns is its growth in ether while held: end - start - the flows.

The withdrawal requests' legs (ether.fi's NFTs, Renzo's and Kelp's queues) are not derived: the
series names them in FLOWS_UNAVAILABLE. The token sent to make one is a flow out of its token.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import cast

from adapters.context import FetchContext
from adapters.flows import Flow, WalletLogs, topic, transferred
from adapters.liquid_staking import kelp, renzo, rocketpool
from adapters.liquid_staking.contracts import EETH_BY_WEETH, ONE, RETH_ETH_VALUE
from addresses import ChainAddresses, EtherfiAddresses, KelpAddresses, RenzoAddresses, RocketPoolAddresses
from chain import ChainReader, Log
from chain.abi import Function
from chain.erc20 import NATIVE

Worth = Callable[[ChainReader, int], Awaitable[int]]
"""The ether an amount of a token is worth at the reader's block, by the protocol's own rate."""


def worths(chain: ChainAddresses, protocol: str) -> dict[str, Worth]:
    """The protocol's tokens on the chain (lowercase address) and how each is worth ether."""
    if protocol == "etherfi":
        etherfi = cast(EtherfiAddresses, chain.etherfi)
        return {
            etherfi.eeth.lower(): _itself,
            etherfi.weeth.lower(): _view(etherfi.weeth, EETH_BY_WEETH, "ether.fi weETH"),
        }
    if protocol == "rocketpool":
        reth = cast(RocketPoolAddresses, chain.rocketpool).reth
        return {reth.lower(): _view(reth, RETH_ETH_VALUE, rocketpool.LABEL)}
    if protocol == "renzo":
        restaked = cast(RenzoAddresses, chain.renzo)
        return {restaked.ezeth.lower(): lambda reader, amount: renzo.worth(reader, restaked, amount)}
    oracle = cast(KelpAddresses, chain.kelp)

    async def rseth(reader: ChainReader, amount: int) -> int:
        return amount * await kelp.price(reader, oracle.lrt_oracle) // ONE

    return {oracle.rseth.lower(): rseth}


async def _itself(_: ChainReader, amount: int) -> int:
    return amount


def _view(token: str, view: Function, label: str) -> Worth:
    async def worth(reader: ChainReader, amount: int) -> int:
        (eth,) = await reader.call(token, view, amount, label=label)
        return cast(int, eth)

    return worth


async def flows(ctx: FetchContext, wallet: str, logs: WalletLogs, legs: Mapping[str, str]) -> list[Flow]:
    tokens, named = worths(ctx.chain, ctx.protocol), topic(wallet)

    async def in_ether(log: Log) -> Flow | None:
        worth, moved = tokens[log.address], transferred(log, named)
        if moved is None:
            return None
        eth = await worth(ctx.chains.reader(ctx.chain_id, log.block_number), abs(moved.amount))
        at = (log.block_number, log.log_index, log.transaction_hash)
        return Flow(log.address, moved.kind, *at, NATIVE, eth if moved.amount > 0 else -eth)

    found = await asyncio.gather(*(in_ether(log) for log in logs if log.address in tokens))
    return [flow for flow in found if flow is not None]
