"""The Aave v3 adapter against real Aave v3 markets deployed on anvil from Aave's npm artifacts.

Expected figures come from other functions than the adapter reads: token balances straight from
the aToken and debt tokens, rates from the Pool's own getReserveData, prices from the oracle.
"""

from __future__ import annotations

import contextlib
import json
from fractions import Fraction

import pytest

from adapters.aave import contracts
from adapters.aave import market as aave_market
from chain import abi, erc20
from tests import aave_world as A
from tests.conftest import compounded_per_second, query_positions, world_api, world_fixture
from tests.evm import functions_of
from tests.node_oracles import aave_apys, aave_incentive_aprs

SECONDS = 365 * 24 * 3600
QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on AaveWalletPositions { protocol walletAddress chainId blockNumber warnings { code message target }
    marketStates { marketAddress marketName netWorthUsd totalCollateralUsd totalDebtUsd availableBorrowsUsd
                   healthFactor ltv liquidationThreshold eModeCategoryId }
    supplyPositions { type marketAddress marketName currency { address symbol name decimals } balance balanceUsd
                      apy isCollateral canBeCollateral }
    borrowPositions { type marketAddress marketName currency { address symbol decimals } debt debtUsd apy } } }
  errors { protocol chainId walletAddress error { code message retryable } } } }"""


world = world_fixture(A.build)


async def positions(api, *wallets, chain_id=31337):
    return await query_positions(api, QUERY, "aave", wallets, chain_id)


def compounded(rate_ray: int) -> float:
    return compounded_per_second(rate_ray, 10**27 * SECONDS)


class Expected:
    def __init__(self, world, block):
        self.node, self.block = world.node, block

    def call(self, to, signature, *args, returns=("uint256",)):
        return self.node.call(to, signature, *args, returns=returns, block=self.block)

    def reserve(self, market, symbol):
        return self.call(
            market.pool, "getReserveData(address)", market.tokens[symbol], returns=list(A.POOL_RESERVE_DATA)
        )

    def supplied(self, market, symbol, wallet):
        return self.call(self.reserve(market, symbol)[8], "balanceOf(address)", wallet)

    def owed(self, market, symbol, wallet):
        reserve = self.reserve(market, symbol)
        return sum(self.call(token, "balanceOf(address)", wallet) for token in (reserve[9], reserve[10]))

    def usd(self, market, symbol, amount, decimals):
        price = self.call(market.oracle, "getAssetPrice(address)", market.tokens[symbol])
        return float(Fraction(amount * price, 10**decimals * 10**8))


async def test_wallet_without_positions_gets_empty_lists(world_client, world):
    (entry,) = (await positions(world_client, world.wallets["empty"]))["data"]
    assert entry["marketStates"] == entry["supplyPositions"] == entry["borrowPositions"] == []
    assert entry["warnings"] == []
    assert entry["blockNumber"] == world.node.block_number()


async def test_supply_only_wallet_has_no_health_factor(world_client, world):
    (entry,) = (await positions(world_client, world.wallets["lender"]))["data"]
    expected = Expected(world, entry["blockNumber"])
    _core, _second = world.markets
    assert [(p["marketName"], p["currency"]["symbol"]) for p in entry["supplyPositions"]] == [
        ("AaveV3TestCore", "USDC"),
        ("AaveV3TestSecond", "USDC"),
    ]
    for position, market in zip(entry["supplyPositions"], world.markets):
        balance = expected.supplied(market, "USDC", world.wallets["lender"])
        assert position["balance"] == str(balance) and balance > 500_000 * A.USDC
        assert position["balanceUsd"] == expected.usd(market, "USDC", balance, 6)
        rate = expected.reserve(market, "USDC")[2]
        assert position["apy"] == pytest.approx(compounded(rate), rel=1e-9)
        assert position["apy"] == pytest.approx(*aave_apys([rate]), rel=1e-9), "as Aave's math-utils has it"
        assert position["isCollateral"] is True and position["canBeCollateral"] is True
        assert position["marketAddress"] == market.pool
    assert entry["borrowPositions"] == [] and entry["warnings"] == []
    assert [s["healthFactor"] for s in entry["marketStates"]] == [None, None]
    assert [s["marketName"] for s in entry["marketStates"]] == ["AaveV3TestCore", "AaveV3TestSecond"]


async def test_borrower_in_two_markets_of_one_chain(world_client, world):
    (entry,) = (await positions(world_client, world.wallets["borrower"]))["data"]
    expected = Expected(world, entry["blockNumber"])
    borrower = world.wallets["borrower"]
    core, second = world.markets
    debts = {(p["marketName"], p["currency"]["symbol"]): p for p in entry["borrowPositions"]}
    for market in (core, second):
        debt = debts[(market.name, "USDC")]
        owed = expected.owed(market, "USDC", borrower)
        assert debt["debt"] == str(owed) and owed > 5_000 * A.USDC
        assert debt["debtUsd"] == expected.usd(market, "USDC", owed, 6)
        assert debt["apy"] == pytest.approx(compounded(expected.reserve(market, "USDC")[4]), rel=1e-9)
        assert debt["type"] == "aave-borrow"
    for state, market in zip(entry["marketStates"], world.markets):
        collateral, debt, available, _threshold, _ltv, health = expected.call(
            market.pool, "getUserAccountData(address)", borrower, returns=["uint256"] * 6
        )
        assert state["totalCollateralUsd"] == collateral / 1e8 and state["totalDebtUsd"] == debt / 1e8
        assert state["netWorthUsd"] == pytest.approx((collateral - debt) / 1e8, rel=1e-12)
        assert state["availableBorrowsUsd"] == available / 1e8
        assert state["healthFactor"] == pytest.approx(health / 1e18, rel=1e-15)
        assert state["ltv"] == 0.8 and state["liquidationThreshold"] == 0.825 and state["eModeCategoryId"] == 0
        collateral_usd = sum(p["balanceUsd"] for p in entry["supplyPositions"] if p["marketName"] == market.name)
        debt_usd = sum(p["debtUsd"] for p in entry["borrowPositions"] if p["marketName"] == market.name)
        assert state["healthFactor"] == pytest.approx(collateral_usd * 0.825 / debt_usd, rel=1e-6), (
            "the health factor follows from the positions themselves"
        )


@contextlib.contextmanager
def failing_price(world, market, symbol):
    """The market oracle's source for `symbol` replaced by one answering 0 (the oracle then
    reverts), in a snapshot undone afterwards."""
    node = world.node
    snapshot = node.rpc("evm_snapshot")
    try:
        broken = A.Deployer(node).deploy("MockAggregator", 0)
        node.send(market.oracle, "setAssetSources(address[],address[])", [market.tokens[symbol]], [broken])
        yield
    finally:
        node.rpc("evm_revert", snapshot)


async def test_an_oracle_that_reverts_leaves_usd_null_and_amounts(world_client, world):
    second = world.markets[1]
    with failing_price(world, second, "DAI"):
        (entry,) = (await positions(world_client, world.wallets["borrower"]))["data"]
    dai = next(p for p in entry["supplyPositions"] if p["currency"]["symbol"] == "DAI")
    assert dai["balanceUsd"] is None and int(dai["balance"]) >= 20_000 * A.ETHER
    assert [s["marketName"] for s in entry["marketStates"]] == ["AaveV3TestCore"], (
        "the broken market's account totals need the oracle; the other market's state stays"
    )
    usdc = next(p for p in entry["borrowPositions"] if p["marketName"] == "AaveV3TestSecond")
    assert usdc["debtUsd"] is not None, "other assets of the same market keep their prices"
    assert sorted((w["code"], w["target"]) for w in entry["warnings"]) == [
        ("FIGURE_UNAVAILABLE", second.pool),
        ("PRICE_UNAVAILABLE", second.tokens["DAI"]),
    ]


async def test_collateral_flags_ltv_zero_and_e_mode(world_client, world):
    node, (core, second) = world.node, world.markets
    lender, borrower = world.wallets["lender"], world.wallets["borrower"]
    snapshot = node.rpc("evm_snapshot")
    try:
        node.send(core.pool, "setUserUseReserveAsCollateral(address,bool)", core.tokens["USDC"], False, sender=lender)
        node.send(
            core.configurator,
            "configureReserveAsCollateral(address,uint256,uint256,uint256)",
            core.tokens["WETH"],
            0,
            8250,
            10500,
        )
        node.send(
            second.configurator,
            "setEModeCategory(uint8,uint16,uint16,uint16,address,string)",
            1,
            9000,
            9300,
            10100,
            "0x" + "00" * 20,
            "stablecoins",
        )
        node.send(second.configurator, "setAssetEModeCategory(address,uint8)", second.tokens["USDC"], 1)
        node.send(second.pool, "setUserEMode(uint8)", 1, sender=borrower)
        lent, borrowed = (await positions(world_client, lender, borrower))["data"]
    finally:
        node.rpc("evm_revert", snapshot)
    core_supply = next(p for p in lent["supplyPositions"] if p["marketName"] == core.name)
    assert core_supply["isCollateral"] is False and core_supply["canBeCollateral"] is True
    core_state = next(s for s in lent["marketStates"] if s["marketName"] == core.name)
    assert core_state["totalCollateralUsd"] == 0.0
    assert core_state["netWorthUsd"] == core_supply["balanceUsd"], "net worth counts every supply"
    weth = next(p for p in borrowed["supplyPositions"] if p["currency"]["symbol"] == "WETH")
    assert weth["canBeCollateral"] is False and weth["isCollateral"] is True, (
        "an LTV-0 asset cannot be enabled, but still counts for the liquidation threshold"
    )
    assert [s["eModeCategoryId"] for s in borrowed["marketStates"]] == [0, 1]


async def test_isolation_mode_decides_can_be_collateral_as_the_pool_does(world_client, world):
    """An asset with a debt ceiling: enabled alone it isolates the wallet (nothing else can be
    enabled); beside other collateral it cannot be enabled. Each figure is checked against what
    the Pool then does when asked to enable."""
    node, (core, _) = world.node, world.markets
    isolated_holder, other_holder = node.accounts[14], node.accounts[15]
    snapshot = node.rpc("evm_snapshot")
    try:
        A.add_reserves(A.Deployer(node), core, {"ISO": (18, 2 * 10**8)})
        node.send(core.configurator, "setDebtCeiling(address,uint256)", core.tokens["ISO"], 1_000_000)
        A.supply(node, core, "ISO", 1_000 * A.ETHER, isolated_holder)
        node.send(
            core.pool, "setUserUseReserveAsCollateral(address,bool)", core.tokens["ISO"], True, sender=isolated_holder
        )
        A.supply(node, core, "USDC", 1_000 * A.USDC, isolated_holder)
        A.supply(node, core, "USDC", 1_000 * A.USDC, other_holder)
        A.supply(node, core, "ISO", 1_000 * A.ETHER, other_holder)
        isolated, other = (await positions(world_client, isolated_holder, other_holder))["data"]
        refused = [
            node.call_reverts(
                core.pool, "setUserUseReserveAsCollateral(address,bool)", core.tokens[symbol], True, sender=wallet
            )
            for wallet, symbol in ((isolated_holder, "USDC"), (other_holder, "ISO"))
        ]
    finally:
        node.rpc("evm_revert", snapshot)
    by_symbol = {p["currency"]["symbol"]: p for p in isolated["supplyPositions"]}
    assert (by_symbol["ISO"]["isCollateral"], by_symbol["ISO"]["canBeCollateral"]) == (True, True)
    assert (by_symbol["USDC"]["isCollateral"], by_symbol["USDC"]["canBeCollateral"]) == (False, False)
    assert isolated["marketStates"][0]["totalCollateralUsd"] == 2_000.0
    by_symbol = {p["currency"]["symbol"]: p for p in other["supplyPositions"]}
    assert (by_symbol["USDC"]["isCollateral"], by_symbol["USDC"]["canBeCollateral"]) == (True, True)
    assert (by_symbol["ISO"]["isCollateral"], by_symbol["ISO"]["canBeCollateral"]) == (False, False)
    assert refused == [True, True], "the Pool refuses exactly what canBeCollateral says it would"


async def test_an_unsupported_chain_is_a_validation_error(world_client, world):
    result = await positions(world_client, world.wallets["lender"], chain_id=250)
    assert result["errors"][0]["error"]["code"] == "VALIDATION_ERROR"


async def test_a_market_whose_pool_fails_is_left_out_with_a_warning(
    aiohttp_client, keys_file, api_key, world, tmp_path
):
    override = world.addresses_override()
    chain = override[str(world.node.chain_id)]
    nowhere = "0x" + "de" * 20
    chain["aave"].append({**chain["aave"][0], "name": "Nowhere", "pool": nowhere})
    path = tmp_path / "a.json"
    path.write_text(json.dumps(override))
    api = await world_api(aiohttp_client, keys_file, api_key, path, world.node)
    (entry,) = (await positions(api, world.wallets["lender"]))["data"]
    assert len(entry["supplyPositions"]) == 2
    (warning,) = entry["warnings"]
    assert (warning["code"], warning["target"]) == ("PART_UNREADABLE", nowhere)
    assert warning["message"].startswith(f"Aave market {nowhere} is left out: ")
    assert "no contract code" in warning["message"]


POOL_QUERY = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) {
  data { poolAddress blockNumber data warnings { code message target }
    details { ... on AaveMarketPool { type addressesProvider chainId marketName pool reserves {
      asset { address symbol name decimals } aToken variableDebtToken totalSupplied totalSuppliedUsd totalBorrowed
      totalBorrowedUsd utilization supplyApy borrowApy priceUsd ltv liquidationThreshold liquidationBonus
      reserveFactor supplyCap borrowCap usageAsCollateralEnabled borrowingEnabled isActive isFrozen isPaused
      supplyRewards { token { address symbol name decimals } apr endsAt }
      borrowRewards { token { address symbol name decimals } apr endsAt } } } } }
  errors { poolAddress error { code message } } } }"""


async def pools(api, *addresses):
    reply = await api.query(
        POOL_QUERY, {"inputs": [{"protocol": "aave", "chainId": 31337, "poolAddress": a} for a in addresses]}
    )
    assert reply.status == 200, reply.body
    return reply.body["data"]["poolDetails"]


async def test_a_market_by_its_addresses_provider_or_pool_with_every_reserve(world_client, world):
    core, second = world.markets
    result = await pools(world_client, core.provider, second.pool, "0x" + "77" * 20)
    by_provider, by_pool = result["data"]
    assert (by_provider["warnings"], by_pool["warnings"]) == ([], [])
    assert by_pool["details"]["addressesProvider"] == second.provider and by_pool["poolAddress"] == second.pool
    (error,) = result["errors"]
    assert (error["poolAddress"], error["error"]["code"]) == ("0x" + "77" * 20, "VALIDATION_ERROR")
    assert error["error"]["message"] == (
        f"{'0x' + '77' * 20} is not an Aave market on chain 31337: expected the PoolAddressesProvider (or Pool) of "
        f"one of AaveV3TestCore {core.provider}, AaveV3TestSecond {second.provider}."
    )
    expected = Expected(world, by_provider["blockNumber"])
    details = by_provider["details"]
    reserves = details.pop("reserves")
    assert details == {
        "type": "aave-market-pool",
        "addressesProvider": core.provider,
        "chainId": 31337,
        "marketName": "AaveV3TestCore",
        "pool": core.pool,
    }
    assert json.loads(by_provider["data"])["reserves"] == reserves
    rates = [expected.reserve(core, symbol)[i] for symbol in ("WETH", "USDC") for i in (2, 4)]
    math_utils = aave_apys(rates)
    for reserve, symbol, (decimals, price) in zip(reserves, ("WETH", "USDC"), ((18, 3000 * 10**8), (6, 100_010_000))):
        data = expected.reserve(core, symbol)
        supplied, variable, stable = (expected.call(token, "totalSupply()") for token in (data[8], data[10], data[9]))
        supply_apy, borrow_apy = math_utils[:2] if symbol == "WETH" else math_utils[2:]
        assert reserve.pop("supplyApy") == pytest.approx(supply_apy, rel=1e-9)
        assert reserve.pop("borrowApy") == pytest.approx(borrow_apy, rel=1e-9)
        incentivized = {"supplyRewards": symbol == "WETH", "borrowRewards": symbol == "USDC"}
        for side, paid in incentivized.items():
            assert [r["token"]["symbol"] for r in reserve.pop(side)] == (["RWD"] if paid else []), (symbol, side)
        assert reserve == {
            "asset": {"address": core.tokens[symbol], "symbol": symbol, "name": f"Test {symbol}", "decimals": decimals},
            "aToken": data[8],
            "variableDebtToken": data[10],
            "totalSupplied": str(supplied),
            "totalSuppliedUsd": expected.usd(core, symbol, supplied, decimals),
            "totalBorrowed": str(variable + stable),
            "totalBorrowedUsd": expected.usd(core, symbol, variable + stable, decimals),
            "utilization": (variable + stable) / supplied,
            "priceUsd": price / 10**8,
            "ltv": 0.8,
            "liquidationThreshold": 0.825,
            "liquidationBonus": 0.05,
            "reserveFactor": 0.0,
            "supplyCap": "0",
            "borrowCap": "0",
            "usageAsCollateralEnabled": True,
            "borrowingEnabled": True,
            "isActive": True,
            "isFrozen": False,
            "isPaused": False,
        }
    assert int(reserves[1]["totalBorrowed"]) > 12_000 * A.USDC, "the debt accrued to the block"


async def test_a_reserve_whose_oracle_fails_keeps_its_amounts(world_client, world):
    core = world.markets[0]
    with failing_price(world, core, "WETH"):
        (answer,) = (await pools(world_client, core.provider))["data"]
    weth, usdc = answer["details"]["reserves"]
    assert weth["priceUsd"] is None and weth["totalSuppliedUsd"] is None and weth["totalSupplied"] != "0"
    assert usdc["priceUsd"] is not None
    assert weth["supplyRewards"][0]["apr"] is None, "its reward's APR needs the price too"
    assert [(w["code"], w["target"]) for w in answer["warnings"]] == [("PRICE_UNAVAILABLE", core.tokens["WETH"])] * 2


POSITIONS_AND_POOLS = {
    "RESERVES_LIST": "IPool",
    "USER_ACCOUNT_DATA": "IPool",
    "USER_EMODE": "IPool",
    "USER_RESERVE_DATA": "AaveProtocolDataProvider",
    "RESERVE_DATA": "AaveProtocolDataProvider",
    "RESERVE_CONFIGURATION": "AaveProtocolDataProvider",
    "ASSET_PRICE": "IAaveOracle",
    "BASE_CURRENCY": "IAaveOracle",
    "BASE_CURRENCY_UNIT": "IAaveOracle",
    "GET_POOL_DATA_PROVIDER": "IPoolAddressesProvider",
    "GET_PRICE_ORACLE": "IPoolAddressesProvider",
    "RESERVE_CAPS": "AaveProtocolDataProvider",
    "PAUSED": "AaveProtocolDataProvider",
    "RESERVE_TOKENS": "AaveProtocolDataProvider",
}
COLLATERAL_AND_RISK = {
    "DEBT_CEILING": "AaveProtocolDataProvider",
    "EMODE_CATEGORY_DATA": "IPool",
    "SOURCE_OF_ASSET": "IAaveOracle",
}
REWARD_VIEWS = {
    "INCENTIVES_CONTROLLER": "AToken",
    "REWARDS_BY_ASSET": "RewardsController",
    "REWARDS_DATA": "RewardsController",
    "REWARD_ORACLE": "RewardsController",
    "ALL_USER_REWARDS": "RewardsController",
    "LATEST_ANSWER": "IEACAggregatorProxy",
}
"""From Aave's periphery package (the controller, the reward oracle's interface) and core (the tokens)."""
FLATTENED = {"POOL_RESERVE_DATA": "IPool"}
"""A struct of static fields the Pool returns whole, read as its fields in a row."""
V3_6_VIEWS = {"COLLATERAL_BITMAP", "COLLATERAL_CONFIG", "LTVZERO_BITMAP"}
"""The e-mode views of v3.2 and v3.6, held to the v3.6 sources (tests/test_aave36_world.py)."""
V2_VIEWS = {
    "V2_RESERVE_DATA",
    "POOL_PAUSED",
    "V2_ASSETS",
    "REWARD_TOKEN",
    "DISTRIBUTION_END",
    "REWARDS_BALANCE",
    "STAKED_TOKEN",
}
"""Aave v2's own views, held to v2's published ABIs (tests/test_aave2.py)."""


def assert_published(functions: dict[str, str]) -> None:
    for name, contract in functions.items():
        function = getattr(contracts, name)
        assert A.signature(contract, function.name) == (function.signature, tuple(function.output_types)), name


def published_names(entries, name):
    """The names an ABI gives a function's outputs, or a lone struct's fields ("" where unnamed)."""
    (entry,) = [e for e in entries if e.get("type") == "function" and e["name"] == name]
    outputs = entry["outputs"]
    if len(outputs) == 1 and outputs[0]["type"] == "tuple":
        outputs = outputs[0]["components"]
    return [output["name"] for output in outputs]


def output_names(function):
    """The names a Function gives its outputs, or its lone struct's fields ("" where unnamed)."""
    outputs = abi.parse_type("(" + ",".join(function.outputs) + ")")
    if not outputs.names and len(outputs.items) == 1 and outputs.items[0].kind == "tuple":
        outputs = outputs.items[0]
    return list(outputs.names) or [""] * len(outputs.items)


def test_every_function_of_the_ground_floor_is_held_to_a_published_abi():
    published = POSITIONS_AND_POOLS | COLLATERAL_AND_RISK | REWARD_VIEWS | FLATTENED
    assert set(functions_of(contracts)) == set(published) | V3_6_VIEWS | V2_VIEWS


def test_the_adapter_calls_exactly_the_published_abi():
    """Every function the wallet query and poolDetails call, checked against the ABI files in
    Aave's npm package."""
    assert_published(POSITIONS_AND_POOLS)


def test_the_outputs_carry_the_published_names():
    """A field is read by the name Aave's ABI gives it, where it gives one."""
    for name, contract in (POSITIONS_AND_POOLS | COLLATERAL_AND_RISK | REWARD_VIEWS | FLATTENED).items():
        function = getattr(contracts, name)
        published = published_names(A.artifact(contract)["abi"], function.name)
        if all(published):
            assert output_names(function) == published, name


def test_the_collateral_rules_read_the_published_v3_0_abi():
    """The views every version has; the e-mode views of v3.2 and v3.6 are checked against the
    v3.6 sources (tests/test_aave36_world.py)."""
    signature, (struct,) = A.signature("IPool", "getReserveData")
    assert signature == contracts.POOL_RESERVE_DATA.signature
    assert struct.replace("(", "").replace(")", "").split(",") == contracts.POOL_RESERVE_DATA.output_types, (
        "a struct of static fields is encoded as its fields in a row"
    )
    assert_published({name: COLLATERAL_AND_RISK[name] for name in ("DEBT_CEILING", "EMODE_CATEGORY_DATA")})
    assert_published({"ASSET_PRICE": "IAaveOracle"})


def test_the_risk_reads_the_published_abi():
    """The oracle's source of an asset, from Aave's package; the price-cap adapters' getters are
    bgd-labs/aave-capo's (IPriceCapAdapterStable, IPriceCapAdapter), not in any package here."""
    assert_published({"SOURCE_OF_ASSET": "IAaveOracle"})
    assert [f.signature for f in contracts.WRAPPED_FEEDS] == ["ASSET_TO_USD_AGGREGATOR()", "BASE_TO_USD_AGGREGATOR()"]


@pytest.mark.parametrize("rate", [0, 1, 10**20, 5 * 10**25, 10**27, 3 * 10**28])
def test_apy_matches_per_second_compounding(rate):
    assert aave_market.apy(rate) == pytest.approx(compounded(rate), rel=1e-12, abs=1e-30)


REWARDS = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on AaveWalletPositions { blockNumber warnings { code message target }
    supplyPositions { marketName currency { symbol } rewards { token { address symbol decimals } apr endsAt } }
    borrowPositions { marketName currency { symbol } rewards { token { address symbol decimals } apr endsAt } }
    rewardPositions { type marketAddress marketName controller rewardToken { address symbol } accrued accruedUsd } } }
  errors { error { code message } } } }"""


def incentive_apr(expected, incentives, token: str, side: str, price: str, symbol: str) -> tuple[float, int, int]:
    """math-utils' calculateIncentiveAPR of the controller's emission on `token` (an aToken "a" or a
    variable debt token "v") at the block, with the emission and its end."""
    _, emission, updated, end = expected.call(
        incentives.controller, "getRewardsData(address,address)", token, incentives.reward, returns=["uint256"] * 4
    )
    (apr,) = aave_incentive_aprs(
        [
            {
                "side": side,
                "emissionPerSecond": str(emission),
                "rewardPriceFeed": str(A.REWARD_PRICE),
                "priceFeedDecimals": 8,
                "rewardTokenDecimals": 18,
                "emissionEndTimestamp": end,
                "incentivesLastUpdateTimestamp": updated,
                "totalTokenSupply": str(expected.call(token, "totalSupply()")),
                "price": price,
                "decimals": 18 if symbol == "WETH" else 6,
            }
        ]
    )
    return apr, emission, end


def accrued(expected, market, tokens: list[str], wallet: str, kind: str) -> list[dict]:
    """The reward position the market's controller says `wallet` has accrued on `tokens`
    (getAllUserRewards), RWD at its oracle's 2.5 USD."""
    incentives = market.incentives
    rewards, amounts = expected.call(
        incentives.controller,
        "getAllUserRewards(address[],address)",
        tokens,
        wallet,
        returns=["address[]", "uint256[]"],
    )
    assert [r.lower() for r in rewards] == [incentives.reward] and amounts[0] > 0
    return [
        {
            "type": kind,
            "marketAddress": market.pool,
            "marketName": market.name,
            "controller": incentives.controller,
            "rewardToken": {"address": incentives.reward, "symbol": "RWD"},
            "accrued": str(amounts[0]),
            "accruedUsd": pytest.approx(amounts[0] / 10**18 * 2.5, rel=1e-12),
        }
    ]


async def test_rewards_are_the_controllers_own(world_client, world):
    """The borrower's aWETH and variable USDC debt earn RWD from Aave's RewardsController: each
    APR as math-utils' calculateIncentiveAPR gives it, what it may claim as getAllUserRewards."""
    core, borrower = world.markets[0], world.wallets["borrower"]
    incentives = core.incentives
    answer = await query_positions(world_client, REWARDS, "aave", [borrower], 31337)
    assert answer["errors"] == []
    (entry,) = answer["data"]
    assert entry["warnings"] == []
    expected = Expected(world, entry["blockNumber"])
    rwd = {"address": incentives.reward, "symbol": "RWD", "decimals": 18}
    prices = {"WETH": "3000", "USDC": "1.0001"}
    answered = {}
    for side, index in (("supplyPositions", 0), ("borrowPositions", 2)):
        for position in entry[side]:
            symbol = position["currency"]["symbol"]
            if position["marketName"] != core.name:
                assert position["rewards"] == [], "the second market pays none"
                continue
            token = expected.call(
                core.data_provider, "getReserveTokensAddresses(address)", core.tokens[symbol], returns=["address"] * 3
            )[index].lower()
            (reward,) = position["rewards"]
            assert reward["token"] == rwd and reward["endsAt"] == incentives.end
            token_kind = "a" if index == 0 else "v"
            apr, emission, end = incentive_apr(expected, incentives, token, token_kind, prices[symbol], symbol)
            assert emission == incentives.emissions[token] and end == incentives.end
            assert reward["apr"] == pytest.approx(apr, rel=1e-12), (side, symbol)
            answered[(side, symbol)] = position["rewards"]
    tokens = [
        expected.call(
            core.data_provider, "getReserveTokensAddresses(address)", core.tokens[s], returns=["address"] * 3
        )[i].lower()
        for s, i in (("WETH", 0), ("USDC", 2))
    ]
    assert entry["rewardPositions"] == accrued(expected, core, tokens, borrower, "aave-reward")

    reply = await world_client.query(
        """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) { data { blockNumber details {
          ... on AaveMarketPool { reserves { asset { symbol }
            supplyRewards { token { address symbol decimals } apr endsAt }
            borrowRewards { token { address symbol decimals } apr endsAt } } } } } } }""",
        {"inputs": [{"protocol": "aave", "chainId": 31337, "poolAddress": core.pool}]},
    )
    ((pool,),) = [reply.body["data"]["poolDetails"]["data"]]
    assert pool["blockNumber"] == entry["blockNumber"]
    reserves = {r["asset"]["symbol"]: r for r in pool["details"]["reserves"]}
    assert reserves["WETH"]["supplyRewards"] == answered[("supplyPositions", "WETH")], "the same as on the position"
    assert reserves["USDC"]["borrowRewards"] == answered[("borrowPositions", "USDC")]
    assert reserves["WETH"]["borrowRewards"] == reserves["USDC"]["supplyRewards"] == []


async def test_sparklend_rewards_are_its_controllers_own(world_client, world):
    """SparkLend's aWETH earns from its own RewardsController (an Aave v3 one, as Spark's is):
    the borrower's supply shows its APR as math-utils gives it, and what it may claim as the
    controller's getAllUserRewards, a `spark-reward`."""
    (spark,), borrower = world.spark, world.wallets["borrower"]
    incentives = spark.incentives
    query = REWARDS.replace("AaveWalletPositions", "SparkWalletPositions")
    answer = await query_positions(world_client, query, "spark", [borrower], 31337)
    (entry,) = answer["data"]
    assert answer["errors"] == [] and entry["warnings"] == []
    expected = Expected(world, entry["blockNumber"])
    a_weth = expected.call(
        spark.data_provider, "getReserveTokensAddresses(address)", spark.tokens["WETH"], returns=["address"] * 3
    )[0].lower()
    apr, _, _ = incentive_apr(expected, incentives, a_weth, "a", "3000", "WETH")
    (supplied,) = entry["supplyPositions"]
    rwd = {"address": incentives.reward, "symbol": "RWD", "decimals": 18}
    assert supplied["rewards"] == [{"token": rwd, "apr": pytest.approx(apr, rel=1e-12), "endsAt": incentives.end}]
    assert [position["rewards"] for position in entry["borrowPositions"]] == [[]], "its DAI debt earns none"
    assert entry["rewardPositions"] == accrued(expected, spark, [a_weth], borrower, "spark-reward")


def test_the_rewards_read_the_published_abi():
    """The incentives views, from Aave's core (the tokens) and periphery (the controller, the
    reward oracle's interface) packages."""
    assert_published(REWARD_VIEWS)
    assert A.signature("IEACAggregatorProxy", "decimals") == (erc20.DECIMALS.signature, erc20.DECIMALS.outputs), (
        "the reward oracle's decimals, read as a token's"
    )


SPARK_RISK = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on SparkWalletPositions { blockNumber warnings { code message target }
    marketStates { marketAddress healthFactor risk { healthFactor loanToValue liquidationLoanToValue
      liquidationPrices { asset { symbol } priceUsd priceInLoanAsset dropToLiquidation } oracle { address } } } } }
  errors { error { code message } } } }"""


async def test_sparklend_risk_is_its_pools_own(world_client, world):
    """SparkLend's `risk`, read through its own markets as Aave's: the health factor its Pool's
    getUserAccountData gives, the oracle its PoolAddressesProvider names, and at the WETH
    collateral's liquidation price (everything else as it is) a health factor of 1."""
    (spark,), borrower = world.spark, world.wallets["borrower"]
    answer = await query_positions(world_client, SPARK_RISK, "spark", [borrower], 31337)
    assert answer["errors"] == []
    ((state,),) = [entry["marketStates"] for entry in answer["data"]]
    risk, expected = state["risk"], Expected(world, answer["data"][0]["blockNumber"])
    *_, threshold, _, health = expected.call(
        spark.pool, "getUserAccountData(address)", borrower, returns=["uint256"] * 6
    )
    assert risk["healthFactor"] == pytest.approx(health / 1e18, rel=1e-12) == state["healthFactor"]
    assert risk["liquidationLoanToValue"] == pytest.approx(threshold / 1e4, rel=1e-12)
    assert risk["oracle"]["address"] == spark.oracle.lower()
    (price,) = risk["liquidationPrices"]
    now = expected.call(spark.oracle, "getAssetPrice(address)", spark.tokens["WETH"]) / 1e8
    assert price["asset"]["symbol"] == "WETH"
    assert risk["healthFactor"] * price["priceUsd"] / now == pytest.approx(1, rel=1e-9)
    assert price["dropToLiquidation"] == pytest.approx(1 - price["priceUsd"] / now, rel=1e-9)


async def test_sparklend_is_read_as_aave_on_its_own_markets(world_client, world):
    """`spark` reads the markets listed as SparkLend's (an Aave v3 fork) with the same method,
    and only those; its positions and pools say so in their `type`."""
    (spark,), borrower = world.spark, world.wallets["borrower"]
    query = QUERY.replace("AaveWalletPositions", "SparkWalletPositions")
    answer = await query_positions(world_client, query, "spark", [borrower], 31337)
    assert answer["errors"] == []
    (entry,) = answer["data"]
    assert entry["warnings"] == []
    expected = Expected(world, entry["blockNumber"])
    (state,) = entry["marketStates"]
    assert (state["marketName"], state["marketAddress"]) == ("SparkLendTest", spark.pool) and state["healthFactor"] > 1
    (supply,) = entry["supplyPositions"]
    assert (supply["type"], supply["currency"]["symbol"]) == ("spark-supply", "WETH")
    assert supply["balance"] == str(expected.supplied(spark, "WETH", borrower)) and supply["isCollateral"] is True
    (borrow,) = entry["borrowPositions"]
    assert (borrow["type"], borrow["currency"]["symbol"]) == ("spark-borrow", "DAI")
    assert borrow["debt"] == str(expected.owed(spark, "DAI", borrower))
    (aave_entry,) = (await positions(world_client, borrower))["data"]
    assert "SparkLendTest" not in {s["marketName"] for s in aave_entry["marketStates"]}, "each protocol its own markets"
    reply = await world_client.query(
        POOL_QUERY,
        {
            "inputs": [
                {"protocol": "spark", "chainId": 31337, "poolAddress": spark.pool},
                {"protocol": "aave", "chainId": 31337, "poolAddress": spark.pool},
            ]
        },
    )
    result = reply.body["data"]["poolDetails"]
    ((pool,), (error,)) = result["data"], result["errors"]
    assert pool["details"]["type"] == "spark-market-pool" and pool["details"]["marketName"] == "SparkLendTest"
    assert error["error"]["code"] == "VALIDATION_ERROR" and "is not an Aave market" in error["error"]["message"]
