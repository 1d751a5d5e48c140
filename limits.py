"""Rate limit per API key and the request-level limits of docs/decisions.md §4.

The rate limit is a token bucket whose every spent token returns exactly `window` seconds after
it was spent (a sliding log). That shape is what gives both halves of the guarantee in
docs/decisions.md §6: a grant needs fewer than `quota` grants in the interval (now - window, now], so
no interval [a, a + window) ever holds more than `quota` grants, and a client that keeps every
such interval under `quota` always finds a token. Refused requests spend nothing. Intervals are
half-open so that the wait a client is told (`t`, Retry-After, whole seconds rounded up) is
honest and never more than the window.
"""

from __future__ import annotations

import math
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, cast

from graphql import (
    DocumentNode,
    ExecutableDefinitionNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    ListValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationRule,
    ValueNode,
    VariableNode,
)

MAX_INPUTS = 5
MAX_DEPTH = 9
"""The deepest path the schema has: a series' point's positions' liquidation price's asset's symbol."""
MAX_BODY_BYTES = 100 * 1024
MAX_TOKENS = 2_500
"""Parser token cap: parsing costs about 8 microseconds a token; a typical query is about 260, one
of every field of every type about 2,250."""

MAX_FRAGMENTS = 32
MAX_FIELDS = 1_800
MAX_ALIASES = 32
MAX_SPREADS = 64
MAX_SELECTIONS = 64
MAX_MERGED = 28
MAX_EXPANDED = 1_900
"""The cost bound of `cost_problem`, measured (bench/adversarial.py) so that the most expensive
document within all of them parses and validates in well under 100 ms on a 2-core machine: 30
ms with the 200 fields and 300 expanded before Pendle; 45 to 60 ms under 400/500 and 600/700
(the vault-style protocols), 1,000 tokens binding first; one machine measured 22 to 26 ms under
600/700 and 700/800 (issue 36's risk and rewards) and 44 ms under 1,500 tokens, 1,000 fields and
1,100 expanded (issue 37's protocols: every field of every protocol type, selected once, was
about 830 fields and 1,200 tokens). With Maker's types and every entry's `holder` and `via`
(issue 50) that query is 1,020 fields and 1,430 tokens, and a field every member of the union has
(`protocol`) is merged 17 times at one path; under 1,800 tokens, 1,250 fields, 1,350 expanded
and 20 merged the costliest found took 45 to 79 ms with the test suite running beside it (24
merged: up to 109 ms). Issue 52's nine protocols and every entry's `usdPrices` make that query
1,609 fields and 2,246 tokens with `protocol` merged 26 times, so the bounds became 2,500 tokens,
1,800 fields, 1,900 expanded and 28 merged: on an idle 2-core machine the costliest found took
108, 63 ms in two runs (84 ms under a looser 2,800/2,000/2,100/32), and `/healthz` p99 stayed
under 10 ms while they were sent. Such documents are analysed in a worker process, once."""

POLICY_NAME = "default"


class RateDecision(NamedTuple):
    allowed: bool
    quota: int
    window: int
    remaining: int
    reset: int
    """Whole seconds until the oldest counted request leaves the window (0 when none counts)."""

    def headers(self) -> dict[str, str]:
        """`RateLimit-Policy` and `RateLimit` in the IETF httpapi draft's structured form."""
        return {
            "RateLimit-Policy": f'"{POLICY_NAME}";q={self.quota};w={self.window}',
            "RateLimit": f'"{POLICY_NAME}";r={self.remaining};t={self.reset}',
        }


class Limiter(Protocol):
    """What the server asks of a limiter: this one, or replicas.rate_limit.RedisRateLimiter."""

    async def decide(self, key_id: str) -> RateDecision: ...

    async def close(self) -> None: ...


class LimiterUnavailable(Exception):
    """The shared limit cannot be decided (Redis unreachable) and the setting is to refuse: 503."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(retry_after)
        self.retry_after = retry_after


class RateLimiter:
    """In-process limiter: per key, the times of the grants still inside the window.

    Memory is bounded by `quota` timestamps per key that was granted a request within the last
    window; keys idle for a whole window are swept away.
    """

    def __init__(self, quota: int, window: int, clock: Callable[[], float] = time.monotonic):
        self.quota = quota
        self.window = window
        self._clock = clock
        self._grants: dict[str, deque[float]] = {}
        self._last_sweep = clock()

    def hit(self, key_id: str) -> RateDecision:
        now = self._clock()
        self._sweep(now)
        grants = self._grants.setdefault(key_id, deque())
        while grants and grants[0] <= now - self.window:
            grants.popleft()
        allowed = len(grants) < self.quota
        if allowed:
            grants.append(now)
        reset = whole_seconds_until(grants[0] + self.window - now) if grants else 0
        return RateDecision(allowed, self.quota, self.window, self.quota - len(grants), reset)

    async def decide(self, key_id: str) -> RateDecision:
        """`hit`, as the server calls every limiter (replicas.rate_limit.RedisRateLimiter's must await Redis)."""
        return self.hit(key_id)

    async def close(self) -> None:
        """Nothing to release: the log lives in this process."""

    def tracked_keys(self) -> int:
        return len(self._grants)

    def _sweep(self, now: float) -> None:
        if now - self._last_sweep < self.window:
            return
        self._last_sweep = now
        idle = [key for key, grants in self._grants.items() if not grants or grants[-1] <= now - self.window]
        for key in idle:
            del self._grants[key]


def whole_seconds_until(seconds: float) -> int:
    """`seconds` rounded up to whole seconds (at least 1), robust to float noise."""
    return max(1, math.ceil(seconds - 1e-6))


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
        return f"With its fragments expanded the document selects {expanded} fields; the limit is {MAX_EXPANDED}."
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
            return f"The document has {count} {what}; the limit is {limit}."
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
                        f"and repeated parents are merged; the limit is {MAX_MERGED}."
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
    analysed; arguments given by a variable are looked up in each request's variables."""

    literal: int
    variables: tuple[str, ...]
    """One name per response key whose `inputs` is a variable (a variable used twice counts twice)."""

    def __call__(self, variables: Mapping[str, Any]) -> int:
        return self.literal + sum(_length(variables.get(name)) for name in self.variables)


INPUT_FIELDS = frozenset({"walletPositions", "poolDetails", "positionsHistory"})
"""The root fields whose inputs count together towards MAX_INPUTS."""


def input_count(
    operation: OperationDefinitionNode,
    fragments: Mapping[str, FragmentDefinitionNode],
    field_names: frozenset[str] = INPUT_FIELDS,
) -> InputCount:
    """The inputs the operation would resolve, summed over every response key of `field_names`.

    Root fields are collected the way execution collects them: fragments expanded once, and
    fields with the same response key merged (they execute once). Every other alias counts.
    """
    seen: set[str] = set()
    literal, variables = 0, []
    visited: set[str] = set()
    pending = [operation.selection_set]
    while pending:
        for selection in pending.pop().selections:
            if isinstance(selection, FieldNode):
                key = (selection.alias or selection.name).value
                if selection.name.value in field_names and key not in seen:
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
    return InputCount(literal, tuple(variables))


def _argument(field: FieldNode, name: str) -> ValueNode | None:
    return next((argument.value for argument in field.arguments or () if argument.name.value == name), None)


def _literal_length(value: ValueNode | None) -> int:
    if isinstance(value, ListValueNode):
        return len(value.values)
    return 1 if isinstance(value, ObjectValueNode) else 0


def _length(value: Any) -> int:
    """A list variable counts its items; a single object (coerced into a list of one) counts 1."""
    return len(value) if isinstance(value, list) else int(value is not None)
