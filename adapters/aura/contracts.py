"""Aura's ground floor: the functions the adapter calls, with the output names Aura publishes in
its source (aurafinance/aura-contracts at a5d63932: contracts/interfaces/IBooster.sol, and its
convex-platform submodule at 6c8abb26: Booster.sol, BaseRewardPool.sol,
VirtualBalanceRewardPool.sol, StashToken.sol; contracts/core/Aura.sol for the token), which no
npm package ships (a test holds these to the signatures recorded from there)."""

from __future__ import annotations

from chain.abi import Function

POOL_LENGTH = Function("poolLength()", "081e3eda", ("uint256",))
POOL_INFO = Function(
    "poolInfo(uint256)",
    "1526fe27",
    ("address lptoken", "address token", "address gauge", "address crvRewards", "address stash", "bool shutdown"),
    immutable=True,
)
"""A pid's contracts never change (only `shutdown`, which the adapter does not read, may)."""
EARNED = Function("earned(address)", "008cc262", ("uint256",))
REWARD_TOKEN = Function("rewardToken()", "f7c618c1", ("address",), immutable=True)
EXTRA_REWARDS_LENGTH = Function("extraRewardsLength()", "d55a23f4", ("uint256",))
EXTRA_REWARDS = Function("extraRewards(uint256)", "40c35446", ("address",))
BASE_TOKEN = Function("baseToken()", "c55dae63", ("address",), immutable=True)
"""A StashToken's token (Aura's extra rewards are paid in stash tokens that unwrap to it)."""
INIT_MINT_AMOUNT = Function("INIT_MINT_AMOUNT()", "6cd16339", ("uint256",), immutable=True)
EMISSIONS_MAX_SUPPLY = Function("EMISSIONS_MAX_SUPPLY()", "e6c6700e", ("uint256",), immutable=True)
TOTAL_CLIFFS = Function("totalCliffs()", "1f96e76f", ("uint256",), immutable=True)
REDUCTION_PER_CLIFF = Function("reductionPerCliff()", "aa74e622", ("uint256",), immutable=True)


def aura_minted(bal: int, supply: int, init_mint: int, max_emissions: int, cliffs: int, per_cliff: int) -> int:
    """The AURA the token's `mint` adds for `bal` BAL claimed (Aura.sol's formula, as Aura's own
    AuraMining library computes it): the cliff is the emissions minted so far (totalSupply -
    INIT_MINT_AMOUNT) / reductionPerCliff; below totalCliffs, bal x ((totalCliffs - cliff) x 5 / 2
    + 700) / totalCliffs, capped at the emissions left; past the last cliff, none."""
    emitted = supply - init_mint
    cliff = emitted // per_cliff
    if cliff >= cliffs:
        return 0
    amount = bal * ((cliffs - cliff) * 5 // 2 + 700) // cliffs
    return min(amount, max_emissions - emitted)
