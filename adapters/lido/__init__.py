"""Lido: stETH, wstETH and withdrawal requests (positions.py); stETH and wstETH as pools (pools.py)."""

from __future__ import annotations

from adapters.lido import flows, pools, positions
from adapters.lido.section import LIDO
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="lido",
        section=LIDO,
        deployed=lambda lido: lido.start_block,
        fetch=positions.fetch,
        details=pools.details,
        flows=flows.flows,
        probe=positions.probes,
    ),
)
