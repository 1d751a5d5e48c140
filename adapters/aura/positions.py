"""Aura: the wallet's Balancer pool tokens deposited through Aura's Booster, with their claimables.

How each figure is derived (all at the request's pinned block; docs/protocols/aura.md has the long form):

- Pools: the Booster's own enumeration, `poolLength()` and `poolInfo(pid)` for every pid (lptoken:
  the Balancer pool's BPT; crvRewards: its BaseRewardPool). A pid's contracts never change, so
  its `poolInfo` is read once per process (the immutable cache).
- Deposit: the BaseRewardPool's `balanceOf(wallet)` (BPT deposited, one to one), valued as
  Balancer's share math values BPT (adapters/balancer/shares.py: the pool's `getPoolId()`, the
  Vault's `getPoolTokens`, balance x deposit / supply).
- Claimables (non-zero ones): BAL = the BaseRewardPool's `earned(wallet)` (its `rewardToken()`);
  AURA = what the Aura token's `mint` adds for that BAL (contracts.aura_minted, from the token's
  `totalSupply()`, `INIT_MINT_AMOUNT()`, `EMISSIONS_MAX_SUPPLY()`, `totalCliffs()`,
  `reductionPerCliff()`); each `extraRewards(i)` below `extraRewardsLength()`: its `earned(wallet)`
  in its `rewardToken()`, a stash token whose `baseToken()` is what a claim pays. Each priced by
  its token's USD feed.
- At a past block before the Booster had code: VALIDATION_ERROR (adapters/deployment.py).
- All reads go out in AuraLens calls (lenses/, chain/lens.py) over the reward pools this process
  has seen the Booster list: one round once the pools are known.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from adapters.aura.contracts import (
    BASE_TOKEN,
    EARNED,
    EMISSIONS_MAX_SUPPLY,
    EXTRA_REWARDS,
    EXTRA_REWARDS_LENGTH,
    INIT_MINT_AMOUNT,
    POOL_INFO,
    POOL_LENGTH,
    REDUCTION_PER_CLIFF,
    REWARD_TOKEN,
    TOTAL_CLIFFS,
    aura_minted,
)
from adapters.balancer.contracts import GET_POOL_ID
from adapters.balancer.shares import position, reward, v2_pool
from adapters.context import FetchContext
from adapters.deployment import require
from adapters.position_warnings import Warnings, outcome
from adapters.prices import token_feeds
from adapters.sweep import balances
from addresses import AuraAddresses, ChainAddresses
from chain import ChainReader, erc20, first
from chain.lens import NONE, Lens
from errors import ProtocolError

MAX_EXTRA_REWARDS = 8
LENS_POOLS = 96
"""Reward pools per AuraLens call: each costs a 72-byte record, a held one about 2 KB more."""
LENS = Lens("AuraLens", ("address", "address", "address", "address", "uint256[]", "address[]", "address[]", "address"))
_SEEN: dict[tuple[int, str], list[str]] = {}
"""The reward pools (by pid) the Booster listed when last asked, by chain and Booster: which the lens reads
(only a hint: every figure comes from the reads the adapter makes)."""


def chains(addresses: dict[int, ChainAddresses]) -> frozenset[int]:
    return frozenset(chain_id for chain_id, chain in addresses.items() if chain.aura and chain.balancer)


async def fetch(ctx: FetchContext, wallet: str) -> dict[str, Any]:
    chain = ctx.chain
    aura = cast(AuraAddresses, chain.aura)
    assert chain.balancer is not None
    vault = chain.balancer.v2_vault.address
    reader = ctx.reader()
    _prefetch(reader, chain, aura, vault, wallet)
    label = "Aura Booster"
    await require(reader, "aura", aura.booster, "Booster")
    length = await first(reader.call(aura.booster, POOL_LENGTH, label=label))
    infos: list[Any] = list(
        await asyncio.gather(*(reader.call(aura.booster, POOL_INFO, pid, label=label) for pid in range(length)))
    )
    pools = [info.crvRewards.lower() for info in infos]
    _SEEN[(ctx.chain_id, aura.booster)] = pools
    held = await balances(reader, pools, wallet, ctx.warnings, "Aura reward pool")
    pids = [pid for pid, pool in enumerate(pools) if pool in held]
    answers = await asyncio.gather(
        *(
            _deposit(reader, chain, aura, vault, pid, infos[pid], held[pools[pid]], wallet, ctx.warnings)
            for pid in pids
        ),
        return_exceptions=True,
    )
    return {"deposits": ctx.warnings.survivors("Aura pool", zip((pools[pid] for pid in pids), answers))}


def _prefetch(reader: ChainReader, chain: ChainAddresses, aura: AuraAddresses, vault: str, wallet: str) -> None:
    pools = _SEEN.get((chain.chain_id, aura.booster), [])
    feeds = [feed.feed for feed in token_feeds(chain).values()]
    sequencer = chain.sequencer_uptime_feed or NONE
    initcodes = [
        LENS.initcode(
            wallet,
            aura.booster,
            aura.aura,
            vault,
            list(range(i, min(i + LENS_POOLS, len(pools)))),
            pools[i : i + LENS_POOLS],
            feeds if i == 0 else [],
            sequencer,
        )
        for i in range(0, max(len(pools), 1), LENS_POOLS)
    ]
    reader.prefetch(initcodes, [aura.booster, aura.aura, vault, *pools, *feeds, sequencer])


async def _deposit(
    reader: ChainReader,
    chain: ChainAddresses,
    aura: AuraAddresses,
    vault: str,
    pid: int,
    info: Any,
    deposited: int,
    wallet: str,
    warnings: Warnings,
) -> dict[str, Any]:
    """A deposit: its Balancer pool share and what its reward pools let the wallet claim."""
    pool, rewards_pool = info.lptoken.lower(), info.crvRewards.lower()
    pool_id = await first(reader.call(pool, GET_POOL_ID, label=f"Balancer pool {pool}"))
    state, owed = await asyncio.gather(
        v2_pool(reader, vault, pool, "0x" + bytes(pool_id).hex()),
        _claimable(reader, aura, rewards_pool, wallet),
    )
    share, rewards = await asyncio.gather(
        position(reader, chain, state, deposited, warnings),
        asyncio.gather(*(reward(reader, chain, token, amount, warnings) for token, amount in owed if amount)),
    )
    return {"pid": pid, "rewardPool": rewards_pool, "position": share, "rewards": list(rewards)}


async def _claimable(reader: ChainReader, aura: AuraAddresses, rewards_pool: str, wallet: str) -> list[tuple[str, int]]:
    """(token, amount) of BAL, the AURA minted with it, and each extra reward."""
    label = f"Aura reward pool {rewards_pool}"
    bal, bal_token, count = await asyncio.gather(
        first(reader.call(rewards_pool, EARNED, wallet, label=label)),
        first(reader.call(rewards_pool, REWARD_TOKEN, label=label)),
        first(reader.call(rewards_pool, EXTRA_REWARDS_LENGTH, label=label)),
    )
    extras = await asyncio.gather(
        *(first(reader.call(rewards_pool, EXTRA_REWARDS, i, label=label)) for i in range(min(count, MAX_EXTRA_REWARDS)))
    )
    minted, extra_owed = await asyncio.gather(
        _aura(reader, aura.aura, bal), asyncio.gather(*(_extra(reader, str(extra).lower(), wallet) for extra in extras))
    )
    return [(str(bal_token).lower(), bal), (aura.aura, minted), *extra_owed]


async def _aura(reader: ChainReader, token: str, bal: int) -> int:
    if not bal:
        return 0
    label = "Aura token"
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
    return aura_minted(bal, *answers)


async def _extra(reader: ChainReader, extra: str, wallet: str) -> tuple[str, int]:
    """An extra reward pool's earned, in the token a claim pays (a stash token's `baseToken`)."""
    label = f"Aura extra reward pool {extra}"
    amount, token = await asyncio.gather(
        first(reader.call(extra, EARNED, wallet, label=label)), first(reader.call(extra, REWARD_TOKEN, label=label))
    )
    base = await outcome(first(reader.call(token, BASE_TOKEN, label=f"Aura stash token {token}")))
    return (str(token if isinstance(base, ProtocolError) else base).lower(), amount)
