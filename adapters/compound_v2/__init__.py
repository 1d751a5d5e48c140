"""Compound v2: cToken supplies and borrows with the account's risk and COMP, and the Comptroller's
markets as a pool (positions.py), and a series' flows (flows.py), read by Venus's package, whose
core pool is this Comptroller's fork (adapters/venus)."""

from __future__ import annotations

from adapters.compound_v2 import flows, positions
from adapters.compound_v2.section import COMPOUND_V2
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="compound-v2",
        type_name="CompoundV2WalletPositions",
        borrows=True,
        section=COMPOUND_V2,
        deployed=lambda v2: v2.start_block,
        fetch=positions.fetch,
        details=positions.details,
        flows=flows.flows,
        flow_prices=flows.prices,
    ),
)
