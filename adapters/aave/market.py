"""What the wallet query (positions.py) and poolDetails (pools.py) read and compute alike for an
Aave v3 market, so a position and its reserve's row never disagree: the markets listed, the
contracts the market uses now, its USD unit, a reserve's price, APY and USD values.
"""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

from adapters.aave.contracts import ASSET_PRICE, BASE_CURRENCY, BASE_CURRENCY_UNIT, MAX_RESERVES, RAY, SECONDS_PER_YEAR
from adapters.aave.section import AAVE, SPARKLEND, AaveMarket
from adapters.position_warnings import PriceUnavailable, Warnings, outcome
from addresses import ChainAddresses
from chain import ChainReader
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


async def usd_unit_of(reader: ChainReader, oracle: str, label: str) -> int | None:
    """The oracle's BASE_CURRENCY_UNIT when its base currency is USD (the zero address), else
    None: the market's prices are then in no currency this service converts."""
    base_currency, unit = await asyncio.gather(
        outcome(reader.call(oracle, BASE_CURRENCY, label=f"{label} oracle")),
        outcome(reader.call(oracle, BASE_CURRENCY_UNIT, label=f"{label} oracle")),
    )
    if base_currency != (ZERO_ADDRESS,) or isinstance(unit, ProtocolError):
        return None
    (value,) = unit
    return cast(int, value) or None


async def asset_price(reader: ChainReader, oracle: str, asset: str, label: str) -> int:
    """The oracle's price of `asset`; a failing oracle is a PriceUnavailable (a PRICE_UNAVAILABLE warning)."""
    try:
        (price,) = await reader.call(oracle, ASSET_PRICE, asset, label=f"{label} oracle")
    except ProtocolError as exc:
        raise PriceUnavailable(f"the oracle failed: {exc.message}") from None
    return cast(int, price)


@dataclass(frozen=True)
class Valuation:
    """How a reserve's amounts are valued: its decimals, the oracle's price and the market's
    BASE_CURRENCY_UNIT (each None where it is unknown: its read failed, or the base is not USD)."""

    decimals: int | None
    price: int | None
    usd_unit: int | None

    @classmethod
    def of(cls, config: Any, token: dict[str, Any] | None, price: int | None, usd_unit: int | None) -> Valuation:
        """The decimals from the reserve's configuration (RESERVE_CONFIGURATION), else its token's."""
        return cls(config.decimals if config else token["decimals"] if token else None, price, usd_unit)

    def usd(self, amount: int | None) -> float | None:
        """amount / 10^decimals x price / BASE_CURRENCY_UNIT; None where a part is unknown."""
        if amount is None or self.usd_unit is None or self.price is None or self.decimals is None:
            return None
        return float(Fraction(amount * self.price, 10**self.decimals * self.usd_unit))

    @property
    def asset_usd(self) -> Fraction | None:
        """USD per whole token, as the incentives' APRs weigh the reserve."""
        return Fraction(self.price, self.usd_unit) if self.price is not None and self.usd_unit else None
