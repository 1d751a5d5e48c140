"""The GraphQL schema, built from schema.graphql, and the `walletPositions` resolver.

The resolver validates each input (decisions.md §3), runs the inputs concurrently, each under its
own time budget, and maps failures to error codes. Identical inputs within one request share one
fetch, even across aliases.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from graphql import (
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLSchema,
    GraphQLType,
    GraphQLUnionType,
    build_schema,
)

from chain import ChainRequest, shared_future
from errors import BudgetExceeded, InputValidationError, PositionError
from fetch_context import FetchContext
from protocols import Protocol, Registry

log = logging.getLogger("wallet_positions.resolver")

SDL_PATH = Path(__file__).with_name("schema.graphql")
ADDRESS_RE = re.compile(r"0x[0-9a-fA-F]{40}")
INTERNAL_ERROR = "Internal error while reading positions; it has been logged."

InputKey = tuple[str, int, str]


@dataclass
class RequestContext:
    """Per-request state shared by every `walletPositions` field of one operation."""

    registry: Registry
    input_timeout: float
    chains: ChainRequest
    outcomes: list[str] = field(default_factory=list)
    """One code per resolved input ("OK" or an error code), for the access log."""
    fetches: dict[InputKey, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)


def build(registry: Registry) -> GraphQLSchema:
    """The executable schema; every registered protocol must name a member of the union."""
    schema = build_schema(SDL_PATH.read_text(encoding="utf-8"))
    union = schema.type_map["WalletPositions"]
    assert isinstance(union, GraphQLUnionType)
    members = {member.name for member in union.types}
    for protocol in registry.values():
        if protocol.type_name not in members:
            raise ValueError(f"protocol {protocol.name!r}: {protocol.type_name} is not in the "
                             "WalletPositions union of schema.graphql")
    schema.query_type.fields["walletPositions"].resolve = resolve_wallet_positions
    return schema


async def resolve_wallet_positions(
    _root: Any, info: GraphQLResolveInfo, inputs: list[dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """Every valid input's fetch starts at once, one task per distinct input; the answer is built
    when all have settled. asyncio.wait leaves the fetches running if this field is cancelled:
    another field of the request may share them."""
    context: RequestContext = info.context
    started = [_start(context, item) for item in inputs]
    fetches = {id(fetch[1]): fetch[1] for fetch in started if isinstance(fetch, tuple)}
    if fetches:
        await asyncio.wait(fetches.values())
    data, errors = [], []
    for item, outcome in zip(inputs, started):
        position, error = _outcome(context, item, outcome, info.schema)
        if error is None:
            data.append(position)
            context.outcomes.append("OK")
        else:
            errors.append(error)
            context.outcomes.append(error["error"]["code"])
    return {"data": data, "errors": errors}


Started = tuple[Protocol, "asyncio.Future[dict[str, Any]]"] | PositionError


def _start(context: RequestContext, item: dict[str, Any]) -> Started:
    """The input's protocol and fetch, started or joined (identical inputs share one, even across
    aliases), or why the input is refused."""
    name, chain_id, address = item["protocol"], item["chainId"], item["walletAddress"].lower()
    try:
        protocol = _validate(context.registry, name, chain_id, address)
    except PositionError as exc:
        return exc
    key = (protocol.name, chain_id, address)
    if key not in context.fetches:
        context.fetches[key] = shared_future(_fetch(protocol, chain_id, address, context))
    return protocol, context.fetches[key]


def _outcome(
    context: RequestContext, item: dict[str, Any], started: Started, schema: GraphQLSchema,
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    name, chain_id, address = item["protocol"], item["chainId"], item["walletAddress"].lower()
    failure = started if isinstance(started, PositionError) else started[1].exception()
    if failure is None:
        assert isinstance(started, tuple)
        protocol, fetch = started
        position = {
            **fetch.result(),
            "__typename": protocol.type_name,
            "protocol": protocol.name,
            "chainId": chain_id,
            "walletAddress": address,
        }
        problem = nonconformity(position, schema.type_map[protocol.type_name])
        if problem is None:
            return position, None
        log.error("%s fetch returned an object that does not fit its type: %s", protocol.name, problem)
        failure = PositionError(INTERNAL_ERROR)
    assert isinstance(failure, PositionError), failure
    log.warning("input failed: %s on chain %d: %s %s", _shorten(name), chain_id, failure.code, failure.message)
    known = context.registry.get(name.lower())
    return None, {
        "protocol": known.name if known else _shorten(name),
        "chainId": chain_id,
        "walletAddress": _shorten(address, 64),
        "error": {"code": failure.code, "message": failure.message, "retryable": failure.retryable},
    }


def nonconformity(value: Any, graphql_type: GraphQLType) -> str | None:
    """Where `value` breaks `graphql_type` (a missing non-null field, a wrong scalar), or None.

    Checked per input, so that one adapter's bad object becomes that input's UNKNOWN_ERROR
    instead of a null that GraphQL would propagate up to the whole result. The check of each type
    is built once (a closure per field), and the path is spelled only for a problem found.
    """
    problem = _checker(graphql_type)(value)
    if problem is None:
        return None
    what, *path = problem
    return f"{''.join(reversed(path)) or 'value'} {what}"


Problem = list[str]
"""What is wrong, then the path to it from the inside out."""
Check = Callable[[Any], "Problem | None"]
_CHECKS: weakref.WeakKeyDictionary[GraphQLType, Check] = weakref.WeakKeyDictionary()


def _checker(graphql_type: GraphQLType) -> Check:
    check = _CHECKS.get(graphql_type)
    if check is None:
        check = _CHECKS[graphql_type] = _build_checker(graphql_type)
    return check


def _build_checker(graphql_type: GraphQLType) -> Check:
    if isinstance(graphql_type, GraphQLNonNull):
        inner = _checker(graphql_type.of_type)
        return lambda value: ["is null"] if value is None else inner(value)
    if isinstance(graphql_type, GraphQLList):
        return _list_checker(_checker(graphql_type.of_type))
    if isinstance(graphql_type, GraphQLObjectType):
        return _object_checker([(name, _checker(field.type)) for name, field in graphql_type.fields.items()])
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
    "Int": lambda v: isinstance(v, int) and not isinstance(v, bool) and -2**31 <= v < 2**31,
    "Float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
}


def _validate(registry: Registry, name: str, chain_id: int, address: str) -> Protocol:
    protocol = registry.get(name.lower())
    if protocol is None:
        supported = ", ".join(sorted(registry)) or "none yet"
        raise InputValidationError(f"Unknown protocol {_shorten(name)!r}. Supported protocols: {supported}.")
    if chain_id not in protocol.chains:
        chains = ", ".join(str(c) for c in sorted(protocol.chains))
        raise InputValidationError(
            f"Chain {chain_id} is not supported by protocol {protocol.name!r}. Supported chains: {chains}.")
    if not ADDRESS_RE.fullmatch(address):
        raise InputValidationError(
            "Malformed walletAddress: expected 0x followed by 40 hexadecimal characters.")
    return protocol


def _shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


async def _fetch(protocol: Protocol, chain_id: int, address: str, request: RequestContext) -> dict[str, Any]:
    """One adapter call under the input's time budget; anything unexpected is UNKNOWN_ERROR."""
    budget = request.input_timeout
    context = FetchContext(asyncio.get_running_loop().time() + budget, request.chains)
    try:
        async with asyncio.timeout(budget):
            position = await protocol.fetch(context, chain_id, address)
        if not isinstance(position, dict):
            raise TypeError(f"fetch returned {type(position).__name__}, not a dict")
        position["warnings"] = context.warnings.as_list()
    except PositionError:
        raise
    except TimeoutError:
        raise BudgetExceeded(f"The input did not resolve within its time budget of {budget:g} s.") from None
    except Exception:
        log.exception("unexpected failure in %s fetch (chain %d)", protocol.name, chain_id)
        raise PositionError(INTERNAL_ERROR) from None
    return position
