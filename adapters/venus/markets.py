"""What the wallet query reads and computes alike of one Venus market (a vToken): its underlying
token, its oracle price, its rates as APYs, its terms for the account.

- The underlying: `underlying()`, or the chain's coin where the vToken has none (vBNB).
- Price: the pool's oracle, `getUnderlyingPrice(vToken)` = USD x 10^(36 - decimals) per whole
  unit, so USD per whole token = price x 10^decimals / 1e36 (the ResilientOracle's scale).
- APY from the per-period rates, compounded per period over the market's year:
  (1 + ratePerBlock / 1e18)^periodsPerYear - 1. In the core pool the periods are blocks and the
  year is `blocksPerYear()` of the market's interest rate model (70,080,000 on BNB Chain since
  its 0.45 s blocks); an isolated vToken says its own, `blocksOrSecondsPerYear()` (its chain's
  blocks, or 31,536,000 where it counts seconds, its "per block" rates then per second). Venus's
  own figures compound daily, which differs in the sixth digit. Compound v2's year is the chain's
  blocks, declared (`blocksPerYear`: its rate models' 2,102,400 are 15-second blocks').
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from adapters.position_warnings import Warnings, outcome
from adapters.venus.contracts import (
    BLOCKS_PER_YEAR,
    BORROW_RATE,
    INTEREST_RATE_MODEL,
    MANTISSA,
    PERIODS_PER_YEAR,
    PRICE_SCALE,
    SUPPLY_RATE,
    UNDERLYING,
    UNDERLYING_PRICE,
)
from adapters.venus.listing import ListedPool
from chain import ChainReader, erc20, first
from chain.erc20 import NATIVE
from errors import ProtocolError


@dataclass(frozen=True)
class MarketFigures:
    """One vToken's figures the positions share (each None where its read failed: warned)."""

    vtoken: str
    token: dict[str, Any] | None
    """The underlying's TokenInfo."""
    usd: Fraction | None
    """USD per whole underlying token."""
    supply_apy: float | None
    borrow_apy: float | None
    periods_per_year: int | None

    def value(self, amount: int | None) -> float | None:
        """`amount` raw units of the underlying in USD; None where a part is unknown."""
        if amount is None or self.usd is None or self.token is None:
            return None
        return float(Fraction(amount, 10 ** self.token["decimals"]) * self.usd)


def apy(rate_per_period: int, periods_per_year: int) -> float:
    """Per-period compounding of a per-period rate (a mantissa) over the market's year."""
    return math.expm1(periods_per_year * math.log1p(rate_per_period / MANTISSA))


async def underlying(reader: ChainReader, vtoken: str, label: str) -> str:
    """The market's underlying token; the chain's coin (erc20.NATIVE) for a vToken without one."""
    found = await outcome(first(reader.call(vtoken, UNDERLYING, label=label)))
    return NATIVE if isinstance(found, ProtocolError) else str(found).lower()


async def holding(reader: ChainReader, markets: list[str], token: str, label: str) -> str:
    """The market of `markets` whose underlying `token` is: how Compound v2, whose oracle prices
    cTokens only, prices COMP (positions' claims, flows)."""
    held = await asyncio.gather(*(underlying(reader, market, label) for market in markets))
    found = next((market for market, asset in zip(markets, held) if asset == token), None)
    if found is None:
        raise ProtocolError(f"no market of the {label} holds {token}, whose price its oracle would give")
    return found


async def _year(reader: ChainReader, pool: ListedPool, vtoken: str) -> int:
    """The market's periods a year (see the module; Compound v2's, declared)."""
    if pool.periods_per_year:
        return pool.periods_per_year
    if not pool.core:
        return int(await first(reader.call(vtoken, PERIODS_PER_YEAR, label=pool.label)))
    model = await first(reader.call(vtoken, INTEREST_RATE_MODEL, label=pool.label))
    return int(await first(reader.call(model, BLOCKS_PER_YEAR, label=f"{pool.label} rate model")))


async def market(reader: ChainReader, pool: ListedPool, oracle: str, vtoken: str, warnings: Warnings) -> MarketFigures:
    """The market's token, price and APYs (see the module): one round, then the model's year (the
    core pool's) and the token's facts."""
    optional, label = warnings.optional, pool.label
    asset, price, supply_rate, borrow_rate, year = await asyncio.gather(
        underlying(reader, vtoken, label),
        optional(
            first(reader.call(oracle, UNDERLYING_PRICE, vtoken, label=f"{label} oracle")), vtoken, "USD values are"
        ),
        optional(first(reader.call(vtoken, SUPPLY_RATE, label=label)), vtoken, "the supply apy is"),
        optional(first(reader.call(vtoken, BORROW_RATE, label=label)), vtoken, "the borrow apy is"),
        optional(_year(reader, pool, vtoken), vtoken, "apys are"),
    )
    token = await optional(erc20.token_info(reader, asset), vtoken, "currency is")
    usd = Fraction(price * 10 ** token["decimals"], PRICE_SCALE) if price is not None and token else None
    return MarketFigures(
        vtoken=vtoken,
        token=token,
        usd=usd,
        supply_apy=apy(supply_rate, year) if supply_rate is not None and year else None,
        borrow_apy=apy(borrow_rate, year) if borrow_rate is not None and year else None,
        periods_per_year=year,
    )
