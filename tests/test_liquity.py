"""Liquity v1 (`liquity`) against the stand-ins of tests/liquity_world.py. Every figure is held to
what the contracts say at the answer's block: the TroveManager's `getEntireDebtAndColl`,
`getCurrentICR`, `checkRecoveryMode` and `getTCR` at the PriceFeed's `fetchPrice()`, the Stability
Pool's and LQTYStaking's gains, CollSurplusPool's balance; and every view and event the adapter
reads, with the stand-ins themselves, to `@liquity/lib-ethers` 3.4.0's ABIs."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from adapters.liquity import contracts
from tests import liquity_world as L
from tests.conftest import proxied_api, query_pools, query_positions, world_fixture
from tests.evm import CONTRACTS, calldata, compile_contracts, function_signatures, selector
from tests.node_oracles import pack

QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on LiquityWalletPositions { blockNumber warnings { code message target }
    troves { id type status collateral debt collateralRatio collateralSurplus borrowingRate recoveryMode apy
      legs { role key asset { symbol } amount usd priceSource }
      risk { healthFactor liquidationLoanToValue liquidationPrices { asset { symbol } priceUsd priceInLoanAsset }
        oracle { address updatedAt } } }
    stabilityDeposits { id type deposit ethGain lqtyGain apy legs { role key amount usd priceSource } }
    stakes { id type stake ethGain lusdGain apy legs { role key amount usd priceSource } } } }
  errors { error { code message } } } }"""

world = world_fixture(L.build)
WAD = 10**18


async def answer_of(client: Any, wallet: str) -> dict[str, Any]:
    answer = await query_positions(client, QUERY, "liquity", [wallet], 31337)
    assert answer["errors"] == []
    (entry,) = answer["data"]
    return entry


def price_at(world: L.LiquityWorld, block: int) -> int:
    """The PriceFeed's `fetchPrice()` at `block`, run by an eth_call as the adapter reads it."""
    return int(world.node.call(world.price_feed, "fetchPrice()", block=block))


async def test_a_trove_is_the_trove_managers_own_at_the_block(world_client, world):
    """Collateral and debt are `getEntireDebtAndColl` (pending gains included), the ratio
    `getCurrentICR` at `fetchPrice()`, recovery mode `checkRecoveryMode`; ether at that price, LUSD
    at 1 USD; no interest (apy 0), the borrowing fee `getBorrowingRateWithDecay`."""
    borrower = world.wallets["borrower"]
    entry = await answer_of(world_client, borrower)
    assert entry["warnings"] == [] and entry["stabilityDeposits"] == [] and entry["stakes"] == []
    (trove,) = entry["troves"]
    block, node, tm = entry["blockNumber"], world.node, world.trove_manager
    debt, coll, _, _ = node.call(tm, "getEntireDebtAndColl(address)", borrower, block=block, returns=["uint256"] * 4)
    price = price_at(world, block)
    assert (trove["id"], trove["type"], trove["status"]) == (tm, "liquity-trove", "active")
    assert (trove["collateral"], trove["debt"], trove["collateralSurplus"]) == (str(coll), str(debt), "0")
    icr = node.call(tm, "getCurrentICR(address,uint256)", borrower, price, block=block)
    assert trove["collateralRatio"] == float(Fraction(icr, WAD))
    assert trove["recoveryMode"] is bool(node.call(tm, "checkRecoveryMode(uint256)", price, block=block))
    assert trove["borrowingRate"] == float(Fraction(node.call(tm, "getBorrowingRateWithDecay()", block=block), WAD))
    assert trove["apy"] == 0.0
    legs = {leg["key"]: leg for leg in trove["legs"]}
    collateral, owed, surplus = (legs[f"{tm}:{name}"] for name in ("collateral", "debt", "surplus"))
    assert (collateral["role"], collateral["asset"]["symbol"], collateral["priceSource"]) == (
        "COLLATERAL",
        "ETH",
        world.price_feed,
    )
    assert collateral["usd"] == float(Fraction(coll * price, WAD * WAD))
    assert (owed["role"], owed["asset"]["symbol"], owed["usd"]) == ("DEBT", "LUSD", float(Fraction(debt, WAD)))
    assert (surplus["role"], surplus["amount"]) == ("CLAIMABLE", "0")
    assert trove["risk"]["oracle"]["address"] == world.price_feed
    assert trove["risk"]["oracle"]["updatedAt"] == node.timestamp(world.feed_set_at)


def liquidatable(world: L.LiquityWorld, wallet: str, price: int) -> bool:
    """The TroveManager's own rule at `price`: below MCR, or in recovery mode below the system's ratio."""
    node, tm = world.node, world.trove_manager
    icr = node.call(tm, "getCurrentICR(address,uint256)", wallet, price)
    recovery = node.call(tm, "checkRecoveryMode(uint256)", price)
    return bool(icr < node.call(tm, "MCR()") or (recovery and icr < node.call(tm, "getTCR(uint256)", price)))


async def test_the_liquidation_price_is_where_the_trove_manager_would_liquidate(world_client, world):
    """For every trove of the world: at its answered liquidation price x (1 + 1e-6) the
    TroveManager's views leave it safe, at x (1 - 1e-6) it is liquidatable (below MCR, or in
    recovery mode below the system's ratio: the riskier trove's price is where recovery mode
    begins); for the troves priced by MCR, `liquidate` itself fails above and succeeds below.
    The health factor is the ratio over that price's threshold."""
    seen = set()
    for role in ("borrower", "depositor", *world.trove_roles):
        wallet = world.wallets[role]
        (trove,) = (await answer_of(world_client, wallet))["troves"]
        (found,) = trove["risk"]["liquidationPrices"]
        assert found["asset"]["symbol"] == "ETH" and found["priceInLoanAsset"] == found["priceUsd"], role
        for factor, expected in ((1 + 1e-6, False), (1 - 1e-6, True)):
            price = round(Fraction(found["priceUsd"]) * Fraction(factor) * WAD)
            assert liquidatable(world, wallet, price) is expected, (role, factor)
        threshold = trove["risk"]["liquidationLoanToValue"]
        assert trove["risk"]["healthFactor"] == pytest.approx(trove["collateralRatio"] * threshold, rel=1e-12)
        by_mcr = threshold == pytest.approx(1 / 1.1, rel=1e-15)
        seen.add(by_mcr)
        if by_mcr:  # the stand-in liquidates below MCR only: its entry point confirms these
            for factor, expected in ((1 + 1e-6, False), (1 - 1e-6, True)):
                assert liquidated(world, wallet, Fraction(found["priceUsd"]) * Fraction(factor)) is expected, role
    assert seen == {True, False}, "a trove by MCR and one by recovery mode"


def liquidated(world: L.LiquityWorld, wallet: str, usd: Fraction) -> bool:
    """Whether `liquidate(wallet)` succeeds, run by an eth_call, once the PriceFeed's aggregator
    says `usd` per ether (in a snapshot, undone)."""
    node = world.node
    snapshot = node.rpc("evm_snapshot")
    try:
        node.send(
            world.price_feed, "setPrice(uint256)", round(usd * 10**L.FEED_DECIMALS) * 10 ** (18 - L.FEED_DECIMALS)
        )
        call = {
            "from": node.accounts[0],
            "to": world.trove_manager,
            "data": "0x" + calldata("liquidate(address)", wallet).hex(),
        }
        try:
            node.rpc("eth_call", call, "latest")
        except RuntimeError:
            return False
        return True
    finally:
        node.rpc("evm_revert", snapshot)


async def test_a_deposit_and_its_gains_are_the_stability_pools_own(world_client, world):
    """The compounded deposit after the liquidation it absorbed, its ether and LQTY gains."""
    depositor = world.wallets["depositor"]
    entry = await answer_of(world_client, depositor)
    (deposit,) = entry["stabilityDeposits"]
    block, sp = entry["blockNumber"], world.stability_pool
    views = ("getCompoundedLUSDDeposit", "getDepositorETHGain", "getDepositorLQTYGain")
    amounts = [world.node.call(sp, f"{view}(address)", depositor, block=block) for view in views]
    assert [deposit["deposit"], deposit["ethGain"], deposit["lqtyGain"]] == [str(amount) for amount in amounts]
    initial, _ = world.node.call(sp, "deposits(address)", depositor, block=block, returns=["uint256", "address"])
    assert 0 < amounts[0] < initial and amounts[1] > 0 and amounts[2] > 0, "a loss, and gains"
    assert (deposit["id"], deposit["type"], deposit["apy"]) == (sp, "liquity-stability-deposit", None)
    legs = {leg["key"]: leg for leg in deposit["legs"]}
    assert legs[f"{sp}:lqty-gain"]["usd"] == float(Fraction(amounts[2] * L.LQTY_USD, WAD))
    assert legs[f"{sp}:lqty-gain"]["priceSource"] == world.lqty_feed
    assert legs[f"{sp}:eth-gain"]["usd"] == float(Fraction(amounts[1] * price_at(world, block), WAD * WAD))
    assert (legs[f"{sp}:deposit"]["role"], legs[f"{sp}:deposit"]["usd"]) == ("SUPPLIED", amounts[0] / 1e18)


async def test_a_stake_and_its_fee_gains_are_lqty_stakings_own(world_client, world):
    saver = world.wallets["saver"]
    entry = await answer_of(world_client, saver)
    (stake,) = entry["stakes"]
    block, staking = entry["blockNumber"], world.lqty_staking
    views = ("stakes", "getPendingETHGain", "getPendingLUSDGain")
    amounts = [world.node.call(staking, f"{view}(address)", saver, block=block) for view in views]
    assert all(amounts), "a stake, a redemption fee and a borrowing fee"
    assert [stake["stake"], stake["ethGain"], stake["lusdGain"]] == [str(amount) for amount in amounts]
    legs = {leg["key"]: leg for leg in stake["legs"]}
    assert (legs[f"{staking}:stake"]["role"], legs[f"{staking}:stake"]["usd"]) == (
        "STAKED",
        float(Fraction(amounts[0] * L.LQTY_USD, WAD)),
    )
    assert legs[f"{staking}:lusd-gain"]["usd"] == float(Fraction(amounts[2], WAD))


async def test_a_trove_closed_by_redemption_shows_its_surplus(world_client, world):
    """The redeemed trove is closed, its leftover ether CollSurplusPool's `getCollateral`, claimable."""
    wallet = world.wallets[world.redeemed]
    entry = await answer_of(world_client, wallet)
    (trove,) = entry["troves"]
    surplus = world.node.call(world.coll_surplus_pool, "getCollateral(address)", wallet, block=entry["blockNumber"])
    assert surplus > 0 and trove["status"] == "closedByRedemption"
    assert (trove["collateral"], trove["debt"], trove["collateralSurplus"], trove["risk"]) == (
        "0",
        "0",
        str(surplus),
        None,
    )
    assert trove["collateralRatio"] is None


async def test_an_empty_wallet_holds_nothing(world_client, world):
    entry = await answer_of(world_client, world.wallets["empty"])
    assert (entry["troves"], entry["stabilityDeposits"], entry["stakes"], entry["warnings"]) == ([], [], [], [])


async def test_a_failing_part_is_named_and_the_others_answer(world_client, world):
    """The Stability Pool's code replaced by a revert: its deposit is left out with
    PART_UNREADABLE naming it; the trove is answered."""
    node, depositor = world.node, world.wallets["depositor"]
    snapshot = node.rpc("evm_snapshot")
    try:
        node.rpc("anvil_setCode", world.stability_pool, "0x60006000fd")  # PUSH1 0 PUSH1 0 REVERT
        node.mine()
        entry = await answer_of(world_client, depositor)
    finally:
        node.rpc("evm_revert", snapshot)
    assert entry["stabilityDeposits"] == [] and len(entry["troves"]) == 1
    assert [(w["code"], w["target"]) for w in entry["warnings"]] == [("PART_UNREADABLE", world.stability_pool)]


async def test_an_account_is_read_in_one_round(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path):
    """The trove, the system, the surplus, the deposit, the stake, the tokens, LQTY's feed, the
    aggregator and `fetchPrice()`: one LiquityLens call, and no read outside it."""
    proxy, api = await proxied_api(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path)
    await answer_of(api, world.wallets["depositor"])
    world.node.mine()
    proxy.posts.clear()
    entry = await answer_of(api, world.wallets["depositor"])
    assert entry["troves"] and entry["stabilityDeposits"]
    calls = proxy.calls("eth_call")
    assert [call for call in calls if "to" in call["params"][0]] == [], "every read came from the tape"
    assert len(calls) == 1


POOL = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) { data { blockNumber warnings { code message }
  details { ... on LiquityPool { type troveManager chainId debtAsset { symbol } priceUsd totalCollateral totalDebt
    totalCollateralRatio recoveryMode minimumCollateralRatio criticalCollateralRatio borrowingRate redemptionRate
    stabilityPoolDeposits totalLqtyStaked troveCount priceOracle { address updatedAt } } } }
  errors { poolAddress error { code message } } } }"""


async def test_the_system_as_a_pool(world_client, world):
    """The TroveManager, the Stability Pool and LQTYStaking each give the system, its figures the
    contracts' views at the block; another address is refused, naming the three."""
    asked = [world.trove_manager, world.stability_pool, world.lqty_staking, "0x" + "77" * 20]
    found = await query_pools(world_client, POOL, "liquity", asked)
    first, *others = found["data"]
    assert [other["details"] for other in others] == [first["details"]] * 2
    details, block, node, tm = first["details"], first["blockNumber"], world.node, world.trove_manager
    price = price_at(world, block)
    coll, debt = (node.call(tm, f"{view}()", block=block) for view in ("getEntireSystemColl", "getEntireSystemDebt"))
    assert (details["type"], details["troveManager"], details["debtAsset"]) == (
        "liquity-system",
        tm,
        {"symbol": "LUSD"},
    )
    assert (details["totalCollateral"], details["totalDebt"]) == (str(coll), str(debt))
    assert details["totalCollateralRatio"] == float(Fraction(node.call(tm, "getTCR(uint256)", price, block=block), WAD))
    assert details["priceUsd"] == price / 1e18 and details["recoveryMode"] is False
    assert (details["minimumCollateralRatio"], details["criticalCollateralRatio"]) == (1.1, 1.5)
    assert details["stabilityPoolDeposits"] == str(
        node.call(world.stability_pool, "getTotalLUSDDeposits()", block=block)
    )
    assert details["totalLqtyStaked"] == str(node.call(world.lqty_staking, "totalLQTYStaked()", block=block))
    assert details["troveCount"] == node.call(tm, "getTroveOwnersCount()", block=block)
    assert details["redemptionRate"] == float(Fraction(node.call(tm, "getRedemptionRateWithDecay()", block=block), WAD))
    (refused,) = found["errors"]
    assert refused["error"]["code"] == "VALIDATION_ERROR" and world.stability_pool in refused["error"]["message"]


PUBLISHED = {
    "TROVES": "TroveManager",
    "ENTIRE_DEBT_AND_COLL": "TroveManager",
    "TROVE_STATUS": "TroveManager",
    "MCR": "TroveManager",
    "CCR": "TroveManager",
    "GAS_COMPENSATION": "TroveManager",
    "SYSTEM_COLL": "TroveManager",
    "SYSTEM_DEBT": "TroveManager",
    "BORROWING_RATE": "TroveManager",
    "REDEMPTION_RATE": "TroveManager",
    "LUSD_TOKEN": "TroveManager",
    "LQTY_TOKEN": "TroveManager",
    "TROVE_OWNERS": "TroveManager",
    "SURPLUS": "CollSurplusPool",
    "COMPOUNDED_DEPOSIT": "StabilityPool",
    "DEPOSITOR_ETH_GAIN": "StabilityPool",
    "DEPOSITOR_LQTY_GAIN": "StabilityPool",
    "DEPOSITS": "StabilityPool",
    "TOTAL_DEPOSITS": "StabilityPool",
    "STAKES": "LQTYStaking",
    "PENDING_ETH_GAIN": "LQTYStaking",
    "PENDING_LUSD_GAIN": "LQTYStaking",
    "TOTAL_STAKED": "LQTYStaking",
    "FETCH_PRICE": "PriceFeed",
    "PRICE_AGGREGATOR": "PriceFeed",
}
"""The views Liquity v1 is read by, to lib-ethers' ABIs."""
EVENTS = {
    "TROVE_UPDATED": ("TroveManager", "BorrowerOperations"),
    "TROVE_LIQUIDATED": ("TroveManager",),
    "BORROWING_FEE_PAID": ("BorrowerOperations",),
    "DEPOSIT_CHANGED": ("StabilityPool",),
    "ETH_GAIN_WITHDRAWN": ("StabilityPool",),
    "LQTY_PAID": ("StabilityPool",),
    "STAKE_CHANGED": ("LQTYStaking",),
    "STAKING_GAINS": ("LQTYStaking",),
    "SURPLUS_CHANGED": ("CollSurplusPool",),
}
"""The events its flows read; each indexes its account first, as lib-ethers' ABIs say."""
STAND_INS = {
    "TestTroveManager": "TroveManager",
    "TestBorrowerOperations": "BorrowerOperations",
    "TestStabilityPool": "StabilityPool",
    "TestLQTYStaking": "LQTYStaking",
    "TestCollSurplusPool": "CollSurplusPool",
    "TestLiquityPriceFeed": "PriceFeed",
}


def lib_ethers_abi(name: str) -> list[dict[str, Any]]:
    abi: list[dict[str, Any]] = json.loads(pack("@liquity/lib-ethers")[f"abi/{name}.json"])
    return abi


def event_shapes(abi: list[dict[str, Any]]) -> dict[str, tuple[bool, ...]]:
    """Event signature -> which of its inputs are indexed."""
    return {
        f"{e['name']}({','.join(i['type'] for i in e['inputs'])})": tuple(i["indexed"] for i in e["inputs"])
        for e in abi
        if e["type"] == "event"
    }


def test_every_view_event_and_stand_in_is_held_to_lib_ethers():
    """Each function the adapter calls and each event its flows read has lib-ethers 3.4.0's
    signature, output types and indexing; each stand-in function and event lib-ethers names too."""
    for name, contract in PUBLISHED.items():
        function = getattr(contracts, name)
        published = function_signatures(lib_ethers_abi(contract))
        assert published.get(function.signature) == tuple(function.output_types), name
        assert selector(function.signature).hex() == function.selector, name
    for name, emitters in EVENTS.items():
        event = getattr(contracts, name)
        for contract in emitters:
            indexed = event_shapes(lib_ethers_abi(contract))[event.signature]
            assert indexed[0] and not any(indexed[1:]), (name, contract)
        assert "0x" + selector(event.signature).hex() == event.topic[:10] and len(event.topic) == 66, name
    compiled = compile_contracts([CONTRACTS / "TestToken.sol", CONTRACTS / "TestLiquity.sol"])
    for stand_in, contract in STAND_INS.items():
        abi = lib_ethers_abi(contract)
        published, ours = function_signatures(abi), function_signatures(compiled[stand_in].abi)
        common = set(ours) & set(published)
        assert len(common) >= 3, stand_in
        assert {s: ours[s] for s in common} == {s: published[s] for s in common}, stand_in
        events, own = event_shapes(abi), event_shapes(compiled[stand_in].abi)
        assert {s: own[s] for s in set(own) & set(events)} == {s: events[s] for s in set(own) & set(events)}
