"""Euler v2 (EVK): an account's vault deposits and debts (positions.py) and their flows (flows.py), a
vault as a pool (pools.py), all on contracts.py; an owner's sub-accounts, its own route to the
accounts a wallet controls (subaccounts.py)."""

from __future__ import annotations

from adapters.euler import flows, pools, positions, subaccounts
from adapters.euler.contracts import stream
from adapters.euler.section import EULER
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="euler",
        borrows=True,
        section=EULER,
        deployed=lambda euler: euler.factory.start_block,
        fetch=positions.fetch,
        streams=lambda euler: (stream(euler),),
        details=pools.details,
        flows=flows.flows,
        own_routes=(subaccounts.ROUTE,),
        probe=positions.probes,
        index_probe=positions.index_probe,
    ),
)
