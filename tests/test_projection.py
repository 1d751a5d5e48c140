"""The projection (graphql_http/projection.py) answers exactly as graphql-core's executor does.

Documents are generated over the service's real schema (aliases, repeated fields, inline and named
fragments, @skip/@include on variables, __typename) and so is the data below walletPositions,
sometimes irregular (a null where the type forbids one, an int where a Float or String is
expected, a bool for an Int, an out-of-range Int, an unknown __typename, a list for an object, a
callable): both executors must give the same data and the same errors.
"""

from __future__ import annotations

import math
from typing import Any

from graphql import (
    Executor,
    GraphQLEnumType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLUnionType,
    build_schema,
    execute,
    parse,
    validate,
)
from graphql.execution.collect_fields import FragmentDetails
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schema as service_schema
from graphql_http.projection import ProjectingExecutor, Projection, selects_by_variables
from tests.conftest import examples

SCHEMA = build_schema(service_schema.SDL)
SCHEMA.query_type.fields["walletPositions"].resolve = lambda root, _info, inputs: root
RESULT = SCHEMA.type_map["WalletPositionsResult"]


def selection(
    draw: Any,
    graphql_type: Any,
    depth: int,
    fragments: dict[str, str],
    flags: list[str],
    own: bool = False,
    prefix: str = "",
) -> str:
    """A selection set for `graphql_type` (object, interface or union), drawn field by field; `own`:
    an interface's own fields (not its members' fragments); `prefix`: an alias for every field (the
    types of an interface may give one field name two types, BorrowRisk and BorrowRisk!, which one
    response key cannot hold)."""
    while isinstance(graphql_type, (GraphQLNonNull, GraphQLList)):
        graphql_type = graphql_type.of_type
    if not own and isinstance(graphql_type, (GraphQLUnionType, GraphQLInterfaceType)):
        parts = ["__typename"]
        if isinstance(graphql_type, GraphQLInterfaceType) and draw(st.booleans()):
            parts.append(selection(draw, graphql_type, depth, fragments, flags, own=True)[2:-2])
        if isinstance(graphql_type, GraphQLUnionType):
            members = [member for member in graphql_type.types if draw(st.booleans())]
        else:  # a few of its types: every list of positions under every member would outgrow the validation budget
            members = draw(st.lists(st.sampled_from(SCHEMA.get_possible_types(graphql_type)), max_size=2, unique=True))
        for member in members:
            prefix = f"{member.name}_" if isinstance(graphql_type, GraphQLInterfaceType) else ""
            parts.append(f"... on {member.name} {selection(draw, member, depth + 1, fragments, flags, prefix=prefix)}")
        return "{ " + " ".join(parts) + " }"
    names = sorted(graphql_type.fields)
    chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=min(6, len(names))))
    parts = []
    for index, name in enumerate(chosen):
        field_type = graphql_type.fields[name].type
        inner = field_type
        while isinstance(inner, (GraphQLNonNull, GraphQLList)):
            inner = inner.of_type
        sub = ""
        if isinstance(inner, (GraphQLObjectType, GraphQLUnionType, GraphQLInterfaceType)):
            if depth >= 4:
                continue
            sub = " " + selection(draw, inner, depth + 1, fragments, flags)
        alias = f"{prefix}{name}: " if prefix else f"a{index}_{name}: " if draw(st.integers(0, 4)) == 0 else ""
        directive = ""
        if draw(st.integers(0, 6)) == 0:
            flag = f"f{len(flags)}"
            flags.append(flag)
            directive = f" @{draw(st.sampled_from(['skip', 'include']))}(if: ${flag})"
        parts.append(f"{alias}{name}{directive}{sub}")
    if draw(st.integers(0, 5)) == 0:
        parts.append("__typename")
    if draw(st.integers(0, 5)) == 0 and parts:
        name = f"F{len(fragments)}"
        fragments[name] = f"fragment {name} on {graphql_type.name} {{ {' '.join(parts)} }}"
        parts.append(f"...{name}")
    return "{ " + " ".join(parts or ["__typename"]) + " }"


IRREGULAR = [None, 7, 2.5, True, "x", 2**40, [], {}, lambda *_: 1]


def value(draw: Any, graphql_type: Any, depth: int = 0) -> Any:
    """Data for `graphql_type`, irregular about once in forty values."""
    if draw(st.integers(0, 39)) == 0:
        return draw(st.sampled_from(IRREGULAR))
    if isinstance(graphql_type, GraphQLNonNull):
        return value(draw, graphql_type.of_type, depth)
    if draw(st.integers(0, 9)) == 0:
        return None
    if isinstance(graphql_type, GraphQLList):
        return [
            value(draw, graphql_type.of_type, depth + 1) for _ in range(draw(st.integers(0, 2 if depth < 3 else 0)))
        ]
    if isinstance(graphql_type, (GraphQLUnionType, GraphQLInterfaceType)):
        member = draw(st.sampled_from(SCHEMA.get_possible_types(graphql_type)))
        inner = value(draw, member, depth)
        if isinstance(inner, dict):
            inner["__typename"] = member.name if draw(st.integers(0, 19)) else "Nope"
        return inner
    if isinstance(graphql_type, GraphQLObjectType):
        return {name: value(draw, field.type, depth + 1) for name, field in graphql_type.fields.items()}
    if isinstance(graphql_type, GraphQLEnumType):
        return draw(st.sampled_from(sorted(graphql_type.values)))
    return draw(
        {
            "String": st.text(max_size=5),
            "Int": st.integers(-(2**31), 2**31 - 1),
            "Float": st.floats(allow_nan=False, allow_infinity=False) | st.integers(-5, 5),
            "Boolean": st.booleans(),
        }[graphql_type.name]
    )


@st.composite
def cases(draw: Any) -> tuple[str, dict[str, bool], list[Any]]:
    fragments: dict[str, str] = {}
    flags: list[str] = []
    body = selection(draw, RESULT, 0, fragments, flags)
    head = "query Q" + (f"({', '.join(f'${flag}: Boolean!' for flag in flags)})" if flags else "")
    document = f"{head} {{ walletPositions(inputs: []) {body} }} " + " ".join(fragments.values())
    variables = {flag: draw(st.booleans()) for flag in flags}
    return document, variables, [value(draw, GraphQLNonNull(RESULT)) for _ in range(3)]


def same_answers(document_text: str, variables: dict[str, bool], roots: list[Any]) -> None:
    document = parse(document_text)
    assert validate(SCHEMA, document) == [], document_text
    operation = document.definitions[0]
    fragments = {d.name.value: d for d in document.definitions[1:]}
    details = {name: FragmentDetails(definition) for name, definition in fragments.items()}
    shared = None if selects_by_variables(operation, fragments) else Projection(SCHEMA, details, operation)
    for root in roots:
        expected = execute(SCHEMA, document, root, variable_values=variables)
        projection = shared or Projection(SCHEMA, details, operation)
        got = execute(
            SCHEMA, document, root, variable_values=variables, executor_class=ProjectingExecutor, projection=projection
        )
        assert _comparable(got.formatted) == _comparable(expected.formatted), document_text


def _comparable(value: Any) -> Any:
    """Floats compared by their bits' meaning (NaN never occurs; -0.0 and 0.0 are told apart)."""
    if isinstance(value, float):
        return ("float", value, math.copysign(1, value))
    if isinstance(value, dict):
        return {key: _comparable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    return value


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_projection_equals_graphql_core(case: tuple[str, dict[str, bool], list[Any]]) -> None:
    same_answers(*case)


def test_a_document_without_directives_shares_its_compiled_projection(monkeypatch) -> None:
    """The projection answers (graphql-core completes nothing at the root) and is compiled once."""
    completed_by_graphql_core = []
    original = Executor.complete_value
    monkeypatch.setattr(
        Executor,
        "complete_value",
        lambda self, *args: (completed_by_graphql_core.append(args[3]), original(self, *args))[1],
    )
    document = parse("{ walletPositions(inputs: []) { data { ... on MorphoWalletPositions { chainId } } } }")
    operation = document.definitions[0]
    projection = Projection(SCHEMA, {}, operation)
    root = {"data": [{"__typename": "MorphoWalletPositions", "chainId": 1}], "errors": []}
    for chain_id in (1, 8453):
        root["data"][0]["chainId"] = chain_id
        got = execute(SCHEMA, document, root, executor_class=ProjectingExecutor, projection=projection)
        assert got.formatted == {"data": {"walletPositions": {"data": [{"chainId": chain_id}]}}}
        compiled = dict(projection._objects)
    assert completed_by_graphql_core == []
    assert projection._objects == compiled and len(compiled) == 2, "result and position, compiled once"
    assert not selects_by_variables(operation, {})
    conditional = parse("query($x: Boolean!) { walletPositions(inputs: []) { errors @skip(if: $x) { chainId } } }")
    assert selects_by_variables(conditional.definitions[0], {})


def test_an_irregular_value_gets_graphql_cores_errors() -> None:
    document = parse("{ walletPositions(inputs: []) { data { ... on MorphoWalletPositions { chainId } } } }")
    root = {"data": [{"__typename": "MorphoWalletPositions", "chainId": "not an int"}], "errors": []}
    got = execute(
        SCHEMA,
        document,
        root,
        executor_class=ProjectingExecutor,
        projection=Projection(SCHEMA, {}, document.definitions[0]),
    )
    assert got.data is None and "Int cannot represent" in got.errors[0].message
    assert got.errors[0].path == ["walletPositions", "data", 0, "chainId"]
