"""Compound v3 (Comet): supplies, borrows and collateral (positions.py), a Comet as a pool (pools.py), a
series' flows (flows.py), all on its ground floor: the contracts (contracts.py) and a Comet's rates
and prices (market.py)."""

from __future__ import annotations

from adapters.compound import flows, pools, positions
from adapters.compound.section import COMPOUND
from adapters.deployment import earliest
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="compound",
        borrows=True,
        section=lambda chain: compound if (compound := COMPOUND.of(chain)) and compound.markets else None,
        parts=(COMPOUND,),
        deployed=lambda compound: earliest(market.start_block for market in compound.markets),
        fetch=positions.fetch,
        details=pools.details,
        flows=flows.flows,
        flow_prices=flows.prices,
        probe=positions.probes,
    ),
)
