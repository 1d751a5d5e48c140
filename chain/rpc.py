"""JSON-RPC transport: one endpoint per chain, its HTTP hygiene, and what a failure means.

Every answer a node gives one call is sorted into exactly one of three kinds here, and nowhere
else (`classify`):

- a result of the expected shape;
- an `RpcError` that *is* the answer, for the caller to handle: a contract's failure on
  `eth_call` (an execution revert, JSON-RPC code 3, or a halt of the EVM such as out of gas or an
  invalid opcode: the node ran the code at that block and the code failed), a block range the
  node wants narrowed on `eth_getLogs`, or a block tag the node does not know;
- a `NodeFailure`: anything else the node says (unknown or null block or header, missing state,
  limits, rate limits, internal errors, null or malformed answers where data is due). Those are
  retried by the reader inside the input's budget and, if they persist, fail the input with a
  retryable NETWORK_ERROR. They are never taken for a contract's failure. Missing state is
  marked: at an earlier block it means a pruned node, which is not asked again
  (rpc_batches.Exchange, HistoryUnavailable).

No message or log line ever holds an RPC URL, which often embeds a provider secret.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from errors import NetworkError
from metrics import Metrics

log = logging.getLogger("wallet_positions.chain")

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
    146: "https://rpc.soniclabs.com",
}
"""Public endpoints for the chains adapters support, each its chain's own (Sonic's from its docs'
network details); `RPC_URL_<chainId>` overrides each. BNB Chain (56) has none: its own public
endpoints refuse eth_getLogs, which discovery needs, so an operator sets RPC_URL_56 (docs/operations.md)."""

BATCH_REPROBE_SECONDS = 300.0
"""An endpoint that refused a JSON-RPC batch gets single calls for this long, then batches again
(a load balancer may have sent that one request to a node that does not batch)."""
MAX_TEXT = 256
"""Characters kept of any text an untrusted contract or node returns (names, symbols, reasons)."""

_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.I)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_HEX = re.compile(r"0x[0-9a-fA-F]*")
_RANGE_TOO_LARGE = re.compile(r"range|more than|exceed|too large|too wide|response size", re.I)
_RATE_LIMITED = re.compile(r"rate.?limit|too many requests|request rate|rate exceeded|\b429\b|capacity exceeded", re.I)
_CONTRACT_FAILURE = re.compile(
    r"execution reverted|\brevert|EVM error|out of gas|invalid opcode|invalid jump|stack underflow|"
    r"stack limit reached|write protection|return data out of bounds|max call depth",
    re.I,
)
"""Messages of an eth_call whose code ran and failed: geth's and anvil's revert and halt errors."""
REFUSALS = (-32600, -32601, -32602)
"""Invalid request, method or params: how an endpoint refuses a request it does not run."""
_MISSING_STATE = re.compile(
    r"missing trie node|historical state|state.{0,24}(not available|unavailable|pruned)|\bpruned?\b|pruning|"
    r"archive|state histor",
    re.I,
)
"""A node without the state of the block asked: geth's (hash- and path-based), Erigon's, reth's,
Nethermind's and OpenEthereum's wording, as seen on pruned nodes and providers' non-archive tiers."""


class RpcUrlError(ValueError):
    """An `RPC_URL_<chainId>` variable is not an http(s) URL; the message names the variable only."""


_RPC_URL = re.compile(r"RPC_URL_(\d+)")


def chains_set_in(environ: Mapping[str, str]) -> set[int]:
    """The chains whose `RPC_URL_<chainId>` the operator set (an empty one counts as unset)."""
    return {
        int(match.group(1)) for name, value in environ.items() if (match := _RPC_URL.fullmatch(name)) and value.strip()
    }


def rpc_urls_from_env(environ: Mapping[str, str]) -> dict[int, str]:
    """The defaults, overridden and extended by every `RPC_URL_<chainId>` variable."""
    urls = dict(DEFAULT_RPC_URLS)
    for name, value in environ.items():
        match = _RPC_URL.fullmatch(name)
        if match and value.strip():
            parts = urlsplit(value.strip())
            if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in value.strip()):
                raise RpcUrlError(f"{name} is not an http:// or https:// URL with a host")
            urls[int(match.group(1))] = value.strip()
    return urls


def safe_text(text: str, limit: int = MAX_TEXT) -> str:
    """Untrusted text made safe to show and cache: control and bidi characters removed, length capped."""
    return _CONTROL.sub("", text[: limit * 2])[:limit]


def clean(message: Any, limit: int = 200) -> str:
    """A node's error text made safe to show: no URLs, no control characters, bounded length."""
    return safe_text(_URL.sub("<url>", str(message)[: limit * 4]), limit)


def hex_bytes(value: Any, what: str, chain_id: int) -> bytes:
    """An answer's data (`0x` and whole bytes in hex); a NetworkError if the node sent anything else."""
    if not isinstance(value, str) or not re.fullmatch(r"0x(?:[0-9a-fA-F]{2})*", value):
        raise NetworkError(
            f"The RPC endpoint for chain {chain_id} answered {what} with something that is not hex data."
        )
    return bytes.fromhex(value[2:])


@dataclass(frozen=True)
class RpcError:
    """A JSON-RPC error object that is the answer to one call (see the module docstring)."""

    code: int
    message: str
    data: Any = None


@dataclass(frozen=True)
class NodeFailure:
    """The node failed one call (not the contract): retried, then a NETWORK_ERROR."""

    message: str
    """Completes "The RPC endpoint for chain N ...", e.g. "answered eth_call with error -32000: ..."."""
    missing_state: bool = False
    """The node says it has no state at the block: a lag at the newest block, but at an old block
    a pruned node, which no retry helps (rpc_batches.Exchange with `history`)."""


RATE_LIMITED = NodeFailure("rate-limited the service")


@dataclass
class RpcStats:
    """Per GraphQL request, for the access log and the benchmark; and, where an answer's provenance
    was asked for, every read it was made of."""

    requests: int = 0
    subcalls: int = 0
    reads: list[tuple[str, list[Any], Any]] | None = None
    """(method, params, answer) of every JSON-RPC read answered, in order, when recorded."""
    taped: set[tuple[str, bytes]] | None = None
    """(target, calldata digest) of every call answered from a lens's tape, when recorded: what of
    a tape the answer used (a lens tapes every read its adapter may need)."""


def classify(answer: Any, method: str, params: list[Any]) -> Any:
    """One call's answer as a result, an RpcError the caller handles, or a NodeFailure."""
    if not isinstance(answer, dict):
        return NodeFailure(f"answered {method} with something that is not JSON-RPC")
    if method == "eth_getBalance":
        # Sent only as the probe of block hash tags (chain/head.py): whatever comes back is its
        # answer, never a failure of the batch it rides in.
        error = answer.get("error")
        if isinstance(error, dict):
            code = error.get("code")
            return RpcError(code if isinstance(code, int) else 0, str(error.get("message", "")))
        return answer.get("result")
    error = answer.get("error")
    if isinstance(error, dict):
        code, message = error.get("code"), str(error.get("message", ""))[:4096]
        rpc_error = RpcError(code if isinstance(code, int) else 0, message, error.get("data"))
        if _RATE_LIMITED.search(rpc_error.message):
            return RATE_LIMITED
        if _is_the_answer(rpc_error, method, params):
            return rpc_error
        return NodeFailure(
            f"answered {method} with error {code}: {clean(rpc_error.message)}",
            bool(_MISSING_STATE.search(rpc_error.message)),
        )
    if "result" not in answer:
        return NodeFailure(f"answered {method} with something that is not JSON-RPC")
    result = answer["result"]
    if result is None and (_is_tag_lookup(method, params) or method == "eth_getBlockByHash"):
        return RpcError(0, "the endpoint does not know this block")
    if not _has_shape(result, method):
        what = "null" if result is None else "something of the wrong shape"
        return NodeFailure(f"answered {method} with {what}")
    return result


def _is_the_answer(error: RpcError, method: str, params: list[Any]) -> bool:
    if method == "eth_call":
        if _is_creation(params) and error.code in REFUSALS:
            return True
        return error.code == 3 or bool(_CONTRACT_FAILURE.search(error.message))
    if method == "eth_getLogs":
        return error.code == -32005 or bool(_RANGE_TOO_LARGE.search(error.message))
    return _is_tag_lookup(method, params)


def _is_creation(params: list[Any]) -> bool:
    """An `eth_call` without `to` (a lens, chain/lens.py): an endpoint may refuse those, and saying
    so is its answer, not a failure to retry."""
    return bool(params) and isinstance(params[0], dict) and "to" not in params[0]


def _is_tag_lookup(method: str, params: list[Any]) -> bool:
    """`eth_getBlockByNumber("finalized")`: a node without the tag says so, and that is an answer."""
    return method == "eth_getBlockByNumber" and bool(params) and params[0] == "finalized"


def _has_shape(result: Any, method: str) -> bool:
    if method in ("eth_call", "eth_blockNumber", "eth_chainId", "eth_getCode"):
        return isinstance(result, str) and _HEX.fullmatch(result) is not None
    if method == "eth_getLogs":
        return isinstance(result, list)
    if method in ("eth_getBlockByNumber", "eth_getBlockByHash"):
        return isinstance(result, dict)
    return result is not None


class Endpoint:
    """One chain's JSON-RPC endpoint and what has been learned about it, shared by all requests.

    Each endpoint has its own connection pool (`connections` at most), so one that hangs can
    hold only its own connections, never another chain's. Redirects are not followed (a redirect
    would re-post the request to a URL nobody configured), and an answer larger than
    `max_response_bytes` is not read past that size.
    """

    def __init__(
        self,
        chain_id: int,
        url: str,
        connections: int,
        max_response_bytes: int,
        max_attempts: int,
        logs_block_range: int,
        metrics: Metrics,
    ) -> None:
        self.chain_id = chain_id
        self.metrics = metrics
        self.label = str(chain_id)
        self._url = url
        self._connections = connections
        self.max_response_bytes = max_response_bytes
        self._max_attempts = max_attempts
        self._session: aiohttp.ClientSession | None = None
        self.chain_checked = False
        self.has_multicall: bool | None = None
        """Whether Multicall3 has code at the head (asked on the endpoint's first use)."""
        self.multicall_since: int | None = None
        """The lowest block known to have Multicall3's code (it has no way to remove it), and the
        highest known to lack it: readers of past blocks ask only in between."""
        self.multicall_absent_to = -1
        self.has_finalized: bool | None = None
        self.hash_tags: bool | None = None
        """Whether the endpoint takes EIP-1898 block hashes as block tags, asked once, by the head
        follower or by a request given a block hash (chain/head.py `learn_hash_tags`)."""
        self.deployless: bool | None = None
        """Whether the endpoint runs calls without `to` (chain/lens.py), probed with the first lens."""
        self.ahead = True
        """Whether a request may read ahead of knowing a figure needs the read (adapters/history.py,
        at the blocks a search finds likely); `verify` turns it off, so every read it makes is one
        a figure used."""
        self.batches_refused_at: float | None = None
        self.logs_block_range = logs_block_range

    def __repr__(self) -> str:
        return f"Endpoint(chain_id={self.chain_id})"

    @property
    def batches_supported(self) -> bool:
        refused = self.batches_refused_at
        return refused is None or time.monotonic() - refused > BATCH_REPROBE_SECONDS

    def refuse_batches(self) -> None:
        log.info(
            "chain %d endpoint refused a JSON-RPC batch; single calls for %d s", self.chain_id, BATCH_REPROBE_SECONDS
        )
        self.batches_refused_at = time.monotonic()

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def post(self, payload: Any, stats: RpcStats, deadline: float) -> Any:
        """One JSON-RPC HTTP exchange, retried on transient failures while the budget allows.
        Raises AnswerTooLarge (the caller may split the batch), NetworkError or TimeoutError."""
        loop = asyncio.get_running_loop()
        for attempt in range(1, self._max_attempts + 1):
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError
            stats.requests += 1
            started, outcome = loop.time(), "ok"
            try:
                return await self._exchange(payload, remaining)
            except _Transient as exc:
                failure, outcome = exc.message, exc.outcome
            except BaseException as exc:
                outcome = _OUTCOMES.get(type(exc), "error")
                raise
            finally:
                self._observe(outcome, started)
            log.warning(
                "rpc failure on chain %d (attempt %d of %d): %s", self.chain_id, attempt, self._max_attempts, failure
            )
            delay = backoff(attempt)
            if attempt == self._max_attempts or loop.time() + delay >= deadline:
                break
            await asyncio.sleep(delay)
        raise NetworkError(f"The RPC endpoint for chain {self.chain_id} {failure}.")

    def _observe(self, outcome: str, started: float) -> None:
        metrics, label = self.metrics, self.label
        metrics.rpc_http_requests.labels(label, outcome).inc()
        metrics.rpc_duration.labels(label).observe(asyncio.get_running_loop().time() - started)

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._connections, ttl_dns_cache=300),
                headers={"Content-Type": "application/json"},
            )
        return self._session

    async def _exchange(self, payload: Any, timeout: float) -> Any:
        data = json.dumps(payload).encode()
        self.metrics.rpc_sent_bytes.labels(self.label).inc(len(data))
        try:
            async with self._client().post(
                self._url, data=data, allow_redirects=False, timeout=aiohttp.ClientTimeout(total=timeout)
            ) as response:
                if response.status == 429:
                    raise _Transient("rate-limited the service (HTTP 429)", "http_429")
                if response.status >= 500:
                    raise _Transient(f"failed (HTTP {response.status})", "http_error")
                if 300 <= response.status < 400:
                    raise NetworkError(
                        f"The RPC endpoint for chain {self.chain_id} answered with a redirect "
                        f"(HTTP {response.status}), which is not followed."
                    )
                if response.status != 200:
                    raise NetworkError(
                        f"The RPC endpoint for chain {self.chain_id} refused the request (HTTP {response.status})."
                    )
                body = await self._read(response)
        except TimeoutError:
            raise TimeoutError from None
        except aiohttp.ClientError as exc:
            raise _Transient(f"could not be reached ({type(exc).__name__})", "unreachable") from None
        self.metrics.rpc_received_bytes.labels(self.label).inc(len(body))
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            raise _Transient("answered with something that is not JSON", "not_json") from None

    async def _read(self, response: aiohttp.ClientResponse) -> bytearray:
        limit = self.max_response_bytes
        if (response.content_length or 0) > limit:
            raise AnswerTooLarge(limit)
        body = bytearray()
        async for chunk in response.content.iter_chunked(1 << 16):
            body += chunk
            if len(body) > limit:
                raise AnswerTooLarge(limit)
        return body


def backoff(attempt: int) -> float:
    """Seconds before attempt `attempt + 1`: exponential, jittered, at most about 2 s."""
    return min(0.1 * 2.0**attempt, 2.0) * random.uniform(0.5, 1.5)


class AnswerTooLarge(Exception):
    """An HTTP answer over the endpoint's ceiling; a batch is split, a single call fails."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


_OUTCOMES: dict[type[BaseException], str] = {
    TimeoutError: "timeout",
    AnswerTooLarge: "too_large",
    NetworkError: "http_error",
    asyncio.CancelledError: "cancelled",
}
"""`wp_rpc_http_requests` outcomes of the exceptions an exchange ends with."""


class _Transient(Exception):
    def __init__(self, message: str, outcome: str) -> None:
        super().__init__(message)
        self.message = message
        self.outcome = outcome
        """Its `wp_rpc_http_requests` outcome label."""
