"""`BorrowRisk` against each protocol's own liquidation entry point, on every test world at once.

For random positions (hypothesis), the answered liquidation price of a collateral is moved into
that collateral's price source: at the price times (1 + 1e-6) the protocol's liquidation refuses
the position, at times (1 - 1e-6) it accepts it. Each example runs inside an anvil snapshot, so
the worlds are as built for the next. Debts are at least about 10 units of the loan asset: the
contracts round each product down to a wei, and one wei must weigh less than the margin.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from adapters.position_warnings import Warnings
from adapters.risk import Collateral, Unit, borrow_risk
from tests import aave_world as A
from tests import all_worlds
from tests import morpho_world as W
from tests.evm import CONTRACTS, Anvil, compile_contracts
from tests.test_past_blocks import Service

RISK = """risk { healthFactor loanToValue liquidationLoanToValue
  liquidationPrices { asset { address symbol } priceUsd priceInLoanAsset dropToLiquidation }
  oracle { address updatedAt ageSeconds } }"""
QUERY = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
  data {{ ... on MorphoWalletPositions {{ warnings {{ code message target }}
      marketPositions {{ marketId borrowAssets collateral healthFactor {RISK} }} }} }}
  errors {{ error {{ code message }} }} }} }}"""
MARGIN = Fraction(1, 10**6)
PARAMS = "(address,address,address,address,uint256)"
EXAMPLES = settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


worlds = all_worlds.served_fixture("risk")


@contextmanager
def snapshot(node: Anvil) -> Iterator[None]:
    """Whatever the example changes is undone after it."""
    taken = node.rpc("evm_snapshot")
    try:
        yield
    finally:
        node.rpc("evm_revert", taken)


def fresh_wallet(node: Anvil, seed: int) -> str:
    """An address nobody used, able to send transactions (impersonated, with ether for gas)."""
    wallet = "0x" + (seed + 0xA11CE).to_bytes(20, "big").hex()
    node.rpc("anvil_impersonateAccount", wallet)
    node.rpc("anvil_setBalance", wallet, hex(10**20))
    return wallet


def answer(folder: Path, key: str, node: Anvil, protocol: str, wallet: str, query: str = QUERY) -> dict[str, Any]:
    async def ask() -> dict[str, Any]:
        async with Service(folder, key, node) as service:
            return await service.ask(query, [{"protocol": protocol, "chainId": node.chain_id, "walletAddress": wallet}])

    found = asyncio.run(ask())
    assert found["errors"] == [], found["errors"]
    (entry,) = found["data"]
    return dict(entry)


# ---------------------------------------------------------------- Morpho Blue


@EXAMPLES
@given(seed=st.integers(0, 2**32), collateral=st.integers(10**17, 20 * 10**18), share=st.integers(5, 95))
def test_morpho_liquidates_from_the_answered_price_down(worlds, seed, collateral, share):
    built, folder, key = worlds
    world, node = built.parts["morpho"], built.node
    market = world.market_a
    with snapshot(node):
        borrower, liquidator = fresh_wallet(node, seed), fresh_wallet(node, seed + 1)
        W._fund(world, world.weth, borrower, collateral)
        W._fund(world, world.usdc, liquidator, 10**12 * W.USDC)
        borrowed = collateral * W.ORACLE_PRICE // 10**36 * W.LLTV_A // 10**18 * share // 100
        W.borrow_against(world, market, borrower, collateral, max(borrowed, 1))
        entry = answer(folder, key, node, "morpho", borrower)
        (position,) = entry["marketPositions"]
        risk = position["risk"]
        assert entry["warnings"] == [] and risk["healthFactor"] == position["healthFactor"] > 1
        assert risk["liquidationLoanToValue"] == W.LLTV_A / 10**18
        assert risk["loanToValue"] == pytest.approx(risk["liquidationLoanToValue"] / risk["healthFactor"], rel=1e-12)
        assert risk["oracle"] == {"address": world.oracle, "updatedAt": None, "ageSeconds": None}, "a bare oracle"
        (price,) = risk["liquidationPrices"]
        assert price["asset"] == {"address": world.weth, "symbol": "WETH"}
        assert price["priceUsd"] == pytest.approx(price["priceInLoanAsset"] * W.USDC_USD / 10**8, rel=1e-12)
        at = Fraction(price["priceInLoanAsset"]) * 10**36 * W.USDC / W.ETHER
        assert price["dropToLiquidation"] == pytest.approx(float(1 - at / W.ORACLE_PRICE), rel=1e-9)

        def liquidation_refused(oracle_price: Fraction) -> bool:
            node.send(world.oracle, "setPrice(uint256)", int(oracle_price))
            return node.call_reverts(
                world.morpho,
                f"liquidate({PARAMS},address,uint256,uint256,bytes)",
                market,
                borrower,
                collateral // 10,
                0,
                b"",
                sender=liquidator,
            )

        assert liquidation_refused(at * (1 + MARGIN)), "healthy just above the answered price"
        assert not liquidation_refused(at * (1 - MARGIN)), "liquidatable just below it"


def test_a_chainlink_oracles_last_update_is_its_oldest_feeds(worlds):
    built, folder, key = worlds
    world, node = built.parts["morpho"], built.node
    artifacts = compile_contracts([CONTRACTS / "TestChainlinkOracle.sol", CONTRACTS / "TestPriceFeed.sol"])
    with snapshot(node):
        now = world.timestamp()
        base = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
        node.send(base, "set(int256,uint256)", 3_000 * 10**8, now - 500)
        world.set_feed(W.USDC_USD, age=20)
        oracle = node.deploy(
            artifacts["TestChainlinkOracle"], ["address", "address", "uint256"], [base, world.usdc_feed, W.ORACLE_PRICE]
        )
        market = (world.usdc, world.weth, oracle, world.irm, W.LLTV_A)
        borrower, lender = fresh_wallet(node, 7), fresh_wallet(node, 8)
        node.send(world.morpho, f"createMarket({PARAMS})", market)
        W._fund(world, world.usdc, lender, 10_000 * W.USDC)
        W._fund(world, world.weth, borrower, W.ETHER)
        node.send(
            world.morpho,
            f"supply({PARAMS},uint256,uint256,address,bytes)",
            market,
            10_000 * W.USDC,
            0,
            lender,
            b"",
            sender=lender,
        )
        W.borrow_against(world, market, borrower, W.ETHER, 1_000 * W.USDC)
        entry = answer(folder, key, node, "morpho", borrower)
        (position,) = entry["marketPositions"]
        assert position["risk"]["oracle"] == {
            "address": oracle,
            "updatedAt": now - 500,
            "ageSeconds": world.timestamp() - (now - 500),
        }, "the base feed, older than the quote feed"


# ---------------------------------------------------------------- Compound v3


COMPOUND = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
  data {{ ... on CompoundWalletPositions {{ warnings {{ code message target }}
      borrowPositions {{ marketAddress debt {RISK} }} }} }}
  errors {{ error {{ code message }} }} }} }}"""


@EXAMPLES
@given(
    seed=st.integers(0, 2**32),
    weth=st.integers(10**17, 50 * 10**18),
    comp=st.integers(0, 20_000 * 10**18),
    share=st.integers(5, 95),
)
def test_comet_liquidates_from_the_answered_price_down(worlds, seed, weth, comp, share):
    built, folder, key = worlds
    world, node = built.parts["compound"], built.node
    comet, feeds, tokens = world.usdc_market, world.feeds, world.tokens
    held = {"WETH": weth, "COMP": comp}
    factors = {"WETH": 895 * 10**15, "COMP": 70 * 10**16}
    prices = {"WETH": 3000 * 10**8, "COMP": 45 * 10**8}
    capacity = sum(held[s] * prices[s] // 10**18 * factors[s] // 10**18 for s in held)  # USD, 8 decimals
    borrowed = capacity * share // 100 // 100  # USDC, 6 decimals (USDC at $1.00): at least about $13
    with snapshot(node):
        wallet = "0x" + (seed + 0xB0B).to_bytes(20, "big").hex()
        for symbol, amount in held.items():
            node.send(comet, "setCollateral(address,address,uint128)", wallet, tokens[symbol], amount)
        node.send(comet, "setAccount(address,uint256,uint256)", wallet, 0, borrowed)
        for symbol, price in prices.items():
            node.send(feeds[symbol], "set(int256,uint256)", price, world_timestamp(node))
        entry = answer(folder, key, node, "compound", wallet, COMPOUND)
        (borrow,) = [b for b in entry["borrowPositions"] if b["marketAddress"] == comet]
        risk = borrow["risk"]
        assert risk["healthFactor"] == pytest.approx(100 / share, rel=1e-3)
        assert risk["oracle"]["address"] == comet and risk["oracle"]["ageSeconds"] is not None
        by_symbol = {p["asset"]["symbol"]: p for p in risk["liquidationPrices"]}
        assert set(by_symbol) == {s for s in held if held[s]}

        def liquidatable(symbol: str, price: Fraction) -> bool:
            node.send(feeds[symbol], "set(int256,uint256)", max(1, int(price)), world_timestamp(node))
            liquidatable = node.call(comet, "isLiquidatable(address)", wallet, returns=["bool"])
            node.send(feeds[symbol], "set(int256,uint256)", prices[symbol], world_timestamp(node))
            return bool(liquidatable)

        for price in by_symbol.values():
            if price["priceUsd"] is not None:
                assert price["priceInLoanAsset"] == pytest.approx(price["priceUsd"], rel=1e-12), "USDC at $1.00"
        liquidates_from_the_answered_price_down(by_symbol, entry["warnings"], liquidatable)


def liquidates_from_the_answered_price_down(
    by_symbol: dict[str, dict[str, Any]], warnings: list[dict[str, Any]], liquidatable: Callable[[str, Fraction], bool]
) -> None:
    """Each collateral's answered USD price (8 decimals in its source): liquidatable just below,
    not just above; where none is answered, a warning says so and no fall liquidates."""
    for symbol, price in by_symbol.items():
        if price["priceUsd"] is None:
            assert any(symbol in w["message"] and w["code"] == "NO_LIQUIDATION_PRICE" for w in warnings)
            assert not liquidatable(symbol, Fraction(1)), "no fall of this asset alone liquidates it"
            continue
        at = Fraction(price["priceUsd"]) * 10**8
        assert not liquidatable(symbol, at * (1 + MARGIN)), f"{symbol}: not yet just above the answered price"
        assert liquidatable(symbol, at * (1 - MARGIN)), f"{symbol}: liquidatable just below it"


def world_timestamp(node: Anvil) -> int:
    return int(node.rpc("eth_getBlockByNumber", "latest", False)["timestamp"], 16)


# ---------------------------------------------------------------- Aave v3


AAVE = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
  data {{ ... on AaveWalletPositions {{ warnings {{ code message target }}
      marketStates {{ marketAddress healthFactor liquidationThreshold totalDebtUsd totalCollateralUsd {RISK} }} }} }}
  errors {{ error {{ code message }} }} }} }}"""
AAVE_PRICES = {"WETH": 3000 * 10**8, "USDC": 100_010_000, "WBTC": 60_000 * 10**8, "KEY": 100_020_000}
BORROW = "borrow(address,uint256,uint256,uint16,address)"
NO_ADDRESS = "0x" + "00" * 20


@settings(EXAMPLES, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(
    seed=st.integers(0, 2**32),
    mode=st.sampled_from(["plain", "emode", "emode with a price source", "isolation"]),
    weth=st.integers(10**17, 50 * 10**18),
    usdc=st.integers(0, 50_000 * 10**6),
    threshold=st.sampled_from([7800, 8250, 8600]),
    loan=st.sampled_from(["USDC", "WETH"]),
    share=st.integers(5, 95),
)
def test_aave_liquidates_from_the_answered_price_down(worlds, seed, mode, weth, usdc, threshold, loan, share):
    """Several collaterals with their own thresholds (the Pool floors their average to a basis
    point), an asset both supplied and borrowed, e-mode (v3.0's, with and without a price source)
    and isolation: `liquidationCall` refuses just above each answered price and accepts below."""
    built, folder, key = worlds
    world, node = built.parts["aave"], built.node
    core = world.markets[0]
    artifacts = compile_contracts([CONTRACTS / "TestPriceFeed.sol", CONTRACTS / "TestCapoAdapter.sol"])
    feed = artifacts["TestPriceFeed"]
    with snapshot(node):
        borrower, liquidator = fresh_wallet(node, seed), fresh_wallet(node, seed + 1)
        now = world_timestamp(node)
        symbols = ["WETH", "USDC", "KEY"]
        if mode == "isolation":
            A.add_reserves(A.Deployer(node), core, {"WBTC": (8, AAVE_PRICES["WBTC"])})
            node.send(core.configurator, "setDebtCeiling(address,uint256)", core.tokens["WBTC"], 10**12)
            node.send(core.configurator, "setBorrowableInIsolation(address,bool)", core.tokens["USDC"], True)
            symbols.append("WBTC")
        feeds = {s: node.deploy(feed, ["uint8"], [8]) for s in symbols}
        ages = {s: 30 * (i + 1) for i, s in enumerate(symbols)}
        for s in symbols:
            node.send(feeds[s], "set(int256,uint256)", AAVE_PRICES[s], now - ages[s])
        category_key = "0x" + (seed + 0xCA7).to_bytes(20, "big").hex()
        assets = {**core.tokens, "KEY": category_key}
        # USDC's source is a price-cap adapter (its time is that of the feed it wraps).
        sources = {**feeds, "USDC": node.deploy(artifacts["TestCapoAdapter"], ["address"], [feeds["USDC"]])}
        node.send(
            core.oracle, "setAssetSources(address[],address[])", [assets[s] for s in symbols], list(sources.values())
        )
        node.send(
            core.configurator,
            "configureReserveAsCollateral(address,uint256,uint256,uint256)",
            core.tokens["WETH"],
            threshold - 300,
            threshold,
            10500,
        )
        if mode.startswith("emode"):
            source = category_key if mode.endswith("source") else NO_ADDRESS
            node.send(
                core.configurator,
                "setEModeCategory(uint8,uint16,uint16,uint16,address,string)",
                1,
                9000,
                9300,
                10100,
                source,
                "stables",
            )
            node.send(core.configurator, "setAssetEModeCategory(address,uint8)", core.tokens["USDC"], 1)
            loan = "USDC"  # the only asset a wallet in the category may borrow
        if mode == "isolation":
            A.supply(node, core, "WBTC", weth // 10**10 // 20, borrower)  # about as much as the WETH is worth
            # From v3.0.2 an isolated asset is not made collateral by a supply: the wallet enables it.
            node.send(
                core.pool, "setUserUseReserveAsCollateral(address,bool)", core.tokens["WBTC"], True, sender=borrower
            )
            loan = "USDC"
        else:
            A.supply(node, core, "WETH", weth, borrower)
        if usdc:
            A.supply(node, core, "USDC", usdc, borrower)
        if mode.startswith("emode"):
            node.send(core.pool, "setUserEMode(uint8)", 1, sender=borrower)
        available = node.call(core.pool, "getUserAccountData(address)", borrower, returns=["uint256"] * 6)[2]
        unit = 10**18 if loan == "WETH" else 10**6
        price = AAVE_PRICES["KEY" if mode.endswith("source") else loan]
        borrowed = max(1, available * share // 100 * unit // price)
        node.send(core.pool, BORROW, core.tokens[loan], borrowed, 2, 0, borrower, sender=borrower)

        entry = answer(folder, key, node, "aave", borrower, AAVE)
        (state,) = entry["marketStates"]
        risk = state["risk"]
        assert risk["healthFactor"] == pytest.approx(state["healthFactor"], rel=1e-6)
        assert risk["loanToValue"] == pytest.approx(state["totalDebtUsd"] / state["totalCollateralUsd"], rel=1e-6)
        assert risk["liquidationLoanToValue"] == pytest.approx(state["liquidationThreshold"], abs=1.01e-4)
        held = {loan} | ({"WBTC"} if mode == "isolation" else {"WETH"}) | ({"USDC"} if usdc else set())
        times = [now - ages["KEY" if s == "USDC" and mode.endswith("source") else s] for s in held]
        assert risk["oracle"] == {
            "address": core.oracle,
            "updatedAt": min(times),
            "ageSeconds": risk["oracle"]["ageSeconds"],
        }, "the oldest update of the sources the account's assets are priced by"
        collaterals = {"WBTC"} if mode == "isolation" else {"WETH"} | ({"USDC"} if usdc else set())
        by_symbol = {p["asset"]["symbol"]: p for p in risk["liquidationPrices"]}
        assert set(by_symbol) == collaterals, "an isolated wallet's other supplies are not collateral"

        node.send(core.tokens[loan], "mint(uint256)", borrowed, sender=liquidator)
        node.send(core.tokens[loan], "approve(address,uint256)", core.pool, 2**256 - 1, sender=liquidator)

        def liquidatable(symbol: str, at: Fraction) -> bool:
            moved = "KEY" if symbol == "USDC" and mode.endswith("source") else symbol
            node.send(feeds[moved], "set(int256,uint256)", max(1, int(at)), now)
            refused = node.call_reverts(
                core.pool,
                "liquidationCall(address,address,address,uint256,bool)",
                core.tokens[symbol],
                core.tokens[loan],
                borrower,
                max(1, borrowed // 20),
                False,
                sender=liquidator,
            )
            node.send(feeds[moved], "set(int256,uint256)", AAVE_PRICES[moved], now)
            return not refused

        liquidates_from_the_answered_price_down(by_symbol, entry["warnings"], liquidatable)


# ---------------------------------------------------------------- the algebra alone


positive = st.fractions(min_value=Fraction(1, 10**6), max_value=10**6)
collaterals = st.lists(st.tuples(positive, positive, st.fractions(0, 1)), min_size=1, max_size=5)


@given(collaterals=collaterals, debt=positive)
def test_at_each_liquidation_price_the_check_is_met_exactly(collaterals, debt):
    held = [Collateral({"symbol": f"T{i}"}, a, p, t) for i, (a, p, t) in enumerate(collaterals)]
    warnings = Warnings()
    risk = borrow_risk(debt, held, Unit(usd=Fraction(2), per_loan_asset=Fraction(1, 2)), warnings, "0xtarget")
    weighted = sum(c.amount * c.price * c.threshold for c in held)
    assert risk["healthFactor"] == float(weighted / debt)
    missing = 0
    for c, price in zip(held, risk["liquidationPrices"]):
        if price["priceInLoanAsset"] is None:
            missing += 1
            assert weighted - c.amount * c.price * c.threshold >= debt or c.threshold == 0
            continue
        at = Fraction(price["priceInLoanAsset"]) / 2
        moved = weighted - c.amount * c.price * c.threshold + c.amount * at * c.threshold
        assert float(moved / debt) == pytest.approx(1, rel=1e-12), "health factor 1 at the answered price"
        assert price["priceUsd"] == pytest.approx(float(at * 2), rel=1e-15)
        assert price["dropToLiquidation"] == pytest.approx(float(1 - at / c.price), rel=1e-9, abs=1e-12)
    assert [w["code"] for w in warnings.as_list()] == ["NO_LIQUIDATION_PRICE"] * missing
