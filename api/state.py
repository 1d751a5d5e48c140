"""The app's typed state: the AppKeys its parts share (aiohttp's `web.AppKey`), and the two small
objects that shutdown and `GET /readyz` read: the count of requests in flight and the readiness."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from aiohttp import web
from graphql import GraphQLSchema

import auth
import graphql_http
import logs
from chain import Chains
from chain.event_index import Indexes
from config import Settings
from immutable_cache import ImmutableCache
from limits import Limiter
from metrics import Metrics
from protocols import Protocol
from resolvers.inputs import SharedAnswers
from resolvers.watches import Watches
from watches.evaluate import Evaluator
from watches.webhooks import Deliverer


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
SHARED_ANSWERS = web.AppKey[SharedAnswers | None]("shared_answers")
"""The same, shared with the other replicas through Redis; None without REDIS_URL."""
PREPARER = web.AppKey("preparer", graphql_http.Preparer)
QUERY_PAGE = web.AppKey("query_page", tuple[bytes, dict[str, str]])
CORS = web.AppKey("cors", frozenset[str])
"""The browser origins CORS_ORIGINS lists ("*" for any); empty when off."""
INFLIGHT = web.AppKey("inflight", InFlight)
READINESS = web.AppKey("readiness", Readiness)
WATCHES = web.AppKey("watches", Watches)
STREAMS = web.AppKey("streams", dict[str, int])
"""Event streams open, by key name (api/streams.py)."""
WATCH_WORKERS = web.AppKey("watch_workers", tuple[Evaluator, Deliverer])
ACCESS = web.RequestKey("access", logs.AccessRecord)
"""What the access line and the metrics say of a request, filled in as it is handled."""
