"""Headless Chromium, Debian's package, driven over the DevTools protocol with aiohttp's own
websocket client: no driver and no npm package. It is started with the flags that keep it off
the network (no background requests, no component updates), reaches only loopback, and is
stopped with its test."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import aiohttp
import pytest

FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--remote-debugging-port=0",
)


def chromium() -> str:
    """The browser, or a skip that says why; on CI (scripts/test installs it) its absence fails."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing on CI: scripts/test installs Debian's chromium package")
        pytest.skip("no Chromium on this machine (apt-get install chromium; scripts/test does it on CI)")
    return found


class Browser:
    """One page of a fresh headless Chromium with its own empty profile."""

    def __init__(self) -> None:
        self.profile = tempfile.mkdtemp(prefix="chromium-")
        self.process: subprocess.Popen[bytes] | None = None
        self.session: aiohttp.ClientSession | None = None
        self.socket: aiohttp.ClientWebSocketResponse | None = None
        self.next_id = 0

    async def __aenter__(self) -> Browser:
        self.process = subprocess.Popen(
            [chromium(), *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = Path(self.profile) / "DevToolsActivePort"
        for _ in range(300):
            if port_file.exists() and port_file.read_text().count("\n") >= 1:
                break
            assert self.process.poll() is None, "Chromium exited at start"
            await asyncio.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        self.session = aiohttp.ClientSession()
        async with self.session.get(f"http://127.0.0.1:{port}/json/list") as response:
            pages = [target for target in await response.json() if target["type"] == "page"]
        self.socket = await self.session.ws_connect(pages[0]["webSocketDebuggerUrl"], max_msg_size=0)
        await self.send("Page.enable")
        await self.send("Runtime.enable")
        return self

    async def __aexit__(self, *_: Any) -> None:
        if self.socket is not None:
            await self.socket.close()
        if self.session is not None:
            await self.session.close()
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        """One DevTools command and its result (events arriving meanwhile are passed over)."""
        assert self.socket is not None
        self.next_id += 1
        await self.socket.send_str(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads((await self.socket.receive(timeout=30)).data)
            if message.get("id") == self.next_id:
                assert "error" not in message, message
                return message.get("result", {})

    async def evaluate(self, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    async def wait_for(self, expression: str, seconds: float = 20) -> Any:
        """Poll `expression` until it is truthy; its value."""
        for _ in range(int(seconds / 0.05)):
            if value := await self.evaluate(expression):
                return value
            await asyncio.sleep(0.05)
        raise AssertionError(f"never true in the page: {expression}")

    async def goto(self, url: str) -> None:
        await self.send("Page.navigate", url=url)
        await self.wait_for("document.readyState === 'complete' && location.href !== 'about:blank'")

    async def type(self, text: str) -> None:
        """Text typed into the focused element (input events fire, as from a keyboard)."""
        await self.send("Input.insertText", text=text)

    async def press(self, key: str, code: str, key_code: int, modifiers: int = 0) -> None:
        for kind in ("keyDown", "keyUp"):
            await self.send(
                "Input.dispatchKeyEvent",
                type=kind,
                key=key,
                code=code,
                windowsVirtualKeyCode=key_code,
                modifiers=modifiers,
            )
