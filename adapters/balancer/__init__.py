"""Balancer v2 and v3: pool tokens (BPT) and gauge stakes (positions.py), a pool with its gauges
(pools.py), their flows (flows.py); shares.py the share math Aura reuses; a pool token priced
wherever it appears by that math (rates.py)."""

from __future__ import annotations

from adapters.balancer import flows, pools, positions, rates
from adapters.balancer.contracts import stream
from adapters.balancer.section import BALANCER
from adapters.deployment import earliest
from adapters.protocol import PriceRoute, Protocol

PROTOCOLS = (
    Protocol(
        name="balancer",
        section=BALANCER,
        deployed=lambda balancer: earliest(
            part.start_block for part in (balancer.v2_vault, *balancer.gauge_factories, balancer.v3_vault) if part
        ),
        fetch=positions.fetch,
        details=pools.details,
        streams=lambda balancer: (stream(balancer),),
        index_probe=positions.index_probe,
        flows=flows.flows,
        price_route=PriceRoute(rates.rate, rates.contracts),
    ),
)
