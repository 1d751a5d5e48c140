"""Curve: LP positions in the pools of Curve's factories and older registries, gauge stakes and their
claimables (positions.py); a pool with its gauge as a pool's details (pools.py); LP in and out, stakes and
claims as `positionsHistory` flows (flows.py)."""

from __future__ import annotations

from adapters.curve import flows, pools, positions
from adapters.curve.section import CURVE
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="curve",
        section=CURVE,
        deployed=lambda curve: curve.start_block,
        fetch=positions.fetch,
        details=pools.details,
        flows=flows.flows,
    ),
)
