"""Chain access: block pinning and batched reads over the JSON-RPC transport of rpc.py.

Every adapter reads the chain through a `ChainReader`, one per chain per GraphQL request:

- The first read pins the block: to the head the chain's follower has seen (chain/head.py),
  with no round trip, or else with one JSON-RPC batch carrying the `latest` header (plus, on an
  endpoint's first use, `eth_chainId` to refuse a URL that serves another chain, and
  `eth_getCode` of Multicall3 to learn whether batching through it is possible), after which the
  chain is followed. Every `eth_call` after that names this block, and every input of the
  request on that chain shares it.
- Calls issued concurrently are coalesced (the DataLoader pattern), and identical calls asked
  once: they queue until IDLE_TICKS loop iterations pass with no new call and the previous round
  is back, then leave together as Multicall3 `aggregate3` calls with `allowFailure` (chunked to
  `max_calls` sub-calls, in JSON-RPC batches bounded by rpc_batches), so one failing sub-call
  fails only itself. Without Multicall3 they go as small JSON-RPC batches.
  The HTTP requests of a GraphQL request thus number its dependent read rounds, not its calls.
- Failures are sorted by rpc.classify: a node's failure of any call (not a contract's) is
  retried, for that call only, with jittered backoff inside the input's deadline, and then fails
  its callers with a retryable NetworkError; it never splits a batch and never reaches an
  adapter as a contract's failure. A sub-call that failed with empty revert data inside an
  `aggregate3` (an earlier sub-call may have used up the gas) is run again on its own, at the
  same block, before it counts as its contract's failure.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar, cast

from chain.abi import AbiError, Function, decode
from chain.head import Follower, Head, hex_int, settle_depth
from chain.lens import MAX_INITCODE, PROBE, PROBE_ANSWER, Records, TapeError, digest, records
from chain.rpc import Endpoint, RpcError, RpcStats, clean, safe_text
from chain.rpc_batches import Exchange
from errors import ChainNotConfigured, InputValidationError, NetworkError, ProtocolError
from immutable_cache import ImmutableCache
from metrics import Metrics

log = logging.getLogger("wallet_positions.chain")

MULTICALL3 = "0xca11bde05977b3631167028862be2a173976ca11"
AGGREGATE3 = Function("aggregate3((address,bool,bytes)[])", "82ad56cb", ("(bool,bytes)[]",))
ERROR_STRING_SELECTOR = "08c379a0"
"""Error(string), the revert payload of `require(cond, "reason")`."""

IDLE_TICKS = 12
"""Loop iterations without a new call before a round leaves: callers resumed by the previous
round reach their next call through a few awaits (gather, shield, tasks); waiting a dozen
iterations, microseconds, lets all of them join the round instead of trailing into the next
(8 was measured too few for Morpho's discovery beside Aave and Compound inputs)."""

PLAIN_BATCH_SIZE = 20
"""eth_calls per JSON-RPC batch when a chain has no Multicall3: small, as public nodes cap it."""
MAX_CHUNK_CALLDATA = 128 * 1024
"""Sub-call calldata bytes per aggregate3 call (hex in JSON doubles it), beside `max_calls`."""
MAX_NARROWING_ROUNDS = 16
MIN_LOGS_BLOCK_RANGE = 16
"""Narrowing stops here: an endpoint that refuses 16 blocks is failing, not paginating."""
MAX_LOG_QUERIES = 5_000
"""eth_getLogs queries one call may make; a span needing more is refused, not attempted."""
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")


class UndecodableReturn(ProtocolError):
    """A call succeeded but its return data does not decode as the function's outputs."""


T = TypeVar("T")


def shared_future(awaitable: Awaitable[T]) -> asyncio.Future[T]:
    """A task several callers await (each through asyncio.shield). Its outcome counts as
    retrieved even if every caller stopped waiting, so no "exception was never retrieved"."""
    future = asyncio.ensure_future(awaitable)
    future.add_done_callback(_retrieve)
    return future


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def no_read() -> None:
    """In a gather, the place of a read that this position does not need."""
    return None


async def first(call: Awaitable[tuple[Any, ...]]) -> Any:
    """The first (often only) value a call returns."""
    return (await call)[0]


def _chunks(calls: list[_Call], size: int) -> list[list[_Call]]:
    """aggregate3 chunks of at most `size` sub-calls and MAX_CHUNK_CALLDATA bytes of calldata."""
    chunks: list[list[_Call]] = []
    used = MAX_CHUNK_CALLDATA
    for call in calls:
        if used + len(call.calldata) > MAX_CHUNK_CALLDATA or len(chunks[-1]) >= size:
            chunks.append([])
            used = 0
        chunks[-1].append(call)
        used += len(call.calldata)
    return chunks


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


@dataclass(frozen=True)
class Log:
    address: str
    topics: tuple[str, ...]
    data: bytes
    block_number: int
    log_index: int


def _revert_reason(data: Any) -> str:
    """The reason of an Error(string) revert payload, else a short description of it."""
    try:
        raw = bytes.fromhex(data[2:]) if isinstance(data, str) and data.startswith("0x") else data
    except ValueError:
        return "undecodable revert data"
    if not isinstance(raw, bytes) or not raw:
        return "no reason given"
    if raw[:4].hex() == ERROR_STRING_SELECTOR:
        try:
            return f"reason {clean(decode(['string'], raw[4:])[0])!r}"
        except AbiError:
            pass
    return f"revert data 0x{raw[:36].hex()}"


def _safe(value: Any) -> Any:
    """A decoded return value with every string made safe (rpc.safe_text) before any use."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, tuple):
        return tuple(_safe(item) for item in value)
    if isinstance(value, list):
        return [_safe(item) for item in value]
    return value


def _empty_revert(revert: Any) -> bool:
    return revert in (b"", "0x", None)


def _hex_bytes(value: Any, what: str, chain_id: int) -> bytes:
    if not isinstance(value, str) or not re.fullmatch(r"0x(?:[0-9a-fA-F]{2})*", value):
        raise NetworkError(
            f"The RPC endpoint for chain {chain_id} answered {what} with something that is not hex data."
        )
    return bytes.fromhex(value[2:])


class Chains:
    """App-wide chain access: one Endpoint per chain (each with its own connections), the cache."""

    def __init__(
        self, urls: Mapping[int, str], config: ChainConfig = ChainConfig(), metrics: Metrics | None = None
    ) -> None:
        self.config = config
        self.metrics = metrics or Metrics()
        self.cache = ImmutableCache(config.cache_size, config.cache_bytes)
        self.hints: dict[tuple[Any, ...], Any] = {}
        """Guesses kept across requests that a read then checks (the block last found at a time,
        adapters/history.py), never taken as facts; a few keys per chain."""
        self._urls = dict(urls)
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

    def request(self, deadline: float) -> ChainRequest:
        return ChainRequest(self, deadline)


@dataclass
class ChainRequest:
    """The chain reads of one GraphQL request: one reader per chain, shared RPC counters."""

    chains: Chains
    deadline: float
    stats: RpcStats = field(default_factory=RpcStats)
    _readers: dict[tuple[int, int | None], ChainReader] = field(default_factory=dict)

    def reader(self, chain_id: int, block: int | None = None) -> ChainReader:
        """The chain's reader pinned to its newest block, or to `block` (an earlier one)."""
        key = (chain_id, block)
        if key not in self._readers:
            self._readers[key] = ChainReader(self.chains.endpoint(chain_id), self, block)
        return self._readers[key]


@dataclass
class _Call:
    """An eth_call waiting for the next round."""

    target: str
    function: Function
    calldata: bytes
    label: str
    future: asyncio.Future[tuple[Any, ...]]
    alone: bool = False
    """Sent as a plain eth_call, not inside aggregate3 (a re-run of a starved sub-call)."""


@dataclass
class _Raw:
    """Another JSON-RPC request that rides along in the next round's batch."""

    method: str
    params: list[Any]
    future: asyncio.Future[Any]


def _resolve(future: asyncio.Future[Any], result: Any = None, error: BaseException | None = None) -> None:
    """Settle a caller's future unless it is already settled (its caller may have been cancelled)."""
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class ChainReader:
    """Reads of one chain for one request, all at one pinned block, batched across callers."""

    def __init__(self, endpoint: Endpoint, request: ChainRequest, block: int | None = None) -> None:
        self.endpoint = endpoint
        self.chain_id = endpoint.chain_id
        self._request = request
        self._config = request.chains.config
        self._at = block
        """A block given, not the newest: a node without its state is pruned (HistoryUnavailable)."""
        self._exchange = Exchange(
            endpoint, request.stats, request.deadline, self._config.max_attempts, history=block is not None
        )
        self._cache = request.chains.cache
        self._block: asyncio.Future[int] | None = None
        self._head: Head | None = None
        """The pinned head (number, hash, timestamp), for a reader of the newest block."""
        self._multicall = False
        """Whether Multicall3 has code at the pinned block (known once pinned)."""
        self._shared: dict[Any, asyncio.Future[Any]] = {}
        self._calls: dict[tuple[Any, ...], asyncio.Future[tuple[Any, ...]]] = {}
        """Every call of the request, by target, calldata and outputs: asked once, however many
        inputs and positions ask (all read the same pinned block, so the answer is the same)."""
        self._recorded: Records = {}
        """Reads answered by the request's lenses (prefetch), by target and calldata digest."""
        self._covering: dict[str, list[asyncio.Future[None]]] = {}
        """The lenses in flight that may answer calls to a target, which wait for them."""
        self._pending: list[_Call | _Raw] = []
        self._flush_scheduled = False
        self._idle_ticks = 0
        self._sending: set[asyncio.Task[None]] = set()

    @property
    def past(self) -> bool:
        """Whether the reader reads a block it was given (a client's `blockNumber`, or one a
        period earlier), not the newest."""
        return self._at is not None

    @property
    def has_multicall(self) -> bool:
        """Whether reads batch through Multicall3 (it has code at the pinned block)."""
        return self._multicall

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

    async def remembered(self, key: tuple[Any, ...], read: Callable[[], Awaitable[tuple[Any, ...]]]) -> tuple[Any, ...]:
        """A fact that follows from immutable code (which interface a contract has, say): read
        once per request, then kept in the app's immutable cache. A failure is not kept."""
        key = (self.chain_id, "remembered", *key)
        if (cached := self._cache.get(key)) is not None:
            return cast(tuple[Any, ...], cached)
        value = await self.shared(key, read)
        self._cache.put(key, value)
        return value

    # ---------------------------------------------------------------- block pinning

    async def block_number(self) -> int:
        """The block every read of this request on this chain is made at (fetched once)."""
        if self._block is None:
            self._block = shared_future(self._pin())
        return await asyncio.shield(self._block)

    async def block_header(self) -> Head:
        """The pinned block's header (number, hash, timestamp), what names the block an answer
        was read at and says when it was (`_header_of`)."""
        return await self._header_of(await self.block_number())

    async def _header_of(self, number: int) -> Head:
        """The header of block `number`: the newest block's is its pin's (no request); another's
        rides with the next round, once per request, whoever asks (its timestamp, its hash)."""
        head = self.newest().head
        if head is not None and head.number == number:
            return head

        async def read() -> Head:
            found = Head.of(await self._ride_along("eth_getBlockByNumber", [hex(number), False]), self.chain_id)
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
                header = await self._ride_along("eth_getBlockByNumber", ["finalized", False])
                if isinstance(header, dict):
                    self.endpoint.has_finalized = True
                    return min(block, hex_int(header.get("number"), "eth_getBlockByNumber", self.chain_id))
                log.info(
                    "chain %d endpoint has no finalized block tag; logs settle after %d blocks",
                    self.chain_id,
                    settle_depth(self.chain_id),
                )
                self.endpoint.has_finalized = False
            return block - settle_depth(self.chain_id)

        return await self.shared(("settled block",), read)

    async def _pin(self) -> int:
        if self._at is not None:
            return await self._pin_past(self._at)
        endpoint = self.endpoint
        follower = self._request.chains.follower(self.chain_id)
        if (followed := follower.current()) is not None:
            self._head = followed
            self._multicall = bool(endpoint.has_multicall)
            return followed.number
        calls: list[tuple[str, list[Any]]] = [("eth_getBlockByNumber", ["latest", False])]
        if not endpoint.chain_checked:
            calls.append(("eth_chainId", []))
        if endpoint.has_multicall is None:
            calls.append(("eth_getCode", [MULTICALL3, "latest"]))
        answers = dict(zip((method for method, _ in calls), await self._exchange.rpc(calls)))
        if "eth_chainId" in answers:
            served = hex_int(answers["eth_chainId"], "eth_chainId", self.chain_id)
            if served != self.chain_id:
                log.error("RPC_URL_%d serves chain %d; refusing to use it", self.chain_id, served)
                raise NetworkError(
                    f"The RPC endpoint configured for chain {self.chain_id} serves chain {served}; it is not used."
                )
            endpoint.chain_checked = True
        if "eth_getCode" in answers:
            endpoint.has_multicall = len(_hex_bytes(answers["eth_getCode"], "eth_getCode", self.chain_id)) > 0
            if not endpoint.has_multicall:
                log.info("chain %d has no Multicall3; reads go as plain JSON-RPC batches", self.chain_id)
        self._head = pinned = Head.of(answers["eth_getBlockByNumber"], self.chain_id)
        head = pinned.number
        endpoint.metrics.chain_head.labels(endpoint.label).set(head)
        follower.learn(pinned)
        if endpoint.has_multicall and (endpoint.multicall_since is None or head < endpoint.multicall_since):
            endpoint.multicall_since = head
        self._multicall = bool(endpoint.has_multicall)
        return head

    async def block_key(self) -> str | None:
        """What names the pinned block for answers kept across requests (schema.py): the head's
        hash (a reorganised block has another); for a given block, "settled" once the follower
        knows it settled, else the hash of the head it was read under (the same while that head
        is); None where none is known without a round trip, or the block is past that head."""
        block = await self.block_number()
        head = self.newest().head
        if self._at is None:
            return head.hash if head is not None else None
        follower = self._request.chains.follower(self.chain_id)
        settled = follower.settled if follower.current() is not None else None
        if settled is not None and block <= settled:
            return "settled"
        return f"under {head.hash}" if head is not None and block <= head.number else None

    async def _pin_past(self, block: int) -> int:
        """A given block, once the head is pinned (which checks the endpoint): a block after the
        head is the client's mistake. Whether Multicall3 existed then is asked once per endpoint
        for blocks older than any seen with it (the canonical one was deployed in 2022)."""
        head = await self.newest().block_number()
        if block > head:
            head = await self._node_head()
        if block > head:
            raise InputValidationError(
                f"Block {block} is not on chain {self.chain_id} yet: its newest block is {head}."
            )
        endpoint = self.endpoint
        if not endpoint.has_multicall or block <= endpoint.multicall_absent_to:
            return block
        if endpoint.multicall_since is None or block < endpoint.multicall_since:
            (code,) = await self._exchange.rpc([("eth_getCode", [MULTICALL3, hex(block)])])
            if not _hex_bytes(code, "eth_getCode", self.chain_id):
                endpoint.multicall_absent_to = max(block, endpoint.multicall_absent_to)
                return block
            endpoint.multicall_since = block
        self._multicall = True
        return block

    async def _node_head(self) -> int:
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
            code = await self._ride_along("eth_getCode", [address, hex(await self.block_number())])
            return len(_hex_bytes(code, "eth_getCode", self.chain_id)) > 0

        return await self.shared(("code", address.lower()), read)

    # ---------------------------------------------------------------- eth_call

    async def call(self, target: str, function: Function, *args: Any, label: str | None = None) -> tuple[Any, ...]:
        """`function(*args)` on `target` at the pinned block; ProtocolError names both on failure.
        Strings in the result are capped and stripped of control characters (rpc.safe_text)."""
        if not isinstance(target, str) or not _ADDRESS.fullmatch(target):
            raise ProtocolError(f"{label or 'a contract'}: {function.name} has no valid target address.")
        target = target.lower()
        calldata = function.calldata(*args)
        key = (self.chain_id, target, calldata, function.outputs)
        if function.immutable and (cached := self._cache.get(key)) is not None:
            return cast(tuple[Any, ...], cached)
        if key not in self._calls:
            future: asyncio.Future[tuple[Any, ...]] = asyncio.get_running_loop().create_future()
            self._calls[key] = shared_future(
                self._read(_Call(target, function, calldata, label or f"contract {target}", future))
            )
        result = await asyncio.shield(self._calls[key])
        if function.immutable:
            self._cache.put(key, result)
        return result

    async def _read(self, call: _Call) -> tuple[Any, ...]:
        """A call's answer from the lenses' tapes once those that may hold it are back, else
        from the next round."""
        for lens in self._covering.get(call.target, ()):
            await asyncio.shield(lens)
        recorded = self._recorded.get((call.target, digest(call.calldata))) if self._recorded else None
        if recorded is None:
            return cast(tuple[Any, ...], await self._enqueue(call))
        success, answer = recorded
        self.endpoint.metrics.rpc_lens_reads.labels(self.endpoint.label).inc()
        self._settle(call, await self.block_number(), answer if success else None, None if success else answer)
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
        lenses = shared_future(self._run_lenses(runnable))
        for target in targets:
            self._covering.setdefault(target.lower(), []).append(lenses)

    async def _run_lenses(self, initcodes: Sequence[bytes]) -> None:
        try:
            block = hex(await self.block_number())
        except Exception:
            return
        if self.past:
            shared_future(self.block_timestamp())  # in this round: figures at a given block need it
        answers, deployless = await asyncio.gather(
            asyncio.gather(
                *(self._ride_along("eth_call", [{"data": "0x" + code.hex()}, block]) for code in initcodes),
                return_exceptions=True,
            ),
            self._deployless(block),
        )
        if not deployless:
            return
        for answer in answers:
            try:
                if isinstance(answer, BaseException | RpcError):
                    raise TapeError(answer.message if isinstance(answer, RpcError) else type(answer).__name__)
                found, cut = records(_hex_bytes(answer, "eth_call", self.chain_id))
            except (TapeError, NetworkError) as exc:
                log.info("a lens failed on chain %d (%s); its reads go in rounds", self.chain_id, clean(exc, 80))
                continue
            if cut:
                log.info("a lens tape on chain %d reached its size limit; the rest goes in rounds", self.chain_id)
            self._recorded.update(found)

    async def _deployless(self, block: str) -> bool:
        """Whether the endpoint runs calls without `to`: known, or probed (PROBE) in the round of
        the request's first lenses and then remembered; a node's failure of the probe leaves it
        open, to be asked again."""
        endpoint = self.endpoint
        if endpoint.deployless is not None:
            return endpoint.deployless

        async def probe() -> bool:
            answer = await self._ride_along("eth_call", [{"data": "0x" + PROBE.hex()}, block])
            endpoint.deployless = answer == PROBE_ANSWER
            if not endpoint.deployless:
                log.info("chain %d endpoint does not run calls without `to`; reads go in rounds", self.chain_id)
            return endpoint.deployless

        try:
            return await self.shared(("deployless",), probe)
        except NetworkError:
            return False

    async def _ride_along(self, method: str, params: list[Any]) -> Any:
        """Another JSON-RPC request, sent with the next round's calls."""
        return await self._enqueue(_Raw(method, params, asyncio.get_running_loop().create_future()))

    async def _enqueue(self, item: _Call | _Raw) -> Any:
        self._queue(item)
        return await item.future

    def _queue(self, item: _Call | _Raw) -> None:
        self._pending.append(item)
        self._idle_ticks = 0
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._maybe_flush)

    def _maybe_flush(self) -> None:
        """Send the queue once IDLE_TICKS loop iterations pass in which no caller added to it, and no
        earlier round is still in flight: calls queued meanwhile, by any input, wait for it and
        then travel together, so inputs move in lockstep and rounds are shared."""
        loop = asyncio.get_running_loop()
        self._idle_ticks += 1
        if self._idle_ticks < IDLE_TICKS:
            loop.call_soon(self._maybe_flush)
            return
        if self._sending:
            self._flush_scheduled = False
            return
        self._flush_scheduled = False
        batch, self._pending = self._pending, []
        task = loop.create_task(self._send(batch))
        self._sending.add(task)
        task.add_done_callback(self._round_done)

    def _round_done(self, task: asyncio.Task[None]) -> None:
        self._sending.discard(task)
        if self._pending and not self._flush_scheduled:
            self._flush_scheduled = True
            self._idle_ticks = 0
            asyncio.get_running_loop().call_soon(self._maybe_flush)

    async def _send(self, batch: list[_Call | _Raw]) -> None:
        """One round: every queued call (as aggregate3 chunks, or plain eth_calls) and every
        ride-along request in one JSON-RPC batch; each caller gets its own result or error."""
        try:
            block = await self.block_number()
            calls = [item for item in batch if isinstance(item, _Call)]
            raws = [item for item in batch if isinstance(item, _Raw)]
            grouped = [call for call in calls if not call.alone] if self._multicall else []
            plain = [call for call in calls if call.alone] if self._multicall else calls
            chunks = _chunks(grouped, self._config.max_calls)
            requests = (
                [self._aggregate3(chunk, block) for chunk in chunks]
                + [self._eth_call(call, block) for call in plain]
                + [(raw.method, raw.params) for raw in raws]
            )
            self._request.stats.subcalls += len(calls)
            self.endpoint.metrics.rpc_subcalls.labels(self.endpoint.label).inc(len(calls))
            answers = await self._exchange.rpc(requests, None if self._multicall else PLAIN_BATCH_SIZE)
            await asyncio.gather(*(self._settle_chunk(chunk, answer, block) for chunk, answer in zip(chunks, answers)))
            for call, answer in zip(plain, answers[len(chunks) :]):
                self._settle_plain(call, answer, block)
            for raw, answer in zip(raws, answers[len(chunks) + len(plain) :]):
                _resolve(raw.future, answer)
        except GeneratorExit:
            raise
        except BaseException as exc:
            error = exc if isinstance(exc, Exception) else asyncio.CancelledError()
            for item in batch:
                _resolve(item.future, error=error)
            if not isinstance(exc, Exception):
                raise

    async def _settle_chunk(self, chunk: list[_Call], answer: Any, block: int) -> None:
        """Give each call of a chunk its result. A whole aggregate3 that the EVM failed (one
        sub-call running it out of gas or memory, say) is split in halves and sent again, down
        to plain eth_calls, so that only the culprit fails. A sub-call that failed with empty
        revert data may have been starved of gas by an earlier one: it is queued to run alone."""
        try:
            if isinstance(answer, RpcError):
                raise AbiError(answer.message)
            (results,) = AGGREGATE3.decode(_hex_bytes(answer, "aggregate3", self.chain_id))
            if len(results) != len(chunk):
                raise AbiError("result count differs from call count")
        except AbiError as exc:
            log.info(
                "aggregate3 of %d calls failed on chain %d (%s); splitting it",
                len(chunk),
                self.chain_id,
                clean(exc, 80),
            )
            await self._resend(chunk, block)
            return
        for call, (success, data) in zip(chunk, results):
            if not success and _empty_revert(data):
                self._queue(replace(call, alone=True))
            else:
                self._settle(call, block, data if success else None, None if success else data)

    async def _resend(self, chunk: list[_Call], block: int) -> None:
        if len(chunk) == 1:
            (call,) = chunk
            (answer,) = await self._exchange.rpc([self._eth_call(call, block)])
            self._settle_plain(call, answer, block)
            return
        halves = [chunk[: len(chunk) // 2], chunk[len(chunk) // 2 :]]
        answers = await self._exchange.rpc([self._aggregate3(half, block) for half in halves])
        await asyncio.gather(*(self._settle_chunk(half, answer, block) for half, answer in zip(halves, answers)))

    def _settle_plain(self, call: _Call, answer: Any, block: int) -> None:
        if isinstance(answer, RpcError):
            self._settle(call, block, None, answer.data, answer.message)
            return
        try:
            self._settle(call, block, _hex_bytes(answer, call.function.name, self.chain_id), None)
        except NetworkError as exc:
            _resolve(call.future, error=exc)

    @staticmethod
    def _eth_call(call: _Call, block: int) -> tuple[str, list[Any]]:
        return ("eth_call", [{"to": call.target, "data": "0x" + call.calldata.hex()}, hex(block)])

    @staticmethod
    def _aggregate3(chunk: list[_Call], block: int) -> tuple[str, list[Any]]:
        return (
            "eth_call",
            [
                {
                    "to": MULTICALL3,
                    "data": "0x" + AGGREGATE3.calldata([(call.target, True, call.calldata) for call in chunk]).hex(),
                },
                hex(block),
            ],
        )

    def _settle(self, call: _Call, block: int, data: bytes | None, revert: Any, message: str = "") -> None:
        where = f"{call.label}: {call.function.name} on chain {self.chain_id} at block {block}"
        if data is None:
            reason = _revert_reason(revert) if revert else clean(message) or "no reason given"
            _resolve(call.future, error=ProtocolError(f"{where} reverted ({reason})."))
        elif not data and call.function.outputs:
            _resolve(
                call.future, error=ProtocolError(f"{where} returned no data (no contract code at {call.target}?).")
            )
        else:
            try:
                _resolve(call.future, _safe(call.function.decode(data)))
            except AbiError as exc:
                _resolve(call.future, error=UndecodableReturn(f"{where} returned undecodable data ({exc})."))

    # ---------------------------------------------------------------- eth_getLogs

    async def get_logs(
        self, address: str | Sequence[str], topics: Sequence[Any], from_block: int, to_block: int | None = None
    ) -> list[Log]:
        """Logs in [from_block, to_block] (default: the pinned block), in chain order.

        The span is cut into the endpoint's block range, all pieces riding in the next round's
        JSON-RPC batch (with any calls and other scans queued for it). A piece
        the endpoint calls too large is halved, down to MIN_LOGS_BLOCK_RANGE, and the endpoint
        keeps the smaller range; a call that needed no narrowing lets it grow back, doubling up to
        the configured range.
        """
        last = await self.block_number() if to_block is None else to_block
        addresses = [address.lower()] if isinstance(address, str) else [a.lower() for a in address]
        endpoint = self.endpoint
        step = endpoint.logs_block_range
        if (last - from_block) // step >= MAX_LOG_QUERIES:
            raise ProtocolError(
                f"eth_getLogs on chain {self.chain_id}: blocks {from_block}-{last} need "
                f"more than {MAX_LOG_QUERIES} queries of {step} blocks."
            )
        ranges = [(start, min(start + step - 1, last)) for start in range(from_block, last + 1, step)]
        logs: list[Log] = []
        narrowed = False
        for _ in range(MAX_NARROWING_ROUNDS):
            if not ranges:
                if not narrowed:
                    endpoint.logs_block_range = min(step * 2, self._config.logs_block_range)
                return sorted(logs, key=lambda entry: (entry.block_number, entry.log_index))
            answers = await asyncio.gather(
                *(
                    self._ride_along(
                        "eth_getLogs",
                        [
                            {
                                "address": addresses,
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
                            f"The RPC endpoint for chain {self.chain_id} refused eth_getLogs "
                            f"for blocks {low}-{high}: {clean(answer.message)}"
                        )
                    middle = (low + high) // 2
                    retry += [(low, middle), (middle + 1, high)]
                    narrowed = True
                    endpoint.logs_block_range = max(MIN_LOGS_BLOCK_RANGE, min(endpoint.logs_block_range, span // 2))
                    continue
                logs.extend(self._log(entry) for entry in answer)
            ranges = retry
        raise NetworkError(
            f"The RPC endpoint for chain {self.chain_id} refused every eth_getLogs "
            "block range, down to the smallest tried."
        )

    @property
    def deadline(self) -> float:
        return self._request.deadline

    def cancel_rounds(self) -> None:
        """Stop the rounds in flight (their callers are gone: a cancelled background scan)."""
        for task in self._sending:
            task.cancel()

    async def raw_call(self, target: str, data: bytes) -> bytes:
        """One eth_call of ready-made calldata at the pinned block, with the next round (for bulk
        reads that encode and decode by hand: adapters/sweep.py). A revert is a ProtocolError."""
        block = await self.block_number()
        answer = await self._ride_along("eth_call", [{"to": target, "data": "0x" + data.hex()}, hex(block)])
        if isinstance(answer, RpcError):
            raise ProtocolError(
                f"a bulk read of {target} on chain {self.chain_id} at block {block} failed: {clean(answer.message)}"
            )
        return _hex_bytes(answer, "eth_call", self.chain_id)

    async def block_hash(self, number: int) -> str:
        header = await self._ride_along("eth_getBlockByNumber", [hex(number), False])
        found = header.get("hash") if isinstance(header, dict) else None
        if not isinstance(found, str):
            raise NetworkError(f"The RPC endpoint for chain {self.chain_id} has no header for block {number}.")
        return found.lower()

    def _log(self, entry: Any) -> Log:
        try:
            return Log(
                address=entry["address"].lower(),
                topics=tuple(topic.lower() for topic in entry["topics"]),
                data=_hex_bytes(entry["data"], "eth_getLogs", self.chain_id),
                block_number=hex_int(entry["blockNumber"], "eth_getLogs", self.chain_id),
                log_index=hex_int(entry["logIndex"], "eth_getLogs", self.chain_id),
            )
        except (KeyError, TypeError, AttributeError):
            raise NetworkError(
                f"The RPC endpoint for chain {self.chain_id} answered eth_getLogs with a malformed log."
            ) from None
