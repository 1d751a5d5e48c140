"""Rate limit per API key, and the numbers of the request-level limits of docs/decisions.md §4
(graphql_http/rules.py holds a document to them).

The rate limit is a token bucket whose every spent token returns exactly `window` seconds after
it was spent (a sliding log). That shape is what gives both halves of the guarantee in
docs/decisions.md §6: a grant needs fewer than `quota` grants in the interval (now - window, now], so
no interval [a, a + window) ever holds more than `quota` grants, and a client that keeps every
such interval under `quota` always finds a token. Refused requests spend nothing. Intervals are
half-open so that the wait a client is told (`t`, Retry-After, whole seconds rounded up) is
honest and never more than the window.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from typing import NamedTuple, Protocol

MAX_INPUTS = 5
MAX_DEPTH = 10
"""The deepest path the schema has: a series' point's gauge position's pool share's risk's
liquidation price's asset's symbol (the share is a Position, whose `risk` every Position has)."""
MAX_BODY_BYTES = 100 * 1024
MAX_TOKENS = 1_000
"""Parser token cap: parsing costs about 8 microseconds a token; a typical query is about 260."""

MAX_FRAGMENTS = 32
MAX_FIELDS = 680
MAX_ALIASES = 32
MAX_SPREADS = 64
MAX_SELECTIONS = 64
MAX_MERGED = 8
MAX_EXPANDED = 680
"""The cost bound (graphql_http/rules.py's `cost_problem`), frozen at the widest document a client
needs, whatever the number of protocols (issue 66): a request holds at most five inputs, so its
answers are of five members of a union at most, and what every member shares is selected once
through the interfaces (`WalletEntry` with `allPositions` and `totals`, `Position`, `Entry`).
That document, every root field once with every field of its answer (provenance too), the unions
through their interfaces and the own fields of the five largest members of either union (a
position's under positionsHistory's points, a pool's under poolDetails), is 960 tokens and 647
fields, each at its path once (tests/test_request_limits.py computes it from the schema, holds it
within these and a sixth member past them: a protocol whose type would widen it past them fails
there; the bounds do not follow). A field is
merged at one path at most eight times: a member's own fragment for each of five inputs, the
interface's, the union's. An every-member document is refused, its message says to select through
the interfaces. The costliest document within them parses and validates well within
ANALYSIS_GOAL_MS on a 2-core machine: the worst found was the widest document itself, 33 and 34 ms
in two runs on an idle machine (bench/adversarial.py).
Before the interfaces the bounds followed the every-field query of all 26 members up to 2,500
tokens, 1,800 fields, 1,900 expanded and 28 merged (63 to 108 ms measured at its worst)."""

ANALYSIS_GOAL_MS = 100
"""What the cost bound is measured against: the costliest document within it is analysed (parsed,
bound-checked, validated) in well under this on a 2-core machine (bench/adversarial.py prints the
worst it finds beside it)."""

POLICY_NAME = "default"


class RateDecision(NamedTuple):
    allowed: bool
    quota: int
    window: int
    remaining: int
    reset: int
    """Whole seconds until the oldest counted request leaves the window (0 when none counts)."""

    def headers(self) -> dict[str, str]:
        """`RateLimit-Policy` and `RateLimit` in the IETF httpapi draft's structured form."""
        return {
            "RateLimit-Policy": f'"{POLICY_NAME}";q={self.quota};w={self.window}',
            "RateLimit": f'"{POLICY_NAME}";r={self.remaining};t={self.reset}',
        }


class Limiter(Protocol):
    """What the server asks of a limiter: this one, or replicas.rate_limit.RedisRateLimiter."""

    async def decide(self, key_id: str, cost: int = 1) -> RateDecision:
        """Grant `cost` requests at once, or none (refused: they would not all fit the window)."""
        ...

    async def close(self) -> None: ...


class LimiterUnavailable(Exception):
    """The shared limit cannot be decided (Redis unreachable) and the setting is to refuse: 503."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(retry_after)
        self.retry_after = retry_after


class RateLimiter:
    """In-process limiter: per key, the times of the grants still inside the window.

    Memory is bounded by `quota` timestamps per key that was granted a request within the last
    window; keys idle for a whole window are swept away.
    """

    def __init__(self, quota: int, window: int, clock: Callable[[], float] = time.monotonic):
        self.quota = quota
        self.window = window
        self._clock = clock
        self._grants: dict[str, deque[float]] = {}
        self._last_sweep = clock()

    def hit(self, key_id: str, cost: int = 1) -> RateDecision:
        """`cost` grants at once (at most the quota: a cost above it costs the whole window), or none."""
        now = self._clock()
        self._sweep(now)
        grants = self._grants.setdefault(key_id, deque())
        while grants and grants[0] <= now - self.window:
            grants.popleft()
        cost = min(cost, self.quota)
        allowed = len(grants) + cost <= self.quota
        if allowed:
            grants.extend([now] * cost)
        # Refused: the wait until enough grants have left for all `cost` to fit.
        oldest = grants[0 if allowed else len(grants) + cost - self.quota - 1] if grants else None
        reset = whole_seconds_until(oldest + self.window - now) if oldest is not None else 0
        return RateDecision(allowed, self.quota, self.window, self.quota - len(grants), reset)

    async def decide(self, key_id: str, cost: int = 1) -> RateDecision:
        """`hit`, as the server calls every limiter (replicas.rate_limit.RedisRateLimiter's must await Redis)."""
        return self.hit(key_id, cost)

    async def close(self) -> None:
        """Nothing to release: the log lives in this process."""

    def tracked_keys(self) -> int:
        return len(self._grants)

    def _sweep(self, now: float) -> None:
        if now - self._last_sweep < self.window:
            return
        self._last_sweep = now
        idle = [key for key, grants in self._grants.items() if not grants or grants[-1] <= now - self.window]
        for key in idle:
            del self._grants[key]


def whole_seconds_until(seconds: float) -> int:
    """`seconds` rounded up to whole seconds (at least 1), robust to float noise."""
    return max(1, math.ceil(seconds - 1e-6))
