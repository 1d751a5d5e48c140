"""Request-level rules of docs/decisions.md §4: refused before anything executes, never a 500."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from graphql import GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLUnionType, build_schema, parse
from graphql.language import (
    DocumentNode,
    FieldNode,
    InlineFragmentNode,
    Lexer,
    OperationDefinitionNode,
    Source,
    Token,
    TokenKind,
)

import graphql_http
from graphql_http.rules import cost_problem, input_count
from limits import MAX_BODY_BYTES, MAX_DEPTH, MAX_FIELDS, MAX_MERGED, MAX_TOKENS
from schema import SDL
from tests.conftest import QUICKSTART, WALLET, position_input
from tests.test_fault_schedules import SCHEMA, select_all, widest_document

INPUT = '{protocol: "morpho", chainId: 1, walletAddress: "%s"}' % WALLET

ITEM = '{protocol: "morpho", chainId: 1, walletAddress: "%s"}' % WALLET
FIELD = "walletPositions(inputs: [%s]) { errors { protocol } }"


def request_error(reply, status: int, code: str) -> str:
    assert reply.status == status, reply.body
    assert "data" not in reply.body
    assert reply.body["errors"], reply.body
    codes = {error["extensions"]["code"] for error in reply.body["errors"]}
    assert code in codes, reply.body
    return reply.body["errors"][0]["message"]


def items(n: int) -> str:
    return ", ".join([ITEM] * n)


@pytest.mark.parametrize(
    "query",
    [
        "{ %s }" % (FIELD % items(6)),
        "{ a: %s b: %s }" % (FIELD % items(3), FIELD % items(3)),
        "{ a: %s ...F } fragment F on Query { b: %s }" % (FIELD % items(5), FIELD % items(1)),
        "{ a: %s ... on Query { b: %s } }" % (FIELD % items(4), FIELD % items(2)),
        "{ a: %s b: %s c: %s d: %s e: %s f: %s }" % tuple([FIELD % items(1)] * 6),
    ],
)
async def test_more_than_five_inputs_over_the_operation_is_refused(api, stand_ins, query):
    message = request_error(await api.query(query), 400, "TOO_MANY_INPUTS")
    assert "limit is 5" in message
    assert stand_ins.calls == []


async def test_inputs_in_variables_are_counted(api, stand_ins):
    reply = await api.query(QUICKSTART, {"inputs": [position_input()] * 6})
    request_error(reply, 400, "TOO_MANY_INPUTS")
    assert reply.body["errors"][0]["extensions"]["inputs"] == 6
    assert stand_ins.calls == []
    assert (await api.query(QUICKSTART, {"inputs": [position_input()] * 5})).status == 200


async def test_variables_are_counted_per_alias(api):
    query = """query($x: [PositionInput!]!) { a: walletPositions(inputs: $x) { errors { protocol } }
                                              b: walletPositions(inputs: $x) { errors { protocol } } }"""
    request_error(await api.query(query, {"x": [position_input()] * 3}), 400, "TOO_MANY_INPUTS")


async def test_one_field_spread_twice_executes_once_and_counts_once(api):
    query = "{ ...F ...F ... on Query { ...F } } fragment F on Query { %s }" % (FIELD % items(5))
    reply = await api.query(query)
    assert reply.status == 200 and len(reply.body["data"]["walletPositions"]["errors"]) == 0


async def test_a_single_object_coerces_to_one_input(api):
    reply = await api.query("{ walletPositions(inputs: %s) { data { __typename } } }" % ITEM)
    assert reply.status == 200 and len(reply.body["data"]["walletPositions"]["data"]) == 1


def nested(depth: int) -> str:
    return "{ " + " { ".join(f"f{i}" for i in range(depth)) + " }" * depth


async def test_the_depth_limit_passes_and_one_more_is_refused(api):
    within = (await api.query(nested(MAX_DEPTH))).body["errors"]
    assert "DEPTH_LIMIT_EXCEEDED" not in {error["extensions"]["code"] for error in within}
    reply = await api.query(nested(MAX_DEPTH + 1))
    depth = [e["message"] for e in reply.body["errors"] if e["extensions"]["code"] == "DEPTH_LIMIT_EXCEEDED"]
    assert depth == [f"Query depth {MAX_DEPTH + 1} exceeds the limit of {MAX_DEPTH} levels of nesting."]


def test_the_depth_limit_is_the_schemas_deepest_path():
    """MAX_DEPTH lets every field of the schema be selected, and no more: the schema is a tree."""

    def deepest(graphql_type: Any) -> int:
        while isinstance(graphql_type, (GraphQLNonNull, GraphQLList)):
            graphql_type = graphql_type.of_type
        if isinstance(graphql_type, GraphQLUnionType):
            return max(deepest(member) for member in graphql_type.types)
        if isinstance(graphql_type, GraphQLObjectType):
            return 1 + max(deepest(field.type) for field in graphql_type.fields.values())
        return 0

    query = build_schema(SDL).query_type
    assert max(deepest(field.type) + 1 for field in query.fields.values()) == MAX_DEPTH


async def test_introspection_depth_counts_through_fragments(make_api):
    api = await make_api(enable_introspection=True)
    type_ref = "fragment O on __Type { %s name %s }" % ("ofType { " * 11, "}" * 11)
    query = "{ __schema { ...T } } fragment T on __Schema { types { fields { type { ...O } } } } " + type_ref
    assert "deeper than 15 levels" in request_error(await api.query(query), 400, "DEPTH_LIMIT_EXCEEDED")
    assert (await api.query(query.replace("ofType { " * 11, "ofType { " * 9).replace("}" * 11, "}" * 9))).status == 200


async def test_depth_is_checked_even_when_fields_are_unknown(api):
    request_error(await api.query(nested(MAX_DEPTH + 1)), 400, "DEPTH_LIMIT_EXCEEDED")


@pytest.mark.parametrize(
    "query",
    [
        "{ __schema { types { name } } }",
        '{ __type(name: "Query") { name } }',
        "{ alias: __schema { queryType { name } } }",
        "{ ...F } fragment F on Query { __schema { queryType { name } } }",
    ],
)
async def test_introspection_is_off_by_default(api, query):
    message = request_error(await api.query(query), 400, "INTROSPECTION_DISABLED")
    assert "GET /schema.graphql" in message


async def test_typename_is_allowed_without_introspection(api):
    assert (await api.query("{ __typename }")).body == {"data": {"__typename": "Query"}}


async def test_introspection_can_be_enabled(make_api):
    api = await make_api(enable_introspection=True)
    reply = await api.query("{ __schema { queryType { name } } }")
    assert reply.body == {"data": {"__schema": {"queryType": {"name": "Query"}}}}


async def test_body_over_100_kib_is_413(api):
    payload = {"query": QUICKSTART, "variables": {"inputs": [position_input()]}, "pad": "x" * MAX_BODY_BYTES}
    request_error(await api.post(payload), 413, "PAYLOAD_TOO_LARGE")


async def test_chunked_body_over_100_kib_is_413(api):
    async def chunks():
        for _ in range(30):
            yield b" " * 4096
        yield b'{"query": "{ __typename }"}'

    async with api.client.post(
        "/graphql", data=chunks(), headers={"Content-Type": "application/json", "x-api-key": api.key}
    ) as response:
        assert response.status == 413
        assert (await response.json())["errors"][0]["extensions"]["code"] == "PAYLOAD_TOO_LARGE"


async def test_body_just_under_the_limit_is_served(api):
    payload = {"query": QUICKSTART, "variables": {"inputs": [position_input()]}}
    raw = json.dumps(payload).encode()
    raw = raw[:-1] + b" " * (MAX_BODY_BYTES - len(raw)) + b"}"
    assert len(raw) == MAX_BODY_BYTES
    assert (await api.post(raw=raw)).status == 200


async def test_batching_is_refused(api, stand_ins):
    reply = await api.post([{"query": "{ __typename }"}, {"query": "{ __typename }"}])
    request_error(reply, 400, "BATCHING_NOT_SUPPORTED")


async def test_several_operations_need_an_operation_name(api):
    query = "query A { __typename } query B { walletPositions(inputs: []) { errors { protocol } } }"
    message = request_error(await api.query(query), 400, "GRAPHQL_VALIDATION_FAILED")
    assert "operationName" in message
    chosen = await api.post({"query": query, "operationName": "B"})
    assert chosen.body == {"data": {"walletPositions": {"errors": []}}}
    message = request_error(await api.post({"query": query, "operationName": "C"}), 400, "GRAPHQL_VALIDATION_FAILED")
    assert message == "Unknown operation named 'C'."


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH"])
@pytest.mark.parametrize("with_key", [True, False])
async def test_other_methods_are_405_with_allow_post(api, method, with_key):
    headers = {"x-api-key": api.key} if with_key else {}
    async with api.client.request(method, "/graphql", headers=headers) as response:
        assert response.status == 405
        assert response.headers["Allow"] == "POST"
        assert ("RateLimit" in response.headers) is with_key, "an authenticated request counts"
        body = await response.json()
        assert "data" not in body and body["errors"][0]["extensions"]["code"] == "METHOD_NOT_ALLOWED"


NESTED = "walletPositions(inputs: []) { data { %s } }" % " ".join(
    ["... on MorphoWalletPositions { %s }" % " ".join(["vaultV1Positions { asset { address } }"] * 3)] * 3
)


@pytest.mark.parametrize(
    "query, fragment",
    [
        (
            "{ walletPositions(inputs: []) { %s } }" % " ".join(["errors { protocol }"] * (MAX_MERGED + 1)),
            f"Field 'walletPositions.errors' is selected {MAX_MERGED + 1} times",
        ),
        (
            "{ %s }" % " ".join([NESTED] * 4),
            f"Field 'walletPositions.data.vaultV1Positions' is selected {MAX_MERGED + 1} times or more",
        ),
        (
            "{ walletPositions(inputs: []) { %s } x: walletPositions(inputs: []) { %s } } %s"
            % (
                " ".join(f"...F{i % 8}" for i in range(33)),
                " ".join(f"...F{i % 8}" for i in range(32)),
                " ".join(f"fragment F{i} on WalletPositionsResult {{ e{i}: errors {{ protocol }} }}" for i in range(8)),
            ),
            "65 fragment spreads",
        ),
        (" ".join(f"fragment F{i} on Query {{ __typename }}" for i in range(33)) + " { __typename }", "33 fragments"),
        ("{ %s }" % " ".join(f"a{i}: __typename" for i in range(33)), "33 aliases"),
        (
            "{ walletPositions(inputs: []) { %s } }" % " ".join(f"e{i}: errors {{ protocol }}" for i in range(65)),
            "A selection set holds 65 selections",
        ),
        (
            "{ %s }"
            % " ".join(f"w{i}: walletPositions(inputs: []) {{ errors {{ {' protocol' * 60} }} }}" for i in range(13)),
            f"has {13 * 62} fields",
        ),
        (
            "{ %s } fragment F on WalletPositionsResult { %s }"
            % (
                " ".join(f"w{i}: walletPositions(inputs: []) {{ ...F }}" for i in range(16)),
                " ".join(
                    f"e{i}: errors {{ protocol chainId walletAddress blockNumber error {{ code message }} }}"
                    for i in range(16)
                ),
            ),
            f"selects {16 * (1 + 16 * 8)} fields",
        ),
    ],
)
async def test_documents_too_costly_to_validate_are_refused(api, stand_ins, query, fragment):
    assert fragment in request_error(await api.query(query), 400, "QUERY_TOO_COMPLEX")
    assert stand_ins.calls == []


async def test_the_bounds_admit_the_widest_document_a_client_needs_and_are_frozen_at_it(api):
    """The bounds are the widest document a client needs (limits.py), computed here from the
    schema: a protocol whose types widen it past them fails here; the bounds stay where they are
    (within a tenth above it), whatever the number of protocols."""
    document = widest_document()
    parsed = parse(document, max_tokens=MAX_TOKENS)
    assert cost_problem(parsed) is None
    tokens = len(list(tokens_of(document)))
    fields = sum(1 for _ in fields_of(parsed))
    assert 0.85 * MAX_TOKENS < tokens <= MAX_TOKENS and 0.85 * MAX_FIELDS < fields <= MAX_FIELDS, (tokens, fields)
    assert cost_problem(parse(widest_document(6), max_tokens=2 * MAX_TOKENS)) is not None, "a sixth member is too many"
    variables = {"inputs": [], "pools": [], "from": {"blockNumber": 0}}
    reply = await api.query(document, variables)
    assert reply.status == 200 and "errors" not in reply.body, reply.body


@pytest.mark.parametrize(
    ("argument", "variables", "chains"),
    [
        ("", {}, [None]),
        ("chainIds: null", {}, [None]),
        ("chainIds: 1", {}, [1]),
        ("chainIds: [1, 10, 8453]", {}, [3]),
        ("chainIds: $chains", {"chains": [1, 10]}, [2]),
        ("chainIds: $chains", {"chains": None}, [None]),
        ("chainIds: $chains", {}, [None]),
    ],
)
def test_a_portfolio_fills_the_operation_and_its_chains_are_counted_as_the_resolver_reads_them(
    argument, variables, chains
):
    """What the rate limit charges (one request a chain; None: the default chains) is what the
    resolver asks: a null or left-out `chainIds` is every default chain, a lone id one chain."""
    document = parse(f'query($chains: [Int!]) {{ portfolio(walletAddress: "0x", {argument}) {{ walletAddress }} }}')
    counted = input_count(document.definitions[0], {})
    assert counted(variables) == 5 and counted.chains_asked(variables) == chains


async def test_the_widest_portfolio_document_a_client_needs_is_within_the_bounds(api):
    """A portfolio's every field: its entries through the interfaces and the own fields of the five
    largest members (more are asked again at the same blocks), its empty checks' entries through
    the interfaces (they hold nothing a member's own fields would show), provenance everywhere."""
    members = SCHEMA.type_map["WalletPositions"].types
    widths = {member.name: len(select_all(member, skip=())) for member in members}
    largest = sorted(widths, key=lambda name: (-widths[name], name))[:5]
    coverage = select_all(SCHEMA.type_map["ChainCoverage"], skip=("emptyEntries",))[1:-1]
    document = (
        "query($wallet: String!) { portfolio(walletAddress: $wallet) { walletAddress "
        f"data {select_all(SCHEMA.type_map['WalletPositions'], skip=(), members=largest)} "
        f"errors {select_all(SCHEMA.type_map['PositionError'], skip=())} "
        f"coverage {{ {coverage} emptyEntries {select_all(SCHEMA.type_map['WalletPositions'], skip=(), members=())} }}"
        " } }"
    )
    assert cost_problem(parse(document, max_tokens=MAX_TOKENS)) is None
    reply = await api.query(document, {"wallet": "0x" + "1" * 40})
    assert reply.status == 200 and "portfolio" in reply.body["data"], reply.body


async def test_a_document_of_every_member_is_refused_and_told_to_use_the_interfaces(api):
    """Every field of every member of WalletPositions: wider than any five inputs need."""
    query = (
        "query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) "
        + select_all(SCHEMA.type_map["WalletPositionsResult"])
        + " }"
    )
    message = request_error(await api.query(query, {"inputs": []}), 400, "GRAPHQL_PARSE_FAILED")
    assert f"more than {MAX_TOKENS} tokens" in message and "... on WalletEntry" in message and "allPositions" in message
    many = "{ walletPositions(inputs: []) { data { %s } } }" % " ".join(
        f"... on {member.name} {{ protocol chainId blockNumber warnings {{ code message target }} }}"
        for member in SCHEMA.type_map["WalletPositions"].types
    )
    message = request_error(await api.query(many), 400, "QUERY_TOO_COMPLEX")
    assert f"the limit is {MAX_MERGED}." in message and "through their interface (`... on WalletEntry`" in message
    wide = "{ %s }" % " ".join(
        f"w{i}: walletPositions(inputs: []) {{ errors {{ {' protocol' * 60} }} }}" for i in range(13)
    )
    assert "... on WalletEntry" in request_error(await api.query(wide), 400, "QUERY_TOO_COMPLEX")


def tokens_of(document: str) -> Iterator[Token]:
    lexer = Lexer(Source(document))
    while (token := lexer.advance()).kind != TokenKind.EOF:
        yield token


def fields_of(document: DocumentNode) -> Iterator[FieldNode]:
    pending = [d.selection_set for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    while pending:
        for selection in pending.pop().selections:
            if isinstance(selection, FieldNode):
                yield selection
            if isinstance(selection, (FieldNode, InlineFragmentNode)) and selection.selection_set:
                pending.append(selection.selection_set)


async def test_inputs_are_counted_before_validation_errors_are_reported(api):
    """A document both too large and invalid is refused for its inputs, when first seen and when its
    analysis comes from the cache."""

    def query(count: int) -> str:
        return "{ %s }" % " ".join(
            f"a{i}: walletPositions(inputs: [{INPUT}]) {{ errors {{ nope }} }}" for i in range(count)
        )

    for _ in range(2):
        request_error(await api.query(query(6)), 400, "TOO_MANY_INPUTS")
        request_error(await api.query(query(5)), 400, "GRAPHQL_VALIDATION_FAILED")


@pytest.mark.parametrize(
    "raw, code, fragment",
    [
        (b"not json", "BAD_REQUEST", "not valid JSON"),
        (b"", "BAD_REQUEST", "not valid JSON"),
        (b"\xff\xfe\x00garbage", "BAD_REQUEST", "not valid JSON"),
        (b"[" * 50_000 + b"]" * 50_000, "BAD_REQUEST", "not valid JSON"),
        (b'"just a string"', "BAD_REQUEST", "JSON object"),
        (b"42", "BAD_REQUEST", "JSON object"),
        (b"null", "BAD_REQUEST", "JSON object"),
        (b"{}", "BAD_REQUEST", '"query" must be'),
        (b'{"query": 42}', "BAD_REQUEST", '"query" must be'),
        (b'{"query": ["{ __typename }"]}', "BAD_REQUEST", '"query" must be'),
        (b'{"query": "   "}', "BAD_REQUEST", '"query" must be'),
        (b'{"query": "{ __typename }", "variables": "{}"}', "BAD_REQUEST", '"variables" must be'),
        (b'{"query": "{ __typename }", "variables": []}', "BAD_REQUEST", '"variables" must be'),
        (b'{"query": "{ __typename }", "operationName": 7}', "BAD_REQUEST", '"operationName" must be'),
        (b'{"query": "{ __typename }", "extensions": 7}', "BAD_REQUEST", '"extensions" must be'),
        (b'{"query": "{ walletPositions("}', "GRAPHQL_PARSE_FAILED", "Syntax Error"),
        (b'{"query": "' + b"{a" * 20_000 + b'"}', "GRAPHQL_PARSE_FAILED", ""),
        (b'{"query": "{ nope }"}', "GRAPHQL_VALIDATION_FAILED", "Cannot query field 'nope'"),
        (b'{"query": "{ walletPositions { errors { protocol } } }"}', "GRAPHQL_VALIDATION_FAILED", "is required"),
        (b'{"query": "mutation { x }"}', "GRAPHQL_VALIDATION_FAILED", "Cannot query field 'x' on type 'Mutation'"),
        (b'{"query": "subscription { x }"}', "GRAPHQL_VALIDATION_FAILED", "subscription"),
    ],
)
async def test_malformed_requests_are_400_with_a_clear_message(api, stand_ins, raw, code, fragment):
    message = request_error(await api.post(raw=raw), 400, code)
    assert fragment in message
    assert stand_ins.calls == []


@pytest.mark.parametrize(
    "variables, fragment",
    [
        ({"inputs": "nope"}, "inputs"),
        ({"inputs": [{"protocol": "morpho", "chainId": "1", "walletAddress": WALLET}]}, "chainId"),
        ({"inputs": [{"protocol": "morpho", "chainId": 2**40, "walletAddress": WALLET}]}, "chainId"),
        ({"inputs": [{"protocol": "morpho", "walletAddress": WALLET}]}, "chainId"),
        ({"inputs": [{"protocol": "morpho", "chainId": 1, "walletAddress": WALLET, "extra": 1}]}, "extra"),
        ({}, "inputs"),
        ({"inputs": None}, "inputs"),
    ],
)
async def test_wrong_variable_types_are_400(api, stand_ins, variables, fragment):
    message = request_error(await api.query(QUICKSTART, variables), 400, "BAD_USER_INPUT")
    assert fragment in message
    assert stand_ins.calls == []


async def test_wrong_content_type_is_415(api):
    reply = await api.post({"query": "{ __typename }"}, headers={"Content-Type": "text/plain"})
    request_error(reply, 415, "UNSUPPORTED_MEDIA_TYPE")


async def test_json_content_type_with_charset_is_accepted(api):
    reply = await api.post({"query": "{ __typename }"}, headers={"Content-Type": "application/json; charset=utf-8"})
    assert reply.status == 200


LARGE = "{ %s }" % " ".join(
    f"a{i}: walletPositions(inputs: []) {{ errors {{ protocol chainId walletAddress }} }}" for i in range(20)
)


async def test_large_documents_are_prepared_in_the_worker_process_with_the_same_answers(api):
    import server

    assert len(LARGE) > graphql_http.INLINE_QUERY_CHARS
    reply = await api.query(LARGE)
    assert reply.status == 200 and reply.body["data"]["a19"] == {"errors": []}
    refused = await api.query(LARGE.replace("protocol chainId", "protocol nope"))
    assert "Cannot query field 'nope'" in request_error(refused, 400, "GRAPHQL_VALIDATION_FAILED")
    too_many = await api.query(LARGE.replace("inputs: []", f"inputs: [{INPUT}]"))
    assert request_error(too_many, 400, "TOO_MANY_INPUTS")
    assert api.app[server.PREPARER]._pool is not None, "the worker was used"


async def test_a_dead_validation_worker_is_replaced(api, caplog):
    import os
    import signal

    import server

    assert (await api.query(LARGE)).status == 200
    pool = api.app[server.PREPARER]._pool
    for pid in list(pool._processes):
        os.kill(pid, signal.SIGKILL)
    await asyncio.sleep(0.5)
    assert (await api.query(LARGE + " ")).status == 200, "a new document, analysed inline meanwhile"
    assert any("validation worker died" in r.getMessage() for r in caplog.records)
    assert (await api.query(LARGE + "  ")).status == 200
    assert api.app[server.PREPARER]._pool is not pool, "a new worker"
