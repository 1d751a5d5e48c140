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

Two refinements, both Aave's (GenericLogic.calculateUserAccountData). A price may move more than
one term (`source`): the debt in the same asset, and, up to v3.1, every asset of an e-mode
category with a price source, collateral and debt alike. A move of that source moves them all:
with A, B and O the whole units of collateral, threshold-weighted collateral and debt it prices,
the check at its price p is weighted_rest + B x p < debt_rest + O x p (the rest as it is), so,
unfloored, no fall liquidates when O >= B (the debt falls as fast as the collateral, or faster)
or when debt_rest <= weighted_rest. And the Pool floors the average threshold
Σ value_i x threshold_i / Σ value_i to a basis point before it multiplies (`step`). The floored
check holds wherever the unfloored one does and never where weighted - debt >= step x value;
between the two, on each stretch of price where the floored average is one k x step, it is
(value_rest + A x p) x k x step < debt_rest + O x p, linear in p, so it is solved exactly on each
stretch the average crosses there, with the stretches' ends. The answer is the highest price
below the current one at which the check starts to hold (the first met by a falling price), or,
for a position liquidatable already, the lowest above at which it stops.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from adapters.position_warnings import NO_LIQUIDATION_PRICE, PRICE_UNAVAILABLE, Warnings
from adapters.prices import UsdPrice

Line = tuple[Fraction, Fraction]
"""slope x p + rest: a figure of the check as a function of one source's price p."""
Span = tuple[Fraction, Fraction | None]
"""The prices from one end to the other (None: no upper end)."""


@dataclass(frozen=True)
class Collateral:
    """One collateral asset as the protocol's check sees it: whole units, the price of one whole
    unit in the check's unit, and the fraction of its value that counts (LLTV, liquidation
    threshold, liquidate collateral factor)."""

    token: dict[str, Any] | None
    amount: Fraction
    price: Fraction
    threshold: Fraction
    source: str | None = None
    """What sets its price where that prices other terms too (Aave: the oracle's asset key, the
    asset's own or its e-mode category's): the collaterals of one source have its price and move
    with it, and so does the debt it prices (`borrow_risk`'s `owed`). None: it moves alone."""


@dataclass(frozen=True)
class Unit:
    """The check's unit in USD and in the loan asset: the USD price of one unit and the loan
    asset's price in units (None where unknown or where there is more than one loan asset)."""

    usd: Fraction | None
    per_loan_asset: Fraction | None


def unit_usd(price: UsdPrice | None, warnings: Warnings, target: str) -> Fraction | None:
    """USD per whole unit of a check's unit for its liquidation prices in USD: None where it has
    no price (its warning is given where it was read) or its price rests on a market, which a
    trade within the block could move (then with a warning saying so): a liquidation figure
    keeps to feeds and protocol rates."""
    if price is None:
        return None
    checked = price.for_checks()
    if checked is None and price.source is not None:
        warnings.add(
            PRICE_UNAVAILABLE,
            target,
            f"liquidation prices in USD are null: the USD price of {price.source.asset} is a market's "
            f"({price.source.kind.value} of {price.source.read}), which no liquidation figure uses.",
        )
    return checked


def borrow_risk(
    debt: Fraction,
    collaterals: list[Collateral],
    unit: Unit,
    warnings: Warnings,
    target: str,
    step: Fraction | None = None,
    owed: Mapping[str, Fraction] | None = None,
) -> dict[str, Any]:
    """The `BorrowRisk` of a position that owes `debt` (in the check's unit) against
    `collaterals`, all but its `oracle`, which the protocol names; with `step`, the average
    threshold is floored to a multiple of it (Aave); `owed`, the whole units of `debt` each
    collateral source prices (at its price), which move with it. A collateral whose source's fall
    cannot make the position liquidatable gets null prices and a NO_LIQUIDATION_PRICE warning
    naming it."""
    weighted = sum((c.amount * c.price * c.threshold for c in collaterals), Fraction(0))
    value = sum((c.amount * c.price for c in collaterals), Fraction(0))
    average = _average(weighted, value, step)
    prices = []
    for c in collaterals:
        moved = [d for d in collaterals if d is c or (c.source is not None and d.source == c.source)]
        in_debt = (owed or {}).get(c.source, Fraction(0)) if c.source is not None else Fraction(0)
        at = _liquidation_price(moved, in_debt, debt, value, weighted, step)
        if at is None:
            symbol = c.token["symbol"] if c.token else "a collateral"
            warnings.add(
                NO_LIQUIDATION_PRICE,
                target,
                f"no fall of {symbol}'s price alone makes this position liquidatable (the rest of its "
                "collateral covers the debt, it counts for nothing, or the debt its price source prices "
                "falls as fast): its liquidation prices are null.",
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
    moved: list[Collateral],
    owed: Fraction,
    debt: Fraction,
    value: Fraction,
    weighted: Fraction,
    step: Fraction | None,
) -> Fraction | None:
    """The price of the source of `moved` (the collaterals it prices; `owed`, the whole units of
    debt it prices) at which the check starts to hold, everything else as it is (see the module);
    for a position liquidatable already, the price it must rise back to; None when there is none."""
    price = moved[0].price
    amount = sum((c.amount for c in moved), Fraction(0))
    per = sum((c.amount * c.threshold for c in moved), Fraction(0))
    value_rest, weighted_rest, debt_rest = value - amount * price, weighted - per * price, debt - owed * price

    def short(p: Fraction) -> bool:
        """The check holds at `p`: the position is liquidatable."""
        worth = value_rest + amount * p
        return worth * _average(weighted_rest + per * p, worth, step) < debt_rest + owed * p

    def level(p: Fraction | None, step: Fraction) -> int:
        """The stretch of the unfloored average at `p` (None: as p grows without end; where
        nothing is worth anything, the average's limit there)."""
        worth, weight = (amount, per) if p is None else (value_rest + amount * p, weighted_rest + per * p)
        if worth == 0:
            worth, weight = (amount, per) if amount else (value_rest, weighted_rest)
        return int(weight / worth // step) if worth else 0

    sure = (per - owed, weighted_rest - debt_rest)  # weighted - debt: below 0, liquidatable
    points = {price, *_root(sure)}
    if step is not None:
        # weighted - debt - step x value: not below 0, not liquidatable
        maybe = (per - owed - step * amount, weighted_rest - debt_rest - step * value_rest)
        points.update(_root(maybe))
        undecided = _meet(_where(sure, below=False), _where(maybe, below=True))
        if undecided is not None:
            ends = [level(p, step) for p in undecided]
            for k in range(min(ends), max(ends) + 1):
                floored = k * step
                points.update(_root((per - floored * amount, weighted_rest - floored * value_rest)))  # k begins
                points.update(_root((floored * amount - owed, floored * value_rest - debt_rest)))  # the check on k
    if short(price):
        above = sorted(p for p in points if p > price)
        cuts = [price, *above, 2 * max(above, default=price) + 1]
        return next((low for low, high in itertools.pairwise(cuts) if not short((low + high) / 2)), None)
    cuts = [Fraction(0), *sorted(p for p in points if 0 < p < price), price]
    return next((high for low, high in reversed(list(itertools.pairwise(cuts))) if short((low + high) / 2)), None)


def _root(line: Line) -> list[Fraction]:
    """Where the line crosses 0 at a positive price (none, or one)."""
    slope, rest = line
    return [-rest / slope] if slope != 0 and -rest / slope > 0 else []


def _where(line: Line, below: bool) -> Span | None:
    """The prices p > 0 where the line is below 0 (`below`) or not; None where there are none."""
    slope, rest = line
    if slope == 0:
        return (Fraction(0), None) if (rest < 0) == below else None
    root = -rest / slope
    if (slope > 0) == below:
        return (Fraction(0), root) if root > 0 else None
    return max(root, Fraction(0)), None


def _meet(a: Span | None, b: Span | None) -> Span | None:
    """The prices in both; None where there are none."""
    if a is None or b is None:
        return None
    (a_low, a_high), (b_low, b_high) = a, b
    low = max(a_low, b_low)
    high = min((h for h in (a_high, b_high) if h is not None), default=None)
    return None if high is not None and high <= low else (low, high)


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
