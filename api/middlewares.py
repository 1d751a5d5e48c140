"""The middlewares, one per concern, in the order create_app lists them (outermost first): the
access line and the metrics, the count of requests in flight, CORS, and JSON errors. A request
thus never gets an HTML page or a traceback, and is logged with the key's id only, never the key."""

from __future__ import annotations

import asyncio
import logging
import time

from aiohttp import web
from aiohttp.typedefs import Handler

import auth
import logs
from api.responses import error_body, json_response
from api.state import ACCESS, CORS, INFLIGHT, METRICS, REGISTRY
from metrics import HTTP_METHODS

log = logging.getLogger("wallet_positions.server")

STATUS_CODES = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 413: "PAYLOAD_TOO_LARGE"}
CORS_EXPOSED = "RateLimit, RateLimit-Policy, Retry-After"
CORS_PREFLIGHT = {
    "Access-Control-Allow-Methods": "GET, POST",
    "Access-Control-Allow-Headers": "Content-Type, Accept, X-API-Key, Authorization",
    "Access-Control-Max-Age": "600",
}
ORIGIN_NOT_ALLOWED = (
    "A browser page of this origin may not call the API: the server's CORS_ORIGINS does not list it "
    "(docs/operations.md)."
)


@web.middleware
async def record_access(request: web.Request, handler: Handler) -> web.StreamResponse:
    """One access line and the metrics of every request, from the same record, so the two cannot
    disagree; a request cut off by shutdown counts as 503."""
    started = time.perf_counter()
    status, refused = 500, None
    record = request[ACCESS] = logs.AccessRecord()
    try:
        response = await handler(request)
        status = response.status
    except asyncio.CancelledError:
        status, refused = 503, "SHUTDOWN"
        raise
    finally:
        _observe(request, record, status, started)
        logs.log_access(request, record, status, started, refused)
    return response


@web.middleware
async def count_in_flight(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Counted while handled (InFlight), so that shutdown waits for the request to finish."""
    inflight = request.app[INFLIGHT]
    inflight.enter()
    try:
        return await handler(request)
    finally:
        inflight.leave()


@web.middleware
async def cors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A listed origin's preflight is answered here and its answers carry the headers that let its
    page read them; another origin's preflight is refused 403 (no cookies are used: keys travel in
    headers, so credentials are never allowed)."""
    origin = _allowed_origin(request)
    preflight = request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers
    if preflight and origin is not None:
        response: web.StreamResponse = web.Response(status=204, headers=CORS_PREFLIGHT)
    elif preflight and "Origin" in request.headers:
        return json_response(error_body(ORIGIN_NOT_ALLOWED, "ORIGIN_NOT_ALLOWED"), 403)
    else:
        response = await handler(request)
    if origin is not None:
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Access-Control-Expose-Headers"] = CORS_EXPOSED
        response.headers.add("Vary", "Origin")
    return response


@web.middleware
async def json_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Whatever goes wrong is answered in JSON: aiohttp's HTTP errors by their status, anything
    unexpected as a logged 500."""
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        headers = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else None
        return json_response(
            error_body(exc.reason, STATUS_CODES.get(exc.status, f"HTTP_{exc.status}")), exc.status, headers=headers
        )
    except Exception:
        log.exception("unhandled error on %s %s", auth.redact(request.method), auth.redact(request.path))
        return json_response(error_body("Internal server error; it has been logged.", "INTERNAL_SERVER_ERROR"), 500)


def _allowed_origin(request: web.Request) -> str | None:
    """The request's Origin when CORS_ORIGINS lets it call the API (None when off, or another)."""
    allowed = request.app[CORS]
    if not allowed:
        return None
    origin = request.headers.get("Origin")
    if origin is None or ("*" not in allowed and origin not in allowed):
        return None
    return origin


def _observe(request: web.Request, record: logs.AccessRecord, status: int, started: float) -> None:
    """The request in the metrics, every label bounded: the route is the app's own path or
    "other", the method a standard one or "other"; an input's protocol and chain are labels
    only where the registry serves them."""
    app = request.app
    metrics = app[METRICS]
    route = request.match_info.route.resource
    path = route.canonical if route is not None else "other"
    method = request.method if request.method in HTTP_METHODS else "other"
    metrics.child(metrics.http_requests, path, method, str(status)).inc()
    metrics.child(metrics.http_duration, path, method).observe(time.perf_counter() - started)
    registry = app[REGISTRY]
    for outcome in record.outcomes:
        protocol = registry.get(outcome.protocol)
        chain = str(outcome.chain_id) if protocol is not None and outcome.chain_id in protocol.chains else "other"
        metrics.child(metrics.inputs, outcome.field, protocol.name if protocol else "other", chain, outcome.code).inc()
