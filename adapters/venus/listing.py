"""Which Venus pools a chain has: the core pool (its Unitroller, where the addresses data names
one: BNB Chain) and every isolated pool its PoolRegistry lists at the block (`getAllPools()`: a
name and a Comptroller each). At a past block, the one of the two that had no code yet is left
out (BNB Chain's core pool predates its registry), and a block before both is refused
(adapters/deployment.py).

A pool's kind says how its Comptroller names what differs: the core pool's (a Diamond, XVS and
VAI), an isolated pool's (RewardsDistributors, three-field `markets`), or Compound v2's, the
Comptroller Venus forked (COMP, three-field `markets` whose collateral factor is also its
liquidation threshold), which adapters/compound reads through this package."""

from __future__ import annotations

from dataclasses import dataclass

from adapters.deployment import deployed
from adapters.venus.contracts import ALL_POOLS, MAX_MARKETS
from adapters.venus.section import VenusAddresses
from chain import ChainReader, first, no_read
from errors import ProtocolError

CORE = "Core Pool"
"""The core pool's name, as Venus's app names it."""
VENUS_CORE, VENUS_ISOLATED, COMPOUND_V2 = "venus-core", "venus-isolated", "compound-v2"


@dataclass(frozen=True)
class ListedPool:
    name: str
    comptroller: str
    kind: str
    """VENUS_CORE, VENUS_ISOLATED or COMPOUND_V2."""
    periods_per_year: int | None = None
    """Compound v2's blocks a year, declared (its rate models' own are another chain's)."""

    @property
    def core(self) -> bool:
        return self.kind == VENUS_CORE

    @property
    def compound(self) -> bool:
        return self.kind == COMPOUND_V2

    @property
    def label(self) -> str:
        """How errors and warnings name the pool's reads."""
        if self.compound:
            return "Compound v2"
        return "Venus core pool" if self.core else f"Venus pool {self.name}"

    @property
    def typename(self) -> str:
        """The GraphQL types' prefix (VenusSupplyPosition, CompoundV2SupplyPosition)."""
        return "CompoundV2" if self.compound else "Venus"

    @property
    def token_field(self) -> str:
        """What a position calls its market's token: vToken, cToken."""
        return "cToken" if self.compound else "vToken"

    def title(self, token_symbol: str) -> str:
        if self.compound:
            return f"{token_symbol} (Compound v2)"
        return f"{token_symbol} (Venus)" if self.core else f"{token_symbol} (Venus {self.name})"


async def pools(reader: ChainReader, venus: VenusAddresses) -> list[ListedPool]:
    """The core pool first, then the isolated pools in the registry's order."""
    parts = [address for address in (venus.comptroller, venus.pool_registry) if address]
    there = await deployed(reader, "venus", parts, lambda address: address, "core pool or PoolRegistry")
    registry = venus.pool_registry if venus.pool_registry in there else None
    listed = await (first(reader.call(registry, ALL_POOLS, label="Venus PoolRegistry")) if registry else no_read())
    if listed and len(listed) > MAX_MARKETS:
        raise ProtocolError(f"the Venus PoolRegistry lists {len(listed)} pools, more than {MAX_MARKETS}")
    found = [ListedPool(CORE, venus.comptroller.lower(), VENUS_CORE)] if venus.comptroller in there else []
    return found + [ListedPool(str(p.name), str(p.comptroller).lower(), VENUS_ISOLATED) for p in listed or ()]
