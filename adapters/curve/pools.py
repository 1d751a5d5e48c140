"""Curve's `poolDetails`: one pool by its address, with its coins, supply, prices and fee, and its
gauge's stake and reward rates (figures.totals; the gauge found as positions find it).

- A pool: one that a factory the addresses data lists, or an older registry the AddressProvider
  names at the block, says it has coins of (`get_coins(pool)` in the factory's layout,
  contracts.coins_view: zeros, or none, for a pool it did not make); the first that does gives
  its kind. Anything else is a VALIDATION_ERROR; a source that fails its `get_coins` is named
  in the error where no other lists the pool.
- The gauge (where the pool has one): `totalSupply()` (the LP staked in it) and its extra
  rewards, `reward_tokens(i)` for i < `reward_count()` and each one's `reward_data(token)` rate
  (a second) and `period_finish`; `ratePerYearUsd` is the rate x 365 days x the token's feed
  while its period runs, else 0. CRV's own emission is the GaugeController's weight of the gauge
  times the Minter's rate, not read here. Off Ethereum a child gauge's `reward_data` has another
  layout, so its rates are null, named by a warning.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.context import FetchContext
from adapters.curve import figures
from adapters.curve.contracts import REWARD_COUNT, REWARD_DATA, REWARD_TOKENS, coins_view
from adapters.curve.section import CurveAddresses, CurveFactory
from adapters.curve.sources import gauge_of, lp_token, older_registries
from adapters.deployment import deployed
from adapters.history import YEAR
from adapters.position_warnings import FIGURE_UNAVAILABLE, Warnings, outcome
from adapters.prices import UsdPrice, warned_usd_price
from addresses import ChainAddresses
from chain import ChainReader, erc20, first
from chain.abi import ZERO_ADDRESS
from errors import InputValidationError, ProtocolError


async def details(ctx: FetchContext[CurveAddresses], pool: str) -> dict[str, Any]:
    curve, reader, warnings = ctx.section, ctx.reader(), ctx.warnings
    parts = [*(factory.address for factory in curve.factories), *filter(None, [curve.address_provider])]
    await deployed(reader, "curve", parts, str, "factories and AddressProvider")
    factory = await _source(ctx, pool)
    lp = await lp_token(reader, factory, pool)
    gauge = await gauge_of(reader, curve, factory, pool, lp)
    found, staked = await asyncio.gather(
        figures.totals(reader, ctx.chain, pool, lp, factory.kind, warnings),
        _gauge(reader, ctx.chain, curve, gauge, warnings) if gauge != ZERO_ADDRESS else _nothing(),
    )
    if staked is not None and found["tvlUsd"] is not None and int(found["totalSupply"]):
        staked["stakedUsd"] = found["tvlUsd"] * int(staked["totalSupply"]) / int(found["totalSupply"])
    return {
        "details": {
            "__typename": "CurvePool",
            "type": "curve-pool",
            "pool": pool,
            "chainId": ctx.chain_id,
            "kind": factory.kind,
            "factory": factory.address,
            **found,
            "liquidityGauge": staked,
        }
    }


async def _source(ctx: FetchContext[CurveAddresses], pool: str) -> CurveFactory:
    """The first factory, then older registry, that has coins of `pool`."""
    reader = ctx.reader()
    sources = [*ctx.section.factories, *await older_registries(reader, ctx.section)]
    answers = await asyncio.gather(
        *(
            outcome(first(reader.call(source.address, coins_view(source), pool, label=f"Curve {source.name}")))
            for source in sources
        )
    )
    for source, coins in zip(sources, answers):
        if not isinstance(coins, ProtocolError) and any(coin != ZERO_ADDRESS for coin in coins):
            return source
    failed = [
        f"{source.name} {source.address}" for source, coins in zip(sources, answers) if isinstance(coins, ProtocolError)
    ]
    if failed:
        raise ProtocolError(f"Curve's {', '.join(failed)} did not answer get_coins for {pool}: it may be theirs.")
    raise InputValidationError(
        f"{pool} is no pool of Curve's factories or older registries on chain {ctx.chain_id} at block "
        f"{await reader.block_number()}. Expected a Curve pool's address (the pool, not its LP token or gauge)."
    )


async def _nothing() -> None:
    return None


async def _gauge(
    reader: ChainReader, chain: ChainAddresses, curve: CurveAddresses, gauge: str, warnings: Warnings
) -> dict[str, Any]:
    """The gauge's stake and its extra rewards' rates (none on a gauge without `reward_count`, v1-v3)."""
    label = f"Curve gauge {gauge}"
    (supply,), count, now = await asyncio.gather(
        reader.call(gauge, erc20.TOTAL_SUPPLY, label=label),
        outcome(first(reader.call(gauge, REWARD_COUNT, label=label))),
        reader.block_timestamp(),
    )
    tokens = (
        []
        if isinstance(count, ProtocolError)
        else await asyncio.gather(*(first(reader.call(gauge, REWARD_TOKENS, i, label=label)) for i in range(count)))
    )
    child = bool(curve.child_gauge_factories)
    if child and tokens:
        warnings.add(FIGURE_UNAVAILABLE, gauge, "rewards' rates are null: a child gauge's reward_data is not read")
    infos, data, prices = await asyncio.gather(
        asyncio.gather(*(erc20.token_info(reader, token) for token in tokens)),
        asyncio.gather(
            *(_no_data() if child else reader.call(gauge, REWARD_DATA, token, label=label) for token in tokens)
        ),
        asyncio.gather(*(warned_usd_price(reader, chain, token, warnings) for token in tokens)),
    )
    rewards = [
        streamed(info, None if reward is None else (reward.rate, reward.period_finish), price, now)
        for info, reward, price in zip(infos, data, prices)
    ]
    return {"address": gauge, "totalSupply": str(supply), "stakedUsd": None, "rewards": rewards}


def streamed(token: dict[str, Any], stream: tuple[int, int] | None, price: UsdPrice | None, now: int) -> dict[str, Any]:
    """A `StreamedReward`: `stream` (rate a second, period end; None where not read) and its USD a
    year at `price` while the period runs, else 0."""
    if stream is None:
        return {"token": token, "rate": None, "periodFinish": None, "ratePerYearUsd": None}
    rate, finish = stream
    per_year = rate * YEAR if finish > now else 0
    usd = price.value(per_year, token["decimals"]) if price else None
    return {"token": token, "rate": str(rate), "periodFinish": str(finish), "ratePerYearUsd": usd}


async def _no_data() -> None:
    return None
