"""Which Venus pools a chain has: the core pool (its Unitroller, where the addresses data names
one: BNB Chain) and every isolated pool its PoolRegistry lists at the block (`getAllPools()`: a
name and a Comptroller each). At a past block, the one of the two that had no code yet is left
out (BNB Chain's core pool predates its registry), and a block before both is refused
(adapters/deployment.py)."""

from __future__ import annotations

from dataclasses import dataclass

from adapters.deployment import deployed
from adapters.venus.contracts import ALL_POOLS, MAX_MARKETS
from adapters.venus.section import VenusAddresses
from chain import ChainReader, first, no_read
from errors import ProtocolError

CORE = "Core Pool"
"""The core pool's name, as Venus's app names it."""


@dataclass(frozen=True)
class ListedPool:
    name: str
    comptroller: str
    core: bool
    """The core pool (a Diamond Comptroller, XVS and VAI); else an isolated pool."""

    @property
    def label(self) -> str:
        """How errors and warnings name the pool's reads."""
        return "Venus core pool" if self.core else f"Venus pool {self.name}"


async def pools(reader: ChainReader, venus: VenusAddresses) -> list[ListedPool]:
    """The core pool first, then the isolated pools in the registry's order."""
    parts = [address for address in (venus.comptroller, venus.pool_registry) if address]
    there = await deployed(reader, "venus", parts, lambda address: address, "core pool or PoolRegistry")
    registry = venus.pool_registry if venus.pool_registry in there else None
    listed = await (first(reader.call(registry, ALL_POOLS, label="Venus PoolRegistry")) if registry else no_read())
    if listed and len(listed) > MAX_MARKETS:
        raise ProtocolError(f"the Venus PoolRegistry lists {len(listed)} pools, more than {MAX_MARKETS}")
    found = [ListedPool(CORE, venus.comptroller.lower(), True)] if venus.comptroller in there else []
    return found + [ListedPool(str(p.name), str(p.comptroller).lower(), False) for p in listed or ()]
