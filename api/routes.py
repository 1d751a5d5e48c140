"""The app's routes: `/graphql` (method, auth, rate limit, then the operation; a browser's GET gets
the query page), and the answers that need no key: `/healthz`, `/readyz`, `/schema.graphql`, and
`/metrics` pointing to the metrics port."""

from __future__ import annotations

import asyncio

from aiohttp import web
from graphql import FormattedExecutionResult

import auth
import graphql_http
import schema
from api.responses import GRAPHQL_RESPONSE, JSON, bytes_response, error_body, error_bytes, json_response, negotiate
from api.state import (
    ACCESS,
    ANSWERS,
    CHAINS,
    INDEXES,
    KEYS,
    LIMITER,
    METRICS,
    PREPARER,
    QUERY_PAGE,
    READINESS,
    REGISTRY,
    SCHEMA,
    SETTINGS,
    SHARED_ANSWERS,
    WATCHES,
)
from limits import MAX_BODY_BYTES, LimiterUnavailable, RateDecision
from resolvers import portfolio
from resolvers.inputs import RequestContext

UNAUTHENTICATED = {"WWW-Authenticate": "Bearer"}
METRICS_ELSEWHERE = "Metrics are served on their own port, set by --metrics-port (METRICS_PORT), not on the API's."


async def graphql_endpoint(request: web.Request) -> web.Response:
    """Method, auth and rate limit, then the operation. A browser's GET gets the query page; any
    other non-POST request without credentials is simply 405, and with credentials it is
    authenticated and counted like any other."""
    if request.method == "GET" and "text/html" in request.headers.get("Accept", ""):
        page, headers = request.app[QUERY_PAGE]
        return web.Response(body=page, content_type="text/html", charset="utf-8", headers=headers)
    if request.method != "POST" and not auth.has_credentials(request.headers):
        return _not_post({})
    media = negotiate(request.headers.get("Accept"))
    admitted = await admit(request, media)
    if isinstance(admitted, web.Response):
        return admitted
    key_id, headers = admitted
    if request.method != "POST":
        return _not_post(headers)
    try:
        operation = await _prepare(request, media)
        if (cost := _cost(request, operation)) > 1:
            # The door spent one request: the rest of a portfolio's cost, all of it or none.
            try:
                decision = await request.app[LIMITER].decide(key_id, cost - 1)
            except LimiterUnavailable as exc:
                return _limit_unavailable(exc, media)
            headers = decision.headers()
            if not decision.allowed:
                message = (
                    f"Rate limit exceeded: this portfolio costs {cost} requests, one per chain it asks, and "
                    f"{decision.remaining + 1} remained. Please try again later, or ask fewer chains."
                )
                return _rate_limited(request, decision, media, headers, message)
        payload = await _run(request, operation)
    except graphql_http.RequestError as exc:
        response = json_response(exc.payload, exc.status, media or JSON, headers)
        if exc.status == 408:
            await _send_and_close(request, response)
        return response
    assert media is not None, "_prepare refuses a request without an acceptable media type"
    return json_response(payload, 200, media, headers)


async def admit(request: web.Request, media: str | None) -> web.Response | tuple[str, dict[str, str]]:
    """The door every keyed route shares: the key (401 without a valid one), then one request of
    its rate limit (429, or 503 where the limit cannot be decided); the key's id and the rate-limit
    headers of the answer."""
    try:
        key_id = request[ACCESS].key_id = request.app[KEYS].identify(request.headers)
    except auth.AuthError as exc:
        metrics = request.app[METRICS]
        metrics.child(metrics.auth_failures, exc.reason).inc()
        return bytes_response(error_bytes(exc.message, "UNAUTHENTICATED"), 401, media or JSON, UNAUTHENTICATED)
    try:
        decision = await request.app[LIMITER].decide(key_id)
    except LimiterUnavailable as exc:
        return _limit_unavailable(exc, media)
    headers = decision.headers()
    if not decision.allowed:
        return _rate_limited(request, decision, media, headers, "Rate limit exceeded. Please try again later.")
    return key_id, headers


def _limit_unavailable(exc: LimiterUnavailable, media: str | None) -> web.Response:
    return bytes_response(
        error_bytes(
            "The rate limit cannot be checked right now. Please try again later.",
            "RATE_LIMIT_UNAVAILABLE",
            ("retryAfter", exc.retry_after),
        ),
        503,
        media or JSON,
        {"Retry-After": str(exc.retry_after)},
    )


def _rate_limited(
    request: web.Request, decision: RateDecision, media: str | None, headers: dict[str, str], message: str
) -> web.Response:
    request.app[METRICS].rate_limited.inc()
    headers["Retry-After"] = str(decision.reset)
    return bytes_response(
        error_bytes(message, "RATE_LIMITED", ("retryAfter", decision.reset)), 429, media or JSON, headers
    )


def _cost(request: web.Request, operation: graphql_http.Operation) -> int:
    """Requests of the rate limit the operation costs: one, or a portfolio's (portfolio.cost)."""
    asked = operation.chains_asked
    if not asked:
        return 1
    _, defaults = portfolio.served(request.app[REGISTRY], request.app[CHAINS])
    return sum(portfolio.cost(len(defaults) if chains is None else chains) for chains in asked)


async def _send_and_close(request: web.Request, response: web.Response) -> None:
    """Send the answer now and close the connection: aiohttp would otherwise first read (linger
    over) the rest of a body that is not arriving."""
    response.force_close()
    await response.prepare(request)
    await response.write_eof()
    request.protocol.force_close()


def _not_post(headers: dict[str, str]) -> web.Response:
    return json_response(
        error_body('Use POST with a JSON body: {"query": "..."}.', "METHOD_NOT_ALLOWED"),
        405,
        headers={"Allow": "POST", **headers},
    )


async def _prepare(request: web.Request, media: str | None) -> graphql_http.Operation:
    """The request's operation, read and checked (graphql_http.Preparer)."""
    if media is None:
        raise graphql_http.RequestError.single(
            406, f"Acceptable response types are {GRAPHQL_RESPONSE} and {JSON}.", "NOT_ACCEPTABLE"
        )
    if request.content_type != JSON:
        raise graphql_http.RequestError.single(
            415, "Send the request body as Content-Type: application/json.", "UNSUPPORTED_MEDIA_TYPE"
        )
    if (request.content_length or 0) > MAX_BODY_BYTES:
        raise _too_large()
    settings = request.app[SETTINGS]
    try:
        async with asyncio.timeout(settings.body_timeout):
            body = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise _too_large() from None
    except TimeoutError:
        raise graphql_http.RequestError.single(
            408, f"The request body did not arrive in {settings.body_timeout:g} s.", "REQUEST_TIMEOUT"
        ) from None
    operation = await request.app[PREPARER].prepare(body, settings.enable_introspection)
    request[ACCESS].inputs = operation.inputs
    return operation


async def _run(request: web.Request, operation: graphql_http.Operation) -> FormattedExecutionResult:
    settings, record = request.app[SETTINGS], request[ACCESS]
    deadline = asyncio.get_running_loop().time() + settings.input_timeout
    chains = request.app[CHAINS].request(deadline)
    context = RequestContext(
        request.app[REGISTRY],
        settings.input_timeout,
        chains,
        request.app[INDEXES],
        request.app[ANSWERS],
        request.app[SHARED_ANSWERS],
        outcomes=record.outcomes,
        owner=request.app[KEYS].name(record.key_id or ""),
        watches=request.app[WATCHES],
    )
    try:
        return await graphql_http.run(operation, request.app[SCHEMA], context)
    finally:
        record.rpc_requests, record.rpc_subcalls = chains.stats.requests, chains.stats.subcalls


def _too_large() -> graphql_http.RequestError:
    return graphql_http.RequestError.single(
        413, f"The request body exceeds the limit of {MAX_BODY_BYTES} bytes.", "PAYLOAD_TOO_LARGE", limit=MAX_BODY_BYTES
    )


async def schema_sdl(_request: web.Request) -> web.Response:
    return web.Response(text=schema.SDL, content_type="text/plain")


async def healthz(_request: web.Request) -> web.Response:
    return json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    """Ready once started and until SIGTERM, while the event index can be read (a shared one's
    database reachable: every replica reads what the index holds, none has to scan it first)."""
    reason = request.app[READINESS].reason or await request.app[INDEXES].stores.unreachable()
    if reason is None:
        return json_response({"status": "ready"})
    return json_response({"status": "not ready", "reason": reason}, 503)


async def metrics_elsewhere(_request: web.Request) -> web.Response:
    """A scraper pointed at the API's port is told where the metrics are (a bare 404 said nothing)."""
    return json_response(error_body(METRICS_ELSEWHERE, "NOT_FOUND"), 404)
