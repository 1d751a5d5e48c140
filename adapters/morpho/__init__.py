"""Morpho: Blue markets, MetaMorpho (V1) and Vault V2 positions (positions.py) and the same as pools
(pools.py), side by side on contracts.py (functions, events, the index stream), market.py (market
state, accrual, shared reads), vaults.py (vault rates, V2 adapters) and adaptive_curve_irm.py."""

from __future__ import annotations

from adapters.deployment import earliest
from adapters.morpho import flows, pools, positions
from adapters.morpho.contracts import stream
from adapters.morpho.section import MORPHO
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="morpho",
        borrows=True,
        section=MORPHO,
        deployed=lambda morpho: earliest(
            part.start_block for part in (morpho.blue, *morpho.vault_v1_factories, *morpho.vault_v2_factories)
        ),
        fetch=positions.fetch,
        streams=lambda morpho: (stream(morpho),),
        details=pools.details,
        pool_ids=True,
        flows=flows.flows,
        flow_prices=flows.prices,
        index_probe=positions.index_probe,
    ),
)
