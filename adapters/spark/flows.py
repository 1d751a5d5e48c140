"""A wallet's flows at Spark: SparkLend's (Aave's events, adapters/aave/flows.py) and its savings
vaults' shares (ERC-4626, adapters/flows.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapters.aave import flows as aave
from adapters.context import FetchContext
from adapters.flows import Flow, WalletLogs, share_flows


async def flows(ctx: FetchContext[Any], wallet: str, logs: WalletLogs, legs: Mapping[str, str]) -> list[Flow]:
    both = [*await aave.flows(ctx, wallet, logs, legs), *await share_flows(ctx, wallet, logs, legs)]
    return sorted(both, key=lambda flow: flow[2:4])
