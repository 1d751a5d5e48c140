"""Curve: LP positions in the pools of Curve's factories and older registries, gauge stakes and their
claimables (positions.py); a pool with its gauge as a pool's details (pools.py); LP in and out, stakes and
claims as `positionsHistory` flows (flows.py); a pool's LP token priced wherever it appears
(rates.py)."""

from __future__ import annotations

from adapters.curve import flows, pools, positions, rates
from adapters.curve.section import CURVE
from adapters.protocol import PriceRoute, Protocol

PROTOCOLS = (
    Protocol(
        name="curve",
        section=CURVE,
        deployed=lambda curve: curve.start_block,
        fetch=positions.fetch,
        details=pools.details,
        flows=flows.flows,
        price_route=PriceRoute(rates.rate, lambda curve: (), probes=True),
    ),
)
