"""Replicas as operators run them: real server processes on the devnet's worlds, two sharing one
PostgreSQL event index (`INDEX_URL`) and one Redis (`REDIS_URL`: the rate limit and the answers),
beside one on SQLite alone. They answer every protocol and demo wallet alike; through a database
and a Redis stopped and started again under load, nothing is a 5xx and the answers come back by
themselves; a replica killed mid-scan leaves the other to finish it, every row stored once."""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import dataclasses
import json
import os
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest
import yaml

import server
from config import Settings, resolve
from tests.conftest import served_fixture, world_api
from tests.evm import as_child
from tests.null_figures import failed
from tests.redis_server import free_port
from tests.rpc_proxy import RpcProxy
from tests.test_devnet_restart import every_input
from tests.test_end_to_end import served
from tests.test_fault_schedules import positions_query
from tests.test_head import until

ROOT = Path(__file__).resolve().parents[1]
worlds = served_fixture("replicas")


@contextlib.contextmanager
def replicas(
    worlds: Any, tmp_path: Path, shared: dict[str, str], **settings: str
) -> Iterator[list[tuple[subprocess.Popen[bytes], int]]]:
    """Three server processes (and their ports): one on SQLite files of its own, two on `shared`
    settings; `settings` for all three."""
    built, folder, _ = worlds
    common = {
        **settings,
        "RPC_URL_31337": built.node.url,
        "API_KEYS_FILE": str(folder / "keys.env"),
        "ADDRESSES_FILE": str(folder / "addresses.json"),
        "HEAD_POLL_SECONDS": "0",
        "RATE_LIMIT": "100000",
    }
    with contextlib.ExitStack() as stack:
        ports = []
        for name, extra in (("alone", {"STATE_DIR": str(tmp_path / "alone")}), ("a", shared), ("b", shared)):
            env = {**os.environ, **common, **extra, "STATE_DIR": extra.get("STATE_DIR", str(tmp_path / name))}
            process, port, _ = stack.enter_context(served(tmp_path, "--host", "127.0.0.1", env=env, name=name))
            ports.append((process, port))
        yield ports


async def answers(port: int, key: str, inputs: list[dict[str, Any]]) -> tuple[list[int], dict[str, Any]]:
    """Every input, five a request, at once: the HTTP statuses and the data and errors in order."""
    async with aiohttp.ClientSession() as session:

        async def one(part: list[dict[str, Any]]) -> tuple[int, Any]:
            body = {"query": positions_query(part), "variables": {"inputs": part}}
            async with session.post(f"http://127.0.0.1:{port}/graphql", json=body, headers={"x-api-key": key}) as reply:
                text = await reply.text()
                return reply.status, json.loads(text) if reply.status == 200 else {"text": text}

        replies = await asyncio.gather(*(one(inputs[i : i + 5]) for i in range(0, len(inputs), 5)))
    statuses = [status for status, _ in replies]
    found = [reply.get("data", {}).get("walletPositions") or {"data": [], "errors": []} for _, reply in replies]
    return statuses, {"data": [e for f in found for e in f["data"]], "errors": [e for f in found for e in f["errors"]]}


async def test_two_replicas_on_one_database_answer_as_one_alone(worlds, tmp_path, database, redis_server):
    built, folder, key = worlds
    block = built.node.block_number()
    inputs = [{**item, "blockNumber": block} for item in every_input(built, folder)]
    shared = {"INDEX_URL": database, "REDIS_URL": redis_server.url}
    with replicas(worlds, tmp_path, shared) as started:
        alone, a, b = (port for _, port in started)
        results = [await answers(port, key, inputs) for port in (alone, a, b, a)]
    assert all(set(statuses) == {200} for statuses, _ in results)
    reference = results[0][1]
    assert reference["errors"] == [] and len(reference["data"]) >= len(inputs)
    for _, found in results[1:]:
        assert json.dumps(found, sort_keys=True) == json.dumps(reference, sort_keys=True)


async def test_a_repeat_on_a_second_replica_at_the_same_block_costs_no_rpc_request(
    worlds, tmp_path, aiohttp_client, aiohttp_server, redis_server
):
    """Two apps on one Redis, each following the head behind an RPC proxy of its own (as
    bench/latency.py measures): a block mined before each query and seen by both followers, every
    protocol for every demo wallet answered by the first, at the head and ten blocks back, is
    answered by the second at the same block with no RPC HTTP request. Ten blocks back used to
    cost it one, the probe of Multicall3 at a block older than any it had read (chain/reader.py
    `_multicall_at`): it is asked only where the block is read, not where its answer is found."""
    built, folder, key = worlds
    node = built.node
    started = []
    for name in ("a", "b"):
        proxy = RpcProxy(node.url)
        proxy.url = str((await aiohttp_server(proxy.app(), host="127.0.0.1")).make_url("/"))
        api = await world_api(
            aiohttp_client,
            folder / "keys.env",
            key,
            folder / "addresses.json",
            node,
            state_dir=str(tmp_path / name),
            url=proxy.url,
            head_poll_seconds=0.05,
            redis_url=redis_server.url,
            redis_timeout=10,  # the apps, proxies and client share one event loop: a lookup waits its turn
            rate_limit=100_000,
        )
        started.append((proxy, api))
    (_, a), (proxy_b, b) = started
    followers = [api.app[server.CHAINS].follower(node.chain_id) for api in (a, b)]
    inputs = every_input(built, folder)
    for _ in range(60):  # until a's event index has caught up: an answer it leaves short is not shared
        if not catching_up((await answers(a.client.port, key, inputs))[1]):
            break
        await asyncio.sleep(0.5)
    await answers(b.client.port, key, inputs[:1])  # b pins the chain once (its endpoint's checks) and follows it
    for back in (0, 10):
        node.mine()
        head = node.block_number()
        await until(
            lambda block=head: all((seen := f.current()) is not None and seen.number == block for f in followers)
        )
        asked = [{**item, "blockNumber": head - back} for item in inputs] if back else inputs
        statuses, first = await one_by_one(a.client.port, key, asked)
        assert set(statuses) == {200} and first["errors"] == [] and len(first["data"]) >= len(inputs)
        assert not catching_up(first), "every answer shared"
        await a.app[server.SHARED_ANSWERS].written()
        before = len(proxy_b.posts), proxy_b.reads()
        statuses, again = await one_by_one(b.client.port, key, asked)
        assert set(statuses) == {200} and again == first
        made = collections.Counter(
            f"{item['method']} {item['params'][0] if item['method'] == 'eth_getBlockByNumber' else ''}"
            for post in proxy_b.posts[before[0] :]
            for item in (post if isinstance(post, list) else [post])
        )
        lookups = b.app[server.METRICS].shared_answer_lookups
        outcomes = {
            m.labels["outcome"]: m.value for f in lookups.collect() for m in f.samples if m.name.endswith("_total")
        }
        assert proxy_b.reads() == before[1], f"{back} blocks back, b sent {made}; its lookups {outcomes}"


async def one_by_one(port: int, key: str, inputs: list[dict[str, Any]]) -> tuple[list[int], dict[str, Any]]:
    """`answers`, one request of five inputs at a time: all at once, a replica's few hundred
    lookups in Redis exceed the client's pool of 100 connections (MaxConnectionsError), and it
    stops sharing for a second."""
    statuses, found = [], {"data": [], "errors": []}
    for start in range(0, len(inputs), 5):
        got, part = await answers(port, key, inputs[start : start + 5])
        statuses.extend(got)
        found = {name: found[name] + part[name] for name in found}
    return statuses, found


def catching_up(found: dict[str, Any]) -> bool:
    """Whether an answer carries a warning of an event index still catching up (retryable: the
    answer is neither kept nor shared)."""
    return any(w["code"] in ("PART_UNREADABLE", "ACCOUNTS_LEFT_OUT") for e in found["data"] for w in e["warnings"])


async def test_the_database_and_redis_stopped_under_load_cost_no_5xx(
    worlds, tmp_path, postgres, database, redis_server
):
    """A block mined before each round of the load, so every round reads the index (no answer is
    kept for a new block). While the database is away, inputs that need the index fail with the
    retryable INDEX_UNAVAILABLE or carry a retryable warning; then the replicas answer as the one
    alone, at one block, by themselves."""
    built, folder, key = worlds
    inputs = every_input(built, folder)
    shared = {"INDEX_URL": database, "REDIS_URL": redis_server.url}
    with replicas(worlds, tmp_path, shared) as started:
        alone, a, b = (port for _, port in started)
        statuses: list[int] = []
        codes: set[str] = set()
        stopped = asyncio.Event()

        async def load() -> None:
            while not stopped.is_set():
                built.node.mine()
                for port in (a, b):
                    got, found = await answers(port, key, inputs[:20])
                    statuses.extend(got)
                    codes.update(error["error"]["code"] for error in found["errors"])
                    codes.update(w["code"] for entry in found["data"] for w in failed(entry["warnings"]))

        running = asyncio.ensure_future(load())
        await asyncio.sleep(1)
        postgres.kill()
        redis_server.kill()
        for _ in range(200):  # until the outage is felt: a round answered without the index
            if codes:
                break
            await asyncio.sleep(0.1)
        postgres.start()
        redis_server.start()
        await asyncio.sleep(3)
        stopped.set()
        await running
        assert statuses and set(statuses) == {200}, sorted(set(statuses))
        assert codes and codes <= {"INDEX_UNAVAILABLE", "ACCOUNTS_LEFT_OUT", "PART_UNREADABLE"}, codes
        pinned = [{**item, "blockNumber": built.node.block_number()} for item in inputs]
        _, reference = await answers(alone, key, pinned)
        for _ in range(90):  # the shared index catches up on every stream first (issue 52 added several)
            recovered = [(await answers(port, key, pinned))[1] for port in (a, b)]
            if all(found == reference for found in recovered):
                break
            await asyncio.sleep(0.5)
        differing = sorted(
            {
                (entry["protocol"], entry["walletAddress"], *(w["code"] for w in entry["warnings"]))
                for found in recovered
                for entry in found["data"]
                if entry not in reference["data"]
            }
        )
        assert all(found == reference for found in recovered), f"the answers come back by themselves: {differing}"


async def test_a_replica_killed_mid_scan_leaves_the_other_to_finish_it(worlds, tmp_path, database, redis_server):
    """Two replicas start on an empty database, each scanning with short eth_getLogs ranges; the one
    that answered first (and so scans) is killed (SIGKILL) mid-scan. The other takes its streams
    over, and the database ends holding exactly the rows the replica alone stored in its files."""
    built, folder, key = worlds
    inputs = every_input(built, folder)
    shared = {"INDEX_URL": database, "REDIS_URL": redis_server.url}
    with replicas(worlds, tmp_path, shared, LOGS_BLOCK_RANGE="1") as started:
        (_, alone), (first, a), (_, b) = started
        scanning = asyncio.ensure_future(answers(a, key, inputs))
        target = built.node.finalized_block()
        for _ in range(500):  # until a stream is stored part of the way: the replica is mid-scan
            with contextlib.suppress(asyncpg.UndefinedTableError):  # the replica makes the tables
                if any(covered < target for _, _, covered in (await rows(database))["progress"]):
                    break
            await asyncio.sleep(0.01)
        first.kill()
        assert any(covered < target for _, _, covered in (await rows(database))["progress"]), "mid-scan"
        with contextlib.suppress(aiohttp.ClientError):
            await scanning
        await answers(alone, key, inputs)
        files = sqlite3.connect(tmp_path / "alone" / f"index-{built.node.chain_id}.sqlite")
        try:
            for _ in range(600):
                if min(covered for (covered,) in files.execute("SELECT covered_to FROM progress")) >= target:
                    break
                await asyncio.sleep(0.2)
            streams = {name for (name,) in files.execute("SELECT stream FROM progress")}
            for _ in range(600):
                await answers(b, key, inputs)  # every stream asked for: each one's scan goes on
                stored = await rows(database)
                if {name for name, _, covered in stored["progress"] if covered >= target} == streams:
                    break
                await asyncio.sleep(0.2)
            for table in ("entries", "holdings"):
                alone_rows = sorted(files.execute(f"SELECT * FROM {table}").fetchall())
                assert stored[table] == alone_rows, table
        finally:
            files.close()


async def rows(database: str) -> dict[str, list[tuple[Any, ...]]]:
    """The database's index rows, as the SQLite files hold them (no chain column)."""
    connection = await asyncpg.connect(database)
    try:
        columns = {
            "progress": "stream, start_block, covered_to",
            "entries": "stream, kind, key, value, block",
            "holdings": "stream, holder, key, block",
        }
        return {
            table: sorted(tuple(row) for row in await connection.fetch(f"SELECT {names} FROM {table}"))
            for table, names in columns.items()
        }
    finally:
        await connection.close()


async def test_the_examples_proxy_sends_requests_to_the_replicas_that_can_answer(
    worlds, tmp_path, database, redis_server
):
    """packaging/haproxy.cfg itself (HAProxy from Debian's packages), the replicas' addresses in
    place of the service names, in front of the two replicas: it answers as a replica alone does,
    and once one replica is killed, every request is still answered, by the other."""
    if shutil.which("haproxy") is None and not os.environ.get("CI"):
        pytest.skip("HAProxy is not installed (scripts/test installs Debian's haproxy)")
    built, folder, key = worlds
    inputs = every_input(built, folder)[:10]
    shared = {"INDEX_URL": database, "REDIS_URL": redis_server.url}
    with replicas(worlds, tmp_path, shared) as started:
        (_, alone), (first, a), (_, b) = started
        port = free_port()
        config = (ROOT / "packaging" / "haproxy.cfg").read_text().replace("bind :8000", f"bind 127.0.0.1:{port}")
        config = config.replace("replica-a:8000", f"127.0.0.1:{a}").replace("replica-b:8000", f"127.0.0.1:{b}")
        (tmp_path / "haproxy.cfg").write_text(config)
        proxy = subprocess.Popen(
            ["haproxy", "-f", str(tmp_path / "haproxy.cfg")], stderr=subprocess.DEVNULL, preexec_fn=as_child
        )
        try:
            async with aiohttp.ClientSession() as session:
                for _ in range(100):
                    with contextlib.suppress(aiohttp.ClientError):
                        async with session.get(f"http://127.0.0.1:{port}/readyz") as reply:
                            if reply.status == 200:
                                break
                    await asyncio.sleep(0.1)
            _, reference = await answers(alone, key, inputs)
            statuses, found = await answers(port, key, inputs)
            assert set(statuses) == {200}, statuses
            assert found == reference
            first.kill()
            for _ in range(5):
                statuses, found = await answers(port, key, inputs)
                assert set(statuses) == {200}, statuses
                assert found == reference
        finally:
            proxy.kill()
            proxy.wait()


def test_the_compose_example_is_the_deployment_tested_here():
    """packaging/compose.yaml (which no Docker engine runs here) sets what these tests set: two
    replicas on one PostgreSQL and one Redis, each setting a real one, every service with a health
    check, and a proxy sending requests only to replicas whose /readyz says ready."""
    compose = yaml.safe_load((ROOT / "packaging" / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"postgres", "redis", "replica-a", "replica-b", "proxy"}
    assert all("healthcheck" in service for service in services.values())
    settings = {field.metadata["env"] for field in dataclasses.fields(Settings)}
    for name in ("replica-a", "replica-b"):
        environment = services[name]["environment"]
        assert {"INDEX_URL", "REDIS_URL"} <= set(environment)
        assert all(variable in settings or re.fullmatch(r"RPC_URL_\d+", variable) for variable in environment)
        url = re.sub(r"\$\{[^}]*\}", "secret", environment["INDEX_URL"])
        assert resolve(argparse.Namespace(), {"INDEX_URL": url}).index_url == url
        assert services[name]["healthcheck"]["test"] == ["CMD", "/wallet-positions", "healthcheck"]
    proxy = (ROOT / "packaging" / "haproxy.cfg").read_text()
    assert "option httpchk GET /readyz" in proxy
    servers = {tuple(line.split()[1:]) for line in proxy.splitlines() if line.strip().startswith("server ")}
    assert servers == {("replica-a", "replica-a:8000", "check"), ("replica-b", "replica-b:8000", "check")}
