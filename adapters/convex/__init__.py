"""Convex: deposits of Curve LP in Convex's Booster pools and their claimable CRV, CVX and extra rewards."""

from __future__ import annotations

from adapters.convex import positions
from adapters.protocol import Protocol

PROTOCOLS = (Protocol(name="convex", section=lambda chain: chain.convex, fetch=positions.fetch),)
