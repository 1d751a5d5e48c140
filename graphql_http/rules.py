"""The document rules of the request-level limits (docs/decisions.md §4; the numbers are limits.py's):
the depth of an operation, introspection's shape or its absence, the cost bound checked before
validation, and the count of inputs a document asks for."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from graphql import (
    DocumentNode,
    ExecutableDefinitionNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    ListValueNode,
    NullValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationRule,
    ValueNode,
    VariableNode,
)

from limits import (
    MAX_ALIASES,
    MAX_DEPTH,
    MAX_EXPANDED,
    MAX_FIELDS,
    MAX_FRAGMENTS,
    MAX_INPUTS,
    MAX_MERGED,
    MAX_SELECTIONS,
    MAX_SPREADS,
)


def _error(message: str, code: str, node: Any = None) -> GraphQLError:
    return GraphQLError(message, node, extensions={"code": code})


class DepthLimitRule(ValidationRule):
    """Refuses operations nested deeper than MAX_DEPTH fields (fragments expanded). `__schema` and
    `__type` count one level, and their subtrees are bounded by their own shape instead (see
    `_introspection_problem`), so graphql-core's standard introspection query (15 levels) and the
    tools built on it work where introspection is on, and where it is off they are refused for
    that reason alone (NoIntrospectionRule), not for their depth."""

    def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
        fragments = {
            d.name.value: d for d in self.context.document.definitions if isinstance(d, FragmentDefinitionNode)
        }
        introspection: list[FieldNode] = []
        depth = _depth(node.selection_set, fragments, {}, set(), introspection)
        if depth > MAX_DEPTH:
            self.report_error(
                _error(
                    f"Query depth {depth} exceeds the limit of {MAX_DEPTH} levels of nesting.",
                    "DEPTH_LIMIT_EXCEEDED",
                    node,
                )
            )
        for field in introspection:
            problem = _introspection_problem(field, fragments)
            if problem:
                self.report_error(_error(problem, "DEPTH_LIMIT_EXCEEDED", field))


INTROSPECTION_FIELDS = ("__schema", "__type")
MAX_INTROSPECTION_DEPTH = 15
MAX_INTROSPECTION_LISTS = 3
INTROSPECTION_LISTS = frozenset(
    {"types", "fields", "args", "inputFields", "interfaces", "possibleTypes", "enumValues", "directives"}
)
"""Introspection fields that return lists. Nested in each other they walk the schema's graph
(`types { fields { type { fields ... } } }`) and the answer grows with every level, so they may
nest three deep, as in the standard query (`types > fields > args`); `type`/`ofType` chains are
single objects and only the depth bounds them."""


def _introspection_problem(field: FieldNode, fragments: Mapping[str, FragmentDefinitionNode]) -> str | None:
    deepest, lists = 0, 0
    pending: list[tuple[SelectionSetNode | None, int, int, frozenset[str]]] = [(field.selection_set, 1, 0, frozenset())]
    while pending:
        selection_set, depth, nested_lists, active = pending.pop()
        deepest, lists = max(deepest, depth), max(lists, nested_lists)
        if deepest > MAX_INTROSPECTION_DEPTH or lists > MAX_INTROSPECTION_LISTS or selection_set is None:
            continue
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                pending.append(
                    (
                        selection.selection_set,
                        depth + 1,
                        nested_lists + (selection.name.value in INTROSPECTION_LISTS),
                        active,
                    )
                )
            elif isinstance(selection, InlineFragmentNode):
                pending.append((selection.selection_set, depth, nested_lists, active))
            elif (name := cast(FragmentSpreadNode, selection).name.value) in fragments and name not in active:
                pending.append((fragments[name].selection_set, depth, nested_lists, active | {name}))
    if deepest > MAX_INTROSPECTION_DEPTH:
        return f"Introspection deeper than {MAX_INTROSPECTION_DEPTH} levels is refused."
    if lists > MAX_INTROSPECTION_LISTS:
        return (
            f"Introspection may nest at most {MAX_INTROSPECTION_LISTS} list fields (types, fields, "
            "args, ...) in each other: deeper, the answer grows with every level."
        )
    return None


def _depth(
    selection_set: SelectionSetNode,
    fragments: Mapping[str, FragmentDefinitionNode],
    memo: dict[str, int],
    active: set[str],
    introspection: list[FieldNode],
) -> int:
    """Field nesting depth; each fragment is measured once, so shared spreads cost nothing.
    Introspection fields count 1 and are collected in `introspection` instead."""
    deepest = 0
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            inner = selection.selection_set
            if selection.name.value in INTROSPECTION_FIELDS:
                introspection.append(selection)
                depth = 1
            else:
                depth = 1 + (_depth(inner, fragments, memo, active, introspection) if inner else 0)
        elif isinstance(selection, InlineFragmentNode):
            depth = _depth(selection.selection_set, fragments, memo, active, introspection)
        else:
            name = cast(FragmentSpreadNode, selection).name.value
            if name not in memo and name in fragments and name not in active:
                active.add(name)
                memo[name] = _depth(fragments[name].selection_set, fragments, memo, active, introspection)
                active.discard(name)
            depth = memo.get(name, 0)
        deepest = max(deepest, depth)
    return deepest


class NoIntrospectionRule(ValidationRule):
    """Refuses `__schema` and `__type`; `__typename` stays allowed, unions need it."""

    def enter_field(self, node: FieldNode, *_: Any) -> None:
        if node.name.value in ("__schema", "__type"):
            self.report_error(
                _error(
                    "Introspection is disabled on this server; the schema is published at GET /schema.graphql.",
                    "INTROSPECTION_DISABLED",
                    node,
                )
            )


WIDTH_HINT = (
    "Select what every protocol shares once, through `... on WalletEntry` (its `allPositions` and "
    "`totals` hold every position of every protocol), and the own fields of the members your five "
    "inputs at most are answered by, not of every member (docs/api.md#limits)."
)
"""What a document too wide is told: the bounds admit the interfaces and five members."""


def cost_problem(document: DocumentNode) -> str | None:
    """Why a document would cost too much to validate, or None. Linear, and run before validation.

    graphql-core's validation walks every field once per place it is merged into (fragments
    expanded), and compares every pair of fields merged at one response path: a few nested
    repetitions multiply (4 aliases x 4 fragments x 4 x 4 fields put 256 nodes at one path, and
    12 KB cost 0.9 s). So the document is bounded syntactically (fragments, field nodes, aliases,
    spreads, selection-set sizes) and by what validation would see: the fields at each response
    path once fragments are expanded (MAX_MERGED), and all of them together (MAX_EXPANDED).
    """
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    if len(fragments) > MAX_FRAGMENTS:
        return f"The document defines {len(fragments)} fragments; the limit is {MAX_FRAGMENTS}."
    problem = _syntax_problem(document)
    if problem:
        return problem
    flattened: dict[str, list[tuple[FieldNode, int]]] = {}
    expanded = 0
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            problem, fields = _merge_problem(definition.selection_set, fragments, flattened)
            if problem:
                return problem
            expanded += fields
    if expanded > MAX_EXPANDED:
        return (
            f"With its fragments expanded the document selects {expanded} fields; the limit is {MAX_EXPANDED}. "
            + WIDTH_HINT
        )
    return None


def _syntax_problem(document: DocumentNode) -> str | None:
    fields = aliases = spreads = 0
    pending = [d.selection_set for d in document.definitions if isinstance(d, ExecutableDefinitionNode)]
    while pending:
        selection_set = pending.pop()
        if len(selection_set.selections) > MAX_SELECTIONS:
            return f"A selection set holds {len(selection_set.selections)} selections; the limit is {MAX_SELECTIONS}."
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                fields += 1
                aliases += selection.alias is not None
            elif isinstance(selection, FragmentSpreadNode):
                spreads += 1
            if isinstance(selection, (FieldNode, InlineFragmentNode)) and selection.selection_set:
                pending.append(selection.selection_set)
    for count, limit, what in (
        (fields, MAX_FIELDS, "fields"),
        (aliases, MAX_ALIASES, "aliases"),
        (spreads, MAX_SPREADS, "fragment spreads"),
    ):
        if count > limit:
            return f"The document has {count} {what}; the limit is {limit}." + (
                " " + WIDTH_HINT if what == "fields" else ""
            )
    return None


def _merge_problem(
    root: SelectionSetNode,
    fragments: Mapping[str, FragmentDefinitionNode],
    flattened: dict[str, list[tuple[FieldNode, int]]],
) -> tuple[str | None, int]:
    """Walk the response paths of an operation as validation merges them: each group is the
    fields (with their multiplicity) that share one path. Stops at the first group too large,
    so the walk itself stays within MAX_MERGED fields per path."""
    expanded = 0
    groups = [("", [(root, 1)])]
    while groups:
        path, group = groups.pop()
        children: dict[str, list[tuple[SelectionSetNode, int]]] = {}
        sizes: Counter[str] = Counter()
        for selection_set, multiplicity in group:
            for field, count in _fields(selection_set, fragments, flattened, set()):
                name = (field.alias or field.name).value
                sizes[name] += multiplicity * count
                if sizes[name] > MAX_MERGED:
                    return (
                        f"Field {path + name!r} is selected {sizes[name]} times or more once fragments "
                        f"and repeated parents are merged; the limit is {MAX_MERGED}. A field the members of a "
                        "union share is selected once, through their interface (`... on WalletEntry`, and "
                        "`Position`'s fields in `allPositions`)."
                    ), expanded
                if field.selection_set:
                    children.setdefault(name, []).append((field.selection_set, multiplicity * count))
        expanded += sum(sizes.values())
        groups.extend((f"{path}{name}.", child) for name, child in children.items())
    return None, expanded


def _fields(
    selection_set: SelectionSetNode,
    fragments: Mapping[str, FragmentDefinitionNode],
    flattened: dict[str, list[tuple[FieldNode, int]]],
    active: set[str],
) -> list[tuple[FieldNode, int]]:
    """The fields a selection set contributes at its own level (inline fragments and spreads
    opened), with how often each is reached; each fragment is flattened once."""
    counts: dict[int, tuple[FieldNode, int]] = {}

    def add(field: FieldNode, count: int) -> None:
        counts[id(field)] = (field, counts.get(id(field), (field, 0))[1] + count)

    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            add(selection, 1)
        elif isinstance(selection, InlineFragmentNode):
            for field, count in _fields(selection.selection_set, fragments, flattened, active):
                add(field, count)
        elif (name := cast(FragmentSpreadNode, selection).name.value) in fragments and name not in active:
            if name not in flattened:
                flattened[name] = _fields(fragments[name].selection_set, fragments, flattened, active | {name})
            for field, count in flattened[name]:
                add(field, count)
    return list(counts.values())


@dataclass(frozen=True)
class InputCount:
    """How many inputs an operation asks for: literal lists are counted once, when the document is
    analysed; arguments given by a variable are looked up in each request's variables. A whole-field
    (`portfolio`) counts as MAX_INPUTS: it fills an operation."""

    literal: int
    variables: tuple[str, ...]
    """One name per response key whose `inputs` is a variable (a variable used twice counts twice)."""
    chains: tuple[int | str | None, ...] = ()
    """Per whole-field, the chains it asks: a literal list's length, a variable's name, or None
    where the argument is left out or null (the default chains)."""

    def __call__(self, variables: Mapping[str, Any]) -> int:
        return self.literal + sum(_length(variables.get(name)) for name in self.variables)

    def chains_asked(self, variables: Mapping[str, Any]) -> list[int | None]:
        """Per whole-field, its chains counted on the request's variables (None: every served chain)."""
        return [
            asked
            if not isinstance(asked, str)
            else (None if variables.get(asked) is None else _length(variables[asked]))
            for asked in self.chains
        ]


INPUT_FIELDS = frozenset({"walletPositions", "poolDetails", "positionsHistory"})
"""The root fields whose inputs count together towards MAX_INPUTS."""
WHOLE_FIELDS = frozenset({"portfolio"})
"""The root fields that answer many inputs' worth for one argument list: each counts as MAX_INPUTS."""


def input_count(
    operation: OperationDefinitionNode,
    fragments: Mapping[str, FragmentDefinitionNode],
    field_names: frozenset[str] = INPUT_FIELDS,
) -> InputCount:
    """The inputs the operation would resolve, summed over every response key of `field_names`
    (and WHOLE_FIELDS).

    Root fields are collected the way execution collects them: fragments expanded once, and
    fields with the same response key merged (they execute once). Every other alias counts.
    """
    seen: set[str] = set()
    literal, variables, chains = 0, [], []
    visited: set[str] = set()
    pending = [operation.selection_set]
    while pending:
        for selection in pending.pop().selections:
            if isinstance(selection, FieldNode):
                key = (selection.alias or selection.name).value
                if key in seen:
                    continue
                if selection.name.value in WHOLE_FIELDS:
                    seen.add(key)
                    literal += MAX_INPUTS
                    chains.append(_chains(_argument(selection, "chainIds")))
                elif selection.name.value in field_names:
                    seen.add(key)
                    value = _argument(selection, "inputs")
                    if isinstance(value, VariableNode):
                        variables.append(value.name.value)
                    else:
                        literal += _literal_length(value)
            elif isinstance(selection, InlineFragmentNode):
                pending.append(selection.selection_set)
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                if name not in visited and name in fragments:
                    visited.add(name)
                    pending.append(fragments[name].selection_set)
    return InputCount(literal, tuple(variables), tuple(chains))


def _argument(field: FieldNode, name: str) -> ValueNode | None:
    return next((argument.value for argument in field.arguments or () if argument.name.value == name), None)


def _chains(value: ValueNode | None) -> int | str | None:
    """A whole-field's `chainIds` as InputCount.chains holds it: a variable's name, None where left
    out or null (every default chain), a list's length, or 1 (one chain, coerced into a list)."""
    if isinstance(value, VariableNode):
        return value.name.value
    if value is None or isinstance(value, NullValueNode):
        return None
    return len(value.values) if isinstance(value, ListValueNode) else 1


def _literal_length(value: ValueNode | None) -> int:
    if isinstance(value, ListValueNode):
        return len(value.values)
    return 1 if isinstance(value, ObjectValueNode) else 0


def _length(value: Any) -> int:
    """A list variable counts its items; a single object (coerced into a list of one) counts 1."""
    return len(value) if isinstance(value, list) else int(value is not None)
