"""Completing a root field's answer by projecting plain data onto the selection set.

graphql-core completes every field through its generic machinery (a resolve info, the default
resolver, awaitable checks, a path): about 20 µs a field, 2 ms for five positions, more than the
rest of a request once documents are cached. Below `walletPositions` everything is plain data
(dicts, lists, scalars) already checked against its type (schema.nonconformity), so the answer
is completed by functions compiled once per selection: one per field, which takes the value and
returns it completed. A document without @skip or @include selects the same fields whatever its
variables, so its compiled functions serve every request that sends it (they are kept with its
analysis); otherwise they are compiled for each request.

Anything irregular on the way (a null where the type forbids one, a value its scalar's fast path
does not take and graphql-core's coercion refuses, a type that does not resolve, a callable, an
object that is not a mapping, a custom resolver, a list that is no list) abandons the projection,
and graphql-core completes that root field from the start, with its own errors and null
propagation. The value is data, so completing it a second time changes nothing but the time.
tests/test_projection.py checks that both give the same answer, for generated documents and data.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from graphql import (
    Executor,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLAbstractType,
    GraphQLEnumType,
    GraphQLIncludeDirective,
    GraphQLLeafType,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLResolveInfo,
    GraphQLSchema,
    GraphQLSkipDirective,
    GraphQLType,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    Undefined,
    get_directive_values,
    specified_scalar_types,
)
from graphql.execution.collect_fields import FieldDetailsList, FragmentDetails, collect_subfields
from graphql.execution.values import VariableValues
from graphql.pyutils import Path

Complete = Callable[[Any], Any]
INT_MIN, INT_MAX = -(2**31), 2**31 - 1


class Irregular(Exception):
    """The projection cannot promise graphql-core's answer; graphql-core gives it."""


class Projection:
    """The compiled completion of one operation's fields, by type and selection.

    Keyed by the identities of the selection's field nodes, which stay the same for as long as
    the parsed document lives (the projection is kept with it)."""

    def __init__(
        self, schema: GraphQLSchema, fragments: dict[str, FragmentDetails], operation: OperationDefinitionNode
    ) -> None:
        self.schema = schema
        self.fragments = fragments
        self.operation = operation
        self._objects: dict[tuple[str, tuple[int, ...]], Complete] = {}

    def complete(
        self, return_type: GraphQLOutputType, fields: FieldDetailsList, value: Any, variables: VariableValues
    ) -> Any:
        return self._completer(return_type, fields, variables)(value)

    def _completer(
        self, return_type: GraphQLOutputType, fields: FieldDetailsList, variables: VariableValues
    ) -> Complete:
        if isinstance(return_type, GraphQLNonNull):
            return _non_null(self._completer(return_type.of_type, fields, variables))
        if isinstance(return_type, GraphQLList):
            return _list(self._completer(return_type.of_type, fields, variables))
        if isinstance(return_type, GraphQLObjectType):
            return self._object(return_type, fields, variables)
        if isinstance(return_type, GraphQLAbstractType):
            return self._abstract(return_type, fields, variables)
        return _leaf(return_type)

    def _object(self, object_type: GraphQLObjectType, fields: FieldDetailsList, variables: VariableValues) -> Complete:
        key = (object_type.name, tuple(id(details.node) for details in fields))
        complete = self._objects.get(key)
        if complete is None:
            complete = self._objects[key] = self._compile_object(object_type, fields, variables)
        return complete

    def _compile_object(
        self, object_type: GraphQLObjectType, fields: FieldDetailsList, variables: VariableValues
    ) -> Complete:
        if object_type.is_type_of is not None:
            return _irregular
        grouped = collect_subfields(
            self.schema, self.fragments, variables, self.operation, object_type, fields
        ).grouped_field_set
        plan: list[tuple[str, str | None, Complete | None]] = []
        for response_key, details in grouped.items():
            name = details[0].node.name.value
            if name == "__typename":
                plan.append((response_key, None, None))
                continue
            field = object_type.fields.get(name)
            if field is None:
                continue
            complete = (
                _irregular
                if field.resolve is not None
                else _lazy(functools.partial(self._completer, field.type, details, variables))
            )
            plan.append((response_key, name, complete))
        type_name = object_type.name

        def complete_object(value: Any) -> Any:
            if value is None or value is Undefined:
                return None
            if not isinstance(value, Mapping):
                raise Irregular
            return {key: type_name if complete is None else complete(value.get(name)) for key, name, complete in plan}

        return complete_object

    def _abstract(self, abstract: GraphQLAbstractType, fields: FieldDetailsList, variables: VariableValues) -> Complete:
        """graphql-core's default type resolver decides by `__typename`; the projection follows it
        where the type has no resolver of its own."""
        if abstract.resolve_type is not None:
            return _irregular
        schema = self.schema
        by_type: dict[str, Complete] = {}

        def complete_abstract(value: Any) -> Any:
            if value is None or value is Undefined:
                return None
            if not isinstance(value, Mapping):
                raise Irregular
            name = value.get("__typename")
            complete = by_type.get(name) if isinstance(name, str) else None
            if complete is None:
                runtime = schema.get_type(name) if isinstance(name, str) else None
                if not isinstance(runtime, GraphQLObjectType) or not schema.is_sub_type(abstract, runtime):
                    raise Irregular
                complete = by_type[runtime.name] = self._object(runtime, fields, variables)
            return complete(value)

        return complete_abstract


def _lazy(build: Callable[[], Complete]) -> Complete:
    """A field's completer compiled on its first value (types may refer to themselves)."""
    built: list[Complete] = []

    def complete(value: Any) -> Any:
        if not built:
            built.append(build())
        return built[0](value)

    return complete


def _irregular(_value: Any) -> Any:
    raise Irregular


def _non_null(inner: Complete) -> Complete:
    def complete(value: Any) -> Any:
        completed = inner(value)
        if completed is None:
            raise Irregular
        return completed

    return complete


def _list(item: Complete) -> Complete:
    def complete(value: Any) -> Any:
        if value is None or value is Undefined:
            return None
        if not isinstance(value, (list, tuple)):
            raise Irregular
        return [item(element) for element in value]

    return complete


FAST_LEAVES: dict[str, Callable[[Any], bool]] = {
    "String": lambda v: type(v) is str,
    "Boolean": lambda v: type(v) is bool,
    "Int": lambda v: type(v) is int and INT_MIN <= v <= INT_MAX,
    "Float": lambda v: type(v) is float and math.isfinite(v),
}
"""Values each built-in scalar returns as they are; any other goes through the scalar's own
coercion (an int for a Float becomes a float there, as in graphql-core)."""


def _leaf(leaf: GraphQLLeafType) -> Complete:
    passes = FAST_LEAVES.get(leaf.name) if specified_scalar_types.get(leaf.name) is leaf else None

    def complete(value: Any) -> Any:
        if value is None or value is Undefined:
            return None
        if passes is not None and passes(value):
            return value
        if callable(value):
            raise Irregular
        try:
            coerced = leaf.coerce_output_value(value)
        except Exception:
            raise Irregular from None
        if coerced is None or coerced is Undefined:
            raise Irregular
        return coerced

    return complete


def selects_by_variables(operation: OperationDefinitionNode, fragments: Mapping[str, FragmentDefinitionNode]) -> bool:
    """Whether a directive (@skip, @include) may make the operation's selection depend on its
    variables, so that its projection cannot be compiled once for every request."""
    pending: list[SelectionSetNode] = [operation.selection_set]
    pending.extend(fragment.selection_set for fragment in fragments.values())
    while pending:
        for selection in pending.pop().selections:
            if selection.directives:
                return True
            if isinstance(selection, (FieldNode, InlineFragmentNode)) and selection.selection_set:
                pending.append(selection.selection_set)
    return False


class ProjectingExecutor(Executor[Any]):
    """graphql-core's executor, with root fields' values completed by `projection`."""

    def __init__(self, *args: Any, projection: Projection, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.projection = projection

    def complete_value(
        self,
        return_type: GraphQLOutputType,
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo[Any],
        path: Path,
        result: Any,
        position_context: Any,
    ) -> Any:
        if path.prev is None and not isinstance(result, Exception):
            try:
                return self.projection.complete(return_type, field_details_list, result, self.variable_values)
            except Irregular:
                pass
        return super().complete_value(return_type, field_details_list, info, path, result, position_context)


def selects(
    selection_set: SelectionSetNode | None,
    name: str,
    fragments: dict[str, FragmentDefinitionNode],
    variables: VariableValues,
) -> bool:
    """Whether a field `name` is selected anywhere below (through fragments too, not where
    `@skip` or `@include` leave it out)."""
    for node in selection_set.selections if selection_set is not None else ():
        if not isinstance(node, (FieldNode, FragmentSpreadNode, InlineFragmentNode)) or not included(node, variables):
            continue
        if isinstance(node, FieldNode) and node.name.value == name:
            return True
        if isinstance(node, FragmentSpreadNode):
            fragment = fragments.get(node.name.value)
            if fragment is not None and selects(fragment.selection_set, name, fragments, variables):
                return True
        elif isinstance(node, (FieldNode, InlineFragmentNode)) and selects(
            node.selection_set, name, fragments, variables
        ):
            return True
    return False


def included(node: FieldNode | FragmentSpreadNode | InlineFragmentNode, variables: VariableValues) -> bool:
    skip = get_directive_values(GraphQLSkipDirective, node, variables)
    include = get_directive_values(GraphQLIncludeDirective, node, variables)
    return not (skip and skip.get("if")) and not (include and include.get("if") is False)


def nonconformity(value: Any, graphql_type: GraphQLType, schema: GraphQLSchema) -> str | None:
    """Where `value` breaks `graphql_type` (a missing non-null field, a wrong scalar or enum value,
    an abstract type's value that names no type of it), or None.

    Checked per input, so that one adapter's bad object becomes that input's UNKNOWN_ERROR
    instead of a null that GraphQL would propagate up to the whole result. The check of each type
    is built once (a closure per field), and the path is spelled only for a problem found.
    """
    problem = _checker(graphql_type, schema)(value)
    if problem is None:
        return None
    what, *path = problem
    return f"{''.join(reversed(path)) or 'value'} {what}"


Problem = list[str]
"""What is wrong, then the path to it from the inside out."""
Check = Callable[[Any], "Problem | None"]
_CHECKS: weakref.WeakKeyDictionary[GraphQLType, Check] = weakref.WeakKeyDictionary()


def _checker(graphql_type: GraphQLType, schema: GraphQLSchema) -> Check:
    check = _CHECKS.get(graphql_type)
    if check is None:
        check = _CHECKS[graphql_type] = _build_checker(graphql_type, schema)
    return check


def _build_checker(graphql_type: GraphQLType, schema: GraphQLSchema) -> Check:
    if isinstance(graphql_type, GraphQLNonNull):
        inner = _checker(graphql_type.of_type, schema)
        return lambda value: ["is null"] if value is None else inner(value)
    if isinstance(graphql_type, GraphQLList):
        return _list_checker(_checker(graphql_type.of_type, schema))
    if isinstance(graphql_type, GraphQLObjectType):
        return _object_checker([(name, _checker(field.type, schema)) for name, field in graphql_type.fields.items()])
    if isinstance(graphql_type, GraphQLAbstractType):
        return _member_checker(graphql_type, schema)
    if isinstance(graphql_type, GraphQLEnumType):
        values, problem = frozenset(graphql_type.values), f"is not a {graphql_type.name}"
        return lambda value: None if value is None or value in values else [problem]
    assert isinstance(graphql_type, GraphQLNamedType)  # the wrapping types are handled above
    valid, problem = _SCALAR_CHECKS[graphql_type.name], f"is not a {graphql_type.name}"
    return lambda value: None if value is None or valid(value) else [problem]


def _list_checker(item: Check) -> Check:
    def check(value: Any) -> Problem | None:
        if value is None:
            return None
        if not isinstance(value, list):
            return ["is not a list"]
        for index, element in enumerate(value):
            if (problem := item(element)) is not None:
                problem.append(f"[{index}]")
                return problem
        return None

    return check


def _member_checker(abstract: GraphQLAbstractType, schema: GraphQLSchema) -> Check:
    """An abstract type's value names its type in `__typename`: a member of the union, or a type
    that implements the interface; and fits that type."""
    members: dict[Any, GraphQLObjectType] = {member.name: member for member in schema.get_possible_types(abstract)}

    def check(value: Any) -> Problem | None:
        if value is None:
            return None
        member = members.get(value.get("__typename")) if isinstance(value, dict) else None
        if member is None:
            return [f"is not a {abstract.name}"]
        return _checker(member, schema)(value)

    return check


def _object_checker(fields: list[tuple[str, Check]]) -> Check:
    def check(value: Any) -> Problem | None:
        if value is None:
            return None
        if not isinstance(value, dict):
            return ["is not an object"]
        for name, check_field in fields:
            if (problem := check_field(value.get(name))) is not None:
                problem.append(f".{name}")
                return problem
        return None

    return check


_SCALAR_CHECKS: dict[str, Callable[[Any], bool]] = {
    "String": lambda v: isinstance(v, str),
    "Boolean": lambda v: isinstance(v, bool),
    "Int": lambda v: isinstance(v, int) and not isinstance(v, bool) and -(2**31) <= v < 2**31,
    "Float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
}
