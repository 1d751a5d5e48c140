"""Venus's core pool (`venus`) against Venus's own contracts: the world of tests/venus_world.py
deploys `@venusprotocol/venus-protocol`'s Diamond Comptroller, vTokens and rate model. Every figure
is held to what those contracts say at the answer's block: `balanceOfUnderlying` and
`borrowBalanceCurrent` (run by an eth_call), the rate model's rates and year, what `claimVenus`
pays (tests/contracts/TestVenusClaim.sol), and the liquidation price to `getAccountLiquidity`'s
shortfall with the collateral's price just above and just below it.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import eth_abi
import pytest

from adapters.venus import contracts
from tests import venus_world as V
from tests.conftest import proxied_api, query_positions, world_fixture
from tests.evm import CONTRACTS, calldata, compile_contracts, function_signatures, selector
from tests.node_oracles import pack

QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on VenusWalletPositions { blockNumber warnings { code message target }
    poolStates { pool comptroller totalSupplyUsd totalDebtUsd netWorthUsd liquidityUsd shortfallUsd healthFactor
      risk { healthFactor liquidationLoanToValue liquidationPrices { asset { symbol } priceUsd priceInLoanAsset }
        oracle { address } } }
    supplyPositions { type comptroller vToken currency { symbol decimals } balance balanceUsd vTokenBalance apy
      isCollateral canBeCollateral collateralFactor liquidationThreshold }
    borrowPositions { type comptroller vToken currency { symbol } debt debtUsd apy }
    rewardPositions { type comptroller distributor rewardToken { address symbol } accrued accruedUsd } } }
  errors { error { code message } } } }"""

world = world_fixture(V.build)


def at(world: V.VenusWorld, block: int, to: str, signature: str, *args, returns=("uint256",)):
    """A call at `block`, view or not (eth_call runs a vToken's accrual with no effect)."""
    return world.node.call(to, signature, *args, returns=returns, block=block)


async def answer_of(client, wallet, comptroller):
    """The wallet's answer, narrowed to one pool's (`comptroller`) state (`marketState`, None where
    it holds nothing there) and positions; its warnings, whole."""
    answer = await query_positions(client, QUERY, "venus", [wallet], 31337)
    assert answer["errors"] == []
    (entry,) = answer["data"]
    states = [state for state in entry["poolStates"] if state["comptroller"] == comptroller]
    ours = {side: [p for p in entry[side] if p["comptroller"] == comptroller] for side in SIDES}
    return {**entry, **ours, "marketState": states[0] if states else None}


SIDES = ("supplyPositions", "borrowPositions", "rewardPositions")


async def test_amounts_are_the_markets_own_at_the_block(world_client, world):
    """A supply is what `balanceOfUnderlying` says at the block, a debt what `borrowBalanceCurrent`
    says (both accrue the market first); USD by the pool's oracle; the supplies of entered markets
    are collateral."""
    borrower = world.wallets["borrower"]
    entry = await answer_of(world_client, borrower, world.comptroller)
    block = entry["blockNumber"]
    assert sorted((w["code"], w["target"]) for w in entry["warnings"]) == [
        ("FIGURE_UNAVAILABLE", world.comptroller),  # USDT and VAI: no one loan asset prices the collateral
        ("NO_LIQUIDATION_PRICE", world.comptroller),  # its BTCB alone covers the debt: no fall of ETH's does
    ]
    supplies = {p["currency"]["symbol"]: p for p in entry["supplyPositions"]}
    assert set(supplies) == {"BTCB", "ETH"}
    for symbol, position in supplies.items():
        vtoken = world.markets[symbol].vtoken
        assert position["vToken"] == vtoken and position["type"] == "venus-supply"
        assert position["balance"] == str(at(world, block, vtoken, "balanceOfUnderlying(address)", borrower))
        assert position["vTokenBalance"] == str(at(world, block, vtoken, "balanceOf(address)", borrower))
        price = at(world, block, world.oracle, "getUnderlyingPrice(address)", vtoken)
        assert position["balanceUsd"] == pytest.approx(int(position["balance"]) * price / 10**36, rel=1e-12)
        assert (position["isCollateral"], position["canBeCollateral"]) == (True, True)
        assert (position["collateralFactor"], position["liquidationThreshold"]) == (0.8, 0.85)
    borrow, vai = entry["borrowPositions"]
    owed = at(world, block, world.vai_controller, "getVAIRepayAmount(address)", borrower)
    assert (vai["type"], vai["vToken"], vai["currency"]["symbol"]) == ("venus-vai", world.vai_controller, "VAI")
    assert vai["debt"] == str(owed) == str(V.VAI_MINTED) and vai["debtUsd"] == owed / 10**18, (
        "what the Comptroller counts: the controller's stored interest, none accrued since its last accrual"
    )
    usdt = world.markets["USDT"].vtoken
    debt = at(world, block, usdt, "borrowBalanceCurrent(address)", borrower)
    assert borrow["debt"] == str(debt) and debt > 20_000 * V.ETHER, "interest accrued to the block"
    assert borrow["debtUsd"] == pytest.approx(debt / 10**18, rel=1e-12)


async def test_a_supply_in_a_market_not_entered_is_not_collateral(world_client, world):
    saver = world.wallets["saver"]
    entry = await answer_of(world_client, saver, world.comptroller)
    (supply,) = entry["supplyPositions"]
    assert (supply["isCollateral"], supply["canBeCollateral"]) == (False, True)
    assert entry["marketState"]["risk"] is None and entry["borrowPositions"] == []


async def test_apys_compound_the_models_per_block_rates(world_client, world):
    """(1 + ratePerBlock / 1e18)^blocksPerYear - 1, the rates and the year the market's own model gives."""
    borrower, saver = world.wallets["borrower"], world.wallets["saver"]
    borrowed = await answer_of(world_client, borrower, world.comptroller)
    saved = await answer_of(world_client, saver, world.comptroller)
    usdt = world.markets["USDT"].vtoken
    year = at(world, saved["blockNumber"], world.irm, "blocksPerYear()")
    assert year == V.BLOCKS_PER_YEAR
    for entry, side, view in (
        (saved, "supplyPositions", "supplyRatePerBlock()"),
        (borrowed, "borrowPositions", "borrowRatePerBlock()"),
    ):
        (position,) = [p for p in entry[side] if p["vToken"] == usdt]
        rate = at(world, entry["blockNumber"], usdt, view)
        assert rate > 0
        assert position["apy"] == pytest.approx(math.expm1(year * math.log1p(rate / 1e18)), rel=1e-12)


def claimed(world: V.VenusWorld, block: int, payer: str, token: str, holder: str) -> int:
    """What `payer`'s own claim pays `holder` at `block` (TestVenusClaim, run by eth_call): the core
    pool's claimVenus, a RewardsDistributor's claimRewardToken."""
    probe = compile_contracts([CONTRACTS / "TestVenusClaim.sol"])["TestVenusClaim"]
    signature = "claimVenus(address)" if payer == world.comptroller else "claimRewardToken(address)"
    claim = calldata(signature, holder)
    args = eth_abi.encode(["address", "address", "address", "bytes"], [payer, token, holder, claim])
    answer = world.node.rpc("eth_call", {"data": probe.bytecode + args.hex()}, hex(block))
    return int(answer, 16)


async def test_the_xvs_owed_is_what_a_claim_pays_at_the_block(world_client, world):
    for role in ("borrower", "saver", "lender"):
        entry = await answer_of(world_client, world.wallets[role], world.comptroller)
        (reward,) = entry["rewardPositions"]
        assert reward["distributor"] == world.comptroller
        paid = claimed(world, entry["blockNumber"], world.comptroller, world.xvs, world.wallets[role])
        assert paid > 0 and reward["accrued"] == str(paid), role
        assert reward["rewardToken"] == {"address": world.xvs, "symbol": "XVS"}
        assert reward["accruedUsd"] == pytest.approx(paid / 10**18 * V.XVS_USD / 10**18, rel=1e-12), (
            "by the pool's oracle"
        )


async def liquidation_holds(client, world, comptroller, vtokens, symbol, set_price) -> None:
    """With the pool's markets (`vtokens`) accrued, so its Comptroller's stored balances are the
    answer's: `symbol`'s answered liquidation price x (1 + 1e-6) leaves no shortfall, x (1 - 1e-6)
    makes one (`set_price(price)` sets it, USD x 1e18); the health factor is
    getAccountLiquidity's (liquidity + debt) / debt."""
    node, borrower = world.node, world.wallets["borrower"]

    def liquidity() -> tuple[int, int]:
        _, excess, shortfall = node.call(comptroller, "getAccountLiquidity(address)", borrower, returns=["uint256"] * 3)
        return excess, shortfall

    snapshot = node.rpc("evm_snapshot")
    try:
        for vtoken in vtokens:
            node.send(vtoken, "accrueInterest()")
        state = (await answer_of(client, borrower, comptroller))["marketState"]
        excess, shortfall = liquidity()
        assert shortfall == 0 and state["liquidityUsd"] == pytest.approx(excess / 1e18, rel=1e-12)
        assert state["healthFactor"] == pytest.approx(
            (excess / 1e18 + state["totalDebtUsd"]) / state["totalDebtUsd"], rel=1e-9
        )
        (found,) = [p for p in state["risk"]["liquidationPrices"] if p["asset"]["symbol"] == symbol]
        for factor, short in ((1 + 1e-6, False), (1 - 1e-6, True)):
            set_price(round(Fraction(found["priceUsd"]) * Fraction(factor) * 10**18))
            assert (liquidity()[1] > 0) is short, factor
    finally:
        node.rpc("evm_revert", snapshot)


async def test_the_liquidation_price_is_where_the_comptroller_finds_a_shortfall(world_client, world):
    """BTCB's, in the core pool (see liquidation_holds)."""
    btcb = world.markets["BTCB"].underlying
    await liquidation_holds(
        world_client,
        world,
        world.comptroller,
        [m.vtoken for m in world.markets.values()],
        "BTCB",
        lambda price: world.node.send(world.oracle, "setDirectPrice(address,uint256)", btcb, price),
    )


PUBLISHED = {
    "ALL_MARKETS": "MarketFacet",
    "ASSETS_IN": "MarketFacet",
    "ORACLE": "MarketFacet",
    "MARKETS": "MarketFacet",
    "EFFECTIVE_LTV_FACTOR": "MarketFacet",
    "XVS_ADDRESS": "MarketFacet",
    "ACCOUNT_LIQUIDITY": "PolicyFacet",
    "VENUS_ACCRUED": "RewardFacet",
    "SUPPLY_STATE": "RewardFacet",
    "BORROW_STATE": "RewardFacet",
    "SUPPLY_SPEED": "RewardFacet",
    "BORROW_SPEED": "RewardFacet",
    "SUPPLIER_INDEX": "RewardFacet",
    "BORROWER_INDEX": "RewardFacet",
    "INITIAL_INDEX": "RewardFacet",
    "ACCOUNT_SNAPSHOT": "VBep20Delegate",
    "EXCHANGE_RATE_CURRENT": "VBep20Delegate",
    "BORROW_BALANCE_CURRENT": "VBep20Delegate",
    "UNDERLYING": "VBep20Delegate",
    "SUPPLY_RATE": "VBep20Delegate",
    "BORROW_RATE": "VBep20Delegate",
    "INTEREST_RATE_MODEL": "VBep20Delegate",
    "TOTAL_BORROWS": "VBep20Delegate",
    "BORROW_INDEX": "VBep20Delegate",
    "BORROW_BALANCE_STORED": "VBep20Delegate",
    "BLOCKS_PER_YEAR": "JumpRateModel",
    "UNDERLYING_PRICE": "PriceOracle",
    "ASSET_PRICE": "ResilientOracle",
    "VAI_CONTROLLER": "MarketFacet",
    "SUPPLY_CAP": "MarketFacet",
    "BORROW_CAP": "MarketFacet",
    "TOTAL_BORROWS_CURRENT": "VBep20Delegate",
    "CASH": "VBep20Delegate",
    "TOTAL_RESERVES": "VBep20Delegate",
    "RESERVE_FACTOR": "VBep20Delegate",
    "VAI_REPAY_AMOUNT": "VAIController",
    "VAI_ADDRESS": "VAIController",
    "VAI_RATE": "VAIController",
    "VAI_BLOCKS_PER_YEAR": "VAIController",
}


def test_every_core_view_is_held_to_the_published_abi():
    """Each core-pool function of contracts.py has the signature and output types of Venus's
    artifacts (tests/test_venus_pools.py holds the isolated pools' and that none is left out)."""
    resilient = pack("@venusprotocol/oracle")["artifacts/contracts/ResilientOracle.sol/ResilientOracle.json"]
    for name, contract in PUBLISHED.items():
        function = getattr(contracts, name)
        abi = json.loads(resilient)["abi"] if contract == "ResilientOracle" else V.artifact(contract)["abi"]
        published = function_signatures(abi)
        assert published.get(function.signature) == tuple(function.output_types), name
        assert selector(function.signature).hex() == function.selector, name


async def test_an_account_is_read_in_one_round(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path):
    """The pools, every market's snapshot, the held markets' reads, the reward tokens' prices and
    the accruals: one VenusLens call (the core pool) and one VenusPoolsLens call (the isolated
    pools), and no read outside them."""
    proxy, api = await proxied_api(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path)
    await answer_of(api, world.wallets["borrower"], world.comptroller)
    world.node.mine()
    proxy.posts.clear()
    entry = await answer_of(api, world.wallets["borrower"], world.comptroller)
    assert entry["rewardPositions"] and entry["borrowPositions"] and len(entry["poolStates"]) == 3
    calls = proxy.calls("eth_call")
    assert [call for call in calls if "to" in call["params"][0]] == [], "every read came from the tape"
    assert len(calls) == 2


POOL = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) { data { blockNumber warnings { code message }
  details { ... on VenusPool { type name comptroller oracle markets { vToken asset { symbol } totalSupplied
    totalSuppliedUsd totalBorrowed utilization supplyApy borrowApy periodsPerYear collateralFactor liquidationThreshold
    isListed isBorrowAllowed reserveFactor supplyCap borrowCap
    rewardSpeeds { payer rewardToken supplyPerPeriod borrowPerPeriod } priceUsd } } } }
  errors { poolAddress error { code message } } } }"""


async def test_the_pool_by_its_comptroller_or_a_market_by_its_vtoken(world_client, world):
    """Totals accrued to the block as the markets' own accrual gives them; terms as `markets()`
    says; a vToken gives its market alone; another address is refused, saying what is expected."""
    usdt = world.markets["USDT"].vtoken
    reply = await world_client.query(
        POOL,
        {
            "inputs": [
                {"protocol": "venus", "chainId": 31337, "poolAddress": address}
                for address in (world.comptroller, usdt, "0x" + "77" * 20)
            ]
        },
    )
    found = reply.body["data"]["poolDetails"]
    whole, alone = found["data"]
    assert whole["warnings"] == [] and whole["details"]["oracle"] == world.oracle
    assert whole["details"]["name"] == "Core Pool"
    rows = {row["vToken"]: row for row in whole["details"]["markets"]}
    assert set(rows) == {m.vtoken for m in world.markets.values()}
    block = whole["blockNumber"]
    for symbol, listed in world.markets.items():
        row = rows[listed.vtoken]
        supply = at(world, block, listed.vtoken, "totalSupply()")
        rate = at(world, block, listed.vtoken, "exchangeRateCurrent()")
        assert row["totalSupplied"] == str(supply * rate // 10**18), symbol
        assert row["totalBorrowed"] == str(at(world, block, listed.vtoken, "totalBorrowsCurrent()")), symbol
        assert (row["isListed"], row["isBorrowAllowed"]) == (True, True)
        assert row["liquidationThreshold"] == V.LISTINGS[symbol].liquidation_threshold / 10**18
    assert rows[usdt]["utilization"] > 0 and rows[usdt]["borrowApy"] > rows[usdt]["supplyApy"] > 0
    assert rows[usdt]["periodsPerYear"] == V.BLOCKS_PER_YEAR
    speeds = {"supplyPerPeriod": str(V.LISTINGS["USDT"].supply_speed), "borrowPerPeriod": str(2 * 10**16)}
    assert rows[usdt]["rewardSpeeds"] == [{"payer": world.comptroller, "rewardToken": world.xvs, **speeds}]
    assert alone["details"]["markets"] == [rows[usdt]]
    (refused,) = found["errors"]
    assert refused["error"]["code"] == "VALIDATION_ERROR" and world.comptroller in refused["error"]["message"]
