"""Spark on a chain: SparkLend, an Aave v3 fork read by the Aave adapter on Spark's own markets
(adapters/aave/, protocol "spark"), and Spark's savings vaults (Spark Vaults V2: ERC-4626 vaults
whose APY is the `vsr()` they hold), read by the vault-style method (section "sparkVaults").
Both parts are read at the same pinned block, each in its own lens call of the same round.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.aave import positions as aave
from adapters.context import FetchContext
from adapters.spark.section import SAVINGS, SparkParts
from adapters.vault_style import positions as vault_style
from chain import no_read

EMPTY_LENDING: dict[str, Any] = {
    "marketStates": [],
    "supplyPositions": [],
    "borrowPositions": [],
    "rewardPositions": [],
}


async def fetch(ctx: FetchContext[SparkParts], wallet: str) -> dict[str, Any]:
    spark = ctx.section
    lend, savings = await asyncio.gather(
        aave.fetch(ctx, wallet) if spark.markets else no_read(),
        vault_style.positions(ctx, wallet, SAVINGS.key, spark.savings) if spark.savings else no_read(),
    )
    return {**EMPTY_LENDING, **(lend or {}), "vaultPositions": savings["vaultPositions"] if savings else []}
