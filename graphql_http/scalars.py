"""The schema's own scalars, set on a schema built from schema.graphql (the server's and the
validation worker's alike): GraphQL's Int is 32 bits, whose unix times end in January 2038."""

from __future__ import annotations

from typing import Any

from graphql import GraphQLError, GraphQLScalarType, GraphQLSchema, IntValueNode, ValueNode

MAX_TIMESTAMP = 2**63 - 1


def _timestamp(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TIMESTAMP:
        raise GraphQLError(f"Timestamp must be a whole number of seconds from 0 to {MAX_TIMESTAMP}; it is {value!r}.")
    return value


def _timestamp_literal(node: ValueNode, _variables: Any = None) -> int:
    if not isinstance(node, IntValueNode):
        raise GraphQLError("Timestamp must be a whole number of seconds.")
    return _timestamp(int(node.value))


def with_scalars(schema: GraphQLSchema) -> GraphQLSchema:
    """`schema` with its Timestamp scalar parsing and serialising 64-bit whole seconds."""
    timestamp = schema.type_map["Timestamp"]
    assert isinstance(timestamp, GraphQLScalarType)
    timestamp.serialize = timestamp.parse_value = _timestamp  # type: ignore[method-assign]
    timestamp.parse_literal = _timestamp_literal  # type: ignore[method-assign,assignment]
    return schema
