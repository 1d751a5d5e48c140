"""Convex: deposits of Curve LP in Convex's Booster pools and their claimable CRV, CVX and extra rewards."""

from __future__ import annotations

from adapters.convex import positions
from adapters.convex.section import CONVEX
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(name="convex", section=CONVEX, deployed=lambda convex: convex.start_block, fetch=positions.fetch),
)
