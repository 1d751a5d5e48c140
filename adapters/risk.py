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
"""

from __future__ import annotations

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
) -> dict[str, Any]:
    """The `BorrowRisk` of a position that owes `debt` (in the check's unit) against
    `collaterals`, all but its `oracle`, which the protocol names; a collateral whose fall alone
    cannot make it liquidatable gets null prices and a NO_LIQUIDATION_PRICE warning naming it."""
    weighted = sum((c.amount * c.price * c.threshold for c in collaterals), Fraction(0))
    value = sum((c.amount * c.price for c in collaterals), Fraction(0))
    prices = []
    for c in collaterals:
        others = weighted - c.amount * c.price * c.threshold
        at = (debt - others) / (c.amount * c.threshold) if debt > others and c.amount * c.threshold > 0 else None
        if at is None:
            symbol = c.token["symbol"] if c.token else "a collateral"
            warnings.add(
                NO_LIQUIDATION_PRICE,
                target,
                f"no fall of {symbol}'s price alone makes this position liquidatable (the rest of its "
                "collateral covers the debt, or it counts for nothing): its liquidation prices are null.",
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
        "healthFactor": float(weighted / debt) if debt > 0 else None,
        "loanToValue": float(debt / value) if value > 0 else None,
        "liquidationLoanToValue": float(weighted / value) if value > 0 else None,
        "liquidationPrices": prices,
    }


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
