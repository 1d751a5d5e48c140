"""Lido: stETH, wstETH and withdrawal requests (positions.py)."""

from __future__ import annotations

from adapters.lido import flows, positions
from adapters.lido.section import LIDO
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="lido",
        section=LIDO,
        deployed=lambda lido: lido.start_block,
        fetch=positions.fetch,
        flows=flows.flows,
        probe=positions.probes,
    ),
)
