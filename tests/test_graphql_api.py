"""The walletPositions contract over HTTP: shape, order, validation, error mapping, fan-out."""

from __future__ import annotations

import asyncio
import logging

import pytest

import schema
import server
from protocols import Protocol
from tests.conftest import QUICKSTART, WALLET, position_input
from tests.stand_ins import vault_position

OTHER = "0x" + "cd" * 20


async def test_spec_example_resolves_through_inline_fragment(api):
    reply = await api.positions(position_input(wallet="0xAbAbABabababababababababababababababABab"))
    assert reply.status == 200
    assert reply.headers["Content-Type"] == "application/json; charset=utf-8"
    expected = vault_position(WALLET, 1)["vaultV2Positions"][0]
    assert reply.body == {
        "data": {
            "walletPositions": {
                "data": [
                    {
                        "protocol": "morpho",
                        "walletAddress": WALLET,
                        "chainId": 1,
                        "blockNumber": 1001,
                        "vaultV2Positions": [
                            {key: expected[key] for key in ("vaultName", "assetsUsd", "apy", "shares")}
                        ],
                    }
                ],
                "errors": [],
            }
        }
    }


async def test_inline_query_without_variables(api):
    reply = await api.query(
        '{ walletPositions(inputs: [{protocol: "morpho", chainId: 8453, walletAddress: "%s"}]) '
        "{ data { __typename ... on MorphoWalletPositions { chainId } } errors { protocol } } }" % WALLET
    )
    assert reply.status == 200
    assert reply.body["data"]["walletPositions"] == {
        "data": [{"__typename": "MorphoWalletPositions", "chainId": 8453}],
        "errors": [],
    }


@pytest.mark.parametrize(
    "accept, media",
    [
        (None, "application/json"),
        ("*/*", "application/json"),
        ("application/graphql-response+json", "application/graphql-response+json"),
        ("application/graphql-response+json, application/json;q=0.9", "application/graphql-response+json"),
        ("application/json, application/graphql-response+json;q=0.5", "application/json"),
        ("*/*, application/graphql-response+json", "application/graphql-response+json"),
    ],
)
async def test_response_media_type_is_negotiated(api, accept, media):
    headers = {"Accept": accept} if accept else {}
    reply = await api.positions(position_input(), headers=headers)
    assert reply.status == 200
    assert reply.headers["Content-Type"] == f"{media}; charset=utf-8"


async def test_unacceptable_media_type_is_406(api):
    reply = await api.positions(position_input(), headers={"Accept": "text/html"})
    assert reply.status == 406
    assert reply.body["errors"][0]["extensions"]["code"] == "NOT_ACCEPTABLE"
    assert "data" not in reply.body


async def test_results_keep_input_order_and_every_input_yields_one_entry(api):
    reply = await api.positions(
        position_input(wallet=OTHER),
        position_input("nope"),
        position_input(wallet=WALLET, chain_id=8453),
        position_input(chain_id=5),
        position_input("netfail"),
    )
    result = reply.body["data"]["walletPositions"]
    assert [(d["walletAddress"], d["chainId"]) for d in result["data"]] == [(OTHER, 1), (WALLET, 8453)]
    assert [(e["protocol"], e["chainId"], e["error"]["code"]) for e in result["errors"]] == [
        ("nope", 1, "VALIDATION_ERROR"),
        ("morpho", 5, "VALIDATION_ERROR"),
        ("netfail", 1, "NETWORK_ERROR"),
    ]


@pytest.mark.parametrize(
    "item, message",
    [
        (position_input("sushiswap"), "Unknown protocol 'sushiswap'. Supported protocols: "),
        (position_input(chain_id=137), "Chain 137 is not supported by protocol 'morpho'. Supported chains: 1, 8453."),
        (position_input(chain_id=-1), "Chain -1 is not supported"),
        (position_input(wallet="0x1234"), "Malformed walletAddress"),
        (position_input(wallet="ab" * 21), "Malformed walletAddress"),
        (position_input(wallet="0x" + "zz" * 20), "Malformed walletAddress"),
        (position_input(wallet="0x" + "a" * 90_000), "Malformed walletAddress"),
        (position_input(wallet=" 0x" + "ab" * 20), "Malformed walletAddress"),
    ],
)
async def test_invalid_inputs_are_validation_errors(api, stand_ins, item, message):
    reply = await api.positions(item)
    assert reply.status == 200
    error = reply.body["data"]["walletPositions"]["errors"][0]
    assert error["error"]["code"] == "VALIDATION_ERROR"
    assert error["error"]["retryable"] is False
    assert error["error"]["message"].startswith(message)
    assert len(error["error"]["message"]) < 300
    assert error["walletAddress"] == schema._shorten(item["walletAddress"].lower(), schema.ADDRESS_ECHO)
    assert error["protocol"] == item["protocol"] and error["chainId"] == item["chainId"]
    assert stand_ins.calls == []


async def test_protocol_name_is_case_insensitive(api):
    reply = await api.positions(position_input("Morpho"))
    assert reply.body["data"]["walletPositions"]["data"][0]["protocol"] == "morpho"


@pytest.mark.parametrize(
    "protocol, code, retryable, message",
    [
        ("netfail", "NETWORK_ERROR", True, "The chain's RPC endpoint could not be reached."),
        ("revert", "PROTOCOL_ERROR", False, "Vault 0x11 reverted on convertToAssets."),
        ("buggy", "UNKNOWN_ERROR", True, "Internal error while reading positions; it has been logged."),
        ("badshape", "UNKNOWN_ERROR", True, "Internal error while reading positions; it has been logged."),
        ("badfloat", "UNKNOWN_ERROR", True, "Internal error while reading positions; it has been logged."),
    ],
)
async def test_adapter_failures_map_to_error_codes(api, caplog, protocol, code, retryable, message):
    caplog.set_level(logging.ERROR, logger="wallet_positions.resolver")
    reply = await api.positions(position_input(protocol), position_input())
    result = reply.body["data"]["walletPositions"]
    assert result["errors"] == [
        {
            "protocol": protocol,
            "chainId": 1,
            "walletAddress": WALLET,
            "error": {"code": code, "message": message, "retryable": retryable},
        }
    ]
    assert len(result["data"]) == 1
    if code == "UNKNOWN_ERROR":
        assert any(record.levelname == "ERROR" for record in caplog.records), "detail must reach the log"


async def test_slow_input_times_out_without_breaking_others(make_api):
    api = await make_api(input_timeout=0.3)
    reply = await api.positions(position_input("slow"), position_input())
    result = reply.body["data"]["walletPositions"]
    assert result["errors"][0]["error"] == {
        "code": "TIMEOUT",
        "retryable": True,
        "message": "The input did not resolve within its time budget of 0.3 s.",
    }
    assert len(result["data"]) == 1


async def test_inputs_resolve_concurrently(make_api, stand_ins):
    stand_ins.rendezvous_size = 3
    api = await make_api(input_timeout=5)
    reply = await api.positions(*(position_input("rendezvous", wallet="0x" + f"{i:02x}" * 20) for i in range(3)))
    assert len(reply.body["data"]["walletPositions"]["data"]) == 3, reply.body


async def test_fetch_gets_a_deadline_within_its_budget(make_api, stand_ins):
    api = await make_api(input_timeout=7)
    await api.positions(position_input())
    (context,) = stand_ins.contexts
    remaining = context.deadline - asyncio.get_running_loop().time()
    assert 0 < remaining <= 7


async def test_identical_inputs_are_fetched_once_even_across_aliases(api, stand_ins):
    query = """query($a: [PositionInput!]!, $b: [PositionInput!]!) {
      first: walletPositions(inputs: $a) { data { ... on MorphoWalletPositions { walletAddress } } }
      second: walletPositions(inputs: $b) { data { ... on MorphoWalletPositions { walletAddress } } }
    }"""
    upper = "0x" + "AB" * 20
    reply = await api.query(
        query,
        {"a": [position_input(), position_input(wallet=upper)], "b": [position_input(), position_input(wallet=OTHER)]},
    )
    assert reply.status == 200
    assert [d["walletAddress"] for d in reply.body["data"]["first"]["data"]] == [WALLET, WALLET]
    assert [d["walletAddress"] for d in reply.body["data"]["second"]["data"]] == [WALLET, OTHER]
    assert sorted(stand_ins.calls) == [("morpho", 1, WALLET), ("morpho", 1, OTHER)]


async def test_empty_inputs_give_empty_lists(api):
    reply = await api.positions()
    assert reply.body == {"data": {"walletPositions": {"data": [], "errors": []}}}


async def test_schema_file_is_served_without_a_key(api):
    async with api.client.get("/schema.graphql") as response:
        assert response.status == 200
        assert await response.text() == schema.SDL


async def test_healthz_needs_no_key_and_spends_no_quota(make_api):
    api = await make_api(rate_limit=1)
    for _ in range(5):
        async with api.client.get("/healthz") as response:
            assert response.status == 200
            assert await response.json() == {"status": "ok"}
    assert (await api.positions(position_input())).status == 200


async def test_readyz_needs_no_key_and_says_why_it_is_not_ready(make_api):
    api = await make_api(rate_limit=1)
    for _ in range(3):
        async with api.client.get("/readyz") as response:
            assert (response.status, await response.json()) == (200, {"status": "ready"})
    assert (await api.positions(position_input())).status == 200, "no quota spent"
    api.app[server.READINESS].draining = True
    async with api.client.get("/readyz") as response:
        assert (response.status, await response.json()) == (
            503,
            {"status": "not ready", "reason": "draining after SIGTERM"},
        )
    assert server.Readiness().reason == "starting", "not ready before the app has started"


async def test_metrics_on_the_api_port_say_where_they_are(api):
    async with api.client.get("/metrics") as response:
        assert response.status == 404
        assert "--metrics-port" in (await response.json())["errors"][0]["message"]


async def test_unknown_path_is_a_json_404(api):
    async with api.client.get("/nowhere") as response:
        assert response.status == 404
        assert (await response.json())["errors"][0]["extensions"]["code"] == "NOT_FOUND"


def test_a_protocol_outside_the_union_is_refused_at_startup():
    async def fetch(ctx, address):
        return {}

    with pytest.raises(ValueError, match="not in the WalletPositions union"):
        schema.build(
            {
                "x": Protocol(
                    section=lambda chain: chain,
                    name="x",
                    type_name="XWalletPositions",
                    chains=frozenset({1}),
                    fetch=fetch,
                    kept=False,
                )
            }
        )


async def test_every_query_field_of_the_sdl_is_executable(api):
    reply = await api.query(
        QUICKSTART.replace(
            "vaultName assetsUsd apy shares",
            """
        type vaultAddress vaultName vaultSymbol asset { address symbol name decimals }
        shares assets assetsUsd apy __typename id category label
        legs { role key asset { address symbol name decimals } amount amountDecimal usd priceSource }""",
        ),
        {"inputs": [position_input()]},
    )
    position = reply.body["data"]["walletPositions"]["data"][0]["vaultV2Positions"][0]
    assert position == vault_position(WALLET, 1)["vaultV2Positions"][0]


async def test_per_input_errors_name_a_known_protocol_in_lower_case(api):
    reply = await api.positions(position_input("MORPHO", wallet="0x12"), position_input("NoSuch"))
    errors = reply.body["data"]["walletPositions"]["errors"]
    assert [e["protocol"] for e in errors] == ["morpho", "NoSuch"], "known: lower case; unknown: as sent"


@pytest.mark.parametrize("with_shares", [True, False])
async def test_a_selection_that_variables_change_is_answered(api, with_shares):
    """`@include(if: $variable)` makes the projection depend on the request: it is compiled per
    request from the chosen operation (a regression: this path once raised, a 500)."""
    document = (
        "query($inputs: [PositionInput!]!, $shares: Boolean!) { walletPositions(inputs: $inputs) { data {"
        " ... on MorphoWalletPositions { chainId vaultV2Positions { apy shares @include(if: $shares) } } } } }"
    )
    for _ in range(2):
        reply = await api.query(document, {"inputs": [position_input()], "shares": with_shares})
        assert reply.status == 200, reply.body
        (position,) = reply.body["data"]["walletPositions"]["data"][0]["vaultV2Positions"]
        assert set(position) == ({"apy", "shares"} if with_shares else {"apy"})
