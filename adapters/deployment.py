"""What existed at the block an input asks for (`blockNumber`).

The addresses data lists what a protocol has deployed today. At the newest block all of it is
there; at a past block a market, Comet or vault deployed later did not exist yet and held
nothing, so it is left out without a warning, while one that existed is read as usual. A part
existed when its contract had code at the block (`eth_getCode`, one per part and request, riding
with the first reads). A block before every part of a protocol is the client's mistake
(VALIDATION_ERROR), not an empty answer: refused with no read where the data declares the
protocol's first block (`Protocol.deployed`, `earliest` of its parts'), else by its parts' code.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from chain import ChainReader
from errors import BeforeDeployment

Part = TypeVar("Part")


async def existing(reader: ChainReader, parts: Sequence[Part], address: Callable[[Part], str]) -> list[Part]:
    """The parts that existed at the reader's block."""
    if not reader.past:
        return list(parts)
    present = await asyncio.gather(*(reader.has_code(address(part)) for part in parts))
    return [part for part, there in zip(parts, present) if there]


async def deployed(
    reader: ChainReader, protocol: str, parts: Sequence[Part], address: Callable[[Part], str], what: str
) -> list[Part]:
    """The parts that existed at the reader's block; VALIDATION_ERROR when none did (`what` names
    them for the message)."""
    found = await existing(reader, parts, address)
    if parts and not found:
        raise before(protocol, reader.chain_id, await reader.block_number(), f"none of its {what} has code then")
    return found


async def require(reader: ChainReader, owner: str, address: str, what: str) -> None:
    """VALIDATION_ERROR when the one contract an input names (a pool, a resolver it is read
    through) had no code at the reader's block."""
    if not await existing(reader, [address], lambda part: part):
        raise before(
            owner, reader.chain_id, await reader.block_number(), f"its {what} {address.lower()} has no code then"
        )


def started(reader: ChainReader, protocol: str, block: int, start_block: int, what: str) -> None:
    """VALIDATION_ERROR for a past block before `what` was deployed (at `start_block`)."""
    if reader.past and block < start_block:
        raise before(protocol, reader.chain_id, block, f"{what} was deployed at block {start_block}")


def earliest(blocks: Iterable[int | None]) -> int | None:
    """The first of its parts' declared deployment blocks; None where a part declares none (it
    may be older than them all) or there is no part."""
    listed = list(blocks)
    known = [block for block in listed if block is not None]
    return min(known) if known and len(known) == len(listed) else None


def before(protocol: str, chain_id: int, block: int, why: str) -> BeforeDeployment:
    return BeforeDeployment(f"Block {block} is before {protocol}'s deployment on chain {chain_id}: {why}.")
