"""What a vault-style position and pool both show of a vault or token: a vault's share token, asset, rate
and totals, its APY (its savings rate, else its rate's growth) and USD price; a priced token's info, feed
price, currency and APY (positions.py and pools.py read them alike)."""

from __future__ import annotations

import asyncio
import math
from fractions import Fraction
from typing import Any, cast

from adapters import history
from adapters.position_warnings import Warnings
from adapters.prices import LATEST_ROUND_DATA, UsdPrice, currency_usd, feed_price, usd_price
from adapters.vault_style.section import PricedToken, ShareVault
from addresses import ChainAddresses
from chain import ChainReader, erc20
from chain.abi import Function
from chain.erc4626 import ASSET, CONVERT_TO_ASSETS, TOTAL_ASSETS
from errors import ProtocolError

SSR = Function("ssr()", "03607ceb", ("uint256",))
"""sUSDS: the USDS savings rate, a per-second factor in ray (sky-ecosystem/susds SUsds)."""


POT = Function("pot()", "4ba2363a", ("address",), immutable=True)
"""sDAI: the Pot whose rate it earns (sky-ecosystem/sdai SavingsDai)."""


DSR = Function("dsr()", "487bf082", ("uint256",))
"""The Pot's DAI savings rate, a per-second factor in ray (MakerDAO pot.sol)."""


VSR = Function("vsr()", "1e7b14d3", ("uint256",))
"""A Spark Vault V2's savings rate, a per-second factor in ray (sparkdotfi/spark-vaults-v2 SparkVault)."""


RAY = 10**27


async def savings_apy(reader: ChainReader, vault: ShareVault) -> float:
    """The APY of a vault's own savings rate at the block: (rate / 1e27)^31,536,000 - 1, the
    per-second factor it accrues by (`chi` x rate^seconds), compounded over a 365-day year."""
    label = f"vault {vault.address}"
    if vault.rate in ("ssr", "vsr"):
        (rate,) = await reader.call(vault.address, SSR if vault.rate == "ssr" else VSR, label=label)
    else:
        (pot,) = await reader.call(vault.address, POT, label=label)
        (rate,) = await reader.call(pot, DSR, label=f"{label} pot")
    if not RAY <= rate < 2 * RAY:
        raise ProtocolError(f"{label} reports a savings rate of {rate} ray a second, not one a year can compound")
    return math.expm1(history.YEAR * math.log1p((rate - RAY) / RAY))


async def vault_facts(reader: ChainReader, vault: str) -> tuple[Any, ...]:
    """(share token, asset token, assets per whole share, totalAssets, totalSupply) of a vault."""
    label = f"vault {vault}"
    share_token, (asset,), (total_assets,), (total_supply,) = await asyncio.gather(
        erc20.token_info(reader, vault),
        reader.call(vault, ASSET, label=label),
        reader.call(vault, TOTAL_ASSETS, label=label),
        reader.call(vault, erc20.TOTAL_SUPPLY, label=label),
    )
    asset_token, per_share = await asyncio.gather(
        erc20.token_info(reader, asset), assets_of(reader, vault, 10 ** share_token["decimals"])
    )
    return share_token, asset_token, per_share, total_assets, total_supply


async def vault_prices(
    reader: ChainReader,
    chain: ChainAddresses,
    period: int,
    vault: ShareVault,
    share_token: dict[str, Any],
    asset: dict[str, Any],
    warnings: Warnings,
) -> tuple[UsdPrice | None, float | None]:
    """The asset's USD price and the vault's APY (its savings rate's, else its exchange rate's
    growth over the period), each None with a warning where it cannot be had."""
    target, one_share = vault.address, 10 ** share_token["decimals"]
    price, apy = await asyncio.gather(
        warnings.optional(usd_price(reader, chain, asset["address"]), asset["address"], "its USD values are"),
        history.period_apy(reader, period, lambda at: assets_of(at, target, one_share), warnings, target, "apy is")
        if vault.rate is None
        else warnings.optional(savings_apy(reader, vault), target, "apy is"),
    )
    return price, apy


async def per_share(reader: ChainReader, vault: str, at: ChainReader) -> int:
    """The vault's exchange rate read through `at` (its share decimals from the reader's cache)."""
    share_token = await erc20.token_info(reader, vault)
    return await assets_of(at, vault, 10 ** share_token["decimals"])


async def assets_of(reader: ChainReader, vault: str, shares: int) -> int:
    (assets,) = await reader.call(vault, CONVERT_TO_ASSETS, shares, label=f"vault {vault}")
    return cast(int, assets)


async def token_facts(
    reader: ChainReader, chain: ChainAddresses, period: int, priced: PricedToken, warnings: Warnings, usd: str
) -> tuple[dict[str, Any] | None, UsdPrice | None, Fraction | None, float | None]:
    """A priced token's info, its feed's price, the feed currency's USD value and its APY (the
    price's growth over the period), each None with a warning naming what `usd` (the USD figure
    they make) then lacks."""
    target, feed = priced.token, priced.feed.feed
    info, price, unit, apy = await asyncio.gather(
        warnings.optional(erc20.token_info(reader, target), target, f"its symbol, decimals and {usd} are"),
        warnings.optional(feed_price(reader, chain, priced.feed, target), target, f"oraclePrice and {usd} are"),
        warnings.optional(currency_usd(reader, chain, priced.currency, priced.feed.pair), target, f"{usd} is"),
        history.period_apy(reader, period, lambda at: feed_answer(at, feed), warnings, target, "apy is"),
    )
    return info, price, unit, apy


def token_usd(amount: int, info: dict[str, Any] | None, price: UsdPrice | None, unit: Fraction | None) -> float | None:
    """`amount` raw units of a priced token in USD: amount x the feed's price x its currency's USD."""
    if info is None or price is None or unit is None:
        return None
    return float(Fraction(amount * price.answer, 10 ** (info["decimals"] + price.decimals)) * unit)


async def feed_answer(reader: ChainReader, feed: str) -> int:
    (_, answer, _, _, _) = await reader.call(feed, LATEST_ROUND_DATA, label=f"price feed {feed}")
    return cast(int, answer)
