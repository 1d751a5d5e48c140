"""Aura: Balancer pool tokens deposited through Aura's Booster (positions.py)."""

from __future__ import annotations

from adapters.aura import positions
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(name="aura", section=lambda chain: chain.aura if chain.balancer else None, fetch=positions.fetch),
)
