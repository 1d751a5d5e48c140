"""Euler v2 against test contracts with Euler's signatures and arithmetic (tests/euler_world.py):
an owner's sub-accounts answered as accounts it controls, every figure the vaults' own, and the
liquidation price checked by the vault's own `checkLiquidation`."""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import pytest

from adapters.euler import contracts as C
from tests import euler_world as W
from tests.conftest import input_entries, world_fixture
from tests.node_oracles import abi_functions

QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on EulerWalletPositions { walletAddress holder via blockNumber warnings { code target message }
    vaultPositions { type vaultAddress vaultName vaultSymbol asset { address symbol decimals } shares assets
      assetsUsd borrowed borrowedUsd isCollateral isController supplyApy borrowApy
      risk { healthFactor loanToValue liquidationLoanToValue
        liquidationPrices { asset { address symbol } priceUsd priceInLoanAsset dropToLiquidation }
        oracle { address } } } } }
  errors { error { code message } } } }"""

world = world_fixture(W.build)


async def entries(api: Any, wallet: str, **more: Any) -> list[dict[str, Any]]:
    return await input_entries(api, QUERY, "euler", wallet, **more)


async def test_the_owner_and_its_sub_accounts_each_answer_their_vaults(world_client, world):
    own, *subs = await entries(world_client, world.owner)
    assert (own["holder"], own["via"]) == (world.owner, None) and own["warnings"] == []
    assert [(entry["holder"], entry["via"]) for entry in subs] == [
        (world.sub(1), "euler-subaccount"),
        (world.sub(2), "euler-subaccount"),
    ]
    node, made = world.node, world.contracts
    (mine,) = own["vaultPositions"]
    assert (mine["vaultAddress"], mine["shares"], mine["borrowed"]) == (made["eUSDC"], str(W.SUPPLIED["owner"]), "0")
    (lent,) = subs[1]["vaultPositions"]
    assert lent["shares"] == str(W.SUPPLIED["lender"]) and not lent["isCollateral"] and lent["risk"] is None
    block = subs[1]["blockNumber"]
    assert lent["assets"] == str(
        node.call(made["eUSDC"], "convertToAssets(uint256)", W.SUPPLIED["lender"], block=block)
    )
    assert int(lent["assets"]) > W.SUPPLIED["lender"], "a year of interest, less the fee"
    collateral, borrow = sorted(subs[0]["vaultPositions"], key=lambda p: p["vaultAddress"] != made["eWETH"])
    assert (collateral["vaultAddress"], collateral["isCollateral"], collateral["shares"]) == (
        made["eWETH"],
        True,
        str(W.COLLATERAL),
    )
    assert collateral["assetsUsd"] == pytest.approx(10 * 3_000)
    assert (borrow["vaultAddress"], borrow["isController"], borrow["shares"]) == (made["eUSDC"], True, "0")
    debt = node.call(made["eUSDC"], "debtOf(address)", world.sub(1), block=block)
    assert borrow["borrowed"] == str(debt) and debt > W.BORROWED
    assert borrow["borrowedUsd"] == pytest.approx(debt / W.USDC)


async def test_apys_follow_the_vaults_rate_and_the_lens_formula(world_client, world):
    _, _, lender = await entries(world_client, world.owner)
    (position,) = lender["vaultPositions"]
    block, vault = lender["blockNumber"], world.contracts["eUSDC"]
    rate, cash, borrows = (
        world.node.call(vault, f"{name}()", block=block) for name in ("interestRate", "cash", "totalBorrows")
    )
    fee = world.node.call(vault, "interestFee()", returns=("uint16",), block=block)
    with localcontext() as exact:
        exact.prec = 60
        borrow_apy = float((1 + Decimal(rate) / 10**27) ** C.SECONDS_PER_YEAR - 1)
    assert position["borrowApy"] == pytest.approx(borrow_apy, rel=1e-12)
    assert position["supplyApy"] == pytest.approx(borrow_apy * borrows / (cash + borrows) * (1 - fee / 1e4), rel=1e-9)


async def test_the_risk_is_the_vaults_own_and_its_liquidation_price_where_check_liquidation_turns(world_client, world):
    node, made = world.node, world.contracts
    _, borrower, _ = await entries(world_client, world.owner)
    (position,) = [p for p in borrower["vaultPositions"] if p["isController"]]
    risk = position["risk"]
    collateral_value, liability = node.call(
        made["eUSDC"],
        "accountLiquidity(address,bool)",
        world.sub(1),
        True,
        returns=("uint256", "uint256"),
        block=borrower["blockNumber"],
    )
    assert risk["healthFactor"] == pytest.approx(collateral_value / liability, rel=1e-12)
    assert risk["liquidationLoanToValue"] == pytest.approx(W.LTV[1] / 1e4)
    (price,) = risk["liquidationPrices"]
    assert price["asset"]["address"] == made["eWETH"]
    at = Fraction(price["priceUsd"])
    check = ("checkLiquidation(address,address,address)", node.accounts[0], world.sub(1), made["eWETH"])
    try:
        # A hair: a millionth, well above the interest the debt accrues while the prices are set
        # (the vault's 2 % a year is 6e-10 a second), which moves the boundary up.
        for factor, liquidatable in ((1 + Fraction(1, 10**6), False), (1 - Fraction(1, 10**6), True)):
            node.send(made["oracle"], "setPrice(address,uint256)", made["WETH"], int(at * factor * 10**18))
            repay, _ = node.call(made["eUSDC"], *check, returns=("uint256", "uint256"))
            assert (repay > 0) is liquidatable, factor
    finally:
        node.send(made["oracle"], "setPrice(address,uint256)", made["WETH"], W.PRICES["WETH"])


async def test_collateral_and_debt_are_valued_as_the_router_quotes_their_amounts(world_client, world):
    """A USDC vault's shares as collateral for WETH: after a year's interest one whole share
    (1e6) converts to assets with a rounding of up to 1e-6, which quoting one share and
    multiplying would carry into every figure; EVK quotes the balance itself
    (`getQuote(balance, collateral, unit)`, LiquidityUtils), and so must the answer."""
    node, made = world.node, world.contracts
    account = node.accounts[17].lower()
    node.send(made["USDC"], "mint(address,uint256)", account, 1_234_567_891)
    node.send(made["USDC"], "approve(address,uint256)", made["eUSDC"], 2**256 - 1, sender=account)
    node.send(made["eUSDC"], "deposit(uint256,address)", 1_234_567_891, account, sender=account)
    node.send(made["eWETH"], "setLTV(address,uint16,uint16,uint32)", made["eUSDC"], *W.LTV, 0)
    node.send(made["oracle"], "govSetResolvedVault(address,bool)", made["eUSDC"], True)
    zero = "0x" + "0" * 40
    items = [
        (made["evc"], zero, 0, W._data("enableCollateral(address,address)", account, made["eUSDC"])),
        (made["evc"], zero, 0, W._data("enableController(address,address)", account, made["eWETH"])),
        (made["eWETH"], account, 0, W._data("borrow(uint256,address)", W.ETHER // 7, account)),
    ]
    node.send(made["evc"], "batch((address,address,uint256,bytes)[])", items, sender=account)
    (entry,) = await entries(world_client, account)
    (position,) = [p for p in entry["vaultPositions"] if p["isController"]]
    block, risk = entry["blockNumber"], position["risk"]
    balance = node.call(made["eUSDC"], "balanceOf(address)", account, block=block)
    quote = "getQuote(uint256,address,address)"
    one_share = node.call(made["oracle"], quote, 10**6, made["eUSDC"], W.USD, block=block)
    collateral = node.call(made["oracle"], quote, balance, made["eUSDC"], W.USD, block=block)
    assert Fraction(one_share * balance, 10**6) != collateral  # the world makes the two differ
    debt = node.call(made["oracle"], quote, int(position["borrowed"]), made["WETH"], W.USD, block=block)
    assert risk["loanToValue"] == pytest.approx(debt / collateral, rel=1e-12)
    (price,) = risk["liquidationPrices"]
    at = Fraction(debt, 10**18) / (Fraction(W.LTV[1], 10**4) * Fraction(balance, 10**6))
    assert price["priceUsd"] == pytest.approx(float(at), rel=1e-12)
    now = Fraction(collateral, 10**18) / Fraction(balance, 10**6)
    assert price["dropToLiquidation"] == pytest.approx(float(1 - at / now))
    check = ("checkLiquidation(address,address,address)", node.accounts[0], account, made["eUSDC"])
    try:  # the vault's own check turns where the answer says: USDC's price moves the share's alike
        for factor, liquidatable in ((1 + Fraction(1, 10**6), False), (1 - Fraction(1, 10**6), True)):
            node.send(
                made["oracle"], "setPrice(address,uint256)", made["USDC"], int(W.PRICES["USDC"] * at / now * factor)
            )
            repay, _ = node.call(made["eWETH"], *check, returns=("uint256", "uint256"))
            assert (repay > 0) is liquidatable, factor
    finally:
        node.send(made["oracle"], "setPrice(address,uint256)", made["USDC"], W.PRICES["USDC"])


async def test_the_option_answers_the_owner_alone(world_client, world):
    (own,) = await entries(world_client, world.owner, controlledAccounts=False)
    assert own["holder"] == world.owner


def test_the_adapter_reads_the_views_the_test_contracts_declare():
    """Euler publishes its ABIs on a public repository only (euler-xyz/euler-interfaces, no npm
    package), which the test contracts were checked against; the adapter is held to them."""
    artifacts = W.compile_all()
    for contract, functions in (
        ("TestEVC", [C.GET_CONTROLLERS, C.GET_COLLATERALS]),
        (
            "TestEVault",
            [
                C.DEBT_OF,
                C.INTEREST_RATE,
                C.INTEREST_FEE,
                C.CASH,
                C.TOTAL_BORROWS,
                C.LTV_LIQUIDATION,
                C.ORACLE,
                C.UNIT_OF_ACCOUNT,
                C.ACCOUNT_LIQUIDITY,
                C.LTV_BORROW,
                C.LTV_LIST,
            ],
        ),
        ("TestEulerOracle", [C.GET_QUOTE]),
    ):
        declared = abi_functions(artifacts[contract].abi)
        for function in functions:
            assert declared[function.signature] == function.output_types, (contract, function.signature)


POOL = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) {
  data { details { ... on EulerVaultPool { type vaultAddress totalAssets cash totalBorrows supplyApy borrowApy
    interestFee oracle unitOfAccount collateralVaults { vaultAddress borrowLtv liquidationLtv } } } }
  errors { error { code message } } } }"""


async def test_pool_details_of_a_vault_and_a_clear_error_for_another_address(world_client, world):
    made = world.contracts
    asked = [
        {"protocol": "euler", "chainId": 31337, "poolAddress": address} for address in (made["eUSDC"], made["USDC"])
    ]
    reply = await world_client.query(POOL, {"inputs": asked})
    found = reply.body["data"]["poolDetails"]
    (pool,) = [entry["details"] for entry in found["data"]]
    assert pool["collateralVaults"] == [{"vaultAddress": made["eWETH"], "borrowLtv": 0.8, "liquidationLtv": 0.85}]
    assert int(pool["totalAssets"]) == int(pool["cash"]) + int(pool["totalBorrows"])
    assert pool["unitOfAccount"] == W.USD and pool["oracle"] == made["oracle"] and pool["interestFee"] == 0.1
    lender = (await entries(world_client, world.owner))[2]
    assert pool["supplyApy"] == lender["vaultPositions"][0]["supplyApy"]
    (error,) = found["errors"]
    assert error["error"]["code"] == "VALIDATION_ERROR" and "not an Euler vault" in error["error"]["message"]
