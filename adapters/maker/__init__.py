"""Maker (Sky): vaults (urns) through the CDP manager and the DSProxies that own them (positions.py);
a collateral type (ilk) as a pool (pools.py); the vaults' flows (flows.py)."""

from __future__ import annotations

from adapters.maker import flows, pools, positions
from adapters.maker.section import MAKER
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="maker",
        borrows=True,
        section=MAKER,
        deployed=lambda maker: maker.chain_log.start_block,
        fetch=positions.fetch,
        details=pools.details,
        pool_ids=True,
        flows=flows.flows,
        flow_prices=flows.prices,
    ),
)
