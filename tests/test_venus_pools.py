"""Venus's isolated pools (`venus`) against the contracts as Venus deployed them: the world of
tests/venus_pools_world.py (inside tests/venus_world.py's) deploys `@venusprotocol/isolated-pools`'
PoolRegistry, Comptrollers, VTokens and RewardsDistributors from their deployment records, one
pool counting blocks (BNB Chain's) and one counting seconds (Arbitrum's). Every figure is held to
what those contracts say at the answer's block: `balanceOfUnderlying` and `borrowBalanceCurrent`
(run by an eth_call), the vToken's rates and year, `markets(vToken)`, what a distributor's
`claimRewardToken` pays (tests/contracts/TestVenusClaim.sol), and the liquidation price to
`getAccountLiquidity`'s shortfall with the collateral's price just above and just below it.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from adapters.venus import contracts
from tests import venus_pools_world as P
from tests import venus_world as V
from tests.evm import function_signatures, selector
from tests.node_oracles import pack
from tests.test_compound_v2 import PUBLISHED as COMPOUND_PUBLISHED
from tests.test_venus import POOL, PUBLISHED, QUERY, answer_of, at, claimed, liquidation_holds, world  # noqa: F401 (the fixture)

STABLECOINS, LSETH = (spec.name for spec in P.POOLS)


def pool(world: V.VenusWorld, name: str) -> P.IsolatedPool:
    return world.pools.pools[name]


async def test_each_pool_is_a_state_of_its_own(world_client, world):
    """The borrower holds something in all three pools: the core pool's state first, then the
    registry's, each named and with its own risk; each position names its pool."""
    borrower = world.wallets["borrower"]
    entry = await answer_of(world_client, borrower, pool(world, STABLECOINS).comptroller)
    states = entry["poolStates"]
    assert [(s["pool"], s["comptroller"]) for s in states] == [
        ("Core Pool", world.comptroller),
        (STABLECOINS, pool(world, STABLECOINS).comptroller),
        (LSETH, pool(world, LSETH).comptroller),
    ]
    stable = entry["marketState"]
    (supply,) = entry["supplyPositions"]
    (borrow,) = entry["borrowPositions"]
    assert (supply["currency"]["symbol"], borrow["currency"]["symbol"]) == ("USDD", "USDC")
    assert stable["totalSupplyUsd"] == pytest.approx(supply["balanceUsd"], rel=1e-12)
    assert stable["totalDebtUsd"] == pytest.approx(borrow["debtUsd"], rel=1e-12)
    (usdd,) = stable["risk"]["liquidationPrices"]
    assert usdd["priceUsd"] == pytest.approx(
        float(Fraction(int(borrow["debt"]), int(supply["balance"])) / Fraction(75, 100))
    )
    assert all(w["target"] == world.comptroller for w in entry["warnings"]), "the isolated pools' figures are all there"


async def test_amounts_factors_and_apys_are_the_markets_own(world_client, world):
    """Per market, in both clocks: a supply is `balanceOfUnderlying` at the block, a debt
    `borrowBalanceCurrent`; the factors are `markets(vToken)`'s; the APY compounds the vToken's
    per-period rate over its own `blocksOrSecondsPerYear`."""
    borrower = world.wallets["borrower"]
    for name, collateral, loan, year in (
        (STABLECOINS, "USDD", "USDC", P.BLOCKS_PER_YEAR),
        (LSETH, "wstETH", "WETH", P.SECONDS_PER_YEAR),
    ):
        found = pool(world, name)
        entry = await answer_of(world_client, borrower, found.comptroller)
        block = entry["blockNumber"]
        (supply,), (borrow,) = entry["supplyPositions"], entry["borrowPositions"]
        vtoken, debt_token = found.markets[collateral].vtoken, found.markets[loan].vtoken
        assert (supply["vToken"], borrow["vToken"]) == (vtoken, debt_token)
        assert supply["balance"] == str(at(world, block, vtoken, "balanceOfUnderlying(address)", borrower)), name
        debt = at(world, block, debt_token, "borrowBalanceCurrent(address)", borrower)
        assert borrow["debt"] == str(debt), name
        assert debt > at(world, block - 500, debt_token, "borrowBalanceStored(address)", borrower), "interest accrues"
        _, factor, threshold = world.node.call(
            found.comptroller, "markets(address)", vtoken, returns=("bool", "uint256", "uint256"), block=block
        )
        assert (supply["collateralFactor"], supply["liquidationThreshold"]) == (factor / 1e18, threshold / 1e18)
        assert (supply["isCollateral"], supply["canBeCollateral"]) == (True, True)
        assert at(world, block, debt_token, "blocksOrSecondsPerYear()") == year
        rate = at(world, block, debt_token, "borrowRatePerBlock()")
        assert rate > 0 and borrow["apy"] == pytest.approx(math.expm1(year * math.log1p(rate / 1e18)), rel=1e-12)
        price = at(world, block, world.pools.oracle, "getUnderlyingPrice(address)", debt_token)
        assert borrow["debtUsd"] == pytest.approx(debt * price / 10**36, rel=1e-12)


async def test_a_supply_not_entered_is_not_collateral(world_client, world):
    found = pool(world, LSETH)
    entry = await answer_of(world_client, world.wallets["saver"], found.comptroller)
    (supply,) = entry["supplyPositions"]
    assert supply["vToken"] == found.markets["WETH"].vtoken
    assert (supply["isCollateral"], supply["canBeCollateral"]) == (False, True)
    assert entry["marketState"]["risk"] is None and entry["borrowPositions"] == []


async def test_each_distributor_owes_what_its_claim_pays_at_the_block(world_client, world):
    """A distributor that counts blocks and one that counts seconds, to suppliers and borrowers:
    `rewardTokenAccrued` plus what each held market owes, as `claimRewardToken` pays it."""
    for role in ("borrower", "saver", "lender"):
        for name in (STABLECOINS, LSETH):
            found = pool(world, name)
            entry = await answer_of(world_client, world.wallets[role], found.comptroller)
            if not entry["supplyPositions"] and not entry["borrowPositions"]:
                assert entry["rewardPositions"] == [], (role, name)
                continue
            (reward,) = entry["rewardPositions"]
            paid = claimed(world, entry["blockNumber"], found.distributor, world.xvs, world.wallets[role])
            assert paid > 0 and reward["accrued"] == str(paid), (role, name)
            assert (reward["distributor"], reward["rewardToken"]["symbol"]) == (found.distributor, "XVS")
            assert reward["accruedUsd"] == pytest.approx(paid / 10**18 * V.XVS_USD / 10**18, rel=1e-12)


async def test_the_liquidation_price_is_where_the_comptroller_finds_a_shortfall(world_client, world):
    """wstETH's, in the pool that counts seconds (see test_venus.liquidation_holds)."""
    found = pool(world, LSETH)
    wsteth = found.markets["wstETH"].underlying
    await liquidation_holds(
        world_client,
        world,
        found.comptroller,
        [m.vtoken for m in found.markets.values()],
        "wstETH",
        lambda price: world.node.send(world.pools.oracle, "setPrice(address,uint256)", wsteth, price),
    )


async def test_an_isolated_pool_by_its_comptroller_or_a_market_by_its_vtoken(world_client, world):
    """Totals accrued to the block; terms from its three-field `markets()`; borrowing allowed while
    its borrow action is not paused; the distributor's speeds a second; a vToken gives its market."""
    found = pool(world, LSETH)
    weth = found.markets["WETH"].vtoken
    reply = await world_client.query(
        POOL,
        {"inputs": [{"protocol": "venus", "chainId": 31337, "poolAddress": a} for a in (found.comptroller, weth)]},
    )
    whole, alone = reply.body["data"]["poolDetails"]["data"]
    assert whole["warnings"] == []
    details = whole["details"]
    assert (details["name"], details["comptroller"], details["oracle"]) == (
        LSETH,
        found.comptroller,
        world.pools.oracle,
    )
    rows = {row["vToken"]: row for row in details["markets"]}
    block = whole["blockNumber"]
    for symbol, market in found.markets.items():
        row, listing = rows[market.vtoken], P.POOLS[1].listings[symbol]
        supply = at(world, block, market.vtoken, "totalSupply()")
        rate = at(world, block, market.vtoken, "exchangeRateCurrent()")
        assert row["totalSupplied"] == str(supply * rate // 10**18), symbol
        assert row["totalBorrowed"] == str(at(world, block, market.vtoken, "totalBorrowsCurrent()")), symbol
        assert (row["isListed"], row["isBorrowAllowed"], row["periodsPerYear"]) == (True, True, P.SECONDS_PER_YEAR)
        assert row["liquidationThreshold"] == listing.liquidation_threshold / 10**18
        assert row["rewardSpeeds"] == [
            {
                "payer": found.distributor,
                "rewardToken": world.xvs,
                "supplyPerPeriod": str(listing.supply_speed),
                "borrowPerPeriod": str(listing.borrow_speed),
            }
        ]
    assert alone["details"]["markets"] == [rows[weth]] and alone["details"]["name"] == LSETH


async def test_before_the_registry_the_core_pool_answers_alone(world_client, world):
    """At a block before the PoolRegistry had code (as BNB Chain's core pool predates its
    registry), the core pool answers as it was, with no isolated pool and no warning of one."""
    borrower, block = world.wallets["borrower"], world.pools.start_block - 1
    inputs = [{"protocol": "venus", "chainId": 31337, "walletAddress": borrower, "blockNumber": block}]
    reply = await world_client.query(QUERY, {"inputs": inputs})
    answer = reply.body["data"]["walletPositions"]
    assert answer["errors"] == []
    (entry,) = answer["data"]
    assert entry["blockNumber"] == block
    assert [s["pool"] for s in entry["poolStates"]] == ["Core Pool"]
    assert {p["comptroller"] for p in entry["supplyPositions"] + entry["borrowPositions"]} == {world.comptroller}
    assert all(w["target"] == world.comptroller for w in entry["warnings"])


async def test_a_pool_that_cannot_be_read_is_named_and_the_others_answer(world_client, world):
    """With one isolated pool's Comptroller answering nothing but reverts, that pool is left out
    with a PART_UNREADABLE warning naming it; the core pool and the other isolated pool answer."""
    node, borrower, broken = world.node, world.wallets["borrower"], pool(world, LSETH)
    snapshot = node.rpc("evm_snapshot")
    try:
        node.rpc("anvil_setCode", broken.comptroller, "0x60006000fd")  # PUSH1 0 PUSH1 0 REVERT
        node.mine()
        entry = await answer_of(world_client, borrower, broken.comptroller)
    finally:
        node.rpc("evm_revert", snapshot)
    assert [s["pool"] for s in entry["poolStates"]] == ["Core Pool", STABLECOINS]
    assert entry["marketState"] is None and entry["supplyPositions"] == entry["borrowPositions"] == []
    (named,) = [w for w in entry["warnings"] if w["target"] == broken.comptroller]
    assert named["code"] == "PART_UNREADABLE" and LSETH in named["message"]


POOLS_PUBLISHED = {
    "ALL_POOLS": "PoolRegistry_Implementation",
    "REWARD_DISTRIBUTORS": "ComptrollerImpl",
    "POOL_MARKETS": "ComptrollerImpl",
    "ACTION_PAUSED": "ComptrollerImpl",
    "PERIODS_PER_YEAR": "VTokenImpl",
    "VTOKEN_COMPTROLLER": "VTokenImpl",
    "REWARD_TOKEN": "RewardsDistributorImpl",
    "TIME_BASED": "RewardsDistributorImpl",
    "REWARD_ACCRUED": "RewardsDistributorImpl",
    "REWARD_INITIAL_INDEX": "RewardsDistributorImpl",
    "REWARD_SUPPLY_STATE": "RewardsDistributorImpl",
    "REWARD_BORROW_STATE": "RewardsDistributorImpl",
    "REWARD_SUPPLY_STATE_BY_TIME": "RewardsDistributorImpl",
    "REWARD_BORROW_STATE_BY_TIME": "RewardsDistributorImpl",
    "REWARD_SUPPLY_SPEED": "RewardsDistributorImpl",
    "REWARD_BORROW_SPEED": "RewardsDistributorImpl",
    "REWARD_SUPPLIER_INDEX": "RewardsDistributorImpl",
    "REWARD_BORROWER_INDEX": "RewardsDistributorImpl",
}
"""The isolated pools' views, by the deployment record (Arbitrum's) whose ABI says them."""
SHARED = ("ALL_MARKETS", "ASSETS_IN", "ORACLE", "ACCOUNT_LIQUIDITY", "SUPPLY_CAP", "BORROW_CAP")
"""Core-pool views an isolated Comptroller answers alike."""
SHARED_VTOKEN = (
    "ACCOUNT_SNAPSHOT",
    "EXCHANGE_RATE_CURRENT",
    "BORROW_BALANCE_CURRENT",
    "UNDERLYING",
    "SUPPLY_RATE",
    "BORROW_RATE",
    "TOTAL_BORROWS",
    "BORROW_INDEX",
    "TOTAL_BORROWS_CURRENT",
    "CASH",
    "TOTAL_RESERVES",
    "RESERVE_FACTOR",
)


def test_every_view_is_held_to_the_published_abis():
    """Each function of contracts.py has the signature and output types of the record whose
    contract it reads (Arbitrum's; BNB Chain's distributor has no time-based views, and its
    block-based ones agree), and none is held to nothing (Compound v2's: tests/test_compound_v2.py)."""
    functions = {name for name in vars(contracts) if isinstance(getattr(contracts, name), type(contracts.ORACLE))}
    assert functions == set(PUBLISHED) | set(POOLS_PUBLISHED) | set(COMPOUND_PUBLISHED)
    files = pack(P.PACKAGE)

    def abi(network: str, record: str) -> dict[str, tuple[str, ...]]:
        return function_signatures(json.loads(files[f"deployments/{network}/{record}.json"])["abi"])

    held = {**POOLS_PUBLISHED, **dict.fromkeys(SHARED, "ComptrollerImpl"), **dict.fromkeys(SHARED_VTOKEN, "VTokenImpl")}
    for name, record in held.items():
        function = getattr(contracts, name)
        assert abi("arbitrumone", record).get(function.signature) == tuple(function.output_types), name
        assert selector(function.signature).hex() == function.selector, name
        old = abi("bscmainnet", record)
        assert function.signature not in old or old[function.signature] == tuple(function.output_types), name
    assert "isTimeBased()" not in abi("bscmainnet", "RewardsDistributorImpl"), "why TIME_BASED may revert"
