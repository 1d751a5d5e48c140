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
from collections.abc import Callable, Mapping
from typing import Any

from graphql import (
    Executor,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLAbstractType,
    GraphQLIncludeDirective,
    GraphQLLeafType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLResolveInfo,
    GraphQLSchema,
    GraphQLSkipDirective,
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
