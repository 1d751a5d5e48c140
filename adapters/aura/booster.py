"""What Aura's positions and pool details both read of its Boosters and reward pools: each
Booster's own enumeration of its pools, a reward pool's extra reward pools and the token each
pays, and the AURA a claim of BAL mints on Ethereum.

- Pools: `poolLength()` and `poolInfo(pid)` for every pid (lptoken: the Balancer pool's BPT;
  crvRewards: its BaseRewardPool). A pid's contracts never change, so each `poolInfo` is read
  once per process (the immutable cache); its `shutdown` may, and is read at the block where
  shown (pools.py).
- Extra rewards: `extraRewards(i)` below `extraRewardsLength()` (at most MAX_EXTRA_REWARDS), each
  paying its `rewardToken()`, a stash token whose `baseToken()` is what a claim pays.
- AURA on Ethereum: the Booster passes BAL x `getRewardMultipliers(rewardPool)` / 10000 (the full
  BAL where it has no multipliers) to AURA's `mint`, which mints only for its `operator()`, by its
  cliffs (contracts.aura_minted).
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.aura.contracts import (
    BASE_TOKEN,
    EMISSIONS_MAX_SUPPLY,
    EXTRA_REWARDS,
    EXTRA_REWARDS_LENGTH,
    GET_REWARD_MULTIPLIERS,
    INIT_MINT_AMOUNT,
    OPERATOR,
    POOL_INFO,
    POOL_LENGTH,
    REDUCTION_PER_CLIFF,
    REWARD_MULTIPLIER_DENOMINATOR,
    REWARD_TOKEN,
    TOTAL_CLIFFS,
    aura_minted,
)
from adapters.aura.section import AuraAddresses
from adapters.position_warnings import outcome
from chain import ChainReader, erc20, first
from errors import ProtocolError

MAX_EXTRA_REWARDS = 8


def boosters(aura: AuraAddresses) -> tuple[str, ...]:
    """The current Booster first, then the earlier ones."""
    return (aura.booster, *aura.older_boosters)


def booster_label(aura: AuraAddresses, booster: str) -> str:
    return "Aura Booster" if booster == aura.booster else f"Aura's earlier Booster {booster}"


async def listed(reader: ChainReader, aura: AuraAddresses, booster: str) -> list[Any]:
    """The Booster's pools by pid, its own enumeration (`poolLength`, `poolInfo(pid)`); each
    pid's contracts read once per process (POOL_INFO is immutable but for `shutdown`)."""
    label = booster_label(aura, booster)
    length = await first(reader.call(booster, POOL_LENGTH, label=label))
    return list(await asyncio.gather(*(reader.call(booster, POOL_INFO, pid, label=label) for pid in range(length))))


async def extra_pools(reader: ChainReader, rewards_pool: str) -> list[str]:
    """The reward pool's extra reward pools (`extraRewards(i)` below `extraRewardsLength()`, at most
    MAX_EXTRA_REWARDS), lower case."""
    label = f"Aura reward pool {rewards_pool}"
    count = await first(reader.call(rewards_pool, EXTRA_REWARDS_LENGTH, label=label))
    extras = await asyncio.gather(
        *(first(reader.call(rewards_pool, EXTRA_REWARDS, i, label=label)) for i in range(min(count, MAX_EXTRA_REWARDS)))
    )
    return [str(extra).lower() for extra in extras]


async def minted_aura(reader: ChainReader, token: str, booster: str, rewards_pool: str, bal: int) -> int:
    """Ethereum: what AURA's `mint` adds when the Booster passes it the claimed BAL (multiplied)."""
    if not bal:
        return 0
    label = "Aura token"
    operator, multiplier = await asyncio.gather(
        first(reader.call(token, OPERATOR, label=label)),
        outcome(first(reader.call(booster, GET_REWARD_MULTIPLIERS, rewards_pool, label="Aura Booster"))),
    )
    if str(operator).lower() != booster:
        return 0
    passed = bal if isinstance(multiplier, ProtocolError) else bal * multiplier // REWARD_MULTIPLIER_DENOMINATOR
    answers = await asyncio.gather(
        *(
            first(reader.call(token, function, label=label))
            for function in (
                erc20.TOTAL_SUPPLY,
                INIT_MINT_AMOUNT,
                EMISSIONS_MAX_SUPPLY,
                TOTAL_CLIFFS,
                REDUCTION_PER_CLIFF,
            )
        )
    )
    return aura_minted(passed, *answers)


async def paid_token(reader: ChainReader, extra: str) -> str:
    """The token a claim of an extra reward pool pays: its `rewardToken()`, a stash token's `baseToken()`."""
    token = await first(reader.call(extra, REWARD_TOKEN, label=f"Aura extra reward pool {extra}"))
    base = await outcome(first(reader.call(token, BASE_TOKEN, label=f"Aura stash token {token}")))
    return str(token if isinstance(base, ProtocolError) else base).lower()
