"""Venus's `poolDetails`: the core pool by its Comptroller (every market it lists, in its order) or
one market by its vToken, read through the views the wallet query uses (markets.py).

Per market: `totalSupplied` = the vToken's totalSupply x `exchangeRateCurrent` / 1e18 and
`totalBorrowed` = `totalBorrowsCurrent`, both accrued to the block by the market's own accrual (an
eth_call runs it with no effect); `utilization` = borrows / (cash + borrows - reserves) from the
stored `getCash`, `totalBorrows` and `totalReserves`, as the rate model weighs them for the rates
it answers now; APYs, price and USD as on positions; the collateral factor, liquidation threshold
and whether borrowing is allowed from the Comptroller's `markets(vToken)`; caps in the underlying's
raw units; XVS speeds per block.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.context import FetchContext
from adapters.deployment import require
from adapters.formats import raw
from adapters.position_warnings import Warnings
from adapters.venus.contracts import (
    ALL_MARKETS,
    BORROW_CAP,
    BORROW_SPEED,
    CASH,
    EXCHANGE_RATE_CURRENT,
    MANTISSA,
    MARKETS,
    MAX_MARKETS,
    ORACLE,
    RESERVE_FACTOR,
    SUPPLY_CAP,
    SUPPLY_SPEED,
    TOTAL_BORROWS,
    TOTAL_BORROWS_CURRENT,
    TOTAL_RESERVES,
)
from adapters.venus.markets import LABEL, market
from adapters.venus.section import VenusAddresses
from chain import ChainReader, erc20, first
from chain.abi import Function
from errors import InputValidationError, ProtocolError


async def details(ctx: FetchContext[VenusAddresses], pool: str) -> dict[str, Any]:
    reader, comptroller = ctx.reader(), ctx.section.comptroller.lower()
    await require(reader, f"the {LABEL}", comptroller, "Comptroller")
    (markets,), oracle = await asyncio.gather(
        reader.call(comptroller, ALL_MARKETS, label=LABEL), first(reader.call(comptroller, ORACLE, label=LABEL))
    )
    if len(markets) > MAX_MARKETS:
        raise ProtocolError(f"the {LABEL} lists {len(markets)} markets, more than {MAX_MARKETS}")
    listed = [str(vtoken).lower() for vtoken in markets]
    if pool != comptroller and pool not in listed:
        raise InputValidationError(
            f"{pool} is not the {LABEL} on chain {ctx.chain_id} nor one of its markets: expected its Comptroller "
            f"{comptroller} or a vToken its getAllMarkets() lists."
        )
    chosen = listed if pool == comptroller else [pool]
    rows = await asyncio.gather(*(_row(reader, comptroller, str(oracle), v, ctx.warnings) for v in chosen))
    return {
        "details": {
            "__typename": "VenusPool",
            "type": "venus-pool",
            "comptroller": comptroller,
            "chainId": ctx.chain_id,
            "oracle": str(oracle).lower(),
            "markets": list(rows),
        }
    }


async def _row(reader: ChainReader, comptroller: str, oracle: str, vtoken: str, warnings: Warnings) -> dict[str, Any]:
    """One market, every figure null with a warning where its read fails."""

    def read(target: str, function: Function, *args: Any, what: str) -> Any:
        return warnings.optional(first(reader.call(target, function, *args, label=LABEL)), vtoken, what)

    found, terms, supply, rate, borrowed, cash, borrows, reserves, factor, caps, speeds = await asyncio.gather(
        market(reader, oracle, vtoken, warnings, LABEL),
        warnings.optional(reader.call(comptroller, MARKETS, vtoken, label=LABEL), vtoken, "the market's terms are"),
        read(vtoken, erc20.TOTAL_SUPPLY, what="totalSupplied is"),
        read(vtoken, EXCHANGE_RATE_CURRENT, what="totalSupplied is"),
        read(vtoken, TOTAL_BORROWS_CURRENT, what="totalBorrowed is"),
        read(vtoken, CASH, what="utilization is"),
        read(vtoken, TOTAL_BORROWS, what="utilization is"),
        read(vtoken, TOTAL_RESERVES, what="utilization is"),
        read(vtoken, RESERVE_FACTOR, what="reserveFactor is"),
        asyncio.gather(
            read(comptroller, SUPPLY_CAP, vtoken, what="supplyCap is"),
            read(comptroller, BORROW_CAP, vtoken, what="borrowCap is"),
        ),
        asyncio.gather(
            read(comptroller, SUPPLY_SPEED, vtoken, what="xvsSupplyPerBlock is"),
            read(comptroller, BORROW_SPEED, vtoken, what="xvsBorrowPerBlock is"),
        ),
    )
    (supply_cap, borrow_cap), (supply_speed, borrow_speed) = caps, speeds
    supplied = None if supply is None or rate is None else supply * rate // MANTISSA
    stored = None if None in (cash, borrows, reserves) else cash + borrows - reserves
    return {
        "vToken": vtoken,
        "asset": found.token,
        "totalSupplied": raw(supplied),
        "totalSuppliedUsd": found.value(supplied),
        "totalBorrowed": raw(borrowed),
        "totalBorrowedUsd": found.value(borrowed),
        "utilization": None if stored is None else (borrows / stored if stored else 0.0),
        "supplyApy": found.supply_apy,
        "borrowApy": found.borrow_apy,
        "collateralFactor": terms.collateralFactorMantissa / MANTISSA if terms else None,
        "liquidationThreshold": terms.liquidationThresholdMantissa / MANTISSA if terms else None,
        "isListed": terms.isListed if terms else None,
        "isBorrowAllowed": terms.isBorrowAllowed if terms else None,
        "reserveFactor": None if factor is None else factor / MANTISSA,
        "supplyCap": raw(supply_cap),
        "borrowCap": raw(borrow_cap),
        "xvsSupplyPerBlock": raw(supply_speed),
        "xvsBorrowPerBlock": raw(borrow_speed),
        "priceUsd": None if found.token is None else found.value(10 ** found.token["decimals"]),
    }
