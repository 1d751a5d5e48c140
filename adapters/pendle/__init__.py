"""Pendle: PT, YT, LP and SY positions (positions.py), a market as a pool (pools.py), both on its ground
floor: the contracts and the index stream that finds them (contracts.py), a market's state (market.py);
its oracle's rates price its tokens wherever they appear (rates.py)."""

from __future__ import annotations

from adapters.deployment import earliest
from adapters.pendle import flows, pools, positions, rates
from adapters.pendle.contracts import stream
from adapters.pendle.section import PENDLE
from adapters.protocol import PriceRoute, Protocol

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
        price_route=PriceRoute(rates.rate, lambda pendle: tuple(filter(None, [pendle.oracle]))),
    ),
)
