"""A wallet's flows in Aura for `positionsHistory` (docs/protocols/aura.md), from its logs
(adapters/flows.py), keyed as its deposits' legs: the staked BPT's tokens `<rewardPool>:<token>`,
the claimables `<rewardPool>:<token>:reward` (BAL, AURA, extra rewards), each reward pool a pid's
`crvRewards` in one of the chain's Boosters (their own enumeration, booster.py).

- Deposits and withdrawals: the reward pool's `Staked(user, amount)` and `Withdrawn(user,
  amount)` naming the wallet (convex-platform's BaseRewardPool: every way in, the Booster's
  `deposit`, ERC-4626's `deposit` / `mint`, `stake` of deposit tokens, emits `Staked`; every way
  out, `withdraw`, `withdrawAndUnwrap`, ERC-4626's `withdraw` / `redeem`, emits `Withdrawn`),
  one BPT a deposit token. The Booster's `Deposited` / `Withdrawn(user, poolid, amount)` and
  ERC-4626's `Deposit` / `Withdraw` accompany them in the same transaction and are not counted
  again. A reward pool's share transfer to or from another holder (its `Transfer` between two
  holders: reward pools from Aura's December 2022 Booster on; the earlier ones refuse
  transfers) is a `transfer-in` / `transfer-out`. Each BPT amount is valued as the deposit is,
  by Balancer's share math at the move's block (adapters/balancer/shares.py `bpt_flows`).
- Claims: the reward pool's `RewardPaid(user, reward)`, a `claim` of its `rewardToken()` (BAL);
  an extra reward pool's (VirtualBalanceRewardPool, one of the held pools' `extraRewards`), a
  `claim` of the token it pays (a stash token's `baseToken`), out of its reward pool's leg. AURA:
  within `getReward`, the Booster's `rewardClaimed` has its minter pay the claimer before the
  reward pool's `RewardPaid`: AURA minted to the wallet (Ethereum: Aura.sol's `mint`, a Transfer
  from zero) or AuraOFT sent by the L2Coordinator (a sidechain), the claim of the next
  `RewardPaid` of a reward pool in the transaction.
- A Booster whose pools cannot be read names the legs of pools no other Booster lists unavailable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from adapters.aura.booster import boosters, extra_pools, listed, paid_token
from adapters.aura.contracts import REWARD_PAID, REWARD_TOKEN, STAKED, WITHDRAWN
from adapters.aura.section import AuraParts
from adapters.balancer.shares import BptMove, bpt_flows
from adapters.context import FetchContext
from adapters.deployment import existing
from adapters.flows import Flow, WalletLogs, topic, transferred
from adapters.position_warnings import outcome
from chain import Log, first
from chain.abi import decode
from errors import ProtocolError


async def flows(ctx: FetchContext[AuraParts], wallet: str, logs: WalletLogs, legs: Mapping[str, str]) -> list[Flow]:
    named = topic(wallet)
    pools = await _pools(ctx, logs, legs)
    mine = [log for log in logs if log.address in pools and log.topics[1:2] == (named,)]
    paying = sorted({log.address for log in mine if log.signature == REWARD_PAID.topic})
    held = sorted({_holder(key) for key in legs if _holder(key) in pools} | set(paying))
    extras, tokens = await asyncio.gather(_extras(ctx, held), _reward_tokens(ctx, paying))
    moves, claims, paid = [], [], []
    for log in logs:
        at = (log.block_number, log.log_index, log.transaction_hash)
        moved = transferred(log, named)
        if log.address in pools and moved is not None and moved.kind in ("transfer-in", "transfer-out"):
            moves.append(BptMove(log.address, pools[log.address], moved.kind, log, moved.amount))
        elif log.address in pools and log.topics[1:2] == (named,) and len(log.data) == 32:
            (amount,) = decode(("uint256",), log.data)
            if log.signature in (STAKED.topic, WITHDRAWN.topic):
                kind, sign = ("deposit", 1) if log.signature == STAKED.topic else ("withdraw", -1)
                moves.append(BptMove(log.address, pools[log.address], kind, log, sign * amount))
            elif log.signature == REWARD_PAID.topic:
                claims.append(
                    Flow(f"{log.address}:{tokens[log.address]}:reward", "claim", *at, tokens[log.address], -amount)
                )
                paid.append(log)
        elif log.address in extras and log.signature == REWARD_PAID.topic and log.topics[1:2] == (named,):
            (amount,) = decode(("uint256",), log.data)
            pool, token = extras[log.address]
            claims.append(Flow(f"{pool}:{token}:reward", "claim", *at, token, -amount))
    valued = await bpt_flows(ctx, ctx.section.balancer, moves, logs)
    return sorted([*valued, *claims, *_aura(ctx.section, logs, named, paid)], key=lambda flow: flow[2:4])


async def _pools(ctx: FetchContext[AuraParts], logs: WalletLogs, legs: Mapping[str, str]) -> dict[str, str]:
    """Every reward pool of the Boosters that existed at the range's last block, with its BPT; the
    legs of pools none lists, where a Booster cannot be read, named unavailable."""
    aura, reader = ctx.section.aura, ctx.reader()
    present = await existing(reader, boosters(aura), lambda booster: booster)
    listings = await asyncio.gather(*(outcome(listed(reader, aura, booster)) for booster in present))
    pools = {
        info.crvRewards.lower(): info.lptoken.lower()
        for infos in listings
        if not isinstance(infos, ProtocolError)
        for info in infos
    }
    for booster, failed in zip(present, listings):
        if isinstance(failed, ProtocolError):
            for key in legs:
                if _holder(key) not in pools:
                    logs.unavailable[key] = f"Aura Booster {booster}'s pools are unreadable: {failed.message}"
    return pools


async def _extras(ctx: FetchContext[AuraParts], pools: list[str]) -> dict[str, tuple[str, str]]:
    """Each extra reward pool of `pools`: its reward pool and the token a claim pays."""
    reader = ctx.reader()
    found = await asyncio.gather(*(extra_pools(reader, pool) for pool in pools))
    extras = [(extra, pool) for pool, listed_extras in zip(pools, found) for extra in listed_extras]
    tokens = await asyncio.gather(*(paid_token(reader, extra) for extra, _ in extras))
    return {extra: (pool, token) for (extra, pool), token in zip(extras, tokens)}


async def _reward_tokens(ctx: FetchContext[AuraParts], pools: list[str]) -> dict[str, str]:
    reader = ctx.reader()
    found = await asyncio.gather(
        *(first(reader.call(pool, REWARD_TOKEN, label=f"Aura reward pool {pool}")) for pool in pools)
    )
    return {pool: str(token).lower() for pool, token in zip(pools, found)}


def _aura(parts: AuraParts, logs: WalletLogs, named: str, paid: list[Log]) -> list[Flow]:
    """AURA the wallet received from its minter (zero on Ethereum, the L2Coordinator on a
    sidechain), each the claim of the next `RewardPaid` of a reward pool in its transaction."""
    aura = parts.aura
    source = topic(aura.l2_coordinator) if aura.l2_coordinator else "0x" + "00" * 32
    found = []
    for log in logs:
        moved = transferred(log, named)
        if log.address != aura.aura or moved is None or moved.amount <= 0 or moved.other != source:
            continue
        after = (p.address for p in paid if p.transaction_hash == log.transaction_hash and p.log_index > log.log_index)
        if pool := next(after, None):
            at = (log.block_number, log.log_index, log.transaction_hash)
            found.append(Flow(f"{pool}:{aura.aura}:reward", "claim", *at, aura.aura, -moved.amount))
    return found


def _holder(key: str) -> str:
    """The contract a leg's key names first (a reward pool)."""
    holder, _, _ = key.partition(":")
    return holder
