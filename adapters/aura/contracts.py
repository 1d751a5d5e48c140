"""Aura's ground floor: the functions the adapter calls, with the output names Aura publishes in
its source (aurafinance/aura-contracts at a5d63932: contracts/interfaces/IBooster.sol, and its
convex-platform submodule at 6c8abb26: Booster.sol, BaseRewardPool.sol,
VirtualBalanceRewardPool.sol, StashToken.sol; contracts/core/Aura.sol for the token;
contracts/sidechain/L2Coordinator.sol for the sidechains' AURA), which no npm package ships (a
test holds these to the signatures recorded from there)."""

from __future__ import annotations

from chain.abi import Event, Function

POOL_LENGTH = Function("poolLength()", "081e3eda", ("uint256",))
POOL_INFO = Function(
    "poolInfo(uint256)",
    "1526fe27",
    ("address lptoken", "address token", "address gauge", "address crvRewards", "address stash", "bool shutdown"),
    immutable=True,
)
"""A pid's contracts never change (only `shutdown`, which positions do not read, may)."""
POOL_STATE = Function(
    "poolInfo(uint256)",
    "1526fe27",
    ("address lptoken", "address token", "address gauge", "address crvRewards", "address stash", "bool shutdown"),
)
"""The same view read at the block, for its `shutdown` (pool details)."""
EARNED = Function("earned(address)", "008cc262", ("uint256",))
REWARD_TOKEN = Function("rewardToken()", "f7c618c1", ("address",), immutable=True)
REWARD_RATE = Function("rewardRate()", "7b0a47ee", ("uint256",))
"""A reward pool's (BaseRewardPool, VirtualBalanceRewardPool) reward token paid a second, raw, until `periodFinish`."""
PERIOD_FINISH = Function("periodFinish()", "ebe2b12b", ("uint256",))
EXTRA_REWARDS_LENGTH = Function("extraRewardsLength()", "d55a23f4", ("uint256",))
EXTRA_REWARDS = Function("extraRewards(uint256)", "40c35446", ("address",))
BASE_TOKEN = Function("baseToken()", "c55dae63", ("address",), immutable=True)
"""A StashToken's token (Aura's extra rewards are paid in stash tokens that unwrap to it)."""
INIT_MINT_AMOUNT = Function("INIT_MINT_AMOUNT()", "6cd16339", ("uint256",), immutable=True)
EMISSIONS_MAX_SUPPLY = Function("EMISSIONS_MAX_SUPPLY()", "e6c6700e", ("uint256",), immutable=True)
TOTAL_CLIFFS = Function("totalCliffs()", "1f96e76f", ("uint256",), immutable=True)
REDUCTION_PER_CLIFF = Function("reductionPerCliff()", "aa74e622", ("uint256",), immutable=True)
OPERATOR = Function("operator()", "570ca735", ("address",))
"""AURA's operator: the one Booster whose claims mint AURA (Aura.sol's `mint` returns without
minting for any other caller, such as an earlier Booster)."""
GET_REWARD_MULTIPLIERS = Function("getRewardMultipliers(address)", "dee55227", ("uint256",))
"""The Booster's multiplier of a reward pool's BAL before AURA is minted for it (10000 = 100%;
Booster.sol from aura's convex-platform c17d050 on: Ethereum's 2022 Booster and BoosterLite have none)."""
REWARD_MULTIPLIER_DENOMINATOR = 10_000
"""Booster.sol's constant REWARD_MULTIPLIER_DENOMINATOR."""
MINT_RATE = Function("mintRate()", "ca0dcf16", ("uint256",))
"""A sidechain's L2Coordinator: AURA per BAL claimed, 1e18 scale (accAuraRewards x 1e18 / accBalRewards)."""
ACC_BAL_REWARDS = Function("accBalRewards()", "1178008d", ("uint256",))
"""A sidechain's L2Coordinator: the BAL its `mint` may still be asked to pay AURA for."""


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


def l2_aura_minted(bal: int, mint_rate: int) -> int:
    """The AURA a sidechain's L2Coordinator pays for `bal` BAL claimed (L2Coordinator.sol, `mint`,
    called by BoosterLite's `rewardClaimed`): bal x mintRate() / 1e18, rounded down."""
    return bal * mint_rate // 10**18


def l2_claim_blocker(bal: int, mint_rate: int, acc_bal: int, coordinator_aura: int) -> str | None:
    """Why a claim of `bal` BAL reverts at the block (the L2Coordinator's `mint` reverts, and with
    it the reward pool's `getReward`), or None: no rate yet (`require(_mintRate > 0)`), more BAL
    than `accBalRewards` (its subtraction underflows), or more AURA than the coordinator holds
    (its transfer fails; the AURA comes in a LayerZero transfer of its own, apart from the message
    that raises the rate)."""
    if not bal:
        return None
    if not mint_rate:
        return "the L2Coordinator has no mint rate yet (mintRate() is 0)"
    if bal > acc_bal:
        return f"it exceeds the L2Coordinator's accBalRewards() {acc_bal}"
    minted = l2_aura_minted(bal, mint_rate)
    if minted > coordinator_aura:
        return f"its {minted} AURA exceed the L2Coordinator's AURA balance {coordinator_aura}"
    return None


STAKED = Event("Staked(address,uint256)", "0x9e71bc8eea02a63969f509818f2dafb9254532904319f9dbda79b67bd34a5f3d")
WITHDRAWN = Event("Withdrawn(address,uint256)", "0x7084f5476618d8e60b11ef0d7d3f06914655adb8793e28ff7f018d4c76d505d5")
REWARD_PAID = Event("RewardPaid(address,uint256)", "0xe2403640ba68fed3a2f88b7557551d1993f84b99bb10ff833f0cf8db0c5e0486")
"""BaseRewardPool's (and VirtualBalanceRewardPool's) Staked, Withdrawn and RewardPaid(user indexed, amount)."""
