"""What replicas share through Redis (REDIS_URL): the rate limit (rate_limit.py) and answers
(answers.py). The server loads this package only when REDIS_URL is set, so a single replica never
imports the redis client. Here: the connection both use."""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError


def connect(url: str, timeout: float) -> aioredis.Redis:
    """A client whose every command waits `timeout` at most, to connect and to be answered.

    One retry, on a connection error only: a pooled connection Redis closed (a restart) is found
    dead when used, and the command did not run; after a timeout it may have. The URL, which may
    hold a password, is never in what this package logs."""
    return aioredis.Redis.from_url(
        url,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 1, (RedisConnectionError,)),
    )
