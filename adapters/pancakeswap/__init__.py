"""PancakeSwap: v3 liquidity positions, held or staked in MasterChefV3 with their CAKE
(positions.py), read by the Uniswap package's v3 code (adapters/uniswap), whose pools and flows it
shares."""

from __future__ import annotations

from adapters.pancakeswap import flows, positions
from adapters.pancakeswap.section import PANCAKESWAP
from adapters.protocol import Protocol
from adapters.uniswap import pools

PROTOCOLS = (
    Protocol(
        name="pancakeswap",
        section=PANCAKESWAP,
        deployed=lambda pancake: pancake.v3.start_block if pancake.v3 else None,
        fetch=positions.fetch,
        details=pools.details,
        flows=flows.flows,
        probe=positions.probes,
    ),
)
