"""Chain access: a request's reads at one pinned block, over the JSON-RPC transport of rpc.py.

Every adapter reads the chain through a `ChainReader`, one per chain per GraphQL request:

- The first read pins the block: to the head the chain's follower has seen (chain/head.py),
  with no round trip, or else with one JSON-RPC batch carrying the `latest` header (plus, on an
  endpoint's first use, `eth_chainId` to refuse a URL that serves another chain, and
  `eth_getCode` of Multicall3 to learn whether batching through it is possible), after which the
  chain is followed. Every `eth_call` after that names this block, and every input of the
  request on that chain shares it.
- Identical calls are asked once per request (and an immutable fact once per app), answered from
  the tapes of the request's lenses (chain/lens.py) where they can be, else coalesced with every
  other caller's into the next round (chain/rounds.py): the HTTP requests of a GraphQL request
  number its dependent read rounds, not its calls. Headers, timestamps and logs
  (chain/event_logs.py) ride in the same rounds.
- Failures are sorted by rpc.classify: a node's failure of any call (not a contract's) is
  retried, for that call only, with jittered backoff inside the input's deadline, and then fails
  its callers with a retryable NetworkError; it never splits a batch and never reaches an
  adapter as a contract's failure.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from chain.abi import Function
from chain.event_logs import Log, get_logs
from chain.futures import shared_future
from chain.head import Follower, Head, hex_int, settle_depth
from chain.lens import MAX_INITCODE, PROBE, PROBE_ANSWER, Tapes
from chain.pins import header_by_hash, newest_header
from chain.plans import CallKey, Planned, Plans, note
from chain.rounds import MULTICALL3, PINNED, Call, Pin, Rounds
from chain.rpc import Endpoint, RpcError, RpcStats, clean, hex_bytes
from chain.rpc_batches import Coalescer, Exchange
from errors import ChainNotConfigured, InputValidationError, NetworkError, ProtocolError
from immutable_cache import ImmutableCache
from metrics import Metrics

log = logging.getLogger("wallet_positions.chain")

RECORDED_CACHE_ITEMS = 100_000
"""Immutable facts a recorded request keeps for itself (it shares none with the app)."""
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")


T = TypeVar("T")


@dataclass(frozen=True)
class ChainConfig:
    max_calls: int = 200
    """Sub-calls per aggregate3 call; all chunks of one round still travel in one HTTP request."""
    logs_block_range: int = 10_000
    """Blocks per eth_getLogs query; halved for an endpoint each time it says the range is too large."""
    cache_size: int = 10_000
    """Immutable facts (symbol, decimals, market parameters) kept across requests."""
    max_attempts: int = 3
    """Attempts for a transient failure, all inside the input's time budget."""
    connections: int = 16
    """Open connections per endpoint at most; one endpoint that hangs cannot starve another."""
    max_response_bytes: int = 16 * 1024 * 1024
    """Largest HTTP answer read from an endpoint; a larger batch answer is asked again in halves."""
    cache_bytes: int = 16 * 1024 * 1024
    """Bytes of text and data the immutable-facts cache holds at most."""
    head_poll_seconds: float = 0.0
    """Seconds between polls of a followed chain's head (chain/head.py); 0: every request pins
    its own block (the server's setting turns following on)."""


class Chains:
    """App-wide chain access: one Endpoint per chain (each with its own connections), the cache."""

    def __init__(
        self,
        urls: Mapping[int, str],
        config: ChainConfig = ChainConfig(),
        metrics: Metrics | None = None,
        configured: Collection[int] | None = None,
    ) -> None:
        """`configured`: the chains whose endpoint the operator set (None: all of `urls`), the others
        being public defaults."""
        self.config = config
        self.metrics = metrics or Metrics()
        self.cache = ImmutableCache(config.cache_size, config.cache_bytes)
        self.hints: dict[tuple[Any, ...], Any] = {}
        """Guesses kept across requests that a read then checks (the block last found at a time,
        adapters/history.py), never facts: a recorded request uses them too, its reads confirm."""
        self.plans = Plans()
        """Each input's last calls in rounds, asked together in its next answer's first round (chain/plans.py)."""
        self._urls = dict(urls)
        self._configured = frozenset(urls if configured is None else configured) & frozenset(urls)
        self._endpoints: dict[int, Endpoint] = {}
        self._followers: dict[int, Follower] = {}

    async def close(self) -> None:
        for follower in self._followers.values():
            await follower.close()
        for endpoint in self._endpoints.values():
            await endpoint.close()

    def follower(self, chain_id: int) -> Follower:
        """The chain's head follower (chain/head.py), idle until a request pins the chain."""
        if chain_id not in self._followers:
            self._followers[chain_id] = Follower(self.endpoint(chain_id), self.config.head_poll_seconds)
        return self._followers[chain_id]

    @property
    def chain_ids(self) -> frozenset[int]:
        """The chains this server has an endpoint for (its operator's, or a public default)."""
        return frozenset(self._urls)

    @property
    def own_chain_ids(self) -> frozenset[int]:
        """The chains whose endpoint the operator set; all of them where the operator set none (a
        server on the public defaults alone)."""
        return self._configured or self.chain_ids

    def endpoint(self, chain_id: int) -> Endpoint:
        if chain_id not in self._endpoints:
            if chain_id not in self._urls:
                raise ChainNotConfigured(
                    f"This server has no RPC endpoint for chain {chain_id}; its operator can set RPC_URL_{chain_id}."
                )
            config = self.config
            self._endpoints[chain_id] = Endpoint(
                chain_id,
                self._urls[chain_id],
                config.connections,
                config.max_response_bytes,
                config.max_attempts,
                config.logs_block_range,
                self.metrics,
            )
        return self._endpoints[chain_id]

    def request(self, deadline: float, recorded: bool = False) -> ChainRequest:
        """The reads of one request; `recorded`: every read kept (`stats.reads`) and nothing taken
        from the app's caches, so that what an answer was made of is all in the record."""
        stats = RpcStats(reads=[], taped=set()) if recorded else RpcStats()
        return ChainRequest(self, deadline, stats, ImmutableCache(RECORDED_CACHE_ITEMS, 1 << 30) if recorded else None)


@dataclass
class ChainRequest:
    """The chain reads of one GraphQL request: one reader per chain, shared RPC counters."""

    chains: Chains
    deadline: float
    stats: RpcStats = field(default_factory=RpcStats)
    cache: ImmutableCache | None = None
    """The request's own cache of immutable facts, where it must read them all (recorded)."""
    _readers: dict[tuple[int, int | None, str | None], ChainReader] = field(default_factory=dict)
    _coalescers: dict[int, Coalescer] = field(default_factory=dict)

    def coalescer(self, chain_id: int) -> Coalescer:
        """Where the chain's readers of this request send their batches together (rpc_batches)."""
        return self._coalescers.setdefault(chain_id, Coalescer())

    def reader(self, chain_id: int, block: int | None = None, block_hash: str | None = None) -> ChainReader:
        """The chain's reader pinned to its newest block, to `block` (an earlier one), or to the
        block of `block_hash` (which must then be `block`, where both are given)."""
        key = (chain_id, block, block_hash)
        if key not in self._readers:
            self._readers[key] = ChainReader(self.chains.endpoint(chain_id), self, block, block_hash)
        return self._readers[key]


class ChainReader:
    """Reads of one chain for one request, all at one pinned block, batched across callers."""

    def __init__(
        self, endpoint: Endpoint, request: ChainRequest, block: int | None = None, block_hash: str | None = None
    ) -> None:
        self.endpoint = endpoint
        self.chain_id = endpoint.chain_id
        self._request = request
        self._config = request.chains.config
        self._at = block
        """A block given, not the newest: a node without its state is pruned (HistoryUnavailable)."""
        self._at_hash = block_hash
        """A block given by its hash (EIP-1898): read by that hash, whatever the chain's head."""
        self._exchange = Exchange(
            endpoint,
            request.stats,
            request.deadline,
            self._config.max_attempts,
            history=self.past,
            shared=request.coalescer(endpoint.chain_id),
        )
        self._cache = request.cache if request.cache is not None else request.chains.cache
        self._block: asyncio.Future[int] | None = None
        self._head: Head | None = None
        """The pinned head (number, hash, timestamp), for a reader of the newest block."""
        self._rounds = Rounds(endpoint, self._exchange, request.stats, self._config.max_calls, self._round_pin)
        self.tapes = Tapes(self.chain_id, request.stats.taped)
        """Reads answered by the request's lenses (prefetch)."""
        self._shared: dict[Any, asyncio.Future[Any]] = {}
        self._calls: dict[tuple[Any, ...], asyncio.Future[tuple[Any, ...]]] = {}
        """Every call of the request, by target, calldata and outputs: asked once, however many
        inputs and positions ask (all read the same pinned block, so the answer is the same)."""
        self.taped: set[CallKey] = set()
        """The calls a lens's tape answered: no input's plan asks them again (chain/plans.py)."""

    @property
    def past(self) -> bool:
        """Whether the reader reads a block it was given (a client's `blockNumber`, or one a
        period earlier), not the newest."""
        return self._at is not None or self._at_hash is not None

    @property
    def has_multicall(self) -> bool:
        """Whether reads batch through Multicall3 (it has code at the pinned block)."""
        return self._rounds.multicall

    @property
    def hints(self) -> dict[tuple[Any, ...], Any]:
        """The app's guesses kept across requests (Chains.hints)."""
        return self._request.chains.hints

    @property
    def head(self) -> Head | None:
        """The head (number, hash, timestamp) a reader of the newest block was pinned to; None
        before its pin, and for a reader of a given block."""
        return self._head

    def newest(self) -> ChainReader:
        """The request's reader of this chain pinned to its newest block (this one, unless it
        reads a block it was given)."""
        return self._request.reader(self.chain_id)

    def at(self, block: int) -> ChainReader:
        """The request's reader of this chain pinned to `block` (an earlier one), for figures that
        compare two blocks; its reads batch among themselves."""
        return self._request.reader(self.chain_id, block)

    async def shared(self, key: Any, read: Callable[[], Awaitable[T]]) -> T:
        """`read()` once per request and key, however many inputs and positions ask for it."""
        if key not in self._shared:
            self._shared[key] = shared_future(read())
        # Each key is always read by the same kind of `read`, so its future holds a T.
        return cast(T, await asyncio.shield(self._shared[key]))

    def settled(self, key: Any) -> Any | None:
        """A `shared` read's value once it is in, without waiting (None before, or if it failed):
        what a later input of the request may name as its lens's targets."""
        future = self._shared.get(key)
        if future is None or not future.done() or future.cancelled() or future.exception() is not None:
            return None
        return future.result()

    async def remembered(
        self,
        key: tuple[Any, ...],
        read: Callable[[], Awaitable[tuple[Any, ...]]],
        lasting: Callable[[tuple[Any, ...]], bool] = lambda _: True,
    ) -> tuple[Any, ...]:
        """A fact that follows from immutable code (which interface a contract has, say), or from
        settled blocks (`lasting` says whether this value does): read once per request, then kept
        in the app's immutable cache. A failure is not kept."""
        key = (self.chain_id, "remembered", *key)
        if (cached := self._cache.get(key)) is not None:
            return cast(tuple[Any, ...], cached)
        value = await self.shared(key, read)
        if lasting(value):
            self._cache.put(key, value)
        return value

    # ---------------------------------------------------------------- block pinning

    async def block_number(self, probed: bool = True) -> int:
        """The block every read of this request on this chain is made at (fetched once), once it is
        known whether Multicall3 reads it (`_multicall_at`); not `probed`: what names a kept answer."""
        if self._block is None:
            self._block = shared_future(self._pin())
        block = await asyncio.shield(self._block)
        return await self.shared(("multicall",), lambda: self._multicall_at(block)) if probed and self.past else block

    async def _round_pin(self) -> Pin:
        """The block a round reads, by its hash once known without a round trip: the head's, a
        given hash, or a given block's header once read (it rides with the first round)."""
        number = await self.block_number()
        if self._at_hash is not None:
            return Pin(number, self._at_hash)
        if self._at is None:
            return Pin(number, self._head.hash if self._head is not None else None)
        header = self.settled(("header", number))
        return Pin(number, header.hash if header is not None else None)

    async def block_header(self) -> Head:
        """The pinned block's header (number, hash, timestamp), what names the block an answer
        was read at and says when it was (`_header_of`)."""
        return await self._header_of(await self.block_number())

    async def _header_of(self, number: int) -> Head:
        """The header of block `number`: the newest block's is its pin's (no request); another's
        rides with the next round, once per request, whoever asks (its timestamp, its hash). A
        block given by hash has its own, read when it was pinned (another block of the head's
        height is not the head)."""
        head = self.newest().head
        if head is not None and head.number == number and self._at_hash in (None, head.hash):
            return head

        async def read() -> Head:
            found = Head.of(await self._rounds.ride_along("eth_getBlockByNumber", [hex(number), False]), self.chain_id)
            if found.number != number:
                raise NetworkError(
                    f"The RPC endpoint for chain {self.chain_id} answered the header of block {found.number} "
                    f"when asked for block {number}."
                )
            return found

        return await self.shared(("header", number), read)

    async def block_timestamp(self) -> int:
        """Timestamp of the pinned block; read in the next round, with the calls queued for it.
        A node that does not know the block yet (behind a load balancer) is retried, then a
        NetworkError: never a missing figure."""
        return await self.timestamp_of(await self.block_number())

    async def timestamp_of(self, number: int) -> int:
        """Timestamp of block `number` (at most the pinned one), with the next round; kept in the
        app's immutable cache once the block has settled."""
        key = (self.chain_id, "timestamp", number)
        if (cached := self._cache.get(key)) is not None:
            return cast(int, cached)
        timestamp = (await self._header_of(number)).timestamp
        if number <= await self.block_number() - settle_depth(self.chain_id):
            self._cache.put(key, timestamp)
        return timestamp

    async def settled_block(self) -> int:
        """The newest block whose logs can be kept for good: the endpoint's `finalized` block
        where it has that tag (asked once per request), else the pinned block less the chain's
        settle_depth. Never past the pinned block."""

        async def read() -> int:
            block = await self.block_number()
            follower = self._request.chains.follower(self.chain_id)
            if follower.current() is not None and follower.settled is not None:
                return min(block, follower.settled)
            if self.endpoint.has_finalized is not False:
                header = await self._rounds.ride_along("eth_getBlockByNumber", ["finalized", False])
                if isinstance(header, dict):
                    self.endpoint.has_finalized = True
                    return min(block, hex_int(header.get("number"), "eth_getBlockByNumber", self.chain_id))
                depth = settle_depth(self.chain_id)
                log.info(
                    "chain %d endpoint has no finalized block tag; logs settle after %d blocks", self.chain_id, depth
                )
                self.endpoint.has_finalized = False
            return block - settle_depth(self.chain_id)

        return await self.shared(("settled block",), read)

    async def _pin(self) -> int:
        if self._at_hash is not None:
            return await self._pin_hash(self._at_hash)
        if self._at is not None:
            return await self._pin_past(self._at)
        follower = self._request.chains.follower(self.chain_id)
        if (followed := follower.current()) is None:
            followed = await newest_header(self._exchange, self.endpoint)
            follower.learn(followed)
        self._head = followed
        self._rounds.multicall = bool(self.endpoint.has_multicall)
        return followed.number

    async def block_key(self, shared: bool = False) -> str | None:
        """What names the pinned block for answers kept across requests (schema.py): the head's
        hash (a reorganised block has another); for a given block, "settled" once the follower
        knows it settled, else the hash of the head it was read under (the same while that head
        is); None where none is known without a round trip, or the block is past that head.

        `shared`: the name for answers shared with other replicas (replicas/answers.py), only
        ever a block hash: "settled" holds for this process's chain, and Redis outlives it (a
        chain reset under the same id). A settled block is named by the finalized block's hash,
        which fixes every block up to it and moves once per finality period; else by the head's."""
        block = await self.block_number(probed=False)
        head = self.newest().head
        if self._at_hash is not None:
            return self._at_hash
        if self._at is None:
            return head.hash if head is not None else None
        follower = self._request.chains.follower(self.chain_id)
        settled = follower.settled if follower.current() is not None else None
        if settled is not None and block <= settled and (not shared or follower.settled_hash):
            return f"under {follower.settled_hash}" if shared else "settled"
        return f"under {head.hash}" if head is not None and block <= head.number else None

    async def _pin_hash(self, block_hash: str) -> int:
        """A block given by its hash (chain/pins.py), once the head is pinned; its header is then
        the shared read `_header_of` would make."""
        await self.newest().block_number()
        found = await header_by_hash(self._exchange, self.endpoint, block_hash, self._at)
        self._shared[("header", found.number)] = known = asyncio.get_running_loop().create_future()
        known.set_result(found)
        return await self._pin_past(found.number)

    async def _pin_past(self, block: int) -> int:
        """A given block, once the head is pinned (which checks the endpoint): past it, the client's mistake."""
        head = await self.newest().block_number()
        if block > head:
            head = await self.node_head()
        if block > head:
            raise InputValidationError(
                f"Block {block} is not on chain {self.chain_id} yet: its newest block is {head}."
            )
        return block

    async def _multicall_at(self, block: int) -> int:
        """Whether Multicall3 existed at a given block, asked once per endpoint below any block seen
        with it (deployed in 2022) in the reader's first round, whose reads go through it meanwhile
        (an aggregate3 that finds no code goes again plain, rounds.py). Not the pin's: a kept answer's
        name (`block_key`) needs only the block, so a repeat another replica answered costs nothing."""
        endpoint = self.endpoint
        if endpoint.has_multicall and block > endpoint.multicall_absent_to:
            self._rounds.multicall = True
            if endpoint.multicall_since is None or block < endpoint.multicall_since:
                shared_future(self._probe_multicall(block, self._rounds.queued("eth_getCode", [MULTICALL3, PINNED])))
        return block

    async def _probe_multicall(self, block: int, code: Awaitable[Any]) -> None:
        if hex_bytes(await code, "eth_getCode", self.chain_id):
            self.endpoint.multicall_since = min(block, self.endpoint.multicall_since or block)  # the oldest holds
        else:
            self.endpoint.multicall_absent_to = max(block, self.endpoint.multicall_absent_to)
            self._rounds.multicall = False

    async def node_head(self) -> int:
        """The node's own newest block, asked now (one round trip): the head a request pinned
        may be up to HEAD_POLL_SECONDS old, and a client that read a newer block from its own
        node (or a receipt) must not be told it does not exist."""
        (header,) = await self._exchange.rpc([("eth_getBlockByNumber", ["latest", False])])
        head = Head.of(header, self.chain_id)
        self._request.chains.follower(self.chain_id).learn(head)
        return head.number

    async def has_code(self, address: str) -> bool:
        """Whether `address` has code at the pinned block: a contract deployed by then."""

        async def read() -> bool:
            await self.block_number()
            code = await self._rounds.ride_along("eth_getCode", [address, PINNED])
            return len(hex_bytes(code, "eth_getCode", self.chain_id)) > 0

        return await self.shared(("code", address.lower()), read)

    # ---------------------------------------------------------------- eth_call

    async def call(self, target: str, function: Function, *args: Any, label: str | None = None) -> tuple[Any, ...]:
        """`function(*args)` on `target` at the pinned block; ProtocolError names both on failure.
        Strings in the result are capped and stripped of control characters (rpc.safe_text)."""
        if not isinstance(target, str) or not _ADDRESS.fullmatch(target):
            raise ProtocolError(f"{label or 'a contract'}: {function.name} has no valid target address.")
        planned = (target.lower(), function, function.calldata(*args), label or f"contract {target.lower()}")
        note(self, planned)
        key = (self.chain_id, planned[0], planned[2], function.outputs)
        if function.immutable and (cached := self._cache.get(key)) is not None:
            return cast(tuple[Any, ...], cached)
        result = await asyncio.shield(self._started(key, planned))
        if function.immutable:
            self._cache.put(key, result)
        return result

    def _started(self, key: tuple[Any, ...], planned: Planned) -> asyncio.Future[tuple[Any, ...]]:
        """The call's one future of the request, started now if it is not yet."""
        if key not in self._calls:
            future: asyncio.Future[tuple[Any, ...]] = asyncio.get_running_loop().create_future()
            self._calls[key] = shared_future(self._read(Call(*planned, future, alone=planned[1].writes)))
        return self._calls[key]

    def plan(self, planned: Iterable[Planned]) -> None:
        """Start the calls of an input's plan (chain/plans.py) now, to go in the next round: the
        adapter's identical calls then share their futures. A fact kept in the cache is not asked."""
        for call in planned:
            target, function, calldata, _ = call
            key = (self.chain_id, target, calldata, function.outputs)
            if not (function.immutable and self._cache.get(key) is not None):
                self._started(key, call)

    async def _read(self, call: Call) -> tuple[Any, ...]:
        """A call's answer from the lenses' tapes once those that may hold it are back, else
        from the next round."""
        recorded = await self.tapes.answer(call.target, call.calldata)
        if recorded is None:
            return await self._rounds.read(call)
        self.taped.add((call.target, call.calldata, call.function.outputs))
        success, answer = recorded
        self.endpoint.metrics.rpc_lens_reads.labels(self.endpoint.label).inc()
        self._rounds.settle(call, await self.block_number(), answer if success else None, None if success else answer)
        return await call.future

    def prefetch(self, initcodes: Sequence[bytes], targets: Iterable[str]) -> None:
        """Run lenses (chain/lens.py) in the next round: calls to `targets` wait for them and are
        answered from their tapes where they can be. Nothing is run on an endpoint known not to
        run calls without `to`; a lens that fails or is too large only leaves its reads to rounds."""
        runnable = [code for code in initcodes if len(code) <= MAX_INITCODE]
        if len(runnable) < len(initcodes):
            log.info("a lens of more than %d bytes on chain %d is not run", MAX_INITCODE, self.chain_id)
        if self.endpoint.deployless is False or not runnable:
            return
        self.tapes.cover(shared_future(self._run_lenses(runnable)), targets)

    async def _run_lenses(self, initcodes: Sequence[bytes]) -> None:
        try:
            await self.block_number()
        except Exception:
            return
        if self.past:
            shared_future(self.block_timestamp())  # in this round: figures at a given block need it
        answers, deployless = await asyncio.gather(
            asyncio.gather(
                *(self._rounds.ride_along("eth_call", [{"data": "0x" + code.hex()}, PINNED]) for code in initcodes),
                return_exceptions=True,
            ),
            self._deployless(),
        )
        if deployless:
            self.tapes.record(answers)

    async def _deployless(self) -> bool:
        """Whether the endpoint runs calls without `to`: known, or probed (PROBE) in the round of
        the request's first lenses and then remembered; a node's failure of the probe leaves it
        open, to be asked again."""
        endpoint = self.endpoint
        if endpoint.deployless is not None:
            return endpoint.deployless

        async def probe() -> bool:
            answer = await self._rounds.ride_along("eth_call", [{"data": "0x" + PROBE.hex()}, PINNED])
            endpoint.deployless = answer == PROBE_ANSWER
            if not endpoint.deployless:
                log.info("chain %d endpoint does not run calls without `to`; reads go in rounds", self.chain_id)
            return endpoint.deployless

        try:
            return await self.shared(("deployless",), probe)
        except NetworkError:
            return False

    # ---------------------------------------------------------------- eth_getLogs

    async def get_logs(
        self, address: str | Sequence[str], topics: Sequence[Any], from_block: int, to_block: int | None = None
    ) -> list[Log]:
        """Logs in [from_block, to_block] (default: the pinned block), in chain order, with the
        next round (chain/event_logs.py)."""
        last = await self.block_number() if to_block is None else to_block
        return await get_logs(self._rounds, self._config.logs_block_range, address, topics, from_block, last)

    @property
    def deadline(self) -> float:
        return self._request.deadline

    def cancel_rounds(self) -> None:
        """Stop the rounds in flight (their callers are gone: a cancelled background scan)."""
        self._rounds.cancel()

    async def raw_call(self, target: str, data: bytes) -> bytes:
        """One eth_call of ready-made calldata at the pinned block, with the next round (for bulk
        reads that encode and decode by hand: adapters/sweep.py). A revert is a ProtocolError."""
        block = await self.block_number()
        answer = await self._rounds.ride_along("eth_call", [{"to": target, "data": "0x" + data.hex()}, PINNED])
        if isinstance(answer, RpcError):
            raise ProtocolError(
                f"a bulk read of {target} on chain {self.chain_id} at block {block} failed: {clean(answer.message)}"
            )
        return hex_bytes(answer, "eth_call", self.chain_id)

    async def block_hash(self, number: int) -> str:
        header = await self._rounds.ride_along("eth_getBlockByNumber", [hex(number), False])
        found = header.get("hash") if isinstance(header, dict) else None
        if not isinstance(found, str):
            raise NetworkError(f"The RPC endpoint for chain {self.chain_id} has no header for block {number}.")
        return found.lower()
