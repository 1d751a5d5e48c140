"""The Morpho adapter against the real Morpho Blue on anvil, with test vaults and price feeds.

Every expected figure is computed here from chain state at the block the service reports:
balances through Morpho's own MorphoBalancesLib (deployed as TestLens), rates from the IRM,
prices from the feed and oracle, with the formulas docs/protocols/morpho.md documents.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
from fractions import Fraction

import pytest

import protocols
import server
from adapters.morpho import contracts as morpho
from adapters.morpho.section import MORPHO
from tests import morpho_world as W
from tests.conftest import covered_to, query_positions, until_indexed, world_api, world_fixture
from tests.evm import TOOLS, Anvil
from tests.morpho_world import market_id
from tests.rpc_proxy import RpcProxy

PARAMS = "(address,address,address,address,uint256)"
MARKET = "(uint128,uint128,uint128,uint128,uint128,uint128)"
YEAR = 365 * 24 * 3600
QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on MorphoWalletPositions { protocol walletAddress chainId blockNumber warnings { code message target }
    vaultV1Positions { type vaultAddress vaultName vaultSymbol asset { address symbol name decimals }
                       shares assets assetsUsd apy }
    vaultV2Positions { type vaultAddress vaultName vaultSymbol asset { address symbol name decimals }
                       shares assets assetsUsd apy }
    marketPositions { type marketId loanAsset { address symbol decimals } collateralAsset { address symbol decimals }
      lltv supplyShares supplyAssets supplyAssetsUsd borrowShares borrowAssets borrowAssetsUsd
      collateral collateralUsd supplyApy borrowApy healthFactor } } }
  errors { protocol chainId walletAddress error { code message retryable } } } }"""


world = world_fixture(lambda node: W.build(node, W.compile_all()))


async def positions(api, *wallets, chain_id=31337):
    return await query_positions(api, QUERY, "morpho", wallets, chain_id)


class Chain:
    """Independent reads of the expected figures at one block."""

    def __init__(self, world, block: int) -> None:
        self.world, self.node, self.block = world, world.node, block

    def call(self, to, signature, *args, returns=("uint256",)):
        return self.node.call(to, signature, *args, returns=returns, block=self.block)

    def supply_assets(self, params, user) -> int:
        return self.call(
            self.world.lens, f"expectedSupplyAssets(address,{PARAMS},address)", self.world.morpho, params, user
        )

    def borrow_assets(self, params, user) -> int:
        return self.call(
            self.world.lens, f"expectedBorrowAssets(address,{PARAMS},address)", self.world.morpho, params, user
        )

    def totals(self, params) -> tuple[int, ...]:
        return self.call(
            self.world.morpho, "market(bytes32)", bytes.fromhex(market_id(params)[2:]), returns=["uint128"] * 6
        )

    def borrow_rate(self, params) -> int:
        return self.call(params[3], f"borrowRateView({PARAMS},{MARKET})", params, self.totals(params))

    def rates(self, params) -> tuple[float, float]:
        """The market's APYs accrued to the block, as the SDK quotes the accrued market (the test
        IRM is not adaptive: its rate is borrowRateView's)."""
        return sdk_apys(self.borrow_rate(params), self.accrued_totals(params))

    def accrued_totals(self, params) -> tuple[int, ...]:
        """The market's totals accrued to the block (MorphoBalancesLib), shaped as `market()`'s."""
        supply, _, borrow, _ = self.call(
            self.world.lens,
            f"expectedMarketBalances(address,{PARAMS})",
            self.world.morpho,
            params,
            returns=["uint256"] * 4,
        )
        return (supply, 0, borrow, 0, 0, self.totals(params)[5])

    def accrued_supply_and_rate(self, params, owner) -> tuple[int, int]:
        """`owner`'s supply accrued to the block, and the market's supply rate at its accrued
        utilization (what the SDK weighs an accrued vault by)."""
        return self.supply_assets(params, owner), supply_rate(self.borrow_rate(params), self.accrued_totals(params))

    def vault_v1_rates(self) -> tuple[int, int]:
        """The test V1 vault's per-second rates, (before, after) its fee."""
        parts = [
            self.accrued_supply_and_rate(m, self.world.vault_v1) for m in (self.world.market_a, self.world.market_b)
        ]
        gross = sum(a * r for a, r in parts) // self.call(self.world.vault_v1, "totalAssets()")
        return gross, gross * (10**18 - W.V1_FEE) // 10**18

    def vault_v1_rate(self) -> int:
        return self.vault_v1_rates()[1]

    def vault_v2_rates(self) -> tuple[int, int]:
        """The test V2 vault's per-second rates, (before, after) its fees: its adapters' assets
        weighted by their rates, idle assets earning nothing, capped at maxRate."""
        world = self.world
        parts = [self.accrued_supply_and_rate(m, world.market_adapter) for m in (world.market_a, world.market_b)]
        parts.append((self.call(world.vault_adapter, "realAssets()"), self.vault_v1_rate()))
        idle = self.call(world.usdc, "balanceOf(address)", world.vault_v2)
        gross = min(
            sum(a * r for a, r in parts) // (sum(a for a, _ in parts) + idle), self.call(world.vault_v2, "maxRate()")
        )
        return gross, gross * (10**18 - W.V2_PERFORMANCE_FEE) // 10**18 - W.V2_MANAGEMENT_FEE

    def usd(self, usdc_amount: int) -> float:
        return float(Fraction(usdc_amount * W.USDC_USD, 10 ** (6 + 8)))

    def vault_v1_apy(self) -> float:
        return math.expm1(self.vault_v1_rate() * YEAR / 10**18)


def supply_rate(borrow_rate: int, totals) -> int:
    """rate x utilization x (1 - fee), WAD, rounded down then up, utilization from `totals`."""
    wad = 10**18
    utilization = totals[2] * wad // totals[0]
    return -(-(borrow_rate * utilization // wad) * (wad - totals[5]) // wad)


def sdk_apys(borrow_rate: int, totals) -> tuple[float, float]:
    """(supply APY, borrow APY) as Morpho's SDK quotes a rate: MarketUtils.rateToApy of the supply
    rate and of the borrow rate."""
    return math.expm1(supply_rate(borrow_rate, totals) * YEAR / 10**18), math.expm1(borrow_rate * YEAR / 10**18)


def close(actual, expected, rel=1e-9):
    return actual == pytest.approx(expected, rel=rel, abs=1e-15)


def test_the_named_outputs_are_morpho_blues_own():
    """What the adapter reads by name is named as IMorpho.sol names it (its static-typing
    declarations return the structs' fields one by one)."""
    source = (TOOLS / "@morpho-org/morpho-blue/src/interfaces/IMorpho.sol").read_text()
    for function in (morpho.POSITION, morpho.MARKET, morpho.ID_TO_MARKET_PARAMS):
        returns = re.search(rf"function {function.name}\([^)]*\)\s+external\s+view\s+returns\s*\(([^)]*)\)", source)
        assert returns, function.name
        assert [" ".join(output.split()) for output in returns.group(1).split(",")] == list(function.outputs)
    struct = re.search(r"struct MarketParams \{([^}]*)\}", source)
    assert struct and [field.strip() for field in struct.group(1).split(";")[:-1]] == list(morpho.MARKET_PARAMS_FIELDS)


async def test_wallet_without_positions_gets_empty_lists(world_client, world):
    result = await positions(world_client, world.wallets["empty"])
    (entry,) = result["data"]
    assert result["errors"] == []
    assert entry["vaultV1Positions"] == entry["vaultV2Positions"] == entry["marketPositions"] == []
    assert entry["warnings"] == [], "an empty list: the answer is complete"
    assert entry["blockNumber"] == world.node.block_number()
    assert entry["protocol"] == "morpho" and entry["walletAddress"] == world.wallets["empty"]


async def test_market_positions_match_morpho_balances_lib(world_client, world):
    result = await positions(world_client, world.wallets["lender"], world.wallets["borrower"])
    lender, borrower = result["data"]
    assert lender["warnings"] == borrower["warnings"] == []
    chain = Chain(world, lender["blockNumber"])
    assert borrower["blockNumber"] == chain.block
    by_id = {p["marketId"]: p for p in lender["marketPositions"]}
    assert set(by_id) == {market_id(world.market_a), market_id(world.market_b)}
    a = by_id[market_id(world.market_a)]
    supplied = chain.supply_assets(world.market_a, world.wallets["lender"])
    shares = chain.call(
        world.morpho,
        "position(bytes32,address)",
        bytes.fromhex(a["marketId"][2:]),
        world.wallets["lender"],
        returns=["uint256", "uint128", "uint128"],
    )
    assert a["supplyShares"] == str(shares[0]) and a["supplyAssets"] == str(supplied)
    assert supplied > 1_000_000 * W.USDC, "30 days of interest are included"
    assert a["supplyAssetsUsd"] == chain.usd(supplied)
    supply_apy, borrow_apy = chain.rates(world.market_a)
    assert close(a["supplyApy"], supply_apy) and close(a["borrowApy"], borrow_apy)
    assert a["healthFactor"] is None and a["borrowAssets"] == "0" and a["borrowAssetsUsd"] == 0.0
    assert a["lltv"] == 0.86 and a["loanAsset"] == {"address": world.usdc, "symbol": "USDC", "decimals": 6}
    assert a["collateralAsset"]["symbol"] == "WETH"

    (debt,) = borrower["marketPositions"]
    borrowed = chain.borrow_assets(world.market_a, world.wallets["borrower"])
    assert debt["borrowAssets"] == str(borrowed) and borrowed > 150_000 * W.USDC
    assert debt["collateral"] == str(100 * W.ETHER)
    collateral_in_usdc = Fraction(100 * W.ETHER * W.ORACLE_PRICE, 10**36)
    assert debt["collateralUsd"] == float(collateral_in_usdc * W.USDC_USD / 10**14)
    assert debt["healthFactor"] == float(collateral_in_usdc * W.LLTV_A / 10**18 / borrowed)
    assert debt["borrowAssetsUsd"] == chain.usd(borrowed)


async def test_vault_positions_and_apys(world_client, world):
    (entry,) = (await positions(world_client, world.wallets["depositor"], world.wallets["saver"]))["data"][:1]
    chain = Chain(world, entry["blockNumber"])
    (v1,) = [v for v in entry["vaultV1Positions"] if v["vaultAddress"] == world.vault_v1]
    shares = chain.call(world.vault_v1, "balanceOf(address)", world.wallets["depositor"])
    assets = chain.call(world.vault_v1, "convertToAssets(uint256)", shares)
    assert v1 == {
        "type": "morpho-vault-v1",
        "vaultAddress": world.vault_v1,
        "vaultName": "Test USDC Vault",
        "vaultSymbol": "tvUSDC",
        "asset": {"address": world.usdc, "symbol": "USDC", "name": "USD Coin", "decimals": 6},
        "shares": str(shares),
        "assets": str(assets),
        "assetsUsd": chain.usd(assets),
        "apy": v1["apy"],
    }
    assert close(v1["apy"], chain.vault_v1_apy())


async def test_vault_v2_apy_goes_through_its_adapters(world_client, world):
    (entry,) = (await positions(world_client, world.wallets["saver"]))["data"]
    chain = Chain(world, entry["blockNumber"])
    (v2,) = entry["vaultV2Positions"]
    shares = chain.call(world.vault_v2, "balanceOf(address)", world.wallets["saver"])
    assert v2["shares"] == str(shares)
    assert v2["assets"] == str(chain.call(world.vault_v2, "convertToAssets(uint256)", shares))
    assert chain.call(world.usdc, "balanceOf(address)", world.vault_v2) > 0, "idle assets weigh in"
    assert close(v2["apy"], math.expm1(chain.vault_v2_rates()[1] * YEAR / 10**18))
    assert entry["vaultV1Positions"] == [] and entry["marketPositions"] == []


async def test_a_held_vault_that_cannot_convert_stays_listed_with_a_warning(world_client, world):
    (entry,) = (await positions(world_client, world.wallets["depositor"]))["data"]
    by_vault = {v["vaultAddress"]: v for v in entry["vaultV1Positions"]}
    assert set(by_vault) == {world.vault_v1, world.broken_vault}
    broken = by_vault[world.broken_vault]
    shares = world.node.call(world.broken_vault, "balanceOf(address)", world.wallets["depositor"])
    assert broken["shares"] == str(shares) and shares > 0
    assert broken["vaultName"] == "Broken Vault" and broken["asset"]["symbol"] == "USDC"
    assert broken["assets"] is None and broken["assetsUsd"] is None, "no figure is guessed"
    (warning,) = entry["warnings"]
    assert warning["code"] == "FIGURE_UNAVAILABLE" and warning["target"] == world.broken_vault
    assert "assets and assetsUsd are null" in warning["message"] and "TestVault: broken" in warning["message"]


async def test_a_stale_feed_leaves_usd_null_and_amounts_intact(world_client, world):
    world.set_feed(W.USDC_USD, age=86400 + 60)
    try:
        (entry,) = (await positions(world_client, world.wallets["lender"]))["data"]
    finally:
        world.set_feed(W.USDC_USD)
    for position in entry["marketPositions"]:
        assert position["supplyAssetsUsd"] is None and position["borrowAssetsUsd"] is None
        assert int(position["supplyAssets"]) > 0 and position["supplyApy"] > 0
    (warning,) = entry["warnings"]
    assert warning["code"] == "PRICE_UNAVAILABLE" and warning["target"] == world.usdc
    assert "more than its heartbeat of 86400 s" in warning["message"]


@pytest.mark.parametrize("status, since, priced", [(0, 7200, True), (1, 7200, False), (0, 600, False)])
async def test_l2_prices_need_the_sequencer_up_for_an_hour(
    aiohttp_client, keys_file, api_key, world, tmp_path, status, since, priced
):
    uptime = world.node.deploy(W.compile_all()["TestPriceFeed"], ["uint8"], [0])
    world.node.send(uptime, "set(int256,uint256)", status, world.timestamp() - since)
    world.set_feed(W.USDC_USD)
    path = world.write_addresses(tmp_path / "a.json", sequencer_feed=uptime)
    api = await world_api(aiohttp_client, keys_file, api_key, path, world.node)
    (entry,) = (await positions(api, world.wallets["lender"]))["data"]
    assert all((p["supplyAssetsUsd"] is not None) is priced for p in entry["marketPositions"])
    assert all(int(p["supplyAssets"]) > 0 for p in entry["marketPositions"])
    assert [w["code"] for w in entry["warnings"]] == ([] if priced else ["PRICE_UNAVAILABLE"])


async def test_an_unsupported_chain_is_a_validation_error(world_client, world):
    result = await positions(world_client, world.wallets["lender"], chain_id=43114)
    assert result["data"] == []
    assert result["errors"][0]["error"]["code"] == "VALIDATION_ERROR"
    assert "Chain 43114 is not supported by protocol 'morpho'" in result["errors"][0]["error"]["message"]


async def test_rounds_do_not_grow_with_inputs_and_history_is_not_rescanned(world_client, world, caplog):
    caplog.set_level(logging.INFO)
    await positions(world_client, world.wallets["empty"])
    deployment = MORPHO.of(
        protocols.load_addresses(str(world_client.app[server.SETTINGS].addresses_file))[world.node.chain_id]
    )
    index = world_client.app[server.INDEXES].store(world.node.chain_id)
    for _ in range(100):
        if await covered_to(index, morpho.stream(deployment)) == world.node.finalized_block():
            break
        await asyncio.sleep(0.05)
    names = ("lender", "borrower", "depositor", "saver", "empty")
    caplog.clear()
    for name in names:
        await positions(world_client, world.wallets[name])
    await positions(world_client, *(world.wallets[name] for name in names))
    *singles, together = [r.fields for r in caplog.records if r.name == "wallet_positions.access"]
    assert together["rpc_requests"] <= max(single["rpc_requests"] for single in singles), (singles, together)
    scanned = [r.getMessage() for r in caplog.records if r.name == "wallet_positions.index"]
    assert scanned == [], "the settled history was scanned once, before these requests"
    assert await covered_to(index, morpho.stream(deployment)) == world.node.finalized_block(), (
        "settled history is kept, up to the endpoint's finalized block; only the blocks after it are read again"
    )


@pytest.fixture(scope="module")
def hostile():
    node = Anvil()
    try:
        artifacts = W.compile_all()
        world = W.build(node, artifacts)
        yield world, W.add_hostile_parts(world, artifacts)
    finally:
        node.stop()


async def test_hostile_contracts_cost_only_their_own_figures(
    aiohttp_client, keys_file, api_key, hostile, tmp_path, caplog
):
    caplog.set_level(logging.INFO)
    world, parts = hostile
    api = await world_api(aiohttp_client, keys_file, api_key, world.write_addresses(tmp_path / "a.json"), world.node)
    lender, borrower, saver = (
        await positions(api, world.wallets["lender"], world.wallets["borrower"], world.wallets["saver"])
    )["data"]

    flaky = market_id(parts["flaky"])
    by_id = {p["marketId"]: p for p in lender["marketPositions"]}
    assert set(by_id) == {market_id(world.market_a), market_id(world.market_b), flaky}, "a held position stays"
    assert by_id[flaky]["supplyAssets"] is None and by_id[flaky]["borrowAssets"] is None
    assert by_id[flaky]["supplyShares"] != "0" and by_id[flaky]["collateral"] == str(W.ETHER)
    assert by_id[flaky]["supplyApy"] is None and by_id[flaky]["healthFactor"] is None
    (warning,) = [w for w in lender["warnings"] if w["target"] == flaky]
    assert warning["code"] == "FIGURE_UNAVAILABLE" and "FlakyIrm: no view" in warning["message"]

    by_id = {p["marketId"]: p for p in borrower["marketPositions"]}
    bombed = by_id[market_id(parts["bombed"])]
    assert bombed["collateral"] == "1" and bombed["healthFactor"] is None
    assert bombed["collateralUsd"] == 0.0, "read alone, the bomb's first word (0) is its price"
    healthy = by_id[market_id(world.market_a)]
    assert healthy["healthFactor"] > 1 and healthy["collateralUsd"] > 0, "the bomb did not take the batch down"
    assert any("splitting it" in r.getMessage() for r in caplog.records), "the bomb did fail its aggregate3"

    by_vault = {v["vaultAddress"]: v for v in saver["vaultV2Positions"]}
    claimed = by_vault[parts["hostile_vault"]]
    assert claimed["apy"] is None and claimed["assets"] == str(5 * 10**6), "amounts kept, APY refused"
    assert by_vault[world.vault_v2]["apy"] > 0
    (warning,) = saver["warnings"]
    assert warning["target"] == parts["hostile_vault"] and "more than the 32 this service reads" in warning["message"]


async def test_vault_v2_apy_is_capped_at_its_max_rate(world_client, world):
    cap = 10**8
    world.node.send(world.vault_v2, "setMaxRate(uint64)", cap)
    try:
        (entry,) = (await positions(world_client, world.wallets["saver"]))["data"]
    finally:
        world.node.send(world.vault_v2, "setMaxRate(uint64)", 2 * 10**18 // YEAR)
    (v2,) = entry["vaultV2Positions"]
    net = cap * (10**18 - W.V2_PERFORMANCE_FEE) // 10**18 - W.V2_MANAGEMENT_FEE
    assert close(v2["apy"], math.expm1(net * YEAR / 10**18)), "depositors earn no more than maxRate lets assets grow"


async def test_a_cold_index_checks_every_known_market_and_says_how_far_it_reaches(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path
):
    """While the stored index is too far behind and its scan is slow, the answer does not wait
    for it: every market the catalog holds is checked in bulk, and a warning names the block the
    index reaches."""
    node, newcomer = world.node, world.node.accounts[19]
    proxy = RpcProxy(node.url)
    proxy.url = str((await aiohttp_server(proxy.app(), host="127.0.0.1")).make_url("/"))
    api = await world_api(
        aiohttp_client,
        keys_file,
        api_key,
        world.write_addresses(tmp_path / "a.json"),
        node,
        url=proxy.url,
        logs_block_range=4,
        input_timeout=4,
    )
    deployment = MORPHO.of(protocols.load_addresses(str(tmp_path / "a.json"))[node.chain_id])
    index = api.app[server.INDEXES].store(node.chain_id)
    await positions(api, newcomer)
    await until_indexed(index, morpho.stream(deployment), node)
    snapshot = node.rpc("evm_snapshot")
    try:
        W._fund(world, world.usdc, newcomer, 1_000 * W.USDC)
        node.send(
            world.morpho,
            f"supply({PARAMS},uint256,uint256,address,bytes)",
            world.market_b,
            1_000 * W.USDC,
            0,
            newcomer,
            b"",
            sender=newcomer,
        )
        node.mine(120)
        proxy.method_delays = {"eth_getLogs": 10.0}
        (entry,) = (await positions(api, newcomer))["data"]
    finally:
        proxy.method_delays = {}
        node.rpc("evm_revert", snapshot)
    assert [p["marketId"] for p in entry["marketPositions"]] == [market_id(world.market_b)]
    (warning,) = entry["warnings"]
    covered = await covered_to(index, morpho.stream(deployment))
    assert warning["code"] == "PART_UNREADABLE" and warning["target"] == world.morpho
    assert f"reaches block {covered} of {entry['blockNumber']}" in warning["message"]
