"""Fluid: fTokens and vault NFTs (positions.py), an fToken or a vault as a pool (pools.py), both on its ground
floor: the resolvers' and vaults' contracts (contracts.py) and the figures both give alike (figures.py)."""

from __future__ import annotations

from adapters.fluid import flows, pools, positions
from adapters.fluid.section import FLUID
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="fluid",
        borrows=True,
        section=FLUID,
        deployed=lambda fluid: fluid.start_block,
        fetch=positions.fetch,
        details=pools.details,
        flows=flows.flows,
    ),
)
