"""Uniswap: v3 and v4 liquidity positions (positions.py, v4.py) and pools (pools.py).

Its integer math is adapters/tick_math.py, which the TWAP prices use too."""

from __future__ import annotations

from adapters.deployment import earliest
from adapters.protocol import Protocol
from adapters.uniswap import flows, pools, positions
from adapters.uniswap.contracts import stream
from adapters.uniswap.section import UNISWAP

PROTOCOLS = (
    Protocol(
        name="uniswap",
        section=UNISWAP,
        deployed=lambda uniswap: earliest(
            version.start_block for version in (uniswap.v3, uniswap.v4 and uniswap.v4.position_manager) if version
        ),
        fetch=positions.fetch,
        streams=lambda uniswap: (stream(uniswap.v4),) if uniswap.v4 else (),
        details=pools.details,
        pool_ids=True,
        flows=flows.flows,
        probe=positions.probes,
    ),
)
