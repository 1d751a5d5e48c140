"""The Python port of Morpho's AdaptiveCurveIrm (adapters/morpho/adaptive_curve_irm.py) against Morpho's own SDK
implementation, over many random states: every rate equal, to the wei."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.morpho import adaptive_curve_irm as irm
from tests.conftest import examples
from tests.node_oracles import morpho_sdk as ask

YEAR = irm.SECONDS_PER_YEAR
states = st.tuples(
    st.one_of(
        st.integers(0, irm.WAD),
        st.sampled_from([0, irm.TARGET_UTILIZATION, irm.WAD]),
        st.integers(irm.TARGET_UTILIZATION - 10**6, irm.TARGET_UTILIZATION + 10**6),
    ),
    st.one_of(
        st.just(0),
        st.integers(irm.MIN_RATE_AT_TARGET, irm.MAX_RATE_AT_TARGET),
        st.integers(1, 10 * irm.MAX_RATE_AT_TARGET),
    ),
    st.one_of(st.integers(0, 60), st.integers(0, 30 * 86400), st.integers(0, 5 * YEAR)),
)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(states, min_size=1, max_size=40))
def test_the_port_equals_morphos_sdk(batch):
    answers = ask(
        [{"kind": "irm", "utilization": str(u), "rateAtTarget": str(r), "elapsed": str(e)} for u, r, e in batch]
    )
    for (u, r, e), answer in zip(batch, answers):
        assert tuple(irm.borrow_rates(u, r, e)) == (
            int(answer["average"]),
            int(answer["end"]),
            int(answer["endRateAtTarget"]),
        ), (u, r, e)


def test_w_exp_at_its_bounds_and_signs():
    assert irm.w_exp(0) == irm.WAD
    assert irm.w_exp(irm.LN_WEI_INT - 1) == 0
    assert irm.w_exp(irm.WEXP_UPPER_BOUND) == irm.WEXP_UPPER_VALUE
    assert abs(irm.w_exp(irm.WAD) / 2718281828459045235 - 1) < 0.01, (
        "second-order Taylor (error up to r^3/6), as ExpLib"
    )
    assert abs(irm.w_exp(-irm.WAD) / 367879441171442321 - 1) < 0.01


def test_rates_drift_up_above_target_and_down_below():
    start = irm.INITIAL_RATE_AT_TARGET
    high = irm.borrow_rates(95 * 10**16, start, 30 * 86400)
    low = irm.borrow_rates(50 * 10**16, start, 30 * 86400)
    assert high.end_rate_at_target > start > low.end_rate_at_target
    assert high.end > high.average and low.end < low.average
