"""Compound v2's part of a chain's addresses data ("compoundV2"): its Comptroller (the Unitroller
compound-js's address book names) and the chain's blocks a year."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Section, fields
from addresses.fields import AddressesError


@dataclass(frozen=True)
class CompoundV2Addresses:
    comptroller: str
    """Compound v2's Comptroller (its Unitroller)."""
    blocks_per_year: int
    """`blocksPerYear`: the chain's blocks a year, which the APYs compound over (its rate models
    say 2,102,400, their 15-second blocks)."""
    start_block: int | None = None


def parse(value: Any, where: str) -> CompoundV2Addresses:
    value = fields.mapping(value, where)
    year = value.get("blocksPerYear")
    if not isinstance(year, int) or isinstance(year, bool) or year <= 0:
        raise AddressesError(f"{where} blocksPerYear: must be the chain's blocks a year, a positive integer")
    comptroller = fields.address(value.get("comptroller"), f"{where} comptroller")
    return CompoundV2Addresses(comptroller, year, fields.start_block(value, where))


COMPOUND_V2 = Section("compoundV2", parse)
