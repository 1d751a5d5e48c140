"""Aura's `poolDetails`: one pool of a Booster, by its reward pool's address (its BaseRewardPool,
`poolInfo(pid).crvRewards`), with what staking in it earns.

- Known: the reward pool of a pid below `poolLength()` of one of the chain's Boosters (the
  current one first, then the earlier ones), found in the Boosters' own enumeration: the reads
  positions make (each pid's `poolInfo` once per process), so a chain's ~300 pools cost one round
  once, then none. Anything else is a VALIDATION_ERROR. Why the reward pool and not the pid: it
  names one pid of one Booster by an address, the form `poolDetails` takes (a pid is a number of
  a Booster, and a BPT may have several pids, shut down and added again).
- `poolInfo(pid)` at the block: `lptoken` (the BPT), `token` (Aura's deposit token), `gauge`
  (the Balancer gauge Aura stakes in) and `shutdown`.
- `totalSupply`: the reward pool's `totalSupply()`, BPT staked through Aura; `totalSupplyUsd`:
  that BPT's share of its Balancer pool in USD (shares.py, as a deposit is valued).
- `rewards`: the reward pool's `rewardToken()` (BAL) at `rewardRate()` until `periodFinish()`,
  then each `extraRewards(i)`'s, in the token a claim pays (a stash token's `baseToken`).
- `auraPerBal`: the AURA a claim of one BAL mints at the block, as positions compute it
  (Ethereum: the Booster's reward multiplier for the pool and Aura.sol's cliffs, none for a
  Booster that is not AURA's operator; a sidechain: the L2Coordinator's `mintRate()`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from fractions import Fraction
from typing import Any

from adapters.aura.booster import booster_label, boosters, extra_pools, listed, minted_aura, paid_token
from adapters.aura.contracts import MINT_RATE, PERIOD_FINISH, POOL_STATE, REWARD_RATE, REWARD_TOKEN, l2_aura_minted
from adapters.aura.section import AuraAddresses, AuraParts
from adapters.balancer.shares import Valued, as_float, pool_by_address, price_usd, reward_token, valued
from adapters.context import FetchContext
from adapters.deployment import existing, require
from adapters.position_warnings import Warnings, outcome
from addresses import ChainAddresses
from chain import ChainReader, erc20, first
from errors import InputValidationError, ProtocolError

ONE_BAL = 10**18


async def details(ctx: FetchContext[AuraParts], pool: str) -> dict[str, Any]:
    aura = ctx.section.aura
    reader, warnings, chain = ctx.reader(), ctx.warnings, ctx.chain
    await require(reader, "aura", aura.booster, "Booster")
    booster, pid = await _listing(reader, aura, pool, ctx.chain_id)
    info: Any = await reader.call(booster, POOL_STATE, pid, label=booster_label(aura, booster))
    label = f"Aura reward pool {pool}"
    lptoken = info.lptoken.lower()
    supply, rewards, lp_token, deposit_token, per_bal, (aura_token, aura_price) = await asyncio.gather(
        first(reader.call(pool, erc20.TOTAL_SUPPLY, label=label)),
        _rewards(reader, chain, pool, warnings),
        warnings.optional(erc20.token_info(reader, lptoken), lptoken, "lpToken is"),
        warnings.optional(erc20.token_info(reader, info.token), info.token.lower(), "depositToken is"),
        warnings.optional(_aura_per_bal(reader, aura, booster, pool), pool, "auraPerBal is"),
        reward_token(reader, chain, aura.aura, warnings),
    )
    staked = await warnings.optional(_staked(ctx, lptoken, supply), pool, "totalSupplyUsd is")
    return {
        "details": {
            "__typename": "AuraPool",
            "type": "aura-pool",
            "chainId": ctx.chain_id,
            "booster": booster,
            "pid": pid,
            "rewardPool": pool,
            "lpToken": lp_token,
            "depositToken": deposit_token,
            "gauge": info.gauge.lower(),
            "isShutdown": info.shutdown,
            "totalSupply": str(supply),
            "totalSupplyUsd": as_float(staked.total) if staked else None,
            "rewards": rewards,
            "auraToken": aura_token,
            "auraPerBal": per_bal,
            "auraPriceUsd": price_usd(aura_price),
        }
    }


async def _listing(reader: ChainReader, aura: AuraAddresses, pool: str, chain_id: int) -> tuple[str, int]:
    """(Booster, pid) of the reward pool, among the Boosters that existed at the block; a
    Booster's failure is raised only where no other lists the pool."""
    present = await existing(reader, boosters(aura), lambda booster: booster)
    listings = await asyncio.gather(*(outcome(listed(reader, aura, booster)) for booster in present))
    for booster, infos in zip(present, listings):
        if not isinstance(infos, ProtocolError):
            for pid, info in enumerate(infos):
                if info.crvRewards.lower() == pool:
                    return booster, pid
    for failed in listings:
        if isinstance(failed, ProtocolError):
            raise failed
    raise InputValidationError(
        f"{pool} is not the reward pool of any pool of Aura's Booster{'s' if len(present) > 1 else ''} "
        f"{', '.join(present)} on chain {chain_id} at block {await reader.block_number()}. Expected a "
        "reward pool's address (a BaseRewardPool: the Booster's poolInfo(pid).crvRewards)."
    )


async def _rewards(reader: ChainReader, chain: ChainAddresses, pool: str, warnings: Warnings) -> list[dict[str, Any]]:
    """The reward pool's own reward (BAL), then each extra reward pool's."""
    extras = await extra_pools(reader, pool)
    return list(
        await asyncio.gather(
            _reward(reader, chain, pool, _reward_token(reader, pool), warnings),
            *(_reward(reader, chain, extra, paid_token(reader, extra), warnings) for extra in extras),
        )
    )


async def _reward_token(reader: ChainReader, pool: str) -> str:
    return str(await first(reader.call(pool, REWARD_TOKEN, label=f"Aura reward pool {pool}"))).lower()


async def _reward(
    reader: ChainReader, chain: ChainAddresses, rewards_pool: str, paid: Awaitable[str], warnings: Warnings
) -> dict[str, Any]:
    """A reward pool's rate (raw units of `paid` a second) until its periodFinish, with the token's USD."""
    label = f"Aura reward pool {rewards_pool}"
    token, rate, finish = await asyncio.gather(
        paid,
        first(reader.call(rewards_pool, REWARD_RATE, label=label)),
        first(reader.call(rewards_pool, PERIOD_FINISH, label=label)),
    )
    info, price = await reward_token(reader, chain, token, warnings)
    return {
        "rewardPool": rewards_pool,
        "token": info,
        "rate": str(rate),
        "periodFinish": finish,
        "priceUsd": price_usd(price),
    }


async def _aura_per_bal(reader: ChainReader, aura: AuraAddresses, booster: str, pool: str) -> float:
    """AURA (raw) a claim of ONE_BAL raw BAL pays at the block, over ONE_BAL."""
    if aura.l2_coordinator:
        rate = await first(reader.call(aura.l2_coordinator, MINT_RATE, label="Aura L2Coordinator"))
        minted = l2_aura_minted(ONE_BAL, rate)
    else:
        minted = await minted_aura(reader, aura.aura, booster, pool, ONE_BAL)
    return float(Fraction(minted, ONE_BAL))


async def _staked(ctx: FetchContext[AuraParts], lptoken: str, supply: int) -> Valued:
    """The staked BPT's share of each token of its Balancer pool, valued (shares.valued)."""
    reader = ctx.reader()
    state = await pool_by_address(reader, ctx.section.balancer, lptoken)
    return await valued(reader, ctx.chain, state.tokens, state.amounts(supply), ctx.warnings)
