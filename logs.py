"""The service's log lines: JSON objects, one per line, on stderr, with anything shaped like an API
key redacted; and the access line of each request, written out directly because it is on every
request's path (bench/overhead.py guards its cost)."""

from __future__ import annotations

import functools
import json
import logging
import math
import sys
import time
from datetime import UTC, datetime
from json.encoder import encode_basestring_ascii
from typing import Any

from aiohttp import web

import auth
from metrics import Outcome

access_log = logging.getLogger("wallet_positions.access")


class AccessRecord:
    """What the handler learns about a request that belongs in its access-log line and metrics."""

    __slots__ = ("inputs", "key_id", "outcomes", "rpc_requests", "rpc_subcalls")

    def __init__(self) -> None:
        self.key_id: str | None = None
        self.inputs = 0
        self.outcomes: list[Outcome] = []
        self.rpc_requests = 0
        self.rpc_subcalls = 0


def log_access(
    request: web.Request, record: AccessRecord, status: int, started: float, refused: str | None = None
) -> None:
    """One line per request, made cheaply: only the method and the path come from the client, so
    only they are redacted; the JSON line is written out directly (access_line), once; and the
    record is filled from a template and handled without Logger.info, whose search for the caller's file and line
    (which no line shows) costs as much as the rest."""
    if not access_log.isEnabledFor(logging.INFO):
        return
    fields = {
        "method": auth.redact(request.method),
        "path": auth.redact(request.path),
        "status": status,
        "duration_ms": round((time.perf_counter() - started) * 1000, 3),
        "key_id": record.key_id,
        "inputs": record.inputs,
        "outcomes": [outcome.code for outcome in record.outcomes],
        "rpc_requests": record.rpc_requests,
        "rpc_subcalls": record.rpc_subcalls,
    }
    if refused is not None:
        fields["refused"] = refused
    access_log.handle(_access_record(fields))


def _access_record(fields: dict[str, Any]) -> logging.LogRecord:
    """A LogRecord filled from a template made once: what LogRecord's constructor works out per
    line (level name, file and module names, thread and process) is the same for every access
    line, and working it out was a fifth of a rejection's cost."""
    entry = logging.LogRecord.__new__(logging.LogRecord)
    entry.__dict__.update(_ACCESS_TEMPLATE)
    entry.created = created = time.time()
    entry.msecs = int((created - int(created)) * 1000) + 0.0
    entry.relativeCreated = _ACCESS_TEMPLATE["relativeCreated"] + (created - _ACCESS_TEMPLATE["created"]) * 1000
    entry.fields = fields
    entry.line = access_line(created, fields)
    return entry


def _access_template() -> dict[str, Any]:
    """The attributes of an access record as LogRecord sets them (made again when configure_logging
    changes what records hold)."""
    return vars(logging.LogRecord(access_log.name, logging.INFO, __file__, 0, "request", (), None))


_ACCESS_TEMPLATE = _access_template()


def access_line(created: float, fields: dict[str, Any]) -> str:
    """The JSON line JsonFormatter would make of an access record, written out directly (a third
    of the cost); tests/test_logging.py holds the two equal."""
    text = encode_basestring_ascii
    key_id = "null" if fields["key_id"] is None else text(fields["key_id"])
    refused = f', "refused": {text(fields["refused"])}' if "refused" in fields else ""
    return (
        f'{{"time": "{_timestamp(created)}", "level": "info", "logger": "{access_log.name}", '
        f'"message": "request", "method": {text(fields["method"])}, "path": {text(fields["path"])}, '
        f'"status": {fields["status"]}, "duration_ms": {fields["duration_ms"]!r}, "key_id": {key_id}, '
        f'"inputs": {fields["inputs"]}, "outcomes": [{", ".join(map(text, fields["outcomes"]))}], '
        f'"rpc_requests": {fields["rpc_requests"]}, "rpc_subcalls": {fields["rpc_subcalls"]}{refused}}}'
    )


class JsonFormatter(logging.Formatter):
    """One JSON object per line. Anything shaped like an API key is redacted from the finished
    line, so a key can reach no log even through a library's message (aiohttp logs the raw
    header line of a request it cannot parse). An access record comes with its `line` made
    (access_line), its client-supplied values redacted already."""

    def format(self, record: logging.LogRecord) -> str:
        line: str | None = getattr(record, "line", None)
        if line is not None:
            return line
        entry = {
            "time": _timestamp(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            **getattr(record, "fields", {}),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return auth.redact(LOG_ENCODER.encode(entry))


LOG_ENCODER = json.JSONEncoder(default=str)
"""Made once: json.dumps with `default` builds a new encoder for every line (half of its cost)."""


def _timestamp(created: float) -> str:
    """ISO 8601 in UTC to the millisecond, as datetime's isoformat gives it (microseconds rounded
    half to even, then cut to milliseconds); the part up to the second is formatted once a second."""
    second = math.floor(created)
    micros = round((created - second) * 1_000_000)
    if micros == 1_000_000:
        second, micros = second + 1, 0
    return f"{_second(second)}.{micros // 1000:03d}+00:00"


@functools.lru_cache(maxsize=4)
def _second(second: int) -> str:
    return datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")


def configure_logging() -> None:
    """JSON lines on stderr. LogRecords skip the thread and process names, which no line shows."""
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    _ACCESS_TEMPLATE.update(_access_template())
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
