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
   must equal what comes out. Reads the new answer made that the provenance lacks are listed as
   notes, not differences: the figures agreeing is the check, and the way to them may differ (a
   cold index's sweep of the catalog, token facts the old answer took from that sweep's reads).

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

from chain import ChainConfig, Chains
from chain.abi import decode
from chain.event_index import Indexes
from chain.lens import TapeError, digest, records
from chain.provenance import lens_call
from chain.rounds import AGGREGATE3, MULTICALL3
from chain.rpc import RpcError, RpcStats
from chain.rpc_batches import Exchange
from errors import NetworkError, PositionError
from immutable_cache import ImmutableCache
from protocols import Registry
from schema import POOLS, WALLETS, RequestContext, fetch_input

UNRECORDED = ("eth_getLogs", "index", "eth_getCode", "eth_getBlockByNumber")
"""Reads the answer made again needs that the answer did not, not even noted: a fresh event index
scans the logs (and checks the headers) the stored index held, and an answer at a given block
(the hash) asks which parts existed then (their code), which one at the newest block takes from
the addresses data."""


MOVING_TAGS = ("latest", "finalized", "safe", "pending")
"""Block tags whose block moves: a read of one says what the node had then (the pin), which the
entry's own header, read by hash, states for good."""


class Unverifiable(Exception):
    """The node lacks the entry's block, or the answer is not one `verify` reads (exit 2)."""


@dataclass
class Report:
    differences: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unverified: list[str] = field(default_factory=list)
    checked: int = 0
    reads: int = 0


def entries(answer: Any) -> Iterator[tuple[str, Any]]:
    """(where, entry) of every data entry of every root field, under aliases too."""
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, dict):
        raise Unverifiable("the file is not a GraphQL answer with data")
    for alias, result in data.items():
        listed = result.get("data") if isinstance(result, dict) else None
        for index, entry in enumerate(listed if isinstance(listed, list) else []):
            yield f"{alias}.data[{index}]", entry


async def verify(answer: Any, rpc_url: str, registry: Registry, out: TextIO) -> int:
    """Exit status: 1 on a difference, else 2 if an entry could not be checked (or there was none), else 0."""
    report = Report()
    try:
        found = list(entries(answer))
    except Unverifiable as exc:
        print(f"cannot verify: {exc}", file=out)
        return 2
    for where, entry in found:
        try:
            if not isinstance(entry, dict) or not isinstance(entry.get("provenance"), list):
                raise Unverifiable(f"{where}: no provenance (select `provenance` in the query)")
            await _entry(where, entry, rpc_url, registry, report)
        except Unverifiable as exc:
            report.unverified.append(f"cannot verify {exc}")
        except (NetworkError, TimeoutError) as exc:
            report.unverified.append(f"cannot verify {where}: the node did not answer ({getattr(exc, 'message', exc)})")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            report.unverified.append(
                f"cannot verify {where}: not an entry this version reads ({type(exc).__name__}: {exc})"
            )
    for line in report.notes + report.differences + report.unverified:
        print(line, file=out)
    verdict = "agree" if not report.differences else f"{len(report.differences)} differences"
    unchecked = f", {len(report.unverified)} not checked" if report.unverified else ""
    print(f"{report.checked} entries, {report.reads} reads replayed{unchecked}: {verdict}", file=out)
    if report.differences:
        return 1
    return 2 if report.unverified or not report.checked else 0


async def _entry(where: str, entry: dict[str, Any], rpc_url: str, registry: Registry, report: Report) -> None:
    chain_id = entry["chainId"]
    chains = Chains({chain_id: rpc_url}, ChainConfig(head_poll_seconds=0))
    try:
        header = await _ask(chains, chain_id, "eth_getBlockByHash", [entry["blockHash"], False])
        if not isinstance(header, dict):
            raise Unverifiable(f"{where}: the node has no block {entry['blockHash']} on chain {chain_id}")
        probe = await _ask(chains, chain_id, "eth_getBalance", ["0x" + "00" * 20, {"blockHash": entry["blockHash"]}])
        chains.endpoint(chain_id).hash_tags = isinstance(probe, str)
        for read in entry["provenance"]:
            report.reads += 1
            if (problem := await _replay(chains, chain_id, read)) is not None:
                report.differences.append(f"{where}.provenance: {problem}")
        with tempfile.TemporaryDirectory(prefix="verify-") as state:
            indexes = Indexes(Path(state), chains)
            try:
                fresh = await _recompute(where, entry, chains, indexes, registry)
            finally:
                await indexes.close()
        report.differences += [f"{where}{path}" for path in _compare(entry, fresh, "")]
        block = (entry["blockHash"], hex(entry["blockNumber"]))
        recorded = {key for read in entry["provenance"] for key in _read_keys(read, block)}
        needed = {key for read in fresh.get("provenance") or [] for key in _read_keys(read, block)}
        report.notes += [
            f"note: {where}: answered again, it also read {method} {params[:200]}"
            for method, params in sorted(needed - recorded)
            if method not in UNRECORDED
        ]
        report.checked += 1
    finally:
        await chains.close()


async def _ask(chains: Chains, chain_id: int, method: str, params: list[Any]) -> Any:
    exchange = Exchange(chains.endpoint(chain_id), RpcStats(), asyncio.get_running_loop().time() + 60, 3)
    (answer,) = await exchange.rpc([(method, params)])
    return answer


def _read_keys(read: dict[str, str], block: tuple[str, str]) -> set[tuple[str, str]]:
    """What a read asked, as keys alike however it was batched: each contract call (plain, inside
    an aggregate3, or taped by a lens) as ("call", target and calldata digest); another read as
    (method, params) with its block tag written alike whether by hash or by number."""
    params = json.loads(read["params"])
    if read["method"] == "eth_call" and params and isinstance(params[0], dict):
        call, result = params[0], json.loads(read["result"])
        if "lens" in call:
            tape = bytes.fromhex(result[2:]) if isinstance(result, str) else b""
            try:
                taped = records(tape)[0]
            except TapeError:
                return set()
            return {("call", f"{target}:{key.hex()}") for target, key in taped}
        data = bytes.fromhex(str(call.get("data", "0x"))[2:])
        if str(call.get("to", "")).lower() == MULTICALL3 and data[:4].hex() == AGGREGATE3.selector:
            (subcalls,) = decode(AGGREGATE3.inputs, data[4:])
            return {("call", f"{target.lower()}:{digest(calldata).hex()}") for target, _, calldata in subcalls}
        return {("call", f"{str(call.get('to')).lower()}:{digest(data).hex()}")}
    if params and (params[-1] in block or params[-1] == {"blockHash": block[0]}):
        params[-1] = "<block>"
    return {(read["method"], json.dumps(params, separators=(",", ":"), sort_keys=True))}


async def _replay(chains: Chains, chain_id: int, read: dict[str, str]) -> str | None:
    """What differs between a recorded read and the node's answer to it now, or None."""
    method, params = read["method"], json.loads(read["params"])
    if method == "index":
        name, _, stored_to = params
        stored = json.loads(read["result"])
        if stored is None:
            return None
        header = await _ask(chains, chain_id, "eth_getBlockByNumber", [hex(stored_to), False])
        found = header.get("hash") if isinstance(header, dict) else None
        return None if found == stored else f"index {name}: block {stored_to} is {found} on the node, not {stored}"
    if method == "eth_getBlockByHash":
        header = await _ask(chains, chain_id, method, params)
        recorded = json.loads(read["result"])
        found = {key: header.get(key) for key in recorded} if isinstance(header, dict) else None
        return None if found == recorded else f"{method} {params[0]}: recorded {recorded}, node {found}"
    if any(param in MOVING_TAGS for param in params):
        return None
    answer = await _ask(chains, chain_id, method, lens_call(params) if method == "eth_call" else params)
    if isinstance(answer, RpcError):
        answer = {"error": {"code": answer.code, "message": answer.message, "data": answer.data}}
    replayed = json.dumps(answer, separators=(",", ":"), sort_keys=True)
    if replayed == read["result"] or _same_error(json.loads(read["result"]), answer):
        return None
    return f"{method} {read['params'][:200]}: recorded {read['result'][:200]}, node {replayed[:200]}"


def _same_error(recorded: Any, replayed: Any) -> bool:
    """Two errors alike where it counts: their code and revert data (nodes word messages their own way)."""
    if not (isinstance(recorded, dict) and isinstance(replayed, dict) and "error" in recorded and "error" in replayed):
        return False
    return all(recorded["error"].get(key) == replayed["error"].get(key) for key in ("code", "data"))


async def _recompute(
    where: str, entry: dict[str, Any], chains: Chains, indexes: Indexes, registry: Registry
) -> dict[str, Any]:
    root = WALLETS if "walletAddress" in entry else POOLS
    protocol = registry.get(entry["protocol"])
    function = root.function(protocol) if protocol is not None else None
    if protocol is None or function is None:
        raise Unverifiable(f"protocol {entry['protocol']!r} has no {root.name} in this version")
    address = entry[root.address_key]
    for stream in protocol.chain_streams(entry["chainId"]):
        # Built first, as a served index is, so the answer finds what it did (no cold-index sweep).
        scan = chains.request(asyncio.get_running_loop().time() + 600).reader(entry["chainId"])
        await indexes.build(scan, stream, lambda *_: None)
    deadline = asyncio.get_running_loop().time() + 120
    context = RequestContext(registry, 120.0, chains.request(deadline), indexes, ImmutableCache(1, 0))
    key = (root.name, protocol.name, entry["chainId"], address, None, entry["blockHash"], True)
    try:
        answer = await fetch_input(protocol, function, key, context)
    except PositionError as exc:
        if exc.retryable or exc.code == "HISTORY_UNAVAILABLE":
            raise Unverifiable(f"{where}: the node could not answer it again ({exc.code}: {exc.message})") from None
        return {"error": f"{exc.code}: {exc.message}"}
    return root.output(protocol, entry["chainId"], address, answer)[0]


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
