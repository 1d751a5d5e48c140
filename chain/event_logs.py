"""`eth_getLogs` over a span of blocks: cut into the endpoint's block range, every piece riding in
the reader's next round, and a piece the endpoint calls too large halved until it answers."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chain.head import hex_int
from chain.rounds import Rounds
from chain.rpc import RpcError, clean, hex_bytes
from errors import NetworkError, ProtocolError

MAX_NARROWING_ROUNDS = 16
MIN_LOGS_BLOCK_RANGE = 16
"""Narrowing stops here: an endpoint that refuses 16 blocks is failing, not paginating."""
MAX_LOG_QUERIES = 5_000
"""eth_getLogs queries one call may make; a span needing more is refused, not attempted."""


@dataclass(frozen=True)
class Log:
    address: str
    topics: tuple[str, ...]
    data: bytes
    block_number: int
    log_index: int
    transaction_hash: str = ""

    @property
    def signature(self) -> str:
        """topic 0: the hash of the event's signature, which says what the log is (`Event.topic`)."""
        return self.topics[0]


async def get_logs(
    rounds: Rounds, max_range: int, address: str | Sequence[str], topics: Sequence[Any], from_block: int, last: int
) -> list[Log]:
    """Logs in [from_block, last], in chain order; of any contract where `address` is empty.

    The span is cut into the endpoint's block range, all pieces riding in the next round's
    JSON-RPC batch (with any calls and other scans queued for it). A piece
    the endpoint calls too large is halved, down to MIN_LOGS_BLOCK_RANGE, and the endpoint
    keeps the smaller range; a call that needed no narrowing lets it grow back, doubling up to
    `max_range`, the configured range.
    """
    chain_id = rounds.chain_id
    addresses = [address.lower()] if isinstance(address, str) else [a.lower() for a in address]
    endpoint = rounds.endpoint
    step = endpoint.logs_block_range
    if (last - from_block) // step >= MAX_LOG_QUERIES:
        raise ProtocolError(
            f"eth_getLogs on chain {chain_id}: blocks {from_block}-{last} need "
            f"more than {MAX_LOG_QUERIES} queries of {step} blocks."
        )
    ranges = [(start, min(start + step - 1, last)) for start in range(from_block, last + 1, step)]
    logs: list[Log] = []
    narrowed = False
    for _ in range(MAX_NARROWING_ROUNDS):
        if not ranges:
            if not narrowed:
                endpoint.logs_block_range = min(step * 2, max_range)
            return sorted(logs, key=lambda entry: (entry.block_number, entry.log_index))
        answers = await asyncio.gather(
            *(
                rounds.ride_along(
                    "eth_getLogs",
                    [
                        {
                            **({"address": addresses} if addresses else {}),
                            "topics": list(topics),
                            "fromBlock": hex(low),
                            "toBlock": hex(high),
                        }
                    ],
                )
                for low, high in ranges
            )
        )
        retry: list[tuple[int, int]] = []
        for (low, high), answer in zip(ranges, answers):
            if isinstance(answer, RpcError):
                span = high - low + 1
                if span <= MIN_LOGS_BLOCK_RANGE or len(ranges) + len(retry) >= MAX_LOG_QUERIES:
                    raise NetworkError(
                        f"The RPC endpoint for chain {chain_id} refused eth_getLogs "
                        f"for blocks {low}-{high}: {clean(answer.message)}"
                    )
                middle = (low + high) // 2
                retry += [(low, middle), (middle + 1, high)]
                narrowed = True
                endpoint.logs_block_range = max(MIN_LOGS_BLOCK_RANGE, min(endpoint.logs_block_range, span // 2))
                continue
            logs.extend(_log(entry, chain_id) for entry in answer)
        ranges = retry
    raise NetworkError(
        f"The RPC endpoint for chain {chain_id} refused every eth_getLogs block range, down to the smallest tried."
    )


def _log(entry: Any, chain_id: int) -> Log:
    try:
        return Log(
            address=entry["address"].lower(),
            topics=tuple(topic.lower() for topic in entry["topics"]),
            data=hex_bytes(entry["data"], "eth_getLogs", chain_id),
            block_number=hex_int(entry["blockNumber"], "eth_getLogs", chain_id),
            log_index=hex_int(entry["logIndex"], "eth_getLogs", chain_id),
            transaction_hash=str(entry.get("transactionHash") or "").lower(),
        )
    except (KeyError, TypeError, AttributeError):
        raise NetworkError(
            f"The RPC endpoint for chain {chain_id} answered eth_getLogs with a malformed log."
        ) from None
