"""How figures are written in answers (docs/api.md, "Formats"): raw token amounts as exact
base-10 strings, ratios as floats; None stays null."""

from __future__ import annotations

from fractions import Fraction


def raw(amount: int | None) -> str | None:
    return None if amount is None else str(amount)


def ratio(value: Fraction | None) -> float | None:
    return None if value is None else float(value)
