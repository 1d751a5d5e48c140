"""One-call reads: a lens (lenses/*.sol) run by an `eth_call` without `to`, never deployed.

The call's data is the lens's creation code and its ABI-encoded constructor arguments (the
protocol's contracts and the wallet). The constructor makes every read an input needs, each
depending on the answers before it, and returns, in place of runtime code, a tape of each read
with its raw answer. The reader (chain/reader.py) answers the adapter's own calls from that tape
(`Tapes`),
so every figure is still decoded and computed in Python, as if it had made those calls itself;
a read the tape lacks (a lens that failed, a tape cut at its size limit, a revert without data
that may be a starved sub-call) goes the usual Multicall3 way.

Limits: the creation code with its arguments is at most MAX_INITCODE bytes (EIP-3860), and the
tape at most 24,000 bytes (a creation returns at most EIP-170's 24,576); a record names its call
by target and a digest of the calldata, 40 bytes besides the answer. An endpoint that does
not run calls without `to` is found by PROBE, riding along its first lens, and is remembered.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from chain.abi import ZERO_ADDRESS, encode
from chain.rpc import RpcError, clean, hex_bytes
from errors import NetworkError

log = logging.getLogger("wallet_positions.chain")

BYTECODE = Path(__file__).resolve().parents[1] / "lenses" / "bytecode.json"
"""The lenses' creation code, compiled by scripts/compile-lenses (tests/test_lenses.py checks it)."""
MAX_INITCODE = 49_152
PROBE = bytes.fromhex("600160005360016000f3")
"""Creation code that returns the one byte 0x01 (PUSH1 1, PUSH1 0, MSTORE8, PUSH1 1, PUSH1 0,
RETURN): an endpoint that answers it with 0x01 runs creation calls."""
PROBE_ANSWER = "0x01"
NONE = ZERO_ADDRESS
"""A lens argument's "no such contract" (no feed, no sequencer uptime feed)."""

Records = dict[tuple[str, bytes], tuple[bool, bytes]]
"""(target, digest of the calldata) -> (success, return or revert data)."""


class TapeError(ValueError):
    """A lens's answer that is not a tape (an endpoint that returned something else)."""


@cache
def lens_codes() -> dict[str, bytes]:
    """Every lens's creation code by its contract's name."""
    return {name: bytes.fromhex(code[2:]) for name, code in json.loads(BYTECODE.read_text()).items()}


@dataclass(frozen=True)
class Lens:
    """A lens by its contract name and constructor parameter types."""

    name: str
    types: tuple[str, ...]

    def initcode(self, *args: Any) -> bytes:
        return lens_codes()[self.name] + encode(self.types, args)


def digest(calldata: bytes) -> bytes:
    """What a tape names a call's calldata by: the first 16 bytes of its SHA-256, so a record's
    size does not grow with its arguments (a market's `borrowRateView` has 356 bytes of them)."""
    return hashlib.sha256(calldata).digest()[:16]


def records(tape: bytes) -> tuple[Records, bool]:
    """The reads a tape holds, by target and calldata digest, and whether some were left out
    (it reached its size limit). A lens leaves out a revert without data that may have been
    starved of gas; the reader makes that call alone."""
    if not tape or tape[0] > 1:
        raise TapeError("not a lens tape")
    found: Records = {}
    at = 1
    while at < len(tape):
        if at + 40 > len(tape) or tape[at + 36] > 1:
            raise TapeError("a record is cut short")
        target, key = "0x" + tape[at : at + 20].hex(), tape[at + 20 : at + 36]
        success, size = tape[at + 36] == 1, int.from_bytes(tape[at + 37 : at + 40], "big")
        answer = tape[at + 40 : at + 40 + size]
        at += 40 + size
        if len(answer) != size:
            raise TapeError("a record is cut short")
        found[(target, key)] = (success, answer)
    return found, tape[0] == 1


class Tapes:
    """The reads a request's lenses recorded on one chain, and the lenses still in flight that may
    answer calls to a target: such calls wait for them before they go in a round."""

    def __init__(self, chain_id: int, used: set[tuple[str, bytes]] | None = None) -> None:
        self._chain_id = chain_id
        self._used = used
        """Where given, every (target, digest) a call was answered with is added (RpcStats.taped)."""
        self._recorded: Records = {}
        self._covering: dict[str, list[asyncio.Future[None]]] = {}

    def cover(self, lenses: asyncio.Future[None], targets: Iterable[str]) -> None:
        for target in targets:
            self._covering.setdefault(target.lower(), []).append(lenses)

    async def answer(self, target: str, calldata: bytes) -> tuple[bool, bytes] | None:
        """A call's (success, return or revert data) once the lenses that may hold it are back;
        None when no tape has it. (A batch of many wallets covers a target with a lens each, and
        asks it many calls: those back cost no await.)"""
        for lens in self._covering.get(target, ()):
            if not lens.done():
                await asyncio.shield(lens)
        return self.recorded(target, calldata)

    def recorded(self, target: str, calldata: bytes) -> tuple[bool, bytes] | None:
        """A call's (success, return or revert data) as the tapes back so far hold it, without waiting
        for the lenses still in flight (a lens's own caller, once it is back: the accounts' probes)."""
        if not self._recorded:
            return None
        key = (target.lower(), digest(calldata))
        found = self._recorded.get(key)
        if found is not None and self._used is not None:
            self._used.add(key)
        return found

    async def holds(self, target: str, calldata: bytes) -> bool:
        """Whether a tape holds this call, once the lenses that may hold it are back; makes no
        read. For a lens that records, among reads whose count follows the chain (every pool of
        a registry), only those of what the wallet holds (lenses/CurveLens.sol): the reads it
        recorded are then made as usual."""
        return await self.answer(target.lower(), calldata) is not None

    def record(self, answers: Sequence[Any]) -> None:
        """Keep the reads of each lens's answer; a lens that failed leaves its reads to rounds."""
        for answer in answers:
            try:
                if isinstance(answer, BaseException | RpcError):
                    raise TapeError(answer.message if isinstance(answer, RpcError) else type(answer).__name__)
                found, cut = records(hex_bytes(answer, "eth_call", self._chain_id))
            except (TapeError, NetworkError) as exc:
                log.info("a lens failed on chain %d (%s); its reads go in rounds", self._chain_id, clean(exc, 80))
                continue
            if cut:
                log.info("a lens tape on chain %d reached its size limit; the rest goes in rounds", self._chain_id)
            self._recorded.update(found)
