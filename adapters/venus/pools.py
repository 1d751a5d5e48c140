"""Venus's `poolDetails`: a pool by its Comptroller (the core pool's Unitroller or an isolated
pool's: every market it lists, in its order) or one market by its vToken, read through the views
the wallet query uses (markets.py, listing.py, rewards.py).

Per market: `totalSupplied` = the vToken's totalSupply x `exchangeRateCurrent` / 1e18 and
`totalBorrowed` = `totalBorrowsCurrent`, both accrued to the block by the market's own accrual (an
eth_call runs it with no effect); `utilization` = borrows / (cash + borrows - reserves) from the
stored `getCash`, `totalBorrows` and `totalReserves`, as the rate model weighs them for the rates
it answers now (an isolated pool's model adds its `badDebt` to both sides); APYs, price and USD as
on positions; the collateral factor and liquidation threshold from the Comptroller's
`markets(vToken)` (Compound v2's has no threshold: its collateral factor is both); whether
borrowing is allowed (the core pool's `isBorrowAllowed`; in an isolated pool, its borrow action
not paused, `actionPaused(vToken, BORROW)`; Compound v2's `borrowGuardianPaused(cToken)` false);
caps in the underlying's raw units (Compound v2 has borrow caps only); each payer's reward speeds
a period (block or second, as the market counts; Compound v2's COMP a block).
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.context import FetchContext
from adapters.formats import raw
from adapters.position_warnings import Warnings
from adapters.venus import rewards
from adapters.venus.contracts import (
    ACTION_PAUSED,
    ALL_MARKETS,
    BORROW_ACTION,
    BORROW_CAP,
    BORROW_GUARDIAN_PAUSED,
    CASH,
    COMP_ADDRESS,
    COMPOUND_MARKETS,
    EXCHANGE_RATE_CURRENT,
    MANTISSA,
    MARKETS,
    MAX_MARKETS,
    ORACLE,
    POOL_MARKETS,
    RESERVE_FACTOR,
    REWARD_DISTRIBUTORS,
    REWARD_TOKEN,
    SUPPLY_CAP,
    TOTAL_BORROWS,
    TOTAL_BORROWS_CURRENT,
    TOTAL_RESERVES,
    XVS_ADDRESS,
)
from adapters.venus.listing import ListedPool, pools
from adapters.venus.markets import market
from adapters.venus.section import VenusAddresses
from chain import ChainReader, erc20, first, known
from chain.abi import Function
from errors import InputValidationError, ProtocolError


async def details(ctx: FetchContext[VenusAddresses], address: str) -> dict[str, Any]:
    return await pool_details(ctx, await pools(ctx.reader(), ctx.section), address)


async def pool_details(ctx: FetchContext[Any], listed: list[ListedPool], address: str) -> dict[str, Any]:
    """One of `listed` by its Comptroller, or one market of one by its vToken (Compound v2's too:
    adapters/compound_v2, whose pool is `CompoundV2Pool`)."""
    reader = ctx.reader()
    lists = await asyncio.gather(*(_markets(reader, pool) for pool in listed))
    chosen = next(((p, m) for p, m in zip(listed, lists) if p.comptroller == address), None)
    chosen = chosen or next(((p, [address]) for p, m in zip(listed, lists) if address in m), None)
    if chosen is None:
        kind = "Compound v2's Comptroller" if listed and listed[0].compound else "a Venus pool"
        raise InputValidationError(
            f"{address} is not {kind} on chain {ctx.chain_id} nor one of its markets: expected a "
            f"Comptroller ({', '.join(p.comptroller for p in listed)}) or a market its getAllMarkets() lists."
        )
    pool, vtokens = chosen
    oracle, payers = await asyncio.gather(
        first(reader.call(pool.comptroller, ORACLE, label=pool.label)), _payers(reader, pool)
    )
    rows = await asyncio.gather(*(_row(reader, pool, str(oracle), payers, v, ctx.warnings) for v in vtokens))
    return {
        "details": {
            "__typename": f"{pool.typename}Pool",
            "type": "compound-v2-pool" if pool.compound else "venus-pool",
            "name": pool.name,
            "comptroller": pool.comptroller,
            "chainId": ctx.chain_id,
            "oracle": str(oracle).lower(),
            "markets": list(rows),
        }
    }


async def _markets(reader: ChainReader, pool: ListedPool) -> list[str]:
    (markets,) = await reader.call(pool.comptroller, ALL_MARKETS, label=pool.label)
    if len(markets) > MAX_MARKETS:
        raise ProtocolError(f"the {pool.label} lists {len(markets)} markets, more than {MAX_MARKETS}")
    return [str(vtoken).lower() for vtoken in markets]


async def _payers(reader: ChainReader, pool: ListedPool) -> list[tuple[str, str, rewards.Views]]:
    """Who pays the pool's rewards: (payer, token, its views); the speeds are the views' only reads
    here, which every clock names alike."""
    if pool.compound:
        comp = await first(reader.call(pool.comptroller, COMP_ADDRESS, label=pool.label))
        return [(pool.comptroller, str(comp).lower(), rewards.COMP)]
    if pool.core:
        xvs = await first(reader.call(pool.comptroller, XVS_ADDRESS, label=pool.label))
        return [(pool.comptroller, str(xvs).lower(), rewards.CORE)]
    (distributors,) = await reader.call(pool.comptroller, REWARD_DISTRIBUTORS, label=pool.label)
    tokens = await asyncio.gather(
        *(first(reader.call(d, REWARD_TOKEN, label=f"{pool.label} RewardsDistributor")) for d in distributors)
    )
    return [(str(d).lower(), str(t).lower(), rewards.BY_BLOCK) for d, t in zip(distributors, tokens)]


async def _row(
    reader: ChainReader,
    pool: ListedPool,
    oracle: str,
    payers: list[tuple[str, str, rewards.Views]],
    vtoken: str,
    warnings: Warnings,
) -> dict[str, Any]:
    """One market, every figure null with a warning where its read fails."""
    comptroller, label = pool.comptroller, pool.label

    def read(target: str, function: Function, *args: Any, what: str) -> Any:
        return warnings.optional(first(reader.call(target, function, *args, label=label)), vtoken, what)

    def speeds(payer: str, views: rewards.Views) -> Any:
        return asyncio.gather(
            read(payer, views.supply_speed, vtoken, what="rewardSpeeds are"),
            read(payer, views.borrow_speed, vtoken, what="rewardSpeeds are"),
        )

    terms_view = COMPOUND_MARKETS if pool.compound else MARKETS if pool.core else POOL_MARKETS
    found, terms, paused, supply, rate, borrowed, utilized, factor, caps, paid = await asyncio.gather(
        market(reader, pool, oracle, vtoken, warnings),
        warnings.optional(reader.call(comptroller, terms_view, vtoken, label=label), vtoken, "the market's terms are"),
        _paused(reader, pool, vtoken, warnings),
        read(vtoken, erc20.TOTAL_SUPPLY, what="totalSupplied is"),
        read(vtoken, EXCHANGE_RATE_CURRENT, what="totalSupplied is"),
        read(vtoken, TOTAL_BORROWS_CURRENT, what="totalBorrowed is"),
        asyncio.gather(*(read(vtoken, f, what="utilization is") for f in (CASH, TOTAL_BORROWS, TOTAL_RESERVES))),
        read(vtoken, RESERVE_FACTOR, what="reserveFactor is"),
        asyncio.gather(
            known(None) if pool.compound else read(comptroller, SUPPLY_CAP, vtoken, what="supplyCap is"),
            read(comptroller, BORROW_CAP, vtoken, what="borrowCap is"),
        ),
        asyncio.gather(*(speeds(payer, views) for payer, _, views in payers)),
    )
    supplied = None if supply is None or rate is None else supply * rate // MANTISSA
    (cash, borrows, reserves), (supply_cap, borrow_cap) = utilized, caps
    stored = None if None in utilized else cash + borrows - reserves
    cf = terms.collateralFactorMantissa / MANTISSA if terms else None
    threshold = terms.liquidationThresholdMantissa / MANTISSA if terms and not pool.compound else cf
    row = {
        pool.token_field: vtoken,
        "asset": found.token,
        "totalSupplied": raw(supplied),
        "totalSuppliedUsd": found.value(supplied),
        "totalBorrowed": raw(borrowed),
        "totalBorrowedUsd": found.value(borrowed),
        "utilization": None if stored is None else (borrows / stored if stored else 0.0),
        "supplyApy": found.supply_apy,
        "borrowApy": found.borrow_apy,
        "periodsPerYear": found.periods_per_year,
        "collateralFactor": cf,
        "liquidationThreshold": threshold,
        "isListed": terms.isListed if terms else None,
        "isBorrowAllowed": (terms.isBorrowAllowed if terms else None) if pool.core else _not(paused),
        "reserveFactor": None if factor is None else factor / MANTISSA,
        "borrowCap": raw(borrow_cap),
        "priceUsd": None if found.token is None else found.value(10 ** found.token["decimals"]),
    }
    if pool.compound:
        ((comp_supply, comp_borrow),) = paid
        return {**row, "compSupplyPerBlock": raw(comp_supply), "compBorrowPerBlock": raw(comp_borrow)}
    paying = [
        {"payer": payer, "rewardToken": token, "supplyPerPeriod": raw(s), "borrowPerPeriod": raw(b)}
        for (payer, token, _), (s, b) in zip(payers, paid)
    ]
    return {**row, "supplyCap": raw(supply_cap), "rewardSpeeds": paying}


async def _paused(reader: ChainReader, pool: ListedPool, vtoken: str, warnings: Warnings) -> bool | None:
    """Whether new borrows are paused where the Comptroller says it apart from its terms (the core
    pool's are in `markets`): an isolated pool's borrow action, Compound v2's borrow guardian."""
    if pool.core:
        return None
    view = (BORROW_GUARDIAN_PAUSED, vtoken) if pool.compound else (ACTION_PAUSED, vtoken, BORROW_ACTION)
    read = first(reader.call(pool.comptroller, *view, label=pool.label))
    return await warnings.optional(read, vtoken, "isBorrowAllowed is")


def _not(paused: bool | None) -> bool | None:
    return None if paused is None else not paused
