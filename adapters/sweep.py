"""Many small calls, encoded and decoded by hand.

For the reads whose count follows the chain, not the wallet (the index's cold sweep: a wallet's
`position` in every market the catalog holds, its `balanceOf` in every vault): no future, ABI object
or decoded tuple per call.
Sub-calls travel in Multicall3 `aggregate3` calls of SWEEP_CALLS each, all riding one round
(rpc_batches bounds the batches by bytes), and the answers are cut out of the return data by
offset. The loop yields after every aggregate3 answer, so other requests keep being served.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.position_warnings import PART_UNREADABLE, Warnings, outcome
from chain import MULTICALL3, ChainReader, erc20, first
from chain.abi import AbiError, Function
from errors import ProtocolError

SWEEP_CALLS = 1_000
"""Sub-calls per aggregate3: a `position` call costs about 7,000 gas, so 7 M gas and about
450 KiB of JSON per call."""
AGGREGATE3 = bytes.fromhex("82ad56cb")
WORD = 32


async def sweep(reader: ChainReader, calls: list[tuple[str, bytes]]) -> list[bytes | None]:
    """The return data of every (target, calldata) call at the pinned block; None where the
    sub-call failed. Needs Multicall3 on the chain."""
    chunks = [calls[i : i + SWEEP_CALLS] for i in range(0, len(calls), SWEEP_CALLS)]
    answers = await asyncio.gather(*(reader.raw_call(MULTICALL3, _encode(chunk)) for chunk in chunks))
    results: list[bytes | None] = []
    for chunk, answer in zip(chunks, answers):
        results += _decode(answer, len(chunk))
        await asyncio.sleep(0)
    return results


def _word(value: int) -> bytes:
    return value.to_bytes(WORD, "big")


def _encode(calls: list[tuple[str, bytes]]) -> bytes:
    """aggregate3((address,bool,bytes)[]) with allowFailure set on every sub-call."""
    flags = _word(1) + _word(3 * WORD)
    tuples = [
        bytes(12) + bytes.fromhex(target[2:]) + flags + _word(len(data)) + data + bytes(-len(data) % WORD)
        for target, data in calls
    ]
    offsets, position = [], WORD * len(tuples)
    for item in tuples:
        offsets.append(_word(position))
        position += len(item)
    return AGGREGATE3 + _word(WORD) + _word(len(tuples)) + b"".join(offsets) + b"".join(tuples)


def _decode(data: bytes, count: int) -> list[bytes | None]:
    """The (bool success, bytes returnData)[] that aggregate3 returns, cut by offset."""

    def integer(at: int) -> int:
        if at + WORD > len(data):
            raise IndexError
        return int.from_bytes(data[at : at + WORD], "big")

    try:
        array = integer(0)
        if integer(array) != count:
            raise IndexError
        start, results = array + WORD, []
        for i in range(count):
            item = start + integer(start + WORD * i)
            returned = item + integer(item + WORD)
            length = integer(returned)
            if returned + WORD + length > len(data):
                raise IndexError
            results.append(data[returned + WORD : returned + WORD + length] if integer(item) == 1 else None)
        return results
    except IndexError:
        raise ProtocolError("a bulk read returned undecodable aggregate3 data.") from None


async def swept(
    reader: ChainReader, targets: list[str], function: Function, *args: Any, label: str
) -> list[tuple[Any, ...] | ProtocolError]:
    """`function(*args)` on every target of a catalog at the pinned block, in bulk where the chain
    has Multicall3 (else one call each): each decoded answer, or the ProtocolError of a target
    that failed it (`label` names the targets: "Balancer gauge")."""
    if not reader.has_multicall:
        return list(
            await asyncio.gather(
                *(outcome(reader.call(target, function, *args, label=f"{label} {target}")) for target in targets)
            )
        )
    answers = await sweep(reader, [(target, function.calldata(*args)) for target in targets])
    found: list[tuple[Any, ...] | ProtocolError] = []
    for target, data in zip(targets, answers):
        where = f"{label} {target}: {function.name} in a bulk read"
        if data is None:
            found.append(ProtocolError(f"{where} reverted."))
            continue
        try:
            found.append(function.decode(data))
        except AbiError as exc:
            found.append(ProtocolError(f"{where} returned undecodable data ({exc})."))
    return found


async def swept_balances(
    reader: ChainReader, tokens: list[str], wallet: str, warnings: Warnings, what: str
) -> dict[str, int]:
    """The wallet's non-zero `balanceOf` in every token of a catalog, in bulk; a token whose
    sub-call fails is left out with a warning (`what` names it: "vault", "SY")."""
    if not reader.has_multicall:
        return await balances(reader, tokens, wallet, warnings, what)
    call = bytes.fromhex(erc20.BALANCE_OF.selector) + bytes(12) + bytes.fromhex(wallet[2:])
    answers = await sweep(reader, [(token, call) for token in tokens])
    found = {}
    for token, data in zip(tokens, answers):
        if data is None or len(data) != 32:
            warnings.add(PART_UNREADABLE, token, f"{what} {token} is left out: its balanceOf could not be read")
        elif amount := int.from_bytes(data, "big"):
            found[token] = amount
    return found


async def balances(
    reader: ChainReader, tokens: list[str], wallet: str, warnings: Warnings, what: str
) -> dict[str, int]:
    """The wallet's non-zero `balanceOf` in each token, one call each; a token that cannot answer
    is left out with a warning."""
    answers = await asyncio.gather(
        *(first(reader.call(token, erc20.BALANCE_OF, wallet, label=f"{what} {token}")) for token in tokens),
        return_exceptions=True,
    )
    warnings.survivors(what, zip(tokens, answers))
    return {token: answer for token, answer in zip(tokens, answers) if not isinstance(answer, BaseException) and answer}
