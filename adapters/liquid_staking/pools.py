"""The liquid staking tokens' `poolDetails`: a token by its address, with its supply, its rate, the
ether the supply is worth and the rate's APY (tokens.pool, by the rate and conversion each
protocol's positions use), and what its way out tells at the block.

- ether.fi (`EtherfiPool`, eETH or weETH): eETH's supply is ether (it rebases), weETH's is worth
  `getEETHByWeETH(totalSupply)`; the WithdrawRequestNFT's `nextRequestId()` - 1 and
  `lastFinalizedRequestId()`: the requests between them wait for the oracle's finalization.
- Rocket Pool (`RocketpoolPool`): `getEthValue(totalSupply)`; `getTotalCollateral()`, the ether
  burns pay at once.
- Renzo (`RenzoPool`): the RestakeManager's totalTVL (totalSupply's worth); the seconds a request
  waits before `claim` pays it, for a wallet not whitelisted (renzo.cooldown).
- Kelp (`KelpPool`): totalSupply x `rsETHPrice()` / 1e18; the LRTWithdrawalManager's
  `withdrawalDelayBlocks()`.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, cast

from adapters.context import FetchContext
from adapters.liquid_staking import etherfi, kelp, renzo, rocketpool, tokens
from adapters.liquid_staking.contracts import (
    EETH_BY_WEETH,
    LAST_FINALIZED_REQUEST_ID,
    NEXT_REQUEST_ID,
    ONE,
    RETH_ETH_VALUE,
    RETH_TOTAL_COLLATERAL,
    WITHDRAWAL_DELAY_BLOCKS,
)
from adapters.liquid_staking.section import EtherfiAddresses, KelpAddresses, RenzoAddresses, RocketPoolAddresses
from chain import first
from chain.abi import ZERO_ADDRESS


async def etherfi_details(ctx: FetchContext[EtherfiAddresses], pool: str) -> dict[str, Any]:
    section, reader = ctx.section, ctx.reader()
    kind = tokens.chosen(ctx, pool, {section.eeth: "etherfi-eeth", section.weeth: "etherfi-weeth"})
    nft = section.withdraw_request_nft.address

    async def worth(supply: int) -> int:
        if pool == section.eeth:
            return supply
        return cast(int, await first(reader.call(pool, EETH_BY_WEETH, supply, label=f"{etherfi.LABEL} weETH")))

    rate = functools.partial(etherfi.per_share, pool=section.liquidity_pool)
    found, queue = await asyncio.gather(
        tokens.pool(ctx, "EtherfiPool", kind, pool, section.apy_period, rate, worth),
        ctx.warnings.optional(
            asyncio.gather(
                first(reader.call(nft, NEXT_REQUEST_ID, label=etherfi.NFT_LABEL)),
                first(reader.call(nft, LAST_FINALIZED_REQUEST_ID, label=etherfi.NFT_LABEL)),
            ),
            nft,
            "lastRequestId and lastFinalizedRequestId are",
        ),
    )
    last, finalized = None, None
    if queue is not None:
        following, finalized_id = queue
        last, finalized = str(following - 1), str(finalized_id)
    return {"details": {**found, "lastRequestId": last, "lastFinalizedRequestId": finalized}}


async def rocketpool_details(ctx: FetchContext[RocketPoolAddresses], pool: str) -> dict[str, Any]:
    reth, reader = ctx.section.reth, ctx.reader()
    kind = tokens.chosen(ctx, pool, {reth: "rocketpool-reth"})

    async def worth(supply: int) -> int:
        return cast(int, await first(reader.call(reth, RETH_ETH_VALUE, supply, label=rocketpool.LABEL)))

    rate = functools.partial(rocketpool.exchange_rate, reth=reth)
    found, collateral = await asyncio.gather(
        tokens.pool(ctx, "RocketpoolPool", kind, reth, ctx.section.apy_period, rate, worth),
        ctx.warnings.optional(
            first(reader.call(reth, RETH_TOTAL_COLLATERAL, label=rocketpool.LABEL)), reth, "totalCollateral is"
        ),
    )
    return {"details": {**found, "totalCollateral": None if collateral is None else str(collateral)}}


async def renzo_details(ctx: FetchContext[RenzoAddresses], pool: str) -> dict[str, Any]:
    section, reader = ctx.section, ctx.reader()
    kind = tokens.chosen(ctx, pool, {section.ezeth: "renzo-ezeth"})

    async def waits() -> int:
        return await renzo.cooldown(reader, await renzo.withdraw_queue(reader, section), ZERO_ADDRESS)

    rate = functools.partial(renzo.worth, renzo=section, amount=ONE)
    found, cooldown = await asyncio.gather(
        tokens.pool(
            ctx,
            "RenzoPool",
            kind,
            section.ezeth,
            section.apy_period,
            rate,
            lambda supply: renzo.worth(reader, section, supply),
        ),
        ctx.warnings.optional(waits(), section.restake_manager, "withdrawCooldownSeconds is"),
    )
    return {"details": {**found, "withdrawCooldownSeconds": cooldown}}


async def kelp_details(ctx: FetchContext[KelpAddresses], pool: str) -> dict[str, Any]:
    section, reader = ctx.section, ctx.reader()
    kind = tokens.chosen(ctx, pool, {section.rseth: "kelp-rseth"})

    async def worth(supply: int) -> int:
        return supply * await kelp.price(reader, section.lrt_oracle) // ONE

    rate = functools.partial(kelp.price, oracle=section.lrt_oracle)
    manager = section.withdrawal_manager
    found, delay = await asyncio.gather(
        tokens.pool(ctx, "KelpPool", kind, section.rseth, section.apy_period, rate, worth),
        ctx.warnings.optional(
            first(reader.call(manager, WITHDRAWAL_DELAY_BLOCKS, label=kelp.LABEL)), manager, "withdrawalDelayBlocks is"
        ),
    )
    return {"details": {**found, "withdrawalDelayBlocks": delay}}
