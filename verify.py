"""`python server.py verify ANSWER.json --rpc URL`: an answer checked against a node of the auditor's
choosing, with no key, no state and no trust in the server that gave it (docs/verifying.md).

For every data entry that carries `provenance` (selected in the query that made it):

1. The block: the node must have the entry's `blockHash` (else exit 2: it cannot say), with the
   entry's number and timestamp.
2. The reads: every recorded read is sent again, as it was (lenses rebuilt from their code hash),
   and its result must be the recorded one, byte for byte; what the event index held is checked by
   the hash of the block it was stored to.
3. The figures: the entry's input is answered again at that block hash by the service's own
   adapters, decoders and formulas, reading that node with nothing kept from before (an event
   index built afresh from the node's logs in a temporary folder), and every field of the entry
   must equal what comes out.
4. Completeness: every read that new answer made must be among the recorded ones (the event
   index's scans and the code and headers it asks aside: the recorded index ranges stand for
   them). The figures are then a function of the recorded results alone, each checked in 2.

It prints each difference (where, answered, recomputed or replayed, and the read it concerns) and
exits 0 when everything agrees, 1 on a difference, 2 when the node lacks a block or the answer is
not one this command reads. It trusts the node it is given: two independent nodes agreeing is the
check.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from adapters import accounts
from chain import ChainConfig, Chains
from chain.abi import decode
from chain.event_index import Indexes, Stream, open_stores
from chain.head import HASH_PROBE_ADDRESS
from chain.lens import PROBE, TapeError, digest, records
from chain.provenance import entries as provenance_entries
from chain.provenance import lens_call
from chain.rounds import AGGREGATE3, MULTICALL3
from chain.rpc import RpcError, RpcStats
from chain.rpc_batches import Exchange
from errors import ChainNotConfigured, NetworkError, PositionError
from immutable_cache import ImmutableCache
from protocols import Registry
from resolvers.inputs import RequestContext, fetch_input
from schema import POOLS, WALLETS

UNRECORDED = ("eth_getLogs", "index", "eth_getCode", "eth_getBlockByNumber")
"""Reads the answer made again needs that the answer did not: a fresh event index scans the logs
(and checks the headers) the stored index held, whose ranges and stored block the provenance
names; an answer at a given block (the hash) asks which parts existed then (their code), which
one at the newest block takes from the addresses data; and whether the node takes block hashes
(a balance of the zero address) says how to ask, not what."""


HOW_TO_ASK = {("call", f"none:{digest(PROBE).hex()}")}
"""Reads that say how to ask an endpoint, not what a figure is, made once per endpoint and then
remembered, so only an endpoint's first answer records them: the creation-call probe (chain/lens.py
PROBE, code that reads no state and returns 0x01: whether the endpoint runs lenses, else the same
reads go through Multicall3). Its key is the digest of that exact code, so nothing else passes."""

MOVING_TAGS = ("latest", "finalized", "safe", "pending")
"""Block tags whose block moves: a read of one says what the node had then (the pin), which the
entry's own header, read by hash, states for good."""


class Unverifiable(Exception):
    """The node lacks the entry's block, or the answer is not one `verify` reads (exit 2)."""


@dataclass
class Report:
    differences: list[str] = field(default_factory=list)
    unverified: list[str] = field(default_factory=list)
    checked: int = 0
    reads: int = 0


def entries(answer: Any) -> Iterator[tuple[str, Any]]:
    """(where, entry) of every data entry of every root field, under aliases too, of every
    answered point of a series (`positionsHistory`), and of every empty check of a portfolio."""
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, dict):
        raise Unverifiable("the file is not a GraphQL answer with data")
    for alias, result in data.items():
        listed = result.get("data") if isinstance(result, dict) else None
        coverage = result.get("coverage") if isinstance(result, dict) else None
        for number, chain in enumerate(coverage if isinstance(coverage, list) else []):
            empty = chain.get("emptyEntries") if isinstance(chain, dict) else None
            for index, entry in enumerate(empty if isinstance(empty, list) else []):
                yield f"{alias}.coverage[{number}].emptyEntries[{index}]", entry  # a portfolio's empty checks
        for index, entry in enumerate(listed if isinstance(listed, list) else []):
            points = entry.get("points") if isinstance(entry, dict) else None
            if not isinstance(points, list):
                yield f"{alias}.data[{index}]", entry
                continue
            for number, point in enumerate(points):  # a series: each point's answer (not a failed one)
                if isinstance(point, dict) and point.get("positions") is not None:
                    yield f"{alias}.data[{index}].points[{number}].positions", point["positions"]


async def verify(answer: Any, rpc_url: str, registry: Registry, out: TextIO) -> int:
    """Exit status: 1 on a difference, else 2 if an entry could not be checked (or there was none), else 0."""
    report = Report()
    try:
        found = list(entries(answer))
    except Unverifiable as exc:
        print(f"cannot verify: {exc}", file=out)
        return 2
    chain_ids = {entry.get("chainId") for _, entry in found if isinstance(entry, dict)}
    chains = Chains({chain_id: rpc_url for chain_id in chain_ids if isinstance(chain_id, int)}, ChainConfig())
    for chain_id in chain_ids:
        if isinstance(chain_id, int):  # every read made again is then one a figure used
            chains.endpoint(chain_id).ahead = False
    with tempfile.TemporaryDirectory(prefix="verify-") as state:
        node = _Node(chains, Indexes(open_stores(Path(state)), chains), registry)
        try:
            for where, entry in found:
                await _checked(where, entry, node, report)
        finally:
            await node.indexes.close()
            await chains.close()
    for line in report.differences + report.unverified:
        print(line, file=out)
    count = len(report.differences)
    verdict = f"{count} difference{'s' if count > 1 else ''}" if count else "agree"
    if not count and (report.unverified or not report.checked):
        verdict = "not verified"  # "agree" only where every entry was recomputed
    unchecked = f", {len(report.unverified)} not checked" if report.unverified else ""
    print(f"{report.checked} entries, {report.reads} reads replayed{unchecked}: {verdict}", file=out)
    if report.differences:
        return 1
    return 2 if report.unverified or not report.checked else 0


@dataclass
class _Node:
    """The node asked, and the event index built from its logs once per stream for every entry."""

    chains: Chains
    indexes: Indexes
    registry: Registry
    built: set[tuple[int, str]] = field(default_factory=set)


async def _checked(where: str, entry: Any, node: _Node, report: Report) -> None:
    """One entry checked into `report`; what cannot be checked is said, never raised."""
    try:
        if not isinstance(entry, dict) or not isinstance(entry.get("provenance"), list):
            raise Unverifiable(f"{where}: no provenance (select `provenance` in the query)")
        await _entry(where, entry, node, report)
    except Unverifiable as exc:
        report.unverified.append(f"cannot verify {exc}")
    except (NetworkError, ChainNotConfigured, TimeoutError) as exc:
        report.unverified.append(f"cannot verify {where}: the node did not answer ({getattr(exc, 'message', exc)})")
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        report.unverified.append(
            f"cannot verify {where}: not an entry this version reads ({type(exc).__name__}: {exc})"
        )


async def _entry(where: str, entry: dict[str, Any], node: _Node, report: Report) -> None:
    chain_id, block_hash = entry["chainId"], entry["blockHash"]
    reads: list[dict[str, str]] = entry["provenance"]
    asked = [_request_of(read) for read in reads]
    sent = [request for request in asked if request is not None]
    exchange = Exchange(node.chains.endpoint(chain_id), RpcStats(), asyncio.get_running_loop().time() + 120, 3)
    (header,) = await exchange.rpc([("eth_getBlockByHash", [block_hash, False])])
    if not isinstance(header, dict):
        raise Unverifiable(f"{where}: the node has no block {block_hash} on chain {chain_id}")
    answers = await exchange.rpc(sent)  # the reads, in one batch once the block is known there
    replies = iter(answers)
    for read, request in zip(reads, asked):
        report.reads += 1
        if request is not None and (problem := _difference(read, next(replies))) is not None:
            report.differences.append(f"{where}.provenance: {problem}")
    fresh, made, taped = await _recompute(where, entry, node)
    if isinstance(entry.get("warnings"), list):  # what the wallet's accounts lacked is theirs, not the entry's
        entry = {**entry, "warnings": [w for w in entry["warnings"] if w.get("code") not in accounts.CODES]}
    report.differences += [f"{where}{path}" for path in _compare(entry, fresh, "")]
    block = (block_hash, hex(entry["blockNumber"]))
    recorded = {key for read in reads for key in _read_keys(read, block)}
    needed = {key for read in made for key in _read_keys(read, block, taped)}
    report.differences += [
        f"{where}.provenance: lacks {_described(method, params)}, which the figures were computed from"
        for method, params in sorted(needed - recorded - HOW_TO_ASK)
        if method not in UNRECORDED and not params.startswith(f'["{HASH_PROBE_ADDRESS}"')
    ]
    report.checked += 1


def _read_keys(
    read: dict[str, str], block: tuple[str, str], taped: set[tuple[str, bytes]] | None = None
) -> set[tuple[str, str]]:
    """What a read asked, as keys alike however it was batched: each contract call (plain, inside
    an aggregate3, or taped by a lens: those of `taped` only, where given) as ("call", target and
    calldata digest); another read as (method, params) with its block tag written alike whether by
    hash or by number."""
    params = json.loads(read["params"])
    if read["method"] == "eth_call" and params and isinstance(params[0], dict):
        call, result = params[0], json.loads(read["result"])
        if "lens" in call:
            tape = bytes.fromhex(result[2:]) if isinstance(result, str) else b""
            try:
                held = records(tape)[0]
            except TapeError:
                return set()
            return {
                ("call", f"{target}:{key.hex()}") for target, key in held if taped is None or (target, key) in taped
            }
        data = bytes.fromhex(str(call.get("data", "0x"))[2:])
        if str(call.get("to", "")).lower() == MULTICALL3 and data[:4].hex() == AGGREGATE3.selector:
            (subcalls,) = decode(AGGREGATE3.inputs, data[4:])
            return {("call", f"{target.lower()}:{digest(calldata).hex()}") for target, _, calldata in subcalls}
        return {("call", f"{str(call.get('to')).lower()}:{digest(data).hex()}")}
    if params and (params[-1] in block or params[-1] == {"blockHash": block[0]}):
        params[-1] = "<block>"
    return {(read["method"], json.dumps(params, separators=(",", ":"), sort_keys=True))}


def _described(method: str, params: str) -> str:
    """A read key as a reader of the report knows it."""
    if method == "call":
        target, calldata = params.split(":")
        return f"the call to {target} whose calldata's SHA-256 begins {calldata}"
    return f"{method} {params[:200]}"


def _request_of(read: dict[str, str]) -> tuple[str, list[Any]] | None:
    """The JSON-RPC request that replays a read (an index read: the header of the block it was
    stored to); None for what cannot be replayed (a moving tag, an index stored to no block)."""
    method, params = read["method"], json.loads(read["params"])
    if method == "index":
        stored = json.loads(read["result"])
        return None if stored is None else ("eth_getBlockByNumber", [hex(params[2]), False])
    if any(param in MOVING_TAGS for param in params):
        return None
    return method, lens_call(params) if method == "eth_call" else params


def _difference(read: dict[str, str], answer: Any) -> str | None:
    """What differs between a recorded read and the node's answer to its replay, or None."""
    method, params, recorded = read["method"], json.loads(read["params"]), json.loads(read["result"])
    if method == "index":
        found = answer.get("hash") if isinstance(answer, dict) else None
        return (
            None
            if found == recorded
            else f"index {params[0]}: block {params[2]} is {found} on the node, not {recorded}"
        )
    if method == "eth_getBlockByHash":
        found = {key: answer.get(key) for key in recorded} if isinstance(answer, dict) else None
        return None if found == recorded else f"{method} {params[0]}: recorded {recorded}, node {found}"
    if isinstance(answer, RpcError):
        answer = {"error": {"code": answer.code, "message": answer.message, "data": answer.data}}
    replayed = json.dumps(answer, separators=(",", ":"), sort_keys=True)
    if replayed == read["result"] or _same_error(recorded, answer):
        return None
    return f"{method} {read['params'][:200]}: recorded {read['result'][:200]}, node {replayed[:200]}"


def _same_error(recorded: Any, replayed: Any) -> bool:
    """Two errors alike where it counts: their code and revert data (nodes word messages their own way)."""
    if not (isinstance(recorded, dict) and isinstance(replayed, dict) and "error" in recorded and "error" in replayed):
        return False
    return all(recorded["error"].get(key) == replayed["error"].get(key) for key in ("code", "data"))


async def _recompute(
    where: str, entry: dict[str, Any], node: _Node
) -> tuple[dict[str, Any], list[dict[str, str]], set[tuple[str, bytes]]]:
    """The entry answered again, the reads that made it (as provenance entries) and the calls it
    took from its lenses' tapes: what its figures were computed from."""
    root = WALLETS if "walletAddress" in entry else POOLS
    protocol = node.registry.get(entry["protocol"])
    function = root.function(protocol) if protocol is not None else None
    if protocol is None or function is None:
        raise Unverifiable(f"protocol {entry['protocol']!r} has no {root.name} in this version")
    address, chains, chain_id = entry[root.address_key], node.chains, entry["chainId"]
    if chain_id not in protocol.chains:
        raise Unverifiable(
            f"{where}: no {protocol.name} contracts on chain {chain_id} are configured here; set ADDRESSES_FILE "
            "to the addresses file of the server that answered (docs/verifying.md)"
        )
    holder = entry.get("holder") or address  # an account the wallet controls is answered as itself
    for stream in (*protocol.chain_streams(chain_id), *_route_streams(entry, node.registry, chain_id)):
        # Built first, as a served index is, so the answer finds what it did (no cold-index sweep).
        if (chain_id, stream.name) not in node.built:
            scan = chains.request(asyncio.get_running_loop().time() + 600).reader(chain_id)
            await node.indexes.build(scan, stream, lambda *_: None)
            node.built.add((chain_id, stream.name))
    deadline = asyncio.get_running_loop().time() + 120
    request = chains.request(deadline, recorded=True)
    context = RequestContext(node.registry, 120.0, request, node.indexes, ImmutableCache(1, 0))
    key = (root.name, protocol.name, chain_id, holder, None, entry["blockHash"], False)
    try:
        answer = await fetch_input(protocol, function, key, context)
    except PositionError as exc:
        if exc.retryable or exc.code == "HISTORY_UNAVAILABLE":
            raise Unverifiable(f"{where}: the node could not answer it again ({exc.code}: {exc.message})") from None
        answer = {"error": f"{exc.code}: {exc.message}"}
    else:
        if holder != address:
            answer = {**answer, "holder": holder, "via": entry.get("via")}
        answer = root.output(protocol, chain_id, address, answer)[0]
    taped = {(target.lower(), key) for target, key in request.stats.taped or ()}
    return answer, provenance_entries(request.stats.reads or []), taped


def _route_streams(entry: dict[str, Any], registry: Registry, chain_id: int) -> Iterator[Stream]:
    """The streams of the protocols whose own rate priced a token of the entry (its `usdPrices`
    name their contract): their routes find their tokens in their index, as the server's did."""
    sources = {str(price.get("source", "")).lower() for price in entry.get("usdPrices") or ()}
    for protocol in registry.values():
        if sources.intersection(protocol.price_contracts(chain_id)):
            yield from protocol.streams(protocol.part(protocol.chain(chain_id)))


def _compare(answered: Any, fresh: Any, path: str) -> Iterator[str]:
    """Where `answered` (an entry as selected) differs from `fresh` (every field recomputed)."""
    if isinstance(answered, dict):
        if not isinstance(fresh, dict):
            yield f"{path}: answered an object, recomputed {json.dumps(fresh)[:200]}"
            return
        for name, value in answered.items():
            if name in ("provenance", "__typename"):
                continue
            if name not in fresh:
                yield f"{path}.{name}: answered {json.dumps(value)[:200]}, recomputed nothing"
            else:
                yield from _compare(value, fresh[name], f"{path}.{name}")
    elif isinstance(answered, list):
        if not isinstance(fresh, list) or len(fresh) != len(answered):
            yield f"{path}: answered {len(answered)} items, recomputed {json.dumps(fresh)[:200]}"
            return
        for index, (item, again) in enumerate(zip(answered, fresh)):
            yield from _compare(item, again, f"{path}[{index}]")
    elif answered != fresh:
        yield f"{path}: answered {json.dumps(answered)}, recomputed {json.dumps(fresh)}"
