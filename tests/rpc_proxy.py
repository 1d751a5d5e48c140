"""A JSON-RPC proxy in front of anvil that can misbehave: the one hand-written fake, used only
for the outside edges (an endpoint that fails, hangs, answers garbage or limits log ranges)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
from aiohttp import web


class RpcProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.posts: list[Any] = []
        self.statuses: list[int] = []
        """HTTP statuses to answer the next requests with, before forwarding resumes."""
        self.mode = "forward"
        """forward | hang | not-json | not-jsonrpc | bad-hex | no-batches | rate-limit-error"""
        self.max_log_range: int | None = None
        self.delay = 0.0
        """Seconds added to every answer."""

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/", self.handle)
        return app

    async def handle(self, request: web.Request) -> web.StreamResponse:
        payload = await request.json()
        self.posts.append(payload)
        await asyncio.sleep(self.delay)
        if self.statuses:
            return web.Response(status=self.statuses.pop(0), text="upstream trouble")
        if self.mode == "hang":
            await asyncio.sleep(3600)
        if self.mode == "not-json":
            return web.Response(text="<html>502 Bad Gateway</html>", content_type="text/html")
        if self.mode == "not-jsonrpc":
            return web.json_response({"hello": "world"})
        if self.mode == "rate-limit-error":
            items = payload if isinstance(payload, list) else [payload]
            errors = [{"jsonrpc": "2.0", "id": item["id"],
                       "error": {"code": -32005, "message": "project ID request rate exceeded"}} for item in items]
            return web.json_response(errors if isinstance(payload, list) else errors[0])
        if self.mode == "no-batches" and isinstance(payload, list):
            return web.json_response({"jsonrpc": "2.0", "id": None,
                                      "error": {"code": -32600, "message": "batch requests are not supported"}})
        items = payload if isinstance(payload, list) else [payload]
        answers = [await self.answer(item) for item in items]
        return web.json_response(answers if isinstance(payload, list) else answers[0])

    async def answer(self, item: dict[str, Any]) -> dict[str, Any]:
        if item["method"] == "eth_getLogs" and self.max_log_range is not None:
            span = int(item["params"][0]["toBlock"], 16) - int(item["params"][0]["fromBlock"], 16) + 1
            if span > self.max_log_range:
                return {"jsonrpc": "2.0", "id": item["id"],
                        "error": {"code": -32005, "message": f"query exceeds max block range {self.max_log_range}"}}
        async with aiohttp.ClientSession() as session:
            async with session.post(self.upstream, json=item) as response:
                answer = json.loads(await response.read())
        if self.mode == "bad-hex" and item["method"] == "eth_blockNumber":
            answer["result"] = "0xnothex"
        return answer

    def calls(self, method: str) -> list[dict[str, Any]]:
        """Every JSON-RPC call of `method` the proxy received, batched or not."""
        items = [entry for post in self.posts for entry in (post if isinstance(post, list) else [post])]
        return [item for item in items if item["method"] == method]
