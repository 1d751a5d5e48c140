"""Venus: its core pool on BNB Chain, a Compound v2 fork (its Comptroller a Diamond of facets
behind the Unitroller), read from the Comptroller, its vTokens and its oracle: the views it calls
(contracts.py), a market's token, price and APYs (markets.py), the account's positions and risk
(positions.py), the XVS it is owed (rewards.py), the pool's markets (pools.py) and a series' flows (flows.py)."""

from __future__ import annotations

from adapters.protocol import Protocol
from adapters.venus import flows, pools, positions
from adapters.venus.section import VENUS

PROTOCOLS = (
    Protocol(
        name="venus",
        borrows=True,
        section=VENUS,
        deployed=lambda venus: venus.start_block,
        fetch=positions.fetch,
        details=pools.details,
        flows=flows.flows,
        flow_prices=flows.prices,
    ),
)
