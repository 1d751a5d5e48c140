"""Rate limit per API key and the request-level limits of decisions.md §4.

The rate limit is a token bucket whose every spent token returns `window` seconds after it was
spent (a sliding log). That shape is what gives both halves of the guarantee in decisions.md §6:
a grant needs fewer than `quota` grants in the closed interval [now - window, now], so no closed
window ever holds more than `quota` grants, and a client that keeps every such window under
`quota` always finds a token. Refused requests spend nothing.
"""

from __future__ import annotations

import math
import time
from collections import Counter, deque
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from graphql import (
    DocumentNode,
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
    VariableNode,
)

MAX_INPUTS = 5
MAX_DEPTH = 7
MAX_BODY_BYTES = 100 * 1024
MAX_TOKENS = 10_000
"""Parser token cap: far above any real query, and a bound on the work a body can cause."""

MAX_SAME_FIELD = 16
MAX_SPREADS = 16
MAX_FRAGMENTS = 32
"""Shape limits: GraphQL's field-merging validation is quadratic in the fields that share a
response name and in the fragments spread into one selection set; real queries need few."""

POLICY_NAME = "default"


@dataclass(frozen=True)
class RateDecision:
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
        while grants and grants[0] < now - self.window:
            grants.popleft()
        allowed = len(grants) < self.quota
        if allowed:
            grants.append(now)
        reset = _whole_seconds_after(grants[0] + self.window - now) if grants else 0
        return RateDecision(allowed, self.quota, self.window, self.quota - len(grants), reset)

    def tracked_keys(self) -> int:
        return len(self._grants)

    def _sweep(self, now: float) -> None:
        if now - self._last_sweep < self.window:
            return
        self._last_sweep = now
        idle = [key for key, grants in self._grants.items() if not grants or grants[-1] < now - self.window]
        for key in idle:
            del self._grants[key]


def _whole_seconds_after(seconds: float) -> int:
    """Whole seconds strictly after `seconds` (a token returns just after), robust to float noise."""
    return max(1, math.floor(seconds + 1e-6) + 1)


def _error(message: str, code: str, node: Any = None) -> GraphQLError:
    return GraphQLError(message, node, extensions={"code": code})


class DepthLimitRule(ValidationRule):
    """Refuses operations nested deeper than MAX_DEPTH fields (fragments expanded)."""

    def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
        fragments = {
            d.name.value: d
            for d in self.context.document.definitions
            if isinstance(d, FragmentDefinitionNode)
        }
        depth = _depth(node.selection_set, fragments, {}, set())
        if depth > MAX_DEPTH:
            self.report_error(_error(
                f"Query depth {depth} exceeds the limit of {MAX_DEPTH} levels of nesting.",
                "DEPTH_LIMIT_EXCEEDED", node))


def _depth(
    selection_set: SelectionSetNode,
    fragments: Mapping[str, FragmentDefinitionNode],
    memo: dict[str, int],
    active: set[str],
) -> int:
    """Field nesting depth; each fragment is measured once, so shared spreads cost nothing."""
    deepest = 0
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            inner = selection.selection_set
            depth = 1 + (_depth(inner, fragments, memo, active) if inner else 0)
        elif isinstance(selection, InlineFragmentNode):
            depth = _depth(selection.selection_set, fragments, memo, active)
        else:
            name = selection.name.value
            if name not in memo and name in fragments and name not in active:
                active.add(name)
                memo[name] = _depth(fragments[name].selection_set, fragments, memo, active)
                active.discard(name)
            depth = memo.get(name, 0)
        deepest = max(deepest, depth)
    return deepest


class NoIntrospectionRule(ValidationRule):
    """Refuses `__schema` and `__type`; `__typename` stays allowed, unions need it."""

    def enter_field(self, node: FieldNode, *_: Any) -> None:
        if node.name.value in ("__schema", "__type"):
            self.report_error(_error(
                "Introspection is disabled on this server; the schema is published at "
                "GET /schema.graphql.", "INTROSPECTION_DISABLED", node))


def shape_problem(document: DocumentNode) -> str | None:
    """Why a document is too costly to validate, or None. Runs before validation, iteratively."""
    fragments = sum(isinstance(d, FragmentDefinitionNode) for d in document.definitions)
    if fragments > MAX_FRAGMENTS:
        return f"The document defines {fragments} fragments; the limit is {MAX_FRAGMENTS}."
    pending = [d.selection_set for d in document.definitions if getattr(d, "selection_set", None)]
    while pending:
        names: Counter[str] = Counter()
        spreads = 0
        flat = [pending.pop()]
        while flat:
            for selection in flat.pop().selections:
                if isinstance(selection, FieldNode):
                    names[(selection.alias or selection.name).value] += 1
                    if selection.selection_set:
                        pending.append(selection.selection_set)
                elif isinstance(selection, InlineFragmentNode):
                    flat.append(selection.selection_set)
                else:
                    spreads += 1
        if spreads > MAX_SPREADS:
            return f"A selection set spreads {spreads} fragments; the limit is {MAX_SPREADS}."
        if names and max(names.values()) > MAX_SAME_FIELD:
            name, count = names.most_common(1)[0]
            return f"Field {name[:40]!r} is selected {count} times in one selection set; the limit is {MAX_SAME_FIELD}."
    return None


def count_inputs(
    operation: OperationDefinitionNode,
    fragments: Mapping[str, FragmentDefinitionNode],
    variables: Mapping[str, Any],
    field_name: str = "walletPositions",
) -> int:
    """Inputs the operation would resolve, summed over every response key of `field_name`.

    Root fields are collected the way execution collects them: fragments expanded once, and
    fields with the same response key merged (they execute once). Every other alias counts.
    """
    counts: dict[str, int] = {}
    visited: set[str] = set()
    pending = [operation.selection_set]
    while pending:
        for selection in pending.pop().selections:
            if isinstance(selection, FieldNode):
                key = (selection.alias or selection.name).value
                if selection.name.value == field_name and key not in counts:
                    counts[key] = _argument_length(selection, "inputs", variables)
            elif isinstance(selection, InlineFragmentNode):
                pending.append(selection.selection_set)
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                if name not in visited and name in fragments:
                    visited.add(name)
                    pending.append(fragments[name].selection_set)
    return sum(counts.values())


def _argument_length(field: FieldNode, name: str, variables: Mapping[str, Any]) -> int:
    for argument in field.arguments:
        if argument.name.value != name:
            continue
        value = argument.value
        if isinstance(value, VariableNode):
            coerced = variables.get(value.name.value)
            return len(coerced) if isinstance(coerced, list) else int(coerced is not None)
        if isinstance(value, ListValueNode):
            return len(value.values)
        return 1 if isinstance(value, ObjectValueNode) else 0
    return 0
