"""Convex's `poolDetails`: one Booster pool by its reward pool's address (a deposit's id), with the
Curve pool it stakes in, what is deposited and the rates it pays.

- A pool: a BaseRewardPool whose `operator()` is the Booster and whose `pid()` names it back
  (`poolInfo(pid).crvRewards` is the address). Anything else is a VALIDATION_ERROR.
- `totalSupply`: the reward pool's `totalSupply()`, Curve LP deposited through Convex (one
  deposit token for each); `depositedUsd` its share of the Curve pool's TVL (figures.totals).
- CRV: the reward pool's `rewardRate()` a second until `periodFinish()`; CVX: what Cvx.sol mints
  for a year of it at CVX's supply now (contracts.cvx_minted), while it runs. Extra rewards: each
  `extraRewards(i)`'s `rewardToken()`, `rewardRate()` and `periodFinish()`. USD through each
  token's feed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.context import FetchContext
from adapters.convex.contracts import (
    EXTRA_REWARDS,
    EXTRA_REWARDS_LENGTH,
    MAX_REWARDS,
    OPERATOR,
    PERIOD_FINISH,
    PID,
    POOL_INFO,
    POOL_LENGTH,
    REWARD_RATE,
    REWARD_TOKEN,
    cvx_minted,
)
from adapters.convex.figures import cvx_parameters, pool_of
from adapters.convex.section import ConvexAddresses
from adapters.curve import figures
from adapters.curve.pools import streamed
from adapters.deployment import require
from adapters.history import YEAR
from adapters.position_warnings import outcome
from adapters.prices import warned_usd_price
from chain import ChainReader, erc20, first
from chain.abi import Function
from errors import InputValidationError


async def details(ctx: FetchContext[ConvexAddresses], pool: str) -> dict[str, Any]:
    convex, reader, warnings = ctx.section, ctx.reader(), ctx.warnings
    await require(reader, "convex", convex.booster, "Booster")
    label = f"Convex reward pool {pool}"
    operator, pid, count = await asyncio.gather(
        outcome(first(reader.call(pool, OPERATOR, label=label))),
        outcome(first(reader.call(pool, PID, label=label))),
        first(reader.call(convex.booster, POOL_LENGTH, label=f"Convex Booster {convex.booster}")),
    )
    info: Any = None
    if operator == convex.booster and isinstance(pid, int) and pid < count:
        info = await reader.call(convex.booster, POOL_INFO, pid, label=f"Convex Booster {convex.booster}")
    if info is None or info.crvRewards != pool:
        raise InputValidationError(
            f"{pool} is not the reward pool of a Convex Booster pool on chain {ctx.chain_id} at block "
            f"{await reader.block_number()}. Expected a pool's crvRewards (a deposit's id)."
        )
    (curve_pool, kind), (supply, rate, finish), cvx, now, extras = await asyncio.gather(
        pool_of(reader, info.lptoken),
        _reads(reader, pool, label, (erc20.TOTAL_SUPPLY, REWARD_RATE, PERIOD_FINISH)),
        cvx_parameters(reader, convex.cvx),
        reader.block_timestamp(),
        _extras(reader, pool),
    )
    paid = [convex.crv, convex.cvx, *(token for token, _, _ in extras)]
    curve, tokens, prices, deposit_token = await asyncio.gather(
        figures.totals(reader, ctx.chain, curve_pool, info.lptoken, kind, warnings),
        asyncio.gather(*(erc20.token_info(reader, token) for token in paid)),
        asyncio.gather(*(warned_usd_price(reader, ctx.chain, token, warnings) for token in paid)),
        erc20.token_info(reader, info.token),
    )
    yearly_cvx = cvx_minted(rate * YEAR, *cvx) if finish > now else 0
    (crv_token, cvx_token, *extra_tokens), (crv_price, cvx_price, *extra_prices) = tokens, prices
    cvx_usd = cvx_price.value(yearly_cvx, cvx_token["decimals"]) if cvx_price else None
    tvl, lp_supply = curve["tvlUsd"], int(curve["totalSupply"])
    rewards = [
        streamed(token, (extra_rate, extra_finish), price, now)
        for token, price, (_, extra_rate, extra_finish) in zip(extra_tokens, extra_prices, extras)
    ]
    return {
        "details": {
            "__typename": "ConvexPool",
            "type": "convex-pool",
            "rewardPool": pool,
            "chainId": ctx.chain_id,
            "pid": pid,
            "pool": curve_pool,
            "lpToken": curve["lpToken"],
            "depositToken": deposit_token,
            "curveGauge": info.gauge,
            "shutdown": info.shutdown,
            "totalSupply": str(supply),
            "depositedUsd": tvl * supply / lp_supply if tvl is not None and lp_supply else None,
            "crv": streamed(crv_token, (rate, finish), crv_price, now),
            "cvxPerYear": str(yearly_cvx),
            "cvxPerYearUsd": cvx_usd,
            "extraRewards": rewards,
        }
    }


async def _extras(reader: ChainReader, pool: str) -> list[tuple[Any, ...]]:
    """Each extra reward pool's token, rate and period end."""
    (count,) = await reader.call(pool, EXTRA_REWARDS_LENGTH, label=f"Convex reward pool {pool}")
    extras = await asyncio.gather(
        *(
            first(reader.call(pool, EXTRA_REWARDS, i, label=f"Convex reward pool {pool}"))
            for i in range(min(count, MAX_REWARDS))
        )
    )

    views = (REWARD_TOKEN, REWARD_RATE, PERIOD_FINISH)
    return list(
        await asyncio.gather(*(_reads(reader, extra, f"Convex extra reward {extra}", views) for extra in extras))
    )


async def _reads(reader: ChainReader, target: str, label: str, views: tuple[Function, ...]) -> tuple[Any, ...]:
    """The first value of each view of `target`, at once."""
    return tuple(await asyncio.gather(*(first(reader.call(target, view, label=label)) for view in views)))
