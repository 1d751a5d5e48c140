"""Pendle's `poolDetails`: one market by its address, with the figures the wallet query derives for
its PT, YT and LP positions, by the same code (market.py, MarketState).

- A market if a configured market factory says it created it (`isValidMarket(address)` at the
  block); its SY, PT and YT from `readTokens()`, its maturity from `expiry()`.
- Prices in the asset (PT, YT, LP), the implied APY, pyIndex and the SY exchange rate: see
  positions.py. totalPt / totalSy from the market's `_storage()`, totalLp its total supply.
- liquidityUsd: what the market holds in the asset's unit, totalSy x pyIndex / 1e18 + totalPt x
  PT price (the LP price's numerator), through the asset's USD feed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.context import FetchContext
from adapters.factories import vouched_kind
from adapters.formats import ratio, raw
from adapters.history import iso_date
from adapters.pendle.contracts import EXPIRY, IS_VALID_MARKET, READ_TOKENS, YieldContract
from adapters.pendle.market import PendleReader
from adapters.pendle.section import PendleAddresses
from adapters.position_warnings import FIGURE_UNAVAILABLE
from errors import InputValidationError


async def details(ctx: FetchContext[PendleAddresses], pool: str) -> dict[str, Any]:
    chain_id, chain = ctx.chain_id, ctx.chain
    reader = ctx.reader()
    block = await reader.block_number()
    probes = [(f.address, IS_VALID_MARKET, "market") for f in ctx.section.market_factories if f.start_block <= block]
    if await vouched_kind(reader, probes, pool) is None:
        raise InputValidationError(
            f"{pool} is not a Pendle market on chain {chain_id} at block {block}: no configured "
            "market factory created it. Expected a Pendle market address."
        )
    label = f"market {pool}"
    (sy, pt, yt), (expiry,) = await asyncio.gather(
        reader.call(pool, READ_TOKENS, label=label), reader.call(pool, EXPIRY, label=label)
    )
    pair = YieldContract(sy.lower(), expiry, pt.lower(), yt.lower())
    return {"details": await _market(PendleReader(reader, chain, ctx.warnings), pool, pair)}


async def _market(pendle: PendleReader, market: str, pair: YieldContract) -> dict[str, Any]:
    warnings = pendle.warnings
    state, asset, sy, pt, yt = await asyncio.gather(
        warnings.optional(pendle.state(market, pair), market, "the prices, APY, totals and liquidity are"),
        warnings.optional(pendle.asset(pair.sy), pair.sy, "underlyingAsset and liquidityUsd are"),
        *(
            warnings.optional(pendle.token(token), token, f"{what} is")
            for token, what in ((pair.sy, "sy"), (pair.pt, "pt"), (pair.yt, "yt"))
        ),
    )
    pt_price = state.pt_price if state else None
    if state is not None and state.expired:
        warnings.add(FIGURE_UNAVAILABLE, market, f"impliedApy is null: the market matured on {iso_date(pair.expiry)}")
    return {
        "__typename": "PendleMarketPool",
        "type": "pendle-market-pool",
        "marketAddress": market,
        "chainId": pendle.reader.chain_id,
        "sy": sy,
        "pt": pt,
        "yt": yt,
        "underlyingAsset": asset.token if asset else None,
        "expiry": pair.expiry,
        "expiryDate": iso_date(pair.expiry),
        "isExpired": state.expired if state else None,
        "impliedApy": state.implied_apy if state else None,
        "ptPrice": ratio(pt_price),
        "ytPrice": ratio(None if pt_price is None else 1 - pt_price),
        "lpPrice": ratio(state.lp_price if state else None),
        "ptDiscount": ratio(None if pt_price is None else 1 - pt_price),
        "syExchangeRate": raw(state.sy_rate if state else None),
        "pyIndex": raw(state.py_index if state else None),
        "totalPt": raw(state.total_pt if state else None),
        "totalSy": raw(state.total_sy if state else None),
        "totalLp": raw(state.total_lp if state else None),
        "liquidityUsd": asset.usd(state.market_value) if state and asset else None,
    }
