"""Liquity v1 on anvil, from the stand-ins of tests/contracts/TestLiquity.sol (no package publishes
Liquity v1's contracts built; tests/test_liquity.py holds them to `@liquity/lib-ethers` 3.4.0's
ABIs): the TroveManager (also the ActivePool, DefaultPool and GasPool), BorrowerOperations, the
Stability Pool, LQTYStaking, CollSurplusPool, CommunityIssuance (1 LQTY a second to depositors),
LUSD and LQTY, and a PriceFeed over a Chainlink-style ETH/USD aggregator (8 decimals); LQTY has a
USD feed of its own (LQTY_USD) in the addresses data, where the service prices it.

Every position is made through the entry points a user calls (openTrove, provideToSP, stake,
liquidate, redeemCollateral), at ETH = 3,000 USD, base rate 0 (a 0.5 % borrowing fee):

1. The borrower opens 10 ETH / 6,000 LUSD (debt 6,230 with the fee and the gas compensation),
   the depositor 5 ETH / 5,000 (debt 5,225), then `liquidated` 1 ETH / 2,000 (debt 2,210) and
   `redeemed` 2 ETH / 3,600 (debt 3,818): in that order, as every opening in normal mode must
   leave the system's ratio at 150 % or more. Their fees go to LQTYStaking while nothing is
   staked, so no staker ever gets them.
2. The depositor provides 5,000 LUSD to the Stability Pool; the saver (given 1,000 LQTY, a genesis
   allocation) stakes it; `late` opens 3 ETH / 4,000 (debt 4,220): its 20 LUSD fee is the
   saver's LUSD gain.
3. A day passes (the LQTY issued over it is the depositor's, credited at the next pool operation).
4. ETH falls to 2,400: `liquidated` (ICR 108.6 %) is liquidated by the deployer, its 2,210 debt
   offset against the pool: the depositor's deposit compounds to about 2,790 LUSD (a loss of
   about 2,210), with an ETH gain of 0.995 (its collateral less the 0.5 % gas compensation) and
   the LQTY issued since it deposited.
5. ETH is restored to 3,000 (`setPrice`, then a `fetchPrice` transaction; `feed_set_at`).
6. `late` redeems `redeemed`'s net debt (3,618 LUSD): the lowest-ICR trove (157 %, the borrower's
   is 482 %) is closed by redemption, its 0.794 ETH left over in CollSurplusPool; the base rate
   rises by half the redeemed fraction of the supply (to about 9.3 %), and the redemption fee
   (about 9.8 % of the 1.206 ETH drawn) is the saver's ETH gain.
7. A day passes: the base rate decays to a quarter (a 12-hour half-life), which
   `getBorrowingRateWithDecay` and `getRedemptionRateWithDecay` show; the Stability Pool's LQTY
   views do not move until its next operation, as Liquity's.

So the borrower holds one trove (10 ETH, 6,230 LUSD, ICR about 482 %, liquidatable below MCR);
`late` one whose ratio (213 %) is below the system's (345 %) x MCR / CCR, so recovery mode would
reach it first; the depositor a trove and the compounded deposit with both gains; the saver the
stake with both fee gains; `redeemed` a trove closed by redemption with its surplus; `empty`
nothing.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.aave_world import Deployer
from tests.evm import CONTRACTS, Anvil, Artifact, calldata, compile_contracts

ETHER = 10**18
ZERO = "0x" + "00" * 20
DAY = 86_400
ETH_USD = 3_000
CRASH_USD = 2_400
"""Where `liquidated` (1 ETH for 2,210 LUSD) is below MCR and `redeemed` (2 for 3,818) is not."""
LQTY_USD = 2
"""LQTY's price by its own feed (the addresses data's priceFeeds), in whole USD."""
FEED_DECIMALS = 8
LQTY_SUPPLY_CAP = 32_000_000 * ETHER
"""What CommunityIssuance is funded with (TestCommunityIssuance.LQTYSupplyCap)."""
MAX_BORROWING_FEE = 5 * ETHER // 100
MAX_REDEMPTION_FEE = ETHER
TROVES: dict[str, tuple[int, int]] = {
    "liquidated": (1 * ETHER, 2_000 * ETHER),
    "redeemed": (2 * ETHER, 3_600 * ETHER),
    "borrower": (10 * ETHER, 6_000 * ETHER),
    "depositor": (5 * ETHER, 5_000 * ETHER),
    "late": (3 * ETHER, 4_000 * ETHER),
}
"""Each role's trove: (ether, LUSD drawn)."""
DEPOSIT = 5_000 * ETHER
STAKE = 1_000 * ETHER
ROLES = ("borrower", "depositor", "saver", "empty")
EXTRA_ROLES = ("liquidated", "redeemed", "late")


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    """TestLiquity.sol imports TestToken.sol and TestPriceFeed.sol; the same two sources as
    tests/test_liquity.py compiles, so that the compiled worlds hold one entry for both."""
    return compile_contracts([CONTRACTS / name for name in ("TestToken.sol", "TestLiquity.sol")])


@dataclass
class LiquityWorld:
    node: Anvil
    trove_manager: str = ""
    borrower_operations: str = ""
    stability_pool: str = ""
    lqty_staking: str = ""
    price_feed: str = ""
    coll_surplus_pool: str = ""
    community_issuance: str = ""
    lusd: str = ""
    lqty: str = ""
    aggregator: str = ""
    """The PriceFeed's Chainlink-style ETH/USD aggregator (`priceAggregator()`)."""
    lqty_feed: str = ""
    wallets: dict[str, str] = field(default_factory=dict)
    start_block: int = 0
    feed_set_at: int = 0
    """The block of the aggregator's last answer (ETH restored to ETH_USD): its `updatedAt`."""
    trove_roles: tuple[str, ...] = ("late",)
    """The roles besides the borrower and the depositor whose troves stay active."""
    redeemed: str = "redeemed"
    """The role whose trove a redemption closed (its surplus in CollSurplusPool)."""
    liquidated: str = "liquidated"

    def section(self) -> dict[str, Any]:
        """The chain's "liquity" section."""
        return {
            "troveManager": self.trove_manager,
            "borrowerOperations": self.borrower_operations,
            "stabilityPool": self.stability_pool,
            "lqtyStaking": self.lqty_staking,
            "collSurplusPool": self.coll_surplus_pool,
            "priceFeed": self.price_feed,
            "startBlock": self.start_block,
        }

    def addresses_override(self) -> dict[str, Any]:
        """The section, and LQTY's USD feed (the service prices LQTY by the chain's feeds)."""
        lqty = {"pair": "LQTY/USD", "feed": self.lqty_feed, "heartbeat": 10**9}
        chain = {"name": "anvil devnet", "liquity": self.section(), "priceFeeds": {self.lqty: lqty}}
        return {str(self.node.chain_id): chain}

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path

    def deploy(self, name: str, *args: Any) -> str:
        artifact = compile_all()[name]
        return Deployer(self.node, lambda _: {"abi": artifact.abi, "bytecode": artifact.bytecode}).deploy(name, *args)


def open_trove(world: LiquityWorld, wallet: str, coll: int, lusd: int, max_fee: int = MAX_BORROWING_FEE) -> None:
    """`openTrove` with `coll` wei of ether, drawing `lusd` (hints unused by the stand-ins)."""
    data = calldata("openTrove(uint256,uint256,address,address)", max_fee, lusd, ZERO, ZERO)
    world.node.transact({"to": world.borrower_operations, "data": "0x" + data.hex(), "value": hex(coll)}, wallet)


def provide(world: LiquityWorld, wallet: str, amount: int) -> None:
    world.node.send(world.stability_pool, "provideToSP(uint256,address)", amount, ZERO, sender=wallet)


def stake(world: LiquityWorld, wallet: str, amount: int) -> None:
    world.node.send(world.lqty_staking, "stake(uint256)", amount, sender=wallet)


def set_price(world: LiquityWorld, usd: int) -> int:
    """The aggregator's answer set to `usd` per ether, then a `fetchPrice` transaction that stores it
    as the last good price; the block of the answer."""
    receipt = world.node.send(world.price_feed, "setPrice(uint256)", usd * ETHER)
    world.node.send(world.price_feed, "fetchPrice()")
    return int(receipt["blockNumber"], 16)


def liquidate(world: LiquityWorld, borrower: str, liquidator: str) -> None:
    world.node.send(world.trove_manager, "liquidate(address)", borrower, sender=liquidator)


def redeem(world: LiquityWorld, wallet: str, amount: int, max_fee: int = MAX_REDEMPTION_FEE) -> None:
    """`redeemCollateral` without hints, as many troves as it takes."""
    signature = "redeemCollateral(uint256,address,address,address,uint256,uint256,uint256)"
    world.node.send(world.trove_manager, signature, amount, ZERO, ZERO, ZERO, 0, 0, max_fee, sender=wallet)


def trove_debt(world: LiquityWorld, wallet: str) -> int:
    return int(world.node.call(world.trove_manager, "getTroveDebt(address)", wallet))


def pass_time(node: Anvil, seconds: int) -> None:
    """Moves the chain's clock on and mines a block at the new time."""
    node.rpc("evm_increaseTime", seconds)
    node.mine()


def _set_addresses(node: Anvil, contract: str, *addresses: str) -> None:
    """`setAddresses(address,...)`: how each Liquity contract is wired once, after all are deployed."""
    node.send(contract, f"setAddresses({','.join(['address'] * len(addresses))})", *addresses)


def _deploy_system(world: LiquityWorld) -> None:
    """Every contract, wired as Liquity's deployment wires them; the TroveManager stands for the
    ActivePool, DefaultPool and GasPool; no SortedTroves (the zero address)."""
    node = world.node
    world.aggregator = world.deploy("TestPriceFeed", FEED_DECIMALS)
    node.send(world.aggregator, "set(int256,uint256)", ETH_USD * 10**FEED_DECIMALS, node.timestamp())
    world.price_feed = world.deploy("TestLiquityPriceFeed")
    _set_addresses(node, world.price_feed, world.aggregator, ZERO)
    world.trove_manager = tm = world.deploy("TestTroveManager")
    world.borrower_operations = bo = world.deploy("TestBorrowerOperations")
    world.stability_pool = sp = world.deploy("TestStabilityPool")
    world.lqty_staking = staking = world.deploy("TestLQTYStaking")
    world.coll_surplus_pool = surplus = world.deploy("TestCollSurplusPool")
    world.community_issuance = issuance = world.deploy("TestCommunityIssuance")
    world.lusd = lusd = world.deploy("TestLUSDToken", tm, sp, bo)
    world.lqty = lqty = world.deploy("TestLQTYToken", issuance, staking)
    feed = world.price_feed
    # lib-ethers' setAddresses, argument for argument (pools: the TroveManager; SortedTroves: none)
    _set_addresses(node, tm, bo, tm, tm, sp, tm, surplus, feed, lusd, ZERO, lqty, staking)
    _set_addresses(node, bo, tm, tm, tm, sp, tm, surplus, feed, ZERO, lusd, staking)
    _set_addresses(node, sp, bo, tm, tm, lusd, ZERO, feed, issuance)
    _set_addresses(node, staking, lqty, lusd, tm, bo, tm)
    _set_addresses(node, surplus, bo, tm, tm)
    _set_addresses(node, issuance, lqty, sp)
    node.send(lqty, "mint(address,uint256)", issuance, LQTY_SUPPLY_CAP)
    world.lqty_feed = world.deploy("TestPriceFeed", FEED_DECIMALS)
    node.send(world.lqty_feed, "set(int256,uint256)", LQTY_USD * 10**FEED_DECIMALS, node.timestamp())


def build(node: Anvil, wallets: dict[str, str] | None = None) -> LiquityWorld:
    """`wallets`: the roles borrower, depositor, saver and empty default to anvil accounts 14-17
    (anvil runs 20 accounts, so 18-21 do not all exist), `liquidated` and `redeemed` to 18 and
    19, `late` to 13; the deployer (account 0) liquidates. The scenario is the module's."""
    world = LiquityWorld(node)
    world.start_block = node.block_number() + 1
    defaults = dict(zip(ROLES, node.accounts[14:18])) | dict(
        zip(EXTRA_ROLES, (node.accounts[18], node.accounts[19], node.accounts[13]))
    )
    world.wallets = defaults | (wallets or {})
    _deploy_system(world)
    w = world.wallets
    for role in ("borrower", "depositor", "liquidated", "redeemed"):
        open_trove(world, w[role], *TROVES[role])
    provide(world, w["depositor"], DEPOSIT)
    node.send(world.lqty, "mint(address,uint256)", w["saver"], STAKE)
    stake(world, w["saver"], STAKE)
    open_trove(world, w["late"], *TROVES["late"])
    pass_time(node, DAY)
    set_price(world, CRASH_USD)
    liquidate(world, w["liquidated"], node.accounts[0])
    world.feed_set_at = set_price(world, ETH_USD)
    redeem(world, w["late"], trove_debt(world, w["redeemed"]) - 200 * ETHER)
    pass_time(node, DAY)
    return world
