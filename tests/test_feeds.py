"""The built-in USD feeds on a chain that had none before issue 52 (Polygon): a Fluid world on an
anvil whose chain id is Polygon's, its addresses data the built-in data with only the world's
Fluid resolvers and test tokens laid over it, so the native coin (POL) of its native-collateral
vault is priced through the built-in POL currency feed (Chainlink's MATIC/USD proxy, from Aave's
address book), with the heartbeat the built-in data gives it. The feed's proxy address holds a
test feed's code (anvil_setCode): no network here, so the live feed cannot be read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from graphql import GraphQLUnionType, build_schema

import addresses
import protocols
import schema
from tests import fluid_world as F
from tests.conftest import query_positions, world_api
from tests.evm import Anvil
from tests.test_fluid import QUERY as FLUID_QUERY
from tests.test_fluid import beyond_smart

QUERY = FLUID_QUERY.replace(
    "... on FluidWalletPositions { protocol",
    "... on FluidWalletPositions { blockTimestamp usdPrices { asset feed priceUsd updatedAt ageSeconds } protocol",
)

POLYGON = 137
POL_USD = 45_123_456
"""The answer the POL currency feed gives here: 0.45123456 USD, 8 decimals."""


@pytest.fixture(scope="module")
def world():
    node = Anvil(chain_id=POLYGON)
    try:
        yield F.build(node)
    finally:
        node.stop()


def set_pol_feed(world: F.FluidWorld, age: int) -> tuple[addresses.PriceFeed, int]:
    """The built-in POL feed's proxy answering POL_USD, updated `age` seconds before the latest
    block's time: the feed and that update time."""
    feed = protocols.load_addresses()[POLYGON].currency_feeds["POL"]
    world.node.rpc("anvil_setCode", feed.feed, world.node.rpc("eth_getCode", world.feeds["USDC"], "latest"))
    updated = int(world.node.rpc("eth_getBlockByNumber", "latest", False)["timestamp"], 16) - age
    world.node.send(feed.feed, "set(int256,uint256)", POL_USD, updated)
    return feed, updated


async def native_vault(aiohttp_client, keys_file, api_key, world, tmp_path: Path) -> tuple[dict, dict]:
    """The borrower's entry on Polygon and its native-collateral vault (NFT 13)."""
    override = world.addresses_override()
    del override[str(POLYGON)]["currencyFeeds"]
    path = tmp_path / "a.json"
    path.write_text(json.dumps(override))
    api = await world_api(aiohttp_client, keys_file, api_key, path, world.node)
    found = await query_positions(api, QUERY, "fluid", [world.wallets["borrower"]], POLYGON)
    assert found["errors"] == []
    (entry,) = found["data"]
    (vault,) = [p for p in entry["vaultPositions"] if p["nftId"] == "13"]
    return entry, vault


async def test_a_polygon_position_in_the_native_coin_gets_its_usd_figure_from_the_built_in_feed(
    aiohttp_client, keys_file, api_key, world, tmp_path
):
    feed, updated = set_pol_feed(world, age=3600)
    assert (feed.pair, feed.heartbeat) == ("MATIC/USD", 86400)
    entry, vault = await native_vault(aiohttp_client, keys_file, api_key, world, tmp_path)
    assert vault["supplyToken"]["symbol"] == "POL" and vault["supply"] == str(7 * 10**18)
    assert vault["supplyUsd"] == 7 * POL_USD / 10**8
    assert beyond_smart(entry["warnings"]) == [] and entry["chainId"] == POLYGON
    (pol,) = [p for p in entry["usdPrices"] if p["asset"] == F.NATIVE]
    assert pol == {
        "asset": F.NATIVE,
        "feed": feed.feed,
        "priceUsd": POL_USD / 10**8,
        "updatedAt": updated,
        "ageSeconds": entry["blockTimestamp"] - updated,
    }
    assert 3600 <= pol["ageSeconds"] < 3700


async def test_a_polygon_price_older_than_its_heartbeat_is_null_and_named(
    aiohttp_client, keys_file, api_key, world, tmp_path
):
    feed, _ = set_pol_feed(world, age=86400 + 60)
    entry, vault = await native_vault(aiohttp_client, keys_file, api_key, world, tmp_path)
    assert vault["supplyUsd"] is None and vault["supply"] == str(7 * 10**18)
    assert F.NATIVE not in [p["asset"] for p in entry["usdPrices"]], "a stale price is not one the figures use"
    (warning,) = beyond_smart(entry["warnings"])
    assert warning["code"] == "PRICE_UNAVAILABLE"
    assert f"MATIC/USD feed {feed.feed}" in warning["message"] and "heartbeat of 86400 s" in warning["message"]


async def test_a_price_several_inputs_share_is_listed_in_each_entry_that_uses_it(
    aiohttp_client, keys_file, api_key, world, tmp_path
):
    """USDC's price is read once for the request (ChainReader.shared) and noted by both inputs:
    the lender's fUSDC and the borrower's USDC debt; WETH's only by the borrower, who holds it."""
    set_pol_feed(world, age=0)
    override = world.addresses_override()
    path = tmp_path / "a.json"
    path.write_text(json.dumps(override))
    api = await world_api(aiohttp_client, keys_file, api_key, path, world.node)
    found = await query_positions(api, QUERY, "fluid", [world.wallets["lender"], world.wallets["borrower"]], POLYGON)
    lender, borrower = found["data"]
    usdc, weth = world.tokens["USDC"], world.tokens["WETH"]
    assert [p["asset"] for p in lender["usdPrices"]] == [usdc]
    assert {usdc, weth} <= {p["asset"] for p in borrower["usdPrices"]}
    (one,) = [p for p in lender["usdPrices"]]
    assert one == next(p for p in borrower["usdPrices"] if p["asset"] == usdc)
    assert (one["feed"], one["priceUsd"]) == (world.feeds["USDC"], F.PRICES["USDC"] / 10**8)


def test_every_entry_type_lists_its_usd_prices():
    """Every member of WalletPositions, and PoolOutput, has `usdPrices` of one shape: a client
    selects it from every protocol at once."""
    sdl = build_schema(schema.SDL)
    union = sdl.type_map["WalletPositions"]
    assert isinstance(union, GraphQLUnionType)
    members = [*union.types, sdl.type_map["PoolOutput"]]
    assert {str(member.fields["usdPrices"].type) for member in members} == {"[UsdPriceSource!]!"}  # type: ignore[attr-defined]
