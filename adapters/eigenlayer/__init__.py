"""EigenLayer: restaked shares, delegation, queued withdrawals and EigenPods (positions.py); a strategy as a
pool (pools.py); deposits, withdrawals queued and completed and the pod's restaked ether as flows
(flows.py); shares in their strategies' tokens (shares.py)."""

from __future__ import annotations

from adapters.eigenlayer import flows, pools, positions
from adapters.eigenlayer.section import EIGENLAYER
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="eigenlayer",
        section=EIGENLAYER,
        deployed=lambda eigenlayer: eigenlayer.start_block,
        fetch=positions.fetch,
        details=pools.details,
        flows=flows.flows,
        probe=positions.probes,
    ),
)
