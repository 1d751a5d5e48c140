"""Aave's part of a chain's addresses data ("aave"): its markets as Aave's address book lists
them, v3 and (`"version": 2`) v2; SparkLend's ("spark"), an Aave v3 fork read the same way, has
the same shape."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from addresses import Section, fields
from addresses.fields import AddressesError

Version = Literal[2, 3]
VERSIONS: tuple[Version, ...] = (2, 3)


@dataclass(frozen=True)
class AaveMarket:
    name: str
    """The market's name in Aave's address book (AaveV3Ethereum, AaveV2Ethereum, ...)."""
    addresses_provider: str
    pool: str
    data_provider: str
    """The market's AaveProtocolDataProvider (a v2 PoolAddressesProvider does not name it)."""
    oracle: str
    protocol: str = "aave"
    """"aave", or "spark" for a SparkLend market (an Aave v3 fork read the same way)."""
    start_block: int | None = None
    """`startBlock`: the block its Pool was deployed at, where the data says (its page
    under docs/protocols/ cites the source): a block before it is refused with no read."""
    version: Version = 3
    """Aave's version, as the data declares it (`"version": 2`; 3 when left out): v2's views, rules
    and incentives differ (docs/protocols/aave.md), and a proxy says nothing of it itself."""


def markets(protocol: str) -> Section[tuple[AaveMarket, ...]]:
    """The section of `protocol`'s markets: a list of Aave v3 markets."""

    def parse(value: Any, where: str) -> tuple[AaveMarket, ...]:
        if not isinstance(value, list):
            raise AddressesError(f"{where}: must be a list of markets")
        found = []
        for index, market in enumerate(value):
            here = f"{where}[{index}]"
            if not isinstance(market, dict) or not isinstance(market.get("name"), str):
                raise AddressesError(f"{here}: must be an object with a name")
            provider, pool, data_provider, oracle = (
                fields.address(market.get(name), f"{here} {name}")
                for name in ("addressesProvider", "pool", "dataProvider", "oracle")
            )
            block = fields.start_block(market, here)
            version = market.get("version", 3)
            if version not in VERSIONS or isinstance(version, bool) or (version == 2 and protocol != "aave"):
                raise AddressesError(f"{here} version: must be 3 or, for an Aave market, 2")
            found.append(AaveMarket(market["name"], provider, pool, data_provider, oracle, protocol, block, version))
        return tuple(found)

    return Section(protocol, parse)


AAVE = markets("aave")
SPARKLEND = markets("spark")
"""SparkLend's markets (Spark's declaration reads them beside its savings vaults)."""
