"""GraphQL over HTTP: a request body becomes one checked operation, then its result.

Every request-level rule (decisions.md §4) is enforced in `prepare`, before anything executes, so
a refused request has run no resolver and its answer carries no `data` key.
"""

from __future__ import annotations

import inspect
import json
import logging
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FragmentDefinitionNode,
    GraphQLError,
    GraphQLSchema,
    GraphQLSyntaxError,
    OperationDefinitionNode,
    execute,
    get_operation_ast,
    parse,
    specified_rules,
    validate,
)
from graphql.execution.values import get_variable_values

from limits import MAX_INPUTS, MAX_TOKENS, DepthLimitRule, NoIntrospectionRule, count_inputs, shape_problem

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


@dataclass(frozen=True)
class Operation:
    document: DocumentNode
    name: str | None
    variables: dict[str, Any]
    inputs: int


def _bad_request(message: str, code: str = "BAD_REQUEST") -> RequestError:
    return RequestError.single(400, message, code)


def prepare(body: bytes, schema: GraphQLSchema, introspection: bool) -> Operation:
    """The one operation the body asks for, checked against every request-level rule."""
    params = _params(body)
    try:
        document = parse(params["query"], max_tokens=MAX_TOKENS)
        problem = shape_problem(document)
        if problem:
            raise _bad_request(problem, "QUERY_TOO_COMPLEX")
        rules = [*specified_rules, DepthLimitRule]
        if not introspection:
            rules.append(NoIntrospectionRule)
        errors = validate(schema, document, rules)
        if errors:
            raise RequestError.from_graphql(errors, "GRAPHQL_VALIDATION_FAILED")
        operation = _operation(document, params["operationName"])
        coerced = get_variable_values(schema, operation.variable_definitions or (), params["variables"])
        if isinstance(coerced, list):
            raise RequestError.from_graphql(coerced, "BAD_USER_INPUT")
        fragments = {d.name.value: d for d in document.definitions
                     if isinstance(d, FragmentDefinitionNode)}
        inputs = count_inputs(operation, fragments, coerced.coerced)
    except GraphQLSyntaxError as exc:
        raise RequestError.from_graphql([exc], "GRAPHQL_PARSE_FAILED") from None
    except RecursionError:
        raise _bad_request("The query is nested too deeply to process.", "GRAPHQL_PARSE_FAILED") from None
    if inputs > MAX_INPUTS:
        raise RequestError.single(
            400, f"Too many inputs: the operation asks for {inputs}, the limit is {MAX_INPUTS} "
            "per request, counted over every walletPositions field.", "TOO_MANY_INPUTS",
            limit=MAX_INPUTS, inputs=inputs)
    return Operation(document, params["operationName"], params["variables"], inputs)


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
