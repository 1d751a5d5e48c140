"""The protocol registry: every protocol's declaration (adapters/protocol.py), collected from its
package by name and bound to the addresses data.

Each package declares its protocols once (`PROTOCOLS` in `adapters/<package>/__init__.py`: name,
section of the addresses data, fetch, streams, pool details, flows, routes); this module only
lists the packages, in the order the docs and the devnet show them. The single binary follows
plain imports, so nothing is discovered by walking the packages.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import addresses
from adapters import (
    aave,
    aura,
    balancer,
    compound,
    compound_v2,
    convex,
    curve,
    eigenlayer,
    euler,
    fluid,
    lido,
    liquid_staking,
    liquity,
    maker,
    morpho,
    pancakeswap,
    pendle,
    protocol,
    spark,
    uniswap,
    vault_style,
    venus,
)
from adapters.accounts.section import ACCOUNTS
from addresses import ChainAddresses

Protocol = protocol.Protocol[Any]
"""A declared protocol, whatever its section's type (the registry holds them all alike)."""
Registry = Mapping[str, Protocol]

DECLARED: tuple[Protocol, ...] = (
    *morpho.PROTOCOLS,
    *aave.PROTOCOLS,
    *spark.PROTOCOLS,
    *compound.PROTOCOLS,
    *fluid.PROTOCOLS,
    *pendle.PROTOCOLS,
    *lido.PROTOCOLS,
    *maker.PROTOCOLS,
    *euler.PROTOCOLS,
    *uniswap.PROTOCOLS,
    *vault_style.PROTOCOLS,
    *liquid_staking.PROTOCOLS,
    *balancer.PROTOCOLS,
    *eigenlayer.PROTOCOLS,
    *aura.PROTOCOLS,
    *curve.PROTOCOLS,
    *convex.PROTOCOLS,
    *pancakeswap.PROTOCOLS,
    *venus.PROTOCOLS,
    *compound_v2.PROTOCOLS,
    *liquity.PROTOCOLS,
)


SECTIONS = (*(part for declared in DECLARED for part in declared.parts), ACCOUNTS)
"""Every part of the addresses data a declaration reads, and the accounts every protocol follows."""


def load_addresses(override: str | Path | None = None) -> dict[int, ChainAddresses]:
    """The addresses data (`addresses.json`, `override` laid over it), each section parsed by
    the package that declares it; AddressesError naming the entry that is unusable."""
    return addresses.load(SECTIONS, override)


def registry(data: Mapping[int, ChainAddresses]) -> dict[str, Protocol]:
    """The protocols this service answers for, each on the chains its addresses data covers."""
    return {declared.name: declared.bound(data) for declared in DECLARED}


__all__ = ["DECLARED", "SECTIONS", "Protocol", "Registry", "load_addresses", "registry"]
