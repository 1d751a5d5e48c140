"""The connection layer (connections.py) on a real loopback listener: deadlines, the connection
cap and malformed HTTP, each with raw bytes no client library would send."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from aiohttp import web

import connections
import server
from config import Settings


@pytest.fixture
async def listen(keys_file, api_key, stand_ins):
    """Serve the app through connections.Site with the given limits; yields a connect helper."""
    runners = []

    async def start(header_timeout: float = 0.5, max_connections: int = 100, body_timeout: float = 0.5) -> int:
        app = server.create_app(Settings(keys_file=str(keys_file), body_timeout=body_timeout), stand_ins.registry())
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        runners.append(runner)
        site = connections.Site(runner, "127.0.0.1", 0, connections.Limits(header_timeout, max_connections))
        await site.start()
        return site.port

    yield start
    for runner in runners:
        await runner.cleanup()


async def exchange(port: int, data: bytes, within: float = 5.0) -> bytes:
    """Send `data`, then read until the server closes the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), within)
    writer.close()
    return answer


def status_and_body(answer: bytes) -> tuple[int, Any]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body) if body else None


async def test_headers_that_do_not_arrive_in_time_get_408_and_a_closed_connection(listen, caplog):
    caplog.set_level(logging.INFO)
    port = await listen(header_timeout=0.3)
    loop = asyncio.get_running_loop()
    started = loop.time()
    answer = await exchange(port, b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: appl")
    status, body = status_and_body(answer)
    assert status == 408 and body["errors"][0]["extensions"]["code"] == "REQUEST_TIMEOUT"
    assert 0.25 < loop.time() - started < 3
    silent = await exchange(port, b"")
    assert status_and_body(silent)[0] == 408, "a connection that sends nothing is closed too"
    assert any(getattr(r, "fields", {}).get("refused") == "HEADERS_TIMEOUT" for r in caplog.records)


async def test_many_half_sent_requests_are_all_closed_by_the_deadline(listen):
    """100 at once: below the listen backlog (128), which a loaded machine may not drain in time."""
    port = await listen(header_timeout=0.3, max_connections=300)
    answers = await asyncio.gather(*(exchange(port, b"POST /graphql HTTP/1.1\r\nHost: x\r\n") for _ in range(100)))
    assert {status_and_body(answer)[0] for answer in answers} == {408}


async def test_a_body_that_does_not_arrive_in_time_gets_408(listen, api_key):
    port = await listen(body_timeout=0.3)
    head = (
        f"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nx-api-key: {api_key}\r\n"
        "Content-Length: 100\r\n\r\n"
    ).encode()
    answer = await exchange(port, head + b'{"query": "{')
    status, body = status_and_body(answer)
    assert status == 408 and "did not arrive in 0.3 s" in body["errors"][0]["message"]
    assert b"Connection: close" in answer


async def test_the_next_request_on_a_kept_alive_connection_gets_its_own_header_deadline(listen):
    """The connection's timer was set by the first request; the second's deadline counts from its
    own first bytes, so the timer must move on instead of refusing early."""
    port = await listen(header_timeout=0.5)
    loop = asyncio.get_running_loop()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    length = int(
        next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    )
    await reader.readexactly(length)
    assert head.startswith(b"HTTP/1.1 200")
    await asyncio.sleep(0.3)
    started = loop.time()
    writer.write(b"POST /graphql HTTP/1.1\r\nHost: x\r\n")
    answer = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    assert status_and_body(answer)[0] == 408
    assert loop.time() - started > 0.45, "refused by the first request's deadline"


async def test_a_slow_but_steady_request_within_the_deadlines_is_served(listen, api_key):
    port = await listen(header_timeout=1.0, body_timeout=1.0)
    body = b'{"query": "{ __typename }"}'
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for part in (
        b"POST /graphql HTTP/1.1\r\nHost: x\r\n",
        f"x-api-key: {api_key}\r\n".encode(),
        b"Content-Type: application/json\r\nConnection: close\r\n",
        f"Content-Length: {len(body)}\r\n\r\n".encode(),
        body[:10],
        body[10:],
    ):
        writer.write(part)
        await asyncio.sleep(0.15)
    answer = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    assert status_and_body(answer) == (200, {"data": {"__typename": "Query"}})


async def test_connections_over_the_cap_get_503(listen):
    port = await listen(max_connections=3, header_timeout=5)
    held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
    await asyncio.sleep(0.05)
    status, body = status_and_body(await exchange(port, b""))
    assert status == 503 and body["errors"][0]["extensions"]["code"] == "TOO_MANY_CONNECTIONS"
    for _, writer in held:
        writer.close()
    await asyncio.sleep(0.1)
    answer = await exchange(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert status_and_body(answer)[0] == 200, "closed connections free their places"


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello" + b"A" * 131_072,
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n",
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: " + b"B" * 20_000 + b"\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64,
    ],
)
async def test_malformed_http_is_refused_quietly(listen, caplog, request_bytes):
    caplog.set_level(logging.DEBUG)
    port = await listen()
    answer = await exchange(port, request_bytes)
    assert b"AAAA" not in answer and b"BBBB" not in answer, "the request is not echoed"
    refusal = answer[answer.rindex(b"HTTP/1.") :]
    status, body = status_and_body(refusal)
    assert status == 400 and body["errors"][0]["extensions"]["code"] == "MALFORMED_HTTP"
    logged = [r for r in caplog.records if r.name.startswith(("aiohttp", "wallet_positions"))]
    assert not any(r.exc_info for r in logged), "no traceback"
    assert all(len(r.getMessage()) < 300 for r in logged)
    assert not any("AAAA" in r.getMessage() or "BBBB" in r.getMessage() for r in logged)
    assert any(getattr(r, "fields", {}).get("refused") == "MALFORMED_HTTP" for r in logged), "counted"
