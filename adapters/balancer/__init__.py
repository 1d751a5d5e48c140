"""Balancer v2: pool tokens (BPT) and gauge stakes (positions.py); shares.py the share math Aura reuses."""

from __future__ import annotations

from adapters.balancer import positions
from adapters.balancer.contracts import stream
from adapters.balancer.section import BALANCER
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="balancer",
        section=BALANCER,
        fetch=positions.fetch,
        streams=lambda balancer: (stream(balancer),),
    ),
)
