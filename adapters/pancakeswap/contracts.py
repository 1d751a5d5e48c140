"""PancakeSwap's own functions beyond Uniswap v3's (adapters/uniswap/contracts.py holds those and
PancakeV3Pool's wider `slot0`): MasterChefV3's, with the output names `@pancakeswap/masterchef-v3`'s
ABI gives (a test holds them to it)."""

from __future__ import annotations

from chain.abi import Function

MASTER_CHEF = "PancakeSwap MasterChefV3"
CAKE = Function("CAKE()", "4ca6ef28", ("address",), immutable=True)
PENDING_CAKE = Function("pendingCake(uint256)", "ce5f39c6", ("uint256 reward",))
"""The CAKE a staked NFT has earned and not harvested, as the farm's LM pool last accounted it."""
