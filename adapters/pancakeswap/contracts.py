"""PancakeSwap's own functions beyond Uniswap v3's (adapters/uniswap/contracts.py holds those and
PancakeV3Pool's wider `slot0`): MasterChefV3's, with the output names `@pancakeswap/masterchef-v3`'s
ABI gives (a test holds them to it)."""

from __future__ import annotations

from chain.abi import Event, Function

MASTER_CHEF = "PancakeSwap MasterChefV3"
CAKE = Function("CAKE()", "4ca6ef28", ("address",), immutable=True)
PENDING_CAKE = Function("pendingCake(uint256)", "ce5f39c6", ("uint256 reward",))
"""The CAKE a staked NFT has earned and not harvested, as the farm's LM pool last accounted it."""
DEPOSIT = Event(
    "Deposit(address,uint256,uint256,uint256,int24,int24)",
    "0xb19157bff94fdd40c58c7d4a5d52e8eb8c2d570ca17b322b49a2bbbeedc82fbf",
)
"""MasterChefV3's Deposit(from indexed, pid indexed, tokenId indexed, liquidity, tickLower,
tickUpper): the NFT staked, in the transaction of its Transfer to the farm."""
HARVEST = Event(
    "Harvest(address,address,uint256,uint256,uint256)",
    "0xd25759d838eb0a46600f8f327cce144e61d7caefbef27010fe31e2aab091704f",
)
"""MasterChefV3's Harvest(sender indexed, to, pid indexed, tokenId indexed, reward): `reward` CAKE
paid to `to` for the NFT (a `harvest`, and a `withdraw`, which harvests first)."""
WITHDRAW = Event(
    "Withdraw(address,address,uint256,uint256)", "0xf341246adaac6f497bc2a656f546ab9e182111d630394f0c57c710a59a2cb567"
)
"""MasterChefV3's Withdraw(from indexed, to, pid indexed, tokenId indexed): the NFT sent back, to
`to` (zero where `burn` burned it)."""


def cake_leg(chef: str, token_id: int) -> str:
    """The key of a staked NFT's CAKE leg (`PancakeFarmReward`), as positions and flows name it."""
    return f"{chef.lower()}:{token_id}:cake"
