"""Curve's lending pools (tests/curve_lending_world.py): each wrapped coin answered with the token it
wraps (the pool's underlying_coins), its amount by the wrapper's own rate and its USD by that
token's feed, in positions and in pool details."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from adapters.curve import wrapped
from tests import curve_lending_world as L
from tests import curve_world as C
from tests.conftest import proxied_api, query_positions, world_fixture
from tests.evm import TOOLS, Anvil, functions_of
from tests.node_oracles import abi_functions, curve_abi
from tests.test_curve import one_lens_call

TOKEN = "{ address symbol decimals }"
COIN = f"token {TOKEN} amount amountUsd underlying {{ token {TOKEN} rate amount amountUsd }}"
QUERY = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
  data {{ ... on CurveWalletPositions {{ blockNumber warnings {{ code message target }}
    curvePositions {{ pool lpBalance totalSupply coins {{ {COIN} }} valueUsd
      legs {{ asset {{ address }} amount usd priceSource }} }} }} }}
  errors {{ error {{ code message }} }} }} }}"""
POOL_QUERY = f"""query($inputs: [PoolInput!]!) {{ poolDetails(inputs: $inputs) {{
  data {{ poolAddress warnings {{ code message target }} details {{ ... on CurvePool {{ pool tvlUsd
    coins {{ token {TOKEN} poolBalance poolBalanceUsd underlying {{ token {TOKEN} rate amount amountUsd }} }} }} }} }}
  errors {{ error {{ code message }} }} }} }}"""
ATOKEN = TOOLS / "@aave/core-v3/artifacts/contracts/protocol/tokenization/AToken.sol/AToken.json"
PUBLISHED = {
    "EXCHANGE_RATE_STORED": curve_abi("cERC20.json"),
    "GET_PRICE_PER_FULL_SHARE": curve_abi("yERC20.json"),
    "UNDERLYING_ASSET_ADDRESS": abi_functions(json.loads(ATOKEN.read_text())["abi"]),
}
"""The wrappers' views as @curvefi/api (cERC20.json, yERC20.json) and Aave's AToken artifact declare them."""
RATE_VIEW = {"TestCToken": "exchangeRateStored()", "TestYToken": "getPricePerFullShare()"}
HOLDER = 17
"""The anvil account that holds the broken pool's LP alone."""


def test_the_wrappers_views_are_their_published_abis():
    own = {name: f for name, f in functions_of(wrapped).items() if f.signature.split("(")[0] != "underlying_coins"}
    assert set(own) == set(PUBLISHED)
    for name, function in own.items():
        assert PUBLISHED[name][function.signature] == list(function.output_types), name


def build(node: Anvil) -> L.LendingWorld:
    world = L.build(node, C.build(node))
    L.broken(node, world, node.accounts[HOLDER], 40 * C.E18)
    return world


world = world_fixture(build)


def price(world: L.LendingWorld, symbol: str) -> int:
    return {**C.PRICES, **L.PRICES}[symbol]


def usd(world: L.LendingWorld, symbol: str, amount: int) -> Fraction:
    return Fraction(amount * price(world, symbol), 10 ** (L.DECIMALS[symbol] + 8))


def rate(world: L.LendingWorld, wrapper: str, block: int) -> int:
    """The wrapper's own view at `block`: exchangeRateStored, getPricePerFullShare, or 1e18 for an
    aToken whose UNDERLYING_ASSET_ADDRESS is its underlying."""
    underlying, contract, _ = L.WRAPPERS[wrapper]
    address = world.tokens[wrapper]
    if contract == "TestAToken":
        named = world.node.call(address, "UNDERLYING_ASSET_ADDRESS()", returns=("address",), block=block)
        assert named.lower() == world.tokens[underlying].lower()
        return C.E18
    return int(world.node.call(address, RATE_VIEW[contract], block=block))


def coin(world: L.LendingWorld, name: str, index: int, amount: int, block: int) -> tuple[dict[str, Any], Fraction]:
    """Coin `index` of pool `name` for `amount` of it: its row (underlying and USD) and its exact USD."""
    values = L.POOLS[name]
    symbol, under = values["coins"][index], values["underlying"][index]
    cToken = L.WRAPPERS.get(symbol, ("", "", 0))[1] == "TestCToken"
    token = {"address": world.tokens[symbol], "symbol": symbol, "decimals": 8 if cToken else L.DECIMALS[under]}
    if symbol == under:
        value = usd(world, symbol, amount)
        return {"token": token, "amount": str(amount), "amountUsd": float(value), "underlying": None}, value
    wrapped = amount * rate(world, symbol, block) // C.E18
    value = usd(world, under, wrapped)
    underlying = {
        "token": {"address": world.tokens[under], "symbol": under, "decimals": L.DECIMALS[under]},
        "rate": str(rate(world, symbol, block)),
        "amount": str(wrapped),
        "amountUsd": float(value),
    }
    return {"token": token, "amount": str(amount), "amountUsd": float(value), "underlying": underlying}, value


async def positions(api: Any, wallet: str) -> dict[str, Any]:
    found = await query_positions(api, QUERY, "curve", [wallet], 31337)
    assert found["errors"] == []
    (entry,) = found["data"]
    return dict(entry)


async def test_a_wrapped_coin_is_its_underlying_by_the_wrappers_own_rate_and_priced_through_it(world_client, world):
    """The `lp` wallet's share of the compound pool (cTokens, USDT plain), the `staker`'s of the y
    (yTokens) and aave (aTokens) pools: each wrapper's underlying amount is its amount x the
    wrapper's own view at the answer's block / 1e18, its USD that x the underlying's feed, which the
    coin's amountUsd, its leg and the position's valueUsd take; the pools of other kinds have no
    underlying. A rate changed on chain is followed at the next block."""
    node = world.node
    for step in range(2):
        entries = {role: await positions(world_client, world.curve.wallets[role]) for role in ("lp", "staker")}
        block = entries["lp"]["blockNumber"]
        assert entries["staker"]["blockNumber"] == block
        for name, values in L.POOLS.items():
            holder, amount = L.HOLDINGS[name]
            held = next(p for p in entries[holder]["curvePositions"] if p["pool"] == world.pools[name])
            assert held["lpBalance"] == str(amount), name
            rows, values_usd = zip(
                *(
                    coin(world, name, i, balance * amount // values["supply"], block)
                    for i, balance in enumerate(values["balances"])
                )
            )
            assert held["coins"] == list(rows), name
            assert held["valueUsd"] == float(sum(values_usd)), name
            feeds = world.curve.feeds
            assert held["legs"] == [
                {
                    "asset": {"address": row["token"]["address"]},
                    "amount": row["amount"],
                    "usd": row["amountUsd"],
                    "priceSource": feeds[(row["underlying"] or row)["token"]["symbol"]],
                }
                for row in rows
            ], name
        for entry in entries.values():
            others = [p for p in entry["curvePositions"] if p["pool"] not in world.pools.values()]
            assert others and all(c["underlying"] is None for p in others for c in p["coins"])
            assert not [w for w in entry["warnings"] if "lpPrice is null" not in w["message"]]
        if step == 0:
            node.send(world.tokens["cDAI"], "setRate(uint256)", L.WRAPPERS["cDAI"][2] * 101 // 100)
            node.send(world.tokens["yUSDC"], "setRate(uint256)", L.WRAPPERS["yUSDC"][2] * 102 // 100)
            node.mine()
    assert rate(world, "cDAI", block) != L.WRAPPERS["cDAI"][2]


async def test_pool_details_answer_each_wrapped_coin_with_its_underlying(world_client, world):
    """poolDetails of each lending pool: each coin's underlying for the pool's balance, its
    poolBalanceUsd through it, tvlUsd their sum."""
    inputs = [{"protocol": "curve", "chainId": 31337, "poolAddress": world.pools[name]} for name in L.POOLS]
    reply = (await world_client.query(POOL_QUERY, {"inputs": inputs})).body["data"]["poolDetails"]
    assert reply["errors"] == []
    block = world.node.block_number()
    for name, entry in zip(L.POOLS, reply["data"]):
        pool, values = entry["details"], L.POOLS[name]
        rows, values_usd = zip(*(coin(world, name, i, b, block) for i, b in enumerate(values["balances"])))
        assert pool["coins"] == [
            {
                "token": row["token"],
                "poolBalance": row["amount"],
                "poolBalanceUsd": row["amountUsd"],
                "underlying": row["underlying"],
            }
            for row in rows
        ], name
        assert pool["tvlUsd"] == float(sum(values_usd)), name
        assert [w["code"] for w in entry["warnings"]] == ["FIGURE_UNAVAILABLE"], name  # lpPrice on stableswap


async def test_a_wrapper_with_no_readable_rate_is_named_and_its_usd_is_null(world_client, world):
    """wUSDT wraps USDT (the pool's underlying_coins) but answers no rate view: its underlying
    amount and USD are null, named by a warning on it; the position's valueUsd is null, the aToken
    beside it is answered."""
    wallet, wrapper = world.node.accounts[HOLDER], world.tokens["wUSDT"]
    entry = await positions(world_client, wallet)
    (held,) = entry["curvePositions"]
    adai, wusdt = held["coins"]
    assert adai["underlying"]["rate"] == str(C.E18) and adai["amountUsd"] is not None
    assert wusdt["underlying"] == {
        "token": {"address": world.tokens["USDT"].lower(), "symbol": "USDT", "decimals": 6},
        "rate": None,
        "amount": None,
        "amountUsd": None,
    }
    assert wusdt["amountUsd"] is None and held["valueUsd"] is None
    named = [w for w in entry["warnings"] if w["target"].lower() == wrapper.lower()]
    assert [w["code"] for w in named] == ["FIGURE_UNAVAILABLE"]
    assert "answers none of exchangeRateStored(), getPricePerFullShare()" in named[0]["message"]
    details = await world_client.query(
        POOL_QUERY, {"inputs": [{"protocol": "curve", "chainId": 31337, "poolAddress": world.pools["broken"]}]}
    )
    (pool,) = details.body["data"]["poolDetails"]["data"]
    assert pool["details"]["tvlUsd"] is None and pool["details"]["coins"][1]["underlying"]["amount"] is None
    assert any(w["target"].lower() == wrapper.lower() for w in pool["warnings"])


async def test_the_underlyings_ride_in_the_one_lens_call(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path
):
    """Warm, a new block's answer for either wallet holding lending pools is its header and one
    lens call: underlying_coins, the wrappers' rate views, the underlyings' facts and feeds inside."""
    proxy, api = await proxied_api(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path)
    for role in ("lp", "staker"):
        wallet = world.curve.wallets[role]
        await positions(api, wallet)
        world.node.mine()
        before = len(proxy.posts)
        entry = await positions(api, wallet)
        mine = {world.pools[name] for name, (holder, _) in L.HOLDINGS.items() if holder == role}
        assert mine and mine <= {p["pool"] for p in entry["curvePositions"]}, role
        assert one_lens_call(proxy.posts[before:]), role
