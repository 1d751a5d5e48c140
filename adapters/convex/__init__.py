"""Convex: deposits of Curve LP in Convex's Booster pools and their claimable CRV, CVX and extra rewards
(positions.py); a Booster pool by its reward pool as a pool's details (pools.py); deposits, withdrawals and
claims as `positionsHistory` flows (flows.py)."""

from __future__ import annotations

from adapters.convex import flows, pools, positions
from adapters.convex.section import CONVEX
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="convex",
        section=CONVEX,
        deployed=lambda convex: convex.start_block,
        fetch=positions.fetch,
        details=pools.details,
        flows=flows.flows,
    ),
)
