"""Convex's functions the adapter calls, with the names of convex-eth/platform's sources at
4f22038387ca4ce014dec3d7f5781a8e28051c13 (contracts/contracts/: Booster.sol, BaseRewardPool.sol,
VirtualBalanceRewardPool.sol, Cvx.sol; tests/test_convex.py records their signatures), the CVX
mint formula and the lens.
"""

from __future__ import annotations

from chain.abi import Event, Function
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
DEPOSITED = Event(
    "Deposited(address,uint256,uint256)", "0x73a19dd210f1a7f902193214c0ee91dd35ee5b4d920cba8d519eca65a7b488ca"
)
WITHDRAWN = Event(
    "Withdrawn(address,uint256,uint256)", "0x92ccf450a286a957af52509bc1c9939d1a6a481783e142e41e2499f0bb66ebc6"
)
"""The Booster's `Deposited(user indexed, poolid indexed, amount)` and `Withdrawn(user indexed,
poolid indexed, amount)` (Booster.sol)."""
STAKED = Event("Staked(address,uint256)", "0x9e71bc8eea02a63969f509818f2dafb9254532904319f9dbda79b67bd34a5f3d")
UNSTAKED = Event("Withdrawn(address,uint256)", "0x7084f5476618d8e60b11ef0d7d3f06914655adb8793e28ff7f018d4c76d505d5")
REWARD_PAID = Event("RewardPaid(address,uint256)", "0xe2403640ba68fed3a2f88b7557551d1993f84b99bb10ff833f0cf8db0c5e0486")
"""A BaseRewardPool's `Staked(user indexed, amount)`, `Withdrawn(user indexed, amount)` and
`RewardPaid(user indexed, reward)`; a VirtualBalanceRewardPool's `RewardPaid` alike
(BaseRewardPool.sol, VirtualBalanceRewardPool.sol)."""

MAX_HELD = 32
"""Deposits whose details the lens reads; any more are read in rounds."""
MAX_REWARDS = 8
LENS = Lens(
    "ConvexLens",
    ("address", "address", "address", "address", "uint256", "address[]", "address[]", "address[]", "address"),
)


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
