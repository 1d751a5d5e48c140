"""What the wallet query (positions.py) and poolDetails (pools.py) read and compute alike for an
Aave market, so a position and its reserve's row never disagree: the markets listed, the
contracts the market uses now, the USD value of its oracle's unit, a reserve's price, APY and USD
values.

The oracle's unit (`base_usd`): a v3 AaveOracle quotes in USD where its BASE_CURRENCY is the zero
address, at BASE_CURRENCY_UNIT. A v2 one quotes in ETH (wei per whole token; Ethereum's, the AMM
market's and Polygon's), which is converted by the chain's ETH/USD feed (`currencyFeeds`), or in
USD where it answers a BASE_CURRENCY_UNIT other than 10^18 (Avalanche's): the test Aave's own
UiPoolDataProviderV2V3 makes.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

from adapters.aave.contracts import (
    ASSET_PRICE,
    BASE_CURRENCY,
    BASE_CURRENCY_UNIT,
    MAX_RESERVES,
    RAY,
    SECONDS_PER_YEAR,
    WAD,
)
from adapters.aave.section import AAVE, SPARKLEND, AaveMarket
from adapters.position_warnings import PriceUnavailable, Warnings, outcome
from adapters.prices import currency_usd
from addresses import ChainAddresses
from chain import ChainReader, first, shared_future
from chain.abi import ZERO_ADDRESS, Function
from errors import ProtocolError

log = logging.getLogger("wallet_positions.aave")


def markets_of(chain: ChainAddresses, protocol: str) -> tuple[AaveMarket, ...]:
    """The chain's Aave v3 markets ("aave") or SparkLend markets ("spark")."""
    return (SPARKLEND if protocol == "spark" else AAVE).of(chain) or ()


def apy(rate_ray: int) -> float:
    """Per-second compounding of a ray-denominated annual rate over a 365-day year."""
    try:
        return math.expm1(SECONDS_PER_YEAR * math.log1p(rate_ray / RAY / SECONDS_PER_YEAR))
    except OverflowError:
        raise ProtocolError(f"a reserve reports a rate of {rate_ray} ray, too large to be an APY") from None


def quoted_apy(rate_ray: int, asset: str, warnings: Warnings, what: str) -> float | None:
    """`apy(rate_ray)`, or None with a warning (`what` names the figure) for a rate too large."""
    try:
        return apy(rate_ray)
    except ProtocolError as exc:
        warnings.figure(asset, what, exc)
        return None


def bounded_reserves(reserves: list[str], label: str) -> None:
    """A Pool listing more reserves than Aave allows is not one to trust with a read per reserve."""
    if len(reserves) > MAX_RESERVES:
        raise ProtocolError(f"{label} lists {len(reserves)} reserves, more than Aave's {MAX_RESERVES}.")


async def current(reader: ChainReader, provider: str, function: Function, recorded: str, label: str) -> str:
    """The market's current contract as its PoolAddressesProvider names it (Aave redeploys data
    providers and oracles in upgrades), or the address book's if the provider cannot say."""
    try:
        (address,) = await reader.call(provider, function, label=f"{label} addresses provider")
    except ProtocolError as exc:
        log.warning("%s: using the recorded %s (%s)", label, function.name, exc.message)
        return recorded
    return cast(str, address)


def ether_usd(
    reader: ChainReader, chain: ChainAddresses, market: AaveMarket
) -> Awaitable[Fraction | ProtocolError] | None:
    """ETH's USD price for a v2 market (None for v3), started at once so that its reads join the
    market's first round, before the oracle is known."""
    if market.version == 3:
        return None
    return shared_future(outcome(currency_usd(reader, chain, "ETH", market.name)))


async def base_usd(
    reader: ChainReader, market: AaveMarket, oracle: str, ether: Awaitable[Fraction | ProtocolError] | None, label: str
) -> Fraction:
    """USD per unit of the oracle's prices (see the module; `ether` is `ether_usd`'s);
    PriceUnavailable, naming why, where they are in no currency this service converts."""
    if ether is not None:  # v2
        unit, usd = await asyncio.gather(
            outcome(first(reader.call(oracle, BASE_CURRENCY_UNIT, label=f"{label} oracle"))), ether
        )
        if not isinstance(unit, ProtocolError) and unit not in (0, WAD):
            return Fraction(1, unit)
        if isinstance(usd, ProtocolError):
            raise PriceUnavailable(f"the market's prices are in ETH, and {usd.message}")
        return cast(Fraction, usd) / WAD
    currency: Any
    currency, unit = await asyncio.gather(
        outcome(first(reader.call(oracle, BASE_CURRENCY, label=f"{label} oracle"))),
        outcome(first(reader.call(oracle, BASE_CURRENCY_UNIT, label=f"{label} oracle"))),
    )
    if currency != ZERO_ADDRESS or isinstance(unit, ProtocolError) or not unit:
        raise PriceUnavailable("the market's base currency is not USD")
    return Fraction(1, unit)


async def asset_price(reader: ChainReader, oracle: str, asset: str, label: str) -> int:
    """The oracle's price of `asset`; a failing oracle is a PriceUnavailable (a PRICE_UNAVAILABLE warning)."""
    try:
        (price,) = await reader.call(oracle, ASSET_PRICE, asset, label=f"{label} oracle")
    except ProtocolError as exc:
        raise PriceUnavailable(f"the oracle failed: {exc.message}") from None
    return cast(int, price)


@dataclass(frozen=True)
class Valuation:
    """How a reserve's amounts are valued: its decimals, the oracle's price and the USD value of
    the oracle's unit (base_usd; each None where it is unknown: its read failed)."""

    decimals: int | None
    price: int | None
    base: Fraction | None
    oracle: str
    """The market's AaveOracle (v2's incentives price their reward by it)."""

    @classmethod
    def of(
        cls, config: Any, token: dict[str, Any] | None, price: int | None, base: Fraction | None, oracle: str
    ) -> Valuation:
        """The decimals from the reserve's configuration (RESERVE_CONFIGURATION), else its token's."""
        return cls(config.decimals if config else token["decimals"] if token else None, price, base, oracle)

    def usd(self, amount: int | None) -> float | None:
        """amount / 10^decimals x price x base_usd; None where a part is unknown."""
        if amount is None or self.base is None or self.price is None or self.decimals is None:
            return None
        return float(Fraction(amount * self.price, 10**self.decimals) * self.base)

    @property
    def asset_usd(self) -> Fraction | None:
        """USD per whole token, as the incentives' APRs weigh the reserve."""
        return self.price * self.base if self.price is not None and self.base is not None else None
