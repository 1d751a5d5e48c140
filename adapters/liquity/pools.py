"""Liquity v1's `poolDetails`: the system, asked by its TroveManager, Stability Pool or LQTYStaking
(one system answers for all three), with the figures its troves show (positions.py reads them the
same way).

- `priceUsd`: the PriceFeed's `fetchPrice()`; `totalCollateral` and `totalDebt`:
  `getEntireSystemColl()` and `getEntireSystemDebt()` (pending redistributions included);
  `totalCollateralRatio` = coll x price / debt, floored; `recoveryMode` when it is below CCR.
- `borrowingRate` and `redemptionRate`: `getBorrowingRateWithDecay()` and
  `getRedemptionRateWithDecay()`, the fees an operation pays now.
- `stabilityPoolDeposits`: `getTotalLUSDDeposits()`; `totalLqtyStaked`: `totalLQTYStaked()`;
  `troveCount`: `getTroveOwnersCount()`.
"""

from __future__ import annotations

import asyncio
from fractions import Fraction
from typing import Any

from adapters.context import FetchContext
from adapters.liquity.contracts import (
    BORROWING_RATE,
    CCR,
    FETCH_PRICE,
    LUSD_TOKEN,
    MCR,
    REDEMPTION_RATE,
    SYSTEM_COLL,
    SYSTEM_DEBT,
    TOTAL_DEPOSITS,
    TOTAL_STAKED,
    TROVE_OWNERS,
    WAD,
    updated_at,
)
from adapters.liquity.section import LiquityAddresses
from adapters.risk import oracle_info
from chain import erc20, first
from errors import InputValidationError


async def details(ctx: FetchContext[LiquityAddresses], pool: str) -> dict[str, Any]:
    liquity, reader, warnings = ctx.section, ctx.reader(), ctx.warnings
    tm, feed = liquity.trove_manager, liquity.price_feed
    if pool not in (tm, liquity.stability_pool, liquity.lqty_staking):
        raise InputValidationError(
            f"{pool} is not Liquity v1's on chain {ctx.chain_id}: ask for its TroveManager {tm}, its Stability "
            f"Pool {liquity.stability_pool} or LQTYStaking {liquity.lqty_staking}."
        )
    label = "Liquity TroveManager"
    views = (MCR, CCR, SYSTEM_COLL, SYSTEM_DEBT, BORROWING_RATE, REDEMPTION_RATE, TROVE_OWNERS, LUSD_TOKEN)
    figures, deposits, staked, price, updated, now = await asyncio.gather(
        asyncio.gather(*(first(reader.call(tm, view, label=label)) for view in views)),
        first(reader.call(liquity.stability_pool, TOTAL_DEPOSITS, label="Liquity StabilityPool")),
        first(reader.call(liquity.lqty_staking, TOTAL_STAKED, label="Liquity LQTYStaking")),
        warnings.optional(first(reader.call(feed, FETCH_PRICE, label="Liquity PriceFeed")), feed, "priceUsd is"),
        warnings.optional(updated_at(reader, feed), feed, "the oracle's updatedAt is"),
        reader.block_timestamp(),
    )
    mcr, ccr, coll, debt, borrowing, redemption, troves, lusd = figures
    ratio = None if price is None or not debt else coll * price // debt
    return {
        "details": {
            "__typename": "LiquityPool",
            "type": "liquity-system",
            "troveManager": tm,
            "chainId": ctx.chain_id,
            "debtAsset": await erc20.token_info(reader, lusd),
            "priceUsd": None if price is None else float(Fraction(price, WAD)),
            "totalCollateral": str(coll),
            "totalDebt": str(debt),
            "totalCollateralRatio": None if ratio is None else float(Fraction(ratio, WAD)),
            "recoveryMode": None if ratio is None else ratio < ccr,
            "minimumCollateralRatio": float(Fraction(mcr, WAD)),
            "criticalCollateralRatio": float(Fraction(ccr, WAD)),
            "borrowingRate": float(Fraction(borrowing, WAD)),
            "redemptionRate": float(Fraction(redemption, WAD)),
            "stabilityPoolDeposits": str(deposits),
            "totalLqtyStaked": str(staked),
            "troveCount": troves,
            "priceOracle": oracle_info(feed, updated, now),
        }
    }
