"""The HTTP connection layer under aiohttp's request handling: what no middleware can see.

- A request's headers must arrive within `header_timeout` seconds of its first byte (or of the
  connection opening): otherwise 408 and the connection is closed, so half-sent requests cannot
  pile up. The body's deadline is the handler's (server.py), where the body is read.
- At most `max_connections` connections are open; one more is answered 503 and closed.
- A request the HTTP parser cannot read is answered with a JSON 400 that echoes none of it,
  logged as one bounded line (no traceback, no request bytes) and counted in the access log.

`Site` is aiohttp's TCPSite with this handler; `server.serve` listens through it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestHandler

log = logging.getLogger("wallet_positions.server")
access_log = logging.getLogger("wallet_positions.access")

KEEPALIVE_TIMEOUT = 75.0


class Limits:
    """The connection limits, and the count of open connections they are checked against."""

    def __init__(self, header_timeout: float, max_connections: int) -> None:
        self.header_timeout = header_timeout
        self.max_connections = max_connections
        self.open = 0


def raw_response(status: int, reason: str, message: str, code: str) -> bytes:
    """A complete JSON error answer for a connection no request handler owns."""
    body = json.dumps({"errors": [{"message": message, "extensions": {"code": code}}]}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


def log_refusal(status: int, refused: str) -> None:
    """An access line for a request refused before any handler ran."""
    access_log.info(
        "request",
        extra={"fields": {"method": "-", "path": "-", "status": status, "duration_ms": 0.0, "refused": refused}},
    )


class Handler(RequestHandler):
    """aiohttp's handler with a header deadline, a connection cap and quiet parser errors.

    The deadline is a time, not a timer per request: a request's first bytes set it and its parsed
    headers clear it; and the one timer of the connection, when it fires, refuses the request or moves
    on to the deadline set since. At many requests per second a keep-alive connection so pays for
    a timer once per `header_timeout`, not once per request."""

    __slots__ = ("_counted", "_header_timer", "_headers_due", "_limits")

    def __init__(self, manager: web.Server, limits: Limits, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._limits = limits
        self._counted = False
        self._headers_due: float | None = None
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if self._limits.open >= self._limits.max_connections:
            assert isinstance(transport, asyncio.Transport)
            transport.write(
                raw_response(
                    503, "Service Unavailable", "Too many open connections; try again shortly.", "TOO_MANY_CONNECTIONS"
                )
            )
            transport.close()
            log_refusal(503, "TOO_MANY_CONNECTIONS")
            return
        self._limits.open += 1
        self._counted = True
        super().connection_made(transport)
        self._expect_headers()

    def connection_lost(self, exc: BaseException | None) -> None:
        if not self._counted:
            return
        self._counted = False
        self._limits.open -= 1
        self._headers_due = None
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if not self._request_in_progress and self._headers_due is None:
            self._expect_headers()
        parsed = self._request_count
        super().data_received(data)
        if self._request_count != parsed:
            self._headers_due = None

    def handle_error(
        self, request: Any, status: int = 500, exc: BaseException | None = None, message: str | None = None
    ) -> web.StreamResponse:
        if not isinstance(exc, HttpProcessingError):
            return super().handle_error(request, status, exc, message)
        log.warning("malformed HTTP request refused (%s, status %d)", type(exc).__name__, exc.code)
        log_refusal(exc.code, "MALFORMED_HTTP")
        response = web.Response(
            status=exc.code,
            content_type="application/json",
            body=json.dumps(
                {
                    "errors": [
                        {
                            "message": "The HTTP request is malformed and cannot be read.",
                            "extensions": {"code": "MALFORMED_HTTP"},
                        }
                    ]
                }
            ).encode(),
        )
        response.force_close()
        return response

    def _expect_headers(self) -> None:
        self._headers_due = self._loop.time() + self._limits.header_timeout
        if self._header_timer is None:
            self._header_timer = self._loop.call_at(self._headers_due, self._headers_late)

    def _headers_late(self) -> None:
        self._header_timer = None
        due = self._headers_due
        if due is None or self._request_in_progress or self.transport is None:
            return
        if self._loop.time() < due:
            self._header_timer = self._loop.call_at(due, self._headers_late)
            return
        self.transport.write(
            raw_response(
                408,
                "Request Timeout",
                f"The request's headers did not arrive in {self._limits.header_timeout:g} s.",
                "REQUEST_TIMEOUT",
            )
        )
        log_refusal(408, "HEADERS_TIMEOUT")
        self.force_close()


class Site(web.TCPSite):
    """A TCP site whose connections get `Handler`."""

    def __init__(self, runner: web.AppRunner, host: str, port: int, limits: Limits) -> None:
        super().__init__(runner, host, port)
        self._limits = limits

    async def start(self) -> None:
        await web.BaseSite.start(self)
        loop = asyncio.get_running_loop()
        server = self._runner.server
        assert server is not None
        self._server = await loop.create_server(
            lambda: Handler(server, self._limits, loop=loop, access_log=None, keepalive_timeout=KEEPALIVE_TIMEOUT),
            self._host,
            self._port,
            backlog=self._backlog,
        )
        self._bound_port = self._server.sockets[0].getsockname()[1]
