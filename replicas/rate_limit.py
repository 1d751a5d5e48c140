"""The per-key rate limit kept in Redis, so that every replica sharing one Redis shares one limit.

The limit is the same sliding log as limits.RateLimiter, kept as one sorted set per key id (the
key's id, never the key) and decided in one Lua script that reads the Redis server's clock: the
replicas' clocks never enter, so skew between them cannot let a request through. The guarantee
is the in-process one: no interval [a, a + window) holds more than `quota` grants, and a grant
is refused only when `quota` grants lie in (now - window, now].

When Redis cannot decide (unreachable, timed out, an error), the decision falls back to the
in-process limiter (each replica then limits alone), or, with `unavailable="refuse"`, the
request is refused with 503 and Retry-After. Either way it is logged once and counted in the
metrics, and Redis is asked again `retry` seconds later, by one request while the others keep
the fallback; the first answer it gives restores the shared limit.
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import time
from collections.abc import Callable

from redis.exceptions import RedisError

from limits import LimiterUnavailable, RateDecision, RateLimiter, whole_seconds_until
from metrics import Metrics
from replicas import connect

log = logging.getLogger("wallet_positions.limits")

KEY_PREFIX = "wallet-positions:rate:"

SLIDING_LOG = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local quota, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local cost = math.min(tonumber(ARGV[4]), quota)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - window))
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count + cost <= quota then
  for i = 1, cost do
    redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[3] .. ':' .. i)
  end
  count = count + cost
  allowed = 1
end
local wait = 0
if count > 0 then
  redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
  local leaving = 0
  if allowed == 0 then
    leaving = count + cost - quota - 1
  end
  wait = tonumber(redis.call('ZRANGE', KEYS[1], leaving, leaving, 'WITHSCORES')[2]) + window - now
end
return {allowed, count, wait}
"""
"""Times are the server's, in microseconds (exact in a double until the year 2255). Scores are
passed as formatted integers: Lua's own number-to-string conversion keeps 14 digits, which would
round a microsecond timestamp to ten milliseconds. Grants at or before now - window are dropped,
so the log holds (now - window, now], as the in-process limiter's does. A request of cost n is
granted n entries at once, or none (n at most the quota). Returns whether this request is granted,
the grants now in the log, and the microseconds until the oldest leaves (refused: until enough have
left for all n)."""


class RedisRateLimiter:
    def __init__(
        self,
        url: str,
        quota: int,
        window: int,
        metrics: Metrics,
        *,
        timeout: float = 0.5,
        retry: float = 1.0,
        refuse: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.quota = quota
        self.window = window
        self._fallback = RateLimiter(quota, window, clock)
        self._metrics = metrics
        self._retry = retry
        self._refuse = refuse
        self._clock = clock
        self._client = connect(url, timeout)
        self._script = self._client.register_script(SLIDING_LOG)
        self._members = itertools.count()
        self._process = os.urandom(8).hex()
        self._shared = True
        self._ask_at = 0.0
        metrics.rate_limit_shared.set(1)

    async def decide(self, key_id: str, cost: int = 1) -> RateDecision:
        """Raises LimiterUnavailable when Redis cannot decide and the setting is to refuse."""
        if not self._shared:
            if self._clock() < self._ask_at:
                return self._without_redis(key_id, cost)
            self._ask_at = self._clock() + self._retry
        member = f"{self._process}:{next(self._members)}"
        try:
            allowed, count, wait = await self._script(
                keys=[KEY_PREFIX + key_id], args=[self.quota, self.window * 1_000_000, member, cost]
            )
        except (RedisError, OSError) as exc:
            self._lost(exc)
            return self._without_redis(key_id, cost)
        if not self._shared:
            self._shared = True
            self._metrics.rate_limit_shared.set(1)
            log.info("Redis answers again: the rate limit is shared by the replicas again")
        reset = whole_seconds_until(wait / 1_000_000) if count else 0
        return RateDecision(bool(allowed), self.quota, self.window, self.quota - count, reset)

    async def close(self) -> None:
        await self._client.aclose()

    def _lost(self, exc: BaseException) -> None:
        if self._shared:
            self._shared = False
            self._metrics.rate_limit_shared.set(0)
            what = "refused with 503" if self._refuse else "limited by each replica alone"
            log.warning(
                "Redis cannot decide the rate limit (%s); requests are %s until it answers, asked again every %g s",
                type(exc).__name__,
                what,
                self._retry,
            )
        self._ask_at = self._clock() + self._retry

    def _without_redis(self, key_id: str, cost: int) -> RateDecision:
        self._metrics.rate_limit_redis_failures.inc()
        if self._refuse:
            raise LimiterUnavailable(max(1, math.ceil(self._ask_at - self._clock())))
        return self._fallback.hit(key_id, cost)
