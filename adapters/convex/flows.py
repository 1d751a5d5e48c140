"""A wallet's flows in Convex (docs/protocols/convex.md, "Flows and earnings"), keyed as positions.py
keys its legs: the Curve pool's coins `<curve pool>:<coin>` (deposits of one Curve pool in two Booster
pools are one leg, as in the points), the rewards `<reward pool>:<token>:reward`.

- The deposits: those the wallet has at the series' first and last point, as positions.py finds
  them (its scan, at both blocks), each with its Curve pool and the reward pool's extra rewards.
- A deposit's LP: its reward pool's `Staked` naming the wallet adds it (`deposit` where the
  Booster's `Deposited` for the wallet is in the transaction, else `stake` of the deposit token),
  its `Withdrawn` takes it out (`withdraw` where the Booster's `Withdrawn` to the wallet is in the
  transaction: `withdrawAndUnwrap`, else `unstake` to the deposit token); each in the Curve pool's
  coins as the deposit's legs are, at the flow's block (adapters/curve/flows.py `in_coins`).
- Claims: the reward pool's `RewardPaid` takes the CRV it paid out of the CRV leg, and the CVX the
  Booster minted in the claim (CVX's Transfer from nowhere to the wallet just before it in the
  transaction) out of the CVX leg; an extra reward pool's `RewardPaid` takes its token out of its
  leg (keyed by the main reward pool, as positions.py keys it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import NamedTuple

from adapters.context import FetchContext
from adapters.convex.contracts import DEPOSITED, REWARD_PAID, REWARD_TOKEN, STAKED, UNSTAKED, WITHDRAWN
from adapters.convex.figures import pool_of
from adapters.convex.positions import Deposit, extra_pools, held
from adapters.convex.section import ConvexAddresses
from adapters.curve import figures
from adapters.curve.flows import LpPool, in_coins
from adapters.flows import Flow, WalletLogs, topic, transferred
from adapters.position_warnings import outcome
from chain import ChainReader, Log
from chain.abi import decode
from errors import ProtocolError


class Extra(NamedTuple):
    """An extra reward pool: the reward pool it belongs to and the token it pays."""

    rewards: str
    token: str


async def flows(
    ctx: FetchContext[ConvexAddresses], wallet: str, logs: WalletLogs, legs: Mapping[str, str]
) -> list[Flow]:
    convex, reader = ctx.section, ctx.reader()
    first = ctx.chains.reader(ctx.chain_id, logs.first - 1)
    found = await asyncio.gather(*(held(at, ctx.chain, convex, wallet) for at in (first, reader)))
    deposits = {d.rewards.lower(): d for deposit in found for d in deposit}
    pools, extras = await asyncio.gather(_pools(reader, logs, deposits), _extras(reader, logs, deposits))
    named, moved = topic(wallet), []
    booster = {
        (log.transaction_hash, log.signature)
        for log in logs
        if log.address == convex.booster.lower() and log.topics[1:2] == (named,)
    }
    claims: list[Flow] = []
    for log in logs:
        at = (log.block_number, log.log_index, log.transaction_hash)
        if log.topics[1:2] != (named,) or len(log.data) != 32:
            continue
        (amount,) = decode(("uint256",), log.data)
        if log.address in deposits and log.address in pools:
            pool = pools[log.address]
            if log.signature == STAKED.topic:
                kind = "deposit" if (log.transaction_hash, DEPOSITED.topic) in booster else "stake"
                moved.append(in_coins(_at(ctx, log), logs, pool, pool.address, (kind, *at, amount), amount))
            elif log.signature == UNSTAKED.topic:
                kind = "withdraw" if (log.transaction_hash, WITHDRAWN.topic) in booster else "unstake"
                moved.append(in_coins(_at(ctx, log), logs, pool, pool.address, (kind, *at, -amount), amount))
        if log.signature == REWARD_PAID.topic and log.address in deposits:
            claims.append(Flow(f"{log.address}:{convex.crv.lower()}:reward", "claim", *at, convex.crv.lower(), -amount))
            claims += _cvx_minted(logs, convex, log, named)
        elif log.signature == REWARD_PAID.topic and log.address in extras:
            extra = extras[log.address]
            claims.append(Flow(f"{extra.rewards}:{extra.token}:reward", "claim", *at, extra.token, -amount))
    found_flows = await asyncio.gather(*moved)
    return sorted([*claims, *(flow for flows in found_flows for flow in flows)], key=lambda flow: flow[2:4])


def _at(ctx: FetchContext[ConvexAddresses], log: Log) -> ChainReader:
    return ctx.chains.reader(ctx.chain_id, log.block_number)


def _cvx_minted(logs: WalletLogs, convex: ConvexAddresses, paid: Log, named: str) -> list[Flow]:
    """The CVX the Booster minted to the wallet for a claim: CVX's mint to it just before the
    reward pool's `RewardPaid` in the transaction (none past CVX's last cliff)."""
    cvx = convex.cvx.lower()
    minted = [
        (log, moved.amount)
        for log in logs
        if log.address == cvx
        and log.transaction_hash == paid.transaction_hash
        and log.log_index < paid.log_index
        and (moved := transferred(log, named)) is not None
        and moved.kind == "mint"
    ]
    if not minted:
        return []
    log, amount = minted[-1]
    at = (log.block_number, log.log_index, log.transaction_hash)
    return [Flow(f"{paid.address}:{cvx}:reward", "claim", *at, cvx, -amount)]


async def _pools(reader: ChainReader, logs: WalletLogs, deposits: Mapping[str, Deposit]) -> dict[str, LpPool]:
    """Each reward pool's Curve pool, with its kind and coins; one unreadable names the deposit."""

    async def pool(deposit: Deposit) -> LpPool:
        address, kind = await pool_of(reader, deposit.lp_token)
        return LpPool(address.lower(), deposit.lp_token, kind, await figures.coin_list(reader, address))

    found = await asyncio.gather(*(outcome(pool(d)) for d in deposits.values()))
    pools = {}
    for rewards, got in zip(deposits, found):
        if isinstance(got, ProtocolError):
            logs.unavailable[rewards] = f"its Curve pool is unreadable: {got.message}"
        else:
            pools[rewards] = got
    return pools


async def _extras(reader: ChainReader, logs: WalletLogs, deposits: Mapping[str, Deposit]) -> dict[str, Extra]:
    """The extra reward pools of each reward pool, with the token each pays, by extra pool."""

    async def of(rewards: str) -> list[tuple[str, Extra]]:
        pools = await extra_pools(reader, rewards)
        tokens = await asyncio.gather(
            *(reader.call(extra, REWARD_TOKEN, label=f"Convex extra reward {extra}") for extra in pools)
        )
        return [(extra, Extra(rewards, str(token).lower())) for extra, (token,) in zip(pools, tokens)]

    found = await asyncio.gather(*(outcome(of(rewards)) for rewards in deposits))
    extras: dict[str, Extra] = {}
    for rewards, got in zip(deposits, found):
        if isinstance(got, ProtocolError):
            logs.unavailable[rewards] = f"its extra rewards are unreadable: {got.message}"
        else:
            extras.update(got)
    return extras
