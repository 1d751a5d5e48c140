"""The access line written out directly (logs.access_line) is the line JsonFormatter makes of
the same record, byte for byte."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

import logs
from tests.conftest import examples

CODES = st.sampled_from(["OK", "VALIDATION_ERROR", "TIMEOUT", "NETWORK_ERROR"])


@settings(max_examples=examples(200), deadline=None)
@given(
    created=st.floats(0, 4e9),
    method=st.text(max_size=12),
    path=st.text(max_size=40),
    status=st.integers(100, 599),
    duration=st.floats(0, 1e6).map(lambda d: round(d, 3)),
    key_id=st.none() | st.text("0123456789abcdef", min_size=12, max_size=12),
    inputs=st.integers(0, 5),
    outcomes=st.lists(CODES, max_size=5),
    rpc=st.integers(0, 10**6),
    refused=st.none() | st.text(max_size=20),
)
def test_the_access_line_is_what_the_formatter_makes(
    created, method, path, status, duration, key_id, inputs, outcomes, rpc, refused
):
    fields = {
        "method": method,
        "path": path,
        "status": status,
        "duration_ms": duration,
        "key_id": key_id,
        "inputs": inputs,
        "outcomes": outcomes,
        "rpc_requests": rpc,
        "rpc_subcalls": 2 * rpc,
    }
    if refused is not None:
        fields["refused"] = refused
    record = logging.LogRecord("wallet_positions.access", logging.INFO, __file__, 0, "request", (), None)
    record.created, record.fields = created, fields
    expected = logs.JsonFormatter().format(record)
    assert logs.access_line(created, fields) == expected
    assert json.loads(expected)["path"] == path


@settings(max_examples=examples(500), deadline=None)
@given(st.floats(0, 4e9) | st.integers(0, 4 * 10**15).map(lambda micros: micros / 1e6))
def test_the_timestamp_is_datetimes_isoformat(created):
    assert logs._timestamp(created) == datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")


def test_the_access_record_from_the_template_is_what_logging_makes():
    """Every attribute a handler or formatter may read, as LogRecord's own constructor sets it."""
    fields = {
        "method": "POST",
        "path": "/graphql",
        "status": 200,
        "duration_ms": 1.5,
        "key_id": None,
        "inputs": 1,
        "outcomes": ["OK"],
        "rpc_requests": 0,
        "rpc_subcalls": 0,
    }
    made = logs._access_record(fields)
    reference = logging.LogRecord("wallet_positions.access", logging.INFO, logs.__file__, 0, "request", (), None)
    times = {"created", "msecs", "relativeCreated"}
    assert {k: v for k, v in vars(made).items() if k not in times | {"fields", "line"}} == {
        k: v for k, v in vars(reference).items() if k not in times
    }
    assert 0 <= reference.created - made.created < 5
    assert made.msecs == int((made.created - int(made.created)) * 1000)
    assert abs((reference.relativeCreated - made.relativeCreated) - (reference.created - made.created) * 1000) < 1e-3
    assert made.getMessage() == "request" and made.line == logs.access_line(made.created, fields)
