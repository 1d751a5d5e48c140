"""Prometheus metrics (--metrics-port): what each request, input, RPC exchange and index adds, read
through the metrics listener's own handler; no wallet, key or key id in any label."""

from __future__ import annotations

from typing import Any

from prometheus_client.parser import text_string_to_metric_families

import auth
from metrics import VERSION, metrics_app
from server import ANSWERS, METRICS
from tests import morpho_world as W
from tests.conftest import proxied_api, world_fixture
from tests.test_morpho import QUERY

world = world_fixture(lambda node: W.build(node, W.compile_all()))

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(aiohttp_client: Any, api: Any) -> tuple[str, Samples]:
    client = await aiohttp_client(metrics_app(api.app[METRICS]))
    reply = await client.get("/metrics")
    assert reply.status == 200 and reply.content_type == "text/plain"
    text = await reply.text()
    return text, {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum over every series of `name` whose labels include `labels`."""
    return sum(v for (n, have), v in samples.items() if n == name and set(labels.items()) <= have)


def inputs(*wallets: str, protocol: str = "morpho", chain_id: int = 31337) -> dict[str, Any]:
    return {"inputs": [{"protocol": protocol, "chainId": chain_id, "walletAddress": w} for w in wallets]}


async def test_requests_inputs_rpc_and_index(aiohttp_client, world_client, world, keys_file):
    api, lender = world_client, world.wallets["lender"]
    assert (await api.query(QUERY, inputs(lender))).status == 200
    assert (await api.query(QUERY, inputs(lender, protocol="nowhere", chain_id=987654321))).status == 200
    assert (await api.query(QUERY, inputs(lender, chain_id=987654321))).status == 200
    assert (await api.post({"query": "{ __typename }"}, key=None)).status == 401
    assert (await api.post({"query": "{ __typename }"}, key="pk_" + "0" * 64)).status == 401
    assert (await api.post({"query": "{ __typename }"}, key="not-a-key")).status == 401
    assert (await api.client.get("/no/such/path")).status == 404
    assert (await api.client.get("/healthz")).status == 200

    text, samples = await scrape(aiohttp_client, api)
    graphql = {"route": "/graphql", "method": "POST"}
    assert value(samples, "wp_http_requests_total", **graphql, status="200") == 3
    assert value(samples, "wp_http_requests_total", **graphql, status="401") == 3
    assert value(samples, "wp_http_requests_total", route="other", method="GET", status="404") == 1
    assert value(samples, "wp_http_requests_total", route="/healthz", method="GET", status="200") == 1
    assert value(samples, "wp_http_request_duration_seconds_count", **graphql) == 6
    assert (
        value(samples, "wp_inputs_total", field="walletPositions", protocol="morpho", chain_id="31337", outcome="OK")
        == 1
    )
    assert (
        value(
            samples,
            "wp_inputs_total",
            field="walletPositions",
            protocol="other",
            chain_id="other",
            outcome="VALIDATION_ERROR",
        )
        == 1
    )
    assert (
        value(
            samples,
            "wp_inputs_total",
            field="walletPositions",
            protocol="morpho",
            chain_id="other",
            outcome="VALIDATION_ERROR",
        )
        == 1
    )
    assert value(samples, "wp_auth_failures_total", reason="missing") == 1
    assert value(samples, "wp_auth_failures_total", reason="unknown") == 1
    assert value(samples, "wp_auth_failures_total", reason="malformed") == 1

    chain = {"chain_id": "31337"}
    assert value(samples, "wp_rpc_subcalls_total", **chain) > 10
    assert value(samples, "wp_rpc_calls_total", **chain, method="eth_call", outcome="ok") > 0
    assert value(samples, "wp_rpc_calls_total", **chain, method="eth_getBlockByNumber", outcome="ok") >= 1
    assert value(samples, "wp_rpc_calls_total", **chain, method="eth_getLogs", outcome="ok") > 0
    http_ok = value(samples, "wp_rpc_http_requests_total", **chain, outcome="ok")
    assert http_ok > 0 and value(samples, "wp_rpc_http_request_duration_seconds_count", **chain) == http_ok
    assert value(samples, "wp_rpc_sent_bytes_total", **chain) > 1000
    assert value(samples, "wp_rpc_received_bytes_total", **chain) > 1000
    assert value(samples, "wp_chain_head_block", **chain) == world.node.block_number()
    assert total(samples, "wp_index_covered_block", **chain) > 0
    assert 0 < value(samples, "wp_answer_cache_bytes") <= api.app[ANSWERS].max_bytes
    assert (
        value(
            samples,
            "wp_build_info",
            version=VERSION,
            python=next(dict(labels)["python"] for name, labels in samples if name == "wp_build_info"),
        )
        == 1
    )
    (key_id,) = auth.load_keys(keys_file)
    for secret in (lender.lower(), lender[2:].lower(), api.key, key_id.lower()):
        assert secret not in text.lower()


async def test_rate_limit_refusals_and_rpc_failures(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path
):
    proxy, api = await proxied_api(
        aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path, rate_limit=2, input_timeout=2
    )
    proxy.mode = "not-json"
    assert (await api.query(QUERY, inputs(world.wallets["lender"]))).status == 200
    proxy.mode = "forward"
    proxy.item_faults = {"eth_getBlockByNumber": (1.0, {"code": -32000, "message": "header not found"})}
    proxy.fault_limit = 1
    assert (await api.query(QUERY, inputs(world.wallets["lender"]))).status == 200
    assert (await api.query(QUERY, inputs(world.wallets["lender"]))).status == 429

    _, samples = await scrape(aiohttp_client, api)
    assert value(samples, "wp_rate_limited_total") == 1
    assert value(samples, "wp_rate_limit_shared") == 0
    chain = {"chain_id": "31337"}
    assert value(samples, "wp_rpc_http_requests_total", **chain, outcome="not_json") >= 1
    assert value(samples, "wp_rpc_calls_total", **chain, method="eth_getBlockByNumber", outcome="node_failure") == 1
    assert (
        value(
            samples,
            "wp_inputs_total",
            field="walletPositions",
            protocol="morpho",
            chain_id="31337",
            outcome="NETWORK_ERROR",
        )
        == 1
    )
