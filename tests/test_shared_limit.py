"""The rate limit kept in Redis (REDIS_URL): a real redis-server, real server processes."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import aiohttp
import redis.asyncio as aioredis
from prometheus_client.parser import text_string_to_metric_families

from limits import RateLimiter
from metrics import Metrics
from replicas.rate_limit import KEY_PREFIX, RedisRateLimiter
from tests.redis_server import RedisServer, free_port
from tests.test_end_to_end import served
from tests.test_keys import cli

CHEAP = json.dumps({"query": "{ __typename }"}).encode()


async def test_decisions_and_headers_equal_the_in_process_limiter(redis_server):
    shared, local = RedisRateLimiter(redis_server.url, 3, 60, Metrics()), RateLimiter(3, 60)
    try:
        for _ in range(5):
            remote, here = await shared.decide("k1"), local.hit("k1")
            assert (remote.allowed, remote.remaining, remote.quota, remote.window) == (
                here.allowed,
                here.remaining,
                here.quota,
                here.window,
            )
            assert 59 <= remote.reset <= 60 and remote.headers().keys() == here.headers().keys()
        assert (await shared.decide("k2")).remaining == 2, "each key id has its own log"
    finally:
        await shared.close()
    client = aioredis.Redis.from_url(redis_server.url)
    try:
        assert sorted(await client.keys("*")) == [f"{KEY_PREFIX}k1".encode(), f"{KEY_PREFIX}k2".encode()]
        scores = [score for _, score in await client.zrange(f"{KEY_PREFIX}k1", 0, -1, withscores=True)]
        server_now = (lambda t: t[0] * 1_000_000 + t[1])(await client.time())
        assert len(scores) == 3 and all(0 <= server_now - score < 10_000_000 for score in scores)
        assert any(score % 100 for score in scores), "scores keep their microseconds (not Lua's 14 digits)"
        assert 0 < await client.pttl(f"{KEY_PREFIX}k1") <= 60_000
    finally:
        await client.aclose()


async def test_requests_of_several_units_are_decided_as_the_in_process_limiter_decides(redis_server):
    shared, local = RedisRateLimiter(redis_server.url, 10, 60, Metrics()), RateLimiter(10, 60)
    try:
        for cost in (4, 4, 3, 2, 1, 1, 12):
            remote, here = await shared.decide("k", cost), local.hit("k", cost)
            assert (remote.allowed, remote.remaining) == (here.allowed, here.remaining), cost
            assert 59 <= remote.reset <= 60
    finally:
        await shared.close()


async def test_a_grant_returns_when_it_leaves_the_window_by_the_redis_clock(redis_server):
    shared = RedisRateLimiter(redis_server.url, 2, 1, Metrics())
    try:
        assert [(await shared.decide("k")).allowed for _ in range(3)] == [True, True, False]
        await asyncio.sleep(1.05)
        decision = await shared.decide("k")
        assert decision.allowed and decision.remaining == 1
    finally:
        await shared.close()


def make_key(tmp_path: Path) -> tuple[Path, str]:
    keys = tmp_path / "keys.env"
    return keys, cli("keys", "create", "--name", "shared", keys_file=keys).stdout.strip()


def metrics_port(log: Path) -> int:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for line in log.read_text().splitlines():
            entry = json.loads(line)
            if entry["message"].startswith("metrics on"):
                return entry["metrics_port"]
        time.sleep(0.05)
    raise AssertionError(log.read_text())


async def statuses(ports: list[int], key: str, count: int) -> list[int]:
    """`count` requests at once, spread evenly over `ports`."""
    async with aiohttp.ClientSession() as session:

        async def one(port: int) -> int:
            async with session.post(
                f"http://127.0.0.1:{port}/graphql",
                data=CHEAP,
                headers={"Content-Type": "application/json", "x-api-key": key},
            ) as reply:
                await reply.read()
                return reply.status

        return list(await asyncio.gather(*(one(ports[i % len(ports)]) for i in range(count))))


async def scrape(port: int) -> dict[str, float]:
    """Every unlabelled sample of the metrics listener, by name."""
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}/metrics") as reply:
        assert reply.status == 200
        text = await reply.text()
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if not sample.labels
    }


def replica_env(redis_server: RedisServer, **extra: str) -> dict[str, str]:
    return {**os.environ, "REDIS_URL": redis_server.url, **extra}


async def test_two_replicas_share_one_limit(redis_server, tmp_path):
    keys, key = make_key(tmp_path)
    env = replica_env(redis_server)
    with (
        served(tmp_path, "--host", "127.0.0.1", "--keys-file", str(keys), env=env, name="a") as (_, a, _),
        served(tmp_path, "--host", "127.0.0.1", "--keys-file", str(keys), env=env, name="b") as (_, b, _),
    ):
        answered = await statuses([a, b], key, 150)
    assert answered.count(200) == 100 and answered.count(429) == 50


async def test_redis_lost_then_back(redis_server, tmp_path):
    """Killed mid-run: both replicas go on limiting alone, say so in the log and the metrics;
    started again: the next decision after the retry interval is Redis's again."""
    keys, key = make_key(tmp_path)
    env = replica_env(redis_server)
    common = ("--host", "127.0.0.1", "--keys-file", str(keys), "--metrics-port", "0")
    with (
        served(tmp_path, *common, env=env, name="a") as (_, a, log_a),
        served(tmp_path, *common, env=env, name="b") as (_, b, log_b),
    ):
        assert set(await statuses([a, b], key, 30)) == {200}
        assert (await scrape(metrics_port(log_a)))["wp_rate_limit_shared"] == 1

        redis_server.kill()
        assert set(await statuses([a, b], key, 20)) == {200}, "the in-process fallback grants"
        for log in (log_a, log_b):
            assert "Redis cannot decide the rate limit (ConnectionError)" in log.read_text()
        samples = await scrape(metrics_port(log_a))
        assert samples["wp_rate_limit_shared"] == 0 and samples["wp_rate_limit_redis_failures_total"] == 10

        redis_server.start()
        await asyncio.sleep(1.2)
        assert set(await statuses([a, b], key, 2)) == {200}
        assert set(await statuses([a, b], key, 10)) == {200}
        client = aioredis.Redis.from_url(redis_server.url)
        try:
            assert await client.zcard(f"{KEY_PREFIX}{key_id(keys)}") == 12
        finally:
            await client.aclose()
        for log in (log_a, log_b):
            assert "Redis answers again" in log.read_text()
        assert (await scrape(metrics_port(log_b)))["wp_rate_limit_shared"] == 1
    for log in (log_a, log_b):
        assert redis_server.url not in log.read_text() and key not in log.read_text()


def key_id(keys: Path) -> str:
    return cli("keys", "list", keys_file=keys).stdout.splitlines()[1].split()[0]


async def test_refuse_setting_answers_503_while_redis_is_down(make_api):
    api = await make_api(redis_url=f"redis://127.0.0.1:{free_port()}/0", redis_unavailable="refuse", redis_timeout=0.2)
    reply = await api.post({"query": "{ __typename }"})
    assert reply.status == 503 and reply.headers["Retry-After"] == "1"
    assert reply.body["errors"][0]["extensions"] == {"code": "RATE_LIMIT_UNAVAILABLE", "retryAfter": 1}
    assert "RateLimit" not in reply.headers
