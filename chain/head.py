"""The head of each chain in use, followed in the background, so that a request pins its block to
the newest head seen without a round trip of its own.

- A chain is followed once a request has pinned it itself (that round checks the endpoint's
  chain id and Multicall3; the server pins each of its chains so at boot): the follower then
  asks for the `latest` header (number, hash, timestamp) every `interval` seconds, and for the
  `finalized` one every SETTLED_POLL_SECONDS.
  After a new block it first waits most of a block time (BLOCK_SECONDS), so on a 12 s chain it
  asks about twice a block, and never more often than every `interval`; a new block is seen
  within `interval` of its arrival.
- A chain that no request asked for in IDLE_SECONDS is no longer polled: an idle server costs
  its providers nothing. Its next request pins its own block again, and following resumes.
- A head the follower has not confirmed when its next poll was due (plus STALE_POLLS intervals)
  is not offered: requests pin their own block and meet the endpoint's failure themselves, as
  without a follower.
- `interval` 0 turns following off: every request pins its own block.
- The first poll that knows a head asks too, in its batch, whether the endpoint takes a block
  hash as a block tag (EIP-1898): where it does, every read of a request names its block by hash
  (chain/rounds.py), so an answer can never mix two forks; where it does not, by number.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chain.rpc import REFUSALS, Endpoint, RpcError, RpcStats, clean
from chain.rpc_batches import Exchange
from errors import NetworkError

log = logging.getLogger("wallet_positions.chain")

HASH_PROBE_ADDRESS = "0x" + "00" * 20
"""Whose balance the probe of EIP-1898 block tags asks for: any answer will do."""
BLOCK_HASH = re.compile(r"0x[0-9a-fA-F]{64}")
IDLE_SECONDS = 300.0
"""A chain no request asked for in this long is no longer followed."""
SETTLED_POLL_SECONDS = 12.0
"""The `finalized` header is asked this often (it moves the event index's stored part on)."""
STALE_POLLS = 3
"""Intervals past a poll's due time after which an unconfirmed head is no longer offered."""
SETTLE_SECONDS = 900
"""Where an endpoint has no `finalized` block tag, logs count as settled once they are this old."""
BLOCK_SECONDS: Mapping[int, float] = {
    1: 12,
    10: 2,
    130: 1,
    137: 2,
    2020: 3,
    5000: 2,
    8453: 2,
    42161: 0.25,
    43114: 2,
    59144: 2,
    534352: 3,
}
"""Block times, to turn SETTLE_SECONDS into a depth per chain (64 blocks is 16 s on Arbitrum)
and to pace the follower."""


def settle_depth(chain_id: int) -> int:
    """Blocks after which a log counts as settled on a chain whose endpoint has no `finalized`."""
    return math.ceil(SETTLE_SECONDS / BLOCK_SECONDS.get(chain_id, 12))


def hex_int(value: Any, what: str, chain_id: int) -> int:
    if not isinstance(value, str) or not re.fullmatch(r"0x[0-9a-fA-F]{1,64}", value):
        raise NetworkError(
            f"The RPC endpoint for chain {chain_id} answered {what} with something that is not a hex number."
        )
    return int(value, 16)


@dataclass(frozen=True)
class Head:
    """A block as its header names it: the hash tells a reorganised block from the one before."""

    number: int
    hash: str
    timestamp: int

    @classmethod
    def of(cls, header: Any, chain_id: int) -> Head:
        """The head in an `eth_getBlockByNumber` answer; a NetworkError if it is not a header."""
        what = "eth_getBlockByNumber"
        if not isinstance(header, dict):
            raise NetworkError(f"The RPC endpoint for chain {chain_id} answered {what} with no header.")
        found = header.get("hash")
        if not isinstance(found, str) or not BLOCK_HASH.fullmatch(found):
            raise NetworkError(f"The RPC endpoint for chain {chain_id} answered {what} with no block hash.")
        return cls(
            hex_int(header.get("number"), what, chain_id),
            found.lower(),
            hex_int(header.get("timestamp"), what, chain_id),
        )


class Follower:
    """One chain's head, followed while requests use the chain."""

    def __init__(self, endpoint: Endpoint, interval: float) -> None:
        self.endpoint = endpoint
        self.interval = interval
        self.head: Head | None = None
        self.settled: int | None = None
        """The endpoint's `finalized` block, or the head less settle_depth where it has none."""
        self.settled_hash: str | None = None
        """The hash of the block `settled` names, where the `finalized` header gave it: what fixes
        every block up to it, for answers shared across replicas (ChainReader.block_key)."""
        self.rewinds = 0
        """Heads seen to go back (a lower number, or another hash at the same number): a reorg,
        a chain reset under the same id, another node behind the URL. What was checked against
        the chain before (the event index's stored part) is checked again after one."""
        self._seen: Head | None = None
        self._fresh_until = -math.inf
        self._used = -math.inf
        self._settled_at = -math.inf
        self._failing = False
        self._task: asyncio.Task[None] | None = None

    def current(self) -> Head | None:
        """The newest head seen, while it is followed and confirmed; marks the chain as in use."""
        now = asyncio.get_running_loop().time()
        self._used = now
        if self._task is None or self._task.done() or now > self._fresh_until:
            return None
        return self.head

    def learn(self, head: Head) -> None:
        """A head a request pinned itself: kept if newest, and the chain followed from now on."""
        self._observe(head)
        if self.interval <= 0:
            return
        now = asyncio.get_running_loop().time()
        self._used = now
        if self.head is None or head.number >= self.head.number:
            self.head = head
        if self._task is None or self._task.done():
            self._fresh_until = now + self.interval * STALE_POLLS
            self._task = asyncio.get_running_loop().create_task(self._follow())

    def _observe(self, head: Head) -> None:
        """Count a head that goes back (`rewinds`), whether or not the chain is followed."""
        seen = self._seen
        back = seen is not None and (head.number, head.hash) != (seen.number, seen.hash) and head.number <= seen.number
        if back:
            self.rewinds += 1
        if seen is None or back or head.number > seen.number:
            self._seen = head

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _follow(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while loop.time() - self._used < IDLE_SECONDS:
                changed = await self._poll()
                delay = self._delay(changed)
                if changed is not None:
                    self._fresh_until = loop.time() + delay + self.interval * STALE_POLLS
                await asyncio.sleep(delay)
        finally:
            self.head = None
            self.settled = self.settled_hash = None
            self._settled_at = -math.inf

    def _delay(self, changed: bool | None) -> float:
        """The next poll: most of a block time after a new block on a chain slower than `interval`."""
        block = BLOCK_SECONDS.get(self.endpoint.chain_id, 0)
        return max(self.interval, block - self.interval) if changed else self.interval

    async def _poll(self) -> bool | None:
        """One poll: whether the head moved, or None if the endpoint failed it."""
        loop = asyncio.get_running_loop()
        endpoint, chain_id = self.endpoint, self.endpoint.chain_id
        calls: list[tuple[str, list[Any]]] = [("eth_getBlockByNumber", ["latest", False])]
        ask_settled = endpoint.has_finalized is not False and loop.time() - self._settled_at >= SETTLED_POLL_SECONDS
        if ask_settled:
            calls.append(("eth_getBlockByNumber", ["finalized", False]))
        probed = self.head if endpoint.hash_tags is None else None
        if probed is not None:
            calls.append(("eth_getBalance", [HASH_PROBE_ADDRESS, {"blockHash": probed.hash}]))
        exchange = Exchange(endpoint, RpcStats(), loop.time() + self.interval * STALE_POLLS + 1, 1)
        try:
            answers = await exchange.rpc(calls)
            if isinstance(answers[0], RpcError):
                raise NetworkError(f"The RPC endpoint for chain {chain_id} refused the latest header.")
            head = Head.of(answers[0], chain_id)
        except (NetworkError, TimeoutError) as exc:
            if not self._failing:
                log.warning("chain %d head not followed for now: %s", chain_id, getattr(exc, "message", "timeout"))
            self._failing = True
            return None
        if self._failing:
            log.info("chain %d head followed again at block %d", chain_id, head.number)
        self._failing = False
        changed = self.head is None or head.number != self.head.number or head.hash != self.head.hash
        self._observe(head)
        self.head = head
        endpoint.metrics.chain_head.labels(endpoint.label).set(head.number)
        if ask_settled:
            self._settled_at = loop.time()
            finalized = answers[1]
            if isinstance(finalized, dict) and isinstance(finalized.get("number"), str):
                endpoint.has_finalized = True
                number, found = hex_int(finalized["number"], "eth_getBlockByNumber", chain_id), finalized.get("hash")
                if number >= head.number:
                    self.settled, self.settled_hash = head.number, head.hash
                else:
                    found = found.lower() if isinstance(found, str) and BLOCK_HASH.fullmatch(found) else None
                    self.settled, self.settled_hash = number, found
            else:
                endpoint.has_finalized = False
        if endpoint.has_finalized is False:
            self.settled, self.settled_hash = head.number - settle_depth(chain_id), None
        if probed is not None:
            learn_hash_tags(endpoint, answers[-1])
        return changed


def learn_hash_tags(endpoint: Endpoint, answer: Any) -> None:
    """Whether the endpoint takes a block hash as a block tag (EIP-1898), from a probe's answer (a
    poll's, or a request's given hash): a balance says it does; a refusal of the request says it
    does not (reads stay pinned by number, said once); anything else (a node behind a balancer
    that has not seen the block) says nothing, and a later probe asks again."""
    if isinstance(answer, str):
        endpoint.hash_tags = True
    elif isinstance(answer, RpcError) and answer.code in REFUSALS and endpoint.hash_tags is None:
        endpoint.hash_tags = False
        log.info(
            "chain %d endpoint refuses block hashes as block tags (%s); reads stay pinned by number",
            endpoint.chain_id,
            clean(answer.message, 80),
        )
