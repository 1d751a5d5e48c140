"""`GET /watches/events`: the calling key's watch events as a server-sent event stream
(`text/event-stream`), each with its outbox sequence number as its `id`, so a client that
reconnects with `Last-Event-ID` resumes after the last event it saw, without loss: events are
read from the outbox, which keeps them (docs/watches.md)."""

from __future__ import annotations

import asyncio

from aiohttp import web

from api.responses import JSON, bytes_response, error_bytes
from api.routes import admit
from api.state import KEYS, READINESS, STREAMS, WATCHES
from errors import IndexUnavailable

POLL_SECONDS = 0.5
"""How often a stream looks for new events when none woke it."""
KEEPALIVE_SECONDS = 15.0
"""A comment line this often, so proxies keep an idle stream open."""
BATCH = 100
PER_KEY = 4
"""Streams a key's name may hold open at once: each holds a connection and polls the outbox."""


async def watch_events(request: web.Request) -> web.StreamResponse:
    """Auth and rate limit as for /graphql (the stream counts as one request), then every event of
    the key's name after `Last-Event-ID` (0: from the first kept), as it is written, until the
    client leaves or the server drains."""
    admitted = await admit(request, JSON)
    if isinstance(admitted, web.Response):
        return admitted
    key_id, headers = admitted
    given = request.headers.get("Last-Event-ID", request.query.get("lastEventId", "0")).strip() or "0"
    if not given.isdigit() or len(given) > 18:
        message = "Last-Event-ID must be the id of an event this stream sent (a whole number)."
        return bytes_response(error_bytes(message, "BAD_REQUEST"), 400, JSON, headers)
    seq, owner = int(given), request.app[KEYS].name(key_id)
    open_ = request.app[STREAMS]
    if open_.get(owner, 0) >= PER_KEY:
        message = f"This key already holds {PER_KEY} event streams open, the most a key may: close one first."
        return bytes_response(error_bytes(message, "STREAM_LIMIT"), 429, JSON, headers)
    open_[owner] = open_.get(owner, 0) + 1
    try:
        return await _stream(request, headers, owner, seq)
    finally:
        open_[owner] -= 1
        if not open_[owner]:
            del open_[owner]


async def _stream(request: web.Request, headers: dict[str, str], owner: str, seq: int) -> web.StreamResponse:
    """The owner's events after `seq`, then each new one, until the client leaves or the server drains."""
    store = request.app[WATCHES].store
    response = web.StreamResponse(
        headers={**headers, "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )
    await response.prepare(request)
    readiness, quiet = request.app[READINESS], 0.0
    while not readiness.draining:
        try:
            events = await store.after(owner, seq, BATCH)
        except IndexUnavailable:  # the shared database down: the stream waits for it, kept open
            events = []
        for event in events:
            await response.write(f"id: {event.seq}\nevent: {event.kind}\ndata: {event.body}\n\n".encode())
            seq = event.seq
        if len(events) == BATCH:
            continue
        if quiet >= KEEPALIVE_SECONDS:
            await response.write(b": keepalive\n\n")
            quiet = 0.0
        await asyncio.sleep(POLL_SECONDS)
        quiet += POLL_SECONDS
    return response
