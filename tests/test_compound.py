"""The Compound v3 adapter against Comet test contracts on anvil.

The contracts implement exactly the functions the adapter calls; their signatures are checked
against Compound's published Comet ABI (npm `@compound-finance/compound-js`), and the rewards
function against the function list docs/protocols/compound.md cites from Compound's CometRewards source.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from adapters.compound import contracts as comet
from adapters.compound import market
from chain.abi import AbiType, Function, parse_type
from tests import compound_world as C
from tests.conftest import compounded_per_second, query_positions, world_api, world_fixture
from tests.evm import SDKS, function_signatures

SECONDS = 365 * 24 * 3600
QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on CompoundWalletPositions { protocol walletAddress chainId blockNumber warnings { code message target }
    supplyPositions { type marketAddress baseAsset { address symbol decimals } balance balanceUsd apr apy }
    borrowPositions { type marketAddress baseAsset { symbol } debt debtUsd apr apy borrowCapacityUsd
                      liquidationThresholdUsd }
    collateralPositions { type marketAddress asset { symbol decimals } balance balanceUsd
                          borrowCollateralFactor liquidateCollateralFactor }
    rewardPositions { type marketAddress rewardToken { address symbol decimals } accrued accruedUsd } } }
  errors { protocol chainId walletAddress error { code message retryable } } } }"""


world = world_fixture(C.build)


async def positions(api, *wallets, chain_id=31337):
    return await query_positions(api, QUERY, "compound", wallets, chain_id)


def compounded(rate: int) -> float:
    return compounded_per_second(rate, 10**18)


def usd(amount: int, symbol: str) -> float:
    return float(Fraction(amount * C.PRICES[symbol], 10 ** C.DECIMALS[symbol] * 10**8))


def usd_via_eth(amount: int, symbol: str) -> float:
    """A figure of the ETH-quoted market: Comet's price in ETH, times the ETH/USD feed."""
    return float(Fraction(amount * C.IN_ETH[symbol] * C.PRICES["WETH"], 10 ** C.DECIMALS[symbol] * 10**16))


def rate(world, market, name, block) -> int:
    utilization = world.node.call(market, "getUtilization()", block=block)
    return world.node.call(market, f"{name}(uint256)", utilization, returns=["uint64"], block=block)


async def test_supply_borrow_collateral_and_rewards(world_client, world):
    saver, borrower = (await positions(world_client, world.wallets["saver"], world.wallets["borrower"]))["data"]
    block = saver["blockNumber"]
    assert saver["warnings"] == []
    assert borrower["warnings"] == [], "neither collateral covers the debt alone: each has a liquidation price"
    (supply,) = saver["supplyPositions"]
    balance = 25_000 * C.USDC + 123
    supply_rate = rate(world, world.usdc_market, "getSupplyRate", block)
    assert supply == {
        "type": "compound-supply",
        "marketAddress": world.usdc_market,
        "baseAsset": {"address": world.tokens["USDC"], "symbol": "USDC", "decimals": 6},
        "balance": str(balance),
        "balanceUsd": usd(balance, "USDC"),
        "apr": supply_rate * SECONDS / 1e18,
        "apy": supply["apy"],
    }
    assert supply["apy"] == pytest.approx(compounded(supply_rate), rel=1e-12)
    assert saver["borrowPositions"] == [] and saver["collateralPositions"] == []

    (borrow,) = borrower["borrowPositions"]
    debt, borrow_rate = 3 * C.ETHER + 7, rate(world, world.weth_market, "getBorrowRate", block)
    assert borrow["debt"] == str(debt) and borrow["debtUsd"] == usd_via_eth(debt, "WETH")
    assert borrow["apr"] == borrow_rate * SECONDS / 1e18
    assert borrow["apy"] == pytest.approx(compounded(borrow_rate), rel=1e-12)
    wbtc, usdc = usd_via_eth(10**7, "WBTC"), usd_via_eth(4_000 * C.USDC, "USDC")
    assert borrow["borrowCapacityUsd"] == pytest.approx(wbtc * 0.80 + usdc * 0.85, rel=1e-15)
    assert borrow["liquidationThresholdUsd"] == pytest.approx(wbtc * 0.85 + usdc * 0.90, rel=1e-15)
    assert [
        (
            c["asset"]["symbol"],
            c["balance"],
            c["balanceUsd"],
            c["borrowCollateralFactor"],
            c["liquidateCollateralFactor"],
        )
        for c in borrower["collateralPositions"]
    ] == [("WBTC", str(10**7), wbtc, 0.8, 0.85), ("USDC", str(4_000 * C.USDC), usdc, 0.85, 0.9)]

    (reward,) = saver["rewardPositions"]
    assert reward == {
        "type": "compound-reward",
        "marketAddress": world.usdc_market,
        "rewardToken": {"address": world.tokens["COMP"], "symbol": "COMP", "decimals": 18},
        "accrued": str(12 * 10**17),
        "accruedUsd": usd(12 * 10**17, "COMP"),
    }
    assert [r["accrued"] for r in borrower["rewardPositions"]] == [str(3 * 10**16)]


async def test_a_collateral_without_price_leaves_its_usd_and_the_capacity_null(world_client, world):
    node = world.node
    timestamp = int(node.rpc("eth_getBlockByNumber", "latest", False)["timestamp"], 16)
    node.send(world.eth_feeds["WBTC"], "set(int256,uint256)", 0, timestamp)
    try:
        (entry,) = (await positions(world_client, world.wallets["borrower"]))["data"]
    finally:
        node.send(world.eth_feeds["WBTC"], "set(int256,uint256)", C.IN_ETH["WBTC"], timestamp)
    (borrow,) = entry["borrowPositions"]
    assert borrow["borrowCapacityUsd"] is None and borrow["liquidationThresholdUsd"] is None
    assert borrow["debtUsd"] == usd_via_eth(3 * C.ETHER + 7, "WETH")
    wbtc, usdc = entry["collateralPositions"]
    assert wbtc["balanceUsd"] is None and wbtc["balance"] == str(10**7)
    (warning,) = entry["warnings"]
    assert (warning["code"], warning["target"]) == ("PRICE_UNAVAILABLE", world.tokens["WBTC"])
    assert usdc["balanceUsd"] == usd_via_eth(4_000 * C.USDC, "USDC")


async def test_an_eth_quoted_market_without_an_eth_usd_feed_has_no_usd(
    aiohttp_client, keys_file, api_key, world, tmp_path
):
    override = world.addresses_override()
    del override[str(world.node.chain_id)]["currencyFeeds"]
    path = tmp_path / "a.json"
    path.write_text(json.dumps(override))
    api = await world_api(aiohttp_client, keys_file, api_key, path, world.node)
    (entry,) = (await positions(api, world.wallets["borrower"]))["data"]
    (borrow,) = entry["borrowPositions"]
    assert borrow["debtUsd"] is None and borrow["borrowCapacityUsd"] is None and borrow["apr"] > 0
    assert [c["balanceUsd"] for c in entry["collateralPositions"]] == [None, None]
    assert entry["warnings"] and all(
        w["code"] == "PRICE_UNAVAILABLE" and "names no ETH/USD feed on chain" in w["message"] for w in entry["warnings"]
    ), "no price source at all: every null USD figure is named"


async def test_a_wallet_with_nothing(world_client, world):
    (entry,) = (await positions(world_client, world.wallets["empty"]))["data"]
    assert all(
        entry[key] == []
        for key in ("supplyPositions", "borrowPositions", "collateralPositions", "rewardPositions", "warnings")
    )


async def test_one_failing_market_is_left_out_with_a_warning(world_client, world):
    world.node.send(world.weth_market, "setBroken(bool)", True)
    try:
        saver, borrower = (await positions(world_client, world.wallets["saver"], world.wallets["borrower"]))["data"]
        world.node.send(world.usdc_market, "setBroken(bool)", True)
        result = await positions(world_client, world.wallets["saver"])
    finally:
        for market in (world.usdc_market, world.weth_market):
            world.node.send(market, "setBroken(bool)", False)
    assert len(saver["supplyPositions"]) == 1 and len(saver["rewardPositions"]) == 1
    assert borrower["borrowPositions"] == borrower["collateralPositions"] == []
    for entry in (saver, borrower):
        (warning,) = entry["warnings"]
        assert (warning["code"], warning["target"]) == ("PART_UNREADABLE", world.weth_market)
        assert "TestComet: broken" in warning["message"]
    assert result["data"] == [] and result["errors"][0]["error"]["code"] == "PROTOCOL_ERROR", (
        "when every market fails, the input fails"
    )


async def test_an_unsupported_chain_is_a_validation_error(world_client, world):
    result = await positions(world_client, world.wallets["saver"], chain_id=43114)
    assert result["errors"][0]["error"]["code"] == "VALIDATION_ERROR"
    assert "Chain 43114 is not supported by protocol 'compound'" in result["errors"][0]["error"]["message"]


POOL_QUERY = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) {
  data { poolAddress blockNumber data warnings { code message target }
    details { ... on CompoundMarketPool { type cometAddress chainId name baseAsset { address symbol name decimals }
      basePriceUsd totalSupply totalSupplyUsd totalBorrow totalBorrowUsd utilization supplyApr supplyApy borrowApr
      borrowApy baseReserves baseBorrowMin collaterals { asset { symbol decimals } priceUsd totalSupply totalSupplyUsd
        supplyCap borrowCollateralFactor liquidateCollateralFactor liquidationFactor } } } }
  errors { poolAddress error { code message } } } }"""


async def test_pool_details_of_a_comet_priced_in_eth(world_client, world):
    reply = await world_client.query(
        POOL_QUERY,
        {
            "inputs": [
                {"protocol": "compound", "chainId": 31337, "poolAddress": address}
                for address in (world.weth_market, world.tokens["USDC"])
            ]
        },
    )
    (answer,) = reply.body["data"]["poolDetails"]["data"]
    (error,) = reply.body["data"]["poolDetails"]["errors"]
    assert error["error"]["message"] == (
        f"{world.tokens['USDC']} is not a Compound v3 market on chain 31337: expected the Comet address of one of "
        f"cUSDCv3 {world.usdc_market}, cWETHv3 {world.weth_market}."
    )
    assert answer["warnings"] == []
    block = answer["blockNumber"]
    supply_rate, borrow_rate = (
        rate(world, world.weth_market, name, block) for name in ("getSupplyRate", "getBorrowRate")
    )
    details = answer["details"]
    for name, per_second in (("supply", supply_rate), ("borrow", borrow_rate)):
        assert details.pop(f"{name}Apy") == pytest.approx(compounded(per_second), rel=1e-12)
        assert details.pop(f"{name}Apr") == per_second * SECONDS / 10**18
    assert details == {
        "type": "compound-market-pool",
        "cometAddress": world.weth_market,
        "chainId": 31337,
        "name": "cWETHv3",
        "baseAsset": {"address": world.tokens["WETH"], "symbol": "WETH", "name": "Test WETH", "decimals": 18},
        "basePriceUsd": usd_via_eth(C.ETHER, "WETH"),
        "totalSupply": str(10_000 * C.ETHER),
        "totalSupplyUsd": usd_via_eth(10_000 * C.ETHER, "WETH"),
        "totalBorrow": str(4_100 * C.ETHER),
        "totalBorrowUsd": usd_via_eth(4_100 * C.ETHER, "WETH"),
        "utilization": 0.41,
        "baseReserves": str(-3 * C.ETHER),
        "baseBorrowMin": str(100 * C.USDC),
        "collaterals": [
            {
                "asset": {"symbol": "WBTC", "decimals": 8},
                "priceUsd": usd_via_eth(10**8, "WBTC"),
                "totalSupply": str(120 * 10**8),
                "totalSupplyUsd": usd_via_eth(120 * 10**8, "WBTC"),
                "supplyCap": str(10**30),
                "borrowCollateralFactor": 0.8,
                "liquidateCollateralFactor": 0.85,
                "liquidationFactor": 0.95,
            },
            {
                "asset": {"symbol": "USDC", "decimals": 6},
                "priceUsd": usd_via_eth(C.USDC, "USDC"),
                "totalSupply": str(700_000 * C.USDC),
                "totalSupplyUsd": usd_via_eth(700_000 * C.USDC, "USDC"),
                "supplyCap": str(10**30),
                "borrowCollateralFactor": 0.85,
                "liquidateCollateralFactor": 0.9,
                "liquidationFactor": 0.95,
            },
        ],
    }


def test_comet_calls_match_compounds_published_abi():
    path = SDKS / "@compound-finance" / "compound-js" / "dist" / "nodejs" / "comet-artifacts" / "comet-constants.json"
    abi = json.loads(path.read_text())["abi"]
    published = function_signatures(abi)
    names = {f"{e['name']}({','.join(i['type'] for i in e['inputs'])})": e["outputs"] for e in abi if "outputs" in e}
    rewards = (comet.GET_REWARD_OWED, comet.REWARDS_CLAIMED)  # CometRewards', not Comet's
    functions = [f for f in vars(comet).values() if isinstance(f, Function) and f not in rewards]
    assert len(functions) == 19
    for function in functions:
        assert published.get(function.signature) == tuple(function.output_types), function.signature
        assert output_names(function) == published_names(names[function.signature]), function.signature


def output_names(function: Function) -> list[tuple[str, list]]:
    """The names our outputs and their components carry ('' where none), as published_names."""

    def named(abi_type: AbiType, name: str) -> tuple[str, list]:
        while abi_type.kind == "array":
            abi_type = abi_type.items[0]
        names = abi_type.names or ("",) * len(abi_type.items) if abi_type.kind == "tuple" else ()
        return name, [named(item, component) for item, component in zip(abi_type.items, names)]

    return named(parse_type("(" + ",".join(function.outputs) + ")"), "")[1]


def published_names(params: list[dict]) -> list[tuple[str, list]]:
    """The names an ABI JSON gives parameters and their components, without a leading underscore."""
    return [(param["name"].lstrip("_"), published_names(param.get("components", []))) for param in params]


def test_rewards_call_matches_the_function_list_the_readme_cites():
    page = (Path(__file__).resolve().parents[1] / "docs" / "protocols" / "compound.md").read_text()
    cited = re.search(r"CometRewards functions called:\s+`([^`]+)`", page).group(1)
    reward_owed = comet.GET_REWARD_OWED
    assert cited == f"{reward_owed.signature} returns ({','.join(reward_owed.output_types)})"


@pytest.mark.parametrize("per_second", [0, 1, 317097919, 10**12])
def test_apr_and_apy(per_second):
    assert market.apr(per_second) == per_second * SECONDS / 1e18
    assert market.apy(per_second) == pytest.approx(compounded(per_second), rel=1e-12, abs=1e-30)
