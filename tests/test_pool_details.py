"""`poolDetails`: Morpho Blue markets and vaults against the real Morpho Blue of the Morpho world
(totals as MorphoBalancesLib gives them, APYs as the wallet query and Morpho's SDK give them,
vault views as the test vaults answer them), `data` as the JSON of `details`, misbehaving vaults,
and the input rules it shares with `walletPositions`."""

from __future__ import annotations

import json
import math
from fractions import Fraction

from protocols import DECLARED
from tests import morpho_world as W
from tests.conftest import world_fixture
from tests.test_morpho import PARAMS, YEAR, Chain, close, market_id

TOKEN = "{ address symbol name decimals }"
WITHOUT = sorted(protocol.name for protocol in DECLARED if not protocol.details)
"""The protocols without pool details (the matrix, docs/matrix.md, would list them): none."""
VAULT = f"""type vaultAddress chainId name symbol asset {TOKEN} decimals sharePrice totalAssets totalAssetsUsd
  totalSupply apy netApy performanceFee owner curator"""
QUERY = f"""query($inputs: [PoolInput!]!) {{ poolDetails(inputs: $inputs) {{
  data {{ protocol chainId poolAddress blockNumber data warnings {{ code message target }}
    details {{ ... on MorphoMarketPool {{ type marketId chainId loanAsset {TOKEN} collateralAsset {TOKEN} oracle irm
      lltv totalSupplyAssets totalSupplyAssetsUsd totalBorrowAssets totalBorrowAssetsUsd liquidity liquidityUsd
      utilization supplyApy borrowApy fee oraclePrice lastUpdate }}
      ... on MorphoVaultV1Pool {{ {VAULT} liquidity liquidityUsd timelock guardian allocations {{ marketId
        collateralAsset {TOKEN} lltv supplyAssets supplyAssetsUsd supplyCap supplyApy withdrawable withdrawableUsd }} }}
      ... on MorphoVaultV2Pool {{ {VAULT} idleAssets idleAssetsUsd managementFee maxRate liquidityAdapter
        adapters {{ address kind realAssets realAssetsUsd allocation absoluteCap relativeCap marketIds vault }} }} }} }}
  errors {{ protocol chainId poolAddress error {{ code message retryable }} }} }} }}"""


def build(node):
    """The Morpho world, its misbehaving contracts, and market B borrowed down to ~5,000 USDC of
    liquidity: less than the V1 vault supplies there."""
    world = W.build(node, W.compile_all())
    W.add_hostile_parts(world, W.compile_all())
    borrower = world.wallets["borrower_b"]
    node.send(
        world.morpho,
        f"borrow({PARAMS},uint256,uint256,address,address)",
        world.market_b,
        100_000 * W.USDC,
        0,
        borrower,
        borrower,
        sender=borrower,
    )
    return world


world = world_fixture(build)


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
        "morpho",
        31337,
        pool_id,
        [],
    )
    chain = Chain(world, answer["blockNumber"])
    supply, _, borrow, _ = chain.call(
        world.lens, f"expectedMarketBalances(address,{PARAMS})", world.morpho, world.market_a, returns=["uint256"] * 4
    )
    totals = chain.totals(world.market_a)
    details = answer["details"]
    supply_apy, borrow_apy = chain.rates(world.market_a)
    assert close(details.pop("supplyApy"), supply_apy) and close(details.pop("borrowApy"), borrow_apy)
    usdc = {"address": world.usdc, "symbol": "USDC", "name": "USD Coin", "decimals": 6}
    assert details == {
        "type": "morpho-market-pool",
        "marketId": pool_id,
        "chainId": 31337,
        "loanAsset": usdc,
        "collateralAsset": {"address": world.weth, "symbol": "WETH", "name": "Wrapped Ether", "decimals": 18},
        "oracle": world.oracle,
        "irm": world.irm,
        "lltv": W.LLTV_A / 10**18,
        "totalSupplyAssets": str(supply),
        "totalSupplyAssetsUsd": chain.usd(supply),
        "totalBorrowAssets": str(borrow),
        "totalBorrowAssetsUsd": chain.usd(borrow),
        "liquidity": str(supply - borrow),
        "liquidityUsd": chain.usd(supply - borrow),
        "utilization": float(Fraction(borrow, supply)),
        "fee": W.MARKET_FEE / 10**18,
        "oraclePrice": str(W.ORACLE_PRICE),
        "lastUpdate": totals[4],
    }
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
    reply = await world_client.query(
        query,
        {
            "w": [{"protocol": "morpho", "chainId": 31337, "walletAddress": world.wallets["lender"]}],
            "p": [{"protocol": "morpho", "chainId": 31337, "poolAddress": pool_id}],
        },
    )
    assert reply.status == 200, reply.body
    (wallet,) = reply.body["data"]["walletPositions"]["data"]
    (pool,) = reply.body["data"]["poolDetails"]["data"]
    assert wallet["blockNumber"] == pool["blockNumber"], "one request, one block"
    (position,) = [p for p in wallet["marketPositions"] if p["marketId"] == pool_id]
    assert (position["supplyApy"], position["borrowApy"]) == (
        pool["details"]["supplyApy"],
        pool["details"]["borrowApy"],
    )


async def test_inputs_that_are_no_pool_get_clear_errors_in_input_order(world_client, world):
    assert WITHOUT == [], "every protocol has pool details (docs/matrix.md)"
    not_a_market = "0x" + "ab" * 32
    result = await pools(
        world_client,
        ("morpho", 31337, market_id(world.market_b)),
        ("morpho", 31337, not_a_market),
        ("morpho", 31337, world.usdc),
        ("morpho", 31337, "0x1234"),
    )
    assert [entry["poolAddress"] for entry in result["data"]] == [market_id(world.market_b)]
    errors = [(e["poolAddress"], e["error"]["code"], e["error"]["message"]) for e in result["errors"]]
    assert [(address, code) for address, code, _ in errors] == [
        (not_a_market, "VALIDATION_ERROR"),
        (world.usdc, "VALIDATION_ERROR"),
        ("0x1234", "VALIDATION_ERROR"),
    ]
    assert "has no market parameters. Expected a Morpho Blue market id." in errors[0][2]
    assert errors[1][2] == (
        f"{world.usdc} is not a Morpho vault on chain 31337 at block {result['data'][0]['blockNumber']}: no configured "
        "MetaMorpho or Vault V2 factory created it. Expected a vault address, or a Morpho Blue market id (0x + 64 "
        "hexadecimal characters)."
    )
    assert errors[2][2] == (
        "Malformed poolAddress: expected 0x followed by 40 hexadecimal characters (a contract) "
        "or 64 (a Morpho Blue market id, a Uniswap v4 PoolId, a Maker ilk)."
    )
    assert all(e["error"]["retryable"] is False for e in result["errors"])
    result = await pools(world_client, ("aave", 1, not_a_market), ("pendle", 1, not_a_market))
    assert result["data"] == []
    assert [e["error"]["message"] for e in result["errors"]] == [
        f"Malformed poolAddress: protocol {name!r} names its pools by contract address, 0x followed by 40 "
        "hexadecimal characters."
        for name in ("aave", "pendle")
    ]
    result = await pools(world_client, ("sushiswap", 1, not_a_market), ("morpho", 5, not_a_market))
    assert result["data"] == []
    unknown, chain = (e["error"] for e in result["errors"])
    assert unknown["code"] == chain["code"] == "VALIDATION_ERROR"
    assert unknown["message"].startswith("Unknown protocol 'sushiswap'. Supported protocols: ")
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
    assert "counted over every walletPositions, poolDetails and positionsHistory field" in error["message"]
    reply = await world_client.query(query, {"w": [wallet] * 2, "p": [pool] * 3})
    assert reply.status == 200, reply.body


async def test_a_v1_vault_with_its_allocations_as_the_chain_and_the_wallet_query_have_them(world_client, world):
    query = """query($w: [PositionInput!]!, $p: [PoolInput!]!) {
      walletPositions(inputs: $w) { data { ... on MorphoWalletPositions { vaultV1Positions { vaultAddress apy } } } }
      poolDetails(inputs: $p) { data { details { ... on MorphoVaultV1Pool { netApy } } } } }"""
    result = await pools(world_client, ("morpho", 31337, world.vault_v1.upper().replace("0X", "0x")))
    assert result["errors"] == []
    (answer,) = result["data"]
    assert (answer["poolAddress"], answer["warnings"]) == (world.vault_v1, [])
    chain = Chain(world, answer["blockNumber"])
    details = answer["details"]
    gross, net = chain.vault_v1_rates()
    assert close(details.pop("apy"), math.expm1(gross * YEAR / 10**18))
    assert close(details.pop("netApy"), math.expm1(net * YEAR / 10**18)) and gross > net > 0
    total = chain.call(world.vault_v1, "totalAssets()")
    allocations = []
    for market, cap, allocation in zip((world.market_a, world.market_b), W.V1_CAPS, details.pop("allocations")):
        supply, _, borrow, _ = chain.call(
            world.lens, f"expectedMarketBalances(address,{PARAMS})", world.morpho, market, returns=["uint256"] * 4
        )
        supplied = chain.supply_assets(market, world.vault_v1)
        withdrawable = min(supplied, supply - borrow)
        assert close(allocation.pop("supplyApy"), chain.rates(market)[0])
        assert allocation == {
            "marketId": market_id(market),
            "lltv": market[4] / 10**18,
            "collateralAsset": {"address": world.weth, "symbol": "WETH", "name": "Wrapped Ether", "decimals": 18},
            "supplyAssets": str(supplied),
            "supplyAssetsUsd": chain.usd(supplied),
            "supplyCap": str(cap),
            "withdrawable": str(withdrawable),
            "withdrawableUsd": chain.usd(withdrawable),
        }
        allocations.append(withdrawable)
    assert allocations[1] < chain.supply_assets(world.market_b, world.vault_v1), "market B's liquidity binds"
    assert details == {
        "type": "morpho-vault-pool",
        "vaultAddress": world.vault_v1,
        "chainId": 31337,
        "name": "Test USDC Vault",
        "symbol": "tvUSDC",
        "asset": {"address": world.usdc, "symbol": "USDC", "name": "USD Coin", "decimals": 6},
        "decimals": 18,
        "sharePrice": str(chain.call(world.vault_v1, "convertToAssets(uint256)", 10**18)),
        "totalAssets": str(total),
        "totalAssetsUsd": chain.usd(total),
        "totalSupply": str(chain.call(world.vault_v1, "totalSupply()")),
        "liquidity": str(sum(allocations)),
        "liquidityUsd": chain.usd(sum(allocations)),
        "performanceFee": W.V1_FEE / 10**18,
        "timelock": 86400,
        "owner": world.node.accounts[0].lower(),
        "curator": W.CURATOR,
        "guardian": W.GUARDIAN,
    }
    assert json.loads(answer["data"])["type"] == "morpho-vault-pool"

    reply = await world_client.query(
        query,
        {
            "w": [{"protocol": "morpho", "chainId": 31337, "walletAddress": world.wallets["depositor"]}],
            "p": [{"protocol": "morpho", "chainId": 31337, "poolAddress": world.vault_v1}],
        },
    )
    (wallet,) = reply.body["data"]["walletPositions"]["data"]
    (pool,) = reply.body["data"]["poolDetails"]["data"]
    (position,) = [v for v in wallet["vaultV1Positions"] if v["vaultAddress"] == world.vault_v1]
    assert position["apy"] == pool["details"]["netApy"], "the wallet's APY is the vault's net APY, by the same code"


async def test_a_v2_vault_with_its_adapters_caps_and_fees(world_client, world):
    result = await pools(world_client, ("morpho", 31337, world.vault_v2))
    assert result["errors"] == []
    (answer,) = result["data"]
    assert answer["warnings"] == []
    chain = Chain(world, answer["blockNumber"])
    details = answer["details"]
    gross, net = chain.vault_v2_rates()
    assert close(details.pop("apy"), math.expm1(gross * YEAR / 10**18))
    assert close(details.pop("netApy"), math.expm1(net * YEAR / 10**18)) and gross > net
    idle = chain.call(world.usdc, "balanceOf(address)", world.vault_v2)
    total = chain.call(world.vault_v2, "totalAssets()")
    market_real = chain.call(world.market_adapter, "realAssets()")
    vault_real = chain.call(world.vault_adapter, "realAssets()")
    assert idle + market_real + vault_real == total
    (market_caps, vault_caps) = W.V2_CAPS
    assert details == {
        "type": "morpho-vault-v2-pool",
        "vaultAddress": world.vault_v2,
        "chainId": 31337,
        "name": "Test USDC Vault V2",
        "symbol": "tv2USDC",
        "asset": {"address": world.usdc, "symbol": "USDC", "name": "USD Coin", "decimals": 6},
        "decimals": 18,
        "sharePrice": str(chain.call(world.vault_v2, "convertToAssets(uint256)", 10**18)),
        "totalAssets": str(total),
        "totalAssetsUsd": chain.usd(total),
        "totalSupply": str(chain.call(world.vault_v2, "totalSupply()")),
        "idleAssets": str(idle),
        "idleAssetsUsd": chain.usd(idle),
        "performanceFee": W.V2_PERFORMANCE_FEE / 10**18,
        "managementFee": W.V2_MANAGEMENT_FEE * YEAR / 10**18,
        "maxRate": chain.call(world.vault_v2, "maxRate()") * YEAR / 10**18,
        "owner": world.node.accounts[0].lower(),
        "curator": W.CURATOR,
        "liquidityAdapter": world.market_adapter,
        "adapters": [
            {
                "address": world.market_adapter,
                "kind": "morpho-market-v1",
                "realAssets": str(market_real),
                "realAssetsUsd": chain.usd(market_real),
                "allocation": str(20_000 * W.USDC),
                "absoluteCap": str(market_caps[0]),
                "relativeCap": market_caps[1] / 10**18,
                "marketIds": [market_id(world.market_a), market_id(world.market_b)],
                "vault": None,
            },
            {
                "address": world.vault_adapter,
                "kind": "morpho-vault-v1",
                "realAssets": str(vault_real),
                "realAssetsUsd": chain.usd(vault_real),
                "allocation": str(12_000 * W.USDC),
                "absoluteCap": str(vault_caps[0]),
                "relativeCap": vault_caps[1] / 10**18,
                "marketIds": [],
                "vault": world.vault_v1,
            },
        ],
    }


async def test_vaults_that_misbehave_cost_only_their_own_figures(world_client, world):
    hostile = world.hostile["hostile_vault"]
    result = await pools(world_client, ("morpho", 31337, world.broken_vault), ("morpho", 31337, hostile))
    assert result["errors"] == []
    broken, claimed = result["data"]
    assert broken["details"]["sharePrice"] is None and broken["details"]["name"] == "Broken Vault"
    assert broken["details"]["totalAssets"] is not None and broken["details"]["allocations"] is not None
    (warning,) = broken["warnings"]
    assert warning["code"] == "FIGURE_UNAVAILABLE" and "sharePrice is null" in warning["message"]
    assert "TestVault: broken" in warning["message"]

    details = claimed["details"]
    assert (details["name"], details["type"]) == ("Hostile Vault", "morpho-vault-v2-pool")
    assert details["adapters"] is None and details["apy"] is None and details["netApy"] is None
    assert details["totalAssets"] is None, "a view the contract lacks is null"
    by_figure = {w["message"].split(" null:")[0]: w for w in claimed["warnings"]}
    assert "more than the 32 this service reads" in by_figure["adapters are"]["message"]
    assert {"apy and netApy are", "totalAssets is", "curator is"} <= set(by_figure)
    assert all(w["target"] == hostile and w["code"] == "FIGURE_UNAVAILABLE" for w in claimed["warnings"])


async def test_a_read_plan_changes_no_figure(world_client, world):
    """A pool asked before has a read plan (chain/plans.py): its calls, asked in the next answer's
    first round, answer only the adapter's identical calls. The market and the vaults, asked at the
    block before (their plans kept), then at the newest block, are the answer with `provenance` at
    that block, which reads without a plan."""
    inputs = [
        ("morpho", 31337, market_id(world.market_a)),
        ("morpho", 31337, world.vault_v1),
        ("morpho", 31337, world.vault_v2),
    ]
    newest = world.node.block_number()
    at = lambda block: [{"protocol": p, "chainId": c, "poolAddress": a, "blockNumber": block} for p, c, a in inputs]  # noqa: E731
    recorded = QUERY.replace("data {", "data { provenance { method }", 1)
    first = await world_client.query(QUERY, {"inputs": at(newest - 1)})
    assert first.status == 200 and first.body["data"]["poolDetails"]["errors"] == []
    planned = (await world_client.query(QUERY, {"inputs": at(newest)})).body["data"]["poolDetails"]
    afresh = (await world_client.query(recorded, {"inputs": at(newest)})).body["data"]["poolDetails"]
    assert planned["errors"] == afresh["errors"] == []
    assert all(entry.pop("provenance") for entry in afresh["data"])
    assert planned["data"] == afresh["data"]
