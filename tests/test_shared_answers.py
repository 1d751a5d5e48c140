"""Answers shared through Redis (REDIS_URL, replicas/answers.py): a real redis-server and two apps
(replicas) on the vault-style world, each behind a counting RPC proxy of its own."""

from __future__ import annotations

import asyncio
import logging
import math
import signal

import pytest
import redis.asyncio as aioredis

import server
from metrics import VERSION
from replicas.answers import KEY_PREFIX, decoded, encoded, redis_key
from tests import vault_style_world as W
from tests.conftest import proxied_api, world_fixture
from tests.rpc_proxy import INTERNAL_ERROR
from tests.test_head import until
from tests.test_vault_style import QUERY, answers

world = world_fixture(W.build)

SOME = ("midas", "neutrl", "sky")


@pytest.fixture
def replicas(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path, redis_server):
    """`replicas(n, **settings)`: n apps on one Redis, each (proxy, api), following the head."""

    async def start(count: int = 2, **settings):
        settings = {"redis_url": redis_server.url, "head_poll_seconds": 0.05, "rate_limit": 100_000, **settings}
        return [
            await proxied_api(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path, **settings)
            for _ in range(count)
        ]

    return start


@pytest.fixture
async def redis_client(redis_server):
    client = aioredis.Redis.from_url(redis_server.url)
    yield client
    await client.aclose()


async def shared(client, world, found: dict[str, dict]) -> None:
    """Until every answer in `found` (by protocol) is in Redis under its block's hash."""
    names = []
    for protocol, answer in found.items():
        block = answer["blockNumber"]
        block_hash = world.node.rpc("eth_getBlockByNumber", hex(block), False)["hash"]
        names.append(redis_key(("walletPositions", protocol, 31337, answer["walletAddress"], block, block_hash)))
    await stored(client, names)


async def stored(client, names: list[str]) -> None:
    """Until every key is in Redis (a write is a task the request does not wait for)."""
    for _ in range(500):
        if await client.exists(*names) == len(names):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the answers were not shared")


def sample(api, name: str, **labels: str) -> float:
    return api.app[server.METRICS].registry.get_sample_value(name, labels) or 0


async def same_head(world, *apis) -> int:
    """The node's newest block, once every app follows it."""
    block = world.node.block_number()
    followers = [api.app[server.CHAINS].follower(world.node.chain_id) for api in apis]
    await until(
        lambda: all((head := follower.current()) is not None and head.number == block for follower in followers)
    )
    return block


async def warm(world, *apis) -> int:
    """Each app pins the chain once (its endpoint's checks) and follows it; the newest block."""
    for api in apis:
        await answers(api, world.wallets["cooler"], ("midas",))
    return await same_head(world, *apis)


async def test_a_repeat_on_the_other_replica_at_the_same_block_costs_no_rpc_request(replicas, redis_client, world):
    (_, a), (proxy_b, b) = await replicas()
    holder = world.wallets["holder"]
    await warm(world, a, b)
    first = await answers(a, holder)
    await shared(redis_client, world, first)
    before = proxy_b.reads()
    assert await answers(b, holder) == first, "JSON gave every answer back as it was"
    assert proxy_b.reads() == before, "answered from Redis: no RPC request"
    assert sample(b, "wp_shared_answer_lookups_total", outcome="hit") >= 8
    names = [name.decode() for name in await redis_client.keys(f"{KEY_PREFIX}*")]
    block = first["midas"]["blockNumber"]
    block_hash = world.node.rpc("eth_getBlockByNumber", hex(block), False)["hash"]
    assert f"{KEY_PREFIX}{VERSION}:31337:midas:{holder}:{block}:walletPositions:{block_hash}" in names
    assert all(0 < ttl <= 300 for ttl in [await redis_client.ttl(name) for name in names])

    world.node.mine()
    await same_head(world, a, b)
    later = await answers(b, holder, ("midas",))
    assert later["midas"]["blockNumber"] == block + 1 and proxy_b.reads() > before, "a new block is read"


async def at(api, wallet: str, block: int) -> dict:
    inputs = [{"protocol": "midas", "chainId": 31337, "walletAddress": wallet, "blockNumber": block}]
    reply = await api.query(QUERY, {"inputs": inputs})
    assert reply.status == 200 and reply.body["data"]["walletPositions"]["errors"] == [], reply.body
    (answer,) = reply.body["data"]["walletPositions"]["data"]
    return answer


async def test_a_past_block_is_shared_under_a_block_hash(replicas, redis_client, world):
    """A given block is named in Redis by the hash of a block at or after it: the finalized
    block's once it settled, else the head's; never by this process's bare "settled"."""
    (_, a), (proxy_b, b) = await replicas()
    holder, cooler = world.wallets["holder"], world.wallets["cooler"]
    world.node.mine(70)  # anvil's finalized block is 64 behind its newest
    head = await warm(world, a, b)
    followers = [api.app[server.CHAINS].follower(world.node.chain_id) for api in (a, b)]
    await until(lambda: all(follower.settled_hash is not None for follower in followers))
    settled, settled_hash = followers[0].settled, followers[0].settled_hash
    assert 0 < settled < head - 1 and (followers[1].settled, followers[1].settled_hash) == (settled, settled_hash)
    await at(b, cooler, settled)  # b probes Multicall3 once at its oldest block
    first = {block: await at(a, holder, block) for block in (settled, head - 1)}
    head_hash = world.node.rpc("eth_getBlockByNumber", hex(head), False)["hash"]
    await stored(
        redis_client,
        [
            redis_key(("walletPositions", "midas", 31337, holder, block, f"under {anchor}"))
            for block, anchor in ((settled, settled_hash), (head - 1, head_hash))
        ],
    )
    before = proxy_b.reads()
    assert {block: await at(b, holder, block) for block in first} == first
    assert proxy_b.reads() == before
    assert await redis_client.keys(f"{KEY_PREFIX}*settled*") == []


async def test_what_is_not_shared(replicas, redis_client, world):
    """An answer with a warning a retry could clear, a failure, an answer over
    ANSWER_SHARE_MAX_BYTES: none is written to Redis."""
    ((proxy, api),) = await replicas(1)
    holder, cooler = world.wallets["holder"], world.wallets["cooler"]
    await answers(api, cooler, ("neutrl",))
    proxy.history_from = world.then + 1
    found = await answers(api, holder, ("midas",))
    assert {w["code"] for w in found["midas"]["warnings"]} == {"HISTORY_UNAVAILABLE"}
    proxy.history_from = None
    proxy.item_faults = {"eth_call": (1.0, INTERNAL_ERROR)}
    inputs = [{"protocol": "sky", "chainId": 31337, "walletAddress": holder}]
    reply = await api.query(QUERY, {"inputs": inputs})
    assert [e["error"]["code"] for e in reply.body["data"]["walletPositions"]["errors"]] == ["NETWORK_ERROR"]
    proxy.item_faults = {}
    await asyncio.sleep(0.2)
    assert await redis_client.keys(f"{KEY_PREFIX}*:midas:*") == []
    assert await redis_client.keys(f"{KEY_PREFIX}*:sky:*") == []

    ((_, small),) = await replicas(1, answer_share_max_bytes=100)
    await answers(small, holder, ("ethena",))
    await until(lambda: sample(small, "wp_shared_answer_writes_total", outcome="too_large") > 0)
    assert await redis_client.keys(f"{KEY_PREFIX}*:ethena:*") == []


async def test_a_value_this_service_did_not_write_is_never_served(replicas, redis_client, world):
    """Garbage, a JSON answer without its digest, a value over ANSWER_SHARE_MAX_BYTES, one cut
    short, one with a byte changed: each is a miss (read from the chain), never served."""
    (_, a), (proxy_b, b) = await replicas()
    holder = world.wallets["holder"]
    await warm(world, a, b)
    first = await answers(a, holder)
    await shared(redis_client, world, first)
    names = await redis_client.keys(f"{KEY_PREFIX}*:{holder}:*")
    assert len(names) >= 8
    for number, name in enumerate(names):
        value = await redis_client.get(name)
        unlike = [b"garbage", value[16:], b"x" * 600_000, value[:-1], value[:20] + b"?" + value[21:]]
        await redis_client.set(name, unlike[number % len(unlike)])
    before, hits = proxy_b.reads(), sample(b, "wp_shared_answer_lookups_total", outcome="hit")
    assert await answers(b, holder) == first
    assert proxy_b.reads() > before
    assert sample(b, "wp_shared_answer_lookups_total", outcome="invalid") == len(names)
    assert sample(b, "wp_shared_answer_lookups_total", outcome="hit") == hits


def test_a_value_is_the_answer_json_gives_back_as_it_is():
    answer = {"blockNumber": 7, "amount": str(2**255), "big": 2**300, "apy": 0.1 + 0.2, "list": [None, True, {}]}
    value = encoded("k", answer)
    assert value is not None and decoded("k", value) == answer
    assert decoded("other key", value) is None and decoded("k", value[:-1]) is None and decoded("k", b"") is None
    for unlike in ({"t": (1, 2)}, {"b": b"\x00"}, {1: "int key"}, {"nan": math.nan}, {"inf": math.inf}):
        assert encoded("k", unlike) is None, unlike


async def test_redis_down_slow_and_back_under_load(replicas, redis_client, redis_server, world, caplog):
    """Killed, then paused (slow), while both replicas are under load: every request is answered
    200 and every answer is the chain's at its block; one log line per replica and outage (no URL)
    says so; once Redis answers again, sharing resumes by itself."""
    caplog.set_level(logging.INFO, logger="wallet_positions")
    (_, a), (proxy_b, b) = await replicas(redis_timeout=0.2)
    holder, cooler, empty = world.wallets["holder"], world.wallets["cooler"], world.wallets["empty"]
    await warm(world, a, b)
    reference = without_block(await answers(a, empty, SOME))

    async def load(stop: asyncio.Event) -> int:
        rounds = 0
        while not stop.is_set():
            for found in await asyncio.gather(answers(a, empty, SOME), answers(b, empty, SOME)):
                assert without_block(found) == reference
            rounds += 1
        return rounds

    async def new_block() -> None:
        """A's answers at a new block, B's the same (its own reads, or A's through Redis)."""
        world.node.mine()
        block = await same_head(world, a, b)
        first = await answers(a, holder, SOME)
        assert {answer["blockNumber"] for answer in first.values()} == {block}
        assert await answers(b, holder, SOME) == first

    async def shared_again() -> None:
        """Redis asked again after the retry interval, by both; then B reads nothing A answered."""
        await asyncio.sleep(1.1)
        for api in (a, b):
            await answers(api, cooler, ("neutrl", "ethena"))
        world.node.mine()
        await same_head(world, a, b)
        first = await answers(a, holder, SOME)
        await shared(redis_client, world, first)
        before = proxy_b.reads()
        assert await answers(b, holder, SOME) == first and proxy_b.reads() == before

    for outage in ("killed", "paused"):
        stop = asyncio.Event()
        loaded = asyncio.ensure_future(load(stop))
        await new_block()
        if outage == "killed":
            redis_server.kill()
        else:
            redis_server.process.send_signal(signal.SIGSTOP)
        await new_block()
        await new_block()
        assert sample(a, "wp_answers_shared") == 0 and sample(b, "wp_answers_shared") == 0
        if outage == "killed":
            redis_server.start()
        else:
            redis_server.process.send_signal(signal.SIGCONT)
        await asyncio.sleep(1.1)
        await new_block()
        stop.set()
        assert await loaded > 0
        await shared_again()
        assert sample(a, "wp_answers_shared") == 1 and sample(b, "wp_answers_shared") == 1
    lost = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Redis cannot share answers")]
    assert [line.split()[4] for line in lost] == ["(ConnectionError);"] * 2 + ["(TimeoutError);"] * 2, lost
    assert caplog.text.count("Redis answers again: answers are shared") == 4
    assert redis_server.url not in caplog.text and f":{redis_server.port}" not in caplog.text


def without_block(found: dict[str, dict]) -> dict[str, dict]:
    return {p: {k: v for k, v in a.items() if not k.startswith("block")} for p, a in found.items()}
