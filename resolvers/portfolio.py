"""`portfolio`: a wallet's whole portfolio, every protocol on every asked chain, and what was checked
(docs/api.md, "A wallet's whole portfolio").

The portfolio is `walletPositions` over every (protocol, chain) this server serves on the asked
chains, each chain at one block: schema.py answers each check as it answers an input (kept answers,
controlled accounts, provenance alike). What is the portfolio's own is here: its arguments,
checked before anything is read; the chains it asks and what it costs; which checks' entries it
lists (a protocol is left out only when its check was complete and found nothing); and each
chain's coverage.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import series
from adapters import accounts
from adapters.position_warnings import PART_UNREADABLE
from chain import ChainReader, Chains
from chain.event_index import Indexes
from chain.index_store import label
from errors import InputValidationError, PositionError
from protocols import Registry

FIELD = "portfolio"
INCOMPLETE = frozenset({PART_UNREADABLE, *accounts.CODES, accounts.UNKNOWN})
"""Warnings that say a check was not made in full: the wallet may hold something it does not show
(a part left out, an account not answered). The others name a figure of a position it shows."""


@dataclass(frozen=True)
class Asked:
    """A portfolio's arguments, checked."""

    wallet: str
    chains: tuple[int, ...]
    at: series.Range | None
    """A block or a time, as a one-point series range; None for the newest block."""


def served(registry: Registry, chains: Chains) -> tuple[list[int], list[int]]:
    """The chains some protocol serves that this server has an endpoint for, in order; and those a
    portfolio asks when it names none: the chains whose endpoint the operator set (a public
    default endpoint is asked only where named), or all where the operator set none."""
    chain_ids = {chain_id for protocol in registry.values() for chain_id in protocol.chains}
    return sorted(chain_ids & chains.chain_ids), sorted(chain_ids & chains.own_chain_ids)


def parsed(args: Mapping[str, Any], served_chains: tuple[list[int], list[int]], address_re: re.Pattern[str]) -> Asked:
    """The arguments as Asked, `served_chains` as `served` gives them; VALIDATION_ERROR for any the
    client must change, before anything is read."""
    chains, defaults = served_chains
    wallet = args["walletAddress"]
    if not address_re.fullmatch(wallet):
        raise InputValidationError(
            f"Malformed walletAddress {wallet[:70]!r}: expected 0x followed by 40 hexadecimal characters."
        )
    asked = args.get("chainIds")
    if asked is None and not defaults:
        raise InputValidationError(
            "The endpoints this server's operator set serve no protocol: name the chains in chainIds "
            f"(served: {', '.join(map(str, chains)) or 'none'})."
        )
    if asked is None:
        asked = defaults
    elif not asked:
        raise InputValidationError(
            "chainIds is empty: name at least one chain, or leave it out for the chains whose endpoint "
            "this server's operator set."
        )
    unserved = sorted(set(asked) - set(chains))
    if unserved:
        raise InputValidationError(
            f"Chain {unserved[0]} is not served by this server. Served chains: {', '.join(map(str, chains)) or 'none'}."
        )
    if len(set(asked)) != len(asked):
        twice = next(chain_id for chain_id in asked if asked.count(chain_id) > 1)
        raise InputValidationError(f"chainIds names chain {twice} more than once.")
    at = args.get("at")
    point = None
    if at is not None:
        point = series.parsed({"points": 1, "from": at, "to": at})
        if not point.by_time and len(asked) > 1:
            raise InputValidationError(
                f"at.blockNumber names a block of one chain, and {len(asked)} chains are asked: name one chain "
                "in chainIds, or give at.timestamp, which each chain answers at its own block."
            )
    return Asked(wallet.lower(), tuple(asked), point)


def cost(chains: int) -> int:
    """Requests of the rate limit a portfolio of `chains` chains costs: one per chain (docs/decisions.md
    §6), however many protocols each serves."""
    return max(chains, 1)


async def block(reader: ChainReader, at: series.Range | None) -> int | None:
    """The chain's block for the portfolio (None: the newest, which the request pins); a time is
    the last block at or before it. VALIDATION_ERROR for a block or time the chain has not reached."""
    if at is None:
        return None
    (point,) = await series.points(reader, at)
    return point.block


def lists(entries: list[dict[str, Any]]) -> str:
    """Which list of the chain's coverage a check belongs to, from its entries (the wallet's own
    first, its accounts'): "holding", "partial" (listed: it holds nothing it could read, but its
    check was not made in full) or "empty" (left out)."""
    if any(entry["allPositions"] for entry in entries):
        return "holding"
    if any(warning["code"] in INCOMPLETE for entry in entries for warning in entry["warnings"]):
        return "partial"
    return "empty"


@dataclass(frozen=True)
class Checked:
    """One protocol's check on a chain: its entries (none where the protocol was not deployed yet
    at the block), or its failure (the `errors` entry)."""

    protocol: str
    entries: list[dict[str, Any]]
    error: dict[str, Any] | None = None

    @property
    def kind(self) -> str:
        return "failed" if self.error is not None else lists(self.entries)


async def coverage(
    chain_id: int,
    registry: Registry,
    checks: list[Checked],
    reader: ChainReader | None,
    indexes: Indexes,
) -> dict[str, Any]:
    """The chain's coverage: its block (None where there is no `reader` or its header failed), every protocol's
    list, and every event-index stream its checks use with how far it reaches; reads nothing from
    the node but the block's header, which its checks have read already (a stream no check read in
    this request is the store's own snapshot)."""
    kinds: dict[str, list[str]] = {"holding": [], "partial": [], "empty": [], "failed": []}
    lacks: dict[str, list[str]] = {}
    """Each reason once, with the protocols it holds for (the accounts' routes are every protocol's)."""
    for check in checks:
        kinds[check.kind].append(check.protocol)
        said = [
            f"{warning['code']} ({warning['target']}): {warning['message']}"
            for entry in check.entries
            for warning in entry["warnings"]
            if warning["code"] in INCOMPLETE
        ]
        if check.error is not None:
            said = [f"{check.error['error']['code']}: {check.error['error']['message']}"]
        for reason in said:
            lacks.setdefault(reason, []).append(check.protocol)
    reasons = [f"{', '.join(dict.fromkeys(names))}: {reason}" for reason, names in lacks.items()]
    found: dict[str, Any] = {
        "chainId": chain_id,
        "blockNumber": None,
        "blockHash": None,
        "blockTimestamp": None,
        "checked": [check.protocol for check in checks],
        **kinds,
        "notServed": sorted(name for name, protocol in registry.items() if chain_id not in protocol.chains),
        "index": [],
        "emptyEntries": [entry for check in checks if check.kind == "empty" for entry in check.entries],
    }
    try:
        head = await reader.block_header() if reader is not None else None
    except PositionError as exc:  # the node failed the block's header
        head = None
        reasons.append(f"the block's header could not be read: {exc.code}: {exc.message}")
    if reader is not None and head is not None:
        found |= {"blockNumber": head.number, "blockHash": head.hash, "blockTimestamp": head.timestamp}
        reaches = await _reach(reader, registry, [check.protocol for check in checks], indexes)
        found["index"] = reaches
        reasons += [
            f"the event index's {reach['stream']} reaches block {reach['storedTo']} only: it is still scanning"
            for reach in reaches
            if not reach["complete"]
        ]
    return {**found, "reasons": reasons, "complete": not reasons}


async def _reach(reader: ChainReader, registry: Registry, names: list[str], indexes: Indexes) -> list[dict[str, Any]]:
    """Every stream the protocols' checks use on the reader's chain, with the protocols using it: as
    a check of this request read it, or where none did (an answer kept from an earlier request, a
    check that failed first), as the store holds it."""
    users: dict[str, list[str]] = {}
    streams = {}
    for name in names:
        for stream in registry[name].chain_streams(reader.chain_id):
            streams[stream.name] = stream
            users.setdefault(stream.name, []).append(name)
    found = []
    for name, stream in sorted(streams.items()):
        view = reader.settled(("events", name))
        stored_to, complete = (view.covered_to, view.complete) if view else await indexes.reach(reader, stream)
        found.append({"stream": label(name), "protocols": users[name], "storedTo": stored_to, "complete": complete})
    return found
