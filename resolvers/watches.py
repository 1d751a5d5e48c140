"""`createWatch`, `deleteWatch` and `watches`: a key's watches (docs/watches.md). A watch belongs to
the name of the key that made it (a rotated key keeps them); another key can neither see nor
delete it. Its arguments are checked before anything is stored; the webhook secret is shown once,
in `createWatch`'s answer."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from errors import InputValidationError
from protocols import Registry
from watches import rules
from watches.store import Draft, Full, Watch, WatchStore
from watches.webhooks import Targets

URL_CHARACTERS = 2048


@dataclass(frozen=True)
class Watches:
    """What the watch fields need: the store, the operator's caps and webhook rules, the protocols
    with a borrow's risk per chain, and how to wake the evaluator for a new watch."""

    store: WatchStore
    targets: Targets
    per_key: int
    webhooks_per_key: int
    borrowing: Callable[[int], list[str]]
    woken: Callable[[], None]


def borrowing(registry: Registry) -> Callable[[int], list[str]]:
    """The protocols a chain serves whose positions can carry a borrow's risk: what a watch naming
    no protocol reads."""
    return lambda chain_id: sorted(p.name for p in registry.values() if p.borrows and chain_id in p.chains)


class WatchLimit(InputValidationError):
    code = "WATCH_LIMIT"


async def create(watches: Watches, owner: str, given: Mapping[str, Any], address: re.Pattern[str]) -> dict[str, Any]:
    """`createWatch`'s answer: a new watch of `owner` from its `input`, and its webhook secret;
    VALIDATION_ERROR (or WATCH_LIMIT at a cap) for anything the client must change."""
    wallet, chain_id, protocol = given["walletAddress"], given["chainId"], given.get("protocol")
    if not address.fullmatch(wallet):
        raise InputValidationError("Malformed walletAddress: expected 0x followed by 40 hexadecimal characters.")
    offered = watches.borrowing(chain_id)
    if not offered:
        raise InputValidationError(f"No protocol with borrows is served on chain {chain_id}.")
    if protocol is not None:
        protocol = protocol.lower()
        if protocol not in offered:
            raise InputValidationError(
                f"Protocol {protocol[:40]!r} has no borrows to watch on chain {chain_id}. "
                f"Protocols with borrows there: {', '.join(offered)}."
            )
    conditions = rules.conditions(given)
    url, stream = given.get("webhookUrl"), given.get("stream", False)
    if url is None and not stream:
        raise InputValidationError("A watch needs a delivery: webhookUrl, stream: true, or both.")
    if url is not None:
        if len(url) > URL_CHARACTERS:
            raise InputValidationError(f"webhookUrl is longer than {URL_CHARACTERS} characters.")
        problem = watches.targets.problem(url)
        if problem:
            raise InputValidationError(f"webhookUrl is refused: {problem}.")
    draft = Draft(owner, wallet.lower(), chain_id, protocol, conditions, url, bool(stream))
    watch = await watches.store.create(draft, watches.per_key, watches.webhooks_per_key)
    if isinstance(watch, Full) and watch.what == "watches":
        raise WatchLimit(
            f"This key has {watch.held} watches, the most a key may have (WATCHES_PER_KEY): delete one first."
        )
    if isinstance(watch, Full):
        raise WatchLimit(
            f"This key sends to {watch.held} webhook URLs, the most a key may (WEBHOOKS_PER_KEY): "
            "reuse one, or delete a watch."
        )
    watches.woken()
    return {"watch": shown(watch, watches), "webhookSecret": watch.secret}


async def listed(watches: Watches, owner: str) -> list[dict[str, Any]]:
    """`watches`' answer: the owner's watches, oldest first."""
    return [shown(watch, watches) for watch in await watches.store.owned(owner)]


def shown(watch: Watch, watches: Watches) -> dict[str, Any]:
    """A watch as the `Watch` type gives it (its URL without credentials, never its secret)."""
    thresholds = {
        name: {"below": t.below, "recoverAbove": t.recover_above} for name, t in watch.conditions.thresholds()
    }
    return {
        "id": watch.id,
        "walletAddress": watch.wallet,
        "chainId": watch.chain_id,
        "protocol": watch.protocol,
        "protocols": [watch.protocol] if watch.protocol else watches.borrowing(watch.chain_id),
        rules.HEALTH_FACTOR: thresholds.get(rules.HEALTH_FACTOR),
        rules.DROP: thresholds.get(rules.DROP),
        "webhookUrl": None if watch.webhook_url is None else without_credentials(watch.webhook_url),
        "stream": watch.stream,
        "createdAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(watch.created)),
        "failing": watch.failing,
    }


def without_credentials(url: str) -> str:
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))
