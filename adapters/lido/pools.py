"""Lido's `poolDetails`: stETH or wstETH by its address, as every liquid staking token's pool
(liquid_staking/tokens.pool), with the WithdrawalQueue's totals.

- stETH (`lido-steth-pool`): its `totalSupply()` is the ether Lido pools (it rebases), so
  totalEth = totalSupply; wstETH (`lido-wsteth-pool`): totalEth = `getStETHByWstETH(totalSupply)`.
  ethPerToken (both) = `getPooledEthByShares(1e18)`, the ether of one share, the rate a wstETH is
  worth and the APY grows by; USD by the stETH/USD feed, as positions.
- The queue: `unfinalizedStETH()` (stETH asked for and not yet finalized), `getLastRequestId()` and
  `getLastFinalizedRequestId()`.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, cast

from adapters.context import FetchContext
from adapters.lido.section import LidoAddresses
from adapters.lido.shares import STETH_BY_WSTETH, per_share
from adapters.liquid_staking import tokens
from chain import first
from chain.abi import Function

UNFINALIZED_STETH = Function("unfinalizedStETH()", "d0fb84e8", ("uint256",))
LAST_REQUEST_ID = Function("getLastRequestId()", "19c2b4c3", ("uint256",))
LAST_FINALIZED_REQUEST_ID = Function("getLastFinalizedRequestId()", "4f069a13", ("uint256",))
QUEUE_LABEL = "Lido WithdrawalQueue"


async def details(ctx: FetchContext[LidoAddresses], pool: str) -> dict[str, Any]:
    lido, reader = ctx.section, ctx.reader()
    kind = tokens.chosen(ctx, pool, {lido.steth: "lido-steth", lido.wsteth: "lido-wsteth"})

    async def worth(supply: int) -> int:
        if pool == lido.steth:
            return supply
        return cast(int, await first(reader.call(pool, STETH_BY_WSTETH, supply, label="Lido wstETH")))

    rate = functools.partial(per_share, steth=lido.steth)
    queue = lido.withdrawal_queue
    found, totals = await asyncio.gather(
        tokens.pool(ctx, "LidoPool", kind, pool, lido.apy_period, rate, worth, priced=lido.steth),
        ctx.warnings.optional(
            asyncio.gather(
                *(
                    first(reader.call(queue, function, label=QUEUE_LABEL))
                    for function in (UNFINALIZED_STETH, LAST_REQUEST_ID, LAST_FINALIZED_REQUEST_ID)
                )
            ),
            queue,
            "unfinalizedStETH, lastRequestId and lastFinalizedRequestId are",
        ),
    )
    unfinalized, last, finalized = (None, None, None) if totals is None else (str(value) for value in totals)
    return {
        "details": {
            **found,
            "unfinalizedStETH": unfinalized,
            "lastRequestId": last,
            "lastFinalizedRequestId": finalized,
        }
    }
