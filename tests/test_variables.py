"""The coercion walked once per operation (graphql_http/variables.py) answers exactly as graphql-core's
get_variable_values does: the same coerced values and sources, or the same errors.

Values are generated for every variable of two schemas, the service's own and one made to reach
each branch (nullable and non-null leaves of every built-in scalar, an enum, lists of lists,
defaults on variables and on fields, a one-of input, a recursive input, `out_type`), often
well-formed and often not (a missing or unknown field, another type, a non-list for a list,
an out-of-range Int, a float for an Int, a string for an enum).
"""

from __future__ import annotations

import inspect
import math
import sys
from typing import Any

import pytest
from graphql import (
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLSchema,
    OperationDefinitionNode,
    Undefined,
    build_schema,
    parse,
    type_from_ast,
)
from graphql.execution import values
from graphql.execution.values import VariableValues, get_variable_values
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import schema as service_schema
from graphql_http.variables import Coercer
from tests.conftest import examples

SERVICE = build_schema(service_schema.SDL)
SERVICE_OPERATION = """query Q($inputs: [PositionInput!]!, $pools: [PoolInput!], $one: PositionInput,
  $block: Int, $name: String!) { walletPositions(inputs: $inputs) { __typename } }"""

MADE_SDL = """
    enum Colour { RED GREEN }
    scalar Odd
    input Leaves {
      s: String, i: Int!, f: Float, b: Boolean, id: ID, c: Colour, n: [[Int!]], d: Int = 3, nd: String! = "x"
    }
    input Pick @oneOf { a: Int, b: String }
    input Tree { label: String, children: [Tree!] }
    input Fork { left: Fork, right: Fork, leaf: Int }
    type Query { q(l: Leaves, p: Pick, t: Tree, f: Fork, o: Odd): Int }
"""


def made() -> GraphQLSchema:
    """The schema of MADE_SDL, its custom scalar taking odd numbers only (and saying so by
    returning Undefined, as a custom scalar may)."""
    schema = build_schema(MADE_SDL)
    schema.type_map["Odd"].coerce_input_value = lambda value: value if value % 2 else Undefined
    return schema


MADE = made()
MADE_OPERATION = """query Q($l: Leaves!, $ls: [Leaves], $s: String, $i: Int!, $f: Float, $b: Boolean!, $id: ID,
  $c: Colour, $deep: [[[Int]!]], $tags: [String], $odd: [Odd]) { q }"""
"""Every variable of a type the walk takes: one variable it does not take (see below) leaves the
whole operation to graphql-core."""

FIELDS = ["s", "i", "f", "b", "id", "c", "n", "d", "nd", "protocol", "chainId", "walletAddress", "blockNumber", "x"]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**32), 2**32),
    st.integers(-5, 5),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1.0, -0.0, 2.5, float("inf")]),
    st.text(max_size=4),
    st.sampled_from(["RED", "GREEN", "BLUE", "morpho", "0x" + "ab" * 20]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(FIELDS), inner, max_size=5),
    max_leaves=12,
)


def rarely(draw: Any, n: int) -> bool:
    """True about once in n draws: a value in the middle, which hypothesis does not favour as it
    does the ends of a range."""
    return bool(draw(st.integers(0, n - 1)) == n // 2)


def well_formed(draw: Any, graphql_type: Any, depth: int = 0) -> Any:
    """A value that fits `graphql_type`, now and then with a flaw drawn from json_values or a
    required field left out: about half the values are well-formed throughout."""
    if rarely(draw, 150):
        return draw(json_values)
    non_null = isinstance(graphql_type, GraphQLNonNull)
    inner = graphql_type.of_type if non_null else graphql_type
    if not non_null and rarely(draw, 6):
        return None
    if isinstance(inner, GraphQLList):
        return [well_formed(draw, inner.of_type, depth + 1) for _ in range(draw(st.integers(0, 2 if depth < 4 else 0)))]
    if isinstance(inner, GraphQLInputObjectType):
        fields = {}
        for name, field in inner.fields.items():
            required = isinstance(field.type, GraphQLNonNull) and field.default is None
            if not rarely(draw, 60 if required else 10 if field.default else 2) and depth < 5:
                fields[name] = well_formed(draw, field.type, depth + 1)
        if rarely(draw, 60):
            fields["x"] = draw(json_values)
        return fields
    return draw(
        {
            "String": st.text(max_size=4),
            "ID": st.text(max_size=4) | st.integers(0, 9),
            "Int": st.integers(-(2**31), 2**31 - 1),
            "Float": st.floats(allow_nan=False, allow_infinity=False) | st.integers(-5, 5),
            "Boolean": st.booleans(),
            "Colour": st.sampled_from(["RED", "GREEN"]),
            "Odd": st.integers(-5, 5),
        }[inner.name]
    )


def operation(text: str) -> OperationDefinitionNode:
    node = parse(text).definitions[0]
    assert isinstance(node, OperationDefinitionNode)
    return node


def assert_same(schema: GraphQLSchema, node: OperationDefinitionNode, inputs: dict[str, Any]) -> None:
    expected = get_variable_values(schema, node.variable_definitions, inputs)
    got = Coercer(schema, node.variable_definitions)(inputs)
    if isinstance(expected, VariableValues):
        assert isinstance(got, VariableValues), inputs
        assert _comparable(got.coerced) == _comparable(expected.coerced), inputs
        assert _sources(got) == _sources(expected), inputs
    else:
        assert isinstance(got, list), inputs
        assert [error.formatted for error in got] == [error.formatted for error in expected], inputs


def _sources(variables: VariableValues) -> dict[str, Any]:
    """Signatures compared by their types' names: graphql-core makes new wrapping types each time."""
    return {
        name: (source.signature._replace(type=str(source.signature.type)), source.value)
        for name, source in variables.sources.items()
    }


def _comparable(value: Any) -> Any:
    """-0.0 and 0.0 told apart, and a float told from an equal int."""
    if isinstance(value, float):
        return ("float", math.copysign(1.0, value), abs(value))
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    if isinstance(value, dict):
        return {key: _comparable(item) for key, item in value.items()}
    return value


@st.composite
def variables_for(draw: Any, schema: GraphQLSchema, text: str) -> dict[str, Any]:
    node = operation(text)
    chosen: dict[str, Any] = {}
    for definition in node.variable_definitions:
        if rarely(draw, 30):
            continue
        chosen[definition.variable.name.value] = well_formed(draw, type_from_ast(schema, definition.type))
    return chosen


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variables_for(SERVICE, SERVICE_OPERATION))
def test_the_service_schema_variables_coerce_as_graphql_core_does(inputs: dict[str, Any]) -> None:
    assert_same(SERVICE, operation(SERVICE_OPERATION), inputs)


WELL_FORMED = {"l": {"i": 1, "d": 2, "nd": "y"}, "i": 1, "b": True}


@settings(max_examples=examples(600), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variables_for(MADE, MADE_OPERATION))
@example({**WELL_FORMED, "tags": "ab"})
@example({**WELL_FORMED, "tags": 7, "deep": [[1, None]]})
@example({**WELL_FORMED, "ls": {"i": 1, "d": 1, "nd": ""}, "f": 1, "id": 2})
def test_every_kind_of_input_type_coerces_as_graphql_core_does(inputs: dict[str, Any]) -> None:
    assert_same(MADE, operation(MADE_OPERATION), inputs)


@settings(max_examples=examples(200), deadline=None)
@given(st.dictionaries(st.sampled_from(["inputs", "pools", "one", "block", "name", "l", "i", "b"]), json_values))
def test_arbitrary_json_coerces_as_graphql_core_does(inputs: dict[str, Any]) -> None:
    assert_same(SERVICE, operation(SERVICE_OPERATION), inputs)
    assert_same(MADE, operation(MADE_OPERATION), inputs)


ORDINARY = {
    "inputs": [{"protocol": "morpho", "chainId": 1, "walletAddress": "0x" + "ab" * 20, "blockNumber": 5}],
    "pools": None,
    "name": "n",
}


def test_an_ordinary_request_is_coerced_without_graphql_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk must be what answers well-formed variables, or it saves nothing."""
    coercer = Coercer(SERVICE, operation(SERVICE_OPERATION).variable_definitions)
    expected = get_variable_values(SERVICE, operation(SERVICE_OPERATION).variable_definitions, ORDINARY)

    def refuse(*_args: Any, **_kwargs: Any) -> None:
        raise AssertionError("get_variable_values was asked")

    monkeypatch.setattr("graphql_http.variables.get_variable_values", refuse)
    monkeypatch.setattr(values, "coerce_input_value", refuse)
    got = coercer(ORDINARY)
    assert isinstance(got, VariableValues) and isinstance(expected, VariableValues)
    assert got.coerced == expected.coerced and _sources(got) == _sources(expected)


@pytest.mark.parametrize(
    ("text", "inputs"),
    [
        ("query Q($t: Tree) { q }", {"t": {"label": "a", "children": [{"label": "b"}]}}),
        ("query Q($f: Fork) { q }", {"f": {"left": {"leaf": 1}, "right": {"right": {}}}}),
        ("query Q($p: Pick) { q }", {"p": {"a": 1}}),
        ("query Q($default: Int = 5) { q }", {"default": 2}),
        ("query Q($x: Nope) { q }", {"x": 1}),
    ],
    ids=["recursive", "recursive twice", "one-of", "variable default", "unknown type"],
)
def test_types_the_walk_does_not_take_are_left_to_graphql_core(text: str, inputs: dict[str, Any]) -> None:
    node = operation(text)
    assert Coercer(MADE, node.variable_definitions)._variables is None
    assert_same(MADE, node, inputs)


def converted() -> GraphQLSchema:
    """MADE with Leaves converted to a tuple by `out_type`."""
    made = build_schema(MADE_SDL)
    made.type_map["Leaves"].out_type = lambda fields: tuple(sorted(fields.items()))
    return made


def renamed() -> GraphQLSchema:
    """MADE with a field of Leaves given another name on the way out (`out_name`)."""
    made = build_schema(MADE_SDL)
    made.type_map["Leaves"].fields["s"].out_name = "text"
    return made


@pytest.mark.parametrize("made", [converted(), renamed()], ids=["out_type", "out_name"])
def test_converted_input_objects_are_left_to_graphql_core(made: GraphQLSchema) -> None:
    node = operation("query Q($l: Leaves) { q }")
    inputs = {"l": {"s": "a", "i": 1}}
    assert Coercer(made, node.variable_definitions)._variables is None
    assert_same(made, node, inputs)
    assert_same(made, operation("query Q($i: Int) { q }"), {"i": 2})


def test_a_recursive_input_type_is_refused_where_it_repeats() -> None:
    """Not walked down to MAX_NESTING_DEPTH first: the walk must fit in a shallow stack."""
    node = operation("query Q($t: Tree, $f: Fork) { q }")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 40)
    try:
        coercer = Coercer(MADE, node.variable_definitions)
    finally:
        sys.setrecursionlimit(limit)
    assert coercer._variables is None
