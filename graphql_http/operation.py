"""GraphQL over HTTP: a request body becomes one checked operation, then its result.

Every request-level rule (docs/decisions.md §4) is enforced in `checked`, before anything executes, so
a refused request has run no resolver and its answer carries no `data` key. What does not depend
on a request's variables (parsing, the cost bound, validation) is done once per document and kept
in a DocumentCache; the rest is checked for every request.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import ctypes
import inspect
import json
import logging
import multiprocessing
import os
import signal
import sys
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    DocumentNode,
    ExecutionResult,
    FormattedExecutionResult,
    FragmentDefinitionNode,
    GraphQLError,
    GraphQLFormattedError,
    GraphQLSchema,
    GraphQLSyntaxError,
    OperationDefinitionNode,
    build_schema,
    default_field_resolver,
    default_type_resolver,
    get_operation_ast,
    parse,
    specified_rules,
    validate,
)
from graphql.execution.collect_fields import FragmentDetails
from graphql.execution.values import VariableValues

from graphql_http.projection import ProjectingExecutor, Projection, selects_by_variables
from graphql_http.rules import WIDTH_HINT, DepthLimitRule, InputCount, NoIntrospectionRule, cost_problem, input_count
from graphql_http.scalars import with_scalars
from graphql_http.variables import Coercer
from immutable_cache import ImmutableCache, weight
from limits import MAX_INPUTS, MAX_TOKENS

log = logging.getLogger("wallet_positions.graphql")


class RequestError(Exception):
    """A refused request: HTTP status plus GraphQL-shaped errors, each with an extensions code."""

    def __init__(self, status: int, errors: list[GraphQLFormattedError]) -> None:
        super().__init__(errors[0]["message"])
        self.status = status
        self.errors = errors

    @classmethod
    def single(cls, status: int, message: str, code: str, **extensions: Any) -> RequestError:
        return cls(status, [{"message": message, "extensions": {"code": code, **extensions}}])

    @classmethod
    def from_graphql(cls, errors: list[GraphQLError], code: str) -> RequestError:
        formatted: list[GraphQLFormattedError] = []
        for error in errors:
            entry = error.formatted
            entry["extensions"] = {"code": code, **(entry.get("extensions") or {})}
            formatted.append(entry)
        return cls(400, formatted)

    def again(self) -> RequestError:
        """A new exception with the same answer, for a refusal kept in the document cache."""
        return RequestError(self.status, self.errors)

    @property
    def payload(self) -> dict[str, Any]:
        return {"errors": self.errors}

    def __reduce__(self) -> tuple[Any, ...]:
        return (RequestError, (self.status, self.errors))


@dataclass(frozen=True)
class Operation:
    """A request's operation, checked, with its variables coerced (once: execution takes them)."""

    analysis: Analysis
    chosen: Chosen
    variables: VariableValues
    inputs: int

    @property
    def chains_asked(self) -> list[int | None]:
        """Per whole-field (`portfolio`), the chains it asks; None where it asks every served chain."""
        return self.chosen.count.chains_asked(self.variables.coerced)


def _bad_request(message: str, code: str = "BAD_REQUEST") -> RequestError:
    return RequestError.single(400, message, code)


@dataclass(frozen=True)
class Chosen:
    """One operation of a document, with what every request choosing it can share."""

    node: OperationDefinitionNode
    count: InputCount
    coerce: Coercer
    projection: Projection | None


@dataclass
class Analysis:
    """A document as far as no request's variables matter: parsed, bounded and validated.

    The refusals are kept as data and raised anew for each request (an exception raised again
    would grow its traceback with every request).
    """

    document: DocumentNode | None
    refusal: RequestError | None
    """Why every request with this document is refused whatever it holds: parse, cost bound."""
    invalid: RequestError | None = None
    """The validation errors (depth, introspection and the specified rules), reported only after
    the operation is chosen and its inputs are counted, as for a document seen the first time."""
    fragments: dict[str, FragmentDefinitionNode] = field(default_factory=dict)
    fragment_details: dict[str, FragmentDetails] = field(default_factory=dict)
    operations: dict[str | None, Chosen] = field(default_factory=dict)
    """By operationName: only names the document defines get here, so it stays small."""

    def operation(self, name: str | None, schema: GraphQLSchema) -> Chosen:
        known = self.operations.get(name)
        if known is None:
            assert self.document is not None
            operation = _operation(self.document, name)
            shared = not selects_by_variables(operation, self.fragments)
            known = self.operations[name] = Chosen(
                operation,
                input_count(operation, self.fragments),
                Coercer(schema, operation.variable_definitions or ()),
                Projection(schema, self.fragment_details, operation) if shared else None,
            )
        return known

    def projection(self, chosen: Chosen, schema: GraphQLSchema) -> Projection:
        """The operation's compiled projection: shared by every request where no variable can
        change what it selects, else compiled for this request."""
        return chosen.projection or Projection(schema, self.fragment_details, chosen.node)

    @property
    def weight(self) -> int:
        """Roughly the bytes held: a parsed token with its share of the tree is about 500 bytes."""
        if self.refusal is not None:
            return weight(self.refusal.errors)
        assert self.document is not None
        tokens, token = 0, self.document.loc.start_token if self.document.loc else None
        while token is not None:
            tokens, token = tokens + 1, token.next
        return TOKEN_BYTES * tokens + (weight(self.invalid.errors) if self.invalid else 0)


TOKEN_BYTES = 512
DOCUMENT_CACHE_BYTES = 64 * 1024 * 1024
"""What the analyses kept by one process may weigh at most, whatever DOCUMENT_CACHE_SIZE allows:
real documents weigh about 35 KB, one at the token cap about 500 KB."""


def analyse(text: str, schema: GraphQLSchema, introspection: bool) -> Analysis:
    """Parse, bound and validate a document. The cost bound (rules.cost_problem) runs first, so
    that no document too costly to validate is validated."""
    try:
        document = parse(text, max_tokens=MAX_TOKENS)
        problem = cost_problem(document)
        if problem:
            return Analysis(None, _bad_request(problem, "QUERY_TOO_COMPLEX"))
        rules = [*specified_rules, DepthLimitRule] + ([] if introspection else [NoIntrospectionRule])
        errors = validate(schema, document, rules)
        # Clients that show only the first error (gql, codegen, graphql-tools) learn why their
        # introspection failed and where the schema is published.
        errors.sort(key=lambda error: (error.extensions or {}).get("code") != "INTROSPECTION_DISABLED")
    except GraphQLSyntaxError as exc:
        if "Document contains more than" in exc.message:  # the token cap, not a syntax error
            return Analysis(None, _bad_request(f"{exc.message} {WIDTH_HINT}", "GRAPHQL_PARSE_FAILED"))
        return Analysis(None, RequestError.from_graphql([exc], "GRAPHQL_PARSE_FAILED"))
    except RecursionError:
        return Analysis(None, _too_deep())
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    return Analysis(
        document,
        None,
        RequestError.from_graphql(errors, "GRAPHQL_VALIDATION_FAILED") if errors else None,
        fragments,
        {name: FragmentDetails(definition) for name, definition in fragments.items()},
    )


def _too_deep() -> RequestError:
    return _bad_request("The query is nested too deeply to process.", "GRAPHQL_PARSE_FAILED")


def checked(params: dict[str, Any], analysis: Analysis, schema: GraphQLSchema) -> Operation:
    """The operation a request asks for, checked against every request-level rule in this order:
    the document's own refusal, the operation's choice, the inputs counted on the raw variables (a
    list keeps its length through coercion; one that fails coercion is refused either way), the
    validation errors, the variables' coercion, and the inputs counted on the coerced variables."""
    if analysis.refusal is not None:
        raise analysis.refusal.again()
    chosen = analysis.operation(params["operationName"], schema)
    _check_inputs(chosen.count(params["variables"]))
    if analysis.invalid is not None:
        raise analysis.invalid.again()
    try:
        coerced = chosen.coerce(params["variables"])
    except RecursionError:
        raise _too_deep() from None
    if isinstance(coerced, list):
        raise RequestError.from_graphql(coerced, "BAD_USER_INPUT")
    inputs = chosen.count(coerced.coerced)
    _check_inputs(inputs)
    return Operation(analysis, chosen, coerced, inputs)


def prepare(body: bytes, schema: GraphQLSchema, introspection: bool) -> Operation:
    """The one operation the body asks for, analysed afresh (no cache): what a first request costs."""
    params = _params(body)
    return checked(params, analyse(params["query"], schema, introspection), schema)


class DocumentCache:
    """Analyses by (schema, introspection on or off, document text), least recently used out first.

    Keyed by the schema object itself (held, so its identity stays unique): another schema never
    sees an analysis made against this one, and the text is compared in full, not by a digest.
    """

    def __init__(self, size: int) -> None:
        self._items = ImmutableCache(size, DOCUMENT_CACHE_BYTES)
        self.hits = self.misses = 0

    def get(self, schema: GraphQLSchema, introspection: bool, text: str) -> Analysis | None:
        analysis: Analysis | None = self._items.get((schema, introspection, text))
        if analysis is None:
            self.misses += 1
        else:
            self.hits += 1
        return analysis

    def put(self, schema: GraphQLSchema, introspection: bool, text: str, analysis: Analysis) -> None:
        self._items.put((schema, introspection, text), analysis, analysis.weight)

    def __len__(self) -> int:
        return len(self._items)


INLINE_QUERY_CHARS = 1024
"""Documents up to this length are analysed on the event loop: a couple of milliseconds at most.
The document's length decides, not the body's: variables cost next to nothing to read."""


class Preparer:
    """Requests to checked operations, for the server. A document seen before is taken from the
    cache; a new one is analysed inline when short, in one worker process when longer (up to the
    cost bound's ~20 ms), so that the event loop keeps serving every other request meanwhile.

    A process, not a thread: in a thread, validation holds the GIL, and the interpreter's full
    garbage collections (tens of ms with graphql-core's garbage) run in whichever thread allocates,
    so the loop still stalled (measured: /healthz p99 of 50 ms and more under attack). The worker
    builds its schema from the same SDL and returns the Analysis; unpickling the document costs
    about what parsing it does. The process starts on first use (`warm_up` starts it early) and is
    started again if it dies. It ends with the server, whatever ends the server (`_die_with`).
    """

    def __init__(self, schema: GraphQLSchema, sdl: str, cache_size: int) -> None:
        self.schema = schema
        self.cache = DocumentCache(cache_size)
        self._sdl = sdl
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def warm_up(self) -> None:
        self._executor().submit(int)

    async def prepare(self, body: bytes, introspection: bool) -> Operation:
        params = _params(body)
        text = params["query"]
        analysis = self.cache.get(self.schema, introspection, text)
        if analysis is None:
            analysis = await self._analyse(text, introspection)
            self.cache.put(self.schema, introspection, text, analysis)
        return checked(params, analysis, self.schema)

    async def _analyse(self, text: str, introspection: bool) -> Analysis:
        if len(text) <= INLINE_QUERY_CHARS:
            return analyse(text, self.schema, introspection)
        try:
            return await asyncio.wrap_future(self._executor().submit(_analyse_in_worker, text, introspection))
        except BrokenProcessPool:
            log.error("the validation worker died; analysing this document inline and starting a new one")
            self._pool = None
            return analyse(text, self.schema, introspection)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(self._sdl, os.getpid()),
            )
        return self._pool


_worker_schema: GraphQLSchema | None = None


PR_SET_PDEATHSIG = 1
"""Linux's prctl option: a signal the kernel sends a process when the thread that started it ends."""


def _start_worker(sdl: str, server: int) -> None:
    _die_with(server)
    global _worker_schema
    _worker_schema = with_scalars(build_schema(sdl))


def _die_with(server: int) -> None:
    """End the worker when the server ends, a `kill -9` included: on Linux the kernel kills it (a
    parent-death signal; the server starts it from its one event-loop thread); if the server is
    already gone, now. Its end closes the last copy of the resource tracker's pipe, so
    multiprocessing's tracker ends too, and nothing outlives the server."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != server:
        os._exit(0)


def _analyse_in_worker(text: str, introspection: bool) -> Analysis:
    assert _worker_schema is not None
    return analyse(text, _worker_schema, introspection)


def _check_inputs(inputs: int) -> None:
    if inputs > MAX_INPUTS:
        raise RequestError.single(
            400,
            f"Too many inputs: the operation asks for {inputs}, the limit is {MAX_INPUTS} "
            "per request, counted over every walletPositions, poolDetails and positionsHistory field; a "
            f"portfolio counts {MAX_INPUTS}: it is an operation's only field.",
            "TOO_MANY_INPUTS",
            limit=MAX_INPUTS,
            inputs=inputs,
        )


def _params(body: bytes) -> dict[str, Any]:
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError):
        raise _bad_request("The request body is not valid JSON.") from None
    if isinstance(payload, list):
        raise _bad_request(
            "Batching is not supported: send one operation per request, as a JSON object.", "BATCHING_NOT_SUPPORTED"
        )
    if not isinstance(payload, dict):
        raise _bad_request('The request body must be a JSON object with a "query" string.')
    query = payload.get("query")
    if not isinstance(query, str) or not query.strip():
        raise _bad_request('"query" must be a non-empty string holding the GraphQL document.')
    variables = payload.get("variables")
    if variables is not None and not isinstance(variables, dict):
        raise _bad_request('"variables" must be a JSON object (or null).')
    name = payload.get("operationName")
    if name is not None and not isinstance(name, str):
        raise _bad_request('"operationName" must be a string (or null).')
    extensions = payload.get("extensions")
    if extensions is not None and not isinstance(extensions, dict):
        raise _bad_request('"extensions" must be a JSON object (or null).')
    return {"query": query, "variables": variables or {}, "operationName": name or None}


def _operation(document: DocumentNode, name: str | None) -> OperationDefinitionNode:
    operation = get_operation_ast(document, name)
    if operation is not None:
        return operation
    if name is not None:
        message = f"Unknown operation named {name[:64]!r}."
    else:
        message = 'The document has several operations: choose one with "operationName".'
    raise _bad_request(message, "GRAPHQL_VALIDATION_FAILED")


async def run(operation: Operation, schema: GraphQLSchema, context: Any) -> FormattedExecutionResult:
    """Execute a prepared operation; resolver bugs are logged and shown only as a generic error (a
    GraphQLError a resolver raises is the client's, shown as it is)."""
    analysis, chosen = operation.analysis, operation.chosen
    result = ProjectingExecutor(
        schema,
        analysis.fragments,
        analysis.fragment_details,
        None,
        context,
        chosen.node,
        operation.variables,
        default_field_resolver,
        default_type_resolver,
        default_field_resolver,
        projection=analysis.projection(chosen, schema),
    ).execute_operation()
    if inspect.isawaitable(result):
        result = await result
    # Incremental results need @defer or @stream, which the schema does not define.
    assert isinstance(result, ExecutionResult)
    payload = result.formatted
    for error, entry in zip(result.errors or [], payload.get("errors", [])):
        # A resolver's GraphQLError is meant for the client (a refused argument, with its code).
        if error.original_error is not None and not isinstance(error.original_error, GraphQLError):
            log.error("resolver failure at %s", error.path, exc_info=error.original_error)
            entry["message"] = "Internal error while executing the query; it has been logged."
            entry["extensions"] = {"code": "INTERNAL_SERVER_ERROR"}
    return payload
