"""Neutrl: the sNUSD staking vault on Ethereum, served by positions.py. The hosted API this
service mirrors gives it one `vaultPosition` (null without a position), kept here beside the
`vaultPositions` list that every vault-style protocol has."""

from __future__ import annotations

from typing import Any

from adapters.context import FetchContext
from adapters.vault_style import positions as vault_style


async def fetch(ctx: FetchContext[Any], wallet: str) -> dict[str, Any]:
    answer = await vault_style.fetch(ctx, wallet)
    snusd = next((position for position in answer["vaultPositions"] if position["type"] == "neutrl-snusd"), None)
    return {**answer, "vaultPosition": snusd}
