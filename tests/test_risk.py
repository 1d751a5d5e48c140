"""`BorrowRisk` against each protocol's own liquidation entry point, on every test world at once.

For random positions (hypothesis), the answered liquidation price of a collateral is moved into
that collateral's price source: at the price times (1 + 1e-6) the protocol's liquidation refuses
the position, at times (1 - 1e-6) it accepts it. Each example runs inside an anvil snapshot, so
the worlds are as built for the next. Debts are at least about 10 units of the loan asset: the
contracts round each product down to a wei, and one wei must weigh less than the margin.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import eth_abi
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from adapters.position_warnings import Warnings
from adapters.risk import Collateral, Unit, borrow_risk
from tests import aave_world as A
from tests import morpho_world as W
from tests.conftest import examples, served_fixture
from tests.evm import CONTRACTS, Anvil, arg_types, compile_contracts, selector
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
    max_examples=examples(8),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


worlds = served_fixture("risk")


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
            stables_category(node, core, category_key if mode.endswith("source") else NO_ADDRESS, ["USDC"])
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
        aave_borrow(node, core, loan, borrowed, borrower, liquidator)

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

        def liquidatable(symbol: str, at: Fraction) -> bool:
            moved = "KEY" if symbol == "USDC" and mode.endswith("source") else symbol
            node.send(feeds[moved], "set(int256,uint256)", max(1, int(at)), now)
            refused = aave_refusal(node, core, symbol, loan, borrower, max(1, borrowed // 20), liquidator)
            node.send(feeds[moved], "set(int256,uint256)", AAVE_PRICES[moved], now)
            return refused is None

        liquidates_from_the_answered_price_down(by_symbol, entry["warnings"], liquidatable)


def stables_category(node: Anvil, core: A.AaveMarketDeployment, source: str, symbols: list[str]) -> None:
    """v3.0's e-mode category 1, "stables" (LTV 90 %, threshold 93 %, bonus 1 %), priced by the
    oracle's price of `source` (the zero address: each asset by its own), with `symbols` in it."""
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
    for symbol in symbols:
        node.send(core.configurator, "setAssetEModeCategory(address,uint8)", core.tokens[symbol], 1)


def aave_refusal(
    node: Anvil, core: A.AaveMarketDeployment, collateral: str, loan: str, borrower: str, amount: int, liquidator: str
) -> str | None:
    """The error (v3.0's are numbered strings, Errors.sol) liquidationCall of `amount` of the
    borrower's `loan` against its `collateral` reverts with now; None where it would liquidate.
    Any refusal but 45, HEALTH_FACTOR_NOT_BELOW_THRESHOLD, fails the test: no other is expected."""
    signature = "liquidationCall(address,address,address,uint256,bool)"
    args = [core.tokens[collateral], core.tokens[loan], borrower, amount, False]
    data = "0x" + (selector(signature) + eth_abi.encode(arg_types(signature), args)).hex()
    try:
        node.rpc("eth_call", {"from": liquidator, "to": core.pool, "data": data}, "latest")
    except RuntimeError as error:
        found = re.search(r"0x08c379a0([0-9a-fA-F]*)", str(error))  # Error(string)
        assert found, error
        (reason,) = eth_abi.decode(["string"], bytes.fromhex(found.group(1)))
        assert reason == "45", f"liquidationCall refused for another reason than the health factor: {reason}"
        return str(reason)
    return None


SUSD = 100_000_000
"""SUSD's own price, which a wallet in the category does not see: KEY's prices it."""


def aave_borrow(
    node: Anvil, core: A.AaveMarketDeployment, symbol: str, amount: int, borrower: str, liquidator: str
) -> None:
    """The borrower borrows `amount` of `symbol` (variable rate); the liquidator gets as much to repay."""
    node.send(core.pool, BORROW, core.tokens[symbol], amount, 2, 0, borrower, sender=borrower)
    node.send(core.tokens[symbol], "mint(uint256)", amount, sender=liquidator)
    node.send(core.tokens[symbol], "approve(address,uint256)", core.pool, 2**256 - 1, sender=liquidator)


def category_borrower(
    node: Anvil, core: A.AaveMarketDeployment, seed: int, supplies: dict[str, int], weth_threshold: int
) -> tuple[str, str, dict[str, str]]:
    """A fresh wallet in v3.0's e-mode category "stables" priced by a source of its own (the oracle
    key KEY): SUSD, a new reserve, and USDC in the category, WETH outside it (liquidation
    threshold `weth_threshold`). It supplies `supplies` and enters the category. Returns it, a
    liquidator and the feeds of WETH and KEY (at AAVE_PRICES)."""
    borrower, liquidator = fresh_wallet(node, seed), fresh_wallet(node, seed + 1)
    now = world_timestamp(node)
    A.add_reserves(A.Deployer(node), core, {"SUSD": (18, SUSD)})
    feed = compile_contracts([CONTRACTS / "TestPriceFeed.sol"])["TestPriceFeed"]
    feeds = {s: node.deploy(feed, ["uint8"], [8]) for s in ("WETH", "KEY")}
    for symbol, address in feeds.items():
        node.send(address, "set(int256,uint256)", AAVE_PRICES[symbol], now)
    category_key = "0x" + (seed + 0xCA7).to_bytes(20, "big").hex()
    node.send(
        core.oracle,
        "setAssetSources(address[],address[])",
        [core.tokens["WETH"], category_key],
        [feeds["WETH"], feeds["KEY"]],
    )
    node.send(
        core.configurator,
        "configureReserveAsCollateral(address,uint256,uint256,uint256)",
        core.tokens["WETH"],
        weth_threshold - 1000,
        weth_threshold,
        10500,
    )
    stables_category(node, core, category_key, ["USDC", "SUSD"])
    for symbol, amount in supplies.items():
        if amount:
            A.supply(node, core, symbol, amount, borrower)
    node.send(core.pool, "setUserEMode(uint8)", 1, sender=borrower)
    return borrower, liquidator, feeds


@settings(EXAMPLES, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(
    seed=st.integers(0, 2**32),
    susd=st.integers(100 * 10**18, 100_000 * 10**18),
    weth=st.one_of(st.just(0), st.integers(10**18, 20 * 10**18)),
    usdc=st.one_of(st.just(0), st.integers(10 * 10**6, 50_000 * 10**6)),
    threshold=st.sampled_from([7800, 8250, 8600]),
    share=st.integers(5, 95),
)
@example(seed=1, susd=20_000 * 10**18, weth=0, usdc=0, threshold=8250, share=95)
@example(seed=2, susd=20_000 * 10**18, weth=5 * 10**18, usdc=0, threshold=8250, share=95)
def test_aave_a_category_source_moves_the_debt_with_its_collateral(worlds, seed, susd, weth, usdc, threshold, share):
    """Up to v3.1 the price source of the wallet's e-mode category prices every asset of the
    category, the debt included (a wallet in it borrows only those). A fall of it leaves the
    health factor as it is where all the collateral is in the category and raises it where some
    is outside, so the category's collateral gets no liquidation price, and liquidationCall
    refuses it (45) at every fall tried. WETH, outside, is held to liquidationCall as usual."""
    built, folder, key = worlds
    world, node = built.parts["aave"], built.node
    core = world.markets[0]
    with snapshot(node):
        supplies = {"SUSD": susd, "WETH": weth, "USDC": usdc}
        borrower, liquidator, feeds = category_borrower(node, core, seed, supplies, threshold)
        available = node.call(core.pool, "getUserAccountData(address)", borrower, returns=["uint256"] * 6)[2]
        borrowed = available * share // 100 * 10**6 // AAVE_PRICES["KEY"]
        aave_borrow(node, core, "USDC", borrowed, borrower, liquidator)
        entry = answer(folder, key, node, "aave", borrower, AAVE)
        (state,) = entry["marketStates"]
        risk = state["risk"]
        assert risk["healthFactor"] == pytest.approx(state["healthFactor"], rel=1e-6)
        by_symbol = {p["asset"]["symbol"]: p for p in risk["liquidationPrices"]}
        assert set(by_symbol) == {s for s, amount in supplies.items() if amount}
        now, repaid = world_timestamp(node), max(1, borrowed // 20)

        def health(at: Fraction) -> Fraction:
            """The Pool's health factor with KEY at `at`."""
            node.send(feeds["KEY"], "set(int256,uint256)", int(at), now)
            return Fraction(node.call(core.pool, "getUserAccountData(address)", borrower, returns=["uint256"] * 6)[5])

        before = health(Fraction(AAVE_PRICES["KEY"]))
        for symbol in {"SUSD", "USDC"} & set(by_symbol):
            assert by_symbol[symbol] == {
                "asset": {"address": core.tokens[symbol], "symbol": symbol},
                "priceUsd": None,
                "priceInLoanAsset": None,
                "dropToLiquidation": None,
            }
            assert any(w["code"] == "NO_LIQUIDATION_PRICE" and symbol in w["message"] for w in entry["warnings"])
            for fall in (MARGIN, Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)):
                after = health(AAVE_PRICES["KEY"] * (1 - fall))
                assert aave_refusal(node, core, symbol, "USDC", borrower, repaid, liquidator) == "45"
                if not weth:
                    assert after == pytest.approx(before, rel=1e-6), "the debt falls as fast: no change (but rounding)"
                elif fall > MARGIN:  # (a tiny fall may first step the floored average threshold down)
                    assert after > before, "the debt falls with the category, the WETH stays: the health factor rises"
            health(Fraction(AAVE_PRICES["KEY"]))

        def liquidatable(symbol: str, at: Fraction) -> bool:
            node.send(feeds[symbol], "set(int256,uint256)", max(1, int(at)), now)
            refused = aave_refusal(node, core, symbol, "USDC", borrower, repaid, liquidator)
            node.send(feeds[symbol], "set(int256,uint256)", AAVE_PRICES[symbol], now)
            return refused is None

        if weth:
            liquidates_from_the_answered_price_down({"WETH": by_symbol["WETH"]}, entry["warnings"], liquidatable)


def test_aave_a_category_source_liquidates_where_the_floored_threshold_steps_down(worlds):
    """Near a health factor of 1, a fall of the category's source can liquidate after all: it
    shifts the collateral's weight to WETH's lower threshold (30 %), and the Pool's average
    threshold, floored to a basis point, steps down before the health factor's rise makes up for
    it. Here the average is a tenth of a basis point above 80 % and the health factor 1.00001.
    The answered price is held to liquidationCall: 45 just above it, liquidated just below it,
    with the Pool's health factor below 1 there."""
    built, folder, key = worlds
    world, node = built.parts["aave"], built.node
    core = world.markets[0]
    price = Fraction(AAVE_PRICES["KEY"], 10**8)
    category = 10_000 * price  # USD of the 10,000 SUSD
    average = Fraction(80_001, 100_000)
    weth = category * (Fraction(93, 100) - average) / (average - Fraction(3, 10))  # USD of 2 WETH at that average
    debt = (category + weth) * Fraction(8_000, 10_000) / (1 + Fraction(1, 10**5))
    with snapshot(node):
        supplies = {"SUSD": 10_000 * 10**18, "WETH": 2 * 10**18}
        borrower, liquidator, feeds = category_borrower(node, core, 3, supplies, 3000)
        aave_borrow(node, core, "USDC", int(debt / price * 10**6), borrower, liquidator)
        now = world_timestamp(node)
        node.send(feeds["WETH"], "set(int256,uint256)", int(weth / 2 * 10**8), now)
        entry = answer(folder, key, node, "aave", borrower, AAVE)
        (state,) = entry["marketStates"]
        assert state["liquidationThreshold"] == 0.8 and 1 < state["healthFactor"] < 1.0001
        (susd,) = [p for p in state["risk"]["liquidationPrices"] if p["asset"]["symbol"] == "SUSD"]
        assert susd["priceUsd"] is not None and 0 < susd["dropToLiquidation"] < 0.001, susd
        at = Fraction(susd["priceUsd"]) * 10**8
        repaid = int(debt / price * 10**6) // 20
        node.send(feeds["KEY"], "set(int256,uint256)", int(at * (1 + MARGIN)), now)
        assert aave_refusal(node, core, "SUSD", "USDC", borrower, repaid, liquidator) == "45"
        node.send(feeds["KEY"], "set(int256,uint256)", int(at * (1 - MARGIN)), now)
        health = node.call(core.pool, "getUserAccountData(address)", borrower, returns=["uint256"] * 6)[5]
        assert health < 10**18 and aave_refusal(node, core, "SUSD", "USDC", borrower, repaid, liquidator) is None


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


priced = st.tuples(positive, st.fractions(0, 1), st.sampled_from(["a", "b", None]), positive)


@given(
    held=st.lists(priced, min_size=1, max_size=4),
    prices=st.fixed_dictionaries({"a": positive, "b": positive}),
    shares=st.fixed_dictionaries({"a": st.fractions(0, 1), "b": st.fractions(0, 1)}),
    ratio=st.fractions(Fraction(9, 10), Fraction(11, 10)),
    step=st.sampled_from([None, Fraction(1, 100), Fraction(1, 10_000)]),
)
def test_a_source_moves_all_it_prices_and_the_floor_is_solved_exactly(held, prices, shares, ratio, step):
    """Collaterals (amount, threshold, source, own price) of one source share its price and move
    with the debt it prices (up to half the debt each, by `shares`); the debt is `ratio` x the
    weighted collateral, so the floor of the average (`step`) often decides. At each answered
    price the check starts to hold just below and not above it, nor anywhere between it and the
    price now; where none is answered, no fall of the source makes it hold. Checked by the check
    itself, every member of the source moved."""
    collaterals = [
        Collateral({"symbol": f"T{i}"}, a, prices[s] if s else own, t, source=s)
        for i, (a, t, s, own) in enumerate(held)
    ]
    debt = ratio * sum(c.amount * c.price * c.threshold for c in collaterals) + Fraction(1, 10**6)
    owed = {s: shares[s] * debt / 2 / prices[s] for s in prices}
    risk = borrow_risk(
        debt, collaterals, Unit(usd=Fraction(1), per_loan_asset=None), Warnings(), "0xtarget", step, owed
    )

    def short(c: Collateral, p: Fraction) -> bool:
        moved = [
            d if d is not c and (c.source is None or d.source != c.source) else replace(d, price=p) for d in collaterals
        ]
        value = sum(d.amount * d.price for d in moved)
        weighted = sum(d.amount * d.price * d.threshold for d in moved)
        average = Fraction(0) if value == 0 else weighted / value if step is None else weighted / value // step * step
        return value * average < debt + (owed[c.source] * (p - c.price) if c.source else 0)

    near = Fraction(1, 10**9)
    for c, answered in zip(collaterals, risk["liquidationPrices"]):
        now = short(c, c.price)
        if answered["priceUsd"] is None:
            if now:
                assert all(short(c, c.price * k) for k in (1, 2, 10, 10**6)), "no rise makes it healthy"
            else:
                assert not any(short(c, c.price * Fraction(i, 64)) for i in range(1, 64)), "a fall liquidates"
            continue
        at = Fraction(answered["priceUsd"])
        low, high = sorted((at, c.price))
        between = [low + (high - low) * Fraction(i, 64) for i in range(1, 64)]
        if now:  # the price it must rise back to: liquidatable up to it, healthy above
            assert at >= c.price * (1 - near) and not short(c, at * (1 + near))
            assert all(short(c, p) for p in (c.price, *between) if p < at * (1 - near))
        else:  # the first price a fall reaches where it is liquidatable
            assert at <= c.price * (1 + near) and short(c, at * (1 - near))
            assert not any(short(c, p) for p in between if p > at * (1 + near)), "liquidatable above the answer"
