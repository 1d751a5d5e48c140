"""Pendle: PT, YT, LP and SY positions (positions.py), a market as a pool (pools.py), both on its ground
floor: the contracts and the index stream that finds them (contracts.py), a market's state (market.py)."""

from __future__ import annotations

from adapters.deployment import earliest
from adapters.pendle import flows, pools, positions
from adapters.pendle.contracts import stream
from adapters.pendle.section import PENDLE
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="pendle",
        section=PENDLE,
        deployed=lambda pendle: earliest(
            deployment.start_block for deployment in (*pendle.market_factories, *pendle.yield_contract_factories)
        ),
        fetch=positions.fetch,
        streams=lambda pendle: (stream(pendle),),
        details=pools.details,
        flows=flows.flows,
        flow_prices=flows.prices,
    ),
)
