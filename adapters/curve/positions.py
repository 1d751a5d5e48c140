"""Curve: the wallet's LP positions in the pools of Curve's factories and older registries, its
gauge stakes and their claimable CRV and extra rewards, on-chain at the pinned block.

How each figure is derived (docs/protocols/curve.md has the long form):

- Pools: every pool of every factory the addresses data lists for the chain (@curvefi/api's
  factories: stableswap, crvUSD, stableswap-ng, v2 crypto, twocrypto-ng, tricrypto-ng), by the
  factory's own `pool_count()` and `pool_list(i)` at the block; never a hand list. Then the
  pools of the older registries Curve's AddressProvider names at the block (`get_address(0)` the
  main registry, `get_address(5)` the crypto registry: 3pool, stETH, tricrypto2 ...), scanned the
  same way. A pool's LP token is the pool itself, or `get_token(pool)` on the v2 crypto factory,
  `get_lp_token(pool)` on a registry; its gauge is `get_gauge(pool)` on Ethereum (a registry's
  first `get_gauges(pool)`); elsewhere, as @curvefi/api finds it, the child gauge factories'
  `get_gauge_from_lp_token(lp)`, the first that names one.
- Held: `balanceOf(wallet)` of the LP token, and of the gauge (staked LP, one gauge token per LP
  token). The scan of every pool runs inside one lens call (lenses/CurveLens.sol), which records
  the reads of the pools the wallet holds only; where no lens ran (an endpoint that refuses calls
  without `to`), the same reads go through Multicall3 in bulk (adapters/sweep.py).
- The wallet's share of each coin and its USD value: adapters/curve/figures.py, for the LP held
  plus the LP staked; its legs apart, the LP held's coins keyed by the pool, the staked LP's by
  the gauge (`<gauge>:<coin>`), so that a stake moves the coins from one to the other.
- Gauge: `claimable_tokens(wallet)` (CRV; it writes on LiquidityGauge v1-v4, so it is called as
  a transaction would call it, never staticcall), `reward_count()`, `reward_tokens(i)`,
  `claimable_reward(wallet, token)`; USD through each token's feed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from adapters.context import FetchContext
from adapters.curve import figures
from adapters.curve.contracts import (
    CLAIMABLE_REWARD,
    CLAIMABLE_TOKENS,
    GET_GAUGE,
    GET_GAUGE_FROM_LP_TOKEN,
    GET_GAUGES,
    GET_LP_TOKEN,
    GET_TOKEN,
    LENS,
    MAX_HELD,
    MAX_REWARDS,
    POOL_COUNT,
    POOL_LIST,
    REWARD_COUNT,
    REWARD_TOKENS,
    has_token,
    is_registry,
    provider_ids,
    scan_flags,
)
from adapters.curve.section import CurveAddresses, CurveFactory
from adapters.curve.sources import gauge_of, lp_token, older_registries
from adapters.deployment import deployed
from adapters.formats import raw
from adapters.legs import LIQUIDITY_POSITION, REWARD, feed_of, leg, position
from adapters.position_warnings import Warnings, outcome
from adapters.prices import UsdPrice, lens_feeds, lens_market, warned_usd_price
from adapters.sweep import sweep
from addresses import ChainAddresses
from chain import ChainReader, erc20, first
from chain.abi import ZERO_ADDRESS, Function


@dataclass(frozen=True)
class Held:
    factory: CurveFactory
    pool: str
    lp_token: str
    gauge: str | None
    balance: int
    staked: int


async def fetch(ctx: FetchContext[CurveAddresses], wallet: str) -> dict[str, Any]:
    chain = ctx.chain
    curve = ctx.section
    reader = ctx.reader()
    held = await holdings(reader, chain, curve, wallet, ctx.warnings)
    outcomes = await asyncio.gather(*(outcome(_position(reader, chain, curve, h, wallet, ctx.warnings)) for h in held))
    return {"curvePositions": ctx.warnings.survivors("Curve pool", zip((h.pool for h in held), outcomes))}


async def holdings(
    reader: ChainReader, chain: ChainAddresses, curve: CurveAddresses, wallet: str, warnings: Warnings
) -> list[Held]:
    """The pools the wallet holds LP of or has staked in their gauge at the reader's block, each
    once; a factory or registry that cannot be read is named in `warnings` and left out."""
    _prefetch(reader, chain, curve, wallet)
    parts = [*(factory.address for factory in curve.factories), *filter(None, [curve.address_provider])]
    await deployed(reader, "curve", parts, str, "factories and AddressProvider")
    named = await outcome(older_registries(reader, curve))
    registries = warnings.survivors("Curve AddressProvider", [(curve.address_provider or "", named)])
    sources = [*curve.factories, *(registry for found in registries for registry in found)]
    scanned = await asyncio.gather(*(outcome(_held(reader, curve, factory, wallet)) for factory in sources))
    found = warnings.survivors("Curve factory", zip((f.address for f in sources), scanned))
    return _distinct([pool for pools in found for pool in pools])


def _distinct(held: list[Held]) -> list[Held]:
    """Each pool once, as its first source lists it (a pool that a factory and an older registry
    both list is one position)."""
    seen: set[str] = set()
    kept = []
    for h in held:
        if h.pool.lower() not in seen:
            seen.add(h.pool.lower())
            kept.append(h)
    return kept


def _prefetch(reader: ChainReader, chain: ChainAddresses, curve: CurveAddresses, wallet: str) -> None:
    """The scan of every factory and the reads of the pools held, in one lens call."""
    registries = [factory.address for factory in curve.factories]
    keys, feeds, sequencer = lens_feeds(chain)
    pricing = [keys, feeds, lens_market(chain)]
    children = list(curve.child_gauge_factories)
    provider = curve.address_provider or ZERO_ADDRESS
    ids = provider_ids() if curve.address_provider else []
    flags = scan_flags(curve)
    crv = curve.crv or ZERO_ADDRESS
    reader.prefetch(
        [LENS.initcode(wallet, registries, flags, MAX_HELD, crv, pricing, sequencer, children, provider, ids)],
        [*registries, *children, *([provider] if curve.address_provider else [])],
    )


async def _held(reader: ChainReader, curve: CurveAddresses, factory: CurveFactory, wallet: str) -> list[Held]:
    """The factory's pools the wallet holds LP of or has staked in their gauge: those the lens
    recorded (its `pool_count()` record vouches for the scan), else a scan in bulk."""
    label = f"Curve factory {factory.name} {factory.address}"
    if not await reader.tapes.holds(factory.address, POOL_COUNT.calldata()):
        return await _swept(reader, curve, factory, wallet)
    (count,) = await reader.call(factory.address, POOL_COUNT, label=label)
    recorded = await asyncio.gather(*(reader.tapes.holds(factory.address, POOL_LIST.calldata(i)) for i in range(count)))
    pools = await asyncio.gather(
        *(reader.call(factory.address, POOL_LIST, i, label=label) for i, taped in enumerate(recorded) if taped)
    )
    lp_tokens = await asyncio.gather(*(lp_token(reader, factory, pool) for (pool,) in pools))
    gauges = await asyncio.gather(
        *(gauge_of(reader, curve, factory, pool, lp) for (pool,), lp in zip(pools, lp_tokens))
    )
    held = await asyncio.gather(
        *(_balances(reader, factory, pool, lp, gauge, wallet) for (pool,), lp, gauge in zip(pools, lp_tokens, gauges))
    )
    return [h for h in held if h.balance or h.staked]


async def _balances(reader: ChainReader, factory: CurveFactory, pool: str, lp: str, gauge: str, wallet: str) -> Held:
    gauge_ = None if gauge == ZERO_ADDRESS else gauge
    (balance,), (staked,) = await asyncio.gather(
        reader.call(lp, erc20.BALANCE_OF, wallet, label=f"Curve LP token {lp}"),
        reader.call(gauge_, erc20.BALANCE_OF, wallet, label=f"Curve gauge {gauge_}") if gauge_ else _zero(),
    )
    return Held(factory, pool, lp, gauge_, balance, staked)


async def _zero() -> tuple[int]:
    return (0,)


async def _swept(reader: ChainReader, curve: CurveAddresses, factory: CurveFactory, wallet: str) -> list[Held]:
    """The scan without a lens: `pool_list`, `get_token`, the gauge (as `_gauge_of` finds it) and
    both `balanceOf`s of every pool, through Multicall3 in bulk (rounds that follow the chain's
    pool count)."""
    (count,) = await reader.call(factory.address, POOL_COUNT, label=f"Curve factory {factory.name}")

    def words(answers: list[bytes | None]) -> list[str]:
        return ["0x" + a[12:32].hex() if a and len(a) >= 32 else ZERO_ADDRESS for a in answers]

    def each(target: str | list[str], function: Function, args: list[Any]) -> list[tuple[str, bytes]]:
        targets = target if isinstance(target, list) else [target] * len(args)
        return [(t, function.calldata(*a)) for t, a in zip(targets, args)]

    pools = words(await sweep(reader, each(factory.address, POOL_LIST, [(i,) for i in range(count)])))
    lps = pools
    if has_token(factory):
        view = GET_LP_TOKEN if is_registry(factory) else GET_TOKEN
        lps = words(await sweep(reader, each(factory.address, view, [(p,) for p in pools])))
    if curve.child_gauge_factories:
        gauges = [ZERO_ADDRESS] * count
        for child in curve.child_gauge_factories:
            found = words(await sweep(reader, each(child, GET_GAUGE_FROM_LP_TOKEN, [(lp,) for lp in lps])))
            gauges = [gauge if gauge != ZERO_ADDRESS else other for gauge, other in zip(gauges, found)]
    else:
        view = GET_GAUGES if is_registry(factory) else GET_GAUGE  # an address[10]'s first word: the gauge
        gauges = words(await sweep(reader, each(factory.address, view, [(p,) for p in pools])))
    balances = await sweep(reader, each([*lps, *gauges], erc20.BALANCE_OF, [(wallet,)] * (2 * count)))
    amounts = [int.from_bytes(a[:32], "big") if a and len(a) >= 32 else 0 for a in balances]
    return [
        Held(factory, pool, lp, None if gauge == ZERO_ADDRESS else gauge, amounts[i], amounts[count + i])
        for i, (pool, lp, gauge) in enumerate(zip(pools, lps, gauges))
        if amounts[i] or (gauge != ZERO_ADDRESS and amounts[count + i])
    ]


async def _position(
    reader: ChainReader, chain: ChainAddresses, curve: CurveAddresses, held: Held, wallet: str, warnings: Warnings
) -> dict[str, Any]:
    staked = (held.gauge, held.staked) if held.gauge else None
    share, gauge = await asyncio.gather(
        figures.share(
            reader, chain, held.pool, held.lp_token, held.factory.kind, held.balance + held.staked, warnings, staked
        ),
        _gauge(reader, chain, curve, held.gauge, wallet, warnings) if held.gauge else _no_gauge(),
    )
    (rewards, legs) = gauge.pop("rewards")
    label, held_legs = share["lpToken"]["symbol"], [*share.pop("legs"), *legs]
    return {
        "pool": held.pool,
        "kind": held.factory.kind,
        "factory": held.factory.address,
        "lpBalance": str(held.balance),
        "gauge": held.gauge,
        "stakedBalance": str(held.staked),
        **share,
        **gauge,
        "rewards": rewards,
        **position("CurveLpPosition", held.pool.lower(), LIQUIDITY_POSITION, label, held_legs),
    }


async def _no_gauge() -> dict[str, Any]:
    """A pool without a gauge: nothing to claim."""
    return {"claimableCrv": "0", "claimableCrvUsd": 0.0, "rewards": ([], [])}


async def _gauge(
    reader: ChainReader, chain: ChainAddresses, curve: CurveAddresses, gauge: str, wallet: str, warnings: Warnings
) -> dict[str, Any]:
    """CRV claimable and the extra rewards of the gauge (no CRV where Curve mints none: Mantle)."""
    label = f"Curve gauge {gauge}"
    if curve.crv is None:
        count = await outcome(first(reader.call(gauge, REWARD_COUNT, label=label)))
        return {**await _no_gauge(), "rewards": await extra_rewards(reader, chain, gauge, wallet, warnings, count)}
    claimable, crv_price, count, crv = await asyncio.gather(
        warnings.optional(first(reader.call(gauge, CLAIMABLE_TOKENS, wallet, label=label)), gauge, "claimableCrv is"),
        warned_usd_price(reader, chain, curve.crv, warnings),
        outcome(first(reader.call(gauge, REWARD_COUNT, label=label))),
        erc20.token_info(reader, curve.crv),
    )
    rewards, legs = await extra_rewards(reader, chain, gauge, wallet, warnings, count)
    usd = crv_price.value(claimable, 18) if crv_price and claimable is not None else None
    earned = leg(REWARD, f"{gauge.lower()}:{crv['address']}:reward", crv, claimable, usd, feed_of(crv_price))
    return {"claimableCrv": raw(claimable), "claimableCrvUsd": usd, "rewards": (rewards, [earned, *legs])}


async def extra_rewards(
    reader: ChainReader,
    chain: ChainAddresses,
    gauge: str,
    wallet: str,
    warnings: Warnings,
    count: int | Exception,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`reward_tokens(i)` for i < `reward_count()` and each one's `claimable_reward(wallet, token)`,
    and their legs; a gauge without `reward_count` (v1) has none."""
    if isinstance(count, Exception):
        return [], []
    label = f"Curve gauge {gauge}"
    tokens = await asyncio.gather(
        *(reader.call(gauge, REWARD_TOKENS, i, label=label) for i in range(min(count, MAX_REWARDS)))
    )
    infos, amounts, prices = await asyncio.gather(
        asyncio.gather(*(erc20.token_info(reader, token) for (token,) in tokens)),
        asyncio.gather(*(reader.call(gauge, CLAIMABLE_REWARD, wallet, token, label=label) for (token,) in tokens)),
        asyncio.gather(*(warned_usd_price(reader, chain, token, warnings) for (token,) in tokens)),
    )
    return rewards(gauge, infos, [amount for (amount,) in amounts], prices)


def rewards(
    where: str, infos: Sequence[dict[str, Any]], amounts: Sequence[int], prices: Sequence[UsdPrice | None]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`CurveReward`s of the tokens a gauge or reward pool (`where`) holds for the wallet, and their legs."""
    found, legs = [], []
    for info, amount, price in zip(infos, amounts, prices):
        usd = price.value(amount, info["decimals"]) if price else None
        found.append({"token": info, "claimable": str(amount), "claimableUsd": usd})
        legs.append(leg(REWARD, f"{where.lower()}:{info['address']}:reward", info, amount, usd, feed_of(price)))
    return found, legs
