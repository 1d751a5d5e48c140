"""Morpho's AdaptiveCurveIrm in integers, as the contract computes it (Morpho's SDK has the same
math as `AdaptiveCurveIrmLib.getBorrowRate`; tests/test_adaptive_curve_irm.py checks the two
agree over many random states).

The IRM keeps, per market, a `rateAtTarget` that drifts exponentially while utilization stays
off target: at `elapsed` seconds after the market's last update it is
`rateAtTarget x e^(speed x elapsed)`, bounded, where `speed = ADJUSTMENT_SPEED x err` and `err` is
the utilization's normalised distance from 90 %. The borrow rate is that rate at target put on
the curve: `(1 + coeff x err) x rateAtTarget`, with `coeff = 1 - 1/4` below target and `4 - 1`
above. `end` is the rate at the given moment (what Morpho's SDK and app show as the market's
borrow rate); `average` is the trapezoidal average since the last update, which is what the
contract's `borrowRateView` returns and what the next accrual charges.

Divisions truncate toward zero, as Solidity's signed `wMulToZero`/`wDivToZero` and JavaScript's
BigInt do (Python's `//` would floor negative values).
"""

from __future__ import annotations

from typing import NamedTuple

WAD = 10**18
SECONDS_PER_YEAR = 365 * 24 * 3600
CURVE_STEEPNESS = 4 * WAD
TARGET_UTILIZATION = 9 * WAD // 10
INITIAL_RATE_AT_TARGET = 4 * WAD // 100 // SECONDS_PER_YEAR
ADJUSTMENT_SPEED = 50 * WAD // SECONDS_PER_YEAR
MIN_RATE_AT_TARGET = WAD // 1000 // SECONDS_PER_YEAR
MAX_RATE_AT_TARGET = 2 * WAD // SECONDS_PER_YEAR
LN_2_INT = 693147180559945309
LN_WEI_INT = -41446531673892822312
WEXP_UPPER_BOUND = 93859467695000404319
WEXP_UPPER_VALUE = 57716089161558943949701069502944508345128422502756744429568


class BorrowRates(NamedTuple):
    average: int
    """Per second, WAD: the rate the next accrual charges (the contract's borrowRateView)."""
    end: int
    """Per second, WAD: the instantaneous rate at the given moment."""
    end_rate_at_target: int


def _div(numerator: int, denominator: int) -> int:
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator >= 0) == (denominator > 0) else -quotient


def w_mul(x: int, y: int) -> int:
    return _div(x * y, WAD)


def w_div(x: int, y: int) -> int:
    return _div(x * WAD, y)


def w_exp(x: int) -> int:
    """e^x in WAD: x = q ln 2 + r, e^r to the second Taylor term, times 2^q (ExpLib.wExp)."""
    if x < LN_WEI_INT:
        return 0
    if x >= WEXP_UPPER_BOUND:
        return WEXP_UPPER_VALUE
    half_ln_2 = LN_2_INT // 2
    q = _div(x + (-half_ln_2 if x < 0 else half_ln_2), LN_2_INT)
    r = x - q * LN_2_INT
    exp_r = WAD + r + _div(_div(r * r, WAD), 2)
    return exp_r << q if q >= 0 else exp_r >> -q


def utilization(total_borrow_assets: int, total_supply_assets: int) -> int:
    """Borrowed over supplied, WAD, rounded down; 0 with nothing supplied, as the contract has it
    (the SDK says 2^256 - 1 when something is borrowed from nothing, a state Morpho Blue never has)."""
    return total_borrow_assets * WAD // total_supply_assets if total_supply_assets else 0


def borrow_rates(start_utilization: int, start_rate_at_target: int, elapsed: int) -> BorrowRates:
    """The market's borrow rates `elapsed` seconds after its last update, for the utilization and
    rate at target stored then."""
    norm = WAD - TARGET_UTILIZATION if start_utilization > TARGET_UTILIZATION else TARGET_UTILIZATION
    err = w_div(start_utilization - TARGET_UTILIZATION, norm)
    if start_rate_at_target == 0:
        average_at_target = end_at_target = INITIAL_RATE_AT_TARGET
    else:
        linear_adaptation = w_mul(ADJUSTMENT_SPEED, err) * elapsed
        if linear_adaptation == 0:
            average_at_target = end_at_target = start_rate_at_target
        else:

            def adapted(adaptation: int) -> int:
                return min(max(w_mul(start_rate_at_target, w_exp(adaptation)), MIN_RATE_AT_TARGET), MAX_RATE_AT_TARGET)

            end_at_target = adapted(linear_adaptation)
            middle = adapted(_div(linear_adaptation, 2))
            average_at_target = _div(start_rate_at_target + end_at_target + 2 * middle, 4)
    coeff = WAD - w_div(WAD, CURVE_STEEPNESS) if err < 0 else CURVE_STEEPNESS - WAD

    def curve(rate_at_target: int) -> int:
        return w_mul(w_mul(coeff, err) + WAD, rate_at_target)

    return BorrowRates(curve(average_at_target), curve(end_at_target), end_at_target)
