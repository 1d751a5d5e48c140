"""Spark: SparkLend (the Aave v3 method on Spark's markets) and Spark's savings vaults (positions.py)."""

from __future__ import annotations

from adapters.aave import flows as aave_flows
from adapters.aave import pools as aave_pools
from adapters.aave.section import SPARKLEND
from adapters.deployment import earliest
from adapters.protocol import Protocol
from adapters.spark import flows, positions
from adapters.spark.section import SAVINGS, section

PROTOCOLS = (
    Protocol(
        name="spark",
        borrows=True,
        section=section,
        parts=(SPARKLEND, SAVINGS),
        deployed=lambda spark: earliest(part.start_block for part in (*spark.markets, spark.savings) if part),
        fetch=positions.fetch,
        details=aave_pools.details,
        flows=flows.flows,
        flow_prices=aave_flows.prices,
    ),
)
