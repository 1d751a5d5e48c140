"""Aave v3: the views it calls (contracts.py) and what both queries read and compute alike of a
market (market.py); the account and its reserves (positions.py) beside a market with its reserves
as a pool (pools.py); whether a supply counts as collateral, as the Pool decides it by version
(collateral.py), the account's risk (risk.py) and its incentives (rewards.py)."""

from __future__ import annotations

from adapters.aave import flows, pools, positions
from adapters.aave.section import AAVE
from adapters.deployment import earliest
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="aave",
        borrows=True,
        section=AAVE,
        deployed=lambda markets: earliest(market.start_block for market in markets),
        fetch=positions.fetch,
        details=pools.details,
        flows=flows.flows,
        flow_prices=flows.prices,
    ),
)
