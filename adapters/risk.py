"""Liquidation risk of a borrow (`BorrowRisk`), the same algebra for every lending protocol.

Each protocol's liquidation check has one shape: the position may be liquidated once
Σ collateral_i x price_i x threshold_i < debt, every amount and price in one unit the protocol
compares in (Morpho and Fluid: the loan asset, through the market's oracle; Aave and Compound:
USD, through the protocol's own price sources). So, with everything else as it is, collateral j
makes the position liquidatable when its price falls to

    price_j* = (debt - Σ_{i != j} collateral_i x price_i x threshold_i) / (collateral_j x threshold_j)

and not at all when that numerator is not positive (the other collateral covers the debt alone).
Health factor = Σ collateral_i x price_i x threshold_i / debt; loan to value = debt / Σ collateral_i
x price_i; the liquidation loan to value is the threshold the check applies to this position,
Σ collateral_i x price_i x threshold_i / Σ collateral_i x price_i (a single collateral's own).
Every figure is exact (Fraction) until it is rounded once to a float.

Two refinements, both Aave's (GenericLogic.calculateUserAccountData): an asset both supplied and
borrowed moves both sides (`owed`: the debt falls with its price, so the price solves
Σ_{i != j} ... + collateral_j x price x threshold_j = debt_others + owed_j x price, and no fall
liquidates when owed_j >= collateral_j x threshold_j); and the Pool floors the average threshold
Σ value_i x threshold_i / Σ value_i to a basis point before it multiplies (`step`). The floor makes
the check piecewise: on each stretch of price where the floored average is one k x step, the
check is Σ value_i x k x step < debt, linear in the price, so the price solves it exactly there.
The answer is the highest price below the current one at which the check starts to hold (the
first met by a falling price), found among those stretches' solutions and their ends. A price
moves the average by less than one step between the unfloored solution and the floored one, so
a few stretches around the unfloored solution hold it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from adapters.position_warnings import NO_LIQUIDATION_PRICE, Warnings


@dataclass(frozen=True)
class Collateral:
    """One collateral asset as the protocol's check sees it: whole units, the price of one whole
    unit in the check's unit, and the fraction of its value that counts (LLTV, liquidation
    threshold, liquidate collateral factor)."""

    token: dict[str, Any] | None
    amount: Fraction
    price: Fraction
    threshold: Fraction
    owed: Fraction = Fraction(0)
    """What the position also owes of the same asset (Aave), in whole units."""


@dataclass(frozen=True)
class Unit:
    """The check's unit in USD and in the loan asset: the USD price of one unit and the loan
    asset's price in units (None where unknown or where there is more than one loan asset)."""

    usd: Fraction | None
    per_loan_asset: Fraction | None


def borrow_risk(
    debt: Fraction,
    collaterals: list[Collateral],
    unit: Unit,
    warnings: Warnings,
    target: str,
    step: Fraction | None = None,
) -> dict[str, Any]:
    """The `BorrowRisk` of a position that owes `debt` (in the check's unit, the collaterals'
    `owed` included) against `collaterals`, all but its `oracle`, which the protocol names; with
    `step`, the average threshold is floored to a multiple of it (Aave). A collateral whose fall
    alone cannot make the position liquidatable gets null prices and a NO_LIQUIDATION_PRICE
    warning naming it."""
    weighted = sum((c.amount * c.price * c.threshold for c in collaterals), Fraction(0))
    value = sum((c.amount * c.price for c in collaterals), Fraction(0))
    average = _average(weighted, value, step)
    prices = []
    for c in collaterals:
        at = _liquidation_price(c, debt, value, weighted, step)
        if at is None:
            symbol = c.token["symbol"] if c.token else "a collateral"
            warnings.add(
                NO_LIQUIDATION_PRICE,
                target,
                f"no fall of {symbol}'s price alone makes this position liquidatable (the rest of its "
                "collateral covers the debt, it counts for nothing, or a debt in it falls as fast): its "
                "liquidation prices are null.",
            )
        prices.append(
            {
                "asset": c.token,
                "priceUsd": float(at * unit.usd) if at is not None and unit.usd is not None else None,
                "priceInLoanAsset": (
                    float(at / unit.per_loan_asset) if at is not None and unit.per_loan_asset else None
                ),
                "dropToLiquidation": float(1 - at / c.price) if at is not None and c.price > 0 else None,
            }
        )
    return {
        "healthFactor": float(value * average / debt) if debt > 0 else None,
        "loanToValue": float(debt / value) if value > 0 else None,
        "liquidationLoanToValue": float(average) if value > 0 else None,
        "liquidationPrices": prices,
    }


def _average(weighted: Fraction, value: Fraction, step: Fraction | None) -> Fraction:
    """The average threshold Σ value x threshold / Σ value, floored to `step` where given."""
    if value <= 0:
        return Fraction(0)
    return weighted / value if step is None else weighted / value // step * step


def _liquidation_price(
    c: Collateral, debt: Fraction, value: Fraction, weighted: Fraction, step: Fraction | None
) -> Fraction | None:
    """The price of `c` at which the check starts to hold, everything else as it is (see the
    module); None when no fall of it alone makes it hold."""
    value_rest = value - c.amount * c.price
    weighted_rest = weighted - c.amount * c.price * c.threshold
    debt_rest = debt - c.owed * c.price
    slope = c.amount * c.threshold - c.owed
    if slope <= 0 or debt_rest <= weighted_rest:
        return None
    exact = (debt_rest - weighted_rest) / slope
    if step is None:
        return exact

    def short(price: Fraction) -> bool:
        """The floored check holds at `price`: the position is liquidatable."""
        worth = value_rest + c.amount * price
        return (
            worth * _average(weighted_rest + c.amount * c.threshold * price, worth, step) < debt_rest + c.owed * price
        )

    level = int((weighted_rest + c.amount * c.threshold * exact) / (value_rest + c.amount * exact) // step)
    points = {exact}
    for k in range(level - 3, level + 4):
        if c.amount * k * step != c.owed:  # where the check on stretch k is met
            points.add((debt_rest - value_rest * k * step) / (c.amount * k * step - c.owed))
        if c.threshold != k * step:  # where stretch k begins
            points.add((k * step * value_rest - weighted_rest) / (c.amount * (c.threshold - k * step)))
    if short(c.price):  # liquidatable now: the price it must rise back to
        above = sorted(p for p in points if p > c.price)
        cuts = [c.price, *above, 2 * (above[-1] if above else c.price)]
        return next((low for low, high in itertools.pairwise(cuts) if not short((low + high) / 2)), exact)
    cuts = [Fraction(0), *sorted(p for p in points if 0 < p < c.price), c.price]
    return next((high for low, high in reversed(list(itertools.pairwise(cuts))) if short((low + high) / 2)), exact)


def unknown_risk(tokens: list[dict[str, Any] | None], liquidation_ltv: float | None = None) -> dict[str, Any]:
    """The `BorrowRisk` figures of a position whose prices or debt could not be read (the
    warnings of those reads say why): every figure null but the threshold, where known."""
    return {
        "healthFactor": None,
        "loanToValue": None,
        "liquidationLoanToValue": liquidation_ltv,
        "liquidationPrices": [
            {"asset": token, "priceUsd": None, "priceInLoanAsset": None, "dropToLiquidation": None} for token in tokens
        ],
    }


def oracle_info(address: str, updated_at: int | None, now: int) -> dict[str, Any]:
    """`RiskOracle`: the price source, the time of its last update and its age at the block."""
    return {
        "address": address,
        "updatedAt": updated_at,
        "ageSeconds": None if updated_at is None else max(0, now - updated_at),
    }
