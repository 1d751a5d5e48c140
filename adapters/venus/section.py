"""Venus's part of a chain's addresses data ("venus"): its core pool's Comptroller (the Unitroller
Venus's deployment records name), where the chain has the core pool (BNB Chain)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Section, fields


@dataclass(frozen=True)
class VenusAddresses:
    comptroller: str
    """The core pool's Unitroller (its Comptroller, a Diamond of facets behind it)."""
    start_block: int | None = None
    """`startBlock`: the Unitroller's deployment block, where the data says."""


def parse(value: Any, where: str) -> VenusAddresses:
    value = fields.mapping(value, where)
    return VenusAddresses(
        fields.address(value.get("comptroller"), f"{where} comptroller"), fields.start_block(value, where)
    )


VENUS = Section("venus", parse)
