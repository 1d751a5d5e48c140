"""The Aave v3.6 world (tests/aave36_world.py) builds and its Pool says what the world promises;
then the service's isCollateral and canBeCollateral on it (e-mode-only collateral, an ltvzero
asset, a wallet outside e-mode), each checked against the Pool itself: its collateral total, and
whether it refuses to enable what canBeCollateral says it would."""

from __future__ import annotations

from fractions import Fraction

import pytest

from adapters.aave import contracts
from tests import aave36_world as W
from tests.conftest import query_positions, world_api, world_fixture
from tests.evm import CONTRACTS, compile_contracts, function_signatures
from tests.test_aave import POOL_QUERY, QUERY, output_names, published_names

ACCOUNT_DATA = ["uint256"] * 6  # collateral, debt, available borrows (base), LT, LTV, health factor


world = world_fixture(W.build)


def account(world, role):
    return world.node.call(world.pool, "getUserAccountData(address)", world.wallets[role], returns=ACCOUNT_DATA)


def flags(world, role):
    return world.node.call(world.pool, "getUserConfiguration(address)", world.wallets[role])


def collateral(world, role, symbol):
    return bool(flags(world, role) >> (2 * world.reserve_ids[symbol] + 1) & 1)


def borrowing(world, role, symbol):
    return bool(flags(world, role) >> (2 * world.reserve_ids[symbol]) & 1)


def balance(world, token, role):
    return world.node.call(token, "balanceOf(address)", world.wallets[role])


def test_market_is_v36(world):
    node = world.node
    assert node.call(world.pool, "POOL_REVISION()") == 10
    assert node.call(world.provider, "getPool()", returns=["address"]).lower() == world.pool
    assert node.call(world.pool, "getReservesList()", returns=["address[]"]) == tuple(
        node.call(world.pool, "getReserveAddressById(uint16)", i, returns=["address"]) for i in range(3)
    )
    assert world.reserve_ids == {"A": 0, "B": 1, "C": 2}
    for symbol, (_, price) in W.ASSETS.items():
        assert node.call(world.oracle, "getAssetPrice(address)", world.tokens[symbol]) == price
    assert node.call(world.oracle, "BASE_CURRENCY_UNIT()") == 10**8
    assert node.call(world.oracle, "BASE_CURRENCY()", returns=["address"]) == W.ZERO


def test_emode_category(world):
    node, ids = world.node, world.reserve_ids
    collateral_bitmap = node.call(world.pool, "getEModeCategoryCollateralBitmap(uint8)", 1)
    ltvzero_bitmap = node.call(world.pool, "getEModeCategoryLtvzeroBitmap(uint8)", 1)
    borrowable_bitmap = node.call(world.pool, "getEModeCategoryBorrowableBitmap(uint8)", 1)
    assert collateral_bitmap == 1 << ids["B"] | 1 << ids["C"]
    assert ltvzero_bitmap == 1 << ids["C"]
    assert borrowable_bitmap == 1 << ids["A"]
    ltv, threshold, bonus = node.call(
        world.pool, "getEModeCategoryCollateralConfig(uint8)", 1, returns=["(uint16,uint16,uint16)"]
    )
    assert (ltv, threshold, bonus) == (9000, 9300, 10500)
    # B: no LTV and no liquidation threshold outside e-mode
    config = node.call(
        world.data_provider,
        "getReserveConfigurationData(address)",
        world.tokens["B"],
        returns=["uint256"] * 5 + ["bool"] * 5,
    )
    assert config[1:3] == (0, 0)


def test_emode_wallet(world):
    assert world.node.call(world.pool, "getUserEMode(address)", world.wallets["emode"]) == 1
    total_collateral, total_debt, _available, threshold, ltv, health = account(world, "emode")
    assert total_collateral > 0 and total_debt > 0
    assert collateral(world, "emode", "B") and collateral(world, "emode", "C") and borrowing(world, "emode", "A")
    assert not collateral(world, "emode", "A") and not borrowing(world, "emode", "B")
    # C (ltvzero in the category) still counts in the collateral, at the category's threshold, not in the LTV
    b = balance(world, world.a_tokens["B"], "emode") * 2_000 * 10**8 // 10**18
    c = balance(world, world.a_tokens["C"], "emode") * 1_500 * 10**8 // 10**18
    assert abs(total_collateral - (b + c)) <= 2
    assert ltv == (b * 9000) // (b + c)
    assert threshold == 9300
    debt = balance(world, world.debt_tokens["A"], "emode")
    assert 15_000 * W.USDC <= debt < 15_001 * W.USDC
    assert total_debt == debt * 10**8 // W.USDC
    assert health > 10**18


def test_plain_wallet_cannot_use_b(world):
    assert world.node.call(world.pool, "getUserEMode(address)", world.wallets["plain"]) == 0
    assert balance(world, world.a_tokens["B"], "plain") == 3 * W.ETHER
    assert not collateral(world, "plain", "B")
    assert flags(world, "plain") == 0
    assert account(world, "plain")[:2] == (0, 0)
    assert ("plain", "B", "UserInIsolationModeOrLtvZero") in world.refused


def test_late_emode_wallet_cannot_enable_c(world):
    assert collateral(world, "emode_late", "B")
    assert not collateral(world, "emode_late", "C")
    assert balance(world, world.a_tokens["C"], "emode_late") == 1 * W.ETHER
    assert world.refused == [
        ("plain", "B", "UserInIsolationModeOrLtvZero"),
        ("emode_late", "C", "UserInIsolationModeOrLtvZero"),
    ]


def test_ltvzero_rules(world):
    """With an ltvzero collateral, the Pool lets the wallet borrow more and withdraw C, but not withdraw
    B (the ltvzero asset must go first), nor leave e-mode (B has no LTV outside it)."""
    node, pool, wallet = world.node, world.pool, world.wallets["emode"]
    a, b, c = (world.tokens[s] for s in "ABC")
    withdraw, borrow = "withdraw(address,uint256,address)", "borrow(address,uint256,uint256,uint16,address)"
    assert W.revert_reason(node, pool, borrow, a, W.USDC, 2, 0, wallet, sender=wallet) is None
    assert W.revert_reason(node, pool, withdraw, c, W.ETHER // 10, wallet, sender=wallet) is None
    assert W.revert_reason(node, pool, withdraw, b, W.ETHER // 10, wallet, sender=wallet) == "LtvValidationFailed"
    assert W.revert_reason(node, pool, "setUserEMode(uint8)", 0, sender=wallet) == "InvalidCollateralInEmode"


def test_addresses_override(world):
    (market,) = world.addresses_override()["31337"]["aave"]
    assert market == {
        "name": world.name,
        "addressesProvider": world.provider,
        "pool": world.pool,
        "dataProvider": world.data_provider,
        "oracle": world.oracle,
    }


ENABLE = "setUserUseReserveAsCollateral(address,bool)"


@pytest.fixture
async def api(aiohttp_client, keys_file, api_key, world, tmp_path):
    return await world_api(aiohttp_client, keys_file, api_key, world.write_addresses(tmp_path / "a.json"), world.node)


async def test_collateral_as_the_v3_6_pool_decides(api, world):
    roles = ("emode", "plain", "emode_late")
    answers = (await query_positions(api, QUERY, "aave", [world.wallets[r] for r in roles], 31337))["data"]
    figures = {}
    for role, entry in zip(roles, answers):
        assert [(w["code"], w["message"][:23]) for w in entry["warnings"]] == (
            [("NO_LIQUIDATION_PRICE", "no fall of C's price al")] if role == "emode" else []
        ), "B alone covers the emode wallet's debt (10 B at $2,000 x 93 % against $15,000)"
        supplies = {p["currency"]["symbol"]: p for p in entry["supplyPositions"]}
        figures[role] = {symbol: (p["isCollateral"], p["canBeCollateral"]) for symbol, p in supplies.items()}
        (state,) = entry["marketStates"] or [{"totalCollateralUsd": 0.0}]
        assert sum(p["balanceUsd"] for p in supplies.values() if p["isCollateral"]) == pytest.approx(
            state["totalCollateralUsd"], rel=1e-9
        ), f"{role}: isCollateral is what the Pool counts"
        for symbol, (is_collateral, can_be) in figures[role].items():
            if not is_collateral:
                assert (
                    world.node.call_reverts(world.pool, ENABLE, world.tokens[symbol], True, sender=world.wallets[role])
                    is not can_be
                ), (role, symbol)
    assert figures == {
        "emode": {"B": (True, True), "C": (True, False)},
        "plain": {"B": (False, False)},
        "emode_late": {"B": (True, True), "C": (False, False)},
    }, (
        "B is collateral only in e-mode (threshold 0 outside it, so v3.5's rule would not count it); "
        "C's LTV is 0 in the category (ltvzero), so it cannot be enabled again"
    )


def test_the_e_mode_views_are_the_published_v3_6_abi():
    entries = W.compile_all()["PoolInstance"]["abi"]
    abi = function_signatures(entries)
    for function in (contracts.LTVZERO_BITMAP, contracts.COLLATERAL_BITMAP, contracts.COLLATERAL_CONFIG):
        (outputs,) = abi[function.signature]
        assert outputs.strip("()").split(",") == function.output_types, function.signature
        published = published_names(entries, function.name)
        assert not all(published) or output_names(function) == published, function.signature


def test_the_data_provider_views_are_the_published_v3_6_abi():
    """The views the wallet query and poolDetails read from the data provider: unchanged in v3.6."""
    abi = function_signatures(W.compile_all()["AaveProtocolDataProvider"]["abi"])
    for function in (
        contracts.USER_RESERVE_DATA,
        contracts.RESERVE_DATA,
        contracts.RESERVE_CONFIGURATION,
        contracts.RESERVE_CAPS,
        contracts.PAUSED,
        contracts.RESERVE_TOKENS,
    ):
        assert tuple(abi[function.signature]) == tuple(function.output_types), function.signature


async def test_pool_details_of_the_v3_6_market(api, world):
    reply = await api.query(
        POOL_QUERY, {"inputs": [{"protocol": "aave", "chainId": 31337, "poolAddress": world.provider}]}
    )
    (answer,) = reply.body["data"]["poolDetails"]["data"]
    assert answer["warnings"] == []
    reserves = answer["details"]["reserves"]
    assert {r["asset"]["address"] for r in reserves} == {t.lower() for t in world.tokens.values()}
    for reserve in reserves:
        a_token = reserve["aToken"]
        assert reserve["totalSupplied"] == str(world.node.call(a_token, "totalSupply()", block=answer["blockNumber"]))
        assert reserve["isActive"] is True and reserve["supplyApy"] is not None


RISK_QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on AaveWalletPositions { marketStates { healthFactor
      risk { healthFactor liquidationPrices { asset { symbol } priceUsd } } } } } } }"""


async def test_v3_6_liquidates_from_the_answered_price_down(api, world):
    """The emode wallet's B (collateral only inside e-mode), by v3.6's own `liquidationCall`."""
    node, wallet = world.node, world.wallets["emode"]
    answers = (await query_positions(api, RISK_QUERY, "aave", [wallet], 31337))["data"]
    ((state,),) = [entry["marketStates"] for entry in answers]
    assert state["risk"]["healthFactor"] == pytest.approx(state["healthFactor"], rel=1e-9)
    prices = {p["asset"]["symbol"]: p["priceUsd"] for p in state["risk"]["liquidationPrices"]}
    assert prices["C"] is None and prices["B"] == pytest.approx((15_000 - 4 * 1_500 * 0.93) / (10 * 0.93), rel=1e-3)
    taken = node.rpc("evm_snapshot")
    try:
        feed = node.deploy(compile_contracts([CONTRACTS / "TestPriceFeed.sol"])["TestPriceFeed"], ["uint8"], [8])
        node.send(world.oracle, "setAssetSources(address[],address[])", [world.tokens["B"]], [feed])
        liquidator = node.accounts[19]
        node.send(world.tokens["A"], "mint(address,uint256)", liquidator, 1_000 * W.USDC)
        node.send(world.tokens["A"], "approve(address,uint256)", world.pool, 2**256 - 1, sender=liquidator)

        def reason(price: Fraction) -> str | None:
            node.send(feed, "set(int256,uint256)", int(price), 0)
            return W.revert_reason(
                node,
                world.pool,
                "liquidationCall(address,address,address,uint256,bool)",
                world.tokens["B"],
                world.tokens["A"],
                wallet,
                100 * W.USDC,
                False,
                sender=liquidator,
            )

        at = Fraction(prices["B"]) * 10**8
        assert reason(at * (1 + Fraction(1, 10**6))) == "HealthFactorNotBelowThreshold"
        assert reason(at * (1 - Fraction(1, 10**6))) is None
    finally:
        node.rpc("evm_revert", taken)
