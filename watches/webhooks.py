"""Webhook delivery: Standard Webhooks signatures (`webhook-id`, `webhook-timestamp`,
`webhook-signature`, HMAC-SHA256 over "id.timestamp.body"), targets checked against the
operator's rules before creation and again at every connection (the resolver refuses a name that
turns private later), at least once with exponential back-off, the same id on every retry."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import ipaddress
import logging
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

from errors import IndexUnavailable
from watches.store import Event, WatchStore

log = logging.getLogger("wallet_positions.watches")

TIMEOUT_SECONDS = 10.0
"""An attempt's bound, connection to answer: a slow receiver fails it and is retried later."""
ANSWER_BYTES = 64 * 1024
"""What is read of a receiver's answer at most (its status is what counts)."""
MAX_DELAY_SECONDS = 3600.0
"""The back-off's longest wait between two attempts."""
IN_FLIGHT = 32
"""Attempts at once, across receivers; one at a time per receiver, so a slow or dead one holds
only its own events back."""


@dataclass(frozen=True)
class Targets:
    """The operator's rules for webhook URLs (settings WEBHOOK_*)."""

    require_https: bool = True
    allow_loopback: bool = False
    hosts: frozenset[str] = frozenset()
    """Host names a URL may name; empty: any host whose addresses are public."""

    def problem(self, url: str) -> str | None:
        """Why a URL is refused as a webhook target, or None."""
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 (a port out of range raises here)
        except ValueError:
            return "it is not a URL"
        if parts.scheme not in ("https", "http") or not parts.hostname:
            return "it is not an http(s) URL with a host"
        if parts.scheme != "https" and self.require_https:
            return "this server requires https"
        if self.hosts and parts.hostname.lower() not in self.hosts:
            return "its host is not in this server's allow-list (WEBHOOK_HOSTS)"
        try:
            address = ipaddress.ip_address(parts.hostname)
        except ValueError:
            return None  # a name: its addresses are checked at every connection
        return self.address_problem(address)

    def address_problem(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
        if address.is_loopback:
            return None if self.allow_loopback else "it is a loopback address"
        if address.is_private or address.is_link_local or address.is_multicast or address.is_reserved:
            return "it is a private, link-local or reserved address"
        if address.is_unspecified:
            return "it is an unspecified address"
        return None


class GuardedResolver(AbstractResolver):
    """Names resolved as usual, then every address the Targets refuse dropped: the connection can
    only reach addresses checked at that moment (a name that resolves privately later is refused)."""

    def __init__(self, targets: Targets) -> None:
        self.targets = targets
        self.inner = DefaultResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        found = await self.inner.resolve(host, port, family)
        allowed = [one for one in found if self.targets.address_problem(ipaddress.ip_address(one["host"])) is None]
        if not allowed:
            raise OSError(f"webhook host {host} resolves only to refused addresses")
        return allowed

    async def close(self) -> None:
        await self.inner.close()


def signed(secret: str, event_id: str, timestamp: int, body: str) -> str:
    """`webhook-signature`: v1, the HMAC-SHA256 of "id.timestamp.body" keyed by the secret's bytes."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    digest = hmac.new(key, f"{event_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


class Deliverer:
    """Sends the outbox's due webhook events, each until its receiver answers 2xx or its retry
    period ends (then failed, kept with the reason)."""

    def __init__(
        self,
        store: WatchStore,
        targets: Targets,
        retry_seconds: float,
        first_delay: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.targets = targets
        self.retry_seconds = retry_seconds
        self.first_delay = first_delay
        self.clock = clock
        self.wake = asyncio.Event()
        self.sent = self.retried = self.failed = 0
        self._tasks: dict[asyncio.Task[None], str] = {}
        """Attempts under way, each with its event's id."""

    async def run(self, session: aiohttp.ClientSession, poll_seconds: float = 0.5) -> None:
        """Forever: claim the due events (one in flight per receiver, IN_FLIGHT at most) and start
        their attempts, then wait to be woken by a new event or an attempt's end, or for the next
        poll."""
        while True:
            self.wake.clear()
            try:
                claimed = await self.store.due(self.clock(), IN_FLIGHT - len(self._tasks))
            except IndexUnavailable as exc:
                log.warning("webhook events not claimed: %s", exc.message)
                claimed = []
            for event, url, secret in claimed:
                task = asyncio.create_task(self._attempt(session, event, url, secret))
                self._tasks[task] = event.id
                task.add_done_callback(self._tasks.pop)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(
                    poll_seconds
                ):  # not wait_for: on 3.11 a wake racing a cancel loses the cancel
                    await self.wake.wait()

    @property
    def attempting(self) -> int:
        """Attempts under way."""
        return len(self._tasks)

    async def close(self) -> None:
        """Attempts under way stopped and their claims given back, so the next process (or another
        replica) attempts them at once, not when their leases end."""
        stopped = dict(self._tasks)
        for task in stopped:
            task.cancel()
        await asyncio.gather(*stopped, return_exceptions=True)
        unrecorded = [event_id for task, event_id in stopped.items() if task.cancelled()]
        with contextlib.suppress(IndexUnavailable):
            await self.store.release(unrecorded)

    async def _attempt(self, session: aiohttp.ClientSession, event: Event, url: str, secret: str) -> None:
        """One attempt, its outcome recorded (where the store cannot take it, the event's lease
        ends unrecorded and it is attempted again, with the same id)."""
        try:
            problem = await self._post(session, event, url, secret)
            now = self.clock()
            if problem is None:
                self.sent += 1
                await self.store.attempted(event.id, True, None, None)
            elif now - event.created >= self.retry_seconds:
                self.failed += 1
                await self.store.attempted(event.id, False, None, problem)
            else:
                self.retried += 1
                delay = min(self.first_delay * 2**event.attempts, MAX_DELAY_SECONDS)
                await self.store.attempted(event.id, False, now + delay, None)
        except IndexUnavailable as exc:
            log.warning("a webhook attempt's outcome not recorded: %s", exc.message)
        finally:
            self.wake.set()

    async def _post(self, session: aiohttp.ClientSession, event: Event, url: str, secret: str) -> str | None:
        """None where the receiver took the event (2xx), else why not (never the URL or secret).
        The URL is checked again (the operator's rules may have changed since its creation; an
        address in it is not resolved, so the resolver's guard does not see it)."""
        problem = self.targets.problem(url)
        if problem is not None:
            return f"the target is refused: {problem}"
        timestamp = int(self.clock())
        headers = {
            "content-type": "application/json",
            "webhook-id": event.id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": signed(secret, event.id, timestamp, event.body),
        }
        try:
            async with session.post(
                url,
                data=event.body.encode(),
                headers=headers,
                allow_redirects=False,
                timeout=aiohttp.ClientTimeout(total=TIMEOUT_SECONDS),
            ) as response:
                await response.content.read(ANSWER_BYTES)
                if 200 <= response.status < 300:
                    return None
                return f"the receiver answered HTTP {response.status}"
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            return f"the receiver could not be reached ({type(exc).__name__})"


def session(targets: Targets) -> aiohttp.ClientSession:
    """The delivery's own HTTP session: its resolver guards every connection's addresses."""
    connector = aiohttp.TCPConnector(resolver=GuardedResolver(targets), limit=IN_FLIGHT, use_dns_cache=False)
    return aiohttp.ClientSession(connector=connector, trust_env=False)


def body(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """An event's payload, Standard Webhooks' shape: its type, its time, its data."""
    return {"type": kind, "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "data": data}
