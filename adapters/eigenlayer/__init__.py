"""EigenLayer: restaked shares, delegation, queued withdrawals and EigenPods (positions.py); a strategy as a
pool (pools.py)."""

from __future__ import annotations

from adapters.eigenlayer import pools, positions
from adapters.eigenlayer.section import EIGENLAYER
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="eigenlayer",
        section=EIGENLAYER,
        deployed=lambda eigenlayer: eigenlayer.start_block,
        fetch=positions.fetch,
        details=pools.details,
        probe=positions.probes,
    ),
)
