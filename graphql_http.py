"""GraphQL over HTTP: a request body becomes one checked operation, then its result.

Every request-level rule (decisions.md §4) is enforced in `prepare`, before anything executes, so
a refused request has run no resolver and its answer carries no `data` key.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import json
import logging
import multiprocessing
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FragmentDefinitionNode,
    GraphQLError,
    GraphQLSchema,
    GraphQLSyntaxError,
    OperationDefinitionNode,
    build_schema,
    execute,
    get_operation_ast,
    parse,
    specified_rules,
    validate,
)
from graphql.execution.values import get_variable_values

from limits import (MAX_INPUTS, MAX_TOKENS, DepthLimitRule, IntrospectionDepthLimitRule, NoIntrospectionRule,
                    cost_problem, count_inputs)

log = logging.getLogger("wallet_positions.graphql")


class RequestError(Exception):
    """A refused request: HTTP status plus GraphQL-shaped errors, each with an extensions code."""

    def __init__(self, status: int, errors: list[dict[str, Any]]) -> None:
        super().__init__(errors[0]["message"])
        self.status = status
        self.errors = errors

    @classmethod
    def single(cls, status: int, message: str, code: str, **extensions: Any) -> RequestError:
        return cls(status, [{"message": message, "extensions": {"code": code, **extensions}}])

    @classmethod
    def from_graphql(cls, errors: list[GraphQLError], code: str) -> RequestError:
        formatted = []
        for error in errors:
            entry = error.formatted
            entry["extensions"] = {"code": code, **(entry.get("extensions") or {})}
            formatted.append(entry)
        return cls(400, formatted)

    @property
    def payload(self) -> dict[str, Any]:
        return {"errors": self.errors}

    def __reduce__(self) -> tuple[Any, ...]:
        return (RequestError, (self.status, self.errors))


@dataclass(frozen=True)
class Operation:
    document: DocumentNode
    name: str | None
    variables: dict[str, Any]
    inputs: int


def _bad_request(message: str, code: str = "BAD_REQUEST") -> RequestError:
    return RequestError.single(400, message, code)


def prepare(body: bytes, schema: GraphQLSchema, introspection: bool) -> Operation:
    """The one operation the body asks for, checked against every request-level rule.

    The cheap checks come first, so that no refused document is validated: the parser's token
    cap, the cost bound (limits.cost_problem), then the inputs counted on the raw variables (a
    list keeps its length through coercion; one that fails coercion is refused either way).
    Validation, the costly part, runs only on documents that pass all of them.
    """
    return _prepare(_params(body), schema, introspection)


def _prepare(params: dict[str, Any], schema: GraphQLSchema, introspection: bool) -> Operation:
    try:
        document = parse(params["query"], max_tokens=MAX_TOKENS)
        problem = cost_problem(document)
        if problem:
            raise _bad_request(problem, "QUERY_TOO_COMPLEX")
        operation = _operation(document, params["operationName"])
        fragments = {d.name.value: d for d in document.definitions
                     if isinstance(d, FragmentDefinitionNode)}
        _check_inputs(count_inputs(operation, fragments, params["variables"]))
        rules = [*specified_rules, IntrospectionDepthLimitRule if introspection else DepthLimitRule]
        if not introspection:
            rules.append(NoIntrospectionRule)
        errors = validate(schema, document, rules)
        if errors:
            raise RequestError.from_graphql(errors, "GRAPHQL_VALIDATION_FAILED")
        coerced = get_variable_values(schema, operation.variable_definitions or (), params["variables"])
        if isinstance(coerced, list):
            raise RequestError.from_graphql(coerced, "BAD_USER_INPUT")
        inputs = count_inputs(operation, fragments, coerced.coerced)
    except GraphQLSyntaxError as exc:
        raise RequestError.from_graphql([exc], "GRAPHQL_PARSE_FAILED") from None
    except RecursionError:
        raise _bad_request("The query is nested too deeply to process.", "GRAPHQL_PARSE_FAILED") from None
    _check_inputs(inputs)
    return Operation(document, params["operationName"], params["variables"], inputs)


INLINE_QUERY_CHARS = 1024
"""Documents up to this length are prepared on the event loop: a couple of milliseconds at most.
The document's length decides, not the body's: variables cost next to nothing to read."""


class Preparer:
    """`prepare` for the server: short documents inline, longer ones (up to the cost bound's ~20 ms)
    in one worker process, so that the event loop keeps serving every other request meanwhile.

    A process, not a thread: in a thread, validation holds the GIL, and the interpreter's full
    garbage collections (tens of ms with graphql-core's garbage) run in whichever thread allocates,
    so the loop still stalled (measured: /healthz p99 of 50 ms and more under attack). The worker
    returns the checked Operation, parsed and validated, or the RequestError; unpickling the
    document costs about what parsing it does. The process starts on first use (`warm_up` starts
    it early) and is started again if it dies.
    """

    def __init__(self, sdl: str) -> None:
        self._sdl = sdl
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def warm_up(self) -> None:
        self._executor().submit(int)

    async def prepare(self, body: bytes, schema: GraphQLSchema, introspection: bool) -> Operation:
        params = _params(body)
        if len(params["query"]) <= INLINE_QUERY_CHARS:
            return _prepare(params, schema, introspection)
        try:
            return await asyncio.wrap_future(self._executor().submit(_prepare_in_worker, params, introspection))
        except BrokenProcessPool:
            log.error("the validation worker died; preparing this request inline and starting a new one")
            self._pool = None
            return _prepare(params, schema, introspection)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker,
                initargs=(self._sdl,))
        return self._pool


_worker_schema: GraphQLSchema | None = None


def _start_worker(sdl: str) -> None:
    global _worker_schema
    _worker_schema = build_schema(sdl)


def _prepare_in_worker(params: dict[str, Any], introspection: bool) -> Operation:
    assert _worker_schema is not None
    return _prepare(params, _worker_schema, introspection)


def _check_inputs(inputs: int) -> None:
    if inputs > MAX_INPUTS:
        raise RequestError.single(
            400, f"Too many inputs: the operation asks for {inputs}, the limit is {MAX_INPUTS} "
            "per request, counted over every walletPositions field.", "TOO_MANY_INPUTS",
            limit=MAX_INPUTS, inputs=inputs)


def _params(body: bytes) -> dict[str, Any]:
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError):
        raise _bad_request("The request body is not valid JSON.") from None
    if isinstance(payload, list):
        raise _bad_request("Batching is not supported: send one operation per request, as a JSON "
                           "object.", "BATCHING_NOT_SUPPORTED")
    if not isinstance(payload, dict):
        raise _bad_request("The request body must be a JSON object with a \"query\" string.")
    query = payload.get("query")
    if not isinstance(query, str) or not query.strip():
        raise _bad_request("\"query\" must be a non-empty string holding the GraphQL document.")
    variables = payload.get("variables")
    if variables is not None and not isinstance(variables, dict):
        raise _bad_request("\"variables\" must be a JSON object (or null).")
    name = payload.get("operationName")
    if name is not None and not isinstance(name, str):
        raise _bad_request("\"operationName\" must be a string (or null).")
    extensions = payload.get("extensions")
    if extensions is not None and not isinstance(extensions, dict):
        raise _bad_request("\"extensions\" must be a JSON object (or null).")
    return {"query": query, "variables": variables or {}, "operationName": name or None}


def _operation(document: DocumentNode, name: str | None) -> OperationDefinitionNode:
    operation = get_operation_ast(document, name)
    if operation is not None:
        return operation
    if name is not None:
        message = f"Unknown operation named {name[:64]!r}."
    else:
        message = "The document has several operations: choose one with \"operationName\"."
    raise _bad_request(message, "GRAPHQL_VALIDATION_FAILED")


async def run(operation: Operation, schema: GraphQLSchema, context: Any) -> dict[str, Any]:
    """Execute a prepared operation; resolver bugs are logged and shown only as a generic error."""
    result = execute(schema, operation.document, context_value=context,
                     variable_values=operation.variables, operation_name=operation.name)
    if inspect.isawaitable(result):
        result = await result
    payload = result.formatted
    for error, entry in zip(result.errors or [], payload.get("errors", [])):
        if error.original_error is not None:
            log.error("resolver failure at %s", error.path, exc_info=error.original_error)
            entry["message"] = "Internal error while executing the query; it has been logged."
            entry["extensions"] = {"code": "INTERNAL_SERVER_ERROR"}
    return payload
