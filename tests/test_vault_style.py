"""Neutrl, Midas, Avantis and Avant against test vaults and feeds on anvil
(tests/vault_style_world.py): every field for a holder, a cooldown alone, an empty wallet, APYs
across two blocks a week apart, a pruned endpoint, failing views."""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest

from adapters.history import iso_date
from tests import vault_style_world as W
from tests.conftest import world_api, world_fixture
from tests.null_figures import FIGURES, unexplained
from tests.rpc_proxy import STATE_READS, RpcProxy

TOKEN = "{ address symbol name decimals }"
VAULT = (
    f"{{ type vaultAddress chainId vaultToken {TOKEN} underlyingAsset {TOKEN} balance assets balanceUsd "
    "exchangeRate apy vaultMetrics { totalAssets totalSupply decimals } "
    "cooldown { underlyingAmount underlyingAmountUsd cooldownEnd cooldownEndDate claimable } }"
)
COMMON = "protocol walletAddress chainId blockNumber warnings { code message target }"
QUERY = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
  data {{
    ... on NeutrlWalletPositions {{ {COMMON} vaultPosition {VAULT} vaultPositions {VAULT} }}
    ... on AvantisWalletPositions {{ {COMMON} vaultPositions {VAULT} }}
    ... on AvantWalletPositions {{ {COMMON} vaultPositions {VAULT} }}
    ... on EthenaWalletPositions {{ {COMMON} vaultPositions {VAULT} }}
    ... on SkyWalletPositions {{ {COMMON} vaultPositions {VAULT} }}
    ... on SparkWalletPositions {{ {COMMON} vaultPositions {VAULT} }}
    ... on Erc4626WalletPositions {{ {COMMON} vaultPositions {VAULT} }}
    ... on MidasWalletPositions {{ {COMMON} tokenPositions {{ type tokenAddress chainId symbol decimals balance
      balanceUsd apy oraclePrice oracleCurrency oracleAddress oracleUpdatedAt }} }} }}
  errors {{ protocol chainId walletAddress error {{ code message retryable }} }} }} }}"""
PROTOCOLS = ("neutrl", "midas", "avantis", "avant", "ethena", "sky", "erc4626", "spark")
SERVED_BY = {"sparkVaults": "spark"}
"""The protocol whose answer holds a section's vaults, where it is not the section's own name."""


world = world_fixture(W.build)


async def answers(api, wallet: str, protocols=PROTOCOLS) -> dict[str, dict]:
    """Each protocol's answer for `wallet`, asked five inputs a request (the limit)."""
    found = {}
    for start in range(0, len(protocols), 5):
        inputs = [{"protocol": p, "chainId": 31337, "walletAddress": wallet} for p in protocols[start : start + 5]]
        reply = await api.query(QUERY, {"inputs": inputs})
        assert reply.status == 200, reply.body
        result = reply.body["data"]["walletPositions"]
        assert result["errors"] == []
        found |= {answer["protocol"]: answer for answer in result["data"]}
    return found


def token(world, symbol: str) -> dict:
    return {"address": world.tokens[symbol], "symbol": symbol, "name": f"Test {symbol}", "decimals": W.DECIMALS[symbol]}


def savings_apy(rate: int) -> float:
    """(rate / 1e27)^31,536,000 - 1, in 60-digit decimals: Sky's savings rate over a year."""
    with localcontext() as context:
        context.prec = 60
        return float((Decimal(rate) / Decimal(10**27)) ** (365 * 24 * 3600) - 1)


def expected_positions(world, protocol: str, wallet: str, block: int) -> list[dict]:
    return [expected_vault(world, spec, wallet, block) for spec in W.VAULTS if spec.protocol == protocol]


def expected_vault(world, spec: W.VaultSpec, wallet: str, block: int) -> dict:
    shares = world.shares.get(wallet, {}).get(spec.kind, 0)
    then, now = spec.assets
    one = 10**spec.decimals
    assets = shares * now // spec.supply
    usd_feed = W.USD_FEEDS.get(spec.asset)

    def usd(amount: int) -> float | None:
        return float(Fraction(amount * usd_feed, 10 ** (W.DECIMALS[spec.asset] + 8))) if usd_feed else None

    cooldown = None
    if spec.kind in world.cooldowns.get(wallet, {}):
        end, amount = world.cooldowns[wallet][spec.kind]
        cooldown = {
            "underlyingAmount": str(amount),
            "underlyingAmountUsd": usd(amount),
            "cooldownEnd": str(end),
            "cooldownEndDate": iso_date(end),
            "claimable": end <= world.timestamp(block),
        }
    return {
        "type": spec.kind,
        "vaultAddress": world.vaults[spec.kind],
        "chainId": 31337,
        "vaultToken": {
            "address": world.vaults[spec.kind],
            "symbol": spec.symbol,
            "name": f"Staked {spec.asset}",
            "decimals": spec.decimals,
        },
        "underlyingAsset": token(world, spec.asset),
        "balance": str(shares),
        "assets": str(assets),
        "balanceUsd": usd(assets),
        "exchangeRate": float(Fraction(one * now // spec.supply, 10 ** W.DECIMALS[spec.asset])),
        "apy": pytest.approx(
            savings_apy(spec.rate[1])
            if spec.rate
            else world.apy(one * then // spec.supply, one * now // spec.supply, block),
            rel=1e-12,
        ),
        "vaultMetrics": {"totalAssets": str(now), "totalSupply": str(spec.supply), "decimals": spec.decimals},
        "cooldown": cooldown,
    }


async def test_every_field_for_a_holder_of_each_protocol(world_client, world):
    holder = world.wallets["holder"]
    found = await answers(world_client, holder)
    for protocol, answer in found.items():
        assert (answer["walletAddress"], answer["chainId"]) == (holder, 31337), protocol
        assert unexplained(answer, FIGURES) == [], protocol
        assert all(
            w["code"] == "PRICE_UNAVAILABLE" and "names no USD feed" in w["message"] for w in answer["warnings"]
        ), "an asset without a feed is named, nothing else is missing"
    for protocol in {spec.protocol for spec in W.VAULTS}:
        answer = found[SERVED_BY.get(protocol, protocol)]
        assert answer["vaultPositions"] == expected_positions(world, protocol, holder, answer["blockNumber"])
    assert [p["apy"] for p in found["sky"]["vaultPositions"]] == [pytest.approx(0.05), pytest.approx(0.045)]
    assert found["neutrl"]["vaultPosition"] == found["neutrl"]["vaultPositions"][0]
    assert found["neutrl"]["vaultPosition"]["cooldown"]["claimable"] is True
    midas = found["midas"]
    positions = {p["symbol"]: p for p in midas["tokenPositions"]}
    assert sorted(positions) == sorted(W.MIDAS)
    for symbol, (currency, (then, now)) in W.MIDAS.items():
        balance = world.midas[holder][symbol]
        unit = Fraction(W.BTC_USD, 10**8) if currency == "BTC" else 1
        set_at = world.node.call(
            world.feeds[symbol], "latestRoundData()", returns=("uint80", "int256", "uint256", "uint256", "uint80")
        )[3]
        assert positions[symbol] == {
            "type": "midas-token",
            "tokenAddress": world.tokens[symbol],
            "chainId": 31337,
            "symbol": symbol,
            "decimals": 18,
            "balance": str(balance),
            "balanceUsd": float(Fraction(balance * now, 10 ** (18 + 8)) * unit),
            "apy": pytest.approx(world.apy(then, now, midas["blockNumber"]), rel=1e-12),
            "oraclePrice": now / 10**8,
            "oracleCurrency": currency,
            "oracleAddress": world.feeds[symbol],
            "oracleUpdatedAt": str(set_at),
        }


POOL = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) {
  data { protocol blockNumber warnings { code message target } details {
    ... on ShareVaultPool { type kind vaultAddress chainId vaultToken { address symbol name decimals }
      underlyingAsset { address symbol name decimals } totalAssets totalAssetsUsd totalSupply exchangeRate apy }
    ... on PricedTokenPool { type kind tokenAddress chainId token { address symbol name decimals } totalSupply
      totalSupplyUsd apy tokenPrice oracleCurrency oracleAddress oracleUpdatedAt } } }
  errors { poolAddress error { code message } } } }"""


async def pools(api, asked: list[tuple[str, str]]) -> tuple[list[dict], list[dict]]:
    """poolDetails for (protocol, address) pairs, five a request: (data, errors) in input order."""
    data, errors = [], []
    for start in range(0, len(asked), 5):
        inputs = [{"protocol": p, "chainId": 31337, "poolAddress": a} for p, a in asked[start : start + 5]]
        reply = await api.query(POOL, {"inputs": inputs})
        assert reply.status == 200, reply.body
        data += reply.body["data"]["poolDetails"]["data"]
        errors += reply.body["data"]["poolDetails"]["errors"]
    return data, errors


async def test_each_vault_and_token_as_a_pool_shows_what_its_positions_show(world_client, world):
    """Every vault and priced token of the world as a pool: its totals, rate and APY are the
    holder's position's, its USD the totals at the asset's feed; another address is refused."""
    holder = world.wallets["holder"]
    found = await answers(world_client, holder)
    held = [(SERVED_BY.get(spec.protocol, spec.protocol), spec) for spec in W.VAULTS]
    asked = [(protocol, world.vaults[spec.kind]) for protocol, spec in held if protocol != "spark"]
    asked += [("midas", world.tokens[symbol]) for symbol in W.MIDAS]
    data, errors = await pools(world_client, [*asked, ("sky", world.tokens["USDC"])])
    assert len(data) == len(asked)
    (refused,) = errors
    assert (
        refused["error"]["code"] == "VALIDATION_ERROR"
        and "none of sky's vaults and tokens" in refused["error"]["message"]
    )
    vaults = {entry["details"]["vaultAddress"]: entry for entry in data if "vaultAddress" in entry["details"]}
    for protocol, spec in held:
        if protocol == "spark":
            continue
        entry = vaults[world.vaults[spec.kind]]
        pool = entry["details"]
        (position,) = [p for p in found[protocol]["vaultPositions"] if p["type"] == spec.kind]
        now = spec.assets[1]
        usd_feed = W.USD_FEEDS.get(spec.asset)
        assert pool == {
            "type": "share-vault-pool",
            "kind": spec.kind,
            "vaultAddress": position["vaultAddress"],
            "chainId": 31337,
            "vaultToken": position["vaultToken"],
            "underlyingAsset": position["underlyingAsset"],
            "totalAssets": str(now),
            "totalAssetsUsd": float(Fraction(now * usd_feed, 10 ** (W.DECIMALS[spec.asset] + 8))) if usd_feed else None,
            "totalSupply": str(spec.supply),
            "exchangeRate": position["exchangeRate"],
            "apy": position["apy"],
        }, spec.kind
        assert [w["code"] for w in entry["warnings"]] == ([] if usd_feed else ["PRICE_UNAVAILABLE"]), spec.kind
    tokens = {
        entry["details"]["tokenAddress"]: entry["details"] for entry in data if "tokenAddress" in entry["details"]
    }
    positions = {p["tokenAddress"]: p for p in found["midas"]["tokenPositions"]}
    for symbol, (currency, (_, now)) in W.MIDAS.items():
        pool, position = tokens[world.tokens[symbol]], positions[world.tokens[symbol]]
        supply = world.node.call(world.tokens[symbol], "totalSupply()")
        unit = Fraction(W.BTC_USD, 10**8) if currency == "BTC" else 1
        assert pool == {
            "type": "priced-token-pool",
            "kind": "midas-token",
            "tokenAddress": world.tokens[symbol],
            "chainId": 31337,
            "token": token(world, symbol),
            "totalSupply": str(supply),
            "totalSupplyUsd": float(Fraction(supply * now, 10 ** (18 + 8)) * unit),
            "apy": position["apy"],
            "tokenPrice": position["oraclePrice"],
            "oracleCurrency": currency,
            "oracleAddress": position["oracleAddress"],
            "oracleUpdatedAt": position["oracleUpdatedAt"],
        }, symbol
        assert supply >= world.midas[holder][symbol] > 0


async def test_the_apy_compares_with_the_block_a_week_earlier(world_client, world):
    """The APY's earlier block is the newest at least a week older than the answer's: the week
    is measured in block timestamps, so the growth spans more than 7 days here."""
    found = await answers(world_client, world.wallets["holder"], ("avantis",))
    block = found["avantis"]["blockNumber"]
    assert world.timestamp(world.then + 1) > world.timestamp(block) - W.WEEK >= world.t_then
    spec = W.VAULTS[1]
    growth = Fraction(spec.assets[1], spec.assets[0])
    naive = float(growth) ** (365 / 7) - 1
    assert found["avantis"]["vaultPositions"][0]["apy"] < naive


async def test_a_cooldown_alone_is_a_position(world_client, world):
    cooler = world.wallets["cooler"]
    found = await answers(world_client, cooler, ("avant", "neutrl"))
    (position,) = found["avant"]["vaultPositions"]
    assert position == expected_vault(world, W.VAULTS[2], cooler, found["avant"]["blockNumber"])
    assert position["balance"] == "0" and position["cooldown"]["claimable"] is False
    assert found["neutrl"]["vaultPositions"] == [] and found["neutrl"]["vaultPosition"] is None


async def test_an_empty_wallet_has_no_positions_and_no_warnings(world_client, world):
    found = await answers(world_client, world.wallets["empty"])
    assert sorted(found) == sorted(PROTOCOLS)
    for protocol, answer in found.items():
        assert answer["warnings"] == [], protocol
        assert answer.get("vaultPositions", []) == [] and answer.get("tokenPositions", []) == []
    assert found["neutrl"]["vaultPosition"] is None


async def test_a_pruned_endpoint_nulls_the_apys_with_a_warning_and_is_asked_once(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path
):
    proxy = RpcProxy(world.node.url)
    server = await aiohttp_server(proxy.app(), host="127.0.0.1")
    proxy.url = str(server.make_url("/"))
    proxy.history_from = world.then + 1
    api = await world_api(
        aiohttp_client, keys_file, api_key, world.write_addresses(tmp_path / "a.json"), world.node, url=proxy.url
    )
    holder = world.wallets["holder"]
    found = await answers(api, holder)
    for protocol in {spec.protocol for spec in W.VAULTS}:
        answer = found[SERVED_BY.get(protocol, protocol)]
        specs = [spec for spec in W.VAULTS if spec.protocol == protocol]
        expected = expected_positions(world, protocol, holder, answer["blockNumber"])
        assert answer["vaultPositions"] == [
            position if spec.rate else {**position, "apy": None} for spec, position in zip(specs, expected)
        ], "a savings rate is read at the block: no history needed"
        history = [w for w in answer["warnings"] if w["code"] != "PRICE_UNAVAILABLE"]
        assert [(w["code"], w["target"]) for w in history] == [
            ("HISTORY_UNAVAILABLE", world.vaults[spec.kind]) for spec in specs if not spec.rate
        ]
        for warning in history:
            assert "has no state that old" in warning["message"] and "archive node" in warning["message"]
    assert {p["apy"] for p in found["midas"]["tokenPositions"]} == {None}
    assert {w["code"] for w in found["midas"]["warnings"]} == {"HISTORY_UNAVAILABLE"}
    old = [call for method in STATE_READS for call in proxy.calls(method) if proxy.pruned(call["params"][-1])]
    requests = -(-len(PROTOCOLS) // 5)
    asked = Counter(json.dumps([call["method"], call["params"]]) for call in old)
    assert len(old) >= requests and max(asked.values()) <= requests, (
        "in each request the first round at an old block (the one found, or one the search found likely"
        " and read ahead: its reads and the question whether Multicall3 existed then) fails that block's"
        " reader, and the pruned node is not asked it again"
    )


@pytest.mark.parametrize(
    "mode, kind, code, what",
    [
        (
            1,
            "avantis-vault",
            "FIGURE_UNAVAILABLE",
            "its asset, assets, exchange rate, totals, USD values and apy are null",
        ),
        (2, "avant-savusd", "PART_UNREADABLE", "vault"),
        (3, "neutrl-snusd", "PART_UNREADABLE", "the cooldown"),
    ],
)
async def test_a_failing_view_is_named_and_nothing_else_is_lost(world_client, world, mode, kind, code, what):
    spec = next(spec for spec in W.VAULTS if spec.kind == kind)
    holder = world.wallets["holder"]
    world.node.send(world.vaults[kind], "setBroken(uint8)", mode)
    try:
        answer = (await answers(world_client, holder, (spec.protocol,)))[spec.protocol]
    finally:
        world.node.send(world.vaults[kind], "setBroken(uint8)", 0)
    ((warning),) = [w for w in answer["warnings"] if w["code"] != "PRICE_UNAVAILABLE"]  # sNUSD's NUSD has no feed
    assert (warning["code"], warning["target"]) == (code, world.vaults[kind])
    assert warning["message"].startswith(what) and "broken" in warning["message"]
    expected = expected_vault(world, spec, holder, answer["blockNumber"])
    if mode == 1:
        nulls = dict.fromkeys(
            ("vaultToken", "underlyingAsset", "assets", "balanceUsd", "exchangeRate", "apy", "vaultMetrics")
        )
        assert answer["vaultPositions"] == [{**expected, **nulls}]
    elif mode == 2:
        assert answer["vaultPositions"] == []
    else:
        assert answer["vaultPositions"] == [{**expected, "cooldown": None}]
