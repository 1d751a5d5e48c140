"""Aura: the wallet's Balancer pool tokens deposited through Aura's Boosters, with their claimables.

How each figure is derived (all at the request's pinned block; docs/protocols/aura.md has the long form):

- Boosters: the chain's current one and the earlier ones Aura's deployment record lists
  (addresses.json `olderBoosters`: Ethereum's 2022 Booster), each read alike with its own pids;
  on a sidechain, Aura's BoosterLite.
- Pools: each Booster's own enumeration, `poolLength()` and `poolInfo(pid)` for every pid (lptoken:
  the Balancer pool's BPT; crvRewards: its BaseRewardPool). A pid's contracts never change, so
  its `poolInfo` is read once per process (the immutable cache).
- Deposit: the BaseRewardPool's `balanceOf(wallet)` (BPT deposited, one to one), valued as
  Balancer's share math values BPT (adapters/balancer/shares.py: the pool's `getPoolId()`, the
  Vault's `getPoolTokens`, balance x deposit / supply; a v3 pool, which has no `getPoolId()`, by
  the v3 Vault's views).
- Claimables (non-zero ones): BAL = the BaseRewardPool's `earned(wallet)` (its `rewardToken()`);
  each `extraRewards(i)` below `extraRewardsLength()`: its `earned(wallet)` in its `rewardToken()`,
  a stash token whose `baseToken()` is what a claim pays. AURA, what the claim of that BAL pays:
  - Ethereum: the Booster passes BAL x `getRewardMultipliers(rewardPool)` / 10000 to AURA's
    `mint` (the full BAL where the Booster has no multipliers: the 2022 one), which mints only
    for its `operator()` (0 for any other Booster) by its cliffs (contracts.aura_minted, from
    `totalSupply()`, `INIT_MINT_AMOUNT()`, `EMISSIONS_MAX_SUPPLY()`, `totalCliffs()`,
    `reductionPerCliff()`).
  - A sidechain: the L2Coordinator pays BAL x `mintRate()` / 1e18 in AuraOFT
    (contracts.l2_aura_minted); where that claim reverts at the block (no rate, BAL above
    `accBalRewards()`, AURA above the coordinator's AuraOFT `balanceOf`), a FIGURE_UNAVAILABLE
    warning says why (contracts.l2_claim_blocker).
  Each priced by its token's USD feed.
- At a past block before the current Booster had code: VALIDATION_ERROR (adapters/deployment.py).
  An earlier Booster that cannot be read is left out with a PART_UNREADABLE warning; the current
  one's failure fails the input.
- All reads go out in AuraLens calls (lenses/, chain/lens.py) over the reward pools this process
  has seen each Booster list: one round once the pools are known.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.aura.booster import boosters, extra_pools, listed, minted_aura, paid_token
from adapters.aura.contracts import (
    ACC_BAL_REWARDS,
    EARNED,
    MINT_RATE,
    REWARD_TOKEN,
    l2_aura_minted,
    l2_claim_blocker,
)
from adapters.aura.section import AuraAddresses, AuraParts
from adapters.balancer.section import BalancerAddresses
from adapters.balancer.shares import pool_by_address, position, reward, staked
from adapters.context import FetchContext
from adapters.deployment import require
from adapters.position_warnings import FIGURE_UNAVAILABLE, Warnings
from adapters.prices import token_feeds
from adapters.sweep import balances
from addresses import ChainAddresses
from chain import ChainReader, erc20, first
from chain.lens import NONE, Lens
from errors import ProtocolError

LENS_POOLS = 96
"""Reward pools per AuraLens call: each costs a 72-byte record, a held one about 2 KB more."""
LENS = Lens("AuraLens", ("address", "address[5]", "uint256[]", "address[]", "address[][2]", "address"))
_SEEN: dict[tuple[int, str], list[str]] = {}
"""The reward pools (by pid) each Booster listed when last asked, by chain and Booster: which the lens reads
(only a hint: every figure comes from the reads the adapter makes)."""


async def fetch(ctx: FetchContext[AuraParts], wallet: str) -> dict[str, Any]:
    chain = ctx.chain
    aura, balancer = ctx.section.aura, ctx.section.balancer
    reader = ctx.reader()
    for booster in boosters(aura):
        _prefetch(reader, chain, aura, balancer, booster, wallet)
    await require(reader, "aura", aura.booster, "Booster")
    warnings = ctx.warnings
    found = await asyncio.gather(
        *(
            _booster(reader, ctx.chain_id, chain, aura, balancer, booster, wallet, warnings)
            for booster in boosters(aura)
        ),
        return_exceptions=True,
    )
    deposits: list[dict[str, Any]] = []
    for booster, part in zip(boosters(aura), found):
        if isinstance(part, ProtocolError) and booster != aura.booster:
            warnings.left_out("Aura's earlier Booster", booster, part)
        elif isinstance(part, BaseException):
            raise part
        else:
            deposits += part
    return {"deposits": deposits}


async def _booster(
    reader: ChainReader,
    chain_id: int,
    chain: ChainAddresses,
    aura: AuraAddresses,
    balancer: BalancerAddresses,
    booster: str,
    wallet: str,
    warnings: Warnings,
) -> list[dict[str, Any]]:
    """The wallet's deposits in one Booster's pools."""
    infos = await listed(reader, aura, booster)
    pools = [info.crvRewards.lower() for info in infos]
    _SEEN[(chain_id, booster)] = pools
    held = await balances(reader, pools, wallet, warnings, "Aura reward pool")
    pids = [pid for pid, pool in enumerate(pools) if pool in held]
    answers = await asyncio.gather(
        *(
            _deposit(reader, chain, aura, balancer, booster, pid, infos[pid], held[pools[pid]], wallet, warnings)
            for pid in pids
        ),
        return_exceptions=True,
    )
    return warnings.survivors("Aura pool", zip((pools[pid] for pid in pids), answers))


def _prefetch(
    reader: ChainReader,
    chain: ChainAddresses,
    aura: AuraAddresses,
    balancer: BalancerAddresses,
    booster: str,
    wallet: str,
) -> None:
    pools = _SEEN.get((chain.chain_id, booster), [])
    priced = token_feeds(chain)
    feeds = [feed.feed for feed in priced.values()]
    sequencer = chain.sequencer_uptime_feed or NONE
    coordinator = aura.l2_coordinator or NONE
    vault, v3_vault = balancer.v2_vault.address, balancer.v3_vault.address if balancer.v3_vault else NONE
    initcodes = [
        LENS.initcode(
            wallet,
            [booster, aura.aura, coordinator, vault, v3_vault],
            list(range(i, min(i + LENS_POOLS, len(pools)))),
            pools[i : i + LENS_POOLS],
            [list(priced), feeds],
            sequencer,
        )
        for i in range(0, max(len(pools), 1), LENS_POOLS)
    ]
    reader.prefetch(initcodes, [booster, aura.aura, coordinator, vault, v3_vault, *pools, *feeds, sequencer])


async def _deposit(
    reader: ChainReader,
    chain: ChainAddresses,
    aura: AuraAddresses,
    balancer: BalancerAddresses,
    booster: str,
    pid: int,
    info: Any,
    deposited: int,
    wallet: str,
    warnings: Warnings,
) -> dict[str, Any]:
    """A deposit: its Balancer pool share and what its reward pools let the wallet claim."""
    pool, rewards_pool = info.lptoken.lower(), info.crvRewards.lower()
    state, owed = await asyncio.gather(
        pool_by_address(reader, balancer, pool),
        _claimable(reader, aura, booster, rewards_pool, wallet, warnings),
    )
    share, rewards = await asyncio.gather(
        position(reader, chain, state, deposited, warnings),
        asyncio.gather(
            *(reward(reader, chain, token, amount, warnings, rewards_pool) for token, amount in owed if amount)
        ),
    )
    return {
        "booster": booster,
        "pid": pid,
        "rewardPool": rewards_pool,
        "position": share,
        "rewards": [each.answer for each in rewards],
        **staked("AuraDeposit", f"{booster.lower()}:{pid}", rewards_pool, share, rewards),
    }


async def _claimable(
    reader: ChainReader, aura: AuraAddresses, booster: str, rewards_pool: str, wallet: str, warnings: Warnings
) -> list[tuple[str, int]]:
    """(token, amount) of BAL, the AURA its claim pays, and each extra reward."""
    label = f"Aura reward pool {rewards_pool}"
    bal, bal_token, extras = await asyncio.gather(
        first(reader.call(rewards_pool, EARNED, wallet, label=label)),
        first(reader.call(rewards_pool, REWARD_TOKEN, label=label)),
        extra_pools(reader, rewards_pool),
    )
    minting = (
        _l2_aura(reader, aura, aura.l2_coordinator, rewards_pool, bal, warnings)
        if aura.l2_coordinator
        else minted_aura(reader, aura.aura, booster, rewards_pool, bal)
    )
    minted, extra_owed = await asyncio.gather(
        minting, asyncio.gather(*(_extra(reader, extra, wallet) for extra in extras))
    )
    return [(str(bal_token).lower(), bal), (aura.aura, minted), *extra_owed]


async def _l2_aura(
    reader: ChainReader, aura: AuraAddresses, coordinator: str, rewards_pool: str, bal: int, warnings: Warnings
) -> int:
    """A sidechain: the AuraOFT the L2Coordinator pays for the claimed BAL, with a warning where
    that claim reverts at the block."""
    if not bal:
        return 0
    label = "Aura L2Coordinator"
    rate, acc_bal, held = await asyncio.gather(
        first(reader.call(coordinator, MINT_RATE, label=label)),
        first(reader.call(coordinator, ACC_BAL_REWARDS, label=label)),
        first(reader.call(aura.aura, erc20.BALANCE_OF, coordinator, label="AuraOFT")),
    )
    blocker = l2_claim_blocker(bal, rate, acc_bal, held)
    if blocker:
        warnings.add(
            FIGURE_UNAVAILABLE,
            rewards_pool,
            f"A claim of Aura reward pool {rewards_pool}'s {bal} BAL reverts at this block: {blocker}; "
            "its AURA is what the L2Coordinator's mintRate() gives.",
        )
    return l2_aura_minted(bal, rate)


async def _extra(reader: ChainReader, extra: str, wallet: str) -> tuple[str, int]:
    """An extra reward pool's earned, in the token a claim pays (a stash token's `baseToken`)."""
    label = f"Aura extra reward pool {extra}"
    amount, token = await asyncio.gather(
        first(reader.call(extra, EARNED, wallet, label=label)), paid_token(reader, extra)
    )
    return (token, amount)
