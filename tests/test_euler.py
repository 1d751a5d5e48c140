"""Euler v2 against test contracts with Euler's signatures and arithmetic (tests/euler_world.py):
an owner's sub-accounts answered as accounts it controls, every figure the vaults' own, and the
liquidation price checked by the vault's own `checkLiquidation`."""

from __future__ import annotations

import json
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import pytest

from adapters.euler import contracts as C
from tests import euler_world as W
from tests.conftest import input_entries, world_api, world_fixture
from tests.node_oracles import abi_functions
from tests.test_lenses import lens_interfaces

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


REWARD_STREAMS_ABI = {
    "EPOCH_DURATION()": ["uint256"],
    "MAX_EPOCHS_AHEAD()": ["uint256"],
    "MAX_DISTRIBUTION_LENGTH()": ["uint256"],
    "MAX_REWARDS_ENABLED()": ["uint256"],
    "registerReward(address,address,uint48,uint128[])": [],
    "claimReward(address,address,address,bool)": ["uint256"],
    "enableReward(address,address)": ["bool"],
    "earnedReward(address,address,address,bool)": ["uint256"],
    "enabledRewards(address,address)": ["address[]"],
    "isRewardEnabled(address,address,address)": ["bool"],
    "balanceOf(address,address)": ["uint256"],
    "rewardAmount(address,address)": ["uint256"],
    "totalRewardedEligible(address,address)": ["uint256"],
    "totalRewardRegistered(address,address)": ["uint256"],
    "totalRewardClaimed(address,address)": ["uint256"],
    "rewardAmount(address,address,uint48)": ["uint256"],
    "currentEpoch()": ["uint48"],
    "getEpoch(uint48)": ["uint48"],
    "getEpochStartTimestamp(uint48)": ["uint48"],
    "getEpochEndTimestamp(uint48)": ["uint48"],
    "balanceTrackerHook(address,uint256,bool)": [],
}
"""ITrackingRewardStreams as euler-xyz/reward-streams publishes it (src/interfaces/IRewardStreams.sol
and IBalanceTracker.sol at a63c358, no npm package), less `updateReward` and `disableReward`, which
the test streams leave out."""


def test_the_test_reward_streams_and_the_lens_declare_the_published_interface():
    """The test streams declare every function of the published interface (but the two left out)
    with its outputs; the adapter's and the lens's reads are among them."""
    declared = abi_functions(W.compile_all()["TestRewardStreams"].abi)
    assert {signature: declared.get(signature) for signature in REWARD_STREAMS_ABI} == REWARD_STREAMS_ABI
    functions = (C.ENABLED_REWARDS, C.EARNED_REWARD, C.STREAM_BALANCE, C.REWARD_AMOUNT, C.TOTAL_REWARDED_ELIGIBLE)
    for function in (*functions, C.EPOCH_DURATION):
        assert REWARD_STREAMS_ABI[function.signature] == function.output_types, function.signature
    lens = abi_functions(lens_interfaces()["IRewardStreams"])
    assert lens.items() <= REWARD_STREAMS_ABI.items()


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


REWARDS = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on EulerWalletPositions { blockNumber warnings { code target message }
    vaultPositions { vaultAddress asset { decimals } rewards { token { address symbol } claimable claimableUsd
      eligibleShares apr } legs { role key amount } } } }
  errors { error { code message } } } }"""


async def test_rewards_are_the_reward_streams_own(world_client, world):
    """The lender sub-account enabled EUL on its eUSDC at the reward streams and its shares were
    forwarded: its position lists what earnedReward says a claim pays (all the stream paid since it
    began, the lender being its only eligible holder), as a REWARD leg, with the stream's APR from
    its own views; the owner's own eUSDC enabled none."""
    own, _, lender = await input_entries(world_client, REWARDS, "euler", world.owner)
    node, made, block = world.node, world.contracts, lender["blockNumber"]
    streams, vault, eul = made["streams"], made["eUSDC"], made["EUL"]
    (lent,) = lender["vaultPositions"]
    (reward,) = lent["rewards"]
    earned = node.call(
        streams, "earnedReward(address,address,address,bool)", world.sub(2), vault, eul, False, block=block
    )
    paid = Fraction(W.PER_EPOCH * (node.timestamp(block) - world.rewards_start), W.EPOCH)
    assert 0 < earned <= paid and paid - earned < 10**6, "the stream's own arithmetic: all of it, less rounding"
    assert reward["token"] == {"address": eul, "symbol": "EUL"} and reward["claimable"] == str(earned)
    assert reward["claimableUsd"] == pytest.approx(earned / 10**18 * W.EUL_USD / 10**8)
    assert reward["eligibleShares"] == str(W.SUPPLIED["lender"])
    key = f"{vault}:{eul}:reward"
    assert {"role": "REWARD", "key": key, "amount": str(earned)} in lent["legs"]
    amount = node.call(streams, "rewardAmount(address,address)", vault, eul, block=block)
    eligible = node.call(streams, "totalRewardedEligible(address,address)", vault, eul, block=block)
    assets = node.call(vault, "convertToAssets(uint256)", eligible, block=block)
    assert amount == W.PER_EPOCH and eligible == W.SUPPLIED["lender"]
    yearly_usd = Fraction(amount * C.SECONDS_PER_YEAR, W.EPOCH) / 10**18 * Fraction(W.EUL_USD, 10**8)
    assert reward["apr"] == pytest.approx(float(yearly_usd / Fraction(assets, W.USDC)), rel=1e-12)
    assert lender["warnings"] == []
    assert [position["rewards"] for position in own["vaultPositions"]] == [[]] and own["warnings"] == []


async def test_a_reward_without_a_price_is_named_and_its_apr_null(aiohttp_client, keys_file, api_key, world, tmp_path):
    """With EUL's feed left out of the data, what the lender earned is still listed, its USD and
    the stream's APR null, each named."""
    made = world.contracts
    feeds = {token: feed for token, feed in world.feeds().items() if token != made["EUL"]}
    chain = {"name": "anvil devnet", "euler": world.addresses_override(), "priceFeeds": feeds}
    (tmp_path / "a.json").write_text(json.dumps({str(world.node.chain_id): chain}))
    api = await world_api(aiohttp_client, keys_file, api_key, tmp_path / "a.json", world.node)
    _, _, lender = await input_entries(api, REWARDS, "euler", world.owner)
    ((reward,),) = [position["rewards"] for position in lender["vaultPositions"]]
    assert int(reward["claimable"]) > 0 and (reward["claimableUsd"], reward["apr"]) == (None, None)
    warned = {w["code"]: (w["target"], w["message"]) for w in lender["warnings"]}
    assert warned.keys() == {"PRICE_UNAVAILABLE", "FIGURE_UNAVAILABLE"} and len(lender["warnings"]) == 2
    assert warned["PRICE_UNAVAILABLE"][0] == made["EUL"] and warned["FIGURE_UNAVAILABLE"][0] == made["eUSDC"]
    assert "EUL reward stream's APR" in warned["FIGURE_UNAVAILABLE"][1]
