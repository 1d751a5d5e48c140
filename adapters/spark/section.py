"""What Spark's adapter reads of a chain: SparkLend's markets ("spark", Aave's shape) and its
savings vaults ("sparkVaults", the vault-style shape), either or both."""

from __future__ import annotations

from dataclasses import dataclass

from adapters.aave.section import SPARKLEND, AaveMarket
from adapters.vault_style.section import VaultStyleAddresses
from adapters.vault_style.section import section as vault_style
from addresses import ChainAddresses

SAVINGS = vault_style("sparkVaults")


@dataclass(frozen=True)
class SparkParts:
    markets: tuple[AaveMarket, ...]
    savings: VaultStyleAddresses | None


def section(chain: ChainAddresses) -> SparkParts | None:
    """Spark's parts of the chain, where it has either."""
    markets, savings = SPARKLEND.of(chain) or (), SAVINGS.of(chain)
    return SparkParts(markets, savings) if markets or savings else None
