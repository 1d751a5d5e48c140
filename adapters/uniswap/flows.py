"""A wallet's flows in Uniswap positions (docs/protocols/uniswap.md), per position NFT
(`<positionManager>:<tokenId>`) in six legs, each in one token's raw units:

- `:token0`, `:token1`: what the liquidity is worth (amount0, amount1). What these legs "earn" is
  the pool's trading against the position as the price moves: their `earnedUsd` summed is the
  position's value against holding what was put in (impermanent loss).
- `:fees0`, `:fees1`: the fees not collected (uncollectedFees0/1); what these legs earn is the fees.
- `:owed0`, `:owed1`: v3's principal withdrawn and not collected (principalOwed0/1); they earn
  nothing.
- v3 (the NonfungiblePositionManager's events, by token id): `IncreaseLiquidity` adds the amounts
  paid in to the token legs; `DecreaseLiquidity` moves its amounts from them to the owed legs
  (`owed`); `Collect` takes what it paid out of the owed legs first, as owed.py counts the
  principal, and the rest out of the fees legs.
- v4 (the PoolManager's `ModifyLiquidity(id, sender, tickLower, tickUpper, liquidityDelta,
  salt)`, sender the PositionManager, salt the token id): the event carries liquidity, not
  amounts, so the amounts are the pool's own math at its price before the event's block
  (`getSlot0` there; rounded up where liquidity is added, down where it is taken out, as
  SqrtPriceMath does), and each modification pays out every fee owed then (v4 keeps no tokens
  owed): a `collect` of the position's uncollected fees before that block. A swap in the same
  pool earlier in the same block would move that price: such a flow is then off by what it moved.
- The NFT itself sent to or from another holder: every leg moves by the position's figures at
  the transfer's block (its state after the block, read as the positions are read), and the
  managers' events count only while the wallet owns it (a manager or its next owner may operate
  it meanwhile).

The events name the position by token id (v4: by pool and manager), not the wallet: they come
from index streams of their own (`WalletLogs.more`).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NamedTuple

from adapters import tick_math
from adapters.context import FetchContext
from adapters.flows import NO_ONE, Flow, WalletLogs, log_rows, topic
from adapters.position_warnings import outcome
from adapters.uniswap import owed, v4
from adapters.uniswap.contracts import (
    COLLECT,
    DECREASE_LIQUIDITY,
    GET_SLOT0,
    INCREASE_LIQUIDITY,
    MODIFY_LIQUIDITY,
    POOL_AND_POSITION_INFO,
    POSITIONS,
    STATE_VIEW,
    V4_LABEL,
    currency,
    label,
    pool_id,
)
from adapters.uniswap.figures import LEGS
from adapters.uniswap.positions import position
from adapters.uniswap.section import UniswapAddresses, UniswapV4Addresses
from chain import ChainReader, Log
from chain.abi import decode
from chain.erc20 import TRANSFER
from chain.event_index import Stream
from chain.index_store import WALLET_STREAMS
from errors import ProtocolError

IDS_PER_STREAM = 100
"""Token ids (v4: pools) one stream, one eth_getLogs filter, asks for; more take several."""
ADDED, REMOVED = [("token", "liquidity-added", 1)], [("token", "liquidity-removed", -1), ("owed", "owed", 1)]
"""IncreaseLiquidity's and DecreaseLiquidity's changes: (leg, kind, sign) for both tokens' amounts."""
Place = tuple[int, int]
"""(block, log index): where a log is in the chain."""
END: Place = (2**63, 0)
Reading = Callable[[ChainReader, int], Awaitable[dict[str, Any] | None]]
"""(a reader at a block, token id) -> the position's answer there (None: it holds nothing)."""
Spans = dict[int, list[tuple[Place, Place]]]
"""Per token id, where the wallet owned the NFT (from, to)."""


class Scope(NamedTuple):
    """One position manager's part of a series: the wallet's logs, the legs the points hold, the
    manager, its token ids among them and when the wallet owned each."""

    logs: WalletLogs
    legs: Mapping[str, str]
    manager: str
    ids: list[int]
    owned: Spans
    born: Mapping[int, int]
    """Token ids minted to the wallet in the range -> the mint's block."""


async def flows(
    ctx: FetchContext[UniswapAddresses], wallet: str, logs: WalletLogs, legs: Mapping[str, str]
) -> list[Flow]:
    uniswap, named = ctx.section, topic(wallet)
    v3_name = label(uniswap.v3) if uniswap.v3 else ""
    found: list[Flow] = []
    for manager, events, pair in (
        (uniswap.v3 and uniswap.v3.position_manager.lower(), _v3, _v3_pair(v3_name)),
        (uniswap.v4 and uniswap.v4.position_manager.address.lower(), _v4, _v4_pair),
    ):
        if not manager:
            continue
        transfers = [
            log for log in logs if log.address == manager and len(log.topics) == 4 and log.signature == TRANSFER.topic
        ]
        held = {int(token_id) for owner, token_id, _ in (key.split(":") for key in legs) if owner == manager}
        minted = [log for log in transfers if log.topics[1:3] == (NO_ONE, named) and int(log.topics[3], 16) not in held]
        passing = await asyncio.gather(*(_passing(ctx, logs, manager, pair, log) for log in minted))
        mine = {**legs, **{key: token for part in passing for key, token in part.items()}}
        ids = sorted(held | {int(log.topics[3], 16) for log in minted})
        if not ids:
            continue
        nft = [log for log in transfers if int(log.topics[3], 16) in ids]
        born = {int(log.topics[3], 16): log.block_number for log in minted}
        read, changes = await events(ctx, Scope(logs, mine, manager, ids, _ownership(nft, named), born))
        found += changes
        sent = await asyncio.gather(
            *(_sent(ctx, read, manager, log, named) for log in nft if NO_ONE not in log.topics[1:3])
        )
        found += [flow for flows in sent for flow in flows]
    return sorted(found, key=lambda flow: (flow.block, flow.log_index))


Pair = Callable[[ChainReader, str, int], Awaitable[tuple[str, str]]]
"""(a reader, the manager, token id) -> the position's two tokens (as its answer names them)."""


async def _passing(ctx: FetchContext[Any], logs: WalletLogs, manager: str, pair: Pair, minted: Log) -> dict[str, str]:
    """The legs of an NFT minted to the wallet in the range that the last point no longer holds
    (entered and left between the points), its tokens read at the mint's block."""
    token_id = int(minted.topics[3], 16)
    found = await outcome(pair(ctx.chains.reader(ctx.chain_id, minted.block_number), manager, token_id))
    if isinstance(found, ProtocolError):
        logs.unavailable[f"{manager}:{token_id}"] = f"its tokens are unreadable: {found.message}"
        return {}
    return {f"{manager}:{token_id}:{leg}{side}": found[side] for leg, _ in LEGS for side in (0, 1)}


def _v3_pair(name: str) -> Pair:
    """A v3 NFT's tokens, read from the position manager `name` labels."""

    async def pair(reader: ChainReader, manager: str, token_id: int) -> tuple[str, str]:
        nft: Any = await reader.call(manager, POSITIONS, token_id, label=name)
        return str(nft.token0).lower(), str(nft.token1).lower()

    return pair


async def _v4_pair(reader: ChainReader, manager: str, token_id: int) -> tuple[str, str]:
    key = await _v4_key(reader, manager, token_id)
    return currency(key.currency0), currency(key.currency1)


async def _v4_key(reader: ChainReader, manager: str, token_id: int) -> Any:
    """A v4 NFT's PoolKey at the block; a burned or unminted NFT's is empty (no revert): an error."""
    key, _ = await reader.call(manager, POOL_AND_POSITION_INFO, token_id, label=V4_LABEL)
    if not key.tickSpacing:
        raise ProtocolError(f"{V4_LABEL} has no pool for NFT {token_id} at this block (burned, or not minted yet)")
    return key


async def _v3(ctx: FetchContext[UniswapAddresses], scope: Scope) -> tuple[Reading, list[Flow]]:
    logs, legs, manager, ids, owned, _ = scope
    v3 = ctx.section.v3
    assert v3 is not None  # read only where the chain has v3 (flows)
    events = (INCREASE_LIQUIDITY.topic, DECREASE_LIQUIDITY.topic, COLLECT.topic)
    indexed = await _indexed(ctx, logs, manager, (events, _words(ids)), manager)
    mine = [
        log
        for log in _served(scope, indexed)
        if log.address == manager
        and len(log.topics) == 2
        and len(log.data) == 96
        and _owned(owned, int(log.topics[1], 16), log)
    ]
    collected = sorted({int(log.topics[1], 16) for log in mine if log.signature == COLLECT.topic})
    histories = await asyncio.gather(*(owed.events(ctx, manager, token_id, logs.last) for token_id in collected))
    principal: dict[tuple[int, int], tuple[int, int]] = {}
    for token_id, history in zip(collected, histories):
        if history is None:
            logs.unavailable[f"{manager}:{token_id}"] = "its withdrawals are not all read by the event index yet"
        else:
            principal.update(owed.walk(history)[1])
    found = [
        flow
        for log in mine
        if log.signature != COLLECT.topic or (log.block_number, log.log_index) in principal
        for flow in _changes(manager, log, legs, principal)
    ]
    return (lambda reader, token_id: position(ctx, reader, v3, token_id)), found


def _served(scope: Scope, indexed: list[Log] | None) -> list[Log]:
    """The manager's logs, or none with its positions named as not derived where its stream holds
    more than one request reads."""
    if indexed is None:
        for token_id in scope.ids:
            scope.logs.unavailable[f"{scope.manager}:{token_id}"] = "more logs than one request reads"
    return indexed or []


async def _v4(ctx: FetchContext[UniswapAddresses], scope: Scope) -> tuple[Reading, list[Flow]]:
    logs, legs, manager, ids, owned, _ = scope
    deployment = ctx.section.v4
    assert deployment is not None  # read only where the chain has v4 (flows)

    async def read(reader: ChainReader, token_id: int) -> dict[str, Any] | None:
        return await v4.position(reader, ctx.chain, deployment, token_id, ctx.warnings)

    pools = await _pools(ctx, scope)
    if not pools:
        return read, []
    charged: set[tuple[int, int]] = set()
    """(token id, block) whose fees a modification already paid out."""
    pool_manager = deployment.pool_manager.lower()
    indexed = await _indexed(ctx, logs, pool_manager, (MODIFY_LIQUIDITY.topic, _words(pools), topic(manager)), manager)
    modifications = []
    for log in _served(scope, indexed):
        if len(log.topics) != 3 or len(log.data) != 128:
            continue
        lower, upper, delta, salt = decode(("int24", "int24", "int256", "bytes32"), log.data)
        token_id = int.from_bytes(salt, "big")
        if token_id in ids and _owned(owned, token_id, log):
            fees = (token_id, log.block_number) not in charged
            charged.add((token_id, log.block_number))
            change = (manager, token_id, lower, upper, delta)
            modifications.append((token_id, _modified(ctx, read, deployment, log, change, fees, legs)))
    found: list[Flow] = []
    valued = await asyncio.gather(*(outcome(modified) for _, modified in modifications))  # side by side
    for (token_id, _), modified in zip(modifications, valued):
        if isinstance(modified, ProtocolError):
            logs.unavailable[f"{manager}:{token_id}"] = modified.message
        else:
            found += modified
    return read, found


async def _pools(ctx: FetchContext[Any], scope: Scope) -> list[int]:
    """The PoolIds of the v4 token ids: read at the mint's block for one minted in the range, else
    at the range's last block, else at the block before its first (burned since)."""
    at = ctx.chains.reader

    async def pool(token_id: int) -> int | None:
        born = scope.born.get(token_id)
        readers = (
            [at(ctx.chain_id, born)] if born is not None else [ctx.reader(), at(ctx.chain_id, scope.logs.first - 1)]
        )
        for reader in readers:
            found = await outcome(_v4_key(reader, scope.manager, token_id))
            if not isinstance(found, ProtocolError):
                return int.from_bytes(pool_id(found), "big")
        scope.logs.unavailable[f"{scope.manager}:{token_id}"] = "its pool is unreadable"
        return None

    found = await asyncio.gather(*(pool(token_id) for token_id in scope.ids))
    return sorted({pool for pool in found if pool is not None})


async def _modified(
    ctx: FetchContext[Any],
    read: Reading,
    deployment: UniswapV4Addresses,
    log: Log,
    change: tuple[str, int, int, int, int],
    fees: bool,
    legs: Mapping[str, str],
) -> list[Flow]:
    """A v4 ModifyLiquidity of the wallet's position: its principal at the pool's price before the
    block, and (the first in its block) the fees it paid out."""
    manager, token_id, lower, upper, delta = change
    _, pool, _ = log.topics
    before = ctx.chains.reader(ctx.chain_id, log.block_number - 1)
    slot0: Any
    slot0, held = await asyncio.gather(
        before.call(deployment.state_view, GET_SLOT0, bytes.fromhex(pool[2:]), label=STATE_VIEW),
        read(before, token_id) if fees else _nothing(),
    )
    if not slot0.sqrtPriceX96:  # the pool was made in this block: its price after it, the nearest read
        after = ctx.chains.reader(ctx.chain_id, log.block_number)
        slot0 = await after.call(deployment.state_view, GET_SLOT0, bytes.fromhex(pool[2:]), label=STATE_VIEW)
        if not slot0.sqrtPriceX96:
            raise ProtocolError(f"pool {pool} has no price at block {log.block_number}")
    moved = tick_math.amounts(slot0.sqrtPriceX96, slot0.tick, lower, upper, abs(delta), up=delta > 0)
    key, at = f"{manager}:{token_id}", (log.block_number, log.log_index, log.transaction_hash)
    kind, sign = ("liquidity-added", 1) if delta > 0 else ("liquidity-removed", -1)
    paid = (int(held["uncollectedFees0"]), int(held["uncollectedFees1"])) if held else (0, 0)
    changes = [(f"{key}:token{side}", kind, sign * amount) for side, amount in enumerate(moved)]
    changes += [(f"{key}:fees{side}", "collect", -amount) for side, amount in enumerate(paid)]
    return [Flow(leg, what, *at, legs[leg], amount) for leg, what, amount in changes if amount and leg in legs]


async def _nothing() -> None:
    return None


async def _indexed(
    ctx: FetchContext[Any], logs: WalletLogs, address: str, filter_: tuple[str | tuple[str, ...], ...], manager: str
) -> list[Log] | None:
    """The logs of `address` matching `filter_` over the range, from an index stream named by
    the filter's contents (several when the filter's second topic lists more than IDS_PER_STREAM);
    None where one holds more than one request reads."""
    event, keys, *rest = filter_
    keys = keys if isinstance(keys, tuple) else (keys,)
    chunks = [keys[start : start + IDS_PER_STREAM] for start in range(0, len(keys), IDS_PER_STREAM)]

    async def chunk(part: tuple[str, ...]) -> list[Log] | None:
        digest = hashlib.sha256(",".join(part).encode()).hexdigest()[:16]
        prefix = f"{WALLET_STREAMS}positions-{manager}-{digest}-"

        def stream(start: int) -> Stream:
            return Stream(f"{prefix}{start}", (address,), (), start, log_rows, filters=((event, part, *rest),))

        return await logs.more(ctx, prefix, stream)

    parts = await asyncio.gather(*(chunk(part) for part in chunks))
    return None if None in parts else [log for part in parts if part is not None for log in part]


def _words(values: list[int]) -> tuple[str, ...]:
    return tuple(f"0x{value:064x}" for value in values)


def _ownership(nft: list[Log], named: str) -> Spans:
    """Per token id, when the wallet owned the NFT over the range, from its Transfers (mints and
    burns too): an event of the position counts only then. Owned from the start unless its first
    Transfer brings it in."""
    spans: Spans = {}
    opened: dict[int, Place | None] = {}
    for log in sorted(nft, key=lambda log: (log.block_number, log.log_index)):
        _, source, target, token = log.topics
        token_id, place = int(token, 16), (log.block_number, log.log_index)
        if target == named:
            opened[token_id] = place
        elif source == named:
            start = opened.get(token_id, (-1, -1))
            if start is not None:  # a burn ends nothing that follows (v4's Transfer precedes its removal)
                spans.setdefault(token_id, []).append((start, END if target == NO_ONE else place))
            opened[token_id] = None
    for token_id, start in opened.items():
        if start is not None:
            spans.setdefault(token_id, []).append((start, END))
    return spans


def _owned(spans: Spans, token_id: int, log: Log) -> bool:
    """Whether the wallet owned the NFT where `log` is (no Transfer in the range: throughout)."""
    place = (log.block_number, log.log_index)
    return token_id not in spans or any(start < place < end for start, end in spans[token_id])


def _changes(
    manager: str, log: Log, legs: Mapping[str, str], principal: Mapping[tuple[int, int], tuple[int, int]]
) -> list[Flow]:
    """A v3 IncreaseLiquidity, DecreaseLiquidity or Collect as the flows of the legs it changes;
    `principal`: what of each Collect was principal (owed.walk), by its place."""
    event, token_id = log.topics
    key, at = f"{manager}:{int(token_id, 16)}", (log.block_number, log.log_index, log.transaction_hash)
    if event == COLLECT.topic:
        _, *paid = decode(("address", "uint256", "uint256"), log.data)
        withdrawn = principal[(log.block_number, log.log_index)]
        parts = (("owed", withdrawn), ("fees", [amount - part for amount, part in zip(paid, withdrawn)]))
        changes = [(leg, "collect", side, -amount) for leg, amounts in parts for side, amount in enumerate(amounts)]
    else:
        _, *amounts = decode(("uint128", "uint256", "uint256"), log.data)
        moved = ADDED if event == INCREASE_LIQUIDITY.topic else REMOVED
        changes = [(leg, kind, side, sign * amount) for leg, kind, sign in moved for side, amount in enumerate(amounts)]
    return [
        Flow(f"{key}:{leg}{side}", kind, *at, legs[f"{key}:{leg}{side}"], amount)
        for leg, kind, side, amount in changes
        if amount and f"{key}:{leg}{side}" in legs
    ]


async def _sent(ctx: FetchContext[Any], read: Reading, manager: str, log: Log, named: str) -> list[Flow]:
    """The NFT sent to or from the wallet: each leg by the position's figures at the block."""
    _, source, target, token_id = log.topics
    if (source == named) == (target == named):
        return []
    answer = await read(ctx.chains.reader(ctx.chain_id, log.block_number), int(token_id, 16))
    if answer is None:
        return []
    key = f"{manager}:{int(token_id, 16)}"
    at, kind, sign = (log.block_number, log.log_index, log.transaction_hash), "transfer-out", -1
    if target == named:
        kind, sign = "transfer-in", 1
    return [
        Flow(f"{key}:{leg}{side}", kind, *at, asset, sign * amount)
        for leg, field in LEGS
        for side in (0, 1)
        if (amount := int(answer[f"{field}{side}"])) and (asset := str(answer[f"token{side}"]["address"]).lower())
    ]
