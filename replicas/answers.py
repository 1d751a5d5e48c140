"""Answers shared by the replicas through Redis (REDIS_URL): an input one replica answered at a
block, any other answers at that block with no RPC request. The resolver asks here after a miss
of its own cache and offers here what it keeps (schema.py, fetch_input).

Only what a block hash fixes is shared: the key ends in ChainReader.block_key(shared=True), never
the bare "settled" a process keeps for itself. It also names the service's version, so replicas of
two versions (a rolling deploy) share nothing whose shape may differ. A value is the answer's JSON
behind a digest of the key and that text: what this service did not write under the key (garbage,
a value cut short, another key's) is ignored, never served. An answer JSON would not give back as
it is, or over `max_bytes`, is not shared; a lookup reads `max_bytes` at most.

Redis is never in the way: a lookup waits REDIS_TIMEOUT at most, a write is a task the request does
not wait for (MAX_WRITES at once at most), and a failure costs a local miss, a metric and, once per
outage, a log line. While Redis fails it is asked again every `retry` seconds, by one lookup or
write while the others skip it; its first answer resumes the sharing.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from typing import Any

from redis.exceptions import RedisError, ResponseError

from metrics import VERSION, Metrics
from replicas import connect

log = logging.getLogger("wallet_positions.answers")

KEY_PREFIX = "wallet-positions:answer:"
DIGEST_BYTES = 16
MAX_WRITES = 64
"""Writes in flight at most; an answer offered beyond them is not shared (`busy`)."""


class RedisAnswers:
    """Answers by (field, protocol, chain id, address, block number, shared block key)."""

    def __init__(
        self, url: str, metrics: Metrics, *, ttl: int, max_bytes: int, timeout: float = 0.5, retry: float = 1.0
    ) -> None:
        self.ttl = ttl
        self.max_bytes = max_bytes
        self._metrics = metrics
        self._retry = retry
        self._client = connect(url, timeout)
        self._writes: set[asyncio.Task[None]] = set()
        self._shared = True
        self._ask_at = 0.0
        metrics.answers_shared.set(1)

    async def get(self, key: tuple[Any, ...]) -> dict[str, Any] | None:
        """The answer another replica (or this one) shared, or None: a miss, or whatever Redis
        could not answer."""
        outcome, answer = await self._lookup(redis_key(key)) if self._asking() else ("unavailable", None)
        self._metrics.child(self._metrics.shared_answer_lookups, outcome).inc()
        return answer

    def put(self, key: tuple[Any, ...], answer: dict[str, Any]) -> None:
        """Shares the answer in a task of its own: the request never waits for Redis."""
        if len(self._writes) >= MAX_WRITES:
            self._wrote("busy")
        elif not self._asking():
            self._wrote("unavailable")
        else:
            task = asyncio.get_running_loop().create_task(self._write(redis_key(key), answer))
            self._writes.add(task)
            task.add_done_callback(self._writes.discard)

    async def written(self) -> None:
        """Once the writes in flight are done, each bounded by the timeout (a test's wait for them)."""
        await asyncio.gather(*self._writes, return_exceptions=True)

    async def close(self) -> None:
        """After the writes in flight (`written`)."""
        await self.written()
        await self._client.aclose()

    async def _lookup(self, name: str) -> tuple[str, dict[str, Any] | None]:
        try:
            value = await self._client.getrange(name, 0, self.max_bytes)
        except ResponseError:  # Redis answered: a value of another type under the key
            return "invalid", None
        except (RedisError, OSError) as exc:
            self._lost(exc)
            return "error", None
        self._answers()
        if not value:
            return "miss", None
        answer = decoded(name, value) if isinstance(value, bytes) else None
        return ("invalid", None) if answer is None else ("hit", answer)

    async def _write(self, name: str, answer: dict[str, Any]) -> None:
        value = encoded(name, answer)
        if value is None or len(value) > self.max_bytes:
            self._wrote("not_json" if value is None else "too_large")
            return
        try:
            await self._client.set(name, value, ex=self.ttl)
        except ResponseError:  # Redis answered: out of memory, say
            self._wrote("error")
            return
        except (RedisError, OSError) as exc:
            self._lost(exc)
            self._wrote("error")
            return
        self._answers()
        self._wrote("stored")

    def _asking(self) -> bool:
        """Whether to ask Redis now: while it answers; after a failure, one caller per `retry` seconds."""
        if self._shared:
            return True
        if time.monotonic() < self._ask_at:
            return False
        self._ask_at = time.monotonic() + self._retry
        return True

    def _lost(self, exc: BaseException) -> None:
        if self._shared:
            self._shared = False
            self._metrics.answers_shared.set(0)
            log.warning(
                "Redis cannot share answers (%s); each replica answers alone until it does, asked again every %g s",
                type(exc).__name__,
                self._retry,
            )
        self._ask_at = time.monotonic() + self._retry

    def _answers(self) -> None:
        if not self._shared:
            self._shared = True
            self._metrics.answers_shared.set(1)
            log.info("Redis answers again: answers are shared by the replicas again")

    def _wrote(self, outcome: str) -> None:
        self._metrics.child(self._metrics.shared_answer_writes, outcome).inc()


def redis_key(key: tuple[Any, ...]) -> str:
    """Nothing secret (an address is public), so keys may be listed: `redis-cli --scan --pattern
    'wallet-positions:answer:*'`."""
    field, protocol, chain_id, address, block, block_key = key
    return f"{KEY_PREFIX}{VERSION}:{chain_id}:{protocol}:{address}:{block}:{field}:{block_key}"


def encoded(name: str, answer: dict[str, Any]) -> bytes | None:
    """The value shared, or None where JSON would not give the answer back as it is (bytes, a
    tuple, a key that is not a string, NaN)."""
    try:
        text = json.dumps(answer, separators=(",", ":"), allow_nan=False).encode()
    except (TypeError, ValueError):
        return None
    return _digest(name, text) + text if json.loads(text) == answer else None


def decoded(name: str, value: bytes) -> dict[str, Any] | None:
    """The answer `encoded` wrote under the key, or None for any other value (one cut short at
    `max_bytes` too)."""
    text = value[DIGEST_BYTES:]
    if value[:DIGEST_BYTES] != _digest(name, text):
        return None
    answer = json.loads(text)
    return answer if isinstance(answer, dict) else None


def _digest(name: str, text: bytes) -> bytes:
    return hashlib.blake2b(name.encode() + b"\n" + text, digest_size=DIGEST_BYTES).digest()
