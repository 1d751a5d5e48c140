"""ERC-20 reads every adapter needs: balances and the token facts of a `TokenInfo`."""

from __future__ import annotations

import asyncio
from typing import Any

from abi import Event, Function
from chain import ChainReader

BALANCE_OF = Function("balanceOf(address)", "70a08231", ("uint256",))
NAME = Function("name()", "06fdde03", ("string",), immutable=True)
SYMBOL = Function("symbol()", "95d89b41", ("string",), immutable=True)
DECIMALS = Function("decimals()", "313ce567", ("uint8",), immutable=True)
TRANSFER = Event("Transfer(address,address,uint256)",
                 "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")


async def token_info(reader: ChainReader, token: str) -> dict[str, Any]:
    """`TokenInfo` of a token; read once per token and then served from the immutable cache."""
    label = f"token {token.lower()}"
    (name,), (symbol,), (decimals,) = await asyncio.gather(
        reader.call(token, NAME, label=label),
        reader.call(token, SYMBOL, label=label),
        reader.call(token, DECIMALS, label=label),
    )
    return {"address": token.lower(), "symbol": symbol, "name": name, "decimals": decimals}
