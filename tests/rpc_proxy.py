"""A JSON-RPC proxy in front of anvil that can misbehave: the one hand-written fake, used only
for the outside edges (an endpoint that fails, hangs, lags, answers garbage or limits log ranges)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer

HEADER_NOT_FOUND = {"code": -32000, "message": "header not found"}
MISSING_TRIE_NODE = {"code": -32000, "message": "missing trie node 5f2c (path )"}
STATE_READS = ("eth_call", "eth_getCode", "eth_getBalance", "eth_getStorageAt")
"""Methods that read state at a block (their last parameter): a pruned node fails them for old blocks."""
LIMIT_EXCEEDED = {"code": -32005, "message": "limit exceeded"}
INTERNAL_ERROR = {"code": -32603, "message": "internal error"}
NODE_ERRORS = (HEADER_NOT_FOUND, MISSING_TRIE_NODE, LIMIT_EXCEEDED, INTERNAL_ERROR)
"""JSON-RPC errors a node gives about itself (lag, pruned state, limits), never about a contract."""


class RpcProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.url = ""
        self.posts: list[Any] = []
        self.elsewhere: list[Any] = []
        """Requests that reached /elsewhere, the target of the redirect mode (none should)."""
        self.statuses: list[int] = []
        """HTTP statuses to answer the next requests with, before forwarding resumes."""
        self.mode = "forward"
        """forward | hang | not-json | not-jsonrpc | bad-hex | no-batches | rate-limit-error | redirect | oversized"""
        self.max_log_range: int | None = None
        self.max_body_bytes: int | None = None
        """Larger request bodies are refused as anvil refuses them (-32600 Invalid request)."""
        self.body_sizes: list[int] = []
        self.delay = 0.0
        """Seconds added to every answer."""
        self.method_delays: dict[str, float] = {}
        """Seconds added to an answer that carries a call of the method (e.g. a slow eth_getLogs)."""
        self.item_faults: dict[str, tuple[float, dict[str, Any] | None]] = {}
        """method, or "method:first-param" (e.g. "eth_getBlockByNumber:finalized") -> (share of its
        calls, what they get instead: a JSON-RPC error object, or None for a null result), drawn
        from `rng`; a call of a JSON-RPC batch is hit alone."""
        self.fault_limit: int | None = None
        """Faults to give before behaving again (None: no limit)."""
        self.head: int | None = None
        """A node behind: it knows no block after this one (its `latest` is this block, its
        `finalized` 64 before, a later block's header is null)."""
        self.history_from: int | None = None
        """A pruned node: a state read (STATE_READS) at a block below this one gets MISSING_TRIE_NODE."""
        self.http_fault_share = 0.0
        """Share of HTTP requests answered 503."""
        self.hash_tags = "forward"
        """What a read whose block is named by hash (EIP-1898 `{"blockHash": ...}`) gets: forward |
        refuse (-32602, as an endpoint that takes only numbers and names)."""
        self.creation = "forward"
        """What an `eth_call` without `to` (a lens, chain/lens.py) gets: forward | refuse (-32602,
        as an endpoint that does not run them) | garbage (a result that is not a tape)."""
        self.lockstep: Lockstep | None = None
        """Where set, a request's own posts (not a follower's polls) are held in waves, counted."""
        self.handling = 0
        """Posts received and not yet answered (held ones included)."""
        self.rng = random.Random(0)
        self.released = asyncio.Event()
        """Set when the test ends (or the proxy's app shuts down): hanging and delayed answers stop
        waiting, so the server and the proxy shut down at once."""

    def app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.on_shutdown.append(self._shut_down)
        app.router.add_post("/", self.handle)
        app.router.add_post("/elsewhere", self.handle_elsewhere)
        return app

    async def _shut_down(self, _: web.Application) -> None:
        self.released.set()

    async def pause(self, seconds: float) -> None:
        """A delay, cut short once the test is over (`released`)."""
        if seconds > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.released.wait(), seconds)

    async def handle_elsewhere(self, request: web.Request) -> web.StreamResponse:
        self.elsewhere.append(await request.json())
        return web.json_response({"jsonrpc": "2.0", "id": 0, "result": "0x1"})

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.handling += 1
        try:
            return await self._handle(request)
        finally:
            self.handling -= 1

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        payload = json.loads(body)
        self.posts.append(payload)
        self.body_sizes.append(len(body))
        methods = {item.get("method") for item in (payload if isinstance(payload, list) else [payload])}
        await self.pause(max([self.method_delays.get(m, 0.0) for m in methods], default=0.0))
        if self.max_body_bytes is not None and len(body) > self.max_body_bytes:
            return web.json_response(
                {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid request"}}
            )
        await self.pause(self.delay)
        if self.lockstep is not None and not _polls(payload):
            await self.lockstep.join()
        if self.statuses:
            return web.Response(status=self.statuses.pop(0), text="upstream trouble")
        if self.http_fault_share and self.rng.random() < self.http_fault_share:
            return web.Response(status=503, text="upstream trouble")
        if self.mode == "hang":
            await asyncio.wait_for(self.released.wait(), 3600)
        if self.mode == "redirect":
            raise web.HTTPTemporaryRedirect(str(request.url.with_path("/elsewhere")))
        if self.mode == "oversized":
            return await self.oversized(request)
        if self.mode == "not-json":
            return web.Response(text="<html>502 Bad Gateway</html>", content_type="text/html")
        if self.mode == "not-jsonrpc":
            return web.json_response({"hello": "world"})
        if self.mode == "rate-limit-error":
            items = payload if isinstance(payload, list) else [payload]
            errors = [
                {
                    "jsonrpc": "2.0",
                    "id": item["id"],
                    "error": {"code": -32005, "message": "project ID request rate exceeded"},
                }
                for item in items
            ]
            return web.json_response(errors if isinstance(payload, list) else errors[0])
        if self.mode == "no-batches" and isinstance(payload, list):
            return web.json_response(
                {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "batch requests are not supported"}}
            )
        items = payload if isinstance(payload, list) else [payload]
        answers = [await self.answer(item) for item in items]
        return web.json_response(answers if isinstance(payload, list) else answers[0])

    async def oversized(self, request: web.Request) -> web.StreamResponse:
        """64 MiB of a JSON string, streamed: a reader must stop at its ceiling, not buffer it all."""
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        await response.write(b'{"jsonrpc": "2.0", "id": 0, "result": "0x')
        chunk = b"00" * (1 << 19)
        try:
            for _ in range(64):
                await response.write(chunk)
            await response.write(b'"}')
        except (ConnectionError, RuntimeError):
            pass
        return response

    async def answer(self, item: dict[str, Any]) -> dict[str, Any]:
        first = item["params"][0] if item.get("params") else None
        fault = self.item_faults.get(f"{item['method']}:{first}", self.item_faults.get(item["method"]))
        if fault is not None and self.fault_limit != 0 and self.rng.random() < fault[0]:
            if self.fault_limit is not None:
                self.fault_limit -= 1
            if fault[1] is None:
                return {"jsonrpc": "2.0", "id": item["id"], "result": None}
            return {"jsonrpc": "2.0", "id": item["id"], "error": fault[1]}
        tag = item["params"][-1] if item.get("params") else None
        if isinstance(tag, dict) and self.hash_tags == "refuse":
            error = {"code": -32602, "message": "invalid argument 1: hex string without 0x prefix"}
            return {"jsonrpc": "2.0", "id": item["id"], "error": error}
        if self.creation != "forward" and item["method"] == "eth_call" and "to" not in item["params"][0]:
            if self.creation == "refuse":
                return {"jsonrpc": "2.0", "id": item["id"], "error": {"code": -32602, "message": "missing to"}}
            return {"jsonrpc": "2.0", "id": item["id"], "result": "0x07" + "ab" * 40}
        if item["method"] == "eth_getBlockByNumber" and self.head is not None:
            tag = {"latest": hex(self.head), "finalized": hex(max(self.head - 64, 0))}.get(first, first)
            if int(tag, 16) > self.head:
                return {"jsonrpc": "2.0", "id": item["id"], "result": None}
            item = {**item, "params": [tag, *item["params"][1:]]}
        if isinstance(tag, dict) and item["method"] in STATE_READS and self.history_from is not None:
            tag = await self.number_of(tag["blockHash"])
        if item["method"] in STATE_READS and self.history_from is not None and self.pruned(tag):
            return {"jsonrpc": "2.0", "id": item["id"], "error": MISSING_TRIE_NODE}
        if item["method"] == "eth_getLogs" and self.max_log_range is not None:
            span = int(item["params"][0]["toBlock"], 16) - int(item["params"][0]["fromBlock"], 16) + 1
            if span > self.max_log_range:
                return {
                    "jsonrpc": "2.0",
                    "id": item["id"],
                    "error": {"code": -32005, "message": f"query exceeds max block range {self.max_log_range}"},
                }
        async with aiohttp.ClientSession() as session, session.post(self.upstream, json=item) as response:
            answer = json.loads(await response.read())
        if self.mode == "bad-hex" and item["method"] == "eth_getBlockByNumber":
            answer["result"] = "0xnothex"
        return answer

    async def number_of(self, block_hash: str) -> str:
        """The number of the block a hash names, as the upstream node knows it."""
        item = {"jsonrpc": "2.0", "id": 1, "method": "eth_getBlockByHash", "params": [block_hash, False]}
        async with aiohttp.ClientSession() as session, session.post(self.upstream, json=item) as response:
            header = json.loads(await response.read())["result"]
        return str(header["number"]) if header else "0x0"

    def pruned(self, tag: str) -> bool:
        return tag.startswith("0x") and self.history_from is not None and int(tag, 16) < self.history_from

    def reads(self) -> int:
        """Posts other than a head follower's polls (chain/head.py: `latest` and `finalized`
        headers, and once the probe of block hash tags, `eth_getBalance`); a request's own pin to a
        header counts as one of those."""
        return sum(1 for post in self.posts if not _polls(post))

    def calls(self, method: str) -> list[dict[str, Any]]:
        """Every JSON-RPC call of `method` the proxy received, batched or not."""
        items = [entry for post in self.posts for entry in (post if isinstance(post, list) else [post])]
        return [item for item in items if item["method"] == method]


@contextlib.contextmanager
def served(proxy: RpcProxy) -> Iterator[str]:
    """The proxy's URL, served from a thread of its own with its own event loop: a provider is
    another machine, whose round trip the service's CPU does not hold up. In the service's loop the
    proxy's timers, reads and forwards each waited for the service's CPU, counting it twice (a
    two-chain portfolio's second round took 136 ms behind a 50 ms proxy)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="rpc-proxy", daemon=True)
    thread.start()

    async def start() -> TestServer:
        test_server = TestServer(proxy.app(), host="127.0.0.1")
        await test_server.start_server()
        return test_server

    test_server = asyncio.run_coroutine_threadsafe(start(), loop).result()
    try:
        yield str(test_server.make_url("/"))
    finally:
        loop.call_soon_threadsafe(proxy.released.set)
        asyncio.run_coroutine_threadsafe(test_server.close(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()


def _polls(post: Any) -> bool:
    """Whether a post is a head follower's (chain/head.py: `latest` and `finalized` headers, and
    once the probe of block hash tags, `eth_getBalance`); a request's own pin to a header counts
    as one of those."""
    return all(
        (item["method"] == "eth_getBlockByNumber" and item["params"][0] in ("latest", "finalized"))
        or item["method"] == "eth_getBalance"
        for item in (post if isinstance(post, list) else [post])
    )


SETTLED = 5
"""Checks in a row, a millisecond apart, at which the event loop must have nothing to do before
it counts as settled (`settled`)."""


@dataclass
class _Waiter:
    busy: Callable[[], int]
    done: asyncio.Future[None]
    calm: int = 0


_waiters: dict[asyncio.AbstractEventLoop, list[_Waiter]] = {}
_watchers: set[asyncio.Task[None]] = set()


async def settled(busy: Callable[[], int]) -> None:
    """Until the running event loop (the one the server under test and this proxy share) has had
    nothing to do at SETTLED checks in a row: no callback ready to run (asyncio's ready queue,
    read here only) and `busy()` nothing. A loaded machine slows the checks as much as the work,
    so what the loop settles on does not depend on the machine's speed.

    One watcher checks for every waiter of a loop (`_watch`): two waiters each checking on its
    own timer find each other's wake-up in the ready queue, and have kept each other waiting for
    minutes (a query's lockstep releasing its last wave while the test waits for quiet)."""
    loop = asyncio.get_running_loop()
    waiter = _Waiter(busy, loop.create_future())
    if loop not in _waiters:
        _waiters[loop] = []
        watcher = loop.create_task(_watch(loop))
        _watchers.add(watcher)
        watcher.add_done_callback(_watchers.discard)
    _waiters[loop].append(waiter)
    await waiter.done


async def _watch(loop: asyncio.AbstractEventLoop) -> None:
    """Every millisecond, each waiter's count of calm checks in a row, until none is left."""
    waiters = _waiters[loop]
    try:
        while waiters:
            await asyncio.sleep(0.001)
            calm = not loop._ready  # type: ignore[attr-defined]
            for waiter in list(waiters):
                waiter.calm = waiter.calm + 1 if calm and not waiter.busy() else 0
                if waiter.done.done() or waiter.calm >= SETTLED:
                    waiters.remove(waiter)
                    if not waiter.done.done():
                        waiter.done.set_result(None)
    finally:
        del _waiters[loop]


class Lockstep:
    """Dependent rounds counted, not timed: every post is held until the event loop the server and
    the proxy share has settled (`settled`: nothing ready to run, no post being handled but the
    held ones), then the held ones are answered together, one wave. A post that needs an earlier
    one's answer can only come after that answer, so it starts the next wave: the waves a query
    costs are its dependent rounds. Posts that do not depend on each other join one wave however
    slow the machine: the loop does not settle while the server can still send without an answer,
    nor while an earlier wave's answers are on their way."""

    def __init__(self, proxy: RpcProxy) -> None:
        self.proxy = proxy
        self.waves = 0
        self.held = 0
        self._gate: asyncio.Future[None] | None = None
        self._releaser: asyncio.Task[None] | None = None

    async def join(self) -> None:
        if self._gate is None:
            self._gate = asyncio.get_running_loop().create_future()
            self.waves += 1
            self._releaser = asyncio.create_task(self._release(self._gate))
        gate = self._gate
        self.held += 1
        try:
            await gate
        finally:
            self.held -= 1

    async def _release(self, gate: asyncio.Future[None]) -> None:
        await settled(lambda: self.proxy.handling - self.held)
        self._gate = None
        gate.set_result(None)
