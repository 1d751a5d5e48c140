"""The GraphQL schema, built from schema.graphql, and the resolver of its two root fields:
`walletPositions` (a wallet's positions) and `poolDetails` (a pool's data).

The resolver validates each input (docs/decisions.md §3), runs the inputs concurrently, each under its
own time budget, and maps failures to error codes. Identical inputs within one request share one
fetch, even across aliases. The two fields differ only in what `RootField` says: the address
input, the adapter function (`Protocol.fetch` or `Protocol.details`) and the output object.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import re
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from graphql import (
    GraphQLResolveInfo,
    GraphQLSchema,
    GraphQLUnionType,
    build_schema,
)

import series
from adapters import accounts, legs
from adapters.context import FetchContext, FetchFunction
from adapters.prices import noting_prices, used_prices
from chain import ChainReader, ChainRequest, shared_future
from chain.event_index import Indexes
from chain.provenance import entries as provenance_entries
from errors import BeforeDeployment, BudgetExceeded, InputValidationError, PositionError
from graphql_http.interfaces import written_out
from graphql_http.projection import nonconformity, selects
from graphql_http.scalars import with_scalars
from immutable_cache import ImmutableCache
from metrics import Outcome
from protocols import Protocol, Registry

log = logging.getLogger("wallet_positions.resolver")

SDL_PATH = Path(__file__).with_name("schema.graphql")
SDL = written_out(SDL_PATH.read_text(encoding="utf-8"))
"""The schema as served and built: schema.graphql with `WalletEntry`'s fields written into each
member (graphql_http/interfaces.py)."""
ADDRESS_RE = re.compile(r"0x[0-9a-fA-F]{40}")
POOL_RE = re.compile(r"0x(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})")
BLOCK_HASH = re.compile(r"0x[0-9a-fA-F]{64}")
INTERNAL_ERROR = "Internal error while reading positions; it has been logged."
ADDRESS_ECHO = 70
"""Characters of a submitted address an error echoes: a market id (66) whole, garbage cut."""

InputKey = tuple[str, str, int, str, "int | None", "str | None", bool]


@dataclass(frozen=True)
class RootField:
    """What one root field resolves: which address an input names and how it must look, which
    adapter function answers it, and how an answer becomes the field's output object."""

    name: str
    address_key: str
    address_re: re.Pattern[str]
    address_shape: str
    function: Callable[[Protocol], FetchFunction | None]
    output: Callable[[Protocol, int, str, dict[str, Any]], tuple[dict[str, Any], str]]
    """(answer object, name of the GraphQL type it must fit)."""


def _position(protocol: Protocol, chain_id: int, address: str, answer: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The entry of a wallet (its own positions: `holder` is the wallet) or of an account it
    controls (the answer names its `holder` and `via`), with every position and the totals of
    their legs (adapters/legs.py)."""
    positions = legs.listed(answer)
    return {
        "holder": address,
        "via": None,
        "usdPrices": [],
        **answer,
        "allPositions": positions,
        "totals": legs.totals(positions),
        "__typename": protocol.type_name,
        "protocol": protocol.name,
        "chainId": chain_id,
        "walletAddress": address,
    }, protocol.type_name


def _pool(protocol: Protocol, chain_id: int, address: str, answer: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A pool's answer: its typed `details`, and the same object as the JSON string `data` (with
    its `type`), for clients written against the hosted API."""
    details = answer["details"]
    data = json.dumps({name: value for name, value in details.items() if name != "__typename"}, separators=(",", ":"))
    return {
        "protocol": protocol.name,
        "chainId": chain_id,
        "poolAddress": address,
        "blockNumber": answer["blockNumber"],
        "blockHash": answer["blockHash"],
        "blockTimestamp": answer["blockTimestamp"],
        "warnings": answer["warnings"],
        "usdPrices": answer.get("usdPrices", []),
        "provenance": answer.get("provenance"),
        "data": data,
        "details": details,
    }, "PoolOutput"


WALLETS = RootField(
    "walletPositions",
    "walletAddress",
    ADDRESS_RE,
    "0x followed by 40 hexadecimal characters",
    lambda protocol: protocol.fetch,
    _position,
)
POOLS = RootField(
    "poolDetails",
    "poolAddress",
    POOL_RE,
    "0x followed by 40 hexadecimal characters (a contract) or 64 (a Morpho Blue market id, a Uniswap v4 PoolId)",
    lambda protocol: protocol.details,
    _pool,
)


class SharedAnswers(typing.Protocol):
    """Answers the replicas share (replicas/answers.py), asked after a miss of `answers`: `get`
    is None for whatever Redis cannot answer, and `put` never waits for it."""

    async def get(self, key: tuple[Any, ...]) -> dict[str, Any] | None: ...

    def put(self, key: tuple[Any, ...], answer: dict[str, Any]) -> None: ...

    async def close(self) -> None:
        """What the server calls at shutdown."""


@dataclass
class RequestContext:
    """Per-request state shared by every root field of one operation."""

    registry: Registry
    input_timeout: float
    chains: ChainRequest
    indexes: Indexes
    answers: ImmutableCache
    """Answers kept across requests per input and block (`fetch_input`); a bound of 0 bytes keeps none."""
    shared: SharedAnswers | None = None
    """The same, shared with the other replicas through Redis (None: REDIS_URL unset, or sharing off)."""
    outcomes: list[Outcome] = field(default_factory=list)
    """One per resolved input, for the access log and the metrics."""
    fetches: dict[InputKey, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    series_points: int = 0
    """Points the operation's `positionsHistory` fields asked so far (series.SERIES_BUDGET)."""


def build(registry: Registry) -> GraphQLSchema:
    """The executable schema; every registered protocol must name a member of the union."""
    schema = with_scalars(build_schema(SDL))
    union = schema.type_map["WalletPositions"]
    assert isinstance(union, GraphQLUnionType)
    members = {member.name for member in union.types}
    for protocol in registry.values():
        if protocol.type_name not in members:
            raise ValueError(
                f"protocol {protocol.name!r}: {protocol.type_name} is not in the "
                "WalletPositions union of schema.graphql"
            )
    query = schema.query_type
    assert query is not None
    for root in (WALLETS, POOLS):
        query.fields[root.name].resolve = functools.partial(resolve, root)
    query.fields["positionsHistory"].resolve = resolve_history
    return schema


async def resolve(
    root: RootField, _root: Any, info: GraphQLResolveInfo[RequestContext], inputs: list[dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """Every valid input's fetch starts at once, one task per distinct input; the answer is built
    when all have settled. asyncio.wait leaves the fetches running if this field is cancelled:
    another field of the request may share them."""
    context: RequestContext = info.context
    provenance = _wants(info, "provenance")
    started = [_start(root, context, item, provenance) for item in inputs]
    fetches = {id(fetch): fetch for one in started if isinstance(one, tuple) for fetch in one[1:] if fetch}
    if fetches:
        await asyncio.wait(fetches.values())
    data, errors = [], []
    for item, outcome in zip(inputs, started):
        answer, error = _outcome(root, context, item, outcome, info.schema)
        if error is None:
            assert answer is not None and isinstance(outcome, tuple)
            data.extend(_with_accounts(root, outcome, item[root.address_key].lower(), answer, info.schema))
        else:
            errors.append(error)
        context.outcomes.append(
            Outcome(
                root.name, item["protocol"].lower(), item["chainId"], "OK" if error is None else error["error"]["code"]
            )
        )
    return {"data": data, "errors": errors}


async def resolve_history(_root: Any, info: GraphQLResolveInfo[RequestContext], **args: Any) -> dict[str, Any]:
    """`positionsHistory`: each valid input's series (series.py), all at once; the arguments and the
    operation's point budget are checked before anything is read."""
    context: RequestContext = info.context
    inputs: list[dict[str, Any]] = args["inputs"]
    asked: series.Range | PositionError
    try:
        asked = series.parsed(args)
        context.series_points += len(inputs) * asked.points
        if context.series_points > series.SERIES_BUDGET:
            raise InputValidationError(
                f"The operation asks for {context.series_points} points in all (inputs x points); the limit is "
                f"{series.SERIES_BUDGET} per operation."
            )
    except PositionError as exc:
        asked = exc
    wants = (_wants(info, "flows") or _wants(info, "earnings"), _wants(info, "provenance"))
    tasks = [asyncio.ensure_future(_history(context, info.schema, item, asked, *wants)) for item in inputs]
    if tasks:
        await asyncio.wait(tasks)
    data, errors = [], []
    for item, task in zip(inputs, tasks):
        failure = task.exception()
        if failure is None:
            data.append(task.result())
        else:
            assert isinstance(failure, PositionError), failure
            errors.append(_failed(WALLETS, context, item, failure))
        outcome = "OK" if failure is None else failure.code
        context.outcomes.append(Outcome("positionsHistory", item["protocol"].lower(), item["chainId"], outcome))
    return {"data": data, "errors": errors}


async def _history(
    context: RequestContext,
    schema: GraphQLSchema,
    item: dict[str, Any],
    asked: series.Range | PositionError,
    wants_flows: bool,
    provenance: bool,
) -> dict[str, Any]:
    """One input's series; PositionError for the input as a whole."""
    name, chain_id, address = item["protocol"], item["chainId"], item["walletAddress"].lower()
    protocol, function = _validate(WALLETS, context.registry, name, chain_id, address, None, None)
    if item.get("blockNumber") is not None or item.get("blockHash") is not None:
        raise InputValidationError(
            "A series takes its blocks from `from` and `to`: leave out blockNumber and blockHash."
        )
    if isinstance(asked, PositionError):
        raise asked

    counted = context.chains.chains.metrics

    async def point(block: int) -> dict[str, Any]:
        key = (WALLETS.name, protocol.name, chain_id, address, block, None, provenance)
        try:
            answer = await _joined(context, protocol, function, key)
            shaped = _shaped(WALLETS, protocol, chain_id, address, answer, schema)
        except PositionError as exc:
            outcome = "BEFORE_DEPLOYMENT" if isinstance(exc, BeforeDeployment) else exc.code
            counted.child(counted.history_points, protocol.name, outcome).inc()
            raise
        counted.child(counted.history_points, protocol.name, "OK").inc()
        return shaped

    with _unexpected(
        f"The series' blocks or flows were not read within {context.input_timeout:g} s.", protocol, chain_id
    ):
        async with asyncio.timeout(context.input_timeout):
            reader = context.chains.reader(chain_id)
            found = await reader.shared(("series points", asked), lambda: series.points(reader, asked))
        answer = await series.series(point, found)
        answer |= {"flows": [], "earnings": []}
        if wants_flows:

            def at(block: int) -> FetchContext[Any]:
                deadline = asyncio.get_running_loop().time() + context.input_timeout
                return protocol.context(deadline, context.chains, context.indexes, chain_id, block)

            async with asyncio.timeout(context.input_timeout):
                await series.kept_flows(at, context.answers, protocol, address, answer)
        return {"protocol": protocol.name, "chainId": chain_id, "walletAddress": address, **answer}


Accounts: TypeAlias = "asyncio.Future[tuple[list[dict[str, Any]], list[dict[str, str]]]] | None"
Started = tuple[Protocol, "asyncio.Future[dict[str, Any]]", Accounts] | PositionError


def _wants(info: GraphQLResolveInfo[RequestContext], name: str) -> bool:
    """Whether the field's selection selects `name` anywhere below (the walk only for documents
    that name it at all)."""
    source = info.field_nodes[0].loc.source.body if info.field_nodes[0].loc else name
    return name in source and any(
        selects(node.selection_set, name, info.fragments, info.variable_values) for node in info.field_nodes
    )


def _start(root: RootField, context: RequestContext, item: dict[str, Any], provenance: bool = False) -> Started:
    """The input's protocol and fetch, started or joined (identical inputs share one, even across
    aliases), or why the input is refused."""
    name, chain_id, address = item["protocol"], item["chainId"], item[root.address_key].lower()
    block, block_hash = item.get("blockNumber"), item.get("blockHash")
    try:
        protocol, function = _validate(root, context.registry, name, chain_id, address, block, block_hash)
    except PositionError as exc:
        return exc
    key = (root.name, protocol.name, chain_id, address, block, block_hash and block_hash.lower(), provenance)
    return protocol, _joined(context, protocol, function, key), _accounts(root, context, item, protocol, function, key)


def _accounts(
    root: RootField,
    context: RequestContext,
    item: dict[str, Any],
    protocol: Protocol,
    function: FetchFunction,
    key: InputKey,
) -> Accounts:
    """The answers of the accounts the wallet controls (adapters/accounts/), found in the input's
    first round and answered as wallets are; None where not asked or not offered."""
    if root is not WALLETS or item.get("controlledAccounts") is False or not (protocol.routes or protocol.own_routes):
        return None
    routes = accounts.key(protocol.routes, protocol.own_routes)
    # Keyed by the routes, not the protocol: a wallet's inputs of one request share one discovery.
    discovery = accounts.discovery(protocol.routes, protocol.own_routes)
    found = _joined(context, protocol, discovery, (f"accounts {routes}", "", *key[2:]))
    return shared_future(
        accounts.controlled(found, lambda holder: _joined(context, protocol, function, (*key[:3], holder, *key[4:])))
    )


def _joined(
    context: RequestContext, protocol: Protocol, function: FetchFunction, key: InputKey
) -> asyncio.Future[dict[str, Any]]:
    """The input's fetch, started or joined: identical inputs of one operation share one, across
    aliases and fields (a point of a series and the same input at that block)."""
    if key not in context.fetches:
        context.fetches[key] = shared_future(fetch_input(protocol, function, key, context))
    return context.fetches[key]


def _outcome(
    root: RootField,
    context: RequestContext,
    item: dict[str, Any],
    started: Started,
    schema: GraphQLSchema,
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    if isinstance(started, PositionError):
        failure: BaseException | None = started
    else:  # a node's failure in the wallet's accounts fails the input as one in its own reads
        failure = started[1].exception() or (started[2].exception() if started[2] else None)
    if failure is None:
        assert isinstance(started, tuple)
        protocol, fetch, _ = started
        try:
            return _shaped(
                root, protocol, item["chainId"], item[root.address_key].lower(), fetch.result(), schema
            ), None
        except PositionError as exc:
            failure = exc
    assert isinstance(failure, PositionError), failure
    return None, _failed(root, context, item, failure)


def _with_accounts(
    root: RootField, started: tuple[Protocol, Any, Accounts], address: str, own: dict[str, Any], schema: GraphQLSchema
) -> list[dict[str, Any]]:
    """The wallet's own entry (with what the accounts' warnings add) and its accounts' entries."""
    protocol, _, found = started
    if found is None:
        return [own]
    entries, found_warnings = found.result()
    warnings = list(found_warnings)
    shaped = []
    for entry in entries:
        try:
            shaped.append(_shaped(root, protocol, own["chainId"], address, entry, schema))
        except PositionError as exc:
            warnings.append({"code": accounts.ACCOUNT_UNREADABLE, "target": entry["holder"], "message": exc.message})
    if warnings:  # listed as every answer lists them: by target, code and message
        merged = sorted([*own["warnings"], *warnings], key=lambda w: (w["target"], w["code"], w["message"]))
        own = {**own, "warnings": merged}
    return [own, *shaped]


def _failed(root: RootField, context: RequestContext, item: dict[str, Any], failure: PositionError) -> dict[str, Any]:
    """An input's entry in `errors`, echoing what the client sent (cut short where it is long)."""
    name, chain_id, address = item["protocol"], item["chainId"], item[root.address_key].lower()
    log.warning("input failed: %s on chain %d: %s %s", _shorten(name), chain_id, failure.code, failure.message)
    known = context.registry.get(name.lower())
    return {
        "protocol": known.name if known else _shorten(name),
        "chainId": chain_id,
        root.address_key: _shorten(address, ADDRESS_ECHO),
        "blockNumber": item.get("blockNumber"),
        "blockHash": _shorten(block_hash, 66) if isinstance(block_hash := item.get("blockHash"), str) else None,
        "error": {"code": failure.code, "message": failure.message, "retryable": failure.retryable},
    }


def _shaped(
    root: RootField, protocol: Protocol, chain_id: int, address: str, answer: dict[str, Any], schema: GraphQLSchema
) -> dict[str, Any]:
    """The answer as the field's output object, checked against its type (an adapter's bad object
    is the input's UNKNOWN_ERROR, logged, not a null GraphQL would carry up the whole result)."""
    problem: str | None
    try:
        shaped, type_name = root.output(protocol, chain_id, address, answer)
        problem = nonconformity(shaped, schema.type_map[type_name], schema)
    except (KeyError, TypeError, ValueError) as exc:
        problem = f"cannot be shaped ({type(exc).__name__}: {exc})"
    if problem is None:
        return shaped
    log.error("%s %s answer does not fit its type: %s", protocol.name, root.name, problem)
    raise PositionError(INTERNAL_ERROR)


def _provenance(chains: ChainRequest, position: dict[str, Any]) -> list[dict[str, str]]:
    """The reads the answer was made of (chain/provenance.py), its block's header first."""
    header = {"number": hex(position["blockNumber"]), "hash": position["blockHash"]}
    header["timestamp"] = hex(position["blockTimestamp"])
    reads = chains.stats.reads or []
    return provenance_entries([("eth_getBlockByHash", [position["blockHash"], False], header), *reads])


def _validate(
    root: RootField,
    registry: Registry,
    name: str,
    chain_id: int,
    address: str,
    block: int | None,
    block_hash: str | None,
) -> tuple[Protocol, FetchFunction]:
    protocol = registry.get(name.lower())
    if protocol is None:
        supported = ", ".join(sorted(registry)) or "none yet"
        raise InputValidationError(f"Unknown protocol {_shorten(name)!r}. Supported protocols: {supported}.")
    function = root.function(protocol)
    if function is None:
        offered = ", ".join(sorted(p.name for p in registry.values() if root.function(p))) or "none yet"
        raise InputValidationError(
            f"Protocol {protocol.name!r} has no {root.name} yet. Protocols with {root.name}: {offered}."
        )
    if chain_id not in protocol.chains:
        chains = ", ".join(str(c) for c in sorted(protocol.chains))
        raise InputValidationError(
            f"Chain {chain_id} is not supported by protocol {protocol.name!r}. Supported chains: {chains}."
        )
    if not root.address_re.fullmatch(address):
        raise InputValidationError(f"Malformed {root.address_key}: expected {root.address_shape}.")
    if len(address) == 66 and not protocol.pool_ids:
        raise InputValidationError(
            f"Malformed {root.address_key}: protocol {protocol.name!r} names its pools by "
            "contract address, 0x followed by 40 hexadecimal characters."
        )
    if block is not None and block < 0:
        raise InputValidationError(f"Malformed blockNumber {block}: a block number is 0 or more.")
    if block_hash is not None and not BLOCK_HASH.fullmatch(block_hash):
        raise InputValidationError(
            f"Malformed blockHash {_shorten(block_hash)!r}: expected 0x followed by 64 hexadecimal characters."
        )
    return protocol, function


def _shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


@contextlib.contextmanager
def _unexpected(timed_out: str, protocol: Protocol, chain_id: int) -> Iterator[None]:
    """A time budget's end as TIMEOUT (`timed_out` says which), anything unexpected as
    UNKNOWN_ERROR with its detail in the log only; a PositionError as it is."""
    try:
        yield
    except PositionError:
        raise
    except TimeoutError:
        raise BudgetExceeded(timed_out) from None
    except Exception:
        log.exception("unexpected failure in %s (chain %d)", protocol.name, chain_id)
        raise PositionError(INTERNAL_ERROR) from None


async def fetch_input(
    protocol: Protocol, function: FetchFunction, key: InputKey, request: RequestContext
) -> dict[str, Any]:
    """One adapter call under the input's time budget, at the input's block; anything unexpected
    is UNKNOWN_ERROR.

    An answer is kept per input and block, the block named by its hash (ChainReader.block_key),
    so the same input at the same block is answered again without an RPC request, and a
    reorganised block's answer is never served for its successor; with `request.shared`, other
    replicas answer it too. Not kept: failures, and answers whose warnings a retry could clear
    (Warnings.retryable). What is kept is the adapter's whole answer, whatever the selection:
    every selection of the input shares it."""
    _, _, chain_id, address, block, block_hash, provenance = key
    budget = request.input_timeout
    chains = request.chains.chains.request(request.chains.deadline, recorded=True) if provenance else request.chains
    context = protocol.context(
        asyncio.get_running_loop().time() + budget, chains, request.indexes, chain_id, block, block_hash
    )
    protocol.existed(context)
    kept: Kept = (None, None)
    with _unexpected(f"The input did not resolve within its time budget of {budget:g} s.", protocol, chain_id):
        async with asyncio.timeout(budget):
            reader = context.reader()
            if protocol.kept and not provenance:
                kept, answer = await _recalled(request, reader, key)
                if answer is not None:
                    return answer
            header = shared_future(reader.block_header()) if protocol.kept else None
            with noting_prices(reader) as prices:
                position = await protocol.answer(function, context, address)
            if not isinstance(position, dict):
                raise TypeError(f"fetch returned {type(position).__name__}, not a dict")
            position.setdefault("usdPrices", used_prices(prices, position))
            # The pinned reader's block, its hash and its time (a given block's header rides with the
            # adapter's first round); a test's stand-in that reads no chain gives its own.
            if "blockNumber" not in position:
                position["blockNumber"] = await reader.block_number()
            if "blockHash" not in position:
                head = await (header if header is not None else reader.block_header())
                position["blockHash"], position["blockTimestamp"] = head.hash, head.timestamp
            if provenance:
                position["provenance"] = _provenance(chains, position)
                request.chains.stats.requests += chains.stats.requests  # the access line counts them
                request.chains.stats.subcalls += chains.stats.subcalls
        position["warnings"] = context.warnings.as_list()
    here, there = kept
    if here is not None and not context.warnings.retryable:
        request.answers.put(here, position)
        if there is not None and request.shared is not None:
            request.shared.put(there, position)
    return position


Kept = tuple["tuple[Any, ...] | None", "tuple[Any, ...] | None"]
"""Where an answer is kept: in this process, and shared with the other replicas."""


async def _recalled(request: RequestContext, reader: ChainReader, key: InputKey) -> tuple[Kept, dict[str, Any] | None]:
    """Where the input's answer at the reader's block is kept (neither where no block hash names
    the block without a round trip), and the answer if this process or, after a miss, the other
    replicas hold it (then kept here too)."""
    answers, shared = request.answers, request.shared
    if (answers.max_bytes == 0 and shared is None) or (block_key := await reader.block_key()) is None:
        return (None, None), None
    block = await reader.block_number(probed=False)  # no Multicall3 probe: a hit needs none
    here, there = (*key[:4], block, block_key), None
    answer = answers.get(here)
    if shared is not None and (shared_key := await reader.block_key(shared=True)) is not None:
        there = (*key[:4], block, shared_key)
        if answer is None and (answer := await shared.get(there)) is not None:
            answers.put(here, answer)
    return (here, there), answer
