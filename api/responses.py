"""The service's answers are JSON, in the media type the client accepts: the negotiation, and the
error bodies every refusal shares (`{"errors": [{"message", "extensions": {"code"}}]}`)."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from aiohttp import web

JSON = "application/json"
GRAPHQL_RESPONSE = "application/graphql-response+json"
MEDIA_TYPES = {media: f"{media}; charset=utf-8" for media in (JSON, GRAPHQL_RESPONSE)}


def error_body(message: str, code: str, **extensions: Any) -> dict[str, Any]:
    return {"errors": [{"message": message, "extensions": {"code": code, **extensions}}]}


def json_response(
    payload: Mapping[str, Any], status: int = 200, media: str = JSON, headers: dict[str, str] | None = None
) -> web.Response:
    return bytes_response(json.dumps(payload).encode(), status, media, headers)


def bytes_response(body: bytes, status: int, media: str, headers: dict[str, str] | None = None) -> web.Response:
    """The Content-Type header is set whole: aiohttp's content_type and charset setters each parse
    and rebuild it."""
    return web.Response(status=status, body=body, headers={**(headers or {}), "Content-Type": MEDIA_TYPES[media]})


@functools.lru_cache(maxsize=256)
def error_bytes(message: str, code: str, *extensions: tuple[str, Any]) -> bytes:
    """The body of a refusal, encoded once: refusals repeat (a missing key, the rate limit)."""
    return json.dumps(error_body(message, code, **dict(extensions))).encode()


def negotiate(accept: str | None) -> str | None:
    """The response media type for an Accept header, or None when it admits neither JSON type.

    Highest quality wins, then an explicit type over a wildcard, then the first listed;
    wildcards and a missing header get `application/json`, which every client understands.
    """
    if not accept or not accept.strip():
        return JSON
    if accept in MEDIA_TYPES:
        return accept
    best, best_rank = None, (0.0, -1)
    for part in accept.split(","):
        media, *params = (piece.strip().lower() for piece in part.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        specificity = {GRAPHQL_RESPONSE: 2, JSON: 2, "application/*": 1, "*/*": 0}.get(media)
        if specificity is None or not 0 < quality <= 1:
            continue
        rank = (quality, specificity)
        if rank > best_rank:
            best, best_rank = (media if specificity == 2 else JSON), rank
    return best
