"""A Balancer pool's state and a holder's share of it: what a BPT amount is worth in the pool's
tokens, as a proportional exit pays it. Balancer's positions and gauges (positions.py), its pool
details (pools.py) and Aura's deposits (adapters/aura/) all value their BPT here.

- v2: the Vault's `getPoolTokens(poolId)` (tokens and balances, raw units). The supply is the
  pool's `getActualSupply()` where it has one (weighted pools from v2 on, composable stable
  pools: the supply with the protocol fees due minted, what an exit is computed against), else
  `totalSupply()`. A composable stable pool lists its own BPT among its tokens (`getBptIndex()`):
  it is left out of the shares.
- v3 (the pool is its own BPT, its balances kept by the v3 Vault): the Vault's
  `getPoolTokenInfo(pool)` (tokens, raw balances), `getCurrentLiveBalances(pool)` (balances scaled
  to 18 decimals times each token's rate), `getPoolTokenRates(pool)` (decimal scaling factors and
  rates) and `totalSupply(pool)`. No BPT is preminted and protocol fees are kept apart from the
  balances, so the supply is the Vault's `totalSupply`.
- The pool type by the views it answers: `getBptIndex()` composable-stable, else (v3) an LBP's
  `getLBPoolImmutableData()` lbp (an LBPool is a WeightedPool too: its own view comes first; its
  sale's figures are read from it and `getLBPoolDynamicData()`, `Lbp`), else
  `getNormalizedWeights()` weighted, else `getAmplificationParameter()` stable, else (v3) a
  fixed-price LBP's `getFixedPriceLBPoolImmutableData()` fixed-price-lbp (its sale read from it
  and `getFixedPriceLBPoolDynamicData()`, `FixedPriceLbp`), else other: (v3) the type named in a
  warning where the pool answers one of UNSUPPORTED's views (its own views not read). Each view
  asked after another's answer is asked by the lens in the same order (lenses/BalancerPools.sol
  `_types`), so positions read them all from its tape.
- The share of each token: balance x bpt / supply, rounded down (a proportional exit;
  `tests/test_balancer.py` compares it with `@balancer-labs/balancer-maths`' proportional remove).
  v3 as its Vault's proportional remove computes it (BasePoolMath.computeProportionalAmountsOut
  on the live balances, then ScalingHelpers.toRawUndoRateRoundDown): live x bpt / supply rounded
  down, then x 1e18 / (scaling factor x rate) rounded down; for a token without a rate provider
  that is raw balance x bpt / supply.
- USD: each token's amount x its USD feed (adapters/prices/); the position's value is their sum,
  null when any token has no price (`valued`, which a pool's balances use too: pools.py).
- A gauge's reward tokens (`reward_tokens(i)` below `reward_count()`) and a reward token's info
  and price: what a stake's claimables (positions.py) and a pool's gauges (pools.py) both read.
- BPT that moved, as `positionsHistory` flows of the pool's tokens at the move's block
  (`bpt_flows`): Balancer's flows (flows.py) and Aura's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, NamedTuple

from adapters.balancer.contracts import (
    FIXED_LBP_DYNAMIC_DATA,
    FIXED_LBP_IMMUTABLE_DATA,
    GET_ACTUAL_SUPPLY,
    GET_AMPLIFICATION_PARAMETER,
    GET_BPT_INDEX,
    GET_NORMALIZED_WEIGHTS,
    GET_POOL_ID,
    GET_POOL_TOKENS,
    GYRO_2CLP_IMMUTABLE_DATA,
    GYRO_ECLP_PARAMS,
    LBP_DYNAMIC_DATA,
    LBP_IMMUTABLE_DATA,
    RECLAMM_DYNAMIC_DATA,
    REWARD_COUNT,
    REWARD_TOKENS,
    TOTAL_SUPPLY,
    V3_GET_CURRENT_LIVE_BALANCES,
    V3_GET_POOL_TOKEN_INFO,
    V3_GET_POOL_TOKEN_RATES,
    V3_TOTAL_SUPPLY,
)
from adapters.balancer.section import BalancerAddresses
from adapters.context import FetchContext
from adapters.flows import Flow, WalletLogs
from adapters.legs import LIQUIDITY, LIQUIDITY_POSITION, REWARD, feed_of, leg
from adapters.legs import position as positioned
from adapters.position_warnings import FIGURE_UNAVAILABLE, Warnings, outcome
from adapters.prices import UsdPrice, warned_usd_price
from addresses import ChainAddresses
from chain import ChainReader, Log, erc20, first
from chain.abi import Function
from errors import ProtocolError

WAD = 10**18
UNSUPPORTED: dict[str, Function] = {
    "Gyro E-CLP": GYRO_ECLP_PARAMS,
    "Gyro 2-CLP": GYRO_2CLP_IMMUTABLE_DATA,
    "ReClamm": RECLAMM_DYNAMIC_DATA,
}
"""v3 pool types no published package deploys (Gyro's published only as interfaces, ReClamm's not
on npm at all), each by the one view of its own that tells it: answered as `other`, named in a
warning, their own views not read."""


@dataclass(frozen=True)
class Sale:
    """What every v3 LBP type's own views say of its sale: the tokens sold and bought, its times
    and whether it swaps (is on) at the block."""

    project_token: str
    reserve_token: str
    start_time: int
    end_time: int
    swap_enabled: bool

    def answer(self) -> dict[str, Any]:
        """The fields `BalancerLbp` and `BalancerFixedPriceLbp` share."""
        return {
            "projectToken": self.project_token,
            "reserveToken": self.reserve_token,
            "startTime": self.start_time,
            "endTime": self.end_time,
            "isSwapEnabled": self.swap_enabled,
        }


@dataclass(frozen=True)
class Lbp:
    """A v3 liquidity bootstrapping pool's sale, as its own views answer it: `getLBPoolImmutableData()`
    (the sale, its start and end weights) and `getLBPoolDynamicData()` (its weights now,
    interpolated over the sale, and whether it swaps)."""

    sale: Sale
    start_weights: tuple[int, ...]
    end_weights: tuple[int, ...]
    weights: tuple[int, ...]
    project_token_swap_in_blocked: bool
    reserve_token_virtual_balance: int

    def answer(self) -> dict[str, Any]:
        """The `BalancerLbp`: weights as fractions (over 1e18), in the Vault's token order."""
        return {
            **self.sale.answer(),
            "startWeights": _fractions(self.start_weights),
            "endWeights": _fractions(self.end_weights),
            "weights": _fractions(self.weights),
            "isProjectTokenSwapInBlocked": self.project_token_swap_in_blocked,
            "reserveTokenVirtualBalance": str(self.reserve_token_virtual_balance),
        }


@dataclass(frozen=True)
class FixedPriceLbp:
    """A v3 fixed-price liquidity bootstrapping pool's sale, as its own views answer it:
    `getFixedPriceLBPoolImmutableData()` (the sale, its fixed rate) and
    `getFixedPriceLBPoolDynamicData()` (whether it swaps). A fixed-price LBP is buy-only: its
    project token is never bought back."""

    sale: Sale
    project_token_rate: int

    def answer(self) -> dict[str, Any]:
        """The `BalancerFixedPriceLbp`: the rate as reserve tokens per project token (over 1e18)."""
        return {**self.sale.answer(), "projectTokenRate": float(Fraction(self.project_token_rate, WAD))}


def _fractions(weights: Sequence[int]) -> list[float]:
    return [float(Fraction(weight, WAD)) for weight in weights]


@dataclass(frozen=True)
class PoolState:
    """A pool's tokens (its own BPT left out), their balances and the supply shares are of."""

    pool: str
    version: int
    pool_id: str | None
    pool_type: str
    tokens: tuple[str, ...]
    balances: tuple[int, ...]
    supply: int
    live: tuple[int, ...] = ()
    """v3: the Vault's live balances (18 decimals, rates applied), what its exits are computed on."""
    scales: tuple[int, ...] = ()
    """v3: each token's decimal scaling factor (10 ** (18 - decimals)) x its rate (1e18 for an
    18-decimal token at rate 1)."""
    lbp: Lbp | None = None
    """An LBP's sale (pool_type lbp)."""
    fixed_price_lbp: FixedPriceLbp | None = None
    """A fixed-price LBP's sale (pool_type fixed-price-lbp)."""
    unsupported: str | None = None
    """The type of UNSUPPORTED a pool of type other was recognized as (its own views not read)."""

    def amounts(self, bpt: int) -> list[int]:
        """What `bpt` pool tokens pay of each token in a proportional exit, rounded down."""
        if not self.supply:
            return [0] * len(self.balances)
        if self.live:
            return [live * bpt // self.supply * 10**18 // scale for live, scale in zip(self.live, self.scales)]
        return [balance * bpt // self.supply for balance in self.balances]


async def v2_pool(reader: ChainReader, vault: str, pool: str, pool_id: str) -> PoolState:
    """A v2 pool's state at the pinned block; ProtocolError when the Vault or the pool cannot answer."""
    label = f"Balancer pool {pool}"
    (listed, balances, supply), bpt_index, weights, amp = await asyncio.gather(
        v2_holdings(reader, vault, pool, pool_id),
        outcome(reader.call(pool, GET_BPT_INDEX, label=label)),
        outcome(reader.call(pool, GET_NORMALIZED_WEIGHTS, label=label)),
        outcome(reader.call(pool, GET_AMPLIFICATION_PARAMETER, label=label)),
    )
    if not isinstance(bpt_index, ProtocolError):
        (index,) = bpt_index
        if index >= len(listed) or listed[index] != pool:
            raise ProtocolError(f"{label}: getBptIndex names no BPT among the Vault's tokens.")
        del listed[index], balances[index]
        pool_type = "composable-stable"
    else:
        pool_type = _kind(weights, amp)
    return PoolState(pool, 2, pool_id, pool_type, tuple(listed), tuple(balances), supply)


async def v2_holdings(reader: ChainReader, vault: str, pool: str, pool_id: str) -> tuple[list[str], list[int], int]:
    """The Vault's tokens (lower case; a composable stable pool's own BPT among them) and raw
    balances of a v2 pool, and the supply its exits are computed against: no view a pool of
    some type lacks but `getActualSupply` (read beside `totalSupply`)."""
    label = f"Balancer pool {pool}"
    tokens, actual, total = await asyncio.gather(
        reader.call(vault, GET_POOL_TOKENS, bytes.fromhex(pool_id[2:]), label="Balancer v2 Vault"),
        outcome(first(reader.call(pool, GET_ACTUAL_SUPPLY, label=label))),
        first(reader.call(pool, TOTAL_SUPPLY, label=label)),
    )
    supply: int = total if isinstance(actual, ProtocolError) else actual
    return [token.lower() for token in tokens.tokens], list(tokens.balances), supply


async def v3_pool(reader: ChainReader, vault: str, pool: str) -> PoolState:
    """A v3 pool's state at the pinned block from its Vault's views; ProtocolError when they cannot answer."""
    own = f"Balancer pool {pool}"
    held, weights, amp, sale = await asyncio.gather(
        v3_holdings(reader, vault, pool),
        outcome(reader.call(pool, GET_NORMALIZED_WEIGHTS, label=own)),
        outcome(reader.call(pool, GET_AMPLIFICATION_PARAMETER, label=own)),
        outcome(first(reader.call(pool, LBP_IMMUTABLE_DATA, label=own))),
    )
    found: PoolState = replace(held, pool_type=_kind(weights, amp))
    tokens = found.tokens
    if not isinstance(sale, ProtocolError):
        now = await outcome(first(reader.call(pool, LBP_DYNAMIC_DATA, label=own)))
        return replace(found, pool_type="lbp", lbp=_lbp(own, tokens, sale, now))
    if found.pool_type != "other":
        return found
    fixed, *types = await asyncio.gather(
        outcome(first(reader.call(pool, FIXED_LBP_IMMUTABLE_DATA, label=own))),
        *(outcome(reader.call(pool, view, label=own)) for view in UNSUPPORTED.values()),
    )
    if not isinstance(fixed, ProtocolError):
        now = await outcome(first(reader.call(pool, FIXED_LBP_DYNAMIC_DATA, label=own)))
        return replace(found, pool_type="fixed-price-lbp", fixed_price_lbp=_fixed_price_lbp(own, tokens, fixed, now))
    named = next((name for name, answer in zip(UNSUPPORTED, types) if not isinstance(answer, ProtocolError)), None)
    return replace(found, unsupported=named)


async def v3_holdings(reader: ChainReader, vault: str, pool: str) -> PoolState:
    """A v3 pool's tokens, balances, rates and supply from its Vault's views alone, which every
    pool type answers (its type `other` until its own views are read: v3_pool)."""
    label = "Balancer v3 Vault"
    info, live, rates, supply = await asyncio.gather(
        reader.call(vault, V3_GET_POOL_TOKEN_INFO, pool, label=label),
        first(reader.call(vault, V3_GET_CURRENT_LIVE_BALANCES, pool, label=label)),
        reader.call(vault, V3_GET_POOL_TOKEN_RATES, pool, label=label),
        first(reader.call(vault, V3_TOTAL_SUPPLY, pool, label=label)),
    )
    tokens = tuple(token.lower() for token in info.tokens)
    scales = tuple(factor * rate for factor, rate in zip(rates.decimalScalingFactors, rates.tokenRates))
    if not len(tokens) == len(info.balancesRaw) == len(live) == len(scales) or not all(scales):
        raise ProtocolError(f"{label}: the pool {pool}'s token lists do not match.")
    return PoolState(pool, 3, None, "other", tokens, tuple(info.balancesRaw), supply, tuple(live), scales)


def _sale(
    label: str, views: tuple[Function, Function], tokens: tuple[str, ...], sale: Any, now: Any | ProtocolError
) -> tuple[Sale, Any]:
    """An LBP's Sale from its immutable and dynamic data (`views`), and the dynamic data;
    ProtocolError where that cannot be read or its tokens are not the Vault's."""
    immutable, dynamic = (view.signature for view in views)
    if isinstance(now, ProtocolError):
        raise ProtocolError(f"{label}: {immutable} answers but {dynamic} does not: {now.message}")
    if tuple(token.lower() for token in sale.tokens) != tokens:
        raise ProtocolError(f"{label}: its LBP data's tokens are not the Vault's tokens.")
    if not (sale.projectTokenIndex < len(tokens) and sale.reserveTokenIndex < len(tokens)):
        raise ProtocolError(f"{label}: its LBP data's project or reserve token index is not a token of the pool.")
    project, reserve = tokens[sale.projectTokenIndex], tokens[sale.reserveTokenIndex]
    return Sale(project, reserve, sale.startTime, sale.endTime, now.isSwapEnabled), now


def _fixed_price_lbp(label: str, tokens: tuple[str, ...], sale: Any, now: Any | ProtocolError) -> FixedPriceLbp:
    """A fixed-price LBP's sale from its two views (`_sale`'s errors)."""
    found, _ = _sale(label, (FIXED_LBP_IMMUTABLE_DATA, FIXED_LBP_DYNAMIC_DATA), tokens, sale, now)
    return FixedPriceLbp(found, sale.projectTokenRate)


def _lbp(label: str, tokens: tuple[str, ...], sale: Any, now: Any | ProtocolError) -> Lbp:
    """An LBP's sale from its two views (`_sale`'s errors; ProtocolError where its weights are not
    one for each token)."""
    found, now = _sale(label, (LBP_IMMUTABLE_DATA, LBP_DYNAMIC_DATA), tokens, sale, now)
    if any(len(weights) != len(tokens) for weights in (sale.startWeights, sale.endWeights, now.normalizedWeights)):
        raise ProtocolError(f"{label}: its LBP data's weights are not one for each of the Vault's tokens.")
    return Lbp(
        found,
        tuple(sale.startWeights),
        tuple(sale.endWeights),
        tuple(now.normalizedWeights),
        sale.isProjectTokenSwapInBlocked,
        sale.reserveTokenVirtualBalance,
    )


def unsupported_warning(state: PoolState) -> str:
    """What a pool of a type named unsupported (UNSUPPORTED) is answered with, and what not."""
    assert state.unsupported is not None
    view = UNSUPPORTED[state.unsupported].signature
    return (
        f"poolType is other: the pool is a {state.unsupported} pool (it answers {view}), a type whose "
        "own views are not read (unsupported); its tokens, balances and supply are the Vault's, which every v3 pool "
        "type shares, and a share of it is what the Vault's proportional exit pays"
    )


async def pool_by_address(reader: ChainReader, balancer: BalancerAddresses, pool: str) -> PoolState:
    """The state of a pool known only by its address (an Aura pool's `lptoken`): v2 where it
    answers `getPoolId()`, else v3 where the chain has Balancer's v3 Vault."""
    pool_id = await outcome(first(reader.call(pool, GET_POOL_ID, label=f"Balancer pool {pool}")))
    if not isinstance(pool_id, ProtocolError):
        return await v2_pool(reader, balancer.v2_vault.address, pool, "0x" + bytes(pool_id).hex())
    if balancer.v3_vault is None:
        raise pool_id
    return await v3_pool(reader, balancer.v3_vault.address, pool)


def _kind(weights: Any, amp: Any) -> str:
    if not isinstance(weights, ProtocolError):
        return "weighted"
    return "stable" if not isinstance(amp, ProtocolError) else "other"


@dataclass(frozen=True)
class Valued:
    """Amounts of a pool's tokens, each with its TokenInfo, USD price and value (null without a
    price, with a warning), and their sum (null when any is)."""

    infos: list[dict[str, Any]]
    prices: list[UsdPrice | None]
    usd: list[Fraction | None]
    total: Fraction | None


async def valued(
    reader: ChainReader, chain: ChainAddresses, tokens: Sequence[str], amounts: Sequence[int], warnings: Warnings
) -> Valued:
    """Each amount in USD by its token's feed, summed exactly and rounded once by the caller: a
    position's share (`position`) and a pool's balances (pools.py) alike."""
    infos, prices = await asyncio.gather(
        asyncio.gather(*(erc20.token_info(reader, token) for token in tokens)),
        asyncio.gather(*(warned_usd_price(reader, chain, token, warnings) for token in tokens)),
    )
    usd = [
        price.exact(amount, info["decimals"]) if price else None for info, amount, price in zip(infos, amounts, prices)
    ]
    total = None if None in usd else sum((value for value in usd if value is not None), Fraction(0))
    return Valued(list(infos), list(prices), usd, total)


def as_float(value: Fraction | None) -> float | None:
    return float(value) if value is not None else None


async def position(
    reader: ChainReader, chain: ChainAddresses, state: PoolState, bpt: int, warnings: Warnings
) -> dict[str, Any]:
    """The `BalancerPoolPosition` of `bpt` pool tokens: each token's share with its USD value."""
    amounts = state.amounts(bpt)
    if state.unsupported:
        warnings.add(FIGURE_UNAVAILABLE, state.pool, unsupported_warning(state))
    pool_token, found = await asyncio.gather(
        erc20.token_info(reader, state.pool), valued(reader, chain, state.tokens, amounts, warnings)
    )
    shares, legs = [], []
    pool = state.pool.lower()
    for info, balance, amount, price, usd in zip(found.infos, state.balances, amounts, found.prices, found.usd):
        value = as_float(usd)
        shares.append({"token": info, "poolBalance": str(balance), "amount": str(amount), "amountUsd": value})
        legs.append(leg(LIQUIDITY, f"{pool}:{info['address']}", info, amount, value, feed_of(price)))
    return {
        **positioned("BalancerPoolPosition", pool, LIQUIDITY_POSITION, pool_token["symbol"], legs),
        "version": state.version,
        "poolType": state.pool_type,
        "pool": pool_token,
        "poolId": state.pool_id,
        "balance": str(bpt),
        "totalSupply": str(state.supply),
        "tokens": shares,
        "valueUsd": as_float(found.total),
        **sales(state),
    }


def sales(state: PoolState) -> dict[str, Any]:
    """A position's and a pool's `lbp` and `fixedPriceLbp`: the sale of the LBP the pool is, else null."""
    return {
        "lbp": state.lbp.answer() if state.lbp else None,
        "fixedPriceLbp": state.fixed_price_lbp.answer() if state.fixed_price_lbp else None,
    }


class Reward(NamedTuple):
    """A `BalancerReward` and its leg."""

    answer: dict[str, Any]
    leg: dict[str, Any]


async def reward(
    reader: ChainReader, chain: ChainAddresses, token: str, amount: int, warnings: Warnings, where: str
) -> Reward:
    """A `BalancerReward`: the token (null with a warning where it cannot be read), the amount, its
    USD; and its leg, keyed by `where` it accrues (a gauge, a reward pool)."""
    info, price = await reward_token(reader, chain, token, warnings)
    usd = price.value(amount, info["decimals"]) if price and info else None
    key = f"{where.lower()}:{token.lower()}:reward"
    return Reward(
        {"token": info, "amount": str(amount), "amountUsd": usd}, leg(REWARD, key, info, amount, usd, feed_of(price))
    )


async def reward_token(
    reader: ChainReader, chain: ChainAddresses, token: str, warnings: Warnings
) -> tuple[dict[str, Any] | None, UsdPrice | None]:
    """A reward's TokenInfo and USD price, each None with a warning where it cannot be read."""
    info, price = await asyncio.gather(
        warnings.optional(erc20.token_info(reader, token), token, "the reward's token is"),
        warned_usd_price(reader, chain, token, warnings),
    )
    return info, price


def price_usd(price: UsdPrice | None) -> float | None:
    """USD per whole token by its feed; None without a price (warned where it was read)."""
    return float(Fraction(price.answer, 10**price.decimals)) if price else None


MAX_REWARD_TOKENS = 8
"""A LiquidityGaugeV5 holds at most 8 reward tokens (MAX_REWARDS)."""


async def reward_tokens(reader: ChainReader, gauge: str) -> list[str]:
    """A gauge's reward tokens (`reward_tokens(i)` below `reward_count()`, at most
    MAX_REWARD_TOKENS), lower case: what its stakers claim (positions) and what it pays (pools)."""
    label = f"Balancer gauge {gauge}"
    count = min(await first(reader.call(gauge, REWARD_COUNT, label=label)), MAX_REWARD_TOKENS)
    tokens = await asyncio.gather(*(first(reader.call(gauge, REWARD_TOKENS, i, label=label)) for i in range(count)))
    return [str(token).lower() for token in tokens]


def staked(
    typename: str, identifier: str, holder: str, share: dict[str, Any], rewards: Sequence[Reward]
) -> dict[str, Any]:
    """The `Position` of pool tokens staked where they earn rewards (a gauge, an Aura reward pool):
    the pool share's legs keyed by the `holder` they are staked in (`<holder>:<token>`, apart from
    the same pool's unstaked BPT, so that a stake is a flow out of one and into the other), and the
    rewards'."""
    tokens = [{**each, "key": f"{holder.lower()}:{_token(each)}"} for each in share["legs"]]
    legs = [*tokens, *(each.leg for each in rewards)]
    return positioned(typename, identifier, LIQUIDITY_POSITION, f"{share['label']} staked", legs)


def _token(share_leg: dict[str, Any]) -> str:
    """The token of a pool share's leg (its key `<pool>:<token>`)."""
    _, _, token = share_leg["key"].rpartition(":")
    return str(token)


class BptMove(NamedTuple):
    """BPT that came into (`bpt` > 0) or went out of what `holder` keeps for the wallet: the
    pool's own tokens (`holder` the pool) or a stake (a gauge, an Aura reward pool)."""

    holder: str
    pool: str
    kind: str
    log: Log
    bpt: int


async def bpt_flows(
    ctx: FetchContext[Any], balancer: BalancerAddresses, moves: Sequence[BptMove], logs: WalletLogs
) -> list[Flow]:
    """Each move as a flow of each of its pool's tokens, keyed as the position's legs
    (`<holder>:<token>`): what the BPT pays in a proportional exit at the move's block
    (`PoolState.amounts` of the pool's state after that block, as the position values it). A pool
    whose state cannot be read at a block names the holder's legs unavailable."""
    at = sorted({(move.pool, move.log.block_number) for move in moves})
    states = await asyncio.gather(
        *(outcome(pool_by_address(ctx.chains.reader(ctx.chain_id, block), balancer, pool)) for pool, block in at)
    )
    state_at = dict(zip(at, states))
    found = []
    for move in moves:
        log, state = move.log, state_at[(move.pool, move.log.block_number)]
        if isinstance(state, ProtocolError):
            logs.unavailable[move.holder] = f"pool {move.pool} at block {log.block_number}: {state.message}"
            continue
        sign = 1 if move.bpt > 0 else -1
        where = (log.block_number, log.log_index, log.transaction_hash)
        found += [
            Flow(f"{move.holder}:{token}", move.kind, *where, token, sign * amount)
            for token, amount in zip(state.tokens, state.amounts(abs(move.bpt)))
        ]
    return found
