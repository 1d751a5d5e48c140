"""An fToken's and a vault's figures as both queries give them, so a position and its pool's
details never disagree: an fToken's token, asset and rates; a vault's two sides (tokens or DEX
shares, USD), type, factors and rates, holding a position's amounts or the vault's totals."""

from __future__ import annotations

import asyncio
import math
from fractions import Fraction
from typing import Any

from adapters.fluid.contracts import ORACLE_PRICE_SCALE, RATE_SCALE, REWARDS_RATE_SCALE
from adapters.position_warnings import FIGURE_UNAVAILABLE, Warnings
from adapters.prices import UsdPrice, noted, usd_price
from addresses import ChainAddresses
from chain import ChainReader, erc20, no_read

SECONDS_PER_YEAR = 365 * 24 * 3600
VAULT_TYPES = {
    (False, False): "standard",
    (True, False): "smart-collateral",
    (False, True): "smart-debt",
    (True, True): "smart-collateral-and-debt",
}


class FluidReader:
    """Token facts and prices of one input, shared through the request's reader."""

    def __init__(self, reader: ChainReader, chain: ChainAddresses, warnings: Warnings) -> None:
        self.reader = reader
        self.chain = chain
        self.warnings = warnings

    async def token(self, token: str) -> dict[str, Any] | None:
        read = self.reader.shared(("fluid", "token", token), lambda: erc20.token_info(self.reader, token))
        return await self.warnings.optional(read, token, "the token's facts are")

    async def price(self, token: str) -> UsdPrice | None:
        read = self.reader.shared(("fluid", "price", token), lambda: usd_price(self.reader, self.chain, token))
        return noted(self.reader, await self.warnings.optional(read, token, "its USD values are"))


async def ftoken_fields(fluid: FluidReader, details: Any) -> tuple[dict[str, Any], Any, UsdPrice | None]:
    """An fToken's own figures from the resolver's FTokenDetails (its token, asset and rates), and
    the asset's token facts and USD price."""
    ftoken = details.tokenAddress
    underlying, price = await asyncio.gather(fluid.token(details.asset), fluid.price(details.asset))
    supply_apr = details.supplyRate / RATE_SCALE
    rewards_apr = details.rewardsRate / REWARDS_RATE_SCALE
    return (
        {
            "fTokenAddress": ftoken,
            "fToken": {"address": ftoken, "name": details.name, "symbol": details.symbol, "decimals": details.decimals},
            "underlyingAsset": underlying,
            "supplyApr": supply_apr,
            "rewardsApr": rewards_apr,
            "supplyApy": compounded(supply_apr + rewards_apr),
        },
        underlying,
        price,
    )


def compounded(apr: float) -> float:
    """(1 + APR / seconds)^seconds - 1: per-second compounding, as the other adapters quote APYs."""
    return math.expm1(SECONDS_PER_YEAR * math.log1p(apr / SECONDS_PER_YEAR))


async def vault_sides(fluid: FluidReader, vault: Any, supply: int, borrow: int) -> dict[str, Any]:
    """A vault's two sides (its VaultEntireData) holding `supply` and `borrow` (a position's, or
    the vault's totals): tokens or DEX shares, USD values, and the vault's type, factors and rates."""
    smart_col, smart_debt = vault.isSmartCol, vault.isSmartDebt
    constants, configs, rates = vault.constantVariables, vault.configs, vault.exchangePricesAndRates
    col_tokens, debt_tokens = constants.supplyToken, constants.borrowToken
    operate = configs.oraclePriceOperate
    col_token, col_price, debt_token, debt_price, col_dex, debt_dex = await asyncio.gather(
        fluid.token(col_tokens.token0) if not smart_col else no_read(),
        fluid.price(col_tokens.token0) if not smart_col else no_read(),
        fluid.token(debt_tokens.token0) if not smart_debt else no_read(),
        fluid.price(debt_tokens.token0) if not smart_debt else no_read(),
        _dex_tokens(fluid, col_tokens) if smart_col else no_read(),
        _dex_tokens(fluid, debt_tokens) if smart_debt else no_read(),
    )
    supply_usd: float | None = 0.0 if not supply else None
    borrow_usd: float | None = 0.0 if not borrow else None
    if not smart_col:
        supply_usd = _usd(col_price, col_token, supply)
    elif not smart_debt and operate:
        supply_usd = _usd(debt_price, debt_token, Fraction(supply * operate, ORACLE_PRICE_SCALE))
    if not smart_debt:
        borrow_usd = _usd(debt_price, debt_token, borrow)
    elif not smart_col and operate:
        borrow_usd = _usd(col_price, col_token, Fraction(borrow * ORACLE_PRICE_SCALE, operate))
    sides = (("supplyUsd", supply, supply_usd, smart_col), ("borrowUsd", borrow, borrow_usd, smart_debt))
    unpriced = [name for name, amount, usd, smart in sides if smart and amount and usd is None]
    if unpriced and ((smart_col and smart_debt) or not operate):
        why = "both sides are Fluid DEX shares, which no feed prices" if operate else "its operate price is 0"
        verb = "is" if len(unpriced) == 1 else "are"
        fluid.warnings.add(FIGURE_UNAVAILABLE, vault.vault, f"{' and '.join(unpriced)} {verb} null: {why}")
    return {
        "vaultType": VAULT_TYPES[(smart_col, smart_debt)],
        "supplyToken": col_token,
        "supply": None if smart_col else str(supply),
        "supplyShares": str(supply) if smart_col else None,
        "supplyDexTokens": col_dex,
        "supplyUsd": supply_usd,
        "borrowToken": debt_token,
        "borrow": None if smart_debt else str(borrow),
        "borrowShares": str(borrow) if smart_debt else None,
        "borrowDexTokens": debt_dex,
        "borrowUsd": borrow_usd,
        "collateralFactor": configs.collateralFactor / RATE_SCALE,
        "liquidationThreshold": configs.liquidationThreshold / RATE_SCALE,
        "supplyRate": rates.supplyRateVault / RATE_SCALE,
        "borrowRate": rates.borrowRateVault / RATE_SCALE,
    }


async def _dex_tokens(fluid: FluidReader, pair: Any) -> list[dict[str, Any] | None]:
    """The two tokens of a smart side's Fluid DEX (its IFluidVault.Tokens)."""
    return list(await asyncio.gather(*(fluid.token(token) for token in pair)))


def _usd(price: UsdPrice | None, token: dict[str, Any] | None, amount: Fraction | int) -> float | None:
    if price is None or token is None:
        return None
    return float(Fraction(amount) * price.answer / 10 ** (token["decimals"] + price.decimals))
