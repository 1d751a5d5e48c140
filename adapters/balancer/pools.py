"""Balancer's `poolDetails`: a v2 or v3 pool by its address, read as its positions read it
(shares.py), with its swap fee and its gauges.

- Known: a v2 pool when the v2 Vault's `getPool(pool.getPoolId())` names the pool itself (a
  contract may claim any poolId); a v3 pool when the v3 Vault (where the chain has it, deployed
  by the block) answers `isPoolRegistered(pool)`. Anything else is a VALIDATION_ERROR.
- Tokens, balances, supply and type as a position's (shares.v2_pool, v3_pool): the v2 Vault's
  `getPoolTokens` (a composable stable pool's own BPT left out), `getActualSupply` where the
  pool has it, else `totalSupply`; v3 the Vault's `getPoolTokenInfo` and `totalSupply(pool)`.
  Each balance in USD by its token's feed; `tvlUsd` their sum, null when any is.
- `swapFee`: v2 the pool's `getSwapFeePercentage()`, v3 the Vault's
  `getStaticSwapFeePercentage(pool)`, over 1e18.
- `poolType` as a position's (shares.py): an LBP's sale (`lbp`, a fixed-price LBP's
  `fixedPriceLbp`) from its own views; a pool of a
  type named unsupported (Gyro's E-CLP and 2-CLP, ReClamm) or of no type recognized is `other`,
  its own views not read, which a warning says (naming the type where it was recognized): its
  figures are the Vault's.
- Gauges: those of the index's gauges (every `GaugeCreated` of the data's gauge factories, as
  positions find them) whose `lp_token()` is the pool, asked of them all in one bulk read (no
  registry maps a pool to its gauges: only the first factory has `getPoolGauge`). Each with its
  `totalSupply()` (BPT staked), `is_killed()`, `inflation_rate()` where it has one (a
  LiquidityGaugeV5's; a ChildChainGauge's takes a week: null, named) and each reward token's
  `reward_data` rate and period_finish.
"""

from __future__ import annotations

import asyncio
from fractions import Fraction
from typing import Any

from adapters.balancer.contracts import (
    CHILD_REWARD_DATA,
    GAUGE,
    GET_POOL,
    GET_POOL_ID,
    GET_SWAP_FEE_PERCENTAGE,
    INFLATION_RATE,
    IS_KILLED,
    LP_TOKEN,
    REWARD_DATA,
    TOTAL_SUPPLY,
    V3_GET_STATIC_SWAP_FEE_PERCENTAGE,
    V3_IS_POOL_REGISTERED,
    stream,
)
from adapters.balancer.section import BalancerAddresses
from adapters.balancer.shares import (
    PoolState,
    as_float,
    price_usd,
    reward_token,
    reward_tokens,
    sales,
    unsupported_warning,
    v2_pool,
    v3_pool,
    valued,
)
from adapters.context import FetchContext
from adapters.deployment import existing
from adapters.position_warnings import FIGURE_UNAVAILABLE, PART_UNREADABLE, Warnings, outcome
from adapters.sweep import swept
from addresses import ChainAddresses
from chain import ChainReader, UndecodableReturn, erc20, first
from errors import InputValidationError, ProtocolError

FEE_SCALE = 10**18
OTHER = (
    "poolType is other: the pool answers none of the views of the weighted, stable, composable stable and "
    "liquidity bootstrapping pools, nor of a type named unsupported, and its own are not read; its figures here are "
    "the Vault's, which every pool type shares"
)


async def details(ctx: FetchContext[BalancerAddresses], pool: str) -> dict[str, Any]:
    balancer, reader, warnings = ctx.section, ctx.reader(), ctx.warnings
    state = await _registered(reader, balancer, pool)
    if state is None:
        v3 = f" nor registered in its v3 Vault {balancer.v3_vault.address.lower()}" if balancer.v3_vault else ""
        raise InputValidationError(
            f"{pool} is not a pool of Balancer's v2 Vault {balancer.v2_vault.address.lower()}{v3} on chain "
            f"{ctx.chain_id} at block {await reader.block_number()}. Expected a Balancer pool's address (its BPT)."
        )
    found, fee, pool_token, gauges = await asyncio.gather(
        valued(reader, ctx.chain, state.tokens, state.balances, warnings),
        warnings.optional(_swap_fee(reader, balancer, state), pool, "swapFee is"),
        erc20.token_info(reader, pool),
        _gauges(ctx, pool),
    )
    if state.unsupported:
        warnings.add(FIGURE_UNAVAILABLE, pool, unsupported_warning(state))
    elif state.pool_type == "other":
        warnings.add(FIGURE_UNAVAILABLE, pool, OTHER)
    vault = balancer.v2_vault if state.version == 2 else balancer.v3_vault
    assert vault is not None  # a v3 pool was found in the v3 Vault
    return {
        "details": {
            "__typename": "BalancerPool",
            "type": "balancer-pool",
            "version": state.version,
            "poolType": state.pool_type,
            "poolToken": pool_token,
            "poolId": state.pool_id,
            "vault": vault.address.lower(),
            "chainId": ctx.chain_id,
            "totalSupply": str(state.supply),
            "tokens": [
                {"token": info, "balance": str(balance), "priceUsd": price_usd(price), "balanceUsd": as_float(usd)}
                for info, balance, price, usd in zip(found.infos, state.balances, found.prices, found.usd)
            ],
            "tvlUsd": as_float(found.total),
            "swapFee": fee,
            "gauges": gauges,
            **sales(state),
        }
    }


async def _registered(reader: ChainReader, balancer: BalancerAddresses, pool: str) -> PoolState | None:
    """The pool's state where a Vault of the chain has it registered, else None."""
    pool_id, v3_registered = await asyncio.gather(
        outcome(first(reader.call(pool, GET_POOL_ID, label=f"Balancer pool {pool}"))),
        _in_v3_vault(reader, balancer, pool),
    )
    vault = balancer.v2_vault.address
    if not isinstance(pool_id, ProtocolError):
        named = await outcome(reader.call(vault, GET_POOL, pool_id, label="Balancer v2 Vault"))
        registered, _specialization = (None, None) if isinstance(named, ProtocolError) else named
        if str(registered).lower() == pool:
            return await v2_pool(reader, vault, pool, "0x" + bytes(pool_id).hex())
    if v3_registered:
        assert balancer.v3_vault is not None
        return await v3_pool(reader, balancer.v3_vault.address, pool)
    return None


async def _in_v3_vault(reader: ChainReader, balancer: BalancerAddresses, pool: str) -> bool:
    """Whether the chain's v3 Vault, deployed by the block, has the pool registered."""
    vaults = [balancer.v3_vault.address] if balancer.v3_vault else []
    if not await existing(reader, vaults, lambda vault: vault):
        return False
    (vault,) = vaults
    return bool(await first(reader.call(vault, V3_IS_POOL_REGISTERED, pool, label="Balancer v3 Vault")))


async def _swap_fee(reader: ChainReader, balancer: BalancerAddresses, state: PoolState) -> float:
    """The fraction of a swap's amount in it charges: v2 the pool's, v3 the Vault's static fee for it."""
    if state.version == 2:
        fee = await first(reader.call(state.pool, GET_SWAP_FEE_PERCENTAGE, label=f"Balancer pool {state.pool}"))
    else:
        assert balancer.v3_vault is not None
        fee = await first(
            reader.call(
                balancer.v3_vault.address, V3_GET_STATIC_SWAP_FEE_PERCENTAGE, state.pool, label="Balancer v3 Vault"
            )
        )
    return float(Fraction(fee, FEE_SCALE))


async def _gauges(ctx: FetchContext[BalancerAddresses], pool: str) -> list[dict[str, Any]]:
    """The pool's gauges among every gauge the index knows, each with its figures; one that cannot
    be read is left out with a warning (it may be this pool's)."""
    reader, warnings = ctx.reader(), ctx.warnings
    view = await ctx.events(stream(ctx.section))
    if not view.complete:
        warnings.add(PART_UNREADABLE, pool, view.shortfall(ctx.chain_id, "gauge"), retryable=True)
    gauges = sorted(entry.key for entry in view.of(GAUGE))
    pools = await swept(reader, gauges, LP_TOKEN, label="Balancer gauge")
    mine = []
    for gauge, answer in zip(gauges, pools):
        if isinstance(answer, ProtocolError):
            warnings.left_out("Balancer gauge", gauge, answer)
            continue
        (lp_token,) = answer
        if str(lp_token).lower() == pool:
            mine.append(gauge)
    answers = await asyncio.gather(
        *(_gauge(reader, ctx.chain, gauge, warnings) for gauge in mine), return_exceptions=True
    )
    return warnings.survivors("Balancer gauge", zip(mine, answers))


async def _gauge(reader: ChainReader, chain: ChainAddresses, gauge: str, warnings: Warnings) -> dict[str, Any]:
    label = f"Balancer gauge {gauge}"
    supply, killed, inflation, tokens = await asyncio.gather(
        first(reader.call(gauge, TOTAL_SUPPLY, label=label)),
        warnings.optional(first(reader.call(gauge, IS_KILLED, label=label)), gauge, "isKilled is"),
        outcome(first(reader.call(gauge, INFLATION_RATE, label=label))),
        reward_tokens(reader, gauge),
    )
    if isinstance(inflation, ProtocolError):
        warnings.add(
            FIGURE_UNAVAILABLE,
            gauge,
            "balInflationRate is null: the gauge answers no inflation_rate() (a LiquidityGaugeV5's; a "
            f"ChildChainGauge's takes a week and is not read): {inflation.message}",
        )
    rewards = await asyncio.gather(*(_reward(reader, chain, gauge, token, warnings) for token in tokens))
    return {
        "address": gauge,
        "totalSupply": str(supply),
        "isKilled": killed,
        "balInflationRate": None if isinstance(inflation, ProtocolError) else str(inflation),
        "rewards": list(rewards),
    }


async def _reward(
    reader: ChainReader, chain: ChainAddresses, gauge: str, token: str, warnings: Warnings
) -> dict[str, Any]:
    """A reward token's rate (raw units a second) and period_finish, with its USD price."""
    (rate, finish), (info, price) = await asyncio.gather(
        _reward_data(reader, gauge, token), reward_token(reader, chain, token, warnings)
    )
    return {"token": info, "rate": str(rate), "periodFinish": finish, "priceUsd": price_usd(price)}


async def _reward_data(reader: ChainReader, gauge: str, token: str) -> tuple[int, int]:
    """(rate, period_finish) of `reward_data(token)`: a LiquidityGaugeV5's Reward leads with the
    token; a ChildChainGauge's, one word shorter, does not decode as that and is read as its own."""
    label = f"Balancer gauge {gauge}"
    try:
        (_token, _distributor, finish, rate, _updated, _integral) = await first(
            reader.call(gauge, REWARD_DATA, token, label=label)
        )
    except UndecodableReturn:
        (_distributor, finish, rate, _updated, _integral) = await first(
            reader.call(gauge, CHILD_REWARD_DATA, token, label=label)
        )
    return rate, finish
