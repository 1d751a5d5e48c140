"""The GraphQL schema, built from schema.graphql, and the resolver of its two root fields:
`walletPositions` (a wallet's positions) and `poolDetails` (a pool's data).

The resolver validates each input (docs/decisions.md §3), runs the inputs concurrently, each under its
own time budget, and maps failures to error codes. Identical inputs within one request share one
fetch, even across aliases. The two fields differ only in what `RootField` says: the address
input, the adapter function (`Protocol.fetch` or `Protocol.details`) and the output object.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias, TypeVar

from graphql import (
    GraphQLError,
    GraphQLResolveInfo,
    GraphQLSchema,
    GraphQLUnionType,
    build_schema,
)

import series
from adapters import accounts, legs
from adapters.accounts import probes
from adapters.context import FetchContext, FetchFunction
from chain import shared_future
from errors import BeforeChain, BeforeDeployment, InputValidationError, PositionError
from graphql_http.interfaces import written_out
from graphql_http.projection import nonconformity, selects
from graphql_http.scalars import with_scalars
from metrics import Outcome
from protocols import Protocol, Registry
from resolvers import portfolio, watches
from resolvers.inputs import INTERNAL_ERROR, InputKey, RequestContext, fetch_input, unexpected

log = logging.getLogger("wallet_positions.resolver")
T = TypeVar("T")

SDL_PATH = Path(__file__).with_name("schema.graphql")
SDL = written_out(SDL_PATH.read_text(encoding="utf-8"))
"""The schema as served and built: schema.graphql with `WalletEntry`'s fields written into each
member (graphql_http/interfaces.py)."""
ADDRESS_RE = re.compile(r"0x[0-9a-fA-F]{40}")
POOL_RE = re.compile(r"0x(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})")
BLOCK_HASH = re.compile(r"0x[0-9a-fA-F]{64}")
ADDRESS_ECHO = 70
"""Characters of a submitted address an error echoes: a market id (66) whole, garbage cut."""


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
    "0x followed by 40 hexadecimal characters (a contract) or 64 (a Morpho Blue market id, a Uniswap v4 PoolId, a "
    "Maker ilk)",
    lambda protocol: protocol.details,
    _pool,
)


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
    query.fields[portfolio.FIELD].resolve = resolve_portfolio
    query.fields["watches"].resolve = resolve_watches
    mutation = schema.mutation_type
    assert mutation is not None
    mutation.fields["createWatch"].resolve = resolve_create_watch
    mutation.fields["deleteWatch"].resolve = resolve_delete_watch
    return schema


async def answered(
    context: RequestContext, inputs: list[dict[str, Any]], built: GraphQLSchema
) -> list[list[dict[str, Any]] | PositionError]:
    """`walletPositions`' answer of each input, outside a request (watches/evaluate.py): its entries
    (its own, then its accounts') or its failure."""
    return await _settled(WALLETS, context, inputs, False, built, "watch")


async def _stored(context: RequestContext, work: Callable[[watches.Watches], Awaitable[T]]) -> T:
    """A watch field's answer; bad input a validation error, a store that cannot be reached (the
    shared database down) an error with the code and retryable flag an input's failure carries."""
    assert context.watches is not None, "a request's context has the app's watches (api/routes.py)"
    try:
        return await work(context.watches)
    except PositionError as exc:
        kind = {"classification": "ValidationError"} if isinstance(exc, InputValidationError) else {}
        raise GraphQLError(exc.message, extensions={"code": exc.code, "retryable": exc.retryable, **kind}) from None


async def resolve_watches(_root: Any, info: GraphQLResolveInfo[RequestContext]) -> list[dict[str, Any]]:
    return await _stored(info.context, lambda found: watches.listed(found, info.context.owner))


async def resolve_create_watch(
    _root: Any, info: GraphQLResolveInfo[RequestContext], input: dict[str, Any]
) -> dict[str, Any]:
    return await _stored(info.context, lambda found: watches.create(found, info.context.owner, input, ADDRESS_RE))


async def resolve_delete_watch(_root: Any, info: GraphQLResolveInfo[RequestContext], id: str) -> bool:
    return await _stored(info.context, lambda found: found.store.delete(info.context.owner, id))


async def resolve(
    root: RootField, _root: Any, info: GraphQLResolveInfo[RequestContext], inputs: list[dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """Every valid input answered (`_settled`), its entries in `data` or its failure in `errors`."""
    context: RequestContext = info.context
    data, errors = [], []
    found = await _settled(root, context, inputs, _wants(info, "provenance"), info.schema, root.name)
    for item, one in zip(inputs, found):
        if isinstance(one, PositionError):
            errors.append(_failed(root, context, item, one))
        else:
            data.extend(one)
    return {"data": data, "errors": errors}


async def _settled(
    root: RootField,
    context: RequestContext,
    inputs: list[dict[str, Any]],
    provenance: bool,
    schema: GraphQLSchema,
    field_name: str,
) -> list[list[dict[str, Any]] | PositionError]:
    """Each input's entries (its own, then its accounts') or its failure: every valid input's fetch
    starts at once, one task per distinct input, and the answers are built when all have settled.
    asyncio.wait leaves the fetches running if the field is cancelled: another field of the request
    may share them."""
    started = [_start(root, context, item, provenance) for item in inputs]
    fetches = {id(fetch): fetch for one in started if isinstance(one, tuple) for fetch in one[1:] if fetch}
    if fetches:
        await asyncio.wait(fetches.values())
    found: list[list[dict[str, Any]] | PositionError] = []
    for item, outcome in zip(inputs, started):
        answer = _outcome(root, item, outcome, schema)
        if isinstance(answer, PositionError):
            found.append(answer)
        else:
            assert isinstance(outcome, tuple)
            found.append(_with_accounts(root, outcome, item[root.address_key].lower(), answer, schema))
        code = answer.code if isinstance(answer, PositionError) else "OK"
        context.outcomes.append(Outcome(field_name, item["protocol"].lower(), item["chainId"], code))
    return found


async def resolve_portfolio(_root: Any, info: GraphQLResolveInfo[RequestContext], **args: Any) -> dict[str, Any]:
    """`portfolio` (resolvers/portfolio.py): every chain's block first (a refused argument fails the field
    before any check is read), then every check of every chain at once."""
    context: RequestContext = info.context
    try:
        asked = portfolio.parsed(args, portfolio.served(context.registry, context.chains.chains), ADDRESS_RE)
        blocks = await asyncio.gather(
            *(_portfolio_block(context, chain_id, asked.at) for chain_id in asked.chains), return_exceptions=True
        )
        found: list[int | PositionError | None] = []
        for block in blocks:
            if isinstance(block, BaseException) and not isinstance(block, PositionError):
                raise block
            if isinstance(block, InputValidationError) and not isinstance(block, BeforeChain):
                raise block
            found.append(block)
    except InputValidationError as exc:
        # `classification`: graphql-java's marker of a refused argument, which generic GraphQL tools
        # read to tell the client's errors from the server's (schemathesis, say).
        raise GraphQLError(exc.message, extensions={"code": exc.code, "classification": "ValidationError"}) from None
    provenance = _wants(info, "provenance")
    chains = await asyncio.gather(
        *(
            _portfolio_chain(context, info.schema, asked.wallet, chain_id, block, provenance)
            for chain_id, block in zip(asked.chains, found)
        )
    )
    return {
        "walletAddress": asked.wallet,
        "data": [entry for entries, _, _ in chains for entry in entries],
        "errors": [error for _, errors, _ in chains for error in errors],
        "coverage": [coverage for _, _, coverage in chains],
    }


async def _portfolio_block(context: RequestContext, chain_id: int, at: series.Range | None) -> int | None:
    """The chain's block for the portfolio: None for the newest (the request's pin)."""
    timed_out = f"The block of chain {chain_id} was not found within {context.input_timeout:g} s."
    with unexpected(timed_out, "the portfolio's block", chain_id):
        async with asyncio.timeout(context.input_timeout):
            return await portfolio.block(context.chains.reader(chain_id), at)


async def _portfolio_chain(
    context: RequestContext,
    schema: GraphQLSchema,
    wallet: str,
    chain_id: int,
    block: int | PositionError | None,
    provenance: bool,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """One chain's entries, errors and coverage: every protocol served there checked at its block
    (a chain whose block could not be found fails every check with that failure; one with no block
    as old as the time asked held nothing)."""
    names = sorted(name for name, protocol in context.registry.items() if chain_id in protocol.chains)
    at = block if isinstance(block, int) else None
    items: list[dict[str, Any]] = [
        {"protocol": name, "chainId": chain_id, "walletAddress": wallet, "blockNumber": at} for name in names
    ]
    found: list[list[dict[str, Any]] | PositionError]
    if isinstance(block, BeforeChain):
        found = [[] for _ in items]
    elif isinstance(block, PositionError):
        found = [block for _ in items]
    else:
        found = await _settled(WALLETS, context, items, provenance, schema, portfolio.FIELD)
    checks = []
    for item, one in zip(items, found):
        if isinstance(one, BeforeDeployment):
            checks.append(portfolio.Checked(item["protocol"], []))
        elif isinstance(one, PositionError):
            checks.append(portfolio.Checked(item["protocol"], [], _failed(WALLETS, context, item, one)))
        else:
            checks.append(portfolio.Checked(item["protocol"], one))
    reader = None if isinstance(block, PositionError) else context.chains.reader(chain_id, at)
    coverage = await portfolio.coverage(chain_id, context.registry, checks, reader, context.indexes)
    entries = [entry for check in checks if check.kind != "empty" for entry in check.entries]
    return entries, [check.error for check in checks if check.error is not None], coverage


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

    with unexpected(
        f"The series' blocks or flows were not read within {context.input_timeout:g} s.", protocol.name, chain_id
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
                await series.kept_flows(at, context.answers, protocol, address, answer, context.routes)
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
        protocol.existed(chain_id, block)  # refused before the accounts' discovery reads anything
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
    chain_id = key[2]
    # Keyed by the routes, not the protocol: a wallet's inputs of one request share one discovery,
    # which probes each account for every protocol of the chain (adapters/accounts/probes.py).
    found_key = (f"accounts {accounts.key(protocol.routes, protocol.own_routes)}", "", *key[2:])
    if found_key not in context.fetches:
        served = (other for other in context.registry.values() if chain_id in other.chains)
        asked = probes.distinct(probe for other in served for probe in other.probes(chain_id) or ())
        discovery = accounts.discovery(protocol.routes, protocol.own_routes, asked)
        # Not bound by the deployment of the protocol that happens to start it: each registry's own
        # code at the block says whether it existed (adapters/accounts/).
        _joined(context, protocol, discovery, found_key, gated=False)
    return shared_future(
        accounts.controlled(
            context.fetches[found_key],
            lambda holder: _joined(context, protocol, function, (*key[:3], holder, *key[4:])),
            protocol.probes(chain_id),
            # Not with provenance: the wallet's own reads are then its record's, not the request's
            # that the index probe shares, which would cost it rounds of its own.
            _indexed(context, protocol, key) if protocol.index_probe and not key[6] else None,
        )
    )


def _indexed(context: RequestContext, protocol: Protocol, key: InputKey) -> Callable[[str], Awaitable[bool]]:
    """The protocol's index probe of an account, run as an input is (kept per block: a repeat
    reads nothing), its reads in no entry's provenance."""
    probe = protocol.index_probe
    assert probe is not None

    async def check(ctx: FetchContext[Any], account: str) -> dict[str, Any]:
        return {"mayHold": await probe(ctx, account)}

    async def indexed(account: str) -> bool:
        checked = ("index probe", protocol.name, key[2], account, *key[4:6], False)
        return bool((await _joined(context, protocol, check, checked))["mayHold"])

    return indexed


def _joined(
    context: RequestContext, protocol: Protocol, function: FetchFunction, key: InputKey, gated: bool = True
) -> asyncio.Future[dict[str, Any]]:
    """The input's fetch, started or joined: identical inputs of one operation share one, across
    aliases and fields (a point of a series and the same input at that block). Not `gated`: the
    protocol's deployment does not bound it (fetch_input)."""
    if key not in context.fetches:
        context.fetches[key] = shared_future(fetch_input(protocol, function, key, context, gated))
    return context.fetches[key]


def _outcome(
    root: RootField, item: dict[str, Any], started: Started, schema: GraphQLSchema
) -> dict[str, Any] | PositionError:
    """The input's own entry, or why it failed."""
    if isinstance(started, PositionError):
        failure: BaseException | None = started
    else:  # a node's failure in the wallet's accounts fails the input as one in its own reads
        failure = started[1].exception() or (started[2].exception() if started[2] else None)
    if failure is None:
        assert isinstance(started, tuple)
        protocol, fetch, _ = started
        try:
            return _shaped(root, protocol, item["chainId"], item[root.address_key].lower(), fetch.result(), schema)
        except PositionError as exc:
            failure = exc
    assert isinstance(failure, PositionError), failure
    return failure


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
