"""Introspection, when enabled: the standard query and the tools built on it work, while the
introspection subtree keeps bounds of its own (it can walk the schema's graph without end)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from graphql import get_introspection_query

from limits import MAX_DEPTH
from tests.test_end_to_end import served
from tests.test_keys import cli
from tests.test_request_limits import request_error


async def test_the_standard_introspection_query_works_when_enabled(make_api):
    api = await make_api(enable_introspection=True)
    reply = await api.query(get_introspection_query(descriptions=True))
    assert reply.status == 200, reply.body
    types = {entry["name"] for entry in reply.body["data"]["__schema"]["types"]}
    assert {"Query", "PositionWarning", "MorphoWalletPositions"} <= types


async def test_introspection_stays_refused_when_disabled(api):
    request_error(await api.query(get_introspection_query()), 400, "INTROSPECTION_DISABLED")


@pytest.mark.parametrize(
    "query",
    [
        get_introspection_query(),
        get_introspection_query(
            descriptions=True,
            specified_by_url=True,
            directive_is_repeatable=True,
            schema_description=True,
            input_value_deprecation=True,
        ),
        '{ __type(name: "Query") { %s name %s } }' % ("ofType { " * 15, "}" * 15),
        "{ walletPositions(inputs: []) { data { __typename } } __schema { queryType { name } } }",
    ],
    ids=["standard", "every-option", "too-deep", "beside-a-field"],
)
async def test_with_introspection_off_the_first_error_says_so(api, query):
    """What gql, codegen and graphql-tools send: a client that shows the first error sees why
    and where the schema is, not a depth limit."""
    reply = await api.query(query)
    assert reply.status == 400, reply.body
    first = reply.body["errors"][0]
    assert first["extensions"]["code"] == "INTROSPECTION_DISABLED" and "/schema.graphql" in first["message"]
    if query == get_introspection_query():
        assert {error["extensions"]["code"] for error in reply.body["errors"]} == {"INTROSPECTION_DISABLED"}


@pytest.mark.parametrize(
    "query, fragment",
    [
        ('{ __type(name: "Query") { %s name %s } }' % ("ofType { " * 15, "}" * 15), "deeper than 15 levels"),
        ("{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }", "at most 3 list fields"),
    ],
)
async def test_introspection_has_bounds_of_its_own(make_api, query, fragment):
    api = await make_api(enable_introspection=True)
    assert fragment in request_error(await api.query(query), 400, "DEPTH_LIMIT_EXCEEDED")


async def test_ordinary_fields_beside_introspection_still_count_against_the_depth_limit(make_api):
    api = await make_api(enable_introspection=True)
    deep = (
        "{ __schema { queryType { name } } "
        + " { ".join(f"f{i}" for i in range(MAX_DEPTH + 1))
        + " }" * (MAX_DEPTH + 1)
    )
    codes = {error["extensions"]["code"] for error in (await api.query(deep)).body["errors"]}
    assert "DEPTH_LIMIT_EXCEEDED" in codes


def test_schemathesis_run_from_the_url_finds_no_server_error(tmp_path: Path):
    keys = tmp_path / "keys.env"
    key = cli("keys", "create", "--name", "schemathesis", keys_file=keys).stdout.strip()
    with served(
        tmp_path,
        "--keys-file",
        str(keys),
        "--enable-introspection",
        "1",
        "--rate-limit",
        "100000",
        "--webhook-hosts",
        "127.0.0.1",  # a generated watch's webhook can reach no host: 127.0.0.1 is loopback, refused
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    ) as (process, port, log):
        done = subprocess.run(
            [
                str(Path(sys.executable).with_name("schemathesis")),
                "run",
                f"http://127.0.0.1:{port}/graphql",
                "-H",
                f"x-api-key: {key}",
                "--max-examples",
                "100",
                "--seed",
                "1",
                "-c",
                "not_a_server_error",
            ],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stdout[-3000:]
        assert "700 passed" in done.stdout, (
            "100 generated operations for each of the five query and two mutation fields"
        )
        process.send_signal(signal.SIGTERM)
        process.wait(30)
    errors = [json.loads(line) for line in log.read_text().splitlines() if '"level": "error"' in line]
    assert errors == []
