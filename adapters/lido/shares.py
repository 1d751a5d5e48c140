"""Lido's share rate: the ether of one share (`getPooledEthByShares`) and what wstETH is in stETH
(`getStETHByWstETH`), which positions, pools and flows all read."""

from __future__ import annotations

from typing import cast

from chain import ChainReader
from chain.abi import Function

POOLED_ETH_BY_SHARES = Function("getPooledEthByShares(uint256)", "7a28fb88", ("uint256",))


STETH_BY_WSTETH = Function("getStETHByWstETH(uint256)", "bb2952fc", ("uint256",))


ONE_SHARE = 10**18


async def per_share(reader: ChainReader, steth: str) -> int:
    (pooled,) = await reader.call(steth, POOLED_ETH_BY_SHARES, ONE_SHARE, label="Lido stETH")
    return cast(int, pooled)
