"""Compound v2 (`compound-v2`) against the stand-ins of tests/compound_v2_world.py, read through
Venus's package (adapters/compound_v2). Every figure is held to what the contracts say
at the answer's block: `balanceOfUnderlying` and `borrowBalanceCurrent` (run by an eth_call), the
markets' rates over the declared year, what `claimComp` pays (tests/contracts/TestVenusClaim.sol),
and the liquidation price to `getAccountLiquidity`'s shortfall on either side of it."""

from __future__ import annotations

import functools
import json
import math
import subprocess
from fractions import Fraction

import eth_abi
import pytest

from adapters.venus import contracts
from tests import compound_v2_world as C
from tests.conftest import proxied_api, query_positions, world_fixture
from tests.evm import CONTRACTS, SDKS, calldata, compile_contracts, function_signatures, selector

QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on CompoundV2WalletPositions { blockNumber warnings { code message target }
    accountState { pool comptroller totalSupplyUsd totalDebtUsd netWorthUsd liquidityUsd shortfallUsd healthFactor
      risk { healthFactor liquidationPrices { asset { symbol } priceUsd priceInLoanAsset } oracle { address } } }
    supplyPositions { type comptroller cToken currency { symbol decimals } balance balanceUsd cTokenBalance apy
      isCollateral canBeCollateral collateralFactor liquidationThreshold }
    borrowPositions { type comptroller cToken currency { symbol decimals } debt debtUsd apy }
    rewardPositions { type comptroller distributor rewardToken { address symbol } accrued accruedUsd } } }
  errors { error { code message } } } }"""

world = world_fixture(C.build)


def at(world: C.CompoundV2World, block: int, to: str, signature: str, *args):
    """A call at `block`, view or not (eth_call runs a cToken's accrual with no effect)."""
    return world.node.call(to, signature, *args, block=block)


async def answer_of(client, wallet):
    answer = await query_positions(client, QUERY, "compound-v2", [wallet], 31337)
    assert answer["errors"] == []
    (entry,) = answer["data"]
    return entry


async def test_amounts_are_the_markets_own_at_the_block(world_client, world):
    """The borrower's cETH supply is `balanceOfUnderlying` at the block (the chain's coin), its
    debts `borrowBalanceCurrent`, USD by the oracle's cToken prices; cETH, entered, is collateral
    at its factor."""
    borrower = world.wallets["borrower"]
    entry = await answer_of(world_client, borrower)
    block = entry["blockNumber"]
    (supply,) = entry["supplyPositions"]
    eth = world.markets["ETH"].ctoken
    assert (supply["type"], supply["cToken"], supply["comptroller"]) == ("compound-v2-supply", eth, world.comptroller)
    assert supply["currency"]["symbol"] == "ETH"
    assert supply["balance"] == str(at(world, block, eth, "balanceOfUnderlying(address)", borrower))
    assert supply["cTokenBalance"] == str(at(world, block, eth, "balanceOf(address)", borrower))
    assert supply["balanceUsd"] == pytest.approx(int(supply["balance"]) * 3000 / 1e18, rel=1e-12)
    assert (supply["isCollateral"], supply["collateralFactor"], supply["liquidationThreshold"]) == (True, 0.825, 0.825)
    debts = {p["currency"]["symbol"]: p for p in entry["borrowPositions"]}
    assert set(debts) == {"USDC", "DAI"}
    for symbol, position in debts.items():
        ctoken = world.markets[symbol].ctoken
        debt = at(world, block, ctoken, "borrowBalanceCurrent(address)", borrower)
        assert position["debt"] == str(debt) and position["type"] == "compound-v2-borrow", symbol
        assert debt > at(world, block, ctoken, "borrowBalanceStored(address)", borrower), "accrued to the block"
        assert position["debtUsd"] == pytest.approx(debt / 10 ** C.LISTINGS[symbol].decimals, rel=1e-12)
    state = entry["accountState"]
    assert (state["pool"], state["comptroller"]) == ("Compound v2", world.comptroller)
    assert [(w["code"], w["target"]) for w in entry["warnings"]] == [("FIGURE_UNAVAILABLE", world.comptroller)], (
        "two loan assets: no one prices its ETH's liquidation"
    )
    assert state["totalDebtUsd"] == pytest.approx(sum(p["debtUsd"] for p in debts.values()), rel=1e-12)


async def test_a_supply_not_entered_is_not_collateral(world_client, world):
    entry = await answer_of(world_client, world.wallets["saver"])
    (supply,) = entry["supplyPositions"]
    assert (supply["currency"]["symbol"], supply["isCollateral"], supply["canBeCollateral"]) == ("DAI", False, True)
    assert entry["accountState"]["risk"] is None and entry["borrowPositions"] == []


async def test_apys_compound_the_markets_rates_over_the_declared_year(world_client, world):
    """(1 + ratePerBlock / 1e18)^2,628,000 - 1: the chain's blocks, not the model's 2,102,400."""
    entry = await answer_of(world_client, world.wallets["borrower"])
    usdc = world.markets["USDC"].ctoken
    assert at(world, entry["blockNumber"], world.model, "blocksPerYear()") == 2_102_400
    (position,) = [p for p in entry["borrowPositions"] if p["cToken"] == usdc]
    rate = at(world, entry["blockNumber"], usdc, "borrowRatePerBlock()")
    assert rate > 0
    assert position["apy"] == pytest.approx(math.expm1(C.BLOCKS_PER_YEAR * math.log1p(rate / 1e18)), rel=1e-12)


def claimed(world: C.CompoundV2World, block: int, holder: str) -> int:
    """What the Comptroller's claimComp pays `holder` at `block` (TestVenusClaim, run by eth_call)."""
    probe = compile_contracts([CONTRACTS / "TestVenusClaim.sol"])["TestVenusClaim"]
    claim = calldata("claimComp(address)", holder)
    args = eth_abi.encode(["address", "address", "address", "bytes"], [world.comptroller, world.comp, holder, claim])
    return int(world.node.rpc("eth_call", {"data": probe.bytecode + args.hex()}, hex(block)), 16)


async def test_the_comp_owed_is_what_a_claim_pays_at_the_block(world_client, world):
    """compAccrued plus each held market's supply and borrow shares brought to the block, priced
    by the oracle's price of cCOMP (its underlying is COMP)."""
    for role in ("borrower", "saver", "lender"):
        entry = await answer_of(world_client, world.wallets[role])
        (reward,) = entry["rewardPositions"]
        paid = claimed(world, entry["blockNumber"], world.wallets[role])
        assert paid > 0 and reward["accrued"] == str(paid), role
        assert (reward["type"], reward["comptroller"], reward["distributor"]) == ("compound-v2-reward",) + (
            world.comptroller,
        ) * 2
        assert reward["rewardToken"] == {"address": world.comp, "symbol": "COMP"}
        assert reward["accruedUsd"] == pytest.approx(paid / 1e18 * 45, rel=1e-12)


async def test_the_liquidation_price_is_where_the_comptroller_finds_a_shortfall(world_client, world):
    """With every market accrued: ETH's answered liquidation price x (1 + 1e-6) leaves no
    shortfall, x (1 - 1e-6) makes one; the health factor is (liquidity + debt) / debt."""
    node, borrower = world.node, world.wallets["borrower"]
    eth = world.markets["ETH"].ctoken

    def liquidity() -> tuple[int, int]:
        _, excess, short = node.call(
            world.comptroller, "getAccountLiquidity(address)", borrower, returns=["uint256"] * 3
        )
        return excess, short

    snapshot = node.rpc("evm_snapshot")
    try:
        for market in world.markets.values():
            node.send(market.ctoken, "accrueInterest()")
        state = (await answer_of(world_client, borrower))["accountState"]
        excess, short = liquidity()
        assert short == 0 and state["liquidityUsd"] == pytest.approx(excess / 1e18, rel=1e-12)
        debt = state["totalDebtUsd"]
        assert state["healthFactor"] == pytest.approx((excess / 1e18 + debt) / debt, rel=1e-9)
        (found,) = state["risk"]["liquidationPrices"]
        assert found["asset"]["symbol"] == "ETH" and found["priceInLoanAsset"] is None, "it owes USDC and DAI"
        for factor, shortfall in ((1 + 1e-6, False), (1 - 1e-6, True)):
            price = round(Fraction(found["priceUsd"]) * Fraction(factor) * 10**18)
            node.send(world.oracle, "setUnderlyingPrice(address,uint256)", eth, price)
            assert (liquidity()[1] > 0) is shortfall, factor
    finally:
        node.rpc("evm_revert", snapshot)


async def test_an_account_is_read_in_one_round(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path):
    """The Comptroller, every market's snapshot, the held markets' reads, COMP and its price and
    the accruals: one CompoundV2Lens call, and no read outside it."""
    proxy, api = await proxied_api(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path)
    await answer_of(api, world.wallets["borrower"])
    world.node.mine()
    proxy.posts.clear()
    entry = await answer_of(api, world.wallets["borrower"])
    assert entry["rewardPositions"] and entry["borrowPositions"]
    calls = proxy.calls("eth_call")
    assert [call for call in calls if "to" in call["params"][0]] == [], "every read came from the tape"
    assert len(calls) == 1


PUBLISHED = {
    "COMPOUND_MARKETS": "Comptroller",
    "COMP_ACCRUED": "Comptroller",
    "COMP_ADDRESS": "Comptroller",
    "COMP_INITIAL_INDEX": "Comptroller",
    "COMP_SUPPLY_STATE": "Comptroller",
    "COMP_BORROW_STATE": "Comptroller",
    "COMP_SUPPLY_SPEED": "Comptroller",
    "COMP_BORROW_SPEED": "Comptroller",
    "COMP_SUPPLIER_INDEX": "Comptroller",
    "COMP_BORROWER_INDEX": "Comptroller",
    "ALL_MARKETS": "Comptroller",
    "ASSETS_IN": "Comptroller",
    "ORACLE": "Comptroller",
    "ACCOUNT_LIQUIDITY": "Comptroller",
    "ACCOUNT_SNAPSHOT": "cErc20",
    "EXCHANGE_RATE_CURRENT": "cErc20",
    "BORROW_BALANCE_CURRENT": "cErc20",
    "UNDERLYING": "cErc20",
    "SUPPLY_RATE": "cErc20",
    "BORROW_RATE": "cErc20",
    "TOTAL_BORROWS": "cErc20",
    "BORROW_INDEX": "cErc20",
    "VTOKEN_COMPTROLLER": "cErc20",
    "BORROW_GUARDIAN_PAUSED": "Comptroller",
    "BORROW_CAP": "Comptroller",
    "CASH": "cErc20",
    "TOTAL_RESERVES": "cErc20",
    "RESERVE_FACTOR": "cErc20",
    "TOTAL_BORROWS_CURRENT": "cErc20",
}
"""The views Compound v2 is read by, to compound-js 0.6.2's ABIs (tools/sdk)."""


@functools.cache
def compound_js_abis() -> dict[str, list[dict[str, object]]]:
    """compound-js's v2 ABIs (its `constants.abi`, a JavaScript module: read by node)."""
    script = "const c = require('@compound-finance/compound-js/dist/nodejs/constants.js');"
    script += (
        "console.log(JSON.stringify({Comptroller: c.abi.Comptroller, cErc20: c.abi.cErc20, cEther: c.abi.cEther}))"
    )
    done = subprocess.run(["node", "-e", script], cwd=SDKS.parent, capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout))


def compound_js_abi(name: str) -> dict[str, tuple[str, ...]]:
    return function_signatures(compound_js_abis()[name])


def test_every_view_and_stand_in_is_held_to_compound_js():
    """Each function the adapter calls on Compound v2, and each one the stand-ins answer that
    compound-js names, has compound-js's signature and output types."""
    for name, contract in PUBLISHED.items():
        function = getattr(contracts, name)
        assert compound_js_abi(contract).get(function.signature) == tuple(function.output_types), name
        assert selector(function.signature).hex() == function.selector, name
    compiled = compile_contracts([CONTRACTS / "TestCompoundV2.sol"])
    for stand_in, contract in (("TestCompoundComptroller", "Comptroller"), ("TestCToken", "cErc20")):
        published = compound_js_abi(contract)
        ours = function_signatures(compiled[stand_in].abi)
        common = set(ours) & set(published)
        assert len(common) >= 20, stand_in
        assert {s: ours[s] for s in common} == {s: published[s] for s in common}, stand_in
    ether = set(function_signatures(compiled["TestCToken"].abi)) & set(compound_js_abi("cEther"))
    assert {"mint()", "repayBorrow()"} <= ether, "cETH's payable entry points"


POOL = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) { data { blockNumber warnings { code message }
  details { ... on CompoundV2Pool { type name comptroller oracle markets { cToken asset { symbol } totalSupplied
    totalBorrowed utilization supplyApy borrowApy periodsPerYear collateralFactor liquidationThreshold isListed
    isBorrowAllowed reserveFactor borrowCap compSupplyPerBlock compBorrowPerBlock priceUsd } } } }
  errors { poolAddress error { code message } } } }"""


async def test_the_comptroller_or_a_ctoken_as_a_pool(world_client, world):
    """Totals accrued to the block by the markets' own accrual; terms from the three-field
    `markets()`; borrowing allowed while the borrow guardian has not paused it; COMP speeds a
    block; a cToken gives its market alone; another address is refused, saying what is expected."""
    usdc = world.markets["USDC"].ctoken
    addresses = (world.comptroller, usdc, "0x" + "77" * 20)
    inputs = [{"protocol": "compound-v2", "chainId": 31337, "poolAddress": address} for address in addresses]
    found = (await world_client.query(POOL, {"inputs": inputs})).body["data"]["poolDetails"]
    whole, alone = found["data"]
    assert whole["warnings"] == []
    details = whole["details"]
    assert (details["type"], details["name"], details["oracle"]) == ("compound-v2-pool", "Compound v2", world.oracle)
    rows = {row["cToken"]: row for row in details["markets"]}
    assert set(rows) == {m.ctoken for m in world.markets.values()}
    block = whole["blockNumber"]
    for symbol, listed in world.markets.items():
        row, listing = rows[listed.ctoken], C.LISTINGS[symbol]
        supply, rate = (
            at(world, block, listed.ctoken, "totalSupply()"),
            at(world, block, listed.ctoken, "exchangeRateCurrent()"),
        )
        assert row["totalSupplied"] == str(supply * rate // 10**18), symbol
        assert row["totalBorrowed"] == str(at(world, block, listed.ctoken, "totalBorrowsCurrent()")), symbol
        factor = listing.collateral_factor / 10**18
        assert (row["collateralFactor"], row["liquidationThreshold"], row["isListed"]) == (factor, factor, True)
        assert (row["isBorrowAllowed"], row["borrowCap"], row["periodsPerYear"]) == (True, "0", C.BLOCKS_PER_YEAR)
        assert (row["compSupplyPerBlock"], row["compBorrowPerBlock"]) == (
            str(listing.supply_speed),
            str(listing.borrow_speed),
        )
    assert rows[usdc]["utilization"] > 0 and rows[usdc]["borrowApy"] > rows[usdc]["supplyApy"] > 0
    assert alone["details"]["markets"] == [rows[usdc]]
    (refused,) = found["errors"]
    assert refused["error"]["code"] == "VALIDATION_ERROR" and world.comptroller in refused["error"]["message"]
