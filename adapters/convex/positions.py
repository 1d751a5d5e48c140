"""Convex on Ethereum: the wallet's deposits of Curve LP in the Booster's pools, what each is in
the Curve pool's coins, and the CRV, CVX and extra rewards claimable, on-chain at the pinned block.

How each figure is derived (docs/protocols/convex.md has the long form):

- Pools: the Booster's `poolLength()` and `poolInfo(pid)` (lptoken, token, gauge, crvRewards,
  stash, shutdown) at the block. A deposit is the pool's BaseRewardPool (`crvRewards`)
  `balanceOf(wallet)`, in Curve LP (Convex's deposit token is minted one for one). The scan runs
  in one lens call (lenses/ConvexLens.sol), which records only the pools the wallet has a deposit
  in, then `poolLength()`; without a lens, the same reads go through Multicall3 in bulk.
- Underlying: the LP token's Curve pool is its `minter()` (CurveTokenV1-V5), else the LP token
  itself (factory pools are their own token); cryptoswap where the pool answers `lp_price()`. The
  share of each coin, its USD and the pool's own `calc_withdraw_one_coin` are the Curve adapter's
  (adapters/curve/figures.py).
- CRV claimable: the reward pool's `earned(wallet)`. CVX: what Cvx.sol's `mint` gives for that CRV
  at CVX's `totalSupply()` (contracts.cvx_minted: cliffs of `reductionPerCliff`, `totalCliffs`,
  capped at `maxSupply`), since claiming mints it then.
- Extra rewards: for i < `extraRewardsLength()`, `extraRewards(i)` (a VirtualBalanceRewardPool),
  its `rewardToken()` and `earned(wallet)`; USD through each token's feed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from adapters.context import FetchContext
from adapters.convex.contracts import (
    EARNED,
    EXTRA_REWARDS,
    EXTRA_REWARDS_LENGTH,
    LENS,
    MAX_HELD,
    MAX_REWARDS,
    POOL_INFO,
    POOL_LENGTH,
    REWARD_TOKEN,
    cvx_minted,
)
from adapters.convex.figures import cvx_parameters, pool_of
from adapters.convex.section import ConvexAddresses
from adapters.curve import figures
from adapters.curve.positions import rewards as curve_rewards
from adapters.deployment import require
from adapters.legs import LIQUIDITY_POSITION, position
from adapters.position_warnings import Warnings, outcome
from adapters.prices import lens_feeds, lens_market, warned_usd_price
from adapters.sweep import sweep
from addresses import ChainAddresses
from chain import ChainReader, erc20
from chain.abi import ZERO_ADDRESS


@dataclass(frozen=True)
class Deposit:
    pid: int
    lp_token: str
    rewards: str
    shutdown: bool
    balance: int


async def fetch(ctx: FetchContext[ConvexAddresses], wallet: str) -> dict[str, Any]:
    chain = ctx.chain
    convex = ctx.section
    reader = ctx.reader()
    deposits = await held(reader, chain, convex, wallet)
    if not deposits:
        return {"deposits": []}
    outcomes = await asyncio.gather(
        *(outcome(_deposit(reader, chain, convex, d, wallet, ctx.warnings)) for d in deposits)
    )
    return {"deposits": ctx.warnings.survivors("Convex pool", zip((d.rewards for d in deposits), outcomes))}


async def held(reader: ChainReader, chain: ChainAddresses, convex: ConvexAddresses, wallet: str) -> list[Deposit]:
    """The wallet's deposits at the reader's block, scanned in the lens."""
    keys, feeds, sequencer = lens_feeds(chain)
    market = lens_market(chain)
    reader.prefetch(
        [LENS.initcode(wallet, convex.booster, convex.cvx, convex.crv, MAX_HELD, keys, feeds, market, sequencer)],
        [convex.booster],
    )
    await require(reader, "convex", convex.booster, "Booster")
    return await _deposits(reader, convex, wallet)


async def _deposits(reader: ChainReader, convex: ConvexAddresses, wallet: str) -> list[Deposit]:
    """The pools the wallet has a deposit in: those the lens recorded (its `poolLength()` record
    vouches for the scan), else a scan in bulk."""
    booster, label = convex.booster, f"Convex Booster {convex.booster}"
    (count,) = await reader.call(booster, POOL_LENGTH, label=label)
    if await reader.tapes.holds(booster, POOL_LENGTH.calldata()):
        recorded = await asyncio.gather(*(reader.tapes.holds(booster, POOL_INFO.calldata(pid)) for pid in range(count)))
        pids = [pid for pid, taped in enumerate(recorded) if taped]
    else:
        answers = await sweep(reader, [(booster, POOL_INFO.calldata(pid)) for pid in range(count)])
        rewards = ["0x" + info[108:128].hex() if info and len(info) >= 128 else ZERO_ADDRESS for info in answers]
        held = await sweep(reader, [(pool, erc20.BALANCE_OF.calldata(wallet)) for pool in rewards])
        pids = [pid for pid, amount in enumerate(held) if amount and any(amount) and rewards[pid] != ZERO_ADDRESS]
    pools: list[Any] = await asyncio.gather(*(reader.call(booster, POOL_INFO, pid, label=label) for pid in pids))
    balances = await asyncio.gather(
        *(
            reader.call(pool.crvRewards, erc20.BALANCE_OF, wallet, label=f"Convex reward pool {pool.crvRewards}")
            for pool in pools
        )
    )
    return [
        Deposit(pid, pool.lptoken, pool.crvRewards, pool.shutdown, balance)
        for pid, pool, (balance,) in zip(pids, pools, balances)
        if balance
    ]


async def _deposit(
    reader: ChainReader, chain: ChainAddresses, convex: ConvexAddresses, d: Deposit, wallet: str, warnings: Warnings
) -> dict[str, Any]:
    label = f"Convex reward pool {d.rewards}"
    (pool, kind), (crv,), cvx, (rewards, legs), prices, tokens = await asyncio.gather(
        pool_of(reader, d.lp_token),
        reader.call(d.rewards, EARNED, wallet, label=label),
        cvx_parameters(reader, convex.cvx),
        _extra_rewards(reader, chain, d.rewards, wallet, warnings),
        asyncio.gather(*(warned_usd_price(reader, chain, token, warnings) for token in (convex.crv, convex.cvx))),
        asyncio.gather(*(erc20.token_info(reader, token) for token in (convex.crv, convex.cvx))),
    )
    share = await figures.share(reader, chain, pool, d.lp_token, kind, d.balance, warnings)
    minted = cvx_minted(crv, *cvx)
    (crv_reward, cvx_reward), earned_legs = curve_rewards(d.rewards, tokens, [crv, minted], prices)
    label = f"{share['lpToken']['symbol']} deposited"
    held = [*share.pop("legs"), *earned_legs, *legs]
    return {
        **position("ConvexDeposit", d.rewards.lower(), LIQUIDITY_POSITION, label, held),
        "pid": d.pid,
        "pool": pool,
        "rewardPool": d.rewards,
        "shutdown": d.shutdown,
        "balance": str(d.balance),
        **share,
        "claimableCrv": str(crv),
        "claimableCrvUsd": crv_reward["claimableUsd"],
        "claimableCvx": str(minted),
        "claimableCvxUsd": cvx_reward["claimableUsd"],
        "rewards": rewards,
    }


async def _extra_rewards(
    reader: ChainReader, chain: ChainAddresses, rewards: str, wallet: str, warnings: Warnings
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each extra reward pool's token and what it has earned for the wallet, and their legs."""
    pools = await extra_pools(reader, rewards)
    tokens, amounts = await asyncio.gather(
        asyncio.gather(*(reader.call(extra, REWARD_TOKEN, label=f"Convex extra reward {extra}") for extra in pools)),
        asyncio.gather(*(reader.call(extra, EARNED, wallet, label=f"Convex extra reward {extra}") for extra in pools)),
    )
    infos, prices = await asyncio.gather(
        asyncio.gather(*(erc20.token_info(reader, token) for (token,) in tokens)),
        asyncio.gather(*(warned_usd_price(reader, chain, token, warnings) for (token,) in tokens)),
    )
    return curve_rewards(rewards, infos, [amount for (amount,) in amounts], prices)


async def extra_pools(reader: ChainReader, rewards: str) -> list[str]:
    """The reward pool's extra reward pools (VirtualBalanceRewardPools), at most MAX_REWARDS."""
    label = f"Convex reward pool {rewards}"
    (count,) = await reader.call(rewards, EXTRA_REWARDS_LENGTH, label=label)
    pools = await asyncio.gather(
        *(reader.call(rewards, EXTRA_REWARDS, i, label=label) for i in range(min(count, MAX_REWARDS)))
    )
    return [str(extra).lower() for (extra,) in pools]
