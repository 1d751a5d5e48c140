"""Rate limit as docs/decisions.md §6: per key, both halves of the guarantee, 429 body and headers."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

import auth
from limits import RateLimiter
from server import KEYS
from tests.conftest import examples, position_input

QUOTA, WINDOW = 100, 60


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def most_in_any_window(times: list[float], window: float) -> int:
    """Largest number of `times` inside one half-open interval [a, a + window)."""
    times = sorted(times)
    return max((sum(1 for t in times if start <= t < start + window) for start in times), default=0)


gaps = st.lists(st.floats(min_value=0, max_value=5, allow_nan=False), min_size=1, max_size=400)


@settings(max_examples=examples(60), deadline=None)
@given(gaps)
def test_no_key_is_ever_granted_more_than_the_quota_in_any_window(steps):
    clock = Clock()
    limiter = RateLimiter(QUOTA, WINDOW, clock)
    granted = []
    for step in steps:
        clock.now += step
        if limiter.hit("k").allowed:
            granted.append(clock.now)
    assert most_in_any_window(granted, WINDOW) <= QUOTA


@settings(max_examples=examples(60), deadline=None)
@given(gaps)
def test_a_key_that_stays_under_the_quota_is_never_refused(steps):
    times, now = [], 1000.0
    for step in steps:
        now += step
        if most_in_any_window([*times, now], WINDOW) <= QUOTA:
            times.append(now)
    clock = Clock()
    limiter = RateLimiter(QUOTA, WINDOW, clock)
    for t in times:
        clock.now = t
        assert limiter.hit("k").allowed, t


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.floats(min_value=0, max_value=5, allow_nan=False), st.integers(1, 15)), max_size=200))
def test_requests_of_several_units_are_granted_whole_or_not_at_all_and_never_past_the_quota(steps):
    """A portfolio costs one request per chain: granted all its units or none, the guarantee held
    in units, and a refusal's wait is that until all of them fit."""
    clock = Clock()
    limiter = RateLimiter(QUOTA, WINDOW, clock)
    granted: list[float] = []
    for step, cost in steps:
        clock.now += step
        in_window = sum(1 for t in granted if t > clock.now - WINDOW)
        decision = limiter.hit("k", cost)
        assert decision.allowed == (in_window + cost <= QUOTA)
        if decision.allowed:
            granted += [clock.now] * cost
            assert decision.remaining == QUOTA - in_window - cost
        else:
            fits_at = clock.now + decision.reset
            assert sum(1 for t in granted if t > fits_at - WINDOW) + cost <= QUOTA, "after reset, it fits"
            assert sum(1 for t in granted if t > fits_at - 1 - WINDOW) + cost > QUOTA, "and not a second sooner"
    assert most_in_any_window(granted, WINDOW) <= QUOTA


def test_a_cost_above_the_quota_costs_the_whole_window():
    clock = Clock()
    limiter = RateLimiter(3, WINDOW, clock)
    assert limiter.hit("k", 10).allowed and limiter.hit("k").allowed is False


def test_the_window_is_half_open_and_retry_after_is_honest_and_within_the_window():
    clock = Clock(0.0)
    limiter = RateLimiter(QUOTA, WINDOW, clock)
    decisions = [limiter.hit("k") for _ in range(QUOTA)]
    assert all(d.allowed for d in decisions) and {d.reset for d in decisions} == {WINDOW}, "t never exceeds w"
    clock.now = 30.0
    refused = limiter.hit("k")
    assert not refused.allowed and refused.remaining == 0 and refused.reset == 30
    clock.now = 59.999
    assert not limiter.hit("k").allowed, "0 and 59.999 lie in one interval [0, 60)"
    clock.now = 30.0 + refused.reset
    decision = limiter.hit("k")
    assert decision.allowed and decision.remaining == QUOTA - 1, "all 100 grants of t=0 returned"


def test_keys_have_separate_buckets_and_idle_keys_are_forgotten():
    clock = Clock()
    limiter = RateLimiter(2, WINDOW, clock)
    for i in range(1000):
        assert limiter.hit(f"key-{i}").allowed
    assert limiter.tracked_keys() == 1000
    clock.now += WINDOW + 1
    limiter.hit("fresh")
    assert limiter.tracked_keys() == 1


def test_headers_follow_the_ietf_draft_form():
    clock = Clock()
    limiter = RateLimiter(QUOTA, WINDOW, clock)
    assert limiter.hit("k").headers() == {
        "RateLimit-Policy": '"default";q=100;w=60',
        "RateLimit": '"default";r=99;t=60',
    }


async def test_http_429_body_and_headers_with_injected_clock(make_api):
    clock = Clock()
    api = await make_api(clock=clock)
    for i in range(QUOTA):
        clock.now += 0.125
        reply = await api.positions(position_input())
        assert reply.status == 200
        assert reply.headers["RateLimit-Policy"] == '"default";q=100;w=60'
        assert reply.headers["RateLimit"].startswith(f'"default";r={QUOTA - 1 - i};t=')
    clock.now += 0.125
    refused = await api.positions(position_input())
    retry_after = 48  # the first grant (1000.125) returns just after 1060.125; now is 1012.625
    assert refused.status == 429
    assert refused.headers["Retry-After"] == str(retry_after)
    assert refused.body == {
        "errors": [
            {
                "message": "Rate limit exceeded. Please try again later.",
                "extensions": {"code": "RATE_LIMITED", "retryAfter": retry_after},
            }
        ]
    }
    assert refused.headers["RateLimit"] == f'"default";r=0;t={retry_after}'
    clock.now += retry_after
    assert (await api.positions(position_input())).status == 200


async def test_every_authenticated_outcome_counts_and_carries_headers(make_api):
    api = await make_api(rate_limit=3)
    bad = await api.post(raw=b"not json")
    invalid = await api.query("{ nope }")
    ok = await api.positions(position_input())
    for reply in (bad, invalid, ok):
        assert "RateLimit" in reply.headers and "RateLimit-Policy" in reply.headers
    assert [bad.status, invalid.status, ok.status] == [400, 400, 200]
    assert (await api.positions(position_input())).status == 429


async def test_quota_and_window_are_configurable(make_api):
    api = await make_api(rate_limit=5, rate_window=10)
    statuses = [(await api.positions(position_input())).status for _ in range(6)]
    assert statuses == [200] * 5 + [429]
    assert (await api.positions(position_input())).headers["RateLimit-Policy"] == '"default";q=5;w=10'


async def test_real_time_101_rapid_requests_give_exactly_one_429(make_api, keys_file):
    api = await make_api()
    statuses = await asyncio.gather(*(api.positions(position_input()) for _ in range(101)))
    assert sorted(reply.status for reply in statuses) == [200] * 100 + [429]
    second = auth.create_key(keys_file, "second")[0]
    api.app[KEYS].load()
    assert (await api.positions(position_input(), key=second)).status == 200
    assert (await api.positions(position_input())).status == 429
