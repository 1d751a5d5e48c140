"""The wallet positions service: aiohttp app factory and command-line entry.

    python server.py                          serve (see --help for every setting)
    python server.py keys create --name NAME  print a new API key on stdout, nothing else
    python server.py keys rotate NAME         the same, revoking the active key of that name (if any)
    python server.py keys list                id, name, created, revoked of every key
    python server.py keys revoke ID           revoke a key; running servers notice within 2 s
    python server.py healthcheck              exit 0 if the server on this machine answers /healthz

A request flows one way: access log and metrics -> JSON errors -> auth -> rate limit -> request limits ->
GraphQL validation -> resolvers (schema.py) -> protocol adapters (protocols.py).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import gc
import hashlib
import json
import logging
import multiprocessing
import os
import re
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from aiohttp import web
from graphql import FormattedExecutionResult, GraphQLSchema

import addresses
import auth
import cli
import connections
import graphql_http
import logs
import protocols
import schema
from chain import ChainConfig, Chains
from chain.event_index import Indexes
from chain.rpc import RpcUrlError, chains_set_in, rpc_urls_from_env
from config import SettingError, Settings, resolve
from immutable_cache import ImmutableCache
from limits import MAX_BODY_BYTES, Limiter, LimiterUnavailable, RateLimiter
from metrics import HTTP_METHODS, Metrics, metrics_app
from protocols import Protocol, Registry

log = logging.getLogger("wallet_positions.server")

SETTINGS = web.AppKey("settings", Settings)
KEYS = web.AppKey("keys", auth.KeyStore)
LIMITER = web.AppKey("limiter", Limiter)
METRICS = web.AppKey("metrics", Metrics)
SCHEMA = web.AppKey("schema", GraphQLSchema)
REGISTRY = web.AppKey("registry", Mapping[str, Protocol])
CHAINS = web.AppKey("chains", Chains)
INDEXES = web.AppKey("indexes", Indexes)
ANSWERS = web.AppKey("answers", ImmutableCache)
"""Answers per input and block (schema.py), bounded by ANSWER_CACHE_BYTES."""
ANSWER_CACHE_ENTRIES = 100_000
"""Answers kept at most, whatever their bytes (the bytes bound is the one that matters)."""
PREPARER = web.AppKey("preparer", graphql_http.Preparer)
QUERY_PAGE_PATH = Path(__file__).with_name("query.html")
"""The in-browser query page: one file, its script and style inline, nothing from another host."""
QUERY_PAGE = web.AppKey("query_page", tuple[bytes, dict[str, str]])
CORS = web.AppKey("cors", frozenset[str])
"""The browser origins CORS_ORIGINS lists ("*" for any); empty when off."""
CORS_EXPOSED = "RateLimit, RateLimit-Policy, Retry-After"
CORS_PREFLIGHT = {
    "Access-Control-Allow-Methods": "GET, POST",
    "Access-Control-Allow-Headers": "Content-Type, Accept, X-API-Key, Authorization",
    "Access-Control-Max-Age": "600",
}


ACCESS = web.RequestKey("access", logs.AccessRecord)


class InFlight:
    """Counts requests being handled, so that shutdown can wait for the last one to finish.

    aiohttp's own graceful shutdown stops reading from open connections, which would strand a
    request whose body is still arriving; waiting here first lets such a request complete.
    """

    def __init__(self) -> None:
        self.count = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def enter(self) -> None:
        self.count += 1
        self._idle.clear()

    def leave(self) -> None:
        self.count -= 1
        if self.count == 0:
            self._idle.set()

    async def idle(self) -> None:
        await self._idle.wait()


INFLIGHT = web.AppKey("inflight", InFlight)


class Readiness:
    """Whether the service can answer, for `GET /readyz`: not before the app has started (its keys
    are loaded before that, in create_app), and not once it drains after SIGTERM, so a load
    balancer stops sending it requests while those in flight finish."""

    def __init__(self) -> None:
        self.started = False
        self.draining = False

    @property
    def reason(self) -> str | None:
        if not self.started:
            return "starting"
        return "draining after SIGTERM" if self.draining else None


READINESS = web.AppKey("readiness", Readiness)

JSON = "application/json"
GRAPHQL_RESPONSE = "application/graphql-response+json"
STATUS_CODES = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 413: "PAYLOAD_TOO_LARGE"}
ORIGIN_NOT_ALLOWED = (
    "A browser page of this origin may not call the API: the server's CORS_ORIGINS does not list it "
    "(docs/operations.md)."
)
METRICS_ELSEWHERE = "Metrics are served on their own port, set by --metrics-port (METRICS_PORT), not on the API's."


def error_body(message: str, code: str, **extensions: Any) -> dict[str, Any]:
    return {"errors": [{"message": message, "extensions": {"code": code, **extensions}}]}


def json_response(
    payload: Mapping[str, Any], status: int = 200, media: str = JSON, headers: dict[str, str] | None = None
) -> web.Response:
    return bytes_response(json.dumps(payload).encode(), status, media, headers)


def bytes_response(body: bytes, status: int, media: str, headers: dict[str, str] | None = None) -> web.Response:
    """The Content-Type header is set whole: aiohttp's content_type and charset setters each parse
    and rebuild it."""
    return web.Response(status=status, body=body, headers={**(headers or {}), "Content-Type": MEDIA_TYPES[media]})


UNAUTHENTICATED = {"WWW-Authenticate": "Bearer"}
MEDIA_TYPES = {media: f"{media}; charset=utf-8" for media in (JSON, GRAPHQL_RESPONSE)}


@functools.lru_cache(maxsize=256)
def error_bytes(message: str, code: str, *extensions: tuple[str, Any]) -> bytes:
    """The body of a refusal, encoded once: refusals repeat (a missing key, the rate limit)."""
    return json.dumps(error_body(message, code, **dict(extensions))).encode()


def negotiate(accept: str | None) -> str | None:
    """The response media type for an Accept header, or None when it admits neither JSON type.

    Highest quality wins, then an explicit type over a wildcard, then the first listed;
    wildcards and a missing header get `application/json`, which every client understands.
    """
    if not accept or not accept.strip():
        return JSON
    if accept in MEDIA_TYPES:
        return accept
    best, best_rank = None, (0.0, -1)
    for part in accept.split(","):
        media, *params = (piece.strip().lower() for piece in part.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        specificity = {GRAPHQL_RESPONSE: 2, JSON: 2, "application/*": 1, "*/*": 0}.get(media)
        if specificity is None or not 0 < quality <= 1:
            continue
        rank = (quality, specificity)
        if rank > best_rank:
            best, best_rank = (media if specificity == 2 else JSON), rank
    return best


@web.middleware
async def handle(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Every request: counted in flight, answered in JSON whatever goes wrong (never an HTML page
    or a traceback), and logged as one JSON line with the key's id only, never the key."""
    started = time.perf_counter()
    status, refused = 500, None
    record = request[ACCESS] = logs.AccessRecord()
    inflight = request.app[INFLIGHT]
    inflight.enter()
    response: web.StreamResponse | None = None
    origin = _allowed_origin(request)
    try:
        preflight = request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers
        if preflight and origin is not None:
            response = web.Response(status=204, headers=CORS_PREFLIGHT)
        elif preflight and "Origin" in request.headers:
            response = json_response(error_body(ORIGIN_NOT_ALLOWED, "ORIGIN_NOT_ALLOWED"), 403)
        else:
            response = await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        headers = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else None
        response = json_response(
            error_body(exc.reason, STATUS_CODES.get(exc.status, f"HTTP_{exc.status}")), exc.status, headers=headers
        )
    except asyncio.CancelledError:
        status, refused = 503, "SHUTDOWN"
        raise
    except Exception:
        log.exception("unhandled error on %s %s", auth.redact(request.method), auth.redact(request.path))
        response = json_response(error_body("Internal server error; it has been logged.", "INTERNAL_SERVER_ERROR"), 500)
    finally:
        inflight.leave()
        if origin is not None and response is not None:
            _cors(response, origin)
        status = status if response is None else response.status
        _observe(request, record, status, started)
        logs.log_access(request, record, status, started, refused)
    return response


def _allowed_origin(request: web.Request) -> str | None:
    """The request's Origin when CORS_ORIGINS lets it call the API (None when off, or another)."""
    allowed = request.app[CORS]
    if not allowed:
        return None
    origin = request.headers.get("Origin")
    if origin is None or ("*" not in allowed and origin not in allowed):
        return None
    return origin


def _cors(response: web.StreamResponse, origin: str) -> None:
    """What lets a browser page of that origin read the answer (no cookies are used: keys travel
    in headers, so credentials are never allowed)."""
    response.headers["Access-Control-Allow-Origin"] = origin
    response.headers["Access-Control-Expose-Headers"] = CORS_EXPOSED
    response.headers.add("Vary", "Origin")


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
    try:
        key_id = request[ACCESS].key_id = request.app[KEYS].identify(request.headers)
    except auth.AuthError as exc:
        metrics = request.app[METRICS]
        metrics.child(metrics.auth_failures, exc.reason).inc()
        return bytes_response(error_bytes(exc.message, "UNAUTHENTICATED"), 401, media or JSON, UNAUTHENTICATED)
    try:
        decision = await request.app[LIMITER].decide(key_id)
    except LimiterUnavailable as exc:
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
    headers = decision.headers()
    if not decision.allowed:
        request.app[METRICS].rate_limited.inc()
        headers["Retry-After"] = str(decision.reset)
        return bytes_response(
            error_bytes("Rate limit exceeded. Please try again later.", "RATE_LIMITED", ("retryAfter", decision.reset)),
            429,
            media or JSON,
            headers,
        )
    if request.method != "POST":
        return _not_post(headers)
    try:
        payload = await _execute(request, media)
    except graphql_http.RequestError as exc:
        response = json_response(exc.payload, exc.status, media or JSON, headers)
        if exc.status == 408:
            await _send_and_close(request, response)
        return response
    assert media is not None, "_execute refuses a request without an acceptable media type"
    return json_response(payload, 200, media, headers)


async def metrics_elsewhere(request: web.Request) -> web.Response:
    """A scraper pointed at the API's port is told where the metrics are (a bare 404 said nothing)."""
    return json_response(error_body(METRICS_ELSEWHERE, "NOT_FOUND"), 404)


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


async def _execute(request: web.Request, media: str | None) -> FormattedExecutionResult:
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
    record = request[ACCESS]
    record.inputs = operation.inputs
    deadline = asyncio.get_running_loop().time() + settings.input_timeout
    chains = request.app[CHAINS].request(deadline)
    context = schema.RequestContext(
        request.app[REGISTRY],
        settings.input_timeout,
        chains,
        request.app[INDEXES],
        request.app[ANSWERS],
        outcomes=record.outcomes,
    )
    try:
        return await graphql_http.run(operation, request.app[SCHEMA], context)
    finally:
        record.rpc_requests, record.rpc_subcalls = chains.stats.requests, chains.stats.subcalls


def query_page(chain_id: int = 8453, path: Path = QUERY_PAGE_PATH) -> tuple[bytes, dict[str, str]]:
    """The page, its example input on `chain_id`, with a Content-Security-Policy that admits its
    own inline script and style (by their SHA-256) and requests to this service only: the
    browser loads nothing from elsewhere."""
    page = path.read_text(encoding="utf-8").replace('"chainId": 8453', f'"chainId": {chain_id}')
    hashes = {
        kind: " ".join(
            "'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"
            for body in re.findall(rf"<{kind}>(.*?)</{kind}>", page, flags=re.S)
        )
        for kind in ("script", "style")
    }
    policy = (
        f"default-src 'none'; script-src {hashes['script']}; style-src {hashes['style']}; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    headers = {"Content-Security-Policy": policy, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"}
    return page.encode(), headers


def example_chain(registry: Registry, configured: Iterable[int]) -> int:
    """The chain of the query page's example (a Morpho input): the lowest whose endpoint the
    operator set (a devnet's 31337, say: offline, Base's public endpoint answers nothing), else Base."""
    served = registry["morpho"].chains if "morpho" in registry else frozenset()
    return next((chain for chain in sorted(configured) if chain in served), 8453)


def _too_large() -> graphql_http.RequestError:
    return graphql_http.RequestError.single(
        413, f"The request body exceeds the limit of {MAX_BODY_BYTES} bytes.", "PAYLOAD_TOO_LARGE", limit=MAX_BODY_BYTES
    )


async def schema_sdl(_request: web.Request) -> web.Response:
    return web.Response(text=schema.SDL_PATH.read_text(encoding="utf-8"), content_type="text/plain")


async def healthz(_request: web.Request) -> web.Response:
    return json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    reason = request.app[READINESS].reason
    if reason is None:
        return json_response({"status": "ready"})
    return json_response({"status": "not ready", "reason": reason}, 503)


async def _started(app: web.Application) -> None:
    app[READINESS].started = True


async def _watch_keys(app: web.Application) -> AsyncIterator[None]:
    """Re-read the keys file whenever it changes, so created and revoked keys take effect live."""
    store, interval = app[KEYS], app[SETTINGS].keys_reload_interval

    async def watch() -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                store.refresh()
            except Exception:
                log.exception("keys file check failed; keeping the current keys")

    task = asyncio.create_task(watch())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def _limiter(settings: Settings, metrics: Metrics, clock: Callable[[], float]) -> Limiter:
    """In process, or kept in Redis when REDIS_URL is set (the redis package is loaded only then)."""
    if not settings.redis_url:
        metrics.rate_limit_shared.set(0)
        return RateLimiter(settings.rate_limit, settings.rate_window, clock)
    from redis_limit import RedisRateLimiter

    log.info("rate limit kept in Redis, shared by every replica using it")
    return RedisRateLimiter(
        settings.redis_url,
        settings.rate_limit,
        settings.rate_window,
        metrics,
        timeout=settings.redis_timeout,
        refuse=settings.redis_unavailable == "refuse",
        clock=clock,
    )


async def _close_limiter(app: web.Application) -> AsyncIterator[None]:
    yield
    await app[LIMITER].close()


async def _chain_session(app: web.Application) -> AsyncIterator[None]:
    yield
    await app[CHAINS].close()


async def _event_index(app: web.Application) -> AsyncIterator[None]:
    """Registered after the chains' session, so cleaned up before it: the scans stop while the
    HTTP sessions they read through are still open."""
    yield
    await app[INDEXES].close()


async def _validation_worker(app: web.Application) -> AsyncIterator[None]:
    yield
    await asyncio.get_running_loop().run_in_executor(None, app[PREPARER].close)


def own_command() -> str:
    """How a user runs this service's commands from a fresh shell: the binary by its name, else
    `./scripts/serve` (which installs the dependencies first; a bare `python server.py` lacks them)."""
    return os.path.basename(sys.executable) if getattr(sys, "frozen", False) else "./scripts/serve"


def create_app(
    settings: Settings,
    registry: Registry | None = None,
    clock: Callable[[], float] = time.monotonic,
    rpc_urls: Mapping[int, str] | None = None,
) -> web.Application:
    """The application; raises auth.KeyFileError, addresses.AddressesError or rpc.RpcUrlError
    on unusable data.

    `registry` defaults to every protocol on the chains of the addresses data (built in, with
    ADDRESSES_FILE laid over it); `rpc_urls` to the public endpoints overridden by
    `RPC_URL_<chainId>` variables.
    """
    if registry is None:
        registry = protocols.registry(addresses.load(settings.addresses_file or None))
    keys = auth.KeyStore(settings.keys_file)
    if keys.load() == 0:
        log.warning(
            "no active API keys in %s: every request gets 401 until one is created with `%s keys create --name NAME`",
            settings.keys_file,
            own_command(),
        )
    app = web.Application(client_max_size=MAX_BODY_BYTES, middlewares=[handle])
    app[SETTINGS] = settings
    app[KEYS] = keys
    app[METRICS] = metrics = Metrics()
    app[LIMITER] = _limiter(settings, metrics, clock)
    app[SCHEMA] = schema.build(registry)
    app[PREPARER] = graphql_http.Preparer(
        app[SCHEMA], schema.SDL_PATH.read_text(encoding="utf-8"), settings.document_cache_size
    )
    app[REGISTRY] = registry
    urls = rpc_urls_from_env(os.environ) if rpc_urls is None else rpc_urls
    app[QUERY_PAGE] = query_page(example_chain(registry, chains_set_in(os.environ) if rpc_urls is None else urls))
    app[INFLIGHT] = InFlight()
    app[READINESS] = Readiness()
    app[CORS] = frozenset(origin.strip() for origin in settings.cors_origins.split(",")) - {""}
    app.on_startup.append(_started)
    app[CHAINS] = Chains(
        urls,
        ChainConfig(
            max_calls=settings.multicall_max_calls,
            logs_block_range=settings.logs_block_range,
            cache_size=settings.chain_cache_size,
            connections=settings.rpc_connections,
            max_response_bytes=settings.rpc_max_response_bytes,
            head_poll_seconds=settings.head_poll_seconds,
        ),
        metrics,
    )
    app[INDEXES] = Indexes(Path(settings.state_dir), app[CHAINS])
    app[ANSWERS] = answers = ImmutableCache(ANSWER_CACHE_ENTRIES, settings.answer_cache_bytes)
    metrics.answer_cache_bytes.set_function(lambda: answers.bytes)
    metrics.watch_indexes(app[INDEXES].progress_rows)
    app.cleanup_ctx.append(_watch_keys)
    app.cleanup_ctx.append(_close_limiter)
    app.cleanup_ctx.append(_chain_session)
    app.cleanup_ctx.append(_event_index)
    app.cleanup_ctx.append(_validation_worker)
    app.router.add_route("*", "/graphql", graphql_endpoint)
    app.router.add_get("/schema.graphql", schema_sdl)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics_elsewhere)
    return app


async def serve(app: web.Application, settings: Settings) -> None:
    """Serve until SIGTERM or SIGINT, then let in-flight requests finish before returning.

    What exists once the app is set up (modules, the schema, the addresses) lives as long as the
    process: gc.freeze() keeps the collector from walking it again in every full collection
    (tens of ms, and more often the more requests are in flight)."""
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    metrics_runner: web.AppRunner | None = None
    await runner.setup()
    app[PREPARER].warm_up()
    gc.freeze()
    try:
        site = connections.Site(
            runner, settings.host, settings.port, connections.Limits(settings.header_timeout, settings.max_connections)
        )
        await site.start()
        for host, port in (address[:2] for address in runner.addresses):
            log.info("listening on http://%s:%d", host, port, extra={"fields": {"port": port}})
        if settings.metrics_port is not None:
            metrics_runner = web.AppRunner(metrics_app(app[METRICS]), access_log=None)
            await metrics_runner.setup()
            await web.TCPSite(metrics_runner, settings.host, settings.metrics_port).start()
            for host, port in (address[:2] for address in metrics_runner.addresses):
                log.info("metrics on http://%s:%d/metrics", host, port, extra={"fields": {"metrics_port": port}})
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
        app[READINESS].draining = True
        await site.stop()
        inflight = app[INFLIGHT]
        log.info("stopping: accepting no new connections, draining %d in-flight requests", inflight.count)
        try:
            await asyncio.wait_for(inflight.idle(), settings.shutdown_timeout)
        except TimeoutError:
            log.warning("shutdown timeout: %d requests still in flight are cut off", inflight.count)
    finally:
        if metrics_runner is not None:
            await metrics_runner.cleanup()
        await runner.cleanup()
    log.info("stopped")


def main(argv: list[str] | None = None) -> int:
    args = cli.build_parser().parse_args(argv)
    try:
        settings = resolve(args)
    except SettingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.command == "keys":
        return cli.keys_command(args, settings)
    if args.command == "healthcheck":
        return cli.healthcheck(settings)
    logs.configure_logging()
    if args.command == "index":
        try:
            return cli.index_command(
                args, settings, protocols.registry(addresses.load(settings.addresses_file or None))
            )
        except (addresses.AddressesError, RpcUrlError) as exc:
            log.error("cannot run the index command: %s", exc)
            return 2
    try:
        app = create_app(settings)
    except auth.KeyFileError as exc:
        log.error("cannot start: the keys file is corrupt: %s", exc)
        return 1
    except addresses.AddressesError as exc:
        log.error("cannot start: the addresses data is unusable: %s", exc)
        return 1
    except RpcUrlError as exc:
        log.error("cannot start: %s", exc)
        return 2
    try:
        asyncio.run(serve(app, settings))
    except OSError as exc:
        log.error("cannot listen: %s", exc.strerror or exc)
        return 1
    return 0


if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
