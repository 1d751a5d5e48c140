"""Prometheus metrics: what operators watch, in base units, with no wallet or key in any label.

Each app owns its own registry (tests and benchmarks run several apps in one process); the
metrics are always counted (a labelled increment costs about a microsecond) and served only on
the separate `--metrics-port` listener. Label values the client chooses are bounded before they
become labels: a route the app does not have is "other", a protocol or chain it does not serve
is "other", an HTTP method outside the standard ones is "other".
"""

from __future__ import annotations

import functools
import platform
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import NamedTuple, TypeVar, cast

from aiohttp import web
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.aiohttp import make_aiohttp_handler
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.metrics import MetricWrapperBase
from prometheus_client.registry import Collector

VERSION = "0.18.0"
"""The service's version, shown by `wp_build_info` and `server.py --version`."""


class Outcome(NamedTuple):
    """One resolved input, as the access line and the metrics count it (made by the resolvers)."""

    field: str
    protocol: str
    """As the client named it (lower-cased): not necessarily a protocol of the registry."""
    chain_id: int
    code: str
    """"OK" or the input's error code."""


HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

Labelled = TypeVar("Labelled", bound=MetricWrapperBase)

IndexRows = Callable[[], Iterable[tuple[int, str, int]]]
"""(chain id, stream, last block covered) of every index stream the process has open."""
WatchCounts = Callable[[], Mapping[str, int]]
"""The watches' figures (server.py reads them off the evaluator and the deliverer): watches,
due, read, events, sent, retried, failed."""


class Metrics:
    """The service's metrics, by where they are counted (see the metrics table in docs/operations.md)."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry()
        counter = functools.partial(Counter, registry=registry)
        gauge = functools.partial(Gauge, registry=registry)
        histogram = functools.partial(Histogram, buckets=LATENCY_BUCKETS, registry=registry)
        self.http_requests = counter(
            "wp_http_requests", "HTTP requests answered, by route, method and status.", ["route", "method", "status"]
        )
        self.http_duration = histogram(
            "wp_http_request_duration_seconds", "Time from a request's arrival to its answer.", ["route", "method"]
        )
        self.inputs = counter(
            "wp_inputs",
            "Inputs resolved, by root field, protocol, chain and outcome (OK or the error code).",
            ["field", "protocol", "chain_id", "outcome"],
        )
        self.history_points = counter(
            "wp_history_points", "Series points, by protocol and outcome.", ["protocol", "outcome"]
        )
        self.auth_failures = counter(
            "wp_auth_failures",
            "Requests refused 401, by reason (missing, conflicting, malformed, unknown).",
            ["reason"],
        )
        self.rate_limited = counter("wp_rate_limited", "Requests refused 429 by the per-key rate limit.")
        self.rpc_http_requests = counter(
            "wp_rpc_http_requests",
            "HTTP requests to RPC endpoints, by chain and outcome (ok, http_429, "
            "http_error, unreachable, timeout, too_large, not_json).",
            ["chain_id", "outcome"],
        )
        self.rpc_duration = histogram(
            "wp_rpc_http_request_duration_seconds", "Time of one HTTP request to an RPC endpoint.", ["chain_id"]
        )
        self.rpc_calls = counter(
            "wp_rpc_calls",
            "JSON-RPC calls answered, by chain, method and outcome: ok, answer_error (an "
            "error that is the answer, such as a revert) or node_failure.",
            ["chain_id", "method", "outcome"],
        )
        self.rpc_subcalls = counter(
            "wp_rpc_subcalls",
            "Contract reads (eth_call sub-calls, batched into aggregate3 or sent alone).",
            ["chain_id"],
        )
        self.rpc_lens_reads = counter(
            "wp_rpc_lens_reads",
            "Contract reads answered from a lens's tape (chain/lens.py), with no call of their own.",
            ["chain_id"],
        )
        self.rpc_sent_bytes = counter("wp_rpc_sent_bytes", "Bytes of JSON-RPC request bodies sent.", ["chain_id"])
        self.rpc_received_bytes = counter(
            "wp_rpc_received_bytes", "Bytes of JSON-RPC answer bodies read.", ["chain_id"]
        )
        self.chain_head = gauge(
            "wp_chain_head_block", "The newest block a request was pinned to, by chain.", ["chain_id"]
        )
        self.index_rewinds = counter(
            "wp_index_rewinds",
            "Index streams whose stored part the chain no longer had (a reorg deeper than it, a reset "
            "chain, another network), by chain, stream and outcome: rewound to a block both agree "
            "on, or dropped and scanned again.",
            ["chain_id", "stream", "outcome"],
        )
        self._redis(registry)
        self.answer_cache_bytes = gauge(
            "wp_answer_cache_bytes", "Bytes of answers kept per input and block (ANSWER_CACHE_BYTES bounds them)."
        )
        build = gauge("wp_build_info", "The service's version and Python; always 1.", ["version", "python"])
        build.labels(VERSION, platform.python_version()).set(1)
        self._children: dict[tuple[int, tuple[str, ...]], MetricWrapperBase] = {}

    def _redis(self, registry: CollectorRegistry) -> None:
        """What replicas share through Redis (replicas/): the rate limit and answers."""
        self.rate_limit_shared = Gauge(
            "wp_rate_limit_shared",
            "1 while the rate limit is kept in Redis, 0 while this process "
            "limits alone (no REDIS_URL, or Redis unreachable).",
            registry=registry,
        )
        self.rate_limit_redis_failures = Counter(
            "wp_rate_limit_redis_failures",
            "Rate-limit decisions Redis could not make (each then fell "
            "back to the in-process limiter or was refused 503).",
            registry=registry,
        )
        self.answers_shared = Gauge(
            "wp_answers_shared",
            "1 while answers are shared with the other replicas through Redis, 0 while this process "
            "keeps them alone (no REDIS_URL, ANSWER_SHARE_MAX_BYTES 0, or Redis unreachable).",
            registry=registry,
        )
        self.shared_answer_lookups = Counter(
            "wp_shared_answer_lookups",
            "Answers looked up in Redis after a local miss, by outcome: hit, miss, invalid (a value "
            "this service did not write under the key: ignored), error (Redis failed), unavailable "
            "(not asked: Redis failed lately).",
            ["outcome"],
            registry=registry,
        )
        self.shared_answer_writes = Counter(
            "wp_shared_answer_writes",
            "Answers offered to Redis, by outcome: stored, error, too_large (over ANSWER_SHARE_MAX_BYTES), "
            "not_json (JSON would not give it back as it is), busy (too many writes in flight), "
            "unavailable (not asked: Redis failed lately).",
            ["outcome"],
            registry=registry,
        )

    def child(self, metric: Labelled, *labels: str) -> Labelled:
        """`metric.labels(*labels)`, looked up once per label set and kept (every label is bounded):
        on the path of every request, labels() costs more than the increment it leads to."""
        key = (id(metric), labels)
        found = self._children.get(key)
        if found is None:
            found = self._children[key] = metric.labels(*labels)
        return cast(Labelled, found)

    def watch_watches(self, counts: WatchCounts) -> None:
        """The watches' figures, read at each scrape (docs/watches.md)."""
        self.registry.register(_WatchCollector(counts))

    def watch_indexes(self, rows: IndexRows) -> None:
        """Index progress, read from the index files at each scrape (`wp_index_covered_block`)."""
        self.registry.register(_IndexCollector(rows))


class _IndexCollector(Collector):
    def __init__(self, rows: IndexRows) -> None:
        self._rows = rows

    def collect(self) -> Iterator[GaugeMetricFamily]:
        covered = GaugeMetricFamily(
            "wp_index_covered_block",
            "The last block whose events an index stream holds, by chain and stream.",
            labels=["chain_id", "stream"],
        )
        for chain_id, stream, block in self._rows():
            covered.add_metric([str(chain_id), stream], block)
        yield covered


class _WatchCollector(Collector):
    def __init__(self, counts: WatchCounts) -> None:
        self._counts = counts

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        counts = self._counts()
        yield GaugeMetricFamily("wp_watches", "Watches stored, every key's.", value=counts["watches"])
        yield GaugeMetricFamily(
            "wp_watch_pairs_due",
            "(wallet, protocol) pairs the last evaluation of each chain found due, summed over chains.",
            value=counts["due"],
        )
        yield CounterMetricFamily(
            "wp_watch_pairs_read", "(wallet, protocol) pairs read for watches.", value=counts["read"]
        )
        yield CounterMetricFamily("wp_watch_events", "Watch events written to the outbox.", value=counts["events"])
        attempts = CounterMetricFamily(
            "wp_webhook_attempts", "Webhook attempts, by outcome: sent, retried, failed.", labels=["outcome"]
        )
        for outcome in ("sent", "retried", "failed"):
            attempts.add_metric([outcome], counts[outcome])
        yield attempts


def metrics_app(metrics: Metrics) -> web.Application:
    """The metrics listener's app: GET /metrics in the Prometheus text format, nothing else."""
    app = web.Application()
    app.router.add_get("/metrics", make_aiohttp_handler(metrics.registry))
    return app
