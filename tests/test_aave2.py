"""Aave v2 (`aave` markets declared `"version": 2`) against Aave's own contracts and math: the
world of tests/aave2_world.py deploys `@aave/protocol-v2`'s LendingPool, data provider, oracle and
tokens and `@aave/aave-stake`'s incentives controller. Every figure is held to what those
contracts' views say at the answer's block (balances, the account's totals and health factor,
what a wallet may claim) or to `@aave/math-utils` (APYs, incentive APRs); USD through the chain's
ETH/USD feed where the market prices in ETH.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

import eth_abi
import pytest

from adapters.aave import contracts
from tests import aave2_world as W
from tests import test_aave as aave_tests
from tests.conftest import proxied_api, query_pools, query_positions, world_api, world_fixture
from tests.evm import arg_types, function_signatures, selector
from tests.node_oracles import aave_apys, aave_incentive_aprs
from tests.test_aave import output_names, published_names

QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on AaveWalletPositions { blockNumber warnings { code message target }
    marketStates { marketAddress marketName version netWorthUsd totalCollateralUsd totalDebtUsd
      availableBorrowsUsd healthFactor ltv liquidationThreshold eModeCategoryId
      risk { healthFactor liquidationLoanToValue oracle { address }
        liquidationPrices { asset { symbol } priceUsd priceInLoanAsset } } }
    supplyPositions { marketName currency { symbol decimals } balance balanceUsd apy isCollateral canBeCollateral
      rewards { token { address symbol } apr endsAt } }
    borrowPositions { marketName currency { symbol } debt debtUsd apy rewards { token { address symbol } apr endsAt } }
    rewardPositions { type marketAddress controller rewardToken { address symbol } accrued accruedUsd } } }
  errors { error { code message } } } }"""
POOL = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) { data { blockNumber
  warnings { code message } details { ... on AaveMarketPool { type marketName version pool reserves {
    asset { symbol } totalSupplied totalSuppliedUsd totalBorrowed supplyApy borrowApy supplyCap borrowCap
    isPaused ltv liquidationThreshold usageAsCollateralEnabled priceUsd supplyRewards { apr } } } } }
  errors { error { code message } } } }"""
ETH_USD = Fraction(W.ETH_USD, 10**8)

world = world_fixture(W.build)


class Expected:
    """The contracts' own views at one block."""

    def __init__(self, world: W.Aave2World, block: int) -> None:
        self.node, self.block = world.node, block

    def call(self, to, signature, *args, returns=("uint256",)):
        return self.node.call(to, signature, *args, returns=returns, block=self.block)

    def user(self, market, symbol, wallet):
        return self.call(
            market.data_provider,
            "getUserReserveData(address,address)",
            market.tokens[symbol],
            wallet,
            returns=["uint256"] * 7 + ["uint40", "bool"],
        )

    def reserve(self, market, symbol):
        return self.call(
            market.data_provider,
            "getReserveData(address)",
            market.tokens[symbol],
            returns=["uint256"] * 9 + ["uint40"],
        )

    def account(self, market, wallet):
        return self.call(market.pool, "getUserAccountData(address)", wallet, returns=["uint256"] * 6)

    def usd(self, market, symbol, amount):
        """amount in USD by the market's oracle: wei per whole token times ETH/USD (ETH market),
        or its price over its unit (USD market)."""
        price = self.call(market.oracle, "getAssetPrice(address)", market.tokens[symbol])
        decimals = W.ETH_RESERVES.get(symbol, W.USD_RESERVES.get(symbol)).decimals
        base = ETH_USD / 10**18 if market.name == "AaveV2TestEth" else Fraction(1, W.USD_UNIT)
        return float(Fraction(amount * price, 10**decimals) * base)


async def answer_of(client, wallet):
    answer = await query_positions(client, QUERY, "aave", [wallet], 31337)
    assert answer["errors"] == []
    (entry,) = answer["data"]
    return entry


async def test_a_borrower_in_an_eth_market_is_valued_through_the_eth_feed(world_client, world):
    """Balances are the data provider's, accrued to the block; USD is the oracle's wei price times
    the chain's ETH/USD feed; the account's totals and health factor are getUserAccountData's."""
    eth, usd = world.markets
    borrower = world.wallets["borrower"]
    entry = await answer_of(world_client, borrower)
    assert [(w["code"], w["target"]) for w in entry["warnings"]] == [("FIGURE_UNAVAILABLE", eth.pool)], (
        "owing USDC and DAI there, it has no one loan asset to price its liquidation in"
    )
    assert [s["risk"]["liquidationPrices"][0]["priceInLoanAsset"] is None for s in entry["marketStates"]] == [
        True,
        False,
    ]
    expected = Expected(world, entry["blockNumber"])
    supplies = {(p["marketName"], p["currency"]["symbol"]): p for p in entry["supplyPositions"]}
    borrows = {(p["marketName"], p["currency"]["symbol"]): p for p in entry["borrowPositions"]}
    assert set(supplies) == {(eth.name, "WETH"), (eth.name, "RWD"), (usd.name, "WETH")}
    assert set(borrows) == {(eth.name, "USDC"), (eth.name, "DAI"), (usd.name, "USDC")}
    for (name, symbol), position in supplies.items():
        market = eth if name == eth.name else usd
        balance = expected.user(market, symbol, borrower)[0]
        assert position["balance"] == str(balance)
        assert position["balanceUsd"] == pytest.approx(expected.usd(market, symbol, balance), rel=1e-12)
    for (name, symbol), position in borrows.items():
        market = eth if name == eth.name else usd
        _, stable, variable, *_ = expected.user(market, symbol, borrower)
        assert position["debt"] == str(stable + variable) and stable + variable > 0
        assert position["debtUsd"] == pytest.approx(expected.usd(market, symbol, stable + variable), rel=1e-12)
    states = {s["marketName"]: s for s in entry["marketStates"]}
    for market, base in ((eth, ETH_USD / 10**18), (usd, Fraction(1, W.USD_UNIT))):
        state = states[market.name]
        collateral, debt, available, threshold, ltv, health = expected.account(market, borrower)
        assert state["version"] == 2 and state["eModeCategoryId"] == 0
        assert state["totalCollateralUsd"] == pytest.approx(float(collateral * base), rel=1e-12)
        assert state["totalDebtUsd"] == pytest.approx(float(debt * base), rel=1e-12)
        assert state["availableBorrowsUsd"] == pytest.approx(float(available * base), rel=1e-12)
        assert state["healthFactor"] == pytest.approx(health / 1e18, rel=1e-12)
        assert (state["ltv"], state["liquidationThreshold"]) == (ltv / 1e4, threshold / 1e4)


async def test_collateral_is_what_v2_counts(world_client, world):
    """A supply counts when its flag is set and its reserve's threshold is not 0: RWD (threshold 0)
    is flagged by the first deposit yet counts for nothing, as getUserAccountData shows; the
    saver's WETH, unflagged, could count."""
    eth, _ = world.markets
    borrower, saver = world.wallets["borrower"], world.wallets["saver"]
    (borrowed, saved) = [await answer_of(world_client, w) for w in (borrower, saver)]
    expected = Expected(world, borrowed["blockNumber"])
    flags = {p["currency"]["symbol"]: (p["isCollateral"], p["canBeCollateral"]) for p in borrowed["supplyPositions"]}
    assert expected.user(eth, "RWD", borrower)[8] is True, "v2 flags a first deposit, whatever its threshold"
    assert flags["RWD"] == (False, False)
    weth = expected.user(eth, "WETH", borrower)[0]
    assert expected.account(eth, borrower)[0] == weth * 10**18 // 10**18, "only WETH counts"
    saver_flags = {p["currency"]["symbol"]: (p["isCollateral"], p["canBeCollateral"]) for p in saved["supplyPositions"]}
    assert saver_flags == {"USDC": (True, True), "WETH": (False, True)}
    assert saved["marketStates"][0]["risk"] is None and saved["marketStates"][0]["healthFactor"] is None


async def test_apys_are_math_utils_and_a_borrow_weighs_its_stable_rate(world_client, world):
    """Supply and variable APYs from the reserve's ray rates as math-utils compounds them; a stable
    borrow at the wallet's own stable rate (getUserReserveData), the debts weighted."""
    eth, _ = world.markets
    borrower = world.wallets["borrower"]
    entry = await answer_of(world_client, borrower)
    expected = Expected(world, entry["blockNumber"])
    saved = await answer_of(world_client, world.wallets["saver"])
    usdc = next(p for p in saved["supplyPositions"] if p["currency"]["symbol"] == "USDC")
    liquidity_rate = Expected(world, saved["blockNumber"]).reserve(eth, "USDC")[3]
    (supply_apy,) = aave_apys([liquidity_rate])
    assert usdc["apy"] == pytest.approx(supply_apy, rel=1e-9) and usdc["apy"] > 0
    dai = next(p for p in entry["borrowPositions"] if p["marketName"] == eth.name and p["currency"]["symbol"] == "DAI")
    _, stable, variable, _, _, stable_rate, *_ = expected.user(eth, "DAI", borrower)
    assert stable > 0 and variable == 0
    (stable_apy,) = aave_apys([stable_rate])
    assert dai["apy"] == pytest.approx(stable_apy, rel=1e-9)
    usdc = next(
        p for p in entry["borrowPositions"] if p["marketName"] == eth.name and p["currency"]["symbol"] == "USDC"
    )
    (variable_apy,) = aave_apys([expected.reserve(eth, "USDC")[4]])
    assert usdc["apy"] == pytest.approx(variable_apy, rel=1e-9)


async def test_rewards_are_the_v2_controllers_own(world_client, world):
    """aWETH and USDC's variable debt earn RWD from the aave-stake controller: each APR as
    math-utils' calculateIncentiveAPR gives it (RWD priced by the market's own oracle), what the
    borrower may claim as the controller's getRewardsBalance."""
    eth, _ = world.markets
    incentives, borrower = eth.incentives, world.wallets["borrower"]
    entry = await answer_of(world_client, borrower)
    expected = Expected(world, entry["blockNumber"])
    rwd_usd = expected.usd(eth, "RWD", 10**18)
    for side, symbol, token, kind in (
        ("supplyPositions", "WETH", eth.atokens["WETH"], "a"),
        ("borrowPositions", "USDC", eth.variable_debt["USDC"], "v"),
    ):
        position = next(p for p in entry[side] if p["marketName"] == eth.name and p["currency"]["symbol"] == symbol)
        (reward,) = position["rewards"]
        emission, *_ = expected.call(incentives.controller, "assets(address)", token, returns=["uint256"] * 3)
        assert emission == incentives.emissions[token] > 0
        (apr,) = aave_incentive_aprs(
            [
                {
                    "side": kind,
                    "emissionPerSecond": str(emission),
                    "rewardPriceFeed": str(round(rwd_usd * 10**8)),
                    "priceFeedDecimals": 8,
                    "rewardTokenDecimals": 18,
                    "emissionEndTimestamp": incentives.end,
                    "incentivesLastUpdateTimestamp": expected.node.timestamp(),
                    "totalTokenSupply": str(expected.call(token, "totalSupply()")),
                    "price": repr(expected.usd(eth, symbol, 10 ** (18 if symbol == "WETH" else 6))),
                    "decimals": 18 if symbol == "WETH" else 6,
                }
            ]
        )
        assert reward["token"]["address"] == incentives.reward and reward["endsAt"] == incentives.end
        assert reward["apr"] == pytest.approx(apr, rel=1e-6), (side, symbol)
    tokens = [eth.atokens["WETH"], eth.variable_debt["USDC"]]
    owed = expected.call(incentives.controller, "getRewardsBalance(address[],address)", tokens, borrower)
    (claim,) = entry["rewardPositions"]
    assert claim["type"] == "aave-reward" and claim["controller"] == incentives.controller
    assert claim["rewardToken"] == {"address": incentives.reward, "symbol": "RWD"}
    assert claim["accrued"] == str(owed) and owed > 0
    assert claim["accruedUsd"] == pytest.approx(owed / 10**18 * rwd_usd, rel=1e-12)


async def test_the_liquidation_price_brings_the_health_factor_to_one(world_client, world):
    """In the USD market the borrower's one collateral, WETH, at its liquidation price makes
    Σ collateral x threshold equal the debt: a health factor of 1, by the Pool's own terms."""
    _, usd = world.markets
    entry = await answer_of(world_client, world.wallets["borrower"])
    expected = Expected(world, entry["blockNumber"])
    state = next(s for s in entry["marketStates"] if s["marketName"] == usd.name)
    (price,) = state["risk"]["liquidationPrices"]
    now = expected.usd(usd, "WETH", 10**18)
    assert price["asset"]["symbol"] == "WETH"
    assert state["risk"]["healthFactor"] * price["priceUsd"] / now == pytest.approx(1, rel=1e-9)
    assert state["risk"]["oracle"]["address"] == usd.oracle


async def test_a_v2_market_in_pool_details(world_client, world):
    """poolDetails of a v2 market by its provider: totals are the reserve's cash plus its debts,
    APYs as positions give them, caps 0 (v2 has none), paused as its Pool."""
    eth, _ = world.markets
    answer = await query_pools(world_client, POOL, "aave", [eth.provider], 31337)
    assert answer["errors"] == []
    ((found,),) = [[entry] for entry in answer["data"]]
    assert found["warnings"] == []
    details = found["details"]
    assert (details["version"], details["marketName"], details["type"]) == (2, eth.name, "aave-market-pool")
    expected = Expected(world, found["blockNumber"])
    rows = {row["asset"]["symbol"]: row for row in details["reserves"]}
    assert set(rows) == set(W.ETH_RESERVES)
    for symbol, row in rows.items():
        cash, stable, variable, liquidity_rate, variable_rate, *_ = expected.reserve(eth, symbol)
        assert row["totalSupplied"] == str(cash + stable + variable)
        assert row["totalBorrowed"] == str(stable + variable)
        assert row["totalSuppliedUsd"] == pytest.approx(expected.usd(eth, symbol, cash + stable + variable), rel=1e-12)
        assert (row["supplyApy"], row["borrowApy"]) == pytest.approx(aave_apys([liquidity_rate, variable_rate]))
        assert (row["supplyCap"], row["borrowCap"], row["isPaused"]) == ("0", "0", False)
    assert rows["RWD"]["usageAsCollateralEnabled"] is False and rows["WETH"]["ltv"] == 0.8
    assert rows["WETH"]["supplyRewards"][0]["apr"] > 0
    assert rows["DAI"]["supplyRewards"] == [], "its aToken names the controller, which pays nothing on it"


async def test_without_an_eth_feed_the_usd_figures_are_null_and_named(
    aiohttp_client, keys_file, api_key, world, tmp_path
):
    """An ETH market on a chain whose data names no ETH/USD feed: amounts stay, every USD figure
    of that market is null, its state is left out, and warnings say why; the USD market answers."""
    override = world.addresses_override()
    del override[str(world.node.chain_id)]["currencyFeeds"]
    path = tmp_path / "a.json"
    path.write_text(json.dumps(override))
    api = await world_api(aiohttp_client, keys_file, api_key, path, world.node)
    eth, usd = world.markets
    entry = await answer_of(api, world.wallets["borrower"])
    assert [s["marketName"] for s in entry["marketStates"]] == [usd.name]
    for position in entry["supplyPositions"]:
        assert (position["balanceUsd"] is None) == (position["marketName"] == eth.name)
        assert position["balance"] != "0"
    codes = {(w["code"], w["target"]) for w in entry["warnings"]}
    assert ("FIGURE_UNAVAILABLE", eth.pool) in codes
    assert any("ETH/USD feed" in w["message"] for w in entry["warnings"])


V2_VIEWS = {
    "V2_RESERVE_DATA": ("@aave/protocol-v2", "AaveProtocolDataProvider"),
    "POOL_PAUSED": ("@aave/protocol-v2", "LendingPool"),
    "V2_ASSETS": ("@aave/aave-stake", "AaveIncentivesController"),
    "REWARD_TOKEN": ("@aave/aave-stake", "AaveIncentivesController"),
    "DISTRIBUTION_END": ("@aave/aave-stake", "AaveIncentivesController"),
    "REWARDS_BALANCE": ("@aave/aave-stake", "AaveIncentivesController"),
    "STAKED_TOKEN": ("@aave/aave-stake", "StakedAave"),
}
"""v2's own views, from the artifacts Aave publishes for v2 and its incentives; the views v2
shares with v3 (same selectors and layouts) are held to v2's ABI below too."""
SHARED_WITH_V3 = {
    "RESERVES_LIST": "LendingPool",
    "USER_ACCOUNT_DATA": "LendingPool",
    "USER_RESERVE_DATA": "AaveProtocolDataProvider",
    "RESERVE_CONFIGURATION": "AaveProtocolDataProvider",
    "RESERVE_TOKENS": "AaveProtocolDataProvider",
    "GET_PRICE_ORACLE": "LendingPoolAddressesProvider",
    "ASSET_PRICE": "AaveOracle",
    "SOURCE_OF_ASSET": "AaveOracle",
    "INCENTIVES_CONTROLLER": "AToken",
}


def v2_signature(contract: str, name: str) -> tuple[str, tuple[str, ...]]:
    """A function's signature and output types as Aave's v2 artifacts (then aave-stake's) publish it."""
    (found,) = [
        (text, outputs)
        for text, outputs in function_signatures(W.artifact(contract)["abi"]).items()
        if text.startswith(f"{name}(")
    ]
    return found


def test_the_v2_views_are_held_to_the_published_abis():
    """Every v2 view the adapter calls (those test_aave.py counts as v2's) has the signature and
    output types of Aave's v2 artifacts (and names where they name them); `assets` is read by its
    first field only (see contracts)."""
    assert set(V2_VIEWS) == aave_tests.V2_VIEWS
    for name, (_, contract) in V2_VIEWS.items():
        function = getattr(contracts, name)
        signature, outputs = v2_signature(contract, function.name)
        assert signature == function.signature, name
        if name == "V2_ASSETS":  # uint128 or uint104, uint128 or uint40, uint256: read as words
            assert len(outputs) == 3 and all(o.startswith("uint") for o in outputs)
            continue
        assert outputs == tuple(function.output_types), name
        names = published_names(W.artifact(contract)["abi"], function.name)
        if all(names):
            assert names == output_names(function), name
    for name, contract in SHARED_WITH_V3.items():
        function = getattr(contracts, name)
        assert v2_signature(contract, function.name) == (function.signature, tuple(function.output_types)), name


async def test_a_v2_borrower_is_read_in_one_round(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path):
    """Both v2 markets, their reserves, incentives and what the wallet may claim: one AaveLens
    call, with the ETH/USD feed's reads beside it in the same request, and no read outside them."""
    proxy, api = await proxied_api(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path)
    await answer_of(api, world.wallets["borrower"])
    world.node.mine()
    proxy.posts.clear()
    entry = await answer_of(api, world.wallets["borrower"])
    assert entry["rewardPositions"] and [w["code"] for w in entry["warnings"]] == ["FIGURE_UNAVAILABLE"]
    calls = proxy.calls("eth_call")
    outside = [call["params"][0]["to"] for call in calls if "to" in call["params"][0]]
    assert set(outside) <= {world.eth_usd}, "every read but the feed's came from the tape"
    rounds = [
        post for post in proxy.posts if any(call in (post if isinstance(post, list) else [post]) for call in calls)
    ]
    assert len(rounds) == 1, "in one round"


def v2_refusal(node, market, borrower: str, liquidator: str) -> str | None:
    """The reason v2's liquidationCall of some of the borrower's USDC against its WETH reverts
    with now (v2's LendingPool passes on its collateral manager's numbered message); None where it
    would liquidate."""
    signature = "liquidationCall(address,address,address,uint256,bool)"
    args = [market.tokens["WETH"], market.tokens["USDC"], borrower, 100 * W.USDC, False]
    data = "0x" + (selector(signature) + eth_abi.encode(arg_types(signature), args)).hex()
    try:
        node.rpc("eth_call", {"from": liquidator, "to": market.pool, "data": data}, "latest")
    except RuntimeError as error:
        found = re.search(r"0x08c379a0([0-9a-fA-F]*)", str(error))  # Error(string)
        assert found, error
        (reason,) = eth_abi.decode(["string"], bytes.fromhex(found.group(1)))
        return str(reason)
    return None


async def test_the_pool_liquidates_just_below_the_answered_price(world_client, world):
    """The USD market's WETH liquidation price, held to v2's own liquidationCall: with WETH's
    source at that price x (1 + 1e-6) it refuses with 42 (LPCM_HEALTH_FACTOR_NOT_BELOW_THRESHOLD),
    at x (1 - 1e-6) it liquidates."""
    _, usd = world.markets
    node, borrower, liquidator = world.node, world.wallets["borrower"], world.wallets["lender"]
    entry = await answer_of(world_client, borrower)
    state = next(s for s in entry["marketStates"] if s["marketName"] == usd.name)
    (price,) = state["risk"]["liquidationPrices"]
    snapshot = node.rpc("evm_snapshot")
    try:
        node.send(usd.tokens["USDC"], "mint(uint256)", 1_000 * W.USDC, sender=liquidator)
        node.send(usd.tokens["USDC"], "approve(address,uint256)", usd.pool, 2**256 - 1, sender=liquidator)
        for factor, refused in ((1 + 1e-6, "42"), (1 - 1e-6, None)):
            answer = round(Fraction(price["priceUsd"]) * factor * W.USD_UNIT)
            node.rpc("anvil_setStorageAt", usd.sources["WETH"], "0x0", "0x" + answer.to_bytes(32, "big").hex())
            assert node.call(usd.oracle, "getAssetPrice(address)", usd.tokens["WETH"]) == answer
            assert v2_refusal(node, usd, borrower, liquidator) == refused, factor
    finally:
        node.rpc("evm_revert", snapshot)
