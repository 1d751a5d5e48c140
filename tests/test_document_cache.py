"""The cache of analysed documents (graphql_http.DocumentCache): reused only for the same text, the
same schema and the same introspection setting, while every request-level rule still applies to
each request."""

from __future__ import annotations

import json

import pytest
from graphql import build_schema

import graphql_http
import schema
import server
from graphql_http import operation
from tests.test_request_limits import INPUT, request_error

SDL = schema.SDL
QUERY = "query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) { errors { chainId } } }"


def body(query: str, inputs: int = 1, **extra: object) -> bytes:
    variables = {"inputs": [{"protocol": "morpho", "chainId": 1, "walletAddress": "0x" + "1" * 40}] * inputs}
    return json.dumps({"query": query, "variables": variables, **extra}).encode()


@pytest.fixture
def parses(monkeypatch):
    """How often graphql_http parses a document."""
    count = []
    original = operation.parse
    monkeypatch.setattr(operation, "parse", lambda *args, **kwargs: (count.append(1), original(*args, **kwargs))[1])
    return count


async def test_a_document_is_parsed_once_and_a_different_text_again(parses):
    preparer = graphql_http.Preparer(build_schema(SDL), SDL, 10)
    for _ in range(3):
        assert (await preparer.prepare(body(QUERY), False)).inputs == 1
    assert len(parses) == 1 and preparer.cache.hits == 2
    await preparer.prepare(body(QUERY + " "), False)
    assert len(parses) == 2, "one more space is another document"
    assert len(preparer.cache) == 2


def test_another_schema_never_sees_this_ones_analysis():
    with_field = build_schema(SDL.replace("type Query {", "type Query {\n  extra: Int"))
    without = build_schema(SDL)
    cache = graphql_http.DocumentCache(10)
    text = "{ extra }"
    cache.put(with_field, False, text, graphql_http.analyse(text, with_field, False))
    assert cache.get(with_field, False, text).invalid is None
    assert cache.get(without, False, text) is None
    assert cache.get(with_field, True, text) is None, "introspection on is another rule set"
    stale = graphql_http.analyse(text, without, False)
    assert "Cannot query field 'extra'" in stale.invalid.errors[0]["message"]


async def test_the_request_rules_apply_to_every_request_of_a_cached_document():
    preparer = graphql_http.Preparer(build_schema(SDL), SDL, 10)
    assert (await preparer.prepare(body(QUERY, 5), False)).inputs == 5
    with pytest.raises(graphql_http.RequestError) as refused:
        await preparer.prepare(body(QUERY, 6), False)
    assert refused.value.errors[0]["extensions"]["code"] == "TOO_MANY_INPUTS"
    bad = json.dumps({"query": QUERY, "variables": {"inputs": [{"protocol": 1}]}}).encode()
    with pytest.raises(graphql_http.RequestError) as refused:
        await preparer.prepare(bad, False)
    assert refused.value.errors[0]["extensions"]["code"] == "BAD_USER_INPUT"
    with pytest.raises(graphql_http.RequestError) as refused:
        await preparer.prepare(body(QUERY, operationName="Other"), False)
    assert "Unknown operation" in refused.value.errors[0]["message"]
    introspect = b'{"query": "{ __schema { queryType { name } } }"}'
    with pytest.raises(graphql_http.RequestError) as refused:
        await preparer.prepare(introspect, False)
    assert refused.value.errors[0]["extensions"]["code"] == "INTROSPECTION_DISABLED"
    assert (await preparer.prepare(introspect, True)).inputs == 0
    assert preparer.cache.hits == 3, "the same document: other variables, another operation name"


async def test_refusals_are_cached_and_raised_anew(parses):
    preparer = graphql_http.Preparer(build_schema(SDL), SDL, 10)
    errors = []
    for _ in range(3):
        with pytest.raises(graphql_http.RequestError) as refused:
            await preparer.prepare(b'{"query": "{ walletPositions("}', False)
        errors.append(refused.value)
    assert len(parses) == 1
    assert errors[0] is not errors[1] and errors[0].errors == errors[1].errors


async def test_the_cache_keeps_the_most_recently_used_documents_within_its_size():
    preparer = graphql_http.Preparer(build_schema(SDL), SDL, 2)
    texts = [QUERY + " " * i for i in range(3)]
    for text in (texts[0], texts[1], texts[0], texts[2]):
        await preparer.prepare(body(text), False)
    assert len(preparer.cache) == 2
    schema_ = preparer.schema
    assert preparer.cache.get(schema_, False, texts[0]) is not None
    assert preparer.cache.get(schema_, False, texts[1]) is None, "least recently used"
    assert preparer.cache.get(schema_, False, texts[2]) is not None


async def test_the_app_takes_its_cache_size_from_the_setting(make_api):
    api = await make_api(document_cache_size=1)
    for query in ("{ __typename }", "{ __typename } ", "{ __typename }"):
        assert (await api.query(query)).status == 200
    cache = api.app[server.PREPARER].cache
    assert len(cache) == 1 and cache.hits == 0 and cache.misses == 3
    request_error(
        await api.query(
            "{ %s }"
            % " ".join(f"a{i}: walletPositions(inputs: [{INPUT}]) {{ errors {{ chainId }} }}" for i in range(6))
        ),
        400,
        "TOO_MANY_INPUTS",
    )
