"""A wallet's flows in Curve (docs/protocols/curve.md, "Flows and earnings"), keyed as positions.py
keys its legs: the LP held's coins `<pool>:<coin>`, the staked LP's `<gauge>:<coin>`, the gauge's
rewards `<gauge>:<token>:reward`.

- The pools: those the wallet holds LP of or has staked at the series' first and last point, as
  positions.py finds them (its scan, at both blocks), each with its LP token and gauge.
- LP (`lp_moves`): the LP token's Transfers that name the wallet: a mint is the pool's own event in
  the transaction (`add-liquidity`; a mint without one, through a zap: `mint`), a burn likewise
  (`remove-liquidity`, `remove-liquidity-one`, `remove-liquidity-imbalance`; else `burn`), a transfer
  to or from the pool's gauge is a `stake` or `unstake` of the LP held, any other a `transfer-in` or
  `transfer-out`. The gauge's `Deposit` and `Withdraw` naming the wallet stake and unstake its
  staked legs; its token's transfers to or from another holder are transfers of them.
- Each LP amount is in the pool's coins as a position's legs are (figures.in_coins of `balances(i)`
  and the LP's `totalSupply`), at the flow's block (its state after the block).
- Claims: a reward token's Transfer from a gauge to the wallet takes what it paid out of the
  gauge's reward leg (`claim`); CRV minted (the Minter's or a child gauge factory's `Minted` naming
  the wallet) is the CRV Transfer to the wallet just before it in the transaction, out of the
  gauge's CRV leg (`Minted` logs the total minted so far, not the claim).
- A pool event naming the wallet from a pool neither point holds (entered and left between them)
  is named in FLOWS_UNAVAILABLE: ask more points.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, NamedTuple

from adapters.context import FetchContext
from adapters.curve import figures
from adapters.curve.contracts import (
    ADD_LIQUIDITY,
    GAUGE_DEPOSIT,
    GAUGE_WITHDRAW,
    MINTED,
    REMOVE_LIQUIDITY,
    REMOVE_LIQUIDITY_IMBALANCE,
    REMOVE_LIQUIDITY_ONE,
)
from adapters.curve.positions import Held, holdings
from adapters.curve.section import CurveAddresses
from adapters.flows import Flow, WalletLogs, address_of, topic, transferred
from adapters.position_warnings import Warnings, outcome
from chain import ChainReader
from chain.abi import decode
from errors import ProtocolError

POOL_EVENTS = {
    **{event.topic: "add-liquidity" for event in ADD_LIQUIDITY},
    **{event.topic: "remove-liquidity" for event in REMOVE_LIQUIDITY},
    **{event.topic: "remove-liquidity-one" for event in REMOVE_LIQUIDITY_ONE},
    **{event.topic: "remove-liquidity-imbalance" for event in REMOVE_LIQUIDITY_IMBALANCE},
}
"""A pool's liquidity events by topic, as the kinds of the LP flows they explain."""


class Move(NamedTuple):
    """LP into or out of a part of a position (the pool's LP held, the gauge's staked LP), before
    it is valued in the pool's coins."""

    part: str
    """The pool (LP held) or its gauge (LP staked)."""
    pool: Held
    kind: str
    block: int
    log_index: int
    transaction: str
    lp: int
    """Signed: into the part, or out of it."""


class LpPool(NamedTuple):
    """What the flows value a pool's LP by: its address, LP token, kind and coins."""

    address: str
    lp_token: str
    kind: str
    coins: tuple[list[str], bool]


async def flows(
    ctx: FetchContext[CurveAddresses], wallet: str, logs: WalletLogs, legs: Mapping[str, str]
) -> list[Flow]:
    curve, reader = ctx.section, ctx.reader()
    pools = await _pools(ctx, wallet, logs)
    named = topic(wallet)
    moves = [*lp_moves(logs, pools, named), *_gauge_moves(logs, pools, named)]
    claims = [*_gauge_claims(logs, pools, named), *_minted(logs, curve, named)]
    held = sorted({move.pool.pool.lower() for move in moves})
    listed = await asyncio.gather(*(outcome(figures.coin_list(reader, pool)) for pool in held))
    valued: dict[str, LpPool] = {}
    for pool, coins in zip(held, listed):
        h = pools[pool]
        if isinstance(coins, ProtocolError):
            for part in filter(None, (h.pool, h.gauge)):
                logs.unavailable[part.lower()] = f"its pool's coins are unreadable: {coins.message}"
        else:
            valued[pool] = LpPool(h.pool.lower(), h.lp_token, h.factory.kind, coins)
    found = await asyncio.gather(*(valued_move(ctx, logs, valued, move) for move in moves))
    return sorted([*claims, *(flow for flows in found for flow in flows)], key=lambda flow: flow[2:4])


async def _pools(ctx: FetchContext[CurveAddresses], wallet: str, logs: WalletLogs) -> dict[str, Held]:
    """The pools held at the series' first and last point, by pool, LP token and gauge (lower
    case); a factory unreadable at either is named."""
    first, last = ctx.chains.reader(ctx.chain_id, logs.first - 1), ctx.reader()
    warned = Warnings()
    found = await asyncio.gather(*(holdings(at, ctx.chain, ctx.section, wallet, warned) for at in (first, last)))
    for warning in warned.as_list():
        logs.unavailable[warning["target"].lower()] = f"its pools are unread at a point: {warning['message']}"
    pools: dict[str, Held] = {}
    for h in (h for held in found for h in held):
        pools.update({part.lower(): h for part in (h.pool, h.lp_token, h.gauge) if part})
    return pools


def lp_moves(logs: WalletLogs, pools: Mapping[str, Held], named: str) -> list[Move]:
    """The LP held's moves: its token's Transfers naming the wallet, each named by the pool's own
    event in the transaction (mints and burns) or its other side (the gauge: a stake)."""
    explained: dict[tuple[str, str], str] = {}
    for log in logs:
        kind = POOL_EVENTS.get(log.signature or "")
        if kind and log.topics[1:2] == (named,):
            if log.address in pools:
                explained[(log.transaction_hash, pools[log.address].pool.lower())] = kind
            else:
                logs.unavailable[log.address] = (
                    f"a Curve pool's {kind} naming the wallet at block {log.block_number}, in a pool neither "
                    "the first nor the last point holds (entered and left between them: ask more points)"
                )
    moves = []
    for log in logs:
        h = pools.get(log.address)
        if h is None or log.address != h.lp_token.lower() or (moved := transferred(log, named)) is None:
            continue
        other, pool = address_of(moved.other), h.pool.lower()
        if moved.kind in ("mint", "burn"):
            kind = explained.get((log.transaction_hash, pool), moved.kind)
        elif h.gauge and other == h.gauge.lower():
            kind = "unstake" if moved.amount > 0 else "stake"
        else:
            kind = moved.kind
        moves.append(Move(pool, h, kind, log.block_number, log.log_index, log.transaction_hash, moved.amount))
    return moves


def _gauge_moves(logs: WalletLogs, pools: Mapping[str, Held], named: str) -> list[Move]:
    """The staked LP's moves: the gauge's `Deposit` and `Withdraw` naming the wallet, and its
    token's transfers to or from another holder (its mints and burns are those deposits)."""
    moves = []
    for log in logs:
        h = pools.get(log.address)
        if h is None or not h.gauge or log.address != h.gauge.lower():
            continue
        at = (log.block_number, log.log_index, log.transaction_hash)
        if log.signature in (GAUGE_DEPOSIT.topic, GAUGE_WITHDRAW.topic) and log.topics[1:2] == (named,):
            (value,) = decode(("uint256",), log.data[:32])
            deposit = log.signature == GAUGE_DEPOSIT.topic
            moves.append(Move(log.address, h, "stake" if deposit else "unstake", *at, value if deposit else -value))
        elif (moved := transferred(log, named)) is not None and moved.kind in ("transfer-in", "transfer-out"):
            moves.append(Move(log.address, h, moved.kind, *at, moved.amount))
    return moves


def _gauge_claims(logs: WalletLogs, pools: Mapping[str, Held], named: str) -> list[Flow]:
    """Rewards a gauge paid the wallet: a token other than its LP sent from the gauge."""
    claims = []
    for log in logs:
        moved = transferred(log, named)
        if moved is None or moved.kind != "transfer-in":
            continue
        gauge = address_of(moved.other)
        h = pools.get(gauge)
        if h is not None and h.gauge and gauge == h.gauge.lower() and log.address != h.lp_token.lower():
            at = (log.block_number, log.log_index, log.transaction_hash)
            claims.append(Flow(f"{gauge}:{log.address}:reward", "claim", *at, log.address, -moved.amount))
    return claims


def _minted(logs: WalletLogs, curve: CurveAddresses, named: str) -> list[Flow]:
    """CRV minted to the wallet for a gauge: the CRV Transfer to it just before each `Minted`
    naming it in the transaction (the Minter mints, then logs; a child gauge factory sends)."""
    crv = (curve.crv or "").lower()
    claims, received = [], []
    for log in logs:
        if log.address == crv and (moved := transferred(log, named)) is not None and moved.amount > 0:
            received.append((log, moved.amount))
        elif crv and log.signature == MINTED.topic and log.topics[1:2] == (named,):
            gauge = address_of(log.topics[2]) if len(log.topics) == 3 else address_of("0x" + log.data[:32].hex())
            paid = [(mint, amount) for mint, amount in received if mint.transaction_hash == log.transaction_hash]
            if not paid:
                logs.unavailable[f"{gauge}:{crv}:reward"] = (
                    f"a Minted at block {log.block_number} with no CRV sent to the wallet before it in its transaction"
                )
                continue
            mint, amount = paid[-1]
            received.remove((mint, amount))
            at = (mint.block_number, mint.log_index, mint.transaction_hash)
            claims.append(Flow(f"{gauge}:{crv}:reward", "claim", *at, crv, -amount))
    return claims


async def valued_move(ctx: FetchContext[Any], logs: WalletLogs, pools: Mapping[str, LpPool], move: Move) -> list[Flow]:
    """A move of LP as flows of each of its pool's coins, worth what the LP is at its block; a pool
    whose reads fail there names the part unavailable."""
    pool = pools.get(move.pool.pool.lower())
    if pool is None:
        return []
    return await in_coins(ctx.chains.reader(ctx.chain_id, move.block), logs, pool, move.part, move[2:], abs(move.lp))


async def in_coins(
    reader: ChainReader, logs: WalletLogs, pool: LpPool, part: str, move: tuple[Any, ...], lp: int
) -> list[Flow]:
    """`lp` of `pool` moved into (positive `move`'s amount) or out of `part`, a flow per coin
    (`move`: kind, block, log index, transaction, signed LP)."""
    kind, block, log_index, transaction, signed = move
    amounts = await outcome(figures.lp_in_coins(reader, pool.address, pool.lp_token, pool.kind, pool.coins, lp))
    if isinstance(amounts, ProtocolError):
        logs.unavailable[part] = f"the pool's balances at block {block} are unreadable: {amounts.message}"
        return []
    sign = 1 if signed > 0 else -1
    coins, _ = pool.coins
    return [
        Flow(f"{part}:{coin}", kind, block, log_index, transaction, coin, sign * amount)
        for coin, amount in zip(coins, amounts)
    ]
