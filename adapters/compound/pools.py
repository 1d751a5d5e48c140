"""Compound's `poolDetails`: one Comet market by its address (one the addresses data lists for
the chain), read with the wallet query's views and prices (positions.py).

- Totals: `totalSupply()` and `totalBorrow()` (base, accrued to the block by Comet's views),
  `getReserves()` (may be negative), `baseBorrowMin()`; `utilization` = `getUtilization()` / 1e18;
  rates at that utilization: APR = rate x 31,536,000 / 1e18, APY compounded per second.
- Collateral assets: `getAssetInfo(i)` (factors / 1e18, supply cap raw), `totalsCollateral(asset)`
  (the total supplied), Comet's `getPrice(feed)`.
- USD as the wallet query: Comet's price (8 decimals, in the market's price currency) per whole
  unit, through the chain's feed for that currency where it is not USD.
"""

from __future__ import annotations

import asyncio
from fractions import Fraction
from typing import Any

from adapters.compound.contracts import (
    BASE_BORROW_MIN,
    BASE_SCALE,
    BASE_TOKEN,
    BASE_TOKEN_PRICE_FEED,
    GET_ASSET_INFO,
    GET_BORROW_RATE,
    GET_RESERVES,
    GET_SUPPLY_RATE,
    GET_UTILIZATION,
    MAX_ASSETS,
    NUM_ASSETS,
    TOTAL_BORROW,
    TOTAL_SUPPLY,
    TOTALS_COLLATERAL,
    WAD,
)
from adapters.compound.market import apr, apy, comet_price, usd_per_unit
from adapters.compound.section import CometMarket, CompoundAddresses
from adapters.context import FetchContext
from adapters.deployment import require
from adapters.formats import raw
from adapters.position_warnings import Warnings, outcome
from adapters.prices import currency_usd
from addresses import ChainAddresses
from chain import ChainReader, erc20, first, no_read
from chain.abi import Function
from errors import InputValidationError, ProtocolError


async def details(ctx: FetchContext[CompoundAddresses], pool: str) -> dict[str, Any]:
    chain_id, chain = ctx.chain_id, ctx.chain
    market = next((m for m in ctx.section.markets if m.comet.lower() == pool), None)
    if market is None:
        known = ", ".join(f"{m.name} {m.comet.lower()}" for m in ctx.section.markets)
        raise InputValidationError(
            f"{pool} is not a Compound v3 market on chain {chain_id}: expected the Comet address of one of {known}."
        )
    reader = ctx.reader()
    await require(reader, f"the Compound market {market.name}", pool, "Comet")
    return {"details": await _market(reader, chain, market, ctx.warnings)}


async def _market(
    reader: ChainReader, chain: ChainAddresses, market: CometMarket, warnings: Warnings
) -> dict[str, Any]:
    comet, label, optional = market.comet.lower(), f"Comet {market.comet.lower()}", warnings.optional

    def view(function: Function, what: str, *args: Any) -> Any:
        return optional(first(reader.call(comet, function, *args, label=label)), comet, what)

    (
        (base,),
        (base_feed,),
        (base_scale,),
        (count,),
        utilization,
        supplied,
        borrowed,
        reserves,
        borrow_min,
        unit_usd,
    ) = await asyncio.gather(
        reader.call(comet, BASE_TOKEN, label=label),
        reader.call(comet, BASE_TOKEN_PRICE_FEED, label=label),
        reader.call(comet, BASE_SCALE, label=label),
        reader.call(comet, NUM_ASSETS, label=label),
        view(GET_UTILIZATION, "utilization and the rates are"),
        view(TOTAL_SUPPLY, "totalSupply is"),
        view(TOTAL_BORROW, "totalBorrow is"),
        view(GET_RESERVES, "reserves is"),
        view(BASE_BORROW_MIN, "baseBorrowMin is"),
        outcome(currency_usd(reader, chain, market.price_currency, market.name)),
    )
    if count > MAX_ASSETS:
        raise ProtocolError(f"{label} reports {count} assets, more than the {MAX_ASSETS} this service reads.")
    if base_scale == 0:
        raise ProtocolError(f"{label} reports a scale of 0.")
    no_rate = utilization is None
    token, supply_rate, borrow_rate, base_price, collaterals = await asyncio.gather(
        optional(erc20.token_info(reader, base), base, "baseAsset is"),
        no_read() if no_rate else view(GET_SUPPLY_RATE, "supplyApr and supplyApy are", utilization),
        no_read() if no_rate else view(GET_BORROW_RATE, "borrowApr and borrowApy are", utilization),
        outcome(comet_price(reader, comet, base_feed, label)),
        asyncio.gather(*(_collateral(reader, comet, i, unit_usd, warnings) for i in range(count))),
    )
    base_usd = warnings.value(usd_per_unit(base_price, base_scale, unit_usd), comet, "the USD values are")
    return {
        "__typename": "CompoundMarketPool",
        "type": "compound-market-pool",
        "cometAddress": comet,
        "chainId": reader.chain_id,
        "name": market.name,
        "baseAsset": token,
        "basePriceUsd": _usd(base_scale, base_usd),
        "totalSupply": raw(supplied),
        "totalSupplyUsd": _usd(supplied, base_usd),
        "totalBorrow": raw(borrowed),
        "totalBorrowUsd": _usd(borrowed, base_usd),
        "utilization": None if no_rate else utilization / WAD,
        "supplyApr": None if supply_rate is None else apr(supply_rate),
        "supplyApy": None if supply_rate is None else apy(supply_rate),
        "borrowApr": None if borrow_rate is None else apr(borrow_rate),
        "borrowApy": None if borrow_rate is None else apy(borrow_rate),
        "baseReserves": raw(reserves),
        "baseBorrowMin": raw(borrow_min),
        "collaterals": [c for c in collaterals if c is not None],
    }


async def _collateral(
    reader: ChainReader, comet: str, index: int, unit_usd: Any, warnings: Warnings
) -> dict[str, Any] | None:
    """One collateral asset; left out with a warning when Comet cannot describe it."""
    label = f"Comet {comet}"
    try:
        (info,) = await reader.call(comet, GET_ASSET_INFO, index, label=label)
    except ProtocolError as exc:
        warnings.left_out(f"collateral asset {index} of", comet, exc)
        return None
    asset, scale = info.asset, info.scale
    if scale == 0:
        warnings.left_out(f"collateral {asset} of", comet, ProtocolError(f"{label} reports a scale of 0."))
        return None
    token, total, price = await asyncio.gather(
        warnings.optional(erc20.token_info(reader, asset), asset, "asset is"),
        warnings.optional(first(reader.call(comet, TOTALS_COLLATERAL, asset, label=label)), asset, "totalSupply is"),
        outcome(comet_price(reader, comet, info.priceFeed, label)),
    )
    usd = warnings.value(usd_per_unit(price, scale, unit_usd), asset, "priceUsd and totalSupplyUsd are")
    return {
        "asset": token,
        "priceUsd": _usd(scale, usd),
        "totalSupply": raw(total),
        "totalSupplyUsd": _usd(total, usd),
        "supplyCap": str(info.supplyCap),
        "borrowCollateralFactor": info.borrowCollateralFactor / WAD,
        "liquidateCollateralFactor": info.liquidateCollateralFactor / WAD,
        "liquidationFactor": info.liquidationFactor / WAD,
    }


def _usd(amount: int | None, per_unit: Fraction | None) -> float | None:
    return None if amount is None or per_unit is None else float(amount * per_unit)
