"""Convex's functions the adapter calls, with the names of convex-eth/platform's sources at
4f22038387ca4ce014dec3d7f5781a8e28051c13 (contracts/contracts/: Booster.sol, BaseRewardPool.sol,
VirtualBalanceRewardPool.sol, Cvx.sol; tests/test_convex.py records their signatures), the CVX
mint formula and the lens.
"""

from __future__ import annotations

from chain.abi import Function
from chain.lens import Lens

POOL_LENGTH = Function("poolLength()", "081e3eda", ("uint256",))
POOL_INFO = Function(
    "poolInfo(uint256)",
    "1526fe27",
    ("address lptoken", "address token", "address gauge", "address crvRewards", "address stash", "bool shutdown"),
)
EARNED = Function("earned(address)", "008cc262", ("uint256",))
EXTRA_REWARDS_LENGTH = Function("extraRewardsLength()", "d55a23f4", ("uint256",))
EXTRA_REWARDS = Function("extraRewards(uint256)", "40c35446", ("address",))
REWARD_TOKEN = Function("rewardToken()", "f7c618c1", ("address",))
MAX_SUPPLY = Function("maxSupply()", "d5abeb01", ("uint256",))
TOTAL_CLIFFS = Function("totalCliffs()", "1f96e76f", ("uint256",))
REDUCTION_PER_CLIFF = Function("reductionPerCliff()", "aa74e622", ("uint256",))
OPERATOR = Function("operator()", "570ca735", ("address",))
PID = Function("pid()", "f1068454", ("uint256",))
REWARD_RATE = Function("rewardRate()", "7b0a47ee", ("uint256",))
PERIOD_FINISH = Function("periodFinish()", "ebe2b12b", ("uint256",))
MINTER = Function("minter()", "07546172", ("address",))
"""A Curve LP token that is not its pool (CurveTokenV1-V5): its pool (@curvefi/api's curve_lp_token_v5.json)."""

MAX_HELD = 32
"""Deposits whose details the lens reads; any more are read in rounds."""
MAX_REWARDS = 8
LENS = Lens("ConvexLens", ("address", "address", "address", "address", "uint256", "address[]", "address[]", "address"))


def cvx_minted(crv: int, supply: int, max_supply: int, total_cliffs: int, reduction_per_cliff: int) -> int:
    """The CVX the Cvx token mints for `crv` claimed at CVX's `supply` (Cvx.sol's `mint`, which
    the Booster calls with the CRV a reward pool pays): the cliff is supply / reductionPerCliff;
    below totalCliffs the amount is crv x (totalCliffs - cliff) / totalCliffs, capped at
    maxSupply - supply; none at or past the last cliff (supply 0 is the premine, minted as is)."""
    if supply == 0:
        return crv
    cliff = supply // reduction_per_cliff
    if cliff >= total_cliffs:
        return 0
    return min(crv * (total_cliffs - cliff) // total_cliffs, max_supply - supply)
