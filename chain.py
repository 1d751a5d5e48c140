"""Chain access: JSON-RPC over one shared aiohttp session, block pinning and batched reads.

Every adapter reads the chain through a `ChainReader`, one per chain per GraphQL request:

- The first read pins the block: one JSON-RPC batch carries `eth_blockNumber` (plus, on an
  endpoint's first use, `eth_chainId` to refuse a URL that serves another chain, and
  `eth_getCode` of Multicall3 to learn whether batching through it is possible). Every `eth_call`
  after that names this block, and every input of the request on that chain shares it.
- Calls issued concurrently are coalesced (the DataLoader pattern), and identical calls asked
  once: they queue until IDLE_TICKS loop iterations pass with no new call and the previous round
  is back, then leave together as Multicall3 `aggregate3` calls with `allowFailure` (chunked to
  `max_calls` sub-calls, up to MAX_BATCH_ITEMS per JSON-RPC batch), so one failing sub-call
  fails only itself. Without Multicall3 they go as small JSON-RPC batches.
  The HTTP requests of a GraphQL request thus number its dependent read rounds, not its calls.
- Transient failures (connection errors, HTTP 429 and 5xx) are retried with jittered backoff,
  never past the input's deadline. Failures become the errors of errors.py; no message and no
  log line ever contains an RPC URL, which often embeds a provider secret.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Mapping, Sequence

import aiohttp

from abi import AbiError, Function, decode
from errors import InputValidationError, NetworkError, ProtocolError

log = logging.getLogger("wallet_positions.chain")

MULTICALL3 = "0xca11bde05977b3631167028862be2a173976ca11"
AGGREGATE3 = Function("aggregate3((address,bool,bytes)[])", "82ad56cb", ("(bool,bytes)[]",))
ERROR_STRING_SELECTOR = "08c379a0"
"""Error(string), the revert payload of `require(cond, "reason")`."""

DEFAULT_RPC_URLS: Mapping[int, str] = {
    1: "https://ethereum-rpc.publicnode.com",
    8453: "https://mainnet.base.org",
    42161: "https://arb1.arbitrum.io/rpc",
    10: "https://mainnet.optimism.io",
    137: "https://polygon-rpc.com",
    43114: "https://api.avax.network/ext/bc/C/rpc",
    534352: "https://rpc.scroll.io",
    5000: "https://rpc.mantle.xyz",
    59144: "https://rpc.linea.build",
    130: "https://mainnet.unichain.org",
    2020: "https://api.roninchain.com/rpc",
}
"""Public endpoints for the chains adapters support; `RPC_URL_<chainId>` overrides each."""

IDLE_TICKS = 8
"""Loop iterations without a new call before a round leaves: callers resumed by the previous
round reach their next call through a few awaits (gather, shield, tasks); waiting a handful of
iterations, microseconds, lets all of them join the round instead of trailing into the next."""

PLAIN_BATCH_SIZE = 20
MAX_BATCH_ITEMS = 50
"""JSON-RPC requests per HTTP request: a round larger than this (a cold history scan, thousands
of aggregate3 chunks) is split so that no single answer grows without bound."""
SCAN_BUDGET = 300.0
"""Seconds a history scan may take. It runs apart from the request that started it, keeps its
progress after every window, and later requests pick up where it stands."""
SCAN_WINDOW = 50
"""eth_getLogs queries per step of a history scan."""
"""eth_calls per JSON-RPC batch when a chain has no Multicall3: small, as public nodes cap it."""

_RANGE_TOO_LARGE = re.compile(r"range|more than|exceed|too large|too wide|response size", re.I)
_RATE_LIMITED = re.compile(r"rate.?limit|too many requests|request rate|rate exceeded|\b429\b|capacity exceeded", re.I)
MAX_NARROWING_ROUNDS = 16
MIN_LOGS_BLOCK_RANGE = 16
"""Narrowing stops here: an endpoint that refuses 16 blocks is failing, not paginating."""
MAX_LOG_QUERIES = 5_000
"""eth_getLogs queries one call may make; a span needing more is refused, not attempted."""
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.I)
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")


class UndecodableReturn(ProtocolError):
    """A call succeeded but its return data does not decode as the function's outputs."""


def shared_future(awaitable: Awaitable[Any]) -> asyncio.Future[Any]:
    """A task several callers await (each through asyncio.shield). Its outcome counts as
    retrieved even if every caller stopped waiting, so no "exception was never retrieved"."""
    future = asyncio.ensure_future(awaitable)
    future.add_done_callback(_retrieve)
    return future


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def rpc_urls_from_env(environ: Mapping[str, str]) -> dict[int, str]:
    """The defaults, overridden and extended by every `RPC_URL_<chainId>` variable."""
    urls = dict(DEFAULT_RPC_URLS)
    for name, value in environ.items():
        match = re.fullmatch(r"RPC_URL_(\d+)", name)
        if match and value.strip():
            urls[int(match.group(1))] = value.strip()
    return urls


@dataclass(frozen=True)
class ChainConfig:
    max_calls: int = 200
    """Sub-calls per aggregate3 call; all chunks of one round still travel in one HTTP request."""
    logs_block_range: int = 10_000
    """Blocks per eth_getLogs query; halved for an endpoint each time it says the range is too large."""
    cache_size: int = 10_000
    """Immutable facts (symbol, decimals, market parameters) kept across requests."""
    max_attempts: int = 3
    """HTTP attempts for a transient failure, all inside the input's time budget."""


@dataclass
class RpcStats:
    """Per GraphQL request, for the access log and the benchmark."""

    requests: int = 0
    subcalls: int = 0


@dataclass(frozen=True)
class RpcError:
    """A JSON-RPC error object answered for one call of a batch."""

    code: int
    message: str
    data: Any = None


@dataclass(frozen=True)
class Log:
    address: str
    topics: tuple[str, ...]
    data: bytes
    block_number: int
    log_index: int


class ImmutableCache:
    """A bounded LRU for answers that never change; shared by all requests."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[tuple[Any, ...], tuple[Any, ...]] = OrderedDict()

    def get(self, key: tuple[Any, ...]) -> tuple[Any, ...] | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: tuple[Any, ...], value: tuple[Any, ...]) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


def _clean(message: Any, limit: int = 200) -> str:
    """A node's error text made safe to show: no URLs, bounded length."""
    return _URL.sub("<url>", str(message))[:limit]


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
            return f"reason {_clean(decode(['string'], raw[4:])[0])!r}"
        except AbiError:
            pass
    return f"revert data 0x{raw[:36].hex()}"


def _range_too_large(error: RpcError) -> bool:
    """Whether an eth_getLogs error asks for a smaller block range."""
    return error.code == -32005 or bool(_RANGE_TOO_LARGE.search(error.message))


def _hex_int(value: Any, what: str) -> int:
    if not isinstance(value, str) or not re.fullmatch(r"0x[0-9a-fA-F]{1,64}", value):
        raise ProtocolError(f"The chain answered {what} with something that is not a hex number.")
    return int(value, 16)


def _hex_bytes(value: Any, what: str) -> bytes:
    if not isinstance(value, str) or not re.fullmatch(r"0x(?:[0-9a-fA-F]{2})*", value):
        raise ProtocolError(f"The chain answered {what} with something that is not hex data.")
    return bytes.fromhex(value[2:])


class Endpoint:
    """One chain's JSON-RPC endpoint and what has been learned about it, shared by all requests."""

    def __init__(self, chain_id: int, url: str, chains: Chains) -> None:
        self.chain_id = chain_id
        self._url = url
        self._chains = chains
        self.chain_checked = False
        self.has_multicall: bool | None = None
        self.batches_supported = True
        self.logs_block_range = chains.config.logs_block_range

    def __repr__(self) -> str:
        return f"Endpoint(chain_id={self.chain_id})"

    async def post(self, payload: Any, stats: RpcStats, deadline: float) -> Any:
        """One JSON-RPC HTTP exchange, retried on transient failures while the budget allows."""
        loop = asyncio.get_running_loop()
        attempts = self._chains.config.max_attempts
        for attempt in range(1, attempts + 1):
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError
            stats.requests += 1
            try:
                return await self._exchange(payload, remaining)
            except _Transient as exc:
                failure = exc.message
            log.warning("rpc failure on chain %d (attempt %d of %d): %s",
                        self.chain_id, attempt, attempts, failure)
            delay = min(0.1 * 2 ** attempt, 2.0) * random.uniform(0.5, 1.5)
            if attempt == attempts or loop.time() + delay >= deadline:
                break
            await asyncio.sleep(delay)
        raise NetworkError(f"The RPC endpoint for chain {self.chain_id} {failure}.")

    async def _exchange(self, payload: Any, timeout: float) -> Any:
        try:
            async with self._chains.session.post(
                self._url, json=payload, timeout=aiohttp.ClientTimeout(total=timeout)
            ) as response:
                if response.status == 429:
                    raise _Transient("rate-limited the service (HTTP 429)")
                if response.status >= 500:
                    raise _Transient(f"failed (HTTP {response.status})")
                if response.status != 200:
                    raise NetworkError(f"The RPC endpoint for chain {self.chain_id} refused the "
                                       f"request (HTTP {response.status}).")
                body = bytearray()
                async for chunk in response.content.iter_chunked(1 << 16):
                    body += chunk
                    if len(body) > MAX_RESPONSE_BYTES:
                        raise NetworkError(f"The RPC endpoint for chain {self.chain_id} answered with "
                                           f"more than {MAX_RESPONSE_BYTES} bytes.")
        except asyncio.TimeoutError:
            raise TimeoutError from None
        except aiohttp.ClientError as exc:
            raise _Transient(f"could not be reached ({type(exc).__name__})") from None
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            raise NetworkError(f"The RPC endpoint for chain {self.chain_id} answered with "
                               "something that is not JSON.") from None


class _Transient(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Chains:
    """App-wide chain access: the HTTP session, one Endpoint per chain, the immutable cache."""

    def __init__(self, urls: Mapping[int, str], config: ChainConfig = ChainConfig()) -> None:
        self.config = config
        self.cache = ImmutableCache(config.cache_size)
        self._urls = dict(urls)
        self._endpoints: dict[int, Endpoint] = {}
        self._session: aiohttp.ClientSession | None = None
        self.log_indexes: dict[tuple[Any, ...], _LogIndex] = {}

    def log_index(self, key: tuple[Any, ...], start_block: int) -> _LogIndex:
        if key not in self.log_indexes:
            self.log_indexes[key] = _LogIndex(start_block)
        return self.log_indexes[key]

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            raise RuntimeError("Chains.open() was not awaited")
        return self._session

    async def open(self) -> None:
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=64, ttl_dns_cache=300),
            headers={"Content-Type": "application/json"},
        )

    async def close(self) -> None:
        for index in self.log_indexes.values():
            index.cancel()
        if self._session is not None:
            await self._session.close()
            self._session = None

    def endpoint(self, chain_id: int) -> Endpoint:
        if chain_id not in self._endpoints:
            if chain_id not in self._urls:
                raise InputValidationError(
                    f"Chain {chain_id} has no RPC endpoint configured on this server.")
            self._endpoints[chain_id] = Endpoint(chain_id, self._urls[chain_id], self)
        return self._endpoints[chain_id]

    def request(self, deadline: float) -> ChainRequest:
        return ChainRequest(self, deadline)


CONFIRMATIONS = 64
"""Logs older than this many blocks are kept for good; newer ones are re-read every time, so a
reorganisation near the head can neither leave a stale log behind nor hide a new one."""


class _LogIndex:
    """Settled logs of some contracts and one event, from a start block; extended by one
    background scan at a time, which keeps its progress after every window."""

    def __init__(self, start_block: int) -> None:
        self.start_block = start_block
        self.final: list[Log] = []
        self.final_to = start_block - 1
        self._scan: asyncio.Task[None] | None = None

    def cancel(self) -> None:
        if self._scan is not None:
            self._scan.cancel()

    async def settle(self, chains: Chains, chain_id: int, addresses: list[str], topic: str, target: int) -> None:
        """Make the index reach `target`; the scan outlives a caller that stops waiting."""
        while self.final_to < target:
            if self._scan is None or self._scan.done():
                self._scan = shared_future(self._extend(chains, chain_id, addresses, topic, target))
            await asyncio.shield(self._scan)

    async def _extend(self, chains: Chains, chain_id: int, addresses: list[str], topic: str, target: int) -> None:
        loop = asyncio.get_running_loop()
        request = chains.request(loop.time() + SCAN_BUDGET)
        reader = request.reader(chain_id)
        started, first = loop.time(), self.final_to + 1
        while self.final_to < target:
            low = self.final_to + 1
            high = min(target, low + reader.endpoint.logs_block_range * SCAN_WINDOW - 1)
            self.final.extend(await reader.get_logs(addresses, [topic], low, high))
            self.final_to = high
        if first == self.start_block:
            log.info("cold start on chain %d: blocks %d-%d of %d contracts scanned for %s in %.2f s, "
                     "%d logs, %d RPC requests", chain_id, first, target, len(addresses), topic[:10],
                     loop.time() - started, len(self.final), request.stats.requests)


@dataclass
class ChainRequest:
    """The chain reads of one GraphQL request: one reader per chain, shared RPC counters."""

    chains: Chains
    deadline: float
    stats: RpcStats = field(default_factory=RpcStats)
    _readers: dict[int, ChainReader] = field(default_factory=dict)

    def reader(self, chain_id: int) -> ChainReader:
        if chain_id not in self._readers:
            self._readers[chain_id] = ChainReader(self.chains.endpoint(chain_id), self)
        return self._readers[chain_id]


@dataclass
class _Call:
    """An eth_call waiting for the next round."""

    target: str
    function: Function
    calldata: bytes
    label: str
    future: asyncio.Future[tuple[Any, ...]]


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

    def __init__(self, endpoint: Endpoint, request: ChainRequest) -> None:
        self.endpoint = endpoint
        self.chain_id = endpoint.chain_id
        self._request = request
        self._config = request.chains.config
        self._cache = request.chains.cache
        self._block: asyncio.Future[int] | None = None
        self._timestamp: asyncio.Future[int] | None = None
        self._indexed: dict[tuple[Any, ...], asyncio.Future[list[Log]]] = {}
        self._shared: dict[Any, asyncio.Future[Any]] = {}
        self._calls: dict[tuple[Any, ...], asyncio.Future[tuple[Any, ...]]] = {}
        """Every call of the request, by target, calldata and outputs: asked once, however many
        inputs and positions ask (all read the same pinned block, so the answer is the same)."""
        self._pending: list[_Call | _Raw] = []
        self._flush_scheduled = False
        self._idle_ticks = 0
        self._sending: set[asyncio.Task[None]] = set()

    async def shared(self, key: Any, read: Callable[[], Awaitable[Any]]) -> Any:
        """`read()` once per request and key, however many inputs and positions ask for it."""
        if key not in self._shared:
            self._shared[key] = shared_future(read())
        return await asyncio.shield(self._shared[key])

    # ---------------------------------------------------------------- block pinning

    async def block_number(self) -> int:
        """The block every read of this request on this chain is made at (fetched once)."""
        if self._block is None:
            self._block = shared_future(self._pin())
        return await asyncio.shield(self._block)

    async def block_timestamp(self) -> int:
        """Timestamp of the pinned block; read in the next round, with the calls queued for it."""
        if self._timestamp is None:
            self._timestamp = shared_future(self._read_timestamp())
        return await asyncio.shield(self._timestamp)

    async def _read_timestamp(self) -> int:
        block = await self.block_number()
        header = await self._enqueue(_Raw("eth_getBlockByNumber", [hex(block), False],
                                          asyncio.get_running_loop().create_future()))
        if isinstance(header, RpcError) or not isinstance(header, dict):
            raise ProtocolError(f"The chain {self.chain_id} endpoint did not return block {block}.")
        return _hex_int(header.get("timestamp"), "eth_getBlockByNumber")

    async def _pin(self) -> int:
        endpoint = self.endpoint
        calls: list[tuple[str, list[Any]]] = [("eth_blockNumber", [])]
        if not endpoint.chain_checked:
            calls.append(("eth_chainId", []))
        if endpoint.has_multicall is None:
            calls.append(("eth_getCode", [MULTICALL3, "latest"]))
        answers = dict(zip((method for method, _ in calls), await self._rpc(calls)))
        for method, answer in answers.items():
            if isinstance(answer, RpcError):
                raise ProtocolError(f"The chain {self.chain_id} endpoint answered {method} with "
                                    f"error {answer.code}: {_clean(answer.message)}")
        if "eth_chainId" in answers:
            served = _hex_int(answers["eth_chainId"], "eth_chainId")
            if served != self.chain_id:
                log.error("RPC_URL_%d serves chain %d; refusing to use it", self.chain_id, served)
                raise NetworkError(f"The RPC endpoint configured for chain {self.chain_id} serves "
                                   f"chain {served}; it is not used.")
            endpoint.chain_checked = True
        if "eth_getCode" in answers:
            endpoint.has_multicall = len(_hex_bytes(answers["eth_getCode"], "eth_getCode")) > 0
            if not endpoint.has_multicall:
                log.info("chain %d has no Multicall3; reads go as plain JSON-RPC batches",
                         self.chain_id)
        return _hex_int(answers["eth_blockNumber"], "eth_blockNumber")

    # ---------------------------------------------------------------- eth_call

    async def call(self, target: str, function: Function, *args: Any, label: str | None = None) -> tuple[Any, ...]:
        """`function(*args)` on `target` at the pinned block; ProtocolError names both on failure."""
        if not isinstance(target, str) or not _ADDRESS.fullmatch(target):
            raise ProtocolError(f"{label or 'a contract'}: {function.name} has no valid target address.")
        target = target.lower()
        calldata = function.calldata(*args)
        key = (self.chain_id, target, calldata, function.outputs)
        if function.immutable and (cached := self._cache.get(key)) is not None:
            return cached
        if key not in self._calls:
            future: asyncio.Future[tuple[Any, ...]] = asyncio.get_running_loop().create_future()
            self._calls[key] = shared_future(
                self._enqueue(_Call(target, function, calldata, label or f"contract {target}", future)))
        result = await asyncio.shield(self._calls[key])
        if function.immutable:
            self._cache.put(key, result)
        return result

    async def _enqueue(self, item: _Call | _Raw) -> Any:
        self._pending.append(item)
        self._idle_ticks = 0
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._maybe_flush)
        return await item.future

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
            if self.endpoint.has_multicall:
                size = self._config.max_calls
                chunks = [calls[i:i + size] for i in range(0, len(calls), size)]
                requests = [self._aggregate3(chunk, block) for chunk in chunks]
            else:
                chunks = [[call] for call in calls]
                requests = [("eth_call", [{"to": call.target, "data": "0x" + call.calldata.hex()}, hex(block)])
                            for call in calls]
            requests += [(raw.method, raw.params) for raw in raws]
            self._request.stats.subcalls += len(calls)
            answers = await self._rpc(requests, None if self.endpoint.has_multicall else PLAIN_BATCH_SIZE)
            await asyncio.gather(*(self._settle_chunk(chunk, answer, block) for chunk, answer in zip(chunks, answers)))
            for raw, answer in zip(raws, answers[len(chunks):]):
                _resolve(raw.future, answer)
        except BaseException as exc:
            error = exc if isinstance(exc, Exception) else asyncio.CancelledError()
            for item in batch:
                _resolve(item.future, error=error)
            if not isinstance(exc, Exception):
                raise

    async def _settle_chunk(self, chunk: list[_Call], answer: Any, block: int) -> None:
        """Give each call of a chunk its result. A whole aggregate3 that fails (one sub-call
        running it out of gas or memory, say) is split in halves and sent again, down to plain
        eth_calls, so that only the culprit fails."""
        if not self.endpoint.has_multicall:
            self._settle_plain(chunk[0], answer, block)
            return
        try:
            if isinstance(answer, RpcError):
                raise AbiError(answer.message)
            (results,) = AGGREGATE3.decode(_hex_bytes(answer, "aggregate3"))
            if len(results) != len(chunk):
                raise AbiError("result count differs from call count")
        except (AbiError, ProtocolError) as exc:
            log.info("aggregate3 of %d calls failed on chain %d (%s); splitting it", len(chunk),
                     self.chain_id, _clean(exc, 80))
            await self._resend(chunk, block)
            return
        for call, (success, data) in zip(chunk, results):
            self._settle(call, block, data if success else None, None if success else data)

    async def _resend(self, chunk: list[_Call], block: int) -> None:
        if len(chunk) == 1:
            (call,) = chunk
            (answer,) = await self._rpc([("eth_call", [{"to": call.target, "data": "0x" + call.calldata.hex()},
                                                       hex(block)])])
            self._settle_plain(call, answer, block)
            return
        halves = [chunk[:len(chunk) // 2], chunk[len(chunk) // 2:]]
        answers = await self._rpc([self._aggregate3(half, block) for half in halves])
        await asyncio.gather(*(self._settle_chunk(half, answer, block) for half, answer in zip(halves, answers)))

    def _settle_plain(self, call: _Call, answer: Any, block: int) -> None:
        if isinstance(answer, RpcError):
            self._settle(call, block, None, answer.data, answer.message)
            return
        try:
            self._settle(call, block, _hex_bytes(answer, call.function.name), None)
        except ProtocolError as exc:
            _resolve(call.future, error=exc)

    @staticmethod
    def _aggregate3(chunk: list[_Call], block: int) -> tuple[str, list[Any]]:
        return ("eth_call", [{"to": MULTICALL3, "data": "0x" + AGGREGATE3.calldata(
            [(call.target, True, call.calldata) for call in chunk]).hex()}, hex(block)])

    def _settle(self, call: _Call, block: int, data: bytes | None, revert: Any, message: str = "") -> None:
        where = f"{call.label}: {call.function.name} on chain {self.chain_id} at block {block}"
        if data is None:
            reason = _revert_reason(revert) if revert else _clean(message) or "no reason given"
            _resolve(call.future, error=ProtocolError(f"{where} reverted ({reason})."))
        elif not data and call.function.outputs:
            _resolve(call.future, error=ProtocolError(
                f"{where} returned no data (no contract code at {call.target}?)."))
        else:
            try:
                _resolve(call.future, call.function.decode(data))
            except AbiError as exc:
                _resolve(call.future, error=UndecodableReturn(f"{where} returned undecodable data ({exc})."))

    # ---------------------------------------------------------------- eth_getLogs

    async def get_logs(self, address: str | Sequence[str], topics: Sequence[Any],
                       from_block: int, to_block: int | None = None) -> list[Log]:
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
            raise ProtocolError(f"eth_getLogs on chain {self.chain_id}: blocks {from_block}-{last} need "
                                f"more than {MAX_LOG_QUERIES} queries of {step} blocks.")
        ranges = [(start, min(start + step - 1, last)) for start in range(from_block, last + 1, step)]
        logs: list[Log] = []
        narrowed = False
        for _ in range(MAX_NARROWING_ROUNDS):
            if not ranges:
                if not narrowed:
                    endpoint.logs_block_range = min(step * 2, self._config.logs_block_range)
                return sorted(logs, key=lambda entry: (entry.block_number, entry.log_index))
            loop = asyncio.get_running_loop()
            answers = await asyncio.gather(*(self._enqueue(_Raw("eth_getLogs", [{
                "address": addresses, "topics": list(topics), "fromBlock": hex(low), "toBlock": hex(high),
            }], loop.create_future())) for low, high in ranges))
            retry = []
            for (low, high), answer in zip(ranges, answers):
                if isinstance(answer, RpcError):
                    span = high - low + 1
                    if span > MIN_LOGS_BLOCK_RANGE and _range_too_large(answer) \
                            and len(ranges) + len(retry) < MAX_LOG_QUERIES:
                        middle = (low + high) // 2
                        retry += [(low, middle), (middle + 1, high)]
                        narrowed = True
                        endpoint.logs_block_range = max(MIN_LOGS_BLOCK_RANGE,
                                                        min(endpoint.logs_block_range, span // 2))
                        continue
                    raise ProtocolError(f"eth_getLogs on chain {self.chain_id} failed for blocks "
                                        f"{low}-{high}: {_clean(answer.message)}")
                if not isinstance(answer, list):
                    raise ProtocolError(f"eth_getLogs on chain {self.chain_id} returned no list of logs.")
                logs.extend(self._log(entry) for entry in answer)
            ranges = retry
        raise ProtocolError(f"eth_getLogs on chain {self.chain_id}: the endpoint refused every "
                            "block range, down to the smallest tried.")

    async def indexed_logs(self, addresses: Sequence[str], topic: str, start_block: int) -> list[Log]:
        """Every `topic` log of `addresses` from `start_block` up to the pinned block.

        The app keeps the settled ones (older than CONFIRMATIONS blocks) between requests: the
        first request starts the history scan (the cold start, logged with its cost; it runs on
        in the background with SCAN_BUDGET if the request's own budget ends first, and keeps its
        progress), later ones read only the unsettled tail, so no request rescans history.
        Within a request, every input shares one read.
        """
        addresses = sorted(address.lower() for address in addresses)
        key = (self.chain_id, tuple(addresses), topic, start_block)
        if key not in self._indexed:
            self._indexed[key] = shared_future(self._indexed_logs(key, addresses, topic, start_block))
        return await asyncio.shield(self._indexed[key])

    async def _indexed_logs(self, key: tuple[Any, ...], addresses: list[str], topic: str,
                            start_block: int) -> list[Log]:
        index = self._request.chains.log_index(key, start_block)
        block = await self.block_number()
        await index.settle(self._request.chains, self.chain_id, addresses, topic, block - CONFIRMATIONS)
        settled_to = index.final_to
        tail = await self.get_logs(addresses, [topic], settled_to + 1, block) if block > settled_to else []
        return [entry for entry in index.final if entry.block_number <= min(block, settled_to)] + tail

    def _log(self, entry: Any) -> Log:
        try:
            return Log(
                address=entry["address"].lower(),
                topics=tuple(topic.lower() for topic in entry["topics"]),
                data=_hex_bytes(entry["data"], "eth_getLogs"),
                block_number=_hex_int(entry["blockNumber"], "eth_getLogs"),
                log_index=_hex_int(entry["logIndex"], "eth_getLogs"),
            )
        except (KeyError, TypeError, AttributeError):
            raise ProtocolError(f"eth_getLogs on chain {self.chain_id} returned a malformed log.") from None

    # ---------------------------------------------------------------- JSON-RPC

    async def _rpc(self, calls: Sequence[tuple[str, list[Any]]], batch_size: int | None = None) -> list[Any]:
        """Results (or RpcError) of `calls`, in order: one HTTP request per batch of `batch_size`
        (default MAX_BATCH_ITEMS), or one per call where the endpoint refuses batches."""
        endpoint, stats, deadline = self.endpoint, self._request.stats, self._request.deadline
        if not endpoint.batches_supported or len(calls) == 1:
            return list(await asyncio.gather(*(self._single(method, params) for method, params in calls)))
        size = batch_size or MAX_BATCH_ITEMS
        indexed = list(enumerate(calls))
        groups = [indexed[i:i + size] for i in range(0, len(indexed), size)]
        answers = await asyncio.gather(*(endpoint.post(
            [{"jsonrpc": "2.0", "id": index, "method": method, "params": params}
             for index, (method, params) in group], stats, deadline) for group in groups))
        if not all(isinstance(answer, list) for answer in answers):
            log.info("chain %d endpoint refused a JSON-RPC batch; sending calls one by one", self.chain_id)
            endpoint.batches_supported = False
            return await self._rpc(calls)
        by_id = {item["id"]: item for answer in answers for item in answer
                 if isinstance(item, dict) and isinstance(item.get("id"), int)}
        if set(by_id) != set(range(len(calls))):
            raise NetworkError(f"The RPC endpoint for chain {self.chain_id} answered a batch with "
                               "missing or unknown ids.")
        return [self._result(by_id[index], method) for index, (method, _) in enumerate(calls)]

    async def _single(self, method: str, params: list[Any]) -> Any:
        answer = await self.endpoint.post({"jsonrpc": "2.0", "id": 0, "method": method, "params": params},
                                          self._request.stats, self._request.deadline)
        return self._result(answer, method)

    def _result(self, answer: Any, method: str) -> Any:
        if isinstance(answer, dict) and "result" in answer:
            return answer["result"]
        if isinstance(answer, dict) and isinstance(answer.get("error"), dict):
            error = answer["error"]
            code = error.get("code") if isinstance(error.get("code"), int) else 0
            message = str(error.get("message", ""))
            if _RATE_LIMITED.search(message):
                raise NetworkError(f"The RPC endpoint for chain {self.chain_id} rate-limited the "
                                   "service.")
            return RpcError(code, message, error.get("data"))
        raise NetworkError(f"The RPC endpoint for chain {self.chain_id} answered {method} with "
                           "something that is not JSON-RPC.")
