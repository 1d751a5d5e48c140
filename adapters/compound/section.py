"""Compound v3's part of a chain's addresses data ("compound"): its Comets and CometRewards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Section, fields
from addresses.fields import AddressesError


@dataclass(frozen=True)
class CometMarket:
    name: str
    """Compound's name for the market, e.g. cUSDCv3."""
    comet: str
    price_currency: str = "USD"
    """What the market's `getPrice` is quoted in: USD, or the base asset's unit (the WETH markets
    quote in ETH through a constant 1e8 base feed, cWBTCv3 in BTC)."""
    start_block: int | None = None
    """`startBlock`: the block the Comet was deployed at, where the data says (its page
    under docs/protocols/ cites the source): a block before it is refused with no read."""


@dataclass(frozen=True)
class CompoundAddresses:
    rewards: str | None
    """The chain's CometRewards contract."""
    markets: tuple[CometMarket, ...]


def parse(value: Any, where: str) -> CompoundAddresses:
    if not isinstance(value, dict) or not isinstance(value.get("markets"), list):
        raise AddressesError(f"{where}: must be an object with a markets list")
    markets = []
    for index, market in enumerate(value["markets"]):
        if not isinstance(market, dict) or not isinstance(market.get("name"), str):
            raise AddressesError(f"{where} markets[{index}]: must be an object with name and comet")
        markets.append(
            CometMarket(
                market["name"],
                fields.address(market.get("comet"), f"{where} markets[{index}]"),
                str(market.get("priceCurrency", "USD")),
                fields.start_block(market, f"{where} markets[{index}]"),
            )
        )
    return CompoundAddresses(fields.optional_address(value, "rewards", where), tuple(markets))


COMPOUND = Section("compound", parse)
