"""USD prices by their order of sources (adapters/prices/), read over JSON-RPC from a real anvil
with Uniswap v3's own contracts and Curve's test pools (tests/prices_world.py): a feed first,
then a protocol's rate, then the deepest pool's 30-minute average above the floor, then Curve's
own average from the deepest pool of a kind whose average holds, else PRICE_UNAVAILABLE naming
every source tried. Each price is held to what the contracts and Uniswap's SDK say at the block."""

from __future__ import annotations

import asyncio
from fractions import Fraction
from typing import Any

import pytest

import protocols
from adapters.position_warnings import PriceUnavailable, Warnings
from adapters.prices import Kind, UsdPrice, curve_average, noting_prices, usd_price
from adapters.prices.twap import FLOOR_USD, WINDOW, pool_address, quote_at_tick
from adapters.risk import unit_usd
from tests import price_coverage, prices_world
from tests.conftest import world_fixture
from tests.evm import functions_of
from tests.node_oracles import ask, curve_abi

world = world_fixture(prices_world.build)


async def price_of(
    open_chains: Any, world: Any, tmp_path: Any, symbol: str, listed: set[Any] | None = None
) -> UsdPrice:
    """`symbol`'s price at the newest block; `listed` gets what an entry would list for it."""
    chain = protocols.load_addresses(world.write_addresses(tmp_path / "a.json"))[world.node.chain_id]
    chains = await open_chains({world.node.chain_id: world.node.url})
    reader = chains.request(asyncio.get_running_loop().time() + 30).reader(world.node.chain_id)
    with noting_prices(reader) as prices:
        price = await usd_price(reader, chain, world.tokens[symbol])
    (listed if listed is not None else set()).update(
        (p.source.asset, p.source.kind) for p in prices.values() if p.source
    )
    return price


def observed_tick(world: Any, pool: str, block: int | str = "latest") -> int:
    """The mean tick over the window from the pool's own `observe`, as OracleLibrary.consult floors it."""
    ticks, _ = world.node.call(pool, "observe(uint32[])", [WINDOW, 0], returns=("int56[]", "uint160[]"), block=block)
    return (ticks[1] - ticks[0]) // WINDOW


async def test_a_token_without_a_feed_is_priced_by_the_deepest_pools_average(open_chains, world, tmp_path):
    price = await price_of(open_chains, world, tmp_path, "TKN")
    t = world.tokens
    pool = world.v3.pools[(t["TKN"], t["WETH"], 3000)]
    for (token, quote, fee), listed in world.v3.pools.items():
        assert pool_address(world.v3.factory, token, quote, fee) == listed, "where the factory deployed it"
    tick = observed_tick(world, pool)
    (sdk,) = ask(
        "uniswap_sdk.cjs",
        [
            {
                "quoteAtTick": tick,
                "chainId": world.node.chain_id,
                "base": t["TKN"],
                "baseDecimals": 18,
                "quote": t["WETH"],
                "quoteDecimals": 18,
                "amount": str(10**18),
            }
        ],
    )
    assert quote_at_tick(tick, 10**18, t["TKN"], t["WETH"]) == int(sdk["quote"])
    assert price.per_token() == Fraction(int(sdk["quote"]), 10**18) * 3_000
    assert price.per_token() == pytest.approx(30, rel=1e-3), "the pool's set price, no trade since"
    source = price.source
    assert source is not None
    assert (source.kind, source.source, source.derived_from, source.window) == (
        Kind.UNISWAP_V3_TWAP,
        pool,
        t["WETH"],
        WINDOW,
    )
    assert source.feed == world.feeds["WETH"] and source.market
    assert source.liquidity_usd == pytest.approx(1_200_000, rel=1e-3), "the USDC pool is shallower"


async def test_a_pool_under_the_floor_or_younger_than_the_window_is_not_used(open_chains, world, tmp_path):
    with pytest.raises(PriceUnavailable) as thin:
        await price_of(open_chains, world, tmp_path, "THIN")
    pool = world.v3.pools[(world.tokens["THIN"], world.tokens["USDC"], 3000)]
    assert f"{pool} is 20,000 USD deep, under the floor of {FLOOR_USD:,}" in thin.value.message
    assert "no USD feed" in thin.value.message and "not an ERC-4626 vault" in thin.value.message
    with pytest.raises(PriceUnavailable) as young:
        await price_of(open_chains, world, tmp_path, "YOUNG")
    pool = world.v3.pools[(world.tokens["YOUNG"], world.tokens["USDC"], 3000)]
    assert f"{pool}'s observations do not reach {WINDOW} s back" in young.value.message


async def test_a_swap_within_the_block_does_not_move_the_average(open_chains, world, tmp_path):
    node, t = world.node, world.tokens
    pool = world.v3.pools[(t["TKN"], t["WETH"], 3000)]
    at = node.timestamp() + 12
    snapshot = node.rpc("evm_snapshot")
    node.rpc("evm_setNextBlockTimestamp", hex(at))
    node.mine()
    calm = await price_of(open_chains, world, tmp_path, "TKN")
    node.rpc("evm_revert", snapshot)
    before = world.v3.tick(pool)
    node.rpc("evm_setNextBlockTimestamp", hex(at))
    world.v3.swap(t["TKN"], t["WETH"], 20_000 * 10**18)  # a fifth of the pool's TKN: the spot price falls
    moved = await price_of(open_chains, world, tmp_path, "TKN")
    assert abs(world.v3.tick(pool) - before) > 3_000, "the spot price moved by far more than a third"
    assert moved.answer == calm.answer and moved.decimals == calm.decimals


async def test_the_sources_are_tried_in_their_order(open_chains, world, tmp_path):
    tkn = await price_of(open_chains, world, tmp_path, "TKN")
    assert tkn.source is not None and tkn.source.kind == Kind.UNISWAP_V3_TWAP, "Uniswap's average before Curve's"
    assert prices_world.curve_usd("TKN") == 40 and tkn.per_token() == pytest.approx(30, rel=1e-3)
    fed = await price_of(open_chains, world, tmp_path, "FED")
    assert fed.source is not None and fed.source.kind == Kind.FEED and fed.per_token() == 2, "the feed, not its pool"
    listed: set[Any] = set()
    vault = await price_of(open_chains, world, tmp_path, "vault", listed)
    assert vault.source is not None and vault.source.kind == Kind.PROTOCOL_RATE, "the vault's rate, not its pool"
    assets = world.node.call(world.tokens["vault"], "convertToAssets(uint256)", 10**18)
    assert vault.per_token() == Fraction(assets, 10**18) * tkn.per_token()
    assert (vault.source.source, vault.source.derived_from) == (world.tokens["vault"], world.tokens["TKN"])
    assert vault.source.market, "it rests on TKN's average"
    t = world.tokens
    assert listed == {
        (t["vault"], Kind.PROTOCOL_RATE),
        (t["TKN"], Kind.UNISWAP_V3_TWAP),
        (t["WETH"], Kind.FEED),
    }, "what its price rests on, not the USDC feed its own pool's average read"
    wrapped = await price_of(open_chains, world, tmp_path, "wTKN")
    assert wrapped.source is not None and wrapped.source.kind == Kind.PROTOCOL_RATE
    assert wrapped.per_token() == Fraction(prices_world.RATE, 10**18) * 3_000
    assert (wrapped.source.source, wrapped.source.feed, wrapped.source.market) == (
        world.rate,
        world.feeds["WETH"],
        False,
    )


async def test_no_liquidation_figure_uses_a_market_price(open_chains, world, tmp_path):
    warnings = Warnings()
    assert unit_usd(await price_of(open_chains, world, tmp_path, "TKN"), warnings, "market") is None
    assert [w["code"] for w in warnings.as_list()] == ["PRICE_UNAVAILABLE"]
    assert unit_usd(await price_of(open_chains, world, tmp_path, "wTKN"), warnings, "rate") == 3_150


async def test_curves_average_prices_a_token_no_uniswap_pool_does(open_chains, world, tmp_path):
    """Each kind's `price_oracle` read the way round its coins are (coin k + 1 in coin 0), held to
    the pool's own view; of two pools, the deeper; a stableswap-ng pool of other decimals and a
    shallow pool are not used."""
    node, t = world.node, world.tokens
    for token in ("CRVY", "TRI", "NGT"):
        price = await price_of(open_chains, world, tmp_path, token)
        assert price.per_token() == prices_world.curve_usd(token), token
        source = price.source
        assert source is not None and source.kind == Kind.CURVE_ORACLE and source.market
        assert (source.source, source.window) == (world.curve[token], 866)
    tri = await price_of(open_chains, world, tmp_path, "TRI")
    assert tri.source is not None and tri.source.derived_from == t["USDC"], "its USDC side is the deeper"
    assert node.call(world.curve["TRI"], "price_oracle(uint256)", 1) == 45 * prices_world.E18, "the pool's own view"
    assert tri.per_token() == 45
    with pytest.raises(PriceUnavailable) as buggy:
        await price_of(open_chains, world, tmp_path, "BUGGY")
    assert f"Curve pool {world.curve['BUGGY']}" in buggy.value.message and "18 decimals" in buggy.value.message
    with pytest.raises(PriceUnavailable) as shallow:
        await price_of(open_chains, world, tmp_path, "SHALLOW")
    assert f"Curve pool {world.curve['SHALLOW']} is 75,000 USD deep, under the floor" in shallow.value.message


CURVE_PUBLISHED = {
    "FIND_POOL_FOR_COINS": ("factory-stable-ng.json", "factory-twocrypto-ng.json", "factory-tricrypto-mainnet.json"),
    "COIN_INDICES_NG": ("factory-stable-ng.json",),
    "COIN_INDICES": ("factory-twocrypto-ng.json", "factory-tricrypto-mainnet.json"),
    "PRICE_ORACLE": ("factory-twocrypto/factory-twocrypto-pool.json",),
    "PRICE_ORACLE_K": ("factory-stable-ng/plain-stableswap-ng.json", "factory-tricrypto/factory-tricrypto-pool.json"),
    "BALANCES": ("factory-stable-ng/plain-stableswap-ng.json", "factory-twocrypto/factory-twocrypto-pool.json"),
    "STORED_RATES": ("factory-stable-ng/plain-stableswap-ng.json",),
    "MA_TIME": ("factory-twocrypto/factory-twocrypto-pool.json", "factory-tricrypto/factory-tricrypto-pool.json"),
    "MA_EXP_TIME": ("factory-stable-ng/plain-stableswap-ng.json",),
}
"""Each function the Curve source calls -> @curvefi/api ABIs (lib/constants/abis/) that declare it."""


def test_the_curve_source_reads_curves_published_abis():
    functions = {name: f for name, f in functions_of(curve_average).items() if name != "DECIMALS"}  # ERC-20's
    assert set(functions) == set(CURVE_PUBLISHED)
    for name, function in functions.items():
        for path in CURVE_PUBLISHED[name]:
            assert curve_abi(path)[function.signature] == list(function.output_types), (name, path)


def test_the_page_of_sources_by_token_is_current():
    """docs/prices.md lists every token of the built-in data with the source the data settles."""
    page = price_coverage.render()
    assert price_coverage.PAGE.read_text() == page, "run `python -m tests.price_coverage`"
    assert "| Ethereum | a priceRates token | `0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0` | PROTOCOL_RATE" in page
    assert "| Ethereum | AURA (Aura's reward) | `0xc0c293ce456ff0ed870add98a0828dd4d2903dbf` | MARKET |" in page
