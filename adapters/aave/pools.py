"""Aave's `poolDetails`: one market, named by its PoolAddressesProvider (as the hosted API names
it) or its Pool, with every reserve, read through the views the wallet query uses (positions.py)
and valued as it values them (market.py).

- The market's current data provider and oracle from its PoolAddressesProvider (market.current).
- Per reserve, from the data provider: `getReserveData` (totals and rates), `getReserveConfigurationData`,
  `getReserveCaps`, `getPaused`, `getReserveTokensAddresses`; the oracle's `getAssetPrice`.
- totalSupplied = the aToken's total supply (`totalAToken`, accrued to the block by the liquidity
  index); totalBorrowed = total stable + variable debt (accrued likewise); utilization =
  totalBorrowed / totalSupplied (0 without supply).
- APYs: the ray annual rates compounded per second over a 365-day year (market.apy), as
  `@aave/math-utils` calculateCompoundedRate does for `supplyAPY` / `variableBorrowAPY`.
- Fractions: basis points / 1e4 (ltv, liquidationThreshold, reserveFactor); liquidationBonus is
  the bonus over 100 % (10500 -> 0.05). Caps are whole tokens, as the contract keeps them; 0 is none.
- USD as the wallet query: amount x price / 10^decimals / BASE_CURRENCY_UNIT, only when the
  market's base currency is USD.
- supplyRewards and borrowRewards: the incentives on the aToken and the variable debt token, as
  on positions (rewards.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from fractions import Fraction
from typing import Any, NamedTuple

from adapters.aave import incentives, rewards
from adapters.aave.contracts import (
    GET_POOL_DATA_PROVIDER,
    GET_PRICE_ORACLE,
    PAUSED,
    POOL_PAUSED,
    RESERVE_CAPS,
    RESERVE_CONFIGURATION,
    RESERVE_DATA,
    RESERVE_TOKENS,
    RESERVES_LIST,
    V2_RESERVE_DATA,
)
from adapters.aave.market import (
    Valuation,
    asset_price,
    base_usd,
    bounded_reserves,
    current,
    ether_usd,
    markets_of,
    quoted_apy,
)
from adapters.aave.section import AaveMarket
from adapters.context import FetchContext
from adapters.deployment import require
from adapters.formats import raw
from adapters.position_warnings import Warnings
from addresses import ChainAddresses
from chain import ChainReader, erc20, first, known, shared_future
from chain.abi import Function
from errors import InputValidationError


class Kind(NamedTuple):
    """How an error names a market of a protocol this module reads."""

    protocol: str
    market: str


MARKET_KIND = {"aave": Kind("Aave", "an Aave market"), "spark": Kind("SparkLend", "a SparkLend market")}


async def details(ctx: FetchContext[Any], pool: str) -> dict[str, Any]:
    chain_id, kind = ctx.chain_id, MARKET_KIND[ctx.protocol]
    markets = markets_of(ctx.chain, ctx.protocol)
    market = next((m for m in markets if pool in (m.addresses_provider.lower(), m.pool.lower())), None)
    if market is None:
        known = ", ".join(f"{m.name} {m.addresses_provider.lower()}" for m in markets)
        raise InputValidationError(
            f"{pool} is not {kind.market} on chain {chain_id}: expected the "
            f"PoolAddressesProvider (or Pool) of one of {known}."
        )
    reader = ctx.reader()
    await require(reader, f"the {kind.protocol} market {market.name}", market.pool, "Pool")
    return {"details": await _market(reader, ctx.chain, market, ctx.warnings)}


class _Caps(NamedTuple):
    """A v2 reserve's caps: none (v3's RESERVE_CAPS reads 0 for none)."""

    borrowCap: int = 0
    supplyCap: int = 0


class _Paused(NamedTuple):
    """A v2 reserve's pause: its Pool's (v3's PAUSED is the reserve's)."""

    isPaused: bool


class _Market(NamedTuple):
    """What every reserve's row reads by: the market's current contracts and the USD value of its
    oracle's unit (None where it is unknown: the warning names it once)."""

    market: AaveMarket
    data_provider: str
    oracle: str
    base: Awaitable[Fraction | None]
    """Read once, beside the reserves' reads."""
    label: str


async def _market(reader: ChainReader, chain: ChainAddresses, market: AaveMarket, warnings: Warnings) -> dict[str, Any]:
    label, v2 = f"Aave market {market.name}", market.version == 2
    ether = ether_usd(reader, chain, market)
    (reserves,), data_provider, oracle, paused = await asyncio.gather(
        reader.call(market.pool, RESERVES_LIST, label=label),
        known(market.data_provider)  # v2's provider does not name it
        if v2
        else current(reader, market.addresses_provider, GET_POOL_DATA_PROVIDER, market.data_provider, label),
        current(reader, market.addresses_provider, GET_PRICE_ORACLE, market.oracle, label),
        warnings.optional(first(reader.call(market.pool, POOL_PAUSED, label=label)), market.pool, "isPaused is")
        if v2
        else known(None),
    )
    bounded_reserves(reserves, label)
    base = shared_future(
        warnings.optional(base_usd(reader, market, oracle, ether, label), market.pool, "the USD values are")
    )
    where = _Market(market, data_provider, oracle, base, label)
    rows = await asyncio.gather(*(_reserve(reader, where, asset, paused, warnings) for asset in reserves))
    return {
        "__typename": "AaveMarketPool",
        "type": f"{market.protocol}-market-pool",
        "addressesProvider": market.addresses_provider.lower(),
        "chainId": reader.chain_id,
        "marketName": market.name,
        "version": market.version,
        "pool": market.pool.lower(),
        "reserves": list(rows),
    }


async def _reserve(
    reader: ChainReader, where: _Market, asset: str, pool_paused: bool | None, warnings: Warnings
) -> dict[str, Any]:
    """One reserve, every figure null with a warning where its read fails. A v2 reserve has no caps
    (they read as 0, none) and pauses with its Pool (`pool_paused`: its `paused()`)."""
    optional, provider, v2 = warnings.optional, f"{where.label} data provider", where.market.version == 2

    def read(function: Function, what: str) -> Any:
        return optional(reader.call(where.data_provider, function, asset, label=provider), asset, what)

    token, data, config, caps, paused, tokens, price, base = await asyncio.gather(
        optional(erc20.token_info(reader, asset), asset, "asset is"),
        read(V2_RESERVE_DATA if v2 else RESERVE_DATA, "the totals, utilization and APYs are"),
        read(RESERVE_CONFIGURATION, "the reserve's configuration is"),
        known(_Caps()) if v2 else read(RESERVE_CAPS, "supplyCap and borrowCap are"),
        known(None if pool_paused is None else _Paused(pool_paused)) if v2 else read(PAUSED, "isPaused is"),
        read(RESERVE_TOKENS, "aToken and variableDebtToken are"),
        optional(asset_price(reader, where.oracle, asset, where.label), asset, "the USD values are"),
        where.base,
    )
    value = Valuation.of(config, token, price, base, where.oracle)
    a_token, debt_token = (tokens.aTokenAddress, tokens.variableDebtTokenAddress) if tokens else (None, None)
    supply_rewards, borrow_rewards = await rewards.on_reserve(
        reader,
        ((a_token, "supplyRewards are"), (debt_token, "borrowRewards are")),
        value,
        warnings,
        asset,
        where.label,
        incentives.rates if v2 else rewards.rates,
    )
    supplied = (
        (data.availableLiquidity + data.totalStableDebt + data.totalVariableDebt if v2 else data.totalAToken)
        if data
        else None
    )
    borrowed = data.totalStableDebt + data.totalVariableDebt if data else None
    return {
        "asset": token,
        "aToken": a_token.lower() if a_token else None,
        "variableDebtToken": debt_token.lower() if debt_token else None,
        "totalSupplied": raw(supplied),
        "totalSuppliedUsd": value.usd(supplied),
        "totalBorrowed": raw(borrowed),
        "totalBorrowedUsd": value.usd(borrowed),
        "utilization": (borrowed / supplied if supplied else 0.0) if data else None,
        "supplyApy": quoted_apy(data.liquidityRate, asset, warnings, "supplyApy is") if data else None,
        "borrowApy": quoted_apy(data.variableBorrowRate, asset, warnings, "borrowApy is") if data else None,
        "supplyRewards": supply_rewards,
        "borrowRewards": borrow_rewards,
        "ltv": config.ltv / 10_000 if config else None,
        "liquidationThreshold": config.liquidationThreshold / 10_000 if config else None,
        "liquidationBonus": _bonus(config.liquidationBonus) if config else None,
        "reserveFactor": config.reserveFactor / 10_000 if config else None,
        "supplyCap": str(caps.supplyCap) if caps else None,
        "borrowCap": str(caps.borrowCap) if caps else None,
        "usageAsCollateralEnabled": config.usageAsCollateralEnabled if config else None,
        "borrowingEnabled": config.borrowingEnabled if config else None,
        "isActive": config.isActive if config else None,
        "isFrozen": config.isFrozen if config else None,
        "isPaused": paused.isPaused if paused else None,
        "priceUsd": None if value.decimals is None else value.usd(10**value.decimals),
    }


def _bonus(liquidation_bonus: int) -> float:
    """The liquidator's bonus over 100 % (10500 -> 0.05); a reserve that is no collateral has 0."""
    return (liquidation_bonus - 10_000) / 10_000 if liquidation_bonus else 0.0
