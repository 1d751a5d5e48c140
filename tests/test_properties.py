"""Property tests: whatever body, document or header value arrives, never a 500, always JSON.

The app runs in a background thread on a loopback port with a quota high enough that the rate
limit never interferes; examples are sent with the standard library's HTTP client.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp import web
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import auth
import server
from config import Settings
from tests.conftest import WALLET, examples
from tests.stand_ins import StandIns


@dataclass
class Live:
    port: int
    key: str

    def send(self, body: bytes, headers: dict[str, bytes] | None = None) -> tuple[int, Any]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.putrequest("POST", "/graphql")
            sent = {"Content-Type": b"application/json", "x-api-key": self.key.encode()}
            sent.update(headers or {})
            for name, value in sent.items():
                connection.putheader(name, value)
            connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    keys = tmp_path_factory.mktemp("keys") / "keys.env"
    key = auth.create_key(keys, "properties")[0]
    app = server.create_app(Settings(keys_file=str(keys), rate_limit=10**9, input_timeout=2), StandIns().registry())
    runner = web.AppRunner(app, access_log=None)
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", 0).start())
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(30)
    yield Live(runner.addresses[0][1], key)
    asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(30)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(30)


def assert_well_formed(status: int, raw: bytes) -> None:
    assert status != 500, raw
    body = json.loads(raw)
    assert isinstance(body, dict) and ("errors" in body or "data" in body), body
    if status >= 400:
        assert "data" not in body and body["errors"][0]["message"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)

TOKENS = [
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ":",
    ",",
    "...",
    "on",
    "query",
    "mutation",
    "fragment",
    "F",
    "Q",
    "$v",
    "$inputs",
    "walletPositions",
    "inputs",
    "data",
    "errors",
    "protocol",
    "chainId",
    "walletAddress",
    "error",
    "code",
    "message",
    "retryable",
    "MorphoWalletPositions",
    "vaultV2Positions",
    "vaultName",
    "apy",
    "asset",
    "symbol",
    "__typename",
    "__schema",
    "types",
    "name",
    '"morpho"',
    '"aave"',
    f'"{WALLET}"',
    '"0x12"',
    "1",
    "8453",
    "-1",
    "2147483648",
    "1.5",
    "true",
    "null",
    "[PositionInput!]!",
    "PositionInput",
    "Int",
    "@skip(if: true)",
    "@include(if: false)",
    "#",
    "\n",
    '"""',
    "\\u0000",
    "a:",
    "b:",
]

documents = st.one_of(
    st.lists(st.sampled_from(TOKENS), max_size=60).map(" ".join),
    st.text(max_size=200),
)

variables = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {
            "inputs": st.lists(
                st.fixed_dictionaries(
                    {
                        "protocol": st.sampled_from(["morpho", "slow", "buggy", "netfail", "x", ""])
                        | st.text(max_size=5),
                        "chainId": st.integers(-(2**33), 2**33) | st.sampled_from([1, 8453]) | json_values,
                        "walletAddress": st.sampled_from([WALLET, "0x"]) | st.text(max_size=50) | json_values,
                    }
                ),
                max_size=7,
            )
            | json_values
        }
    ),
)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.one_of(json_values.map(lambda v: json.dumps(v).encode()), st.binary(max_size=300)))
def test_arbitrary_bodies_never_500(live, body):
    assert_well_formed(*live.send(body))


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=documents, variables=variables, operation=st.none() | st.sampled_from(["Q", "F", ""]) | json_values)
def test_arbitrary_graphql_documents_never_500(live, query, variables, operation):
    payload = {"query": query, "variables": variables, "operationName": operation}
    assert_well_formed(*live.send(json.dumps(payload).encode()))


header_values = st.binary(max_size=120).map(
    lambda raw: bytes(b for b in raw if b in (0x09, 0x20) or 0x21 <= b <= 0x7E or b >= 0x80)
)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    api_key=header_values,
    authorization=st.none() | header_values,
    prefix=st.sampled_from([b"", b"Bearer ", b"bearer  ", b"Basic "]),
    accept=st.none() | header_values,
    content_type=st.none() | header_values,
)
def test_arbitrary_header_values_never_500(live, api_key, authorization, prefix, accept, content_type):
    headers = {"x-api-key": api_key}
    if authorization is not None:
        headers["Authorization"] = prefix + authorization
    if accept is not None:
        headers["Accept"] = accept
    if content_type is not None:
        headers["Content-Type"] = content_type
    status, raw = live.send(json.dumps({"query": "{ __typename }"}).encode(), headers)
    assert_well_formed(status, raw)
