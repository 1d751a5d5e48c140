"""GraphQL over HTTP: a request body becomes one checked operation (graphql_http/operation.py),
its variables coerced (variables.py), its answer completed by projection (projection.py), on a
schema with the service's own scalars (scalars.py).

A face: what the HTTP layer uses, re-exported; the resolvers import projection and scalars from
their modules.
"""

from __future__ import annotations

from graphql_http.operation import (
    INLINE_QUERY_CHARS,
    DocumentCache,
    Operation,
    Preparer,
    RequestError,
    analyse,
    prepare,
    run,
)

__all__ = ["INLINE_QUERY_CHARS", "DocumentCache", "Operation", "Preparer", "RequestError", "analyse", "prepare", "run"]
