"""A request's variables coerced by a walk of their types made once per operation.

graphql-core's get_variable_values works each variable's type out again for every request: its
signature from the AST, a scan for nesting too deep, then one generic call per value that asks
the type what it is. That was about a tenth of a valid request's cost. A Coercer does that work
once, when its operation is first seen, and keeps one function per type that follows the path
every well-formed value takes, an absent input field given its schema default as graphql-core
gives it. Whatever leaves that path (a value missing or of another type, a variable's default to
apply, a non-list given for a list) goes to get_variable_values, whose answer, errors
and all, is then the answer; so is every operation with an input type the walk does not take
(one-of, recursive, converted by `out_type` or renamed by `out_name`). Leaf values are coerced
by the leaf type itself, as graphql-core does. tests/test_variables.py holds the two equal on
generated values.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from graphql import (
    GraphQLError,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLSchema,
    Undefined,
    VariableDefinitionNode,
    is_leaf_type,
)
from graphql.execution.get_variable_signature import GraphQLVariableSignature, get_variable_signature
from graphql.execution.values import VariableValues, VariableValueSource, get_variable_values
from graphql.language.parser import MAX_NESTING_DEPTH
from graphql.utilities.coerce_input_value import coerce_default_value

Coerce = Callable[[Any], Any]
Variable = tuple[GraphQLVariableSignature, bool, Coerce]
"""A variable's signature, whether it is non-null, and the coercion of a value given for it."""


class _Leave(Exception):
    """The value leaves the walked path: get_variable_values decides."""


class Coercer:
    """The variables of one operation, coerced as get_variable_values coerces them."""

    def __init__(self, schema: GraphQLSchema, definitions: Collection[VariableDefinitionNode]) -> None:
        self._schema = schema
        self._definitions = definitions
        self._variables = _walk_all(schema, definitions)

    def __call__(self, inputs: dict[str, Any]) -> VariableValues | list[GraphQLError]:
        if self._variables is not None:
            try:
                return self._walked(self._variables, inputs)
            except _Leave:
                pass
        return get_variable_values(self._schema, self._definitions, inputs)

    @staticmethod
    def _walked(variables: list[Variable], inputs: dict[str, Any]) -> VariableValues:
        sources: dict[str, VariableValueSource] = {}
        coerced: dict[str, Any] = {}
        for signature, non_null, coerce in variables:
            name = signature.name
            value = inputs.get(name, Undefined)
            if value is Undefined:
                if non_null:
                    raise _Leave
                sources[name] = VariableValueSource(signature)
                continue
            sources[name] = VariableValueSource(signature, value)
            coerced[name] = coerce(value)
        return VariableValues(sources, coerced)


def _walk_all(schema: GraphQLSchema, definitions: Collection[VariableDefinitionNode]) -> list[Variable] | None:
    """Each variable's coercion, or None where any variable's is left to graphql-core."""
    variables: list[Variable] = []
    for definition in definitions:
        signature = get_variable_signature(schema, definition)
        if isinstance(signature, GraphQLError) or signature.default is not None:
            return None
        coerce = _coercion(signature.type, 0, frozenset())
        if coerce is None:
            return None
        variables.append((signature, isinstance(signature.type, GraphQLNonNull), coerce))
    return variables


def _coercion(type_: GraphQLInputType, depth: int, enclosing: frozenset[str]) -> Coerce | None:
    """`type_`'s coercion, or None for a type the walk does not take. `depth` counts the lists and
    input objects around it (graphql-core refuses values nested deeper than MAX_NESTING_DEPTH;
    a type no deeper cannot hold such a value); `enclosing` names the input objects around it."""
    if isinstance(type_, GraphQLNonNull):
        return _strict(type_.of_type, depth, enclosing)
    strict = _strict(type_, depth, enclosing)
    if strict is None:
        return None
    return lambda value: None if value is None else strict(value)


def _strict(type_: GraphQLInputType, depth: int, enclosing: frozenset[str]) -> Coerce | None:
    """The coercion of a value of `type_` that is not null."""
    if isinstance(type_, GraphQLList):
        return _list(type_, depth + 1, enclosing)
    if isinstance(type_, GraphQLInputObjectType):
        return _object(type_, depth + 1, enclosing)
    if not is_leaf_type(type_):
        return None
    coerce_leaf = type_.coerce_input_value

    def leaf(value: Any) -> Any:
        if value is None:
            raise _Leave
        try:
            coerced = coerce_leaf(value)
        except Exception:
            raise _Leave from None
        if coerced is Undefined:
            raise _Leave
        return coerced

    return leaf


def _list(type_: GraphQLList[Any], depth: int, enclosing: frozenset[str]) -> Coerce | None:
    item = _coercion(type_.of_type, depth, enclosing) if depth <= MAX_NESTING_DEPTH else None
    if item is None:
        return None

    def coerce_list(value: Any) -> list[Any]:
        if type(value) is not list:
            raise _Leave
        return [item(element) for element in value]

    return coerce_list


def _object(type_: GraphQLInputObjectType, depth: int, enclosing: frozenset[str]) -> Coerce | None:
    if (
        depth > MAX_NESTING_DEPTH
        or type_.name in enclosing
        or type_.is_one_of
        or "out_type" in vars(type_)
        or any(field.out_name for field in type_.fields.values())
    ):
        return None
    inside = enclosing | {type_.name}
    fields: list[tuple[str, Coerce, bool, Any]] = []
    for name, field in type_.fields.items():
        coerce = _coercion(field.type, depth, inside)
        if coerce is None:
            return None
        nullable_without_default = (
            not isinstance(field.type, GraphQLNonNull) and field.default is None and field.default_value is Undefined
        )
        fields.append((name, coerce, nullable_without_default, coerce_default_value(field)))
    names = frozenset(type_.fields)

    def coerce_object(value: Any) -> dict[str, Any]:
        if type(value) is not dict or not names.issuperset(value):
            raise _Leave
        coerced = {}
        for name, coerce, may_be_absent, default in fields:
            if name in value:
                coerced[name] = coerce(value[name])
            elif default is not Undefined:
                coerced[name] = default  # as graphql-core gives an absent field its default
            elif not may_be_absent:
                raise _Leave
        return coerced

    return coerce_object
