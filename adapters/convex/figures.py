"""What a Convex deposit and a Booster pool both read: CVX's mint parameters and the Curve pool behind
an LP token (positions.py and pools.py read them alike)."""

from __future__ import annotations

import asyncio
from typing import cast

from adapters.convex.contracts import (
    MAX_SUPPLY,
    MINTER,
    REDUCTION_PER_CLIFF,
    TOTAL_CLIFFS,
)
from adapters.curve.contracts import LP_PRICE
from adapters.position_warnings import outcome
from chain import ChainReader, erc20, first
from errors import ProtocolError


async def cvx_parameters(reader: ChainReader, cvx: str) -> tuple[int, int, int, int]:
    """CVX's totalSupply, maxSupply, totalCliffs and reductionPerCliff (Cvx.sol)."""
    label = f"CVX {cvx}"
    found = await asyncio.gather(
        *(reader.call(cvx, f, label=label) for f in (erc20.TOTAL_SUPPLY, MAX_SUPPLY, TOTAL_CLIFFS, REDUCTION_PER_CLIFF))
    )
    supply, max_supply, cliffs, per_cliff = (value for (value,) in found)
    return supply, max_supply, cliffs, per_cliff


async def pool_of(reader: ChainReader, lp_token: str) -> tuple[str, str]:
    """The LP token's Curve pool (its `minter()`, else the token itself) and its kind (cryptoswap
    where the pool answers `lp_price()`)."""
    try:
        pool = cast(str, await first(reader.call(lp_token, MINTER, label=f"Curve LP token {lp_token}")))
    except ProtocolError:
        pool = lp_token
    crypto = await outcome(reader.call(pool, LP_PRICE, label=f"Curve pool {pool}"))
    return pool, "stableswap" if isinstance(crypto, ProtocolError) else "cryptoswap"
