"""ERC-20 reads every adapter needs: balances and the token facts of a `TokenInfo`."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from chain.abi import Event, Function
from chain.reader import ChainReader
from chain.rounds import UndecodableReturn

BALANCE_OF = Function("balanceOf(address)", "70a08231", ("uint256",))
TOTAL_SUPPLY = Function("totalSupply()", "18160ddd", ("uint256",))
NAME = Function("name()", "06fdde03", ("string",), immutable=True)
SYMBOL = Function("symbol()", "95d89b41", ("string",), immutable=True)
DECIMALS = Function("decimals()", "313ce567", ("uint8",), immutable=True)
NAME_BYTES32 = Function("name()", "06fdde03", ("bytes32",), immutable=True)
SYMBOL_BYTES32 = Function("symbol()", "95d89b41", ("bytes32",), immutable=True)
"""Early tokens (MKR, SAI) return name and symbol as bytes32, not string."""
TRANSFER = Event(
    "Transfer(address,address,uint256)", "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
)


NATIVE = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
"""The address protocols give a chain's native coin (Fluid's ETH vaults and fTokens, among
others): no contract lives there, so its facts are known, not read."""
NATIVE_COINS: dict[int, tuple[str, str]] = {
    56: ("BNB", "BNB"),
    137: ("POL", "Polygon Ecosystem Token"),
    146: ("S", "Sonic"),
    2020: ("RON", "Ronin"),
    5000: ("MNT", "Mantle"),
    43114: ("AVAX", "Avalanche"),
}
"""(symbol, name) of the native coins that are not ether, by chain; every other chain's is ETH."""


def native_coin(chain_id: int) -> tuple[str, str]:
    """(symbol, name) of a chain's native coin, 18 decimals on every chain served."""
    return NATIVE_COINS.get(chain_id, ("ETH", "Ether"))


def native_info(chain_id: int) -> dict[str, Any]:
    """`TokenInfo` of a chain's native coin, at its address NATIVE."""
    symbol, name = native_coin(chain_id)
    return {"address": NATIVE, "symbol": symbol, "name": name, "decimals": 18}


async def token_info(reader: ChainReader, token: str) -> dict[str, Any]:
    """`TokenInfo` of a token; read once per token and then served from the immutable cache.
    The native coin's address answers the coin with no read."""
    if token.lower() == NATIVE:
        return native_info(reader.chain_id)
    label = f"token {token.lower()}"
    name, symbol, (decimals,) = await asyncio.gather(
        _text(reader, token, NAME, NAME_BYTES32, label),
        _text(reader, token, SYMBOL, SYMBOL_BYTES32, label),
        reader.call(token, DECIMALS, label=label),
    )
    return {"address": token.lower(), "symbol": symbol, "name": name, "decimals": decimals}


async def _text(reader: ChainReader, token: str, function: Function, bytes32: Function, label: str) -> str:
    """A string view, or its bytes32 form (trailing zero bytes dropped) for tokens that use it."""
    try:
        (text,) = await reader.call(token, function, label=label)
    except UndecodableReturn:
        (raw,) = await reader.call(token, bytes32, label=label)
        text = raw.rstrip(b"\0").decode("utf-8", "replace")
    return cast(str, text)
