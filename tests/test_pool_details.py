"""`poolDetails`: Morpho Blue markets against the real Morpho Blue of the Morpho world (totals as
MorphoBalancesLib gives them, APYs as the wallet query and Morpho's SDK give them), `data` as
the JSON of `details`, and the input rules it shares with `walletPositions`."""

from __future__ import annotations

import json
from fractions import Fraction

from tests import morpho_world as W
from tests.conftest import world_fixture
from tests.test_morpho import PARAMS, Chain, close, market_id

TOKEN = "{ address symbol name decimals }"
QUERY = f"""query($inputs: [PoolInput!]!) {{ poolDetails(inputs: $inputs) {{
  data {{ protocol chainId poolAddress blockNumber data warnings {{ code message target }}
    details {{ ... on MorphoMarketPool {{ type marketId chainId loanAsset {TOKEN} collateralAsset {TOKEN} oracle irm
      lltv totalSupplyAssets totalSupplyAssetsUsd totalBorrowAssets totalBorrowAssetsUsd liquidity liquidityUsd
      utilization supplyApy borrowApy fee oraclePrice lastUpdate }} }} }}
  errors {{ protocol chainId poolAddress error {{ code message retryable }} }} }} }}"""

world = world_fixture(lambda node: W.build(node, W.compile_all()))


async def pools(api, *inputs):
    reply = await api.query(QUERY, {"inputs": [{"protocol": p, "chainId": c, "poolAddress": a} for p, c, a in inputs]})
    assert reply.status == 200, reply.body
    return reply.body["data"]["poolDetails"]


async def test_a_market_matches_morpho_balances_lib_and_the_wallet_query(world_client, world):
    pool_id = market_id(world.market_a)
    result = await pools(world_client, ("morpho", 31337, pool_id.upper().replace("0X", "0x")))
    assert result["errors"] == []
    (answer,) = result["data"]
    assert (answer["protocol"], answer["chainId"], answer["poolAddress"], answer["warnings"]) == (
        "morpho", 31337, pool_id, [])
    chain = Chain(world, answer["blockNumber"])
    supply, _, borrow, _ = chain.call(world.lens, f"expectedMarketBalances(address,{PARAMS})", world.morpho,
                                      world.market_a, returns=["uint256"] * 4)
    totals = chain.totals(world.market_a)
    details = answer["details"]
    supply_apy, borrow_apy = chain.rates(world.market_a)
    assert close(details.pop("supplyApy"), supply_apy) and close(details.pop("borrowApy"), borrow_apy)
    usdc = {"address": world.usdc, "symbol": "USDC", "name": "USD Coin", "decimals": 6}
    assert details == {
        "type": "morpho-market-pool", "marketId": pool_id, "chainId": 31337, "loanAsset": usdc,
        "collateralAsset": {"address": world.weth, "symbol": "WETH", "name": "Wrapped Ether", "decimals": 18},
        "oracle": world.oracle, "irm": world.irm, "lltv": W.LLTV_A / 10**18,
        "totalSupplyAssets": str(supply), "totalSupplyAssetsUsd": chain.usd(supply),
        "totalBorrowAssets": str(borrow), "totalBorrowAssetsUsd": chain.usd(borrow),
        "liquidity": str(supply - borrow), "liquidityUsd": chain.usd(supply - borrow),
        "utilization": float(Fraction(borrow, supply)), "fee": W.MARKET_FEE / 10**18,
        "oraclePrice": str(W.ORACLE_PRICE), "lastUpdate": totals[4]}
    assert borrow > 150_000 * W.USDC, "interest accrued to the block is included"
    data = json.loads(answer["data"])
    assert close(data.pop("supplyApy"), supply_apy) and close(data.pop("borrowApy"), borrow_apy)
    assert data == details, "data is the whole of details as JSON, with its type"


async def test_the_wallet_query_and_pool_details_agree_on_apys(world_client, world):
    query = """query($w: [PositionInput!]!, $p: [PoolInput!]!) {
      walletPositions(inputs: $w) { data { ... on MorphoWalletPositions { blockNumber
        marketPositions { marketId supplyApy borrowApy } } } }
      poolDetails(inputs: $p) { data { blockNumber details { ... on MorphoMarketPool { supplyApy borrowApy } } } } }"""
    pool_id = market_id(world.market_b)
    reply = await world_client.query(query, {
        "w": [{"protocol": "morpho", "chainId": 31337, "walletAddress": world.wallets["lender"]}],
        "p": [{"protocol": "morpho", "chainId": 31337, "poolAddress": pool_id}]})
    assert reply.status == 200, reply.body
    (wallet,) = reply.body["data"]["walletPositions"]["data"]
    (pool,) = reply.body["data"]["poolDetails"]["data"]
    assert wallet["blockNumber"] == pool["blockNumber"], "one request, one block"
    (position,) = [p for p in wallet["marketPositions"] if p["marketId"] == pool_id]
    assert (position["supplyApy"], position["borrowApy"]) == (pool["details"]["supplyApy"],
                                                              pool["details"]["borrowApy"])


async def test_inputs_that_are_no_pool_get_clear_errors_in_input_order(world_client, world):
    not_a_market = "0x" + "ab" * 32
    result = await pools(world_client, ("morpho", 31337, market_id(world.market_b)), ("morpho", 31337, not_a_market),
                         ("morpho", 31337, world.vault_v1), ("aave", 1, "0x" + "11" * 20),
                         ("morpho", 31337, "0x1234"))
    assert [entry["poolAddress"] for entry in result["data"]] == [market_id(world.market_b)]
    errors = [(e["poolAddress"], e["error"]["code"], e["error"]["message"]) for e in result["errors"]]
    assert [(address, code) for address, code, _ in errors] == [
        (not_a_market, "VALIDATION_ERROR"), (world.vault_v1, "VALIDATION_ERROR"),
        ("0x" + "11" * 20, "VALIDATION_ERROR"), ("0x1234", "VALIDATION_ERROR")]
    assert "has no market parameters. Expected a Morpho Blue market id." in errors[0][2]
    assert "Morpho vaults are not served by poolDetails yet" in errors[1][2]
    assert errors[2][2] == "Protocol 'aave' has no poolDetails yet. Protocols with poolDetails: morpho."
    assert errors[3][2] == ("Malformed poolAddress: expected 0x followed by 40 hexadecimal characters (a contract) "
                            "or 64 (a Morpho Blue market id).")
    assert all(e["error"]["retryable"] is False for e in result["errors"])
    result = await pools(world_client, ("uniswap", 1, not_a_market), ("morpho", 5, not_a_market))
    assert result["data"] == []
    unknown, chain = (e["error"] for e in result["errors"])
    assert unknown["code"] == chain["code"] == "VALIDATION_ERROR"
    assert unknown["message"].startswith("Unknown protocol 'uniswap'. Supported protocols: ")
    assert chain["message"].startswith("Chain 5 is not supported by protocol 'morpho'.")
    assert all(e["error"]["retryable"] is False for e in result["errors"])


async def test_wallet_and_pool_inputs_count_together_towards_five(world_client, world):
    query = """query($w: [PositionInput!]!, $p: [PoolInput!]!) {
      walletPositions(inputs: $w) { errors { protocol } } poolDetails(inputs: $p) { errors { protocol } } }"""
    wallet = {"protocol": "morpho", "chainId": 31337, "walletAddress": world.wallets["lender"]}
    pool = {"protocol": "morpho", "chainId": 31337, "poolAddress": market_id(world.market_a)}
    reply = await world_client.query(query, {"w": [wallet] * 3, "p": [pool] * 3})
    assert reply.status == 400
    (error,) = reply.body["errors"]
    assert error["extensions"]["code"] == "TOO_MANY_INPUTS"
    assert "the operation asks for 6, the limit is 5" in error["message"]
    assert "counted over every walletPositions and poolDetails field" in error["message"]
    reply = await world_client.query(query, {"w": [wallet] * 2, "p": [pool] * 3})
    assert reply.status == 200, reply.body
