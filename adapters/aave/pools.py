"""Aave's `poolDetails`: one market, named by its PoolAddressesProvider (as the hosted API names
it) or its Pool, with every reserve, read through the views the wallet query uses (positions.py).

- The market's current data provider and oracle from its PoolAddressesProvider (aave.current).
- Per reserve, from the data provider: `getReserveData` (totals and rates), `getReserveConfigurationData`,
  `getReserveCaps`, `getPaused`, `getReserveTokensAddresses`; the oracle's `getAssetPrice`.
- totalSupplied = the aToken's total supply (`totalAToken`, accrued to the block by the liquidity
  index); totalBorrowed = total stable + variable debt (accrued likewise); utilization =
  totalBorrowed / totalSupplied (0 without supply).
- APYs: the ray annual rates compounded per second over a 365-day year (aave.apy), as
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
from typing import Any

from adapters.aave import rewards
from adapters.aave.collateral import ASSET_PRICE
from adapters.aave.positions import (
    GET_POOL_DATA_PROVIDER,
    GET_PRICE_ORACLE,
    RESERVE_CONFIGURATION,
    RESERVE_DATA,
    RESERVE_TOKENS,
    RESERVES_LIST,
    bounded_reserves,
    current,
    markets_of,
    priced,
    quoted_apy,
    usd_unit_of,
    usd_value,
)
from adapters.context import FetchContext
from adapters.deployment import require
from adapters.formats import raw
from adapters.position_warnings import Warnings
from addresses import AaveMarket
from chain import ChainReader, erc20, no_read
from chain.abi import Function
from errors import InputValidationError

RESERVE_CAPS = Function("getReserveCaps(address)", "46fbe558", ("uint256", "uint256"))
PAUSED = Function("getPaused(address)", "b55d9904", ("bool",))


MARKET_KIND = {"aave": ("Aave", "an Aave v3 market"), "spark": ("SparkLend", "a SparkLend market")}
"""How an error names a market of each protocol this module reads."""


async def details(ctx: FetchContext, pool: str) -> dict[str, Any]:
    chain_id, protocol = ctx.chain_id, ctx.protocol
    markets = markets_of(ctx.chain, protocol)
    found = [m for m in markets if pool in (m.addresses_provider.lower(), m.pool.lower())]
    if not found:
        known = ", ".join(f"{m.name} {m.addresses_provider.lower()}" for m in markets)
        raise InputValidationError(
            f"{pool} is not {MARKET_KIND[protocol][1]} on chain {chain_id}: expected the "
            f"PoolAddressesProvider (or Pool) of one of {known}."
        )
    reader = ctx.reader()
    await require(reader, f"the {MARKET_KIND[protocol][0]} market {found[0].name}", found[0].pool, "Pool")
    return {"details": await _market(reader, found[0], ctx.warnings)}


async def _market(reader: ChainReader, market: AaveMarket, warnings: Warnings) -> dict[str, Any]:
    label = f"Aave market {market.name}"
    (reserves,), data_provider, oracle = await asyncio.gather(
        reader.call(market.pool, RESERVES_LIST, label=label),
        current(reader, market.addresses_provider, GET_POOL_DATA_PROVIDER, market.data_provider, label),
        current(reader, market.addresses_provider, GET_PRICE_ORACLE, market.oracle, label),
    )
    bounded_reserves(reserves, label)
    rows = await asyncio.gather(
        *(_reserve(reader, data_provider, oracle, asset, label, warnings) for asset in reserves)
    )
    return {
        "__typename": "AaveMarketPool",
        "type": f"{market.protocol}-market-pool",
        "addressesProvider": market.addresses_provider.lower(),
        "chainId": reader.chain_id,
        "marketName": market.name,
        "pool": market.pool.lower(),
        "reserves": list(rows),
    }


async def _reserve(
    reader: ChainReader, data_provider: str, oracle: str, asset: str, label: str, warnings: Warnings
) -> dict[str, Any]:
    """One reserve, every figure null with a warning where its read fails."""
    optional, provider = warnings.optional, f"{label} data provider"

    def read(function: Function, what: str) -> Any:
        return optional(reader.call(data_provider, function, asset, label=provider), asset, what)

    token, data, config, caps, paused, tokens, price, usd_unit = await asyncio.gather(
        optional(erc20.token_info(reader, asset), asset, "asset is"),
        read(RESERVE_DATA, "the totals, utilization and APYs are"),
        read(RESERVE_CONFIGURATION, "the reserve's configuration is"),
        read(RESERVE_CAPS, "supplyCap and borrowCap are"),
        read(PAUSED, "isPaused is"),
        read(RESERVE_TOKENS, "aToken and variableDebtToken are"),
        optional(priced(reader.call(oracle, ASSET_PRICE, asset, label=f"{label} oracle")), asset, "the USD values are"),
        reader.shared(("aave usd unit", oracle), lambda: usd_unit_of(reader, oracle, label)),
    )
    decimals = config[0] if config else token["decimals"] if token else None
    now = await reader.block_timestamp()
    asset_usd = Fraction(price, usd_unit) if price is not None and usd_unit else None

    def incentives(token: str, what: str) -> Awaitable[list[dict[str, Any]] | None]:
        return optional(rewards.rates(reader, token, decimals, asset_usd, now, warnings, asset, label), asset, what)

    supply_rewards, borrow_rewards = await asyncio.gather(
        incentives(tokens[0], "supplyRewards are") if tokens else no_read(),
        incentives(tokens[2], "borrowRewards are") if tokens else no_read(),
    )

    def usd(amount: int | None) -> float | None:
        return None if amount is None else usd_value(amount, price, decimals, usd_unit)

    supplied = data[2] if data else None
    borrowed = data[3] + data[4] if data else None
    rates = (
        (quoted_apy(data[5], asset, warnings, "supplyApy is"), quoted_apy(data[6], asset, warnings, "borrowApy is"))
        if data
        else (None, None)
    )
    return {
        "asset": token,
        "aToken": tokens[0].lower() if tokens else None,
        "variableDebtToken": tokens[2].lower() if tokens else None,
        "totalSupplied": raw(supplied),
        "totalSuppliedUsd": usd(supplied),
        "totalBorrowed": raw(borrowed),
        "totalBorrowedUsd": usd(borrowed),
        "utilization": (borrowed / supplied if supplied else 0.0) if data else None,
        "supplyApy": rates[0],
        "borrowApy": rates[1],
        "supplyRewards": supply_rewards,
        "borrowRewards": borrow_rewards,
        "ltv": config[1] / 10_000 if config else None,
        "liquidationThreshold": config[2] / 10_000 if config else None,
        "liquidationBonus": (config[3] - 10_000) / 10_000 if config and config[3] else (0.0 if config else None),
        "reserveFactor": config[4] / 10_000 if config else None,
        "supplyCap": str(caps[1]) if caps else None,
        "borrowCap": str(caps[0]) if caps else None,
        "usageAsCollateralEnabled": config[5] if config else None,
        "borrowingEnabled": config[6] if config else None,
        "isActive": config[8] if config else None,
        "isFrozen": config[9] if config else None,
        "isPaused": paused[0] if paused else None,
        "priceUsd": None if decimals is None else usd(10**decimals),
    }
