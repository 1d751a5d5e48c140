"""The Fluid adapter against resolvers and vaults on anvil that answer in the layouts of Fluid's
deployed ABIs (tests/fluid_world.py): every field, for a lender and for a borrower with
standard, smart, partly liquidated and several-per-vault positions; a resolver that fails; the
ABI the adapter decodes against the deployed one. The figures are held to formulas from the
vault's published source: a partly liquidated NFT is liquidatable once `_liquidate`'s tick is
below its branch's (one lower at partials 1), so it is priced at that tick."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from adapters.fluid import contracts
from adapters.fluid import positions as fluid
from chain.abi import AbiType, parse_type
from tests import fluid_world as F
from tests.conftest import compounded_per_second, query_positions, world_api, world_fixture
from tests.null_figures import FIGURES, unexplained
from tests.rpc_proxy import RpcProxy

TOKEN = "{ address symbol name decimals }"
QUERY = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
  data {{ ... on FluidWalletPositions {{ protocol walletAddress chainId blockNumber warnings {{ code message target }}
    lendingPositions {{ type fTokenAddress chainId fToken {TOKEN} underlyingAsset {TOKEN} shares underlyingAmount
                       underlyingAmountUsd supplyApr rewardsApr supplyApy }}
    vaultPositions {{ type vaultAddress chainId nftId owner isLiquidated vaultType supplyToken {TOKEN} supply
                     supplyShares supplyDexTokens {{ symbol }} supplyUsd borrowToken {TOKEN} borrow borrowShares
                     borrowDexTokens {{ symbol }} borrowUsd collateralFactor liquidationThreshold supplyRate
                     borrowRate healthFactor }} }} }}
  errors {{ protocol chainId walletAddress error {{ code message retryable }} }} }} }}"""
YEAR = 365 * 24 * 3600


world = world_fixture(F.build)


async def positions(api, *wallets):
    return await query_positions(api, QUERY, "fluid", wallets)


def token(world, symbol: str) -> dict:
    return {"address": world.tokens[symbol], "symbol": symbol, "name": f"Test {symbol}", "decimals": F.DECIMALS[symbol]}


def usd(amount: Fraction | int, symbol: str) -> float:
    return float(Fraction(amount) * F.PRICES[symbol] / 10 ** (F.DECIMALS[symbol] + 8))


def test_the_adapter_decodes_the_layouts_fluid_deployed():
    for resolver, function in (
        ("LendingResolver", contracts.GET_USER_POSITIONS),
        ("VaultResolver", contracts.POSITIONS_BY_USER),
        ("LendingResolver", contracts.GET_ALL_FTOKENS),
        ("LendingResolver", contracts.GET_FTOKEN_DETAILS),
        ("VaultResolver", contracts.GET_ALL_VAULTS),
        ("VaultResolver", contracts.GET_VAULT_ENTIRE_DATA),
        ("VaultResolver", contracts.GET_POSITION_DATA_RAW),
        ("VaultResolver", contracts.GET_TICK_DATA_RAW),
        ("Vault", contracts.FETCH_LATEST_POSITION),
    ):
        deployed = F.ABI[resolver][function.signature]
        assert "0x" + function.selector == deployed["selector"]
        assert function.output_types == deployed["outputs"]
        if "struct " in deployed.get("fields", ""):
            ours = [field_names(parse_type(output)) for output in function.outputs]
            assert ours == struct_names(deployed["fields"]), function.signature


def field_names(abi_type: AbiType) -> list:
    """The names a type's tuples give their fields, nested as they nest (an array's, its items')."""
    while abi_type.kind == "array":
        abi_type = abi_type.items[0]
    return [(name, field_names(item)) for name, item in zip(abi_type.names, abi_type.items)]


def struct_names(fields: str) -> list:
    """The same of each outermost struct the record of Fluid's source lists for a function."""
    structs = {
        struct: re.findall(r"\[\d+\] (\S+) (\w+)", body)
        for struct, body in re.findall(r"struct (\S+) \{\n(.*?)\n\}", fields, flags=re.S)
    }
    inner = {kind for members in structs.values() for kind, _ in members}

    def names(struct: str) -> list:
        return [(name, names(kind) if kind in structs else []) for kind, name in structs[struct]]

    return [names(struct) for struct in structs if struct not in inner]


async def test_a_lenders_ftoken_with_its_rates(world_client, world):
    (answer,) = (await positions(world_client, world.wallets["lender"]))["data"]
    assert answer["warnings"] == [] and answer["vaultPositions"] == []
    f_usdc = world.ftokens[0]
    shares, assets = world.holdings[world.wallets["lender"]][f_usdc.address]
    assert answer["lendingPositions"] == [
        {
            "type": "fluid-lending",
            "fTokenAddress": f_usdc.address,
            "chainId": 31337,
            "fToken": {"address": f_usdc.address, "symbol": "fUSDC", "name": "Fluid USDC", "decimals": 6},
            "underlyingAsset": token(world, "USDC"),
            "shares": str(shares),
            "underlyingAmount": str(assets),
            "underlyingAmountUsd": usd(assets, "USDC"),
            "supplyApr": 0.0412,
            "rewardsApr": 0.005,
            "supplyApy": pytest.approx(compounded_per_second(412 + 50, 10**4 * YEAR), rel=1e-12),
        }
    ]


SMART = (
    "the liquidation prices of NFT 40 are null, its dropToLiquidation given",
    "the liquidation prices of NFT 41 are null, its dropToLiquidation given",
    "supplyUsd is null: both sides are Fluid DEX shares",
)
"""The borrower's figures a smart side leaves undefined, each named (FIGURE_UNAVAILABLE)."""


def beyond_smart(warnings: list[dict[str, str]]) -> list[dict[str, str]]:
    """The warnings but those naming what the borrower's smart NFTs leave undefined, which must all be there."""
    named = [w for w in warnings if w["code"] == "FIGURE_UNAVAILABLE" and w["message"].startswith(SMART)]
    assert sorted(next(s for s in SMART if w["message"].startswith(s)) for w in named) == sorted(SMART), warnings
    return [w for w in warnings if w not in named]


async def test_a_borrowers_vault_nfts_standard_smart_and_liquidated(world_client, world):
    (answer,) = (await positions(world_client, world.wallets["borrower"]))["data"]
    assert beyond_smart(answer["warnings"]) == [] and answer["lendingPositions"] == []
    assert unexplained(answer, FIGURES) == []
    found = {p["nftId"]: p for p in answer["vaultPositions"]}
    assert list(found) == ["11", "12", "13", "40", "41", "42"], "every NFT, in the resolver's order"
    for position in (p for p in world.positions if p.owner == world.wallets["borrower"]):
        got, vault = found[str(position.nft_id)], position.vault
        assert got["type"] == "fluid-vault" and got["vaultAddress"] == vault.address and got["chainId"] == 31337
        assert got["owner"] == position.owner and got["isLiquidated"] is position.liquidated
        assert got["collateralFactor"] == vault.collateral_factor / 1e4
        assert got["liquidationThreshold"] == vault.liquidation_threshold / 1e4
        assert (got["supplyRate"], got["borrowRate"]) == (vault.supply_rate / 1e4, vault.borrow_rate / 1e4)
        if position.branch is None:
            expected = health(position, position.borrow + position.dust) if position.borrow else None
            assert got["healthFactor"] == expected, "never liquidated: at borrow + dustBorrow"
    standard, liquidated = found["11"], found["12"]
    assert standard["vaultType"] == "standard" and liquidated["isLiquidated"] is True
    assert (standard["supplyToken"], standard["borrowToken"]) == (token(world, "WETH"), token(world, "USDC"))
    assert (standard["supply"], standard["borrow"]) == (str(2 * 10**18), str(3_000 * 10**6))
    assert standard["supplyShares"] is standard["borrowShares"] is None
    assert standard["supplyDexTokens"] is standard["borrowDexTokens"] is None
    assert (standard["supplyUsd"], standard["borrowUsd"]) == (usd(2 * 10**18, "WETH"), usd(3_000 * 10**6, "USDC"))
    partly = world.positions[1]
    assert liquidated["supply"] == str(partly.supply) and liquidated["borrow"] == str(2_540 * 10**6 - 3)

    native = found["13"]
    ether = {"address": F.NATIVE, "symbol": "ETH", "name": "Ether", "decimals": 18}
    assert (native["supplyToken"], native["borrowToken"]) == (ether, token(world, "USDC")), "native ETH is a token"
    assert native["supplyUsd"] == usd(7 * 10**18, "WETH") == 21_000.0, "priced by the chain's ETH/USD feed"
    assert native["borrowUsd"] == usd(9_000 * 10**6, "USDC")

    smart_col = found["40"]
    assert smart_col["vaultType"] == "smart-collateral" and smart_col["supplyRate"] == -0.0035
    assert smart_col["supplyToken"] is None and smart_col["supply"] is None
    assert smart_col["supplyShares"] == str(5 * 10**18)
    assert [t["symbol"] for t in smart_col["supplyDexTokens"]] == ["wstETH", "WETH"]
    assert smart_col["supplyUsd"] == usd(Fraction(5 * 10**18 * 21 * 10**26, 10**27), "WETH"), "priced in its debt token"
    assert smart_col["borrow"] == str(10**18) and smart_col["borrowUsd"] == usd(10**18, "WETH")

    smart_debt = found["41"]
    assert smart_debt["vaultType"] == "smart-debt" and smart_debt["borrowRate"] == -0.012
    assert smart_debt["borrow"] is None and smart_debt["borrowShares"] == str(1_000 * 10**18)
    assert [t["symbol"] for t in smart_debt["borrowDexTokens"]] == ["USDC", "USDT"]
    assert smart_debt["borrowUsd"] == usd(Fraction(1_000 * 10**18 * 10**27, 2_900 * 10**27), "WETH")
    assert smart_debt["supplyUsd"] == usd(10**18, "WETH")

    both = found["42"]
    assert both["vaultType"] == "smart-collateral-and-debt" and both["supplyUsd"] is None
    assert both["healthFactor"] is None and both["borrowShares"] == "0" and both["borrowUsd"] == 0.0, "owes nothing"


def health(position: F.Position, owed: Fraction | int) -> float:
    """supply x oraclePriceLiquidate / 1e27 x liquidationThreshold / owed."""
    vault = position.vault
    return float(Fraction(position.supply * vault.price_liquidate, 10**27) * vault.liquidation_threshold / 10**4 / owed)


RISK_QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) { data {
  ... on FluidWalletPositions { warnings { code message target } vaultPositions { nftId healthFactor risk {
    healthFactor loanToValue liquidationLoanToValue
    liquidationPrices { asset { symbol } priceUsd priceInLoanAsset dropToLiquidation }
    oracle { address updatedAt ageSeconds } } } } } } }"""


async def test_a_vault_nfts_risk_solves_the_vaults_own_test(world_client, world):
    """Liquidatable once supply x oraclePriceLiquidate / 1e27 x liquidationThreshold < borrow +
    dustBorrow: for the ETH/USDC NFT (7 ETH, 9,000 USDC and 3 wei of dust, threshold 0.9, oracle
    2,990 USDC per ETH)."""
    reply = await world_client.query(
        RISK_QUERY, {"inputs": [{"protocol": "fluid", "chainId": 31337, "walletAddress": world.wallets["borrower"]}]}
    )
    (answer,) = reply.body["data"]["walletPositions"]["data"]
    found = {p["nftId"]: p for p in answer["vaultPositions"]}
    risk = found["13"]["risk"]
    owed = Fraction(9_000 * 10**6 + 3, 10**6)
    at = owed / 7 / Fraction(9, 10)
    assert risk["healthFactor"] == found["13"]["healthFactor"] == float(7 * Fraction(2_990) * Fraction(9, 10) / owed)
    assert risk["loanToValue"] == float(owed / (7 * 2_990)) and risk["liquidationLoanToValue"] == 0.9
    (price,) = risk["liquidationPrices"]
    assert price["asset"]["symbol"] == "ETH" and price["priceInLoanAsset"] == float(at)
    assert price["priceUsd"] == float(at * F.PRICES["USDC"] / 10**8)
    assert price["dropToLiquidation"] == float(1 - at / 2_990)
    assert risk["oracle"] == {"address": F.ZERO, "updatedAt": None, "ageSeconds": None}
    assert found["42"]["risk"] is None, "nothing borrowed"
    assert found["40"]["risk"]["liquidationPrices"][0]["asset"] is None, "a smart collateral: DEX shares"


def liquidates(branch: F.Branch, tick: int) -> bool:
    """`_liquidate`'s test of a liquidated branch at the liquidation tick `tick`: it takes the
    branch while the branch's minima tick is above, but refuses the tick just below a branch at
    partials 1, its threshold's (`(liquidationTick + 1) == tick && partials == 1`)."""
    return branch.tick > tick and not (branch.partials == 1 and tick + 1 == branch.tick)


def liquidates_at(branch: F.Branch, vault: F.Vault, price: Fraction) -> bool:
    """Whether the vault liquidates the branch at an oracle price of `price` USDC per WETH."""
    return liquidates(branch, F.liquidation_tick(int(price * 10**15), vault.liquidation_threshold))


def full_tick(position: F.Position, tick: int) -> Fraction:
    """The debt of the NFT's collateral at `tick`'s ratio (raw units)."""
    return Fraction(position.supply * F.ratio_at_tick(tick), 2**96)


async def vault_risks(api, wallet: str) -> tuple[dict, list]:
    reply = await api.query(RISK_QUERY, {"inputs": [{"protocol": "fluid", "chainId": 31337, "walletAddress": wallet}]})
    (answer,) = reply.body["data"]["walletPositions"]["data"]
    return {p["nftId"]: p for p in answer["vaultPositions"]}, answer["warnings"]


async def test_a_partly_liquidated_nft_is_priced_at_its_branchs_tick(world_client, world):
    """NFT 12's branch is one tick above the vault's liquidation tick, 0.2836 of the way up it:
    the vault liquidates it now, though the resolver's amounts (at the branch's ratio) give a
    health factor above 1. The answer prices it at the branch's tick t: owed = (borrow +
    dustBorrow) x 10015 X30 / (10000 X30 + 15 partials), the debt of its collateral at t, and the
    liquidation price is the one below which `_liquidate` takes the branch, 0.1073 % above the
    one of the resolver's amounts ((1 - partials / X30) x 0.0015 / 1.0015)."""
    position = world.positions[1]
    branch, vault = position.branch, position.vault
    found, _ = await vault_risks(world_client, world.wallets["borrower"])
    got = found["12"]
    owed = Fraction((position.borrow + position.dust) * 10_015 * F.X30, 10_000 * F.X30 + 15 * branch.partials)
    assert got["healthFactor"] == got["risk"]["healthFactor"] == health(position, owed)
    assert got["healthFactor"] == pytest.approx(health(position, full_tick(position, branch.tick)), rel=1e-15)
    assert liquidates(branch, F.liquidation_tick(vault.price_liquidate, vault.liquidation_threshold))
    assert got["healthFactor"] < 1 < health(position, position.borrow + position.dust), "liquidated now"
    (price,) = got["risk"]["liquidationPrices"]
    at = Fraction(price["priceInLoanAsset"])
    assert liquidates_at(branch, vault, at * (1 - Fraction(1, 10**9)))
    assert not liquidates_at(branch, vault, at * (1 + Fraction(1, 10**9)))
    resolvers = Fraction(position.borrow + position.dust, 10**6) / Fraction(position.supply, 10**18) / Fraction(85, 100)
    assert float(1 - resolvers / at) == pytest.approx(float((1 - Fraction(branch.partials, F.X30)) * 15 / 10_015))
    assert round(float(1 - resolvers / at) * 100, 4) == 0.1073


async def test_a_branch_left_at_the_threshold_is_priced_a_tick_lower(world_client, world):
    """A liquidation that reached the threshold leaves its branch at partials 1 of the tick above
    the liquidation tick; `_liquidate` then refuses that liquidation tick, so the vault takes the
    branch only below tick t - 1: owed = (borrow + dustBorrow) x 10000 X30 / (10000 X30 + 15), the
    debt at t - 1, and the NFT is not liquidatable at the oracle's price (priced at t, it would
    read so)."""
    wallet, vault = world.node.accounts[14], world.positions[0].vault
    branch = F.Branch(F.liquidation_tick(vault.price_liquidate, vault.liquidation_threshold) + 1, 1)
    debt = 2_540 * 10**6
    supply = debt * 2**96 // F.partial_ratio(branch.tick, 1)
    position = F.Position(70, wallet, vault, supply, debt - 3, liquidated=True, branch=branch)
    world.positions.append(position)
    world.publish(wallet)
    found, warnings = await vault_risks(world_client, wallet)
    got = found["70"]
    assert warnings == []
    assert got["healthFactor"] == health(position, Fraction(debt * 10_000 * F.X30, 10_000 * F.X30 + 15))
    assert got["healthFactor"] == pytest.approx(health(position, full_tick(position, branch.tick - 1)), rel=1e-15)
    assert not liquidates(branch, F.liquidation_tick(vault.price_liquidate, vault.liquidation_threshold))
    assert health(position, full_tick(position, branch.tick)) < 1 <= got["healthFactor"], "not liquidatable now"
    at = Fraction(got["risk"]["liquidationPrices"][0]["priceInLoanAsset"])
    assert liquidates_at(branch, vault, at * (1 - Fraction(1, 10**9)))
    assert not liquidates_at(branch, vault, at * (1 + Fraction(1, 10**9)))


def test_the_debt_at_the_branchs_tick_is_the_vaults():
    """`liquidation_debt` against the vault's own integers: the collateral `fetchLatestPosition`
    gives a debt at a branch's ratio, valued at the tick `_liquidate` takes the branch below (t,
    or t - 1 at partials 1); the debt as given for a branch in no liquidated state or at partials
    X30 (its tick's own ratio); and the two errors the issue measured on Fluid's vault."""
    debt = 10**24
    for tick in (-13_203, -1, 0, 4_321):
        for partials in (1, 2, 172_654_000, F.X30 // 2, 304_513_181, F.X30 - 1):
            branch = F.Branch(tick, partials)
            collateral = debt * 2**96 // F.partial_ratio(tick, partials)
            ratio = F.ratio_at_tick(tick) if partials > 1 else F.ratio_at_tick(tick) * 10_000 // 10_015
            expected = Fraction(collateral * ratio, 2**96)
            assert float(fluid.liquidation_debt(debt, branch.data()) / expected) == pytest.approx(1, abs=1e-15)
        assert fluid.liquidation_debt(debt, F.Branch(tick, F.X30).data()) == debt
        assert fluid.liquidation_debt(debt, F.Branch(tick, 5).data() + 1) == debt, "merged: no partials of its own"
    for share, error in ((0.1608, 0.1257), (0.2836, 0.1073)):
        branch = F.Branch(-13_203, round(share * F.X30))
        assert round(float(1 - debt / fluid.liquidation_debt(debt, branch.data())) * 100, 4) == error


async def test_an_unreadable_branch_nulls_the_health_factor_and_risk(world_client, world):
    """A liquidated NFT that still owes, whose branch the resolver and vault do not give: its
    health factor and risk are null with a FIGURE_UNAVAILABLE warning, never priced at the
    resolver's amounts."""
    wallet, vault = world.node.accounts[15], world.positions[0].vault
    world.positions.append(F.Position(71, wallet, vault, 10**18, 2_000 * 10**6, liquidated=True))
    world.publish(wallet)
    found, warnings = await vault_risks(world_client, wallet)
    assert found["71"]["healthFactor"] is None and found["71"]["risk"] is None
    (warning,) = warnings
    assert warning["code"] == "FIGURE_UNAVAILABLE" and warning["target"] == vault.address
    assert "the health factor and risk of NFT 71 are null" in warning["message"]


async def test_the_lens_calls_answer_every_read(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path):
    """The borrower's six NFTs, the partly liquidated one's branch with them, are read by the
    three lens calls alone (token facts, kept, were read by a first query): not one call of
    their own."""
    proxy = RpcProxy(world.node.url)
    proxied = await aiohttp_server(proxy.app(), host="127.0.0.1")
    path = world.write_addresses(tmp_path / "a.json")
    api = await world_api(aiohttp_client, keys_file, api_key, path, world.node, url=str(proxied.make_url("/")))
    first, _ = await vault_risks(api, world.wallets["borrower"])
    world.node.mine()
    proxy.posts.clear()
    found, warnings = await vault_risks(api, world.wallets["borrower"])
    assert beyond_smart(warnings) == [] and found == first and found["12"]["risk"] is not None
    calls = proxy.calls("eth_call")
    assert [call for call in calls if "to" in call["params"][0]] == [], "every read came from a tape"
    assert len(calls) == 3, "the lending resolver, the vault resolver and the feeds"


async def test_an_empty_wallet_gets_empty_lists(world_client, world):
    (answer,) = (await positions(world_client, world.wallets["empty"]))["data"]
    assert answer["lendingPositions"] == answer["vaultPositions"] == [] and answer["warnings"] == []


async def test_a_wallet_nobody_set_up_gets_empty_lists_as_from_fluids_resolvers(world_client, world):
    """The resolvers list every fToken with nothing held, and no NFT, for any other address."""
    (answer,) = (await positions(world_client, "0x" + "5e" * 20))["data"]
    assert answer["lendingPositions"] == answer["vaultPositions"] == [] and answer["warnings"] == []


async def test_a_resolver_that_fails_is_named_and_both_failing_fail_the_input(world_client, world):
    half, none = world.node.accounts[8], world.node.accounts[9]
    world.answer("LendingResolver", F.LENDING, (half,), ([],))
    world.refuse("VaultResolver", F.VAULTS, half)
    world.refuse("LendingResolver", F.LENDING, none)
    world.refuse("VaultResolver", F.VAULTS, none)
    reply = await positions(world_client, half, none)
    (answer,) = reply["data"]
    (warning,) = answer["warnings"]
    assert warning["code"] == "PART_UNREADABLE" and warning["target"] == world.vault_resolver
    assert answer["vaultPositions"] == []
    (error,) = reply["errors"]
    assert error["walletAddress"] == none.lower() and error["error"]["code"] == "PROTOCOL_ERROR"


POOL_QUERY = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) {
  data { poolAddress warnings { code } details {
    ... on FluidLendingPool { type fTokenAddress chainId fToken { symbol decimals } underlyingAsset { symbol }
      supplyApr rewardsApr supplyApy totalAssets totalAssetsUsd totalSupply }
    ... on FluidVaultPool { type vaultAddress chainId vaultType supplyToken { symbol } supply supplyShares
      supplyDexTokens { symbol } supplyUsd borrowToken { symbol } borrow borrowShares borrowUsd collateralFactor
      liquidationThreshold liquidationMaxLimit liquidationPenalty borrowFee supplyRate borrowRate oracle
      oraclePriceOperate oraclePriceLiquidate withdrawable borrowable } } }
  errors { poolAddress error { code message } } } }"""


async def test_a_native_eth_vaults_pool_details_name_and_price_ether(world_client, world):
    native = world.vaults[-1]
    reply = await world_client.query(
        POOL_QUERY, {"inputs": [{"protocol": "fluid", "chainId": 31337, "poolAddress": native.address}]}
    )
    (pool,) = reply.body["data"]["poolDetails"]["data"]
    assert pool["warnings"] == [] and pool["details"]["supplyToken"] == {"symbol": "ETH"}
    assert pool["details"]["supply"] == str(50 * 10**18)
    assert pool["details"]["supplyUsd"] == usd(50 * 10**18, "WETH") == 150_000.0


async def test_pool_details_of_an_ftoken_and_of_vaults(world_client, world):
    f_usdc = world.ftokens[0]
    standard, smart_col = world.vaults[:2]
    reply = await world_client.query(
        POOL_QUERY,
        {
            "inputs": [
                {"protocol": "fluid", "chainId": 31337, "poolAddress": address}
                for address in (f_usdc.address, standard.address, smart_col.address, world.tokens["USDC"])
            ]
        },
    )
    lending, vault, smart = reply.body["data"]["poolDetails"]["data"]
    (error,) = reply.body["data"]["poolDetails"]["errors"]
    assert error["error"]["code"] == "VALIDATION_ERROR"
    assert "is not a Fluid fToken or vault on chain 31337" in error["error"]["message"]
    assert lending["warnings"] == vault["warnings"] == smart["warnings"] == []
    assert lending["details"] == {
        "type": "fluid-lending-pool",
        "fTokenAddress": f_usdc.address,
        "chainId": 31337,
        "fToken": {"symbol": "fUSDC", "decimals": 6},
        "underlyingAsset": {"symbol": "USDC"},
        "supplyApr": 0.0412,
        "rewardsApr": 0.005,
        "supplyApy": pytest.approx(compounded_per_second(412 + 50, 10**4 * YEAR), rel=1e-12),
        "totalAssets": str(10**15),
        "totalAssetsUsd": usd(10**15, "USDC"),
        "totalSupply": str(10**15),
    }
    assert vault["details"] == {
        "type": "fluid-vault-pool",
        "vaultAddress": standard.address,
        "chainId": 31337,
        "vaultType": "standard",
        "supplyToken": {"symbol": "WETH"},
        "supply": str(120 * 10**18),
        "supplyShares": None,
        "supplyDexTokens": None,
        "supplyUsd": usd(120 * 10**18, "WETH"),
        "borrowToken": {"symbol": "USDC"},
        "borrow": str(250_000 * 10**6),
        "borrowShares": None,
        "borrowUsd": usd(250_000 * 10**6, "USDC"),
        "collateralFactor": 0.8,
        "liquidationThreshold": 0.85,
        "liquidationMaxLimit": 0.95,
        "liquidationPenalty": 0.01,
        "borrowFee": 0.0,
        "supplyRate": 0.025,
        "borrowRate": 0.048,
        "oracle": F.ZERO,
        "oraclePriceOperate": str(3 * 10**18),
        "oraclePriceLiquidate": str(299 * 10**16),
        "withdrawable": str(30 * 10**18),
        "borrowable": str(50_000 * 10**6),
    }
    details = smart["details"]
    assert details["vaultType"] == "smart-collateral" and details["supply"] is None
    assert details["supplyShares"] == str(900 * 10**18)
    assert [t["symbol"] for t in details["supplyDexTokens"]] == ["wstETH", "WETH"]
    assert details["supplyUsd"] == usd(Fraction(900 * 10**18 * 21 * 10**26, 10**27), "WETH"), (
        "DEX shares valued through the debt token and the vault's operate price"
    )
