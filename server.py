"""The wallet positions service: aiohttp app factory and command-line entry.

    python server.py                          serve (see --help for every setting)
    python server.py keys create --name NAME  print a new API key on stdout, nothing else
    python server.py keys rotate NAME         the same, revoking the active key of that name (if any)
    python server.py keys list                id, name, created, revoked of every key
    python server.py keys revoke ID           revoke a key; running servers notice within 2 s
    python server.py healthcheck              exit 0 if the server on this machine answers /healthz

A request flows one way: access log and metrics -> in-flight count -> CORS -> JSON errors -> auth ->
rate limit -> request limits -> GraphQL validation -> resolvers (schema.py) -> protocol adapters
(protocols.py). The middlewares and routes are in `api/`; this module wires them into the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any

from aiohttp import web

import addresses
import auth
import cli
import connections
import graphql_http
import logs
import protocols
import schema
from api import routes, streams
from api.middlewares import cors, count_in_flight, json_errors, record_access
from api.query_page import example_chain, query_page
from api.state import (
    ANSWERS,
    CHAINS,
    CORS,
    INDEXES,
    INFLIGHT,
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
    STREAMS,
    WATCH_WORKERS,
    WATCHES,
    InFlight,
    Readiness,
)
from chain import ChainConfig, Chains
from chain.event_index import Indexes, open_stores
from chain.index_store import Stores
from chain.rpc import RpcUrlError, chains_set_in, rpc_urls_from_env
from config import SettingError, Settings, resolve
from errors import PositionError
from immutable_cache import ImmutableCache
from limits import MAX_BODY_BYTES, Limiter, RateLimiter
from metrics import Metrics, metrics_app
from protocols import Registry
from resolvers.inputs import RequestContext, SharedAnswers
from resolvers.watches import Watches, borrowing
from watches import webhooks
from watches.evaluate import Evaluator
from watches.store import WatchStore
from watches.store_sqlite import SqliteWatchStore
from watches.webhooks import Deliverer, Targets

log = logging.getLogger("wallet_positions.server")

ANSWER_CACHE_ENTRIES = 100_000
"""Answers kept at most, whatever their bytes (the bytes bound is the one that matters)."""


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
    from replicas.rate_limit import RedisRateLimiter

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


def _shared_answers(settings: Settings, metrics: Metrics) -> SharedAnswers | None:
    """Answers shared through Redis when REDIS_URL is set, unless ANSWER_SHARE_MAX_BYTES is 0."""
    if not settings.redis_url or not settings.answer_share_max_bytes:
        metrics.answers_shared.set(0)
        return None
    from replicas.answers import RedisAnswers

    log.info("answers shared through Redis with every replica using it")
    return RedisAnswers(
        settings.redis_url,
        metrics,
        ttl=settings.answer_share_ttl,
        max_bytes=settings.answer_share_max_bytes,
        timeout=settings.redis_timeout,
    )


async def _close_redis(app: web.Application) -> AsyncIterator[None]:
    yield
    await app[LIMITER].close()
    if (shared := app[SHARED_ANSWERS]) is not None:
        await shared.close()


async def _chain_session(app: web.Application) -> AsyncIterator[None]:
    yield
    await app[CHAINS].close()


def _follow_from_boot(chain_ids: list[int]) -> Callable[[web.Application], AsyncIterator[None]]:
    """Each chain whose endpoint the operator set pinned once at boot, in the background, where
    heads are followed: its endpoint's chain id, Multicall3 and block tags are checked then (a
    wrong URL is logged before anyone asks), and the first request pins its block without a round
    trip of its own. A chain nobody asks for is polled IDLE_SECONDS after boot, then no more
    (chain/head.py). The public endpoints a server falls back on are not asked until used."""

    async def follow(app: web.Application) -> AsyncIterator[None]:
        chains, timeout = app[CHAINS], app[SETTINGS].input_timeout

        async def pin(chain_id: int) -> None:
            try:
                await chains.request(asyncio.get_running_loop().time() + timeout).reader(chain_id).block_number()
            except (PositionError, TimeoutError) as exc:
                message = exc.message if isinstance(exc, PositionError) else "no answer in time"
                log.warning("chain %d not reached at boot: %s Requests try again.", chain_id, message)

        following = chains.config.head_poll_seconds > 0
        pins = [asyncio.ensure_future(pin(chain_id)) for chain_id in chain_ids if following]
        yield
        for task in pins:
            task.cancel()
        await asyncio.gather(*pins, return_exceptions=True)

    return follow


async def _event_index(app: web.Application) -> AsyncIterator[None]:
    """Registered after the chains' session, so cleaned up before it: the scans stop while the
    HTTP sessions they read through are still open."""
    yield
    await app[INDEXES].close()


async def _validation_worker(app: web.Application) -> AsyncIterator[None]:
    yield
    await asyncio.get_running_loop().run_in_executor(None, app[PREPARER].close)


def _watch_store(settings: Settings, stores: Stores) -> WatchStore:
    """A SQLite file under the state directory, or, where the event index is the database replicas
    share (`INDEX_URL`), that database: watches and their outbox then outlive any one replica."""
    if not settings.index_url:
        return SqliteWatchStore(Path(settings.state_dir) / "watches.sqlite")
    from chain.index_postgres import PostgresStores
    from watches.store_postgres import PostgresWatchStore

    assert isinstance(stores, PostgresStores), "INDEX_URL opens the index in PostgreSQL (chain/event_index.py)"
    return PostgresWatchStore(stores)


def _watches(app: web.Application, settings: Settings) -> tuple[Watches, tuple[Evaluator, Deliverer]]:
    """The watch fields' state and the two workers behind them (docs/watches.md): the evaluator
    answers watches as `walletPositions` answers inputs, the deliverer sends what it writes."""
    store = _watch_store(settings, app[INDEXES].stores)
    hosts = frozenset(host.strip().lower() for host in settings.webhook_hosts.split(",")) - {""}
    targets = Targets(not settings.webhook_allow_http, settings.webhook_allow_loopback, hosts)
    deliverer = Deliverer(store, targets, settings.webhook_retry_seconds, settings.webhook_first_retry)
    borrows = borrowing(app[REGISTRY])

    async def answer(chain_id: int, inputs: list[dict[str, Any]]) -> list[list[dict[str, Any]] | PositionError]:
        deadline = asyncio.get_running_loop().time() + settings.input_timeout
        chains = app[CHAINS].request(deadline)
        context = RequestContext(
            app[REGISTRY], settings.input_timeout, chains, app[INDEXES], app[ANSWERS], app[SHARED_ANSWERS]
        )
        return await schema.answered(context, inputs, app[SCHEMA])

    async def hashes(chain_id: int, numbers: list[int]) -> dict[int, str]:
        reader = app[CHAINS].request(asyncio.get_running_loop().time() + settings.input_timeout).reader(chain_id)
        return dict(zip(numbers, await asyncio.gather(*(reader.block_hash(number) for number in numbers))))

    def head(chain_id: int) -> int | None:
        found = app[CHAINS].follower(chain_id).current()
        return None if found is None else found.number

    evaluator = Evaluator(store, answer, head, borrows, deliverer.wake.set, hashes, app[KEYS].active_names)
    app[METRICS].watch_watches(
        lambda: {
            "watches": evaluator.watching,
            "due": sum(evaluator.due.values()),
            "read": evaluator.pairs,
            "events": evaluator.events,
            "sent": deliverer.sent,
            "retried": deliverer.retried,
            "failed": deliverer.failed,
        }
    )
    caps = (settings.watches_per_key, settings.webhooks_per_key)
    return Watches(store, targets, *caps, borrows, evaluator.wake.set), (evaluator, deliverer)


async def _watch_workers(app: web.Application) -> AsyncIterator[None]:
    evaluator, deliverer = app[WATCH_WORKERS]
    session = webhooks.session(deliverer.targets)
    poll = app[SETTINGS].head_poll_seconds or 1.0
    tasks = [asyncio.create_task(evaluator.run(poll)), asyncio.create_task(deliverer.run(session))]
    yield
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await deliverer.close()
    await session.close()
    await deliverer.store.close()


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
        registry = protocols.registry(protocols.load_addresses(settings.addresses_file or None))
    keys = auth.KeyStore(settings.keys_file)
    if keys.load() == 0:
        log.warning(
            "no active API keys in %s: every request gets 401 until one is created with `%s keys create --name NAME`",
            settings.keys_file,
            own_command(),
        )
    app = web.Application(
        client_max_size=MAX_BODY_BYTES, middlewares=[record_access, count_in_flight, cors, json_errors]
    )
    app[SETTINGS] = settings
    app[KEYS] = keys
    app[METRICS] = metrics = Metrics()
    app[LIMITER] = _limiter(settings, metrics, clock)
    app[SCHEMA] = schema.build(registry)
    app[PREPARER] = graphql_http.Preparer(app[SCHEMA], schema.SDL, settings.document_cache_size)
    app[REGISTRY] = registry
    urls = rpc_urls_from_env(os.environ) if rpc_urls is None else rpc_urls
    configured = chains_set_in(os.environ) if rpc_urls is None else set(urls)
    app[QUERY_PAGE] = query_page(example_chain(registry, configured))
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
        configured,
    )
    app[INDEXES] = Indexes(
        open_stores(Path(settings.state_dir), settings.index_url, settings.index_pool_size), app[CHAINS]
    )
    app[ANSWERS] = answers = ImmutableCache(ANSWER_CACHE_ENTRIES, settings.answer_cache_bytes)
    metrics.answer_cache_bytes.set_function(lambda: answers.bytes)
    app[SHARED_ANSWERS] = _shared_answers(settings, metrics)
    metrics.watch_indexes(app[INDEXES].progress_rows)
    app.cleanup_ctx.append(_watch_keys)
    app.cleanup_ctx.append(_close_redis)
    app.cleanup_ctx.append(_chain_session)
    app.cleanup_ctx.append(_follow_from_boot(sorted(configured)))
    app.cleanup_ctx.append(_event_index)
    app.cleanup_ctx.append(_validation_worker)
    app[WATCHES], app[WATCH_WORKERS] = _watches(app, settings)
    app[STREAMS] = {}
    app.cleanup_ctx.append(_watch_workers)
    app.router.add_route("*", "/graphql", routes.graphql_endpoint)
    app.router.add_get("/watches/events", streams.watch_events)
    app.router.add_get("/schema.graphql", routes.schema_sdl)
    app.router.add_get("/healthz", routes.healthz)
    app.router.add_get("/readyz", routes.readyz)
    app.router.add_get("/metrics", routes.metrics_elsewhere)
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
    if args.command == "verify":
        return cli.verify_command(args, settings)
    logs.configure_logging()
    if args.command == "index":
        try:
            return cli.index_command(
                args, settings, protocols.registry(protocols.load_addresses(settings.addresses_file or None))
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
    # Run as a script, this module has no spec, so multiprocessing's spawn runs it again in the
    # validation worker (as `__mp_main__`): every protocol, the schema and aiohttp, 23 MiB the
    # worker never uses. A spec named `__main__` is one spawn leaves alone: the worker imports
    # graphql_http alone, whose functions it runs.
    __spec__ = ModuleSpec("__main__", None)
    sys.exit(main())
