"""A wallet's flows in Uniswap v3 positions (docs/protocols/uniswap.md), per position NFT
(`<positionManager>:<tokenId>`) in four legs, each in one token's raw units:

- `:token0`, `:token1`: what the liquidity is worth (amount0, amount1). `IncreaseLiquidity` adds
  the amounts paid in; `DecreaseLiquidity` takes out the amounts it moved to the tokens owed. What
  these legs "earn" is the pool's trading against the position as the price moves: their
  `earnedUsd` summed is the position's value against holding what was put in (impermanent loss).
- `:fees0`, `:fees1`: what collecting pays (uncollectedFees0/1: fees and the tokens owed).
  `DecreaseLiquidity` adds its amounts (`owed`), `Collect` takes out what it paid: what these legs
  earn is the fees, exactly.
- The NFT itself sent to or from another holder: every leg moves by the position's figures at
  the transfer's block (its state after the block, read as the positions are read).

The manager's events name the position by token id, not the wallet: they come from an index
stream of the manager's events for the token ids the points hold (`WalletLogs.more`). v4
positions' flows are not derived yet: its PoolManager's `ModifyLiquidity` carries a liquidity
delta, not the amounts, and settles fees inside the same call (FLOWS_UNAVAILABLE names
`uniswap-v4-position`).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping
from typing import Any, cast

from adapters.context import FetchContext
from adapters.flows import NO_ONE, Flow, WalletLogs, log_rows, topic
from adapters.uniswap.contracts import COLLECT, DECREASE_LIQUIDITY, INCREASE_LIQUIDITY
from adapters.uniswap.positions import position
from addresses import UniswapAddresses, UniswapV3Addresses
from chain import Log
from chain.abi import decode
from chain.erc20 import TRANSFER
from chain.event_index import WALLET_STREAMS, Stream

IDS_PER_STREAM = 100
"""Token ids one stream (one eth_getLogs filter) asks for; more take several."""
ADDED, REMOVED, COLLECTED = (
    [("token", "liquidity-added", 1)],
    [("token", "liquidity-removed", -1), ("fees", "owed", 1)],
    [("fees", "collect", -1)],
)
"""Each event's changes: (leg, kind, sign) for both tokens' amounts."""


async def flows(ctx: FetchContext, wallet: str, logs: WalletLogs, legs: Mapping[str, str]) -> list[Flow]:
    v3 = cast(UniswapAddresses, ctx.chain.uniswap).v3
    if v3 is None:
        return []
    manager = v3.position_manager.lower()
    ids = sorted({int(token_id) for owner, token_id, _ in (key.split(":") for key in legs) if owner == manager})
    chunks = [ids[start : start + IDS_PER_STREAM] for start in range(0, len(ids), IDS_PER_STREAM)]
    named, held = topic(wallet), set(ids)
    nft = [
        log
        for log in logs
        if log.address == manager
        and len(log.topics) == 4
        and log.topics[0] == TRANSFER.topic
        and int(log.topics[3], 16) in held
    ]
    owned = _ownership(nft, named)
    found = [
        flow
        for chunk in await asyncio.gather(*(_position_logs(ctx, logs, manager, chunk) for chunk in chunks))
        for log in chunk
        if _owned(owned, log)
        for flow in _changes(manager, log, legs)
    ]
    sent = [_sent(ctx, v3, log, named) for log in nft if NO_ONE not in log.topics[1:3]]
    found += [flow for flows in await asyncio.gather(*sent) for flow in flows]
    return sorted(found, key=lambda flow: (flow.block, flow.log_index))


Place = tuple[int, int]
"""(block, log index): where a log is in the chain."""


def _ownership(nft: list[Log], named: str) -> dict[int, list[tuple[Place, Place]]]:
    """Per token id, when the wallet owned the NFT over the range, from its Transfers (mints and
    burns too): an event of the position counts only then (a manager or another owner may
    operate it while it is away). Owned from the start unless its first Transfer brings it in."""
    spans: dict[int, list[tuple[Place, Place]]] = {}
    opened: dict[int, Place | None] = {}
    for log in sorted(nft, key=lambda log: (log.block_number, log.log_index)):
        _, source, target, token = log.topics
        token_id, place = int(token, 16), (log.block_number, log.log_index)
        if target == named:
            opened[token_id] = place
        elif source == named:
            start = opened.get(token_id, (-1, -1))
            if start is not None:
                spans.setdefault(token_id, []).append((start, place))
            opened[token_id] = None
    for token_id, start in opened.items():
        if start is not None:
            spans.setdefault(token_id, []).append((start, END))
    return spans


END: Place = (2**63, 0)


def _owned(spans: dict[int, list[tuple[Place, Place]]], log: Log) -> bool:
    if len(log.topics) != 2:
        return False
    _, token = log.topics
    token_id, place = int(token, 16), (log.block_number, log.log_index)
    if token_id not in spans:
        return True  # no Transfer in the range: held throughout
    return any(start < place < end for start, end in spans[token_id])


async def _position_logs(ctx: FetchContext, logs: WalletLogs, manager: str, ids: list[int]) -> list[Log]:
    digest = hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()[:16]
    prefix = f"{WALLET_STREAMS}positions-{manager}-{digest}-"
    events = (INCREASE_LIQUIDITY.topic, DECREASE_LIQUIDITY.topic, COLLECT.topic)
    keys = tuple(f"0x{token_id:064x}" for token_id in ids)

    def stream(start: int) -> Stream:
        return Stream(f"{prefix}{start}", (manager,), (), start, log_rows, filters=((events, keys),))

    return await logs.more(ctx, prefix, stream)


def _changes(manager: str, log: Log, legs: Mapping[str, str]) -> list[Flow]:
    """An IncreaseLiquidity, DecreaseLiquidity or Collect as the flows of the legs it changes."""
    if log.address != manager or len(log.topics) != 2 or len(log.data) != 96:
        return []
    event, token_id = log.topics
    key, at = f"{manager}:{int(token_id, 16)}", (log.block_number, log.log_index, log.transaction_hash)
    if event == COLLECT.topic:
        _, *amounts = decode(("address", "uint256", "uint256"), log.data)
        changes = COLLECTED
    else:
        _, *amounts = decode(("uint128", "uint256", "uint256"), log.data)
        added = event == INCREASE_LIQUIDITY.topic
        changes = (
            [("token", "liquidity-added", 1)] if added else [("token", "liquidity-removed", -1), ("fees", "owed", 1)]
        )
    return [
        Flow(f"{key}:{leg}{side}", kind, *at, legs[f"{key}:{leg}{side}"], sign * amount)
        for leg, kind, sign in changes
        for side, amount in enumerate(amounts)
        if amount and f"{key}:{leg}{side}" in legs
    ]


async def _sent(ctx: FetchContext, v3: UniswapV3Addresses, log: Log, named: str) -> list[Flow]:
    """The NFT sent to or from the wallet: each leg by the position's figures at the block."""
    _, source, target, token_id = log.topics
    if (source == named) == (target == named):
        return []
    reader = ctx.chains.reader(ctx.chain_id, log.block_number)
    answer: dict[str, Any] | None = await position(reader, ctx.chain, v3, int(token_id, 16), ctx.warnings)
    if answer is None:
        return []
    inward, key = target == named, f"{v3.position_manager.lower()}:{int(token_id, 16)}"
    at = (log.block_number, log.log_index, log.transaction_hash)
    return [
        Flow(
            f"{key}:{leg}{side}", "transfer-in" if inward else "transfer-out", *at, asset, amount if inward else -amount
        )
        for leg, field in (("token", "amount"), ("fees", "uncollectedFees"))
        for side in (0, 1)
        if (amount := int(answer[f"{field}{side}"])) and (asset := str(answer[f"token{side}"]["address"]).lower())
    ]
