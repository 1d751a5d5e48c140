"""Venus's part of a chain's addresses data ("venus"): its core pool's Comptroller (the Unitroller
Venus's deployment records name), where the chain has the core pool (BNB Chain), and the
PoolRegistry that lists its isolated pools, where it has them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Section, fields
from addresses.fields import AddressesError


@dataclass(frozen=True)
class VenusAddresses:
    comptroller: str | None
    """The core pool's Unitroller (its Comptroller, a Diamond of facets behind it)."""
    pool_registry: str | None = None
    """`poolRegistry`: the PoolRegistry of the chain's isolated pools (`getAllPools()`)."""
    start_block: int | None = None
    """`startBlock`: the earliest deployment block of the two, where the data says."""


def parse(value: Any, where: str) -> VenusAddresses:
    value = fields.mapping(value, where)
    found = VenusAddresses(
        fields.optional_address(value, "comptroller", where),
        fields.optional_address(value, "poolRegistry", where),
        fields.start_block(value, where),
    )
    if found.comptroller is None and found.pool_registry is None:
        raise AddressesError(f"{where}: needs the core pool's comptroller, a poolRegistry, or both")
    return found


VENUS = Section("venus", parse)
