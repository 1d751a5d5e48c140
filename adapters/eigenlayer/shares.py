"""A strategy's shares in its underlying token, as positions, pools and flows alike read them: the
strategy's `underlyingToken()` and `sharesToUnderlyingView(shares)` at the reader's block; beacon
chain ETH shares are ether, one share a wei (the beacon chain ETH strategy is no contract)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from adapters.eigenlayer.contracts import BEACON_CHAIN_ETH, SHARES_TO_UNDERLYING, UNDERLYING_TOKEN
from adapters.legs import feed_of
from adapters.position_warnings import Warnings
from adapters.prices import warned_usd_price
from addresses import ChainAddresses
from chain import ChainReader, erc20
from chain.erc20 import NATIVE


async def underlying(reader: ChainReader, strategy: str) -> str:
    """The strategy's token (lowercase); the native coin for beacon chain ETH."""
    if strategy == BEACON_CHAIN_ETH:
        return NATIVE
    (token,) = await reader.call(strategy, UNDERLYING_TOKEN, label=f"EigenLayer strategy {strategy}")
    return cast(str, token).lower()


async def in_underlying(reader: ChainReader, strategy: str, shares: int) -> int:
    """`shares` of the strategy in its token at the reader's block."""
    if strategy == BEACON_CHAIN_ETH:
        return shares
    (amount,) = await reader.call(strategy, SHARES_TO_UNDERLYING, shares, label=f"EigenLayer strategy {strategy}")
    return cast(int, amount)


async def valued(
    reader: ChainReader, chain: ChainAddresses, strategy: str, shares: int, warnings: Warnings
) -> tuple[dict[str, Any], str | None]:
    """`shares` of a strategy in its underlying token, with USD: `token`, `amount`, `amountUsd`
    (beacon chain ETH: ether, a share a wei), and the feed that priced it. A strategy that fails
    its views leaves them null with a warning."""

    async def read() -> tuple[dict[str, Any], int]:
        token, amount = await asyncio.gather(underlying(reader, strategy), in_underlying(reader, strategy, shares))
        return await erc20.token_info(reader, token), amount

    found = await warnings.optional(read(), strategy, "token, amount and amountUsd are")
    if found is None:
        return {"token": None, "amount": None, "amountUsd": None}, None
    token, amount = found
    price = await warned_usd_price(reader, chain, token["address"], warnings)
    return {
        "token": token,
        "amount": str(amount),
        "amountUsd": price.value(amount, token["decimals"]) if price else None,
    }, feed_of(price)
