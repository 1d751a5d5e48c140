"""Liquity v1: the wallet's trove with its risk, its Stability Pool deposit and its LQTY stake with
their gains (positions.py), the system as a pool (pools.py), and a series' flows (flows.py)."""

from __future__ import annotations

from adapters.liquity import flows, pools, positions
from adapters.liquity.section import LIQUITY
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="liquity",
        borrows=True,
        section=LIQUITY,
        deployed=lambda liquity: liquity.start_block,
        fetch=positions.fetch,
        details=pools.details,
        flows=flows.flows,
        flow_prices=flows.prices,
        probe=positions.probes,
    ),
)
