"""Curve against test contracts with the views of the ABIs @curvefi/api publishes
(tests/curve_world.py: no npm package ships Curve's Vyper bytecode)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

import server
from adapters.curve import contracts, figures, positions
from adapters.position_warnings import PriceUnavailable
from adapters.prices import Kind, PriceSource, routing, usd_price
from adapters.protocol import price_routes
from tests import curve_world as C
from tests import vault_style_world
from tests.conftest import proxied_api, query_positions, world_api, world_fixture
from tests.evm import functions_of
from tests.node_oracles import curve_abi
from tests.rpc_proxy import RpcProxy

ZERO = "0x" + "00" * 20

TOKEN = "{ address symbol name decimals }"
QUERY = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
  data {{ ... on CurveWalletPositions {{ protocol walletAddress chainId blockNumber warnings {{ code message target }}
    curvePositions {{ pool kind factory lpToken {TOKEN} lpBalance gauge stakedBalance totalSupply share
      coins {{ token {TOKEN} poolBalance amount amountUsd withdrawOneCoin }}
      valueUsd virtualPrice lpPrice lpForCoins claimableCrv claimableCrvUsd
      rewards {{ token {TOKEN} claimable claimableUsd }} }} }} }}
  errors {{ error {{ code message }} }} }} }}"""

world = world_fixture(C.build)


async def answer(api, wallet: str) -> dict:
    found = await query_positions(api, QUERY, "curve", [wallet], 31337)
    assert found["errors"] == []
    (entry,) = found["data"]
    assert missing(entry, "curvePositions") == []
    return dict(entry)


def missing(entry: dict, positions: str) -> list:
    """The entry's warnings but the one each stableswap pool's position gets (a stableswap pool has
    no lp_price()), which names each pool whose lpPrice is null and nothing else."""
    stable = [w for w in entry["warnings"] if w["message"].startswith("lpPrice is null: a stableswap pool")]
    assert {(w["code"], w["target"]) for w in stable} == {
        ("FIGURE_UNAVAILABLE", p["pool"]) for p in entry[positions] if p["lpPrice"] is None
    }
    return [w for w in entry["warnings"] if w not in stable]


def token(world, name: str, address: str | None = None) -> dict:
    return {"address": address or world.tokens[name], "symbol": name, "name": name, "decimals": C.DECIMALS[name]}


def usd(name: str, amount: int) -> Fraction:
    return Fraction(amount * C.PRICES[name], 10 ** (C.DECIMALS[name] + 8))


def paid(kind: str, balance: int, amount: int, supply: int) -> int:
    """What the pool's remove_liquidity pays of a coin for `amount` LP, as Curve's Vyper has it
    (docs/protocols/curve.md#formulas): the stableswap pools on all of it; the v2 crypto pools on
    one LP unit less; twocrypto-ng and tricrypto-ng likewise, but the whole supply takes it all."""
    if kind in ("stableswap", "stableswap-ng") or (kind != "cryptoswap" and amount == supply):
        return balance * amount // supply
    return balance * (amount - 1) // supply


def expected(world, pool: dict, names: list[str], amount: int, kind: str) -> tuple[list[dict], float]:
    coins, total = [], Fraction(0)
    for name, balance, rate in zip(names, pool["balances"], pool["rates"]):
        held = paid(kind, balance, amount, pool["supply"])
        total += usd(name, held)
        coins.append(
            {
                "token": token(world, name),
                "poolBalance": str(balance),
                "amount": str(held),
                "amountUsd": float(usd(name, held)),
                "withdrawOneCoin": str(amount * rate // C.E18),
            }
        )
    return coins, float(total)


def token_amount(values: dict, amount: int, kind: str) -> int:
    """The test pool's calc_token_amount of the share of each coin of `amount` LP (the mean of
    amount_i x totalSupply / balance_i, tests/contracts/TestCurve.sol)."""
    supply, balances = values["supply"], values["balances"]
    return sum(paid(kind, balance, amount, supply) * supply // balance for balance in balances) // len(balances)


def position(world, values: dict, names: list[str], lp: dict, held: int, staked: int, **facts) -> dict:
    """The position expected of a pool of `values` (tests/curve_world.py) with coins `names`, LP
    token `lp`, `held` LP and `staked` LP; `facts`: pool, kind, factory, gauge, and the gauge's
    claimableCrv and rewards where it has any."""
    amount = held + staked
    coins, value = expected(world, values, names, amount, facts["kind"])
    crv = facts.pop("crv", 0)
    return {
        "pool": facts["pool"],
        "kind": facts["kind"],
        "factory": facts["factory"],
        "lpToken": {**lp, "decimals": 18},
        "lpBalance": str(held),
        "gauge": facts.get("gauge"),
        "stakedBalance": str(staked),
        "totalSupply": str(values["supply"]),
        "share": float(Fraction(amount, values["supply"])),
        "coins": coins,
        "valueUsd": value,
        "virtualPrice": str(values["virtual"]),
        "lpPrice": str(values["lp_price"]) if "lp_price" in values else None,
        "lpForCoins": str(token_amount(values, amount, facts["kind"])),
        "claimableCrv": str(crv),
        "claimableCrvUsd": float(usd("CRV", crv)),
        "rewards": facts.get("rewards", []),
    }


async def test_lp_in_a_stableswap_and_a_cryptoswap_pool_with_a_gauge_stake(world_client, world):
    """Both pools' shares of each coin as their remove_liquidity pays them (`paid`: LP held + staked),
    each held against the pool's calc_withdraw_one_coin; the gauge's CRV and extra reward. Then the
    pools of the older registries the AddressProvider names (registry_positions)."""
    entry = await answer(world_client, world.wallets["lp"])
    holding = C.HOLDINGS["lp"]
    crv, extra = C.CLAIMABLE["lp"]
    stable_lp = {"address": world.stable, "symbol": "USDCcrvUSD", "name": "USDC/crvUSD"}
    crypto_lp = {"address": world.crypto_lp, "symbol": "crvCRVETH", "name": "Curve WETH-CRV"}
    reward = {"token": token(world, "EXTRA"), "claimable": str(extra), "claimableUsd": float(usd("EXTRA", extra))}
    assert entry["curvePositions"] == [
        position(
            world,
            C.STABLE,
            ["USDC", "crvUSD"],
            stable_lp,
            holding["stable"],
            holding["staked"],
            pool=world.stable,
            kind="stableswap-ng",
            factory=world.factories["stable_ng_factory"],
            gauge=world.gauge,
            crv=crv,
            rewards=[reward],
        ),
        position(
            world,
            C.CRYPTO,
            ["WETH", "CRV"],
            crypto_lp,
            holding["crypto"],
            0,
            pool=world.crypto,
            kind="cryptoswap",
            factory=world.factories["crypto_factory"],
        ),
        *registry_positions(world),
    ]


def registry_positions(world) -> list[dict]:
    """The `lp` wallet's positions in the pools of the older registries the AddressProvider
    names: the main registry's legacy pool (coins by int128, its LP token and gauge of its own,
    found by `get_lp_token` and `get_gauges`) and the crypto registry's tricrypto pool."""
    held, older = C.REGISTRY_HOLDINGS, world.older
    legacy_lp = {"address": older["legacy_lp"], "symbol": "crvLEGACY", "name": "Curve.fi USDC/crvUSD"}
    tri_lp = {"address": older["tricrypto_lp"], "symbol": "crv3crypto", "name": "Curve.fi USD-WETH-CRV"}
    return [
        position(
            world,
            C.LEGACY,
            ["USDC", "crvUSD"],
            legacy_lp,
            held["legacy"],
            held["legacy_staked"],
            pool=older["legacy"],
            kind="stableswap",
            factory=world.registries["main_registry"],
            gauge=older["legacy_gauge"],
            crv=C.LEGACY_CLAIMABLE,
        ),
        position(
            world,
            C.TRICRYPTO,
            ["USDC", "WETH", "CRV"],
            tri_lp,
            held["tricrypto"],
            0,
            pool=older["tricrypto"],
            kind="cryptoswap",
            factory=world.registries["crypto_registry"],
        ),
    ]


async def test_an_lp_token_is_priced_wherever_it_appears_by_what_its_pool_pays(world_client, world):
    """An LP token met outside Curve (a vault's asset) is priced by its pool: each coin's balance
    x 10^18 whole LP / the LP's totalSupply, rounded down, at its feed; stated as a protocol rate
    of the pool that rests on a market (a trade moves the balances), with the pool's depth. The
    stableswap-ng pool is its own LP token (its factory lists coins of it); the older registries'
    pools have LP tokens of their own (the registry's `get_pool_from_lp_token`), the oldest by
    int128 index. The v2 crypto pool's LP token maps back to no pool: Curve does not price it;
    nor any LP without the routes."""
    app, node = world_client.app, world.node
    registry = app[server.REGISTRY]
    chain = registry["curve"].chain(node.chain_id)

    async def priced(token: str, routed: bool = True):
        reader = app[server.CHAINS].request(asyncio.get_running_loop().time() + 10).reader(node.chain_id)
        with routing(price_routes(registry.values() if routed else (), app[server.INDEXES])):
            return await usd_price(reader, chain, token)

    legacy, tricrypto = world.older["legacy"], world.older["tricrypto"]
    cases = [
        (world.stable, world.stable, "uint256", C.STABLE),
        (world.older["legacy_lp"], legacy, "int128", C.LEGACY),
        (world.older["tricrypto_lp"], tricrypto, "uint256", C.TRICRYPTO),
    ]
    for token, pool, index, made in cases:
        price = await priced(token)
        supply = node.call(token, "totalSupply()")
        coins = [
            node.call(pool, f"coins({index})", i, returns=("address",)).lower() for i in range(len(made["balances"]))
        ]
        names = [next(name for name, at in world.tokens.items() if at == coin) for coin in coins]
        balances = [node.call(pool, f"balances({index})", i) for i in range(len(coins))]
        value = sum(
            Fraction(balance * 10**36 // supply * C.PRICES[name], 10 ** (C.DECIMALS[name] + 8))
            for balance, name in zip(balances, names)
        )
        assert len(coins) >= 2 and price.per_token() == value / 10**18, token
        depth = sum(
            Fraction(balance * C.PRICES[name], 10 ** (C.DECIMALS[name] + 8)) for balance, name in zip(balances, names)
        )
        assert price.source is not None and price.source.feed in {world.feeds[name] for name in names}
        assert replace(price.source, feed="", age=0) == PriceSource(
            token, "", 0, Kind.PROTOCOL_RATE, pool, None, None, float(depth), market=True
        )
        assert price.for_checks() is None
        assert {base.source.asset for base in price.rests_on if base.source} == set(coins)
    with pytest.raises(PriceUnavailable, match="no protocol's own"):
        await priced(world.crypto_lp)
    with pytest.raises(PriceUnavailable, match="no protocol's own"):
        await priced(world.stable, routed=False)


LENSED = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on WalletEntry { protocol warnings { code message }
    allPositions { legs { asset { address } usd priceSource } }
    usdPrices { asset kind source } provenance { method params result } } }
  errors { error { code message } } } }"""


async def test_a_lens_that_prices_what_it_finds_records_curves_reads_of_an_lp_token(
    aiohttp_client, keys_file, api_key, world, tmp_path
):
    """An ERC-4626 vault of the stable pool's LP token, whose asset the vault-style lens prices
    (lenses/Prices.sol): Curve's reads of it (the factories' get_coins, the AddressProvider's
    registries, the pool's balances and supply, its coins' feeds) are on the lens's tape, so an
    answer with provenance reads no Curve contract outside the lens; its assets are priced by the pool."""
    node, lp = world.node, world.wallets["lp"]
    snapshot = node.rpc("evm_snapshot")
    try:
        vault = node.deploy(
            vault_style_world.compile_all()["TestShareVault"],
            ["string", "string", "uint8", "address"],
            ["Staked LP", "sLP", 18, world.stable],
        )
        node.send(world.stable, "approve(address,uint256)", vault, 2**256 - 1, sender=lp)
        node.send(vault, "mint(uint256,address)", 100 * C.E18, lp, sender=lp)
        data = world.addresses_override()
        data[str(node.chain_id)]["erc4626"] = {
            "apyPeriodDays": 7,
            "vaults": [{"type": "erc4626-vault", "address": vault, "cooldown": False}],
            "startBlock": world.start_block,
        }
        (tmp_path / "a.json").write_text(json.dumps(data))
        api = await world_api(aiohttp_client, keys_file, api_key, tmp_path / "a.json", node)
        found = await query_positions(api, LENSED, "erc4626", [lp])
    finally:
        node.rpc("evm_revert", snapshot)
    assert found["errors"] == []
    (entry,) = found["data"]
    (leg,) = [leg for position in entry["allPositions"] for leg in position["legs"] if leg["asset"]]
    assert leg["asset"]["address"] == world.stable and leg["usd"] and leg["priceSource"] == world.stable
    assert {"asset": world.stable, "kind": "PROTOCOL_RATE", "source": world.stable} in entry["usdPrices"]
    curve = {world.stable, *world.factories.values(), *world.registries.values(), world.provider}
    outside = [read["params"].lower() for read in entry["provenance"] if '"lens"' not in read["params"]]
    assert outside and not [params for params in outside if any(address[2:] in params for address in curve)]


async def test_a_coin_with_no_feed_costs_the_lens_no_read_of_its_own(
    aiohttp_client, keys_file, api_key, world, tmp_path
):
    """The lens prices each coin and reward it meets as lenses/Prices.sol does: for a coin with no
    feed (crvUSD, its feed taken out of the addresses data) the next sources' reads are on its
    tape (the ERC-4626 probe, Curve's factories' `get_coins`), so an answer with provenance makes
    none of them outside the lens."""
    node, lp = world.node, world.wallets["lp"]
    crvusd = world.tokens["crvUSD"]
    data = world.addresses_override()
    feeds = data[str(node.chain_id)]["priceFeeds"]
    (key,) = [key for key in feeds if key.lower() == crvusd]
    del feeds[key]
    (tmp_path / "a.json").write_text(json.dumps(data))
    api = await world_api(aiohttp_client, keys_file, api_key, tmp_path / "a.json", node)
    found = await query_positions(api, LENSED, "curve", [lp])
    assert found["errors"] == []
    (entry,) = found["data"]
    assert not any(price["asset"] == crvusd and price["kind"] == "FEED" for price in entry["usdPrices"])
    outside = [read["params"].lower() for read in entry["provenance"] if '"lens"' not in read["params"]]
    probe, listed = "38d52e0f", "9ac90d3d" + crvusd[2:].rjust(64, "0")
    assert outside and not [params for params in outside if probe in params or listed in params]


async def test_lp_for_coins_is_the_wallets_lp_again(world_client, world):
    """The cross-check: each pool's own calc_token_amount(the wallet's share of each coin, false)
    (in whichever of its forms the pool has: a dynamic array, a fixed one without the flag, a fixed
    one with it) is the wallet's LP (held + staked) again, less the rounding of each coin's amount
    down (under one unit of the coin: totalSupply / poolBalance LP)."""
    entry = await answer(world_client, world.wallets["lp"])
    for found in entry["curvePositions"]:
        lp = int(found["lpBalance"]) + int(found["stakedBalance"])
        rounding = sum(int(found["totalSupply"]) // int(coin["poolBalance"]) + 1 for coin in found["coins"])
        assert 0 <= lp - int(found["lpForCoins"]) <= rounding, found["pool"]


async def test_a_stake_alone_is_a_position_and_claimable_tokens_is_called_as_it_writes(world_client, world):
    """The test gauge's claimable_tokens writes, as LiquidityGauge v1-v4's checkpoint does (a
    staticcall of it reverts): the lens calls it last, as a transaction would."""
    entry = await answer(world_client, world.wallets["staker"])
    (position,) = entry["curvePositions"]
    assert (position["pool"], position["lpBalance"], position["stakedBalance"]) == (world.stable, "0", str(777 * C.E18))
    assert position["claimableCrv"] == str(C.CLAIMABLE["staker"][0])
    assert [r["claimable"] for r in position["rewards"]] == [str(C.CLAIMABLE["staker"][1])]


async def test_a_wallet_with_nothing_has_no_positions(world_client, world):
    entry = await answer(world_client, world.wallets["empty"])
    assert entry["curvePositions"] == []


NG = {
    "balances": [3_000_000 * 10**6, 1_000 * C.E18, 6_000_000 * C.E18],
    "supply": 2_000 * C.E18,
    "virtual": 1_010_000_000_000_000_000,
    "lp_price": 3_000 * C.E18,
    "rates": [1_500 * 10**6, C.E18 // 2, 3_000 * C.E18],
}
"""A twocrypto-ng pool (USDC, WETH: the first two of each list) and a tricrypto-ng one (USDC, WETH, CRV)."""


async def test_the_ng_crypto_pools_pay_on_one_lp_unit_less_but_for_the_whole_supply(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path
):
    """twocrypto-ng's and tricrypto-ng's remove_liquidity pay balances(i) x (LP - 1) / totalSupply,
    each whole balance for the whole supply (`paid`): a thousandth of the twocrypto-ng pool's LP,
    whose balances(i) x LP / totalSupply are whole numbers, has one unit less of each coin, and
    lpForCoins follows; the wallet holding all of the tricrypto-ng pool's LP has all its coins.
    Warm, each answer is one lens call: the lens pays by the same rule (lenses/CurvePools.sol)."""
    node, artifacts = world.node, C.compile_all()
    data = world.addresses_override()
    factories = data[str(node.chain_id)]["curve"]["factories"]
    factories["tricrypto_factory"] = node.deploy(artifacts["TestCurveFactory"])
    two = {**NG, "balances": NG["balances"][:2], "rates": NG["rates"][:2]}
    part, whole = NG["supply"] // 1000, NG["supply"]
    found = {}
    for kind, factory, values, wallet, held in (
        ("twocrypto-ng", factories["twocrypto_factory"], two, world.node.accounts[17], part),
        ("tricrypto-ng", factories["tricrypto_factory"], NG, world.node.accounts[18], whole),
    ):
        names = ["USDC", "WETH", "CRV"][: len(values["balances"])]
        pool = node.deploy(artifacts["TestCurvePool"], ["string", "string", "bool"], [kind, kind, True])
        node.send(factory, "add(address,address,address)", pool, pool, ZERO)
        coins = [world.tokens[name] for name in names]
        node.send(pool, "setCoins(address[],uint256[],uint256[])", coins, values["balances"], values["rates"])
        node.send(pool, "setPrices(uint256,uint256)", values["virtual"], values["lp_price"])
        node.send(pool, "setTokenAmount(uint256,address)", 1, ZERO)
        node.send(pool, "mint(address,uint256)", wallet, held)
        if held < whole:
            node.send(pool, "mint(address,uint256)", node.accounts[0], whole - held)
        lp = {"address": pool, "symbol": kind, "name": kind}
        found[kind] = (wallet, position(world, values, names, lp, held, 0, pool=pool, kind=kind, factory=factory))
    path = tmp_path / "ng.json"
    path.write_text(json.dumps(data))
    proxy = RpcProxy(node.url)
    proxied = await aiohttp_server(proxy.app(), host="127.0.0.1")
    api = await world_api(aiohttp_client, keys_file, api_key, path, node, url=str(proxied.make_url("/")))
    await answer(api, world.wallets["lp"])
    for kind, (wallet, position_) in found.items():
        node.mine()
        before = len(proxy.posts)
        assert (await answer(api, wallet))["curvePositions"] == [position_], kind
        assert one_lens_call(proxy.posts[before:]), f"{kind}: the lens reads calc_token_amount as the adapter asks it"
    two_coins = found["twocrypto-ng"][1]["coins"]
    assert [coin["amount"] for coin in two_coins] == [str(balance // 1000 - 1) for balance in two["balances"]]
    assert [coin["amount"] for coin in found["tricrypto-ng"][1]["coins"]] == [str(b) for b in NG["balances"]]


PUBLISHED = {
    "POOL_COUNT": ("factory.json", "factory-crypto.json", "factory-stable-ng.json", "factory-twocrypto-ng.json"),
    "POOL_LIST": ("factory.json", "factory-crypto.json", "factory-stable-ng.json", "factory-tricrypto-mainnet.json"),
    "GET_GAUGE": ("factory.json", "factory-crypto.json", "factory-stable-ng.json", "factory-twocrypto-ng.json"),
    "GET_TOKEN": ("factory-crypto.json",),
    "GET_GAUGE_FROM_LP_TOKEN": ("gauge_factory/child_gauge_factory.json",),
    "COINS": (
        "3pool/swap.json",
        "factory-stable-ng/plain-stableswap-ng.json",
        "factory-crypto/factory-crypto-pool-2.json",
    ),
    "BALANCES": ("3pool/swap.json", "factory-twocrypto/factory-twocrypto-pool.json", "factory-v2/Plain2Basic.json"),
    "GET_VIRTUAL_PRICE": (
        "factory-stable-ng/plain-stableswap-ng.json",
        "factory-tricrypto/factory-tricrypto-pool.json",
    ),
    "LP_PRICE": ("factory-crypto/factory-crypto-pool-2.json", "factory-twocrypto/factory-twocrypto-pool.json"),
    "CALC_WITHDRAW_ONE_COIN": ("factory-stable-ng/plain-stableswap-ng.json", "factory-v2/Plain2Basic.json"),
    "CALC_WITHDRAW_ONE_COIN_CRYPTO": (
        "factory-crypto/factory-crypto-pool-2.json",
        "factory-twocrypto/factory-twocrypto-pool.json",
        "factory-tricrypto/factory-tricrypto-pool.json",
    ),
    "CLAIMABLE_TOKENS": ("gauge.json", "gauge_v4.json", "gauge_v5.json"),
    "REWARD_COUNT": ("gauge_v4.json", "gauge_v5.json"),
    "REWARD_TOKENS": ("gauge_v2.json", "gauge_v4.json", "gauge_v5.json"),
    "CLAIMABLE_REWARD": ("gauge_v4.json", "gauge_v5.json"),
    "CALC_TOKEN_AMOUNT_2": ("steth/swap.json", "factory-twocrypto/factory-twocrypto-pool.json", "compound/swap.json"),
    "CALC_TOKEN_AMOUNT_3": ("3pool/swap.json", "tricrypto2/swap.json", "factory-tricrypto/factory-tricrypto-pool.json"),
    "CALC_TOKEN_AMOUNT_4": ("busd/swap.json", "factory-v2/Plain4Balances.json"),
    "CALC_TOKEN_AMOUNT_NG": ("factory-stable-ng/plain-stableswap-ng.json",),
    "CALC_TOKEN_AMOUNT_CRYPTO_2": ("factory-crypto/factory-crypto-pool-2.json", "crveth/swap.json"),
    "COINS_INT128": ("compound/swap.json", "usdt/swap.json", "ren/swap.json", "sbtc/swap.json"),
    "BALANCES_INT128": ("compound/swap.json", "usdt/swap.json", "ren/swap.json", "sbtc/swap.json"),
    "UNDERLYING_COINS": ("aave/swap.json", "saave/swap.json", "ib/swap.json"),
    "UNDERLYING_COINS_INT128": ("compound/swap.json", "usdt/swap.json", "iearn/swap.json", "busd/swap.json"),
    "GET_COINS_4": ("factory.json",),
    "GET_COINS_NG": ("factory-stable-ng.json",),
    "GET_COINS_2": ("factory-crypto.json", "factory-twocrypto-ng.json"),
    "GET_COINS_3": ("factory-tricrypto-mainnet.json",),
    "FEE": (
        "3pool/swap.json",
        "factory-stable-ng/plain-stableswap-ng.json",
        "factory-crypto/factory-crypto-pool-2.json",
        "factory-twocrypto/factory-twocrypto-pool.json",
        "factory-tricrypto/factory-tricrypto-pool.json",
    ),
    "REWARD_DATA": ("gauge_v4.json", "gauge_factory.json"),
}
"""Each function the adapter calls -> @curvefi/api ABIs (lib/constants/abis/) that declare it."""
REGISTRY_ABI = json.loads((Path(__file__).parent / "curve_registry_abi.json").read_text())
"""The AddressProvider's and the older registries' functions as Curve's own ABIs declare them
(curvefi/metaregistry at a commit the file names; @curvefi/api publishes none)."""
REGISTRY_PUBLISHED = {
    "GET_ADDRESS": ("AddressProvider",),
    "GET_LP_TOKEN": ("MainRegistry", "CryptoRegistry"),
    "GET_GAUGES": ("MainRegistry", "CryptoRegistry"),
    "POOL_COUNT": ("MainRegistry", "CryptoRegistry"),
    "POOL_LIST": ("MainRegistry", "CryptoRegistry"),
    "GET_COINS_8": ("MainRegistry", "CryptoRegistry"),
    "GET_POOL_FROM_LP_TOKEN": ("MainRegistry", "CryptoRegistry"),
    "GET_BALANCES_8": ("MainRegistry", "CryptoRegistry"),
}


def test_the_adapter_reads_curves_published_abis():
    functions = {**functions_of(contracts), **functions_of(figures), **functions_of(positions)}
    assert set(functions) == set(PUBLISHED) | set(REGISTRY_PUBLISHED)
    for name, function in functions.items():
        for path in PUBLISHED.get(name, ()):
            assert curve_abi(path)[function.signature] == list(function.output_types), (name, path)
        for contract in REGISTRY_PUBLISHED.get(name, ()):
            assert REGISTRY_ABI["functions"][contract][function.signature] == list(function.output_types), name


def test_the_scan_costs_about_16_500_gas_a_pool(world):
    """The lens's scan of a factory whose every pool has a gauge, for a wallet that holds none:
    pool_list, get_gauge and two balanceOf per pool, each to a contract not touched before. Under
    20,000 gas a pool, 2,500 pools stay under geth's default eth_call cap of 50 M gas
    (docs/protocols/curve.md#the-scan). An older registry's pool (the AddressProvider's main
    registry: get_lp_token, get_gauges' ten gauges and ten types, an LP token of its own) costs
    more, under 25,000."""
    node, artifacts = world.node, C.compile_all()
    factory = node.deploy(artifacts["TestCurveFactory"])
    registry = node.deploy(artifacts["TestCurveRegistry"])
    provider = node.deploy(artifacts["TestCurveAddressProvider"])

    def gas(registries: list[str], through: str) -> int:
        ids = contracts.provider_ids()[:1] if through != ZERO else []
        code = contracts.LENS.initcode(
            node.accounts[5],
            registries,
            [0] * len(registries),
            32,
            world.tokens["CRV"],
            [[], [], []],
            ZERO,
            [],
            through,
            ids,
        )
        return int(node.rpc("eth_estimateGas", {"data": "0x" + code.hex()}), 16)

    def token() -> str:
        return node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], ["t", "t", 18])

    empty, pools = gas([factory], ZERO), 60
    for _ in range(pools):
        pool, gauge = token(), token()
        node.send(factory, "add(address,address,address)", pool, pool, gauge)
    per_pool = (gas([factory], ZERO) - empty) / pools
    assert 10_000 < per_pool < 20_000, per_pool
    node.send(provider, "set(uint256,address)", 0, registry)
    empty = gas([], provider)
    for _ in range(pools):
        node.send(registry, "add(address,address,address)", token(), token(), token())
    per_registry_pool = (gas([], provider) - empty) / pools
    assert per_pool < per_registry_pool < 25_000, per_registry_pool
    print(f"gas a pool: factory {per_pool:.0f}, older registry {per_registry_pool:.0f}")


async def test_a_factory_that_fails_is_named_and_the_others_answer(aiohttp_client, keys_file, api_key, world, tmp_path):
    """A factory whose pool_count reverts (here a token's address listed as one) is left out
    with PART_UNREADABLE; the pools of the others are still listed."""
    data = world.addresses_override()
    broken = world.tokens["USDC"]
    data[str(world.node.chain_id)]["curve"]["factories"]["crvusd_factory"] = broken
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    api = await world_api(aiohttp_client, keys_file, api_key, path, world.node)
    found = await query_positions(api, QUERY, "curve", [world.wallets["lp"]], 31337)
    (entry,) = found["data"]
    assert [(w["code"], w["target"]) for w in missing(entry, "curvePositions")] == [("PART_UNREADABLE", broken)]
    assert [p["pool"] for p in entry["curvePositions"]] == [
        world.stable,
        world.crypto,
        world.older["legacy"],
        world.older["tricrypto"],
    ]


async def test_a_chain_without_crv_has_gauge_stakes_with_extra_rewards_only(
    aiohttp_client, keys_file, api_key, world, tmp_path
):
    """Where Curve mints no CRV (no `crv` in the section, as on Mantle), a gauge stake is still a
    position with its extra rewards, and its CRV is 0 (no gauge's `claimable_tokens` is asked)."""
    data = world.addresses_override()
    del data[str(world.node.chain_id)]["curve"]["crv"]
    path = tmp_path / "no-crv.json"
    path.write_text(json.dumps(data))
    api = await world_api(aiohttp_client, keys_file, api_key, path, world.node)
    entry = await answer(api, world.wallets["lp"])
    staked = next(p for p in entry["curvePositions"] if p["gauge"] == world.gauge)
    _crv, extra = C.CLAIMABLE["lp"]
    assert (staked["claimableCrv"], staked["claimableCrvUsd"]) == ("0", 0.0)
    assert staked["rewards"] == [
        {"token": token(world, "EXTRA"), "claimable": str(extra), "claimableUsd": float(usd("EXTRA", extra))}
    ]
    assert missing(entry, "curvePositions") == []


async def test_off_ethereum_gauges_are_the_child_gauge_factories(aiohttp_client, keys_file, api_key, world, tmp_path):
    """With child gauge factories listed (every chain but Ethereum), a pool's gauge is the first
    one's `get_gauge_from_lp_token(lp)` that names one, as @curvefi/api finds it, not the pool
    factory's `get_gauge` (nor the older registry's `get_gauges`): here the stable pool's and the
    legacy pool's from the old factory, the crypto pool's from the new one; the tricrypto pool
    has none."""
    node, artifacts = world.node, C.compile_all()
    new, old = (node.deploy(artifacts["TestChildGaugeFactory"]) for _ in "no")
    child_gauge = node.deploy(artifacts["TestCurveGauge"])
    node.send(child_gauge, "mint(address,uint256)", world.wallets["lp"], 7 * C.E18)
    node.send(new, "set(address,address)", world.crypto_lp, child_gauge)
    node.send(old, "set(address,address)", world.stable, world.gauge)
    node.send(old, "set(address,address)", world.older["legacy_lp"], world.older["legacy_gauge"])
    data = world.addresses_override()
    section = data[str(node.chain_id)]["curve"]
    section["childGaugeFactories"] = {"child_gauge_factory": new, "child_gauge_factory_old": old}
    path = tmp_path / "child.json"
    path.write_text(json.dumps(data))
    api = await world_api(aiohttp_client, keys_file, api_key, path, node)
    entry = await answer(api, world.wallets["lp"])
    found = [(p["pool"], p["gauge"], p["stakedBalance"]) for p in entry["curvePositions"]]
    assert found == [
        (world.stable, world.gauge, str(C.HOLDINGS["lp"]["staked"])),
        (world.crypto, child_gauge, str(7 * C.E18)),
        (world.older["legacy"], world.older["legacy_gauge"], str(C.REGISTRY_HOLDINGS["legacy_staked"])),
        (world.older["tricrypto"], None, "0"),
    ]


async def test_a_query_is_one_request_the_lens(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path):
    """Warm (the chain's facts known, the endpoint probed), a new block's answer for either wallet
    is its header (the tests follow no head) and then one request: one lens call holding the scan,
    the held pools' reads, the feeds and the gauges' claimable_tokens."""
    proxy, api = await proxied_api(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path)
    await answer(api, world.wallets["lp"])
    for role in ("lp", "staker"):
        world.node.mine()
        before = len(proxy.posts)
        await answer(api, world.wallets[role])
        assert one_lens_call(proxy.posts[before:]), role


def one_lens_call(posts: list) -> bool:
    """Whether a query's posts to the node were its block's header, then one lens call alone."""
    header, *rest = posts
    items = [item for post in rest for item in (post if isinstance(post, list) else [post])]
    calls = [(item["method"], "to" in item["params"][0]) for item in items]
    return header["method"] == "eth_getBlockByNumber" and calls == [("eth_call", False)]


POOL_QUERY = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) {
  data { poolAddress warnings { code message target } details { ... on CurvePool {
    type pool chainId kind factory lpToken { address symbol } totalSupply
    coins { token { address symbol decimals } poolBalance poolBalanceUsd } tvlUsd virtualPrice lpPriceInCoin0 fee
    liquidityGauge { address totalSupply stakedUsd rewards { token { symbol } rate periodFinish ratePerYearUsd } } } } }
  errors { poolAddress error { code message } } } }"""


async def test_each_pool_as_its_factory_or_registry_lists_it_with_its_gauge(world_client, world):
    """The four pools of the world's factories and registries by their address: each with the
    kind of the source whose get_coins lists it, its coins' balances and USD, the LP supply, its
    prices and fee, and its gauge's stake and reward rate; an LP token and a gauge are refused."""
    older = world.older
    asked = {
        world.stable: ("stableswap-ng", world.factories["stable_ng_factory"], world.stable, C.STABLE, "stable"),
        world.crypto: ("cryptoswap", world.factories["crypto_factory"], world.crypto_lp, C.CRYPTO, "crypto"),
        older["legacy"]: ("stableswap", world.registries["main_registry"], older["legacy_lp"], C.LEGACY, "legacy"),
        older["tricrypto"]: (
            "cryptoswap",
            world.registries["crypto_registry"],
            older["tricrypto_lp"],
            C.TRICRYPTO,
            "tricrypto",
        ),
    }
    inputs = [{"protocol": "curve", "chainId": 31337, "poolAddress": a} for a in [*asked, world.crypto_lp, world.gauge]]
    found, errors = [], []
    for part in (inputs[:3], inputs[3:]):
        reply = (await world_client.query(POOL_QUERY, {"inputs": part})).body["data"]["poolDetails"]
        found, errors = found + reply["data"], errors + reply["errors"]
    assert [e["poolAddress"] for e in errors] == [world.crypto_lp, world.gauge]
    assert all(e["error"]["code"] == "VALIDATION_ERROR" for e in errors)
    assert all("no pool of Curve's factories or older registries" in e["error"]["message"] for e in errors)
    node = world.node
    for entry in found:
        pool = entry["details"]
        kind, source, lp, values, name = asked[entry["poolAddress"]]
        coins = [row["token"]["address"] for row in pool["coins"]]
        usd = [
            float(Fraction(balance * C.PRICES[symbol], 10 ** (C.DECIMALS[symbol] + 8)))
            for balance, symbol in zip(values["balances"], [row["token"]["symbol"] for row in pool["coins"]])
        ]
        crypto = kind == "cryptoswap"
        assert {key: pool[key] for key in ("type", "pool", "chainId", "kind", "factory", "totalSupply", "fee")} == {
            "type": "curve-pool",
            "pool": entry["poolAddress"],
            "chainId": 31337,
            "kind": kind,
            "factory": source,
            "totalSupply": str(values["supply"]),
            "fee": C.FEES[name] / 10**10,
        }, name
        view = "coins(int128)" if name == "legacy" else "coins(uint256)"
        assert coins == [node.call(entry["poolAddress"], view, i, returns=("address",)) for i in range(len(coins))]
        assert pool["lpToken"]["address"] == lp and len(coins) == len(values["balances"]), name
        assert [row["poolBalance"] for row in pool["coins"]] == [str(b) for b in values["balances"]], name
        assert [row["poolBalanceUsd"] for row in pool["coins"]] == usd, name
        assert abs(pool["tvlUsd"] - sum(usd)) <= 1e-9 * sum(usd), name
        assert pool["virtualPrice"] == str(values["virtual"])
        assert pool["lpPriceInCoin0"] == (str(values["lp_price"]) if crypto else None), name
        warned = [w["message"] for w in entry["warnings"]]
        lacking = ["lpPrice is null: a stableswap pool has no lp_price() (virtualPrice)"]
        assert warned == ([] if crypto else lacking), name
    gauges = {entry["poolAddress"]: entry["details"]["liquidityGauge"] for entry in found}
    assert gauges[world.crypto] is None and gauges[older["tricrypto"]] is None
    staked = node.call(world.gauge, "totalSupply()")
    stable_tvl = next(entry["details"]["tvlUsd"] for entry in found if entry["poolAddress"] == world.stable)
    assert gauges[world.stable] == {
        "address": world.gauge,
        "totalSupply": str(staked),
        "stakedUsd": stable_tvl * staked / C.STABLE["supply"],
        "rewards": [
            {
                "token": {"symbol": "EXTRA"},
                "rate": str(C.EXTRA_RATE),
                "periodFinish": str(2**40),
                "ratePerYearUsd": float(Fraction(C.EXTRA_RATE * 365 * 24 * 3600 * C.PRICES["EXTRA"], 10 ** (18 + 8))),
            }
        ],
    }
    legacy_staked = C.REGISTRY_HOLDINGS["legacy_staked"]
    assert gauges[older["legacy"]]["totalSupply"] == str(legacy_staked) and gauges[older["legacy"]]["rewards"] == []
