"""Fluid's part of a chain's addresses data ("fluid"): the resolvers it is read through."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Section, fields


@dataclass(frozen=True)
class FluidAddresses:
    lending_resolver: str
    """Fluid's LendingResolver: every fToken with a wallet's shares."""
    vault_resolver: str
    """Fluid's VaultResolver: a wallet's vault position NFTs with their vaults' data."""
    start_block: int | None = None
    """`startBlock`: the block the first of the resolvers was deployed at, where the data says (its page
    under docs/protocols/ cites the source): a block before it is refused with no read."""


def parse(value: Any, where: str) -> FluidAddresses:
    value = fields.mapping(value, where)
    lending, vaults = (
        fields.address(value.get(name), f"{where} {name}") for name in ("lendingResolver", "vaultResolver")
    )
    return FluidAddresses(lending, vaults, fields.start_block(value, where))


FLUID = Section("fluid", parse)
