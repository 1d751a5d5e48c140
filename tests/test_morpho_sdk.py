"""Morpho figures against Morpho's own SDK (@morpho-org/blue-sdk, through tests/node_oracles.py) at the
same block, on the real Morpho Blue with an AdaptiveCurveIrm of our own (TestAdaptiveIrm, the
published formulas; no registry package ships the real one): a market at 93 % utilization,
untouched for 20 days, with a fee, and a fee-charging vault over two more markets."""

from __future__ import annotations

import json
import math

import pytest

from adapters.morpho import adaptive_curve_irm as irm
from tests import morpho_world as W
from tests.conftest import world_api
from tests.evm import Anvil
from tests.node_oracles import morpho_sdk as ask
from tests.test_morpho import PARAMS, close, market_id, positions

RATE_AT_TARGET = 3 * 10**9
UNTOUCHED = 20 * 24 * 3600


@pytest.fixture(scope="module")
def adaptive():
    node = Anvil()
    try:
        artifacts = W.compile_all()
        world = W.build(node, artifacts)
        adaptive_irm = node.deploy(artifacts["TestAdaptiveIrm"], ["address"], [world.morpho])
        node.send(world.morpho, "enableIrm(address)", adaptive_irm)
        params = (world.usdc, world.weth, world.oracle, adaptive_irm, W.LLTV_A)
        node.send(world.morpho, f"createMarket({PARAMS})", params)
        node.send(world.morpho, f"setFee({PARAMS},uint256)", params, W.MARKET_FEE)
        lender, borrower = world.wallets["lender"], node.accounts[8]
        W._fund(world, world.weth, borrower, 1_000 * W.ETHER)
        node.send(
            world.morpho,
            f"supply({PARAMS},uint256,uint256,address,bytes)",
            params,
            1_000_000 * W.USDC,
            0,
            lender,
            b"",
            sender=lender,
        )
        node.send(
            world.morpho,
            f"supplyCollateral({PARAMS},uint256,address,bytes)",
            params,
            600 * W.ETHER,
            borrower,
            b"",
            sender=borrower,
        )
        node.send(
            world.morpho,
            f"borrow({PARAMS},uint256,uint256,address,address)",
            params,
            930_000 * W.USDC,
            0,
            borrower,
            borrower,
            sender=borrower,
        )
        node.send(adaptive_irm, "setRateAtTarget(bytes32,int256)", bytes.fromhex(market_id(params)[2:]), RATE_AT_TARGET)
        vault, vault_markets = _vault_over_two_markets(world, artifacts, adaptive_irm, borrower)
        node.send(world.morpho, "setFeeRecipient(address)", node.accounts[9])
        node.rpc("evm_increaseTime", UNTOUCHED)
        node.mine()
        world.set_feed(W.USDC_USD)
        yield world, params, adaptive_irm, borrower, vault, vault_markets
    finally:
        node.stop()


def _vault_over_two_markets(world, artifacts, adaptive_irm, borrower):
    """A MetaMorpho-like vault with a fee, supplying to two more AdaptiveCurveIrm markets that are
    borrowed from at 67 % and 95 %, each with its own rate at target."""
    node, depositor = world.node, world.wallets["depositor"]
    second_oracle = node.deploy(artifacts["OracleMock"])
    node.send(second_oracle, "setPrice(uint256)", W.ORACLE_PRICE)
    markets = [
        (world.usdc, world.weth, world.oracle, adaptive_irm, W.LLTV_B),
        (world.usdc, world.weth, second_oracle, adaptive_irm, W.LLTV_A),
    ]
    vault = node.deploy(
        artifacts["TestVaultV1"],
        ["address", "address", "string", "string", "uint96"],
        [world.morpho, world.usdc, "SDK Vault", "sdkUSDC", W.V1_FEE],
    )
    node.send(world.usdc, "approve(address,uint256)", vault, 2**256 - 1, sender=depositor)
    for index, (market, deposit, borrowed, at_target) in enumerate(
        zip(markets, (300_000, 200_000), (200_000, 190_000), (10**9, 5 * 10**9))
    ):
        node.send(world.morpho, f"createMarket({PARAMS})", market)
        node.send(world.morpho, f"setFee({PARAMS},uint256)", market, W.MARKET_FEE // 2)
        node.send(vault, f"addMarket({PARAMS},uint184)", market, 2**184 - 1)
        node.send(vault, "deposit(uint256,address,uint256)", deposit * W.USDC, depositor, index, sender=depositor)
        W.borrow_against(world, market, borrower, 200 * W.ETHER, borrowed * W.USDC)
        node.send(adaptive_irm, "setRateAtTarget(bytes32,int256)", bytes.fromhex(market_id(market)[2:]), at_target)
    node.send(world.factory, "announceV1(address,address,string,string)", vault, world.usdc, "v", "v")
    return vault, markets


@pytest.fixture
async def api(aiohttp_client, keys_file, api_key, adaptive, tmp_path):
    world, _, adaptive_irm, *_ = adaptive
    override = world.addresses_override()
    override[str(world.node.chain_id)]["morpho"]["adaptiveCurveIrm"] = adaptive_irm
    path = tmp_path / "a.json"
    path.write_text(json.dumps(override))
    return await world_api(aiohttp_client, keys_file, api_key, path, world.node)


def sdk_market(world, params, block: int) -> dict:
    """The SDK's Market built from the state read at `block`, asked for its APYs at that block."""
    node, key = world.node, bytes.fromhex(market_id(params)[2:])
    totals = node.call(world.morpho, "market(bytes32)", key, returns=["uint128"] * 6, block=block)
    rate_at_target = node.call(params[3], "rateAtTarget(bytes32)", key, returns=["int256"], block=block)
    timestamp = int(node.rpc("eth_getBlockByNumber", hex(block), False)["timestamp"], 16)
    (answer,) = ask(
        [
            {
                "kind": "market",
                "params": [*params[:4], str(params[4])],
                "totals": [str(t) for t in totals],
                "rateAtTarget": str(rate_at_target),
                "timestamp": str(timestamp),
            }
        ]
    )
    return {**answer, "totals": totals, "rateAtTarget": rate_at_target, "timestamp": timestamp}


async def test_market_apys_equal_the_sdks_at_the_same_block(api, adaptive):
    world, params, _, borrower, *_ = adaptive
    lender_entry, borrower_entry = (await positions(api, world.wallets["lender"], borrower))["data"]
    assert lender_entry["blockNumber"] == borrower_entry["blockNumber"]
    sdk = sdk_market(world, params, lender_entry["blockNumber"])
    for entry in (lender_entry, borrower_entry):
        (position,) = [p for p in entry["marketPositions"] if p["marketId"] == market_id(params)]
        assert close(position["borrowApy"], sdk["borrowApy"]) and close(position["supplyApy"], sdk["supplyApy"])
        assert entry["warnings"] == []
    assert sdk["borrowApy"] > sdk["storedBorrowApy"] * 1.001, "accrual moved the rate: the test can tell"
    totals = sdk["totals"]
    assert totals[2] * 100 // totals[0] == 93 and sdk["timestamp"] - totals[4] >= UNTOUCHED
    rates = irm.borrow_rates(irm.utilization(totals[2], totals[0]), sdk["rateAtTarget"], sdk["timestamp"] - totals[4])
    assert rates.end == int(sdk["endBorrowRate"]) and rates.end > rates.average, (
        "the instantaneous rate has drifted above the average since the last update"
    )


async def test_zero_collateral_is_worth_zero_as_the_sdk_says(api, adaptive):
    world, params, *_ = adaptive
    (entry,) = (await positions(api, world.wallets["lender"]))["data"]
    (position,) = [p for p in entry["marketPositions"] if p["marketId"] == market_id(params)]
    assert position["collateral"] == "0" and position["collateralUsd"] == 0.0


def sdk_vault(world, vault, markets, block: int, v1_1: bool = True) -> dict:
    """The SDK's AccrualVault built from the vault's state at `block`, accrued to that block
    (`v1_1=False`: as a v1.0 vault, which has no lost assets)."""
    node, allocations = world.node, []
    for market in markets:
        state = sdk_market(world, market, block)
        shares = node.call(
            world.morpho,
            "position(bytes32,address)",
            bytes.fromhex(market_id(market)[2:]),
            vault,
            returns=["uint256", "uint128", "uint128"],
            block=block,
        )[0]
        allocations.append(
            {
                "params": [*market[:4], str(market[4])],
                "totals": [str(t) for t in state["totals"]],
                "rateAtTarget": str(state["rateAtTarget"]),
                "supplyShares": str(shares),
            }
        )
    (answer,) = ask(
        [
            {
                "kind": "vault",
                "address": vault,
                "asset": world.usdc,
                "fee": str(W.V1_FEE),
                "totalSupply": str(node.call(vault, "totalSupply()", block=block)),
                "lastTotalAssets": str(node.call(vault, "lastTotalAssets()", block=block)),
                "lostAssets": str(node.call(vault, "lostAssets()", block=block)) if v1_1 else None,
                "allocations": allocations,
                "timestamp": str(state["timestamp"]),
            }
        ]
    )
    return answer


async def _vault_apy(api, world, vault) -> tuple[float, int]:
    (entry,) = (await positions(api, world.wallets["depositor"]))["data"]
    (position,) = [v for v in entry["vaultV1Positions"] if v["vaultAddress"] == vault]
    assert [w for w in entry["warnings"] if w["target"] == vault] == []
    return position["apy"], entry["blockNumber"]


async def test_vault_v1_apy_equals_the_sdks_net_apy(api, adaptive):
    world, _, _, _, vault, markets = adaptive
    apy, block = await _vault_apy(api, world, vault)
    answer = sdk_vault(world, vault, markets, block)
    assert answer["netApy"] > 0 and close(apy, answer["netApy"])
    assert int(answer["totalAssets"]) == world.node.call(vault, "totalAssets()", block=block)


async def test_the_vault_pool_apys_equal_the_sdks_before_and_after_the_fee(api, adaptive):
    world, _, _, _, vault, markets = adaptive
    reply = await api.query(
        """query($p: [PoolInput!]!) { poolDetails(inputs: $p) { data { blockNumber warnings { code }
      details { ... on MorphoVaultV1Pool { apy netApy totalAssets } } } } }""",
        {"p": [{"protocol": "morpho", "chainId": 31337, "poolAddress": vault}]},
    )
    (pool,) = reply.body["data"]["poolDetails"]["data"]
    answer = sdk_vault(world, vault, markets, pool["blockNumber"])
    assert pool["warnings"] == [] and answer["apy"] > answer["netApy"] > 0
    assert close(pool["details"]["apy"], answer["apy"]) and close(pool["details"]["netApy"], answer["netApy"])
    assert pool["details"]["totalAssets"] == answer["totalAssets"]


async def test_lost_assets_dilute_the_vault_apy_as_in_the_sdk(api, adaptive):
    """MetaMorpho v1.1 keeps bad debt in `lostAssets`, inside `totalAssets()`: the share price
    stops falling, and what the remaining assets earn is spread over more."""
    world, _, _, _, vault, markets = adaptive
    node = world.node
    snapshot = node.rpc("evm_snapshot")
    try:
        node.send(vault, "lose(uint256,uint256)", 50_000 * W.USDC, 0)
        apy, block = await _vault_apy(api, world, vault)
        answer, undiluted = (sdk_vault(world, vault, markets, block, v1_1) for v1_1 in (True, False))
        total, last = (node.call(vault, f"{view}()", block=block) for view in ("totalAssets", "lastTotalAssets"))
        real = sum(
            node.call(
                world.lens, f"expectedSupplyAssets(address,{PARAMS},address)", world.morpho, m, vault, block=block
            )
            for m in markets
        )
    finally:
        node.rpc("evm_revert", snapshot)
    assert total == last > real, "the loss is counted as lost assets: total assets stay at the last total"
    assert int(answer["totalAssets"]) == total
    assert close(apy, answer["netApy"])
    assert math.log1p(apy) / math.log1p(undiluted["netApy"]) == pytest.approx(real / total, rel=1e-9)


async def _recipient_against_the_contract(api, world, params, recipient) -> tuple[dict, int, int]:
    """The recipient's position as served, its supply shares at the served block, and its
    shares once the contract itself accrues the market in a snapshot at the same timestamp
    (Morpho Blue mints the fee as supply shares to the fee recipient at the next accrual)."""
    node, key = world.node, bytes.fromhex(market_id(params)[2:])
    (entry,) = (await positions(api, recipient))["data"]
    block = entry["blockNumber"]
    before = node.call(
        world.morpho,
        "position(bytes32,address)",
        key,
        recipient,
        returns=["uint256", "uint128", "uint128"],
        block=block,
    )[0]
    timestamp = int(node.rpc("eth_getBlockByNumber", hex(block), False)["timestamp"], 16)
    snapshot = node.rpc("evm_snapshot")
    try:
        node.rpc("evm_setNextBlockTimestamp", hex(timestamp))
        node.send(world.morpho, f"accrueInterest({PARAMS})", params)
        shares = node.call(
            world.morpho, "position(bytes32,address)", key, recipient, returns=["uint256", "uint128", "uint128"]
        )[0]
        totals = node.call(world.morpho, "market(bytes32)", key, returns=["uint128"] * 6)
    finally:
        node.rpc("evm_revert", snapshot)
    (position,) = [p for p in entry["marketPositions"] if p["marketId"] == market_id(params)]
    assert position["supplyShares"] == str(shares)
    assert position["supplyAssets"] == str(shares * (totals[0] + 1) // (totals[1] + 10**6))
    return position, before, shares


async def test_a_new_fee_recipient_is_shown_its_pending_fee_shares(api, adaptive):
    """Its `position()` is still zero; Morpho's SDK has no figure for it (AccrualPosition accrues
    the market, not the recipient's fee shares), so the reference is the contract."""
    world, params, *_ = adaptive
    _, before, after = await _recipient_against_the_contract(api, world, params, world.node.accounts[9])
    assert before == 0 < after


async def test_a_fee_recipient_that_supplies_is_shown_its_supply_and_pending_fee(api, adaptive):
    world, params, *_ = adaptive
    node, lender = world.node, world.wallets["lender"]
    snapshot = node.rpc("evm_snapshot")
    try:
        node.send(world.morpho, "setFeeRecipient(address)", lender)
        _, before, after = await _recipient_against_the_contract(api, world, params, lender)
    finally:
        node.rpc("evm_revert", snapshot)
    assert 0 < before < after


async def test_amounts_and_health_factor_equal_the_sdks_accrual_position(api, adaptive):
    world, params, _, borrower, *_ = adaptive
    node = world.node
    lender_entry, borrower_entry = (await positions(api, world.wallets["lender"], borrower))["data"]
    block, key = lender_entry["blockNumber"], bytes.fromhex(market_id(params)[2:])
    state = sdk_market(world, params, block)
    price = node.call(params[2], "price()", block=block)
    requests = []
    for wallet in (world.wallets["lender"], borrower):
        shares = node.call(
            world.morpho,
            "position(bytes32,address)",
            key,
            wallet,
            returns=["uint256", "uint128", "uint128"],
            block=block,
        )
        requests.append(
            {
                "kind": "position",
                "params": [*params[:4], str(params[4])],
                "totals": [str(t) for t in state["totals"]],
                "rateAtTarget": str(state["rateAtTarget"]),
                "price": str(price),
                "supplyShares": str(shares[0]),
                "borrowShares": str(shares[1]),
                "collateral": str(shares[2]),
                "timestamp": str(state["timestamp"]),
            }
        )
    lender_sdk, borrower_sdk = ask(requests)
    (lent,) = [p for p in lender_entry["marketPositions"] if p["marketId"] == market_id(params)]
    (owed,) = [p for p in borrower_entry["marketPositions"] if p["marketId"] == market_id(params)]
    assert lent["supplyAssets"] == lender_sdk["supplyAssets"] and int(lent["supplyAssets"]) > 1_000_000 * W.USDC
    assert owed["borrowAssets"] == borrower_sdk["borrowAssets"] and int(owed["borrowAssets"]) > 930_000 * W.USDC
    assert close(owed["healthFactor"], int(borrower_sdk["healthFactor"]) / 1e18)
    assert close(owed["collateralUsd"], int(borrower_sdk["collateralValue"]) * W.USDC_USD / 10**14)
