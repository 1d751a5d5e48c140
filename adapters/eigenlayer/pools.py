"""EigenLayer's `poolDetails`: one strategy by its address, with what its shares hold.

- A strategy: one the StrategyManager takes deposits into at the block
  (`strategyIsWhitelistedForDeposit(strategy)`); the beacon chain ETH strategy is no contract
  (each pod owner's restaked ether is its `eigenPod`), so it is refused too.
- `totalShares` = the strategy's `totalShares()`; `totalUnderlying` =
  `sharesToUnderlyingView(totalShares)` in its `underlyingToken()`, as a position's amount
  (shares.valued), USD through that token's feed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.context import FetchContext
from adapters.deployment import require
from adapters.eigenlayer.contracts import BEACON_CHAIN_ETH, TOTAL_SHARES, WHITELISTED_FOR_DEPOSIT
from adapters.eigenlayer.section import EigenlayerAddresses
from adapters.eigenlayer.shares import valued
from adapters.position_warnings import outcome
from chain import first
from errors import InputValidationError, ProtocolError


async def details(ctx: FetchContext[EigenlayerAddresses], pool: str) -> dict[str, Any]:
    if pool == BEACON_CHAIN_ETH:
        raise InputValidationError(
            f"{pool} is EigenLayer's beacon chain ETH strategy, not a contract: the ether restaked through "
            "EigenPods is each pod owner's (walletPositions' eigenPod). Expected a strategy's address."
        )
    manager, reader = ctx.section.strategy_manager, ctx.reader()
    await require(reader, "eigenlayer", manager, "StrategyManager")
    whitelisted, total = await asyncio.gather(
        first(reader.call(manager, WHITELISTED_FOR_DEPOSIT, pool, label="EigenLayer StrategyManager")),
        outcome(first(reader.call(pool, TOTAL_SHARES, label=f"EigenLayer strategy {pool}"))),
    )
    if not whitelisted:
        raise InputValidationError(
            f"{pool} is not a strategy EigenLayer's StrategyManager takes deposits into on chain {ctx.chain_id} at "
            f"block {await reader.block_number()}. Expected a strategy's address."
        )
    if isinstance(total, ProtocolError):
        raise total
    found, _ = await valued(reader, ctx.chain, pool, total, ctx.warnings)
    return {
        "details": {
            "__typename": "EigenlayerStrategyPool",
            "type": "eigenlayer-strategy-pool",
            "strategyAddress": pool,
            "chainId": ctx.chain_id,
            "underlyingToken": found["token"],
            "totalShares": str(total),
            "totalUnderlying": found["amount"],
            "totalUnderlyingUsd": found["amountUsd"],
        }
    }
