"""Aura: Balancer pool tokens deposited through Aura's Booster (positions.py); a Booster's pool by
its reward pool (pools.py); their flows (flows.py)."""

from __future__ import annotations

from adapters.aura import flows, pools, positions
from adapters.aura.section import AURA, section
from adapters.balancer.section import BALANCER
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="aura",
        section=section,
        parts=(AURA, BALANCER),
        deployed=lambda parts: parts.aura.start_block,
        fetch=positions.fetch,
        details=pools.details,
        flows=flows.flows,
    ),
)
