"""Spark: SparkLend (the Aave v3 method on Spark's markets) and Spark's savings vaults (positions.py)."""

from __future__ import annotations

from adapters.aave import flows as aave_flows
from adapters.aave import pools as aave_pools
from adapters.protocol import Protocol
from adapters.spark import flows, positions
from adapters.spark.positions import SAVINGS

PROTOCOLS = (
    Protocol(
        name="spark",
        section=lambda chain: chain if chain.spark or SAVINGS in chain.vault_style else None,
        fetch=positions.fetch,
        details=aave_pools.details,
        flows=flows.flows,
        flow_prices=aave_flows.prices,
    ),
)
