"""EigenLayer: restaked shares, delegation, queued withdrawals and EigenPods (positions.py)."""

from __future__ import annotations

from adapters.eigenlayer import positions
from adapters.eigenlayer.section import EIGENLAYER
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="eigenlayer",
        section=EIGENLAYER,
        deployed=lambda eigenlayer: eigenlayer.start_block,
        fetch=positions.fetch,
        probe=positions.probes,
    ),
)
