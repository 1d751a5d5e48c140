"""v3: how much of what the NonfungiblePositionManager owes an NFT is withdrawn principal.

The manager keeps one `tokensOwed` per token for fees and principal alike: `decreaseLiquidity`
adds the amounts the pool's burn paid (its DecreaseLiquidity event's amounts) and the fees due
since the NFT was last accounted, `increaseLiquidity` and `collect` add those fees, and `collect`
takes out what it pays (its Collect event's amounts) without saying of which. Its events are the
only record of the principal: walked in chain order from the mint, each DecreaseLiquidity adds
its amounts, each Collect pays principal first (a collect of everything owed, the usual kind,
leaves none either way). Whatever else is owed is fees.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from adapters.context import FetchContext
from adapters.flows import TooManyLogs, log_rows, stream_logs
from adapters.uniswap.contracts import COLLECT, DECREASE_LIQUIDITY
from chain import Log
from chain.abi import decode
from chain.event_index import Stream
from chain.index_store import WALLET_STREAMS

Pair = tuple[int, int]


async def events(ctx: FetchContext[Any], manager: str, token_id: int, block: int) -> list[Log] | None:
    """The NFT's DecreaseLiquidity and Collect events up to `block`, from an index stream of its
    own scanned from block 0 (its mint's block is nowhere in the manager's state); None while
    the index has not read them all."""
    manager = manager.lower()
    prefix = f"{WALLET_STREAMS}owed-{manager}-{token_id}-"
    events = (DECREASE_LIQUIDITY.topic, COLLECT.topic)

    def stream(start: int) -> Stream:
        return Stream(f"{prefix}{start}", (manager,), (), start, log_rows, filters=((events, f"0x{token_id:064x}"),))

    try:
        logs, complete = await stream_logs(ctx, prefix, stream, 0, block)
    except TooManyLogs:
        return None
    return logs if complete else None


def walk(logs: Iterable[Log]) -> tuple[Pair, dict[tuple[int, int], Pair]]:
    """The principal owed after `logs` (one NFT's, in chain order), and what of each Collect's
    amounts was principal, by the Collect's (block, log index)."""
    owed, paid = [0, 0], {}
    for log in logs:
        if log.signature == COLLECT.topic:
            _, *amounts = decode(("address", "uint256", "uint256"), log.data)
            part = [min(o, amount) for o, amount in zip(owed, amounts)]
            paid[(log.block_number, log.log_index)] = (part[0], part[1])
        else:
            _, *amounts = decode(("uint128", "uint256", "uint256"), log.data)
            part = [-amount for amount in amounts]
        owed = [o - p for o, p in zip(owed, part)]
    return (owed[0], owed[1]), paid
