"""The addresses data: built-in tables, the ADDRESSES_FILE overlay, and clear errors."""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import pytest

import addresses
import protocols
import server
from adapters import vault_style
from adapters.liquity import section as liquity_section
from adapters.morpho.section import MORPHO
from adapters.prices import native_feed, token_feeds
from adapters.vault_style.section import section
from addresses import AddressesError, Section, sections
from chain.erc20 import NATIVE, native_coin
from tests.evm import SDKS, TOOLS
from tests.node_oracles import pack, packs, registries

FEED = {"pair": "X/USD", "feed": "0x" + "11" * 20, "heartbeat": 3600}


def test_built_in_data_loads_and_offers_morpho_on_its_chains():
    data = protocols.load_addresses()
    assert protocols.registry(data)["morpho"].chains == frozenset(
        {1, 10, 56, 130, 137, 146, 8453, 42161, 59144, 534352}
    )
    morpho = MORPHO.of(data[1])
    assert morpho is not None
    blue = morpho.blue
    assert blue.address == "0xbbbbbbbbbb9cc5e90e3b3af64bdaf62c37eeffcb" and blue.start_block == 18883124
    assert all(token == token.lower() for chain in data.values() for token in chain.price_feeds)


def test_an_override_adds_a_chain_and_merges_feeds(tmp_path):
    token = "0x" + "ab" * 20
    path = tmp_path / "a.json"
    path.write_text(
        json.dumps(
            {
                "31337": {"morpho": {"blue": {"address": "0x" + "22" * 20, "startBlock": 5}}},
                "1": {"priceFeeds": {token: FEED}},
            }
        )
    )
    data = protocols.load_addresses(path)
    assert 31337 in protocols.registry(data)["morpho"].chains
    added = MORPHO.of(data[31337])
    assert added is not None and added.vault_v1_factories == ()
    assert token in data[1].price_feeds and len(data[1].price_feeds) > 1, "built-in feeds are kept"
    assert MORPHO.of(data[1]) is not None, "sections the override does not name are kept"


def test_the_vault_style_protocols_are_data_on_their_chains():
    data = protocols.load_addresses()
    registry = protocols.registry(data)
    assert registry["spark"].chains == {1}, "SparkLend's markets and Spark's savings vaults"
    assert {name: registry[name].chains for name in ("neutrl", *vault_style.VAULT_STYLE)} == {
        "neutrl": {1},
        "midas": {1, 10, 56, 8453, 42161, 43114, 534352},
        "avantis": {8453},
        "avant": {43114},
        "ethena": {1},
        "sky": {1},
        "erc4626": set(),
    }
    midas = section("midas").of(data[1])
    assert midas is not None
    assert len(midas.tokens) > 40 and midas.apy_period == 7 * 24 * 3600
    currencies = {token.currency for token in midas.tokens}
    assert currencies == {"USD", "BTC", "ETH", "EUR"} and currencies - {"USD"} <= set(data[1].currency_feeds)
    avant = section("avant").of(data[43114])
    assert avant is not None and all(vault.cooldown for vault in avant.vaults)


@pytest.mark.parametrize(
    "content, problem",
    [
        ("not json", "not valid JSON"),
        ("[]", "must be a JSON object keyed by chain id"),
        ('{"x": {}}', "keys must be chain ids"),
        ('{"5": {"morpho": {"blue": {"address": "0x12", "startBlock": 1}}}}', "is not an address"),
        ('{"5": {"morpho": {"blue": {"address": "0x%s", "startBlock": -1}}}}' % ("ab" * 20), "startBlock"),
        ('{"5": {"priceFeeds": {"0x%s": {"feed": "0x%s", "heartbeat": 0}}}}' % ("ab" * 20, "cd" * 20), "heartbeat"),
        ('{"5": {"neutrl": {"vaults": {}}}}', "neutrl vaults: must be a list"),
        ('{"5": {"avant": {"vaults": [{"address": "0x%s"}]}}}' % ("ab" * 20), r"avant vaults\[0\]: must have a type"),
        ('{"5": {"avantis": {"apyPeriodDays": 0}}}', "apyPeriodDays must be a positive number of days"),
        (
            '{"5": {"sky": {"vaults": [{"type": "s", "address": "0x%s", "rate": "apr"}]}}}' % ("ab" * 20),
            r"sky vaults\[0\]: rate must be one of ssr, dsr",
        ),
        (
            '{"5": {"erc4626": {"vaults": [{"type": "v", "address": "0x12"}]}}}',
            r"erc4626 vaults\[0\]: .*not an address",
        ),
        ('{"5": {"lido": {"stETH": "0x12"}}}', "lido stETH: '0x12' is not an address"),
        ('{"5": {"lido": []}}', "lido: must be an object"),
        ('{"5": {"curve": {"crv": "0x12", "factories": {}}}}', "curve crv: '0x12' is not an address"),
        (
            '{"5": {"curve": {"crv": "0x%s", "factories": {"main_registry": "0x%s"}}}}' % ("12" * 20, "12" * 20),
            r"curve factories: \['main_registry'\] not among",
        ),
        ('{"5": {"convex": {"booster": "0x%s"}}}' % ("12" * 20), "convex cvx: 'None' is not an address"),
        ('{"5": {"uniswap": {}}}', "uniswap: must have a v3 or a v4 section"),
        ('{"5": {"uniswap": {"v3": []}}}', "uniswap v3: must be an object"),
        (
            '{"5": {"uniswap": {"v4": {"poolManager": "0x%s"}}}}' % ("12" * 20),
            "uniswap v4 positionManager: must be an object",
        ),
        (
            '{"5": {"uniswap": {"v3": {"factory": "0x%s"}}}}' % ("12" * 20),
            "uniswap v3 positionManager: 'None' is not an address",
        ),
        ('{"5": {"spark": {}}}', "spark: must be a list of markets"),
        (
            '{"5": {"midas": {"tokens": [{"type": "midas-token", "token": "0x%s", "feed": "0x%s"}]}}}'
            % ("ab" * 20, "cd" * 20),
            r"midas tokens\[0\]: heartbeat",
        ),
        (
            '{"5": {"lido": {"stETH": "0x%s", "wstETH": "0x%s", "withdrawalQueue": "0x%s", "startBlock": "1"}}}'
            % ("12" * 20, "34" * 20, "56" * 20),
            "lido: startBlock must be a block number",
        ),
        (
            '{"5": {"aave": [{"name": "m", "addressesProvider": "0x%s", "pool": "0x%s", "dataProvider": "0x%s", '
            '"oracle": "0x%s", "startBlock": -1}]}}' % (("12" * 20,) * 4),
            r"aave\[0\]: startBlock must be a block number",
        ),
        (
            '{"5": {"aave": [{"name": "m", "addressesProvider": "0x%s", "pool": "0x%s", "dataProvider": "0x%s", '
            '"oracle": "0x%s", "version": 4}]}}' % (("12" * 20,) * 4),
            r"aave\[0\] version: must be 3 or, for an Aave market, 2",
        ),
        (
            '{"5": {"spark": [{"name": "m", "addressesProvider": "0x%s", "pool": "0x%s", "dataProvider": "0x%s", '
            '"oracle": "0x%s", "version": 2}]}}' % (("12" * 20,) * 4),
            r"spark\[0\] version: must be 3 or, for an Aave market, 2",
        ),
        ('{"5": {"venus": {}}}', "venus: needs the core pool's comptroller, a poolRegistry, or both"),
        (
            '{"5": {"compoundV2": {"comptroller": "0x%s"}}}' % ("12" * 20),
            "compoundV2 blocksPerYear: must be the chain's blocks a year, a positive integer",
        ),
        ('{"5": {"venus": {"poolRegistry": "0x12"}}}', "venus poolRegistry: '0x12' is not an address"),
        ('{"5": {"liquity": {"troveManager": "0x12"}}}', "liquity troveManager: '0x12' is not an address"),
        (
            '{"5": {"liquity": {"troveManager": "0x%s"}}}' % ("12" * 20),
            "liquity borrowerOperations: 'None' is not an address",
        ),
        ('{"5": {"venus": []}}', "venus: must be an object"),
        ('{"5": {"morhpo": {}}}', r"chain 5: no section has the key 'morhpo' \(the keys: \[.*'morpho'"),
        ('{"5": {"accounts": {"proxyRegistries": "0x12"}}}', "accounts proxyRegistries: must be a list"),
        ('{"5": {"aura": {"booster": "0x%s"}}}' % ("12" * 20), "aura aura: 'None' is not an address"),
        ('{"5": {"sparkVaults": {"vaults": [{}]}}}', r"sparkVaults vaults\[0\]: 'None' is not an address"),
        ('{"1": {"priceFeeds": []}}', "chain 1 priceFeeds: must be an object"),
        ('{"1": {"priceRates": []}}', "chain 1 priceRates: must be an object"),
        ('{"5": {"priceRates": []}}', "chain 5 priceRates: must be an object"),
        ('{"5": {"priceRates": {"0x%s": {}}}}' % ("12" * 20), "priceRates 0x1212.* of: 'None' is not an address"),
        (
            '{"5": {"priceRates": {"0x%s": {"of": "0x%s", "view": "rate(uint256)"}}}}' % ("12" * 20, "34" * 20),
            "view must be a function signature without arguments",
        ),
        ('{"5": {"priceRates": {"0x12": {"of": "0x%s"}}}}' % ("34" * 20), "priceRates: '0x12' is not an address"),
        ('{"5": {"pendle": {"pyYtLpOracle": "0x12"}}}', "pendle pyYtLpOracle: '0x12' is not an address"),
    ],
)
def test_unusable_data_is_a_clear_error(tmp_path, content, problem):
    path = tmp_path / "a.json"
    path.write_text(content)
    with pytest.raises(AddressesError, match=problem):
        protocols.load_addresses(path)


def test_each_key_has_one_section():
    """Two packages that declared one key would parse an entry two ways: the loading refuses."""
    other = Section("morpho", lambda value, where: value)
    with pytest.raises(ValueError, match="two sections are declared for the key 'morpho'"):
        addresses.load((*protocols.SECTIONS, other))
    assert len({section.key for section in protocols.SECTIONS}) >= 28


def test_the_shared_shapes_are_few_and_each_protocol_parses_its_own():
    """addresses/sections.py keeps the shapes every protocol shares; a protocol's own section
    classes and parser live in its package's `section.py`."""
    shared = [
        value for value in vars(sections).values() if isinstance(value, type) and value.__module__ == sections.__name__
    ]
    assert len(shared) <= 5, shared  # a chain, a contract, a feed, a rate, the section
    elsewhere = [
        f"{declared.name}: {part.key} ({part.parse.__module__})"
        for declared in protocols.DECLARED
        for part in declared.parts
        if not (part.parse.__module__.startswith("adapters.") and part.parse.__module__.endswith(".section"))
    ]
    assert elsewhere == []


def test_the_server_refuses_to_start_on_unusable_addresses(tmp_path, capsys):
    path = tmp_path / "a.json"
    path.write_text("{")
    assert server.main(["--keys-file", str(tmp_path / "keys.env"), "--addresses-file", str(path)]) == 1
    assert "addresses data is unusable" in capsys.readouterr().err
    assert server.main(["--keys-file", str(tmp_path / "keys.env"), "--addresses-file", str(tmp_path / "nope")]) == 1


def test_the_native_coin_is_priced_by_its_currency_feed_unless_the_data_names_one(tmp_path):
    data = protocols.load_addresses()
    for chain in (1, 8453, 42161):
        assert native_feed(data[chain], NATIVE.upper().replace("0X", "0x")) == data[chain].currency_feeds["ETH"]
        assert native_feed(data[chain], "0x" + "ab" * 20) is None
    assert native_feed(data[137], NATIVE) == data[137].currency_feeds["POL"], "Polygon's coin is POL, not ETH"
    assert data[137].currency_feeds["POL"].pair == "MATIC/USD" != data[137].currency_feeds["ETH"].pair
    assert native_feed(data[2020], NATIVE) == data[2020].currency_feeds["RON"], "Ronin's coin is RON"
    assert data[2020].currency_feeds["RON"].pair == "RON/USD" != data[2020].currency_feeds["ETH"].pair
    assert token_feeds(data[1])[NATIVE] == data[1].currency_feeds["ETH"], "what the lenses read"
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"1": {"priceFeeds": {NATIVE: FEED}}}))
    named = protocols.load_addresses(path)[1]
    assert named.price_feeds[NATIVE].pair == "X/USD", "a named feed comes first (usd_price)"
    assert token_feeds(named) is named.price_feeds
    assert [native_coin(chain) for chain in (1, 137, 43114)] == [
        ("ETH", "Ether"),
        ("POL", "Polygon Ecosystem Token"),
        ("AVAX", "Avalanche"),
    ]


def test_every_aave_market_is_the_address_books_and_none_is_missing():
    """Against Aave's own address book (@bgd-labs/aave-address-book, pinned in tools/): each
    listed market's four addresses and its version (v3, or v2: AaveV2Ethereum, its AMM and Arc
    markets, Polygon's, Avalanche's) are the book's, and every market the book lists on a chain
    this service serves is listed (an address that drifts from its publisher fails here)."""
    (book,) = registries(["aave"])
    data = json.loads(addresses.BUILT_IN.read_text())
    listed = set()
    for chain, value in data.items():
        for market in value.get("aave", []):
            published = book[market["name"]]
            listed.add(market["name"])
            assert published["chainId"] == int(chain), market["name"]
            assert market.get("version", 3) == published["version"], market["name"]
            for field in ("pool", "addressesProvider", "dataProvider", "oracle"):
                assert market[field].lower() == published[field].lower(), (market["name"], field)
    missing = sorted(name for name, market in book.items() if str(market["chainId"]) in data and name not in listed)
    assert missing == []


def test_every_morpho_deployment_is_morphos_registry_and_none_is_missing():
    """Against Morpho's registry in @morpho-org/morpho-ts (pinned in tools/): Morpho Blue, the
    MetaMorpho v1.1 and Vault V2 factories (addresses and deployment blocks) and the
    AdaptiveCurveIrm of every chain listed, and Morpho listed on every served chain it has."""
    (registry,) = registries(["morpho"])
    data = json.loads(addresses.BUILT_IN.read_text())
    for chain, value in data.items():
        if "morpho" not in value:
            assert chain not in registry, f"Morpho is on chain {chain}, which this service serves"
            continue
        section, published = value["morpho"], registry[chain]
        assert section["blue"] == published["blue"], chain
        assert section["adaptiveCurveIrm"] == published["adaptiveCurveIrm"], chain
        v11 = [
            {k: f[k] for k in ("address", "startBlock")} for f in section["vaultV1Factories"] if f["version"] == "1.1"
        ]
        assert v11 == [published["vaultV1Factory"]], chain
        v2 = [{k: f[k] for k in ("address", "startBlock")} for f in section.get("vaultV2Factories", [])]
        assert v2 == ([published["vaultV2Factory"]] if published["vaultV2Factory"] else []), chain


UNISWAP_V4_BLOCKS = {
    "1": 21689089,
    "10": 130947681,
    "56": 45970613,
    "130": 6819670,
    "137": 66980394,
    "8453": 25350993,
    "42161": 297842893,
    "43114": 56195382,
    "59144": 28974972,
}
"""The v4 PositionManagers' deployment blocks in Uniswap's own v4 subgraph (Uniswap/v4-subgraph
`networks.json` at fc74dfc, `PositionManager.startBlock`): no registry package holds them."""


def test_every_uniswap_deployment_is_uniswaps_map_and_none_is_missing():
    """Against Uniswap's own CHAIN_TO_ADDRESSES_MAP (@uniswap/sdk-core, pinned in tools/): v3's
    factory and position manager and v4's PoolManager, PositionManager and StateView of every
    chain listed, and Uniswap listed on every served chain the map has; v4's start blocks are
    its subgraph's, and so is v3's on Ethereum, the only chain that declares one (Uniswap's v3
    subgraph `config/ethereum/config.json` at 1a4c699: the factory's deployment, 12369621)."""
    (published,) = registries(["uniswap"])
    data = json.loads(addresses.BUILT_IN.read_text())
    for chain, value in data.items():
        if "uniswap" not in value:
            assert chain not in published, f"Uniswap is on chain {chain}, which this service serves"
            continue
        section, map_ = value["uniswap"], published[chain]
        v3 = dict(section["v3"])
        assert v3.pop("startBlock", None) == (12369621 if chain == "1" else None), chain
        assert {k: a.lower() for k, a in v3.items()} == {k: a.lower() for k, a in map_["v3"].items()}
        v4 = section["v4"]
        listed = {"poolManager": v4["poolManager"], "positionManager": v4["positionManager"]["address"]}
        listed["stateView"] = v4["stateView"]
        assert {k: a.lower() for k, a in listed.items()} == {k: a.lower() for k, a in map_["v4"].items()}, chain
        assert v4["positionManager"]["startBlock"] == UNISWAP_V4_BLOCKS[chain], chain
    assert sorted(c for c, v in data.items() if "uniswap" in v) == sorted(UNISWAP_V4_BLOCKS)


PENDLE_DEPLOYMENTS = TOOLS / "@pendle" / "core-v2" / "deployments"


def test_every_pendle_factory_is_pendles_records_and_none_is_missing():
    """Against Pendle's deployment records (@pendle/core-v2 `deployments/<chain>-core.json`,
    pinned in tools/): every market and yield-contract factory listed, by version, is the
    record's, and every one the records hold on a served chain is listed; so is its PT, YT and
    LP oracle (`pyYtLpOracle`)."""
    data = json.loads(addresses.BUILT_IN.read_text())
    for chain, value in data.items():
        record = PENDLE_DEPLOYMENTS / f"{chain}-core.json"
        if not record.exists():
            assert "pendle" not in value, chain
            continue
        published = json.loads(record.read_text())
        wanted = {
            (kind, key.removeprefix(kind).removeprefix("V") or "1"): address.lower()
            for kind in ("marketFactory", "yieldContractFactory")
            for key, address in published.items()
            if key == kind or key.startswith(kind + "V")
        }
        if "pendle" not in value:
            assert not wanted, f"Pendle is on served chain {chain}"
            continue
        section = value["pendle"]
        listed = {
            (kind, factory["version"]): factory["address"].lower()
            for kind, field in (
                ("marketFactory", "marketFactories"),
                ("yieldContractFactory", "yieldContractFactories"),
            )
            for factory in section[field]
        }
        assert listed == wanted, chain
        assert section.get("pyYtLpOracle", "").lower() == published.get("pyYtLpOracle", "").lower(), chain


def test_every_usd_feed_is_one_chainlink_lists_in_the_address_book():
    """Every price, currency and L2 sequencer uptime feed of a chain whose Chainlink feeds Aave's
    address book lists (its Chainlink<Chain> files, pinned in tools/) is one of them."""
    (book,) = registries(["chainlink"])
    data = json.loads(addresses.BUILT_IN.read_text())
    for chain, value in data.items():
        if chain not in book:
            continue
        feeds = [f["feed"] for section in ("priceFeeds", "currencyFeeds") for f in value.get(section, {}).values()]
        feeds += [value["sequencerUptimeFeed"]] if "sequencerUptimeFeed" in value else []
        assert [f for f in feeds if f.lower() not in book[chain]] == [], chain


BOOK_PRICED_EXTRA = {
    "1": {
        "0xae7ab96520de3a18e5e111b5eaab095312d7fe84",
        "0x4e3fbd56cd56c3e72c1403e103b45db9da5b9d2b",
        "0xec53bf9167f50cdeb3ae105f56099aaab9061f83",
    }
}
"""Tokens priced beside the address book's rule below, by chain: Ethereum's stETH (Lido's token,
no Aave reserve; its feed is the book's STETH__USD, docs/protocols/lido.md), CVX and EIGEN (no
Aave reserves; BOOK_NAMED_EXTRA)."""
BOOK_NAMED_EXTRA = {
    "CVX": ("0x4e3FBD56CD56c3e72c1403e103b45Db9da5B9D2B", "addresses.json convex.cvx (tests/test_convex.py)"),
    "EIGEN": (
        "0xec53bF9167f50cDEB3Ae105f56099aaaB9061F83",
        "Layr-Labs/eigenlayer-contracts at f84a5151080cdf0b77b9b6e46506cde723d06c28, README.md"
        ' "Deployments" / Mainnet Ethereum, the `Eigen` token proxy',
    ),
}
"""Ethereum tokens of the served protocols that are no Aave reserve but whose USD feed the address
book's ChainlinkEthereum file names (`<SYMBOL>__USD`): symbol -> (token, where its address is
published). Convex pays CVX; EigenLayer has an EIGEN strategy. AURA has no feed in the book."""
FEED_SYMBOL = {
    "WETH": "ETH",
    "WETHe": "ETH",
    "WPOL": "MATIC",
    "POL": "MATIC",
    "WMNT": "MNT",
    "WAVAX": "AVAX",
    "WBNB": "BNB",
    "wS": "S",
    "USDT0": "USDT",
    "USDt": "USDT",
    "USDCn": "USDC",
    "DAIe": "DAI",
    "LINKe": "LINK",
    "AAVEe": "AAVE",
    "WBTCe": "WBTC",
    "MAI": "MIMATIC",
}
"""Aave's symbol of a wrapped, bridged or renamed token (or a native coin's symbol) -> the symbol
Chainlink names its USD feed by in the address book (Polygon's POL/USD feed is still `MATIC__USD`)."""


def book_usd_feeds(named: dict[str, Any], native: str) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """What the address book gives a chain: (priceFeeds as token -> (pair, feed) for every Aave
    reserve whose symbol has a `<SYMBOL>__USD` feed, or a `Calculated_<SYMBOL>__USD` one when no
    direct feed; currencyFeeds as coin -> (pair, feed) for the native coin, ETH and BTC; the L2
    sequencer uptime feed). A BTC wrapper without a feed of its own (BTCB, BTC.b) gets none: its
    USD figure is not derived through BTC/USD, as for WBTC on Ethereum."""
    by_name = {name.lower(): (name, feed) for name, feed in named["feeds"].items()}

    def feed(symbol: str) -> tuple[str, str] | None:
        base = FEED_SYMBOL.get(symbol, symbol).lower()
        found = by_name.get(f"{base}__usd") or by_name.get(f"calculated_{base}__usd")
        return (found[0].removeprefix("Calculated_").replace("__", "/"), found[1].lower()) if found else None

    prices = {token.lower(): found for symbol, token in named["tokens"].items() if (found := feed(symbol))}
    currencies = {coin: found for coin in dict.fromkeys((native, "ETH", "BTC")) if (found := feed(coin))}
    sequencer = named["feeds"].get("L2_Sequencer_Uptime_Status_Feed")
    return prices, currencies, sequencer


def test_every_book_priced_chain_has_the_address_books_usd_feeds_and_none_is_missing():
    """Against the Chainlink files and Aave reserves of Aave's address book (pinned in tools/), on
    every served chain the book has a Chainlink file for: every token the book lists with a USD
    feed (Aave's reserves: the chain's native wrapper, stables, ETH and BTC wrappers and the rest)
    is priced by exactly that feed, the native coin, ETH and BTC have their currency feeds, and
    the chain's L2 sequencer uptime feed is read where the book lists one; no other token is
    priced there but those BOOK_PRICED_EXTRA records."""
    (named,) = registries(["chainlinkNamed"])
    data = json.loads(addresses.BUILT_IN.read_text())
    chains = sorted(chain for chain in data if chain in named)
    assert chains == sorted(["1", "10", "56", "137", "146", "5000", "8453", "42161", "43114", "59144", "534352"])
    for chain in chains:
        value = data[chain]
        prices, currencies, sequencer = book_usd_feeds(named[chain], native_coin(int(chain))[0])
        listed = {t.lower(): (f["pair"], f["feed"].lower()) for t, f in value.get("priceFeeds", {}).items()}
        assert {t: listed[t] for t in listed if t in prices} == prices, chain
        assert set(listed) - set(prices) == BOOK_PRICED_EXTRA.get(chain, set()), chain
        listed = {c: (f["pair"], f["feed"].lower()) for c, f in value.get("currencyFeeds", {}).items()}
        assert {c: listed.get(c) for c in currencies} == currencies, chain
        assert value.get("sequencerUptimeFeed", "").lower() == (sequencer or "").lower(), chain
        assert {native_coin(int(chain))[0], "ETH"} <= set(currencies), chain
        assert {"ETH/USD", "USDC/USD"} <= {pair for pair, _ in prices.values()}, chain


def test_cvx_and_eigen_are_priced_by_the_address_books_feeds_and_aura_has_none():
    """CVX and EIGEN (no Aave reserves) are priced on Ethereum by the `CVX__USD` and `EIGEN__USD`
    feeds of the pinned address book's ChainlinkEthereum file, with the 86,400 s bound of every
    feed added without a published heartbeat (docs/chain-access.md); each token is its publisher's
    (BOOK_NAMED_EXTRA). The book names no AURA feed, so AURA stays unpriced."""
    (named,) = registries(["chainlinkNamed"])
    feeds = {name.lower(): feed.lower() for name, feed in named["1"]["feeds"].items()}
    data = json.loads(addresses.BUILT_IN.read_text())
    listed = {t.lower(): f for t, f in data["1"]["priceFeeds"].items()}
    for symbol, (token, _) in BOOK_NAMED_EXTRA.items():
        entry = listed[token.lower()]
        assert (entry["pair"], entry["feed"].lower(), entry["heartbeat"]) == (
            f"{symbol}/USD",
            feeds[f"{symbol.lower()}__usd"],
            86400,
        ), symbol
    assert BOOK_NAMED_EXTRA["CVX"][0] == data["1"]["convex"]["cvx"]
    assert not [name for name in feeds if name.startswith("aura")]
    assert data["1"]["aura"]["aura"].lower() not in listed


RONIN_FEEDS = {
    "ETH/USD": "0xbBF6e0D078c7F5750d0732cD8f3EACe9A87b2b58",
    "RON/USD": "0xA708247a64Fad46874A57BA274451a8a1A1daa0c",
    "USDC/USD": "0xf061d556F5136263c4d66d9fFCADE8Ab43a3a704",
}
"""The USD feeds Compound prices its Ronin markets by since it left Chainlink there (API3's,
which answer `latestRoundData()` and `decimals()` as Chainlink's do): compound-finance/comet at
d5a30b0aaeff7755f1431e87f818990902237b03, deployments/ronin/weth/migrations/1767882783_depreciate_comet.ts
and deployments/ronin/wron/migrations/1767889363_depreciate_comet.ts (`ETH_TO_USD_`,
`RON_TO_USD_` and `USDC_TO_USD_API3_PRICE_FEED_ADDRESS`). No package lists a feed on Ronin."""
RONIN_TOKENS = {
    "0xc99a6A985eD2Cac1ef41640596C5A5f9F4E19Ef5": "ETH/USD",
    "0xe514d9DEB7966c8BE0ca922de8a064264eA6bcd4": "RON/USD",
    "0x0B7007c13325C48911F73A2daD5FA5dCBf808aDc": "USDC/USD",
}
"""WETH, WRON and USDC on Ronin, the markets' tokens as the same commit's
deployments/ronin/weth/configuration.json and wron/configuration.json list them."""


def test_ronin_is_priced_by_the_feeds_compound_prices_it_by():
    """Ronin's coin (RON), ether (cWETHv3's price currency) and the markets' WETH, WRON and USDC
    are priced by the feeds Compound's own Ronin deployment records (RONIN_FEEDS), with the
    86,400 s bound (no heartbeat published); cWRONv3 quotes in USD (its base feed is RON/USD)."""
    ronin = json.loads(addresses.BUILT_IN.read_text())["2020"]

    def entry(pair: str) -> dict[str, Any]:
        return {"pair": pair, "feed": RONIN_FEEDS[pair], "heartbeat": 86400}

    assert ronin["currencyFeeds"] == {"RON": entry("RON/USD"), "ETH": entry("ETH/USD")}
    assert ronin["priceFeeds"] == {token: entry(pair) for token, pair in RONIN_TOKENS.items()}
    currencies = {m["name"]: m.get("priceCurrency", "USD") for m in ronin["compound"]["markets"]}
    assert currencies == {"cWETHv3": "ETH", "cWRONv3": "USD"}


VENUS_PRICED = {
    "56": {"BNB": "currencyFeeds BNB", "ETH": "currencyFeeds ETH"},
    "130": {"WETH": "currencyFeeds ETH", "USDC": "priceFeeds"},
}
"""The feeds whose staleness bound is Venus' on-chain `maxStalePeriod` for the same feed (and, on
Unichain, which the address book has no Chainlink file for, the feeds and tokens themselves): by
chain, Venus' asset -> where addresses.json lists it."""


def test_the_bounds_taken_from_venus_are_its_published_max_stale_periods():
    """Against Venus' oracle configuration (@venusprotocol/oracle, pinned in tools/packs.json: the
    asset, feed and maxStalePeriod its VIP script gives ChainlinkOracle/RedStoneOracle
    `setTokenConfig`): BNB/USD and ETH/USD on BNB Chain, and Unichain's WETH and USDC, are listed
    with Venus' feed and its bound as their heartbeat; on Unichain the tokens are Venus' too, the
    native coin and WETH priced by the same ETH/USD feed."""
    (venus,) = packs(["venus"])
    data = json.loads(addresses.BUILT_IN.read_text())
    for chain, listed in VENUS_PRICED.items():
        network = {"56": "bscmainnet", "130": "unichainmainnet"}[chain]
        for asset, where in listed.items():
            config = venus[network][asset]
            section, _, currency = where.partition(" ")
            entry = data[chain][section][currency] if currency else data[chain][section][config["address"]]
            assert entry["feed"].lower() == config["feed"].lower(), (chain, asset)
            assert entry["heartbeat"] == config["maxStalePeriod"] == 86400, (chain, asset)
    unichain = data["130"]
    weth = unichain["priceFeeds"][venus["unichainmainnet"]["WETH"]["address"]]
    assert weth == unichain["currencyFeeds"]["ETH"] and weth["pair"] == "ETH/USD"
    assert sorted(t.lower() for t in unichain["priceFeeds"]) == sorted(
        venus["unichainmainnet"][a]["address"].lower() for a in ("WETH", "USDC")
    )
    assert venus["bscmainnet"]["WBNB"]["maxStalePeriod"] == 300, "the isolated pools' bound, not taken (docs)"


PANCAKESWAP_SDK = "@pancakeswap/v3-sdk"
PANCAKESWAP_CHAINS = {"ETHEREUM": "1", "BSC": "56", "BASE": "8453", "ARBITRUM_ONE": "42161", "LINEA": "59144"}
"""`@pancakeswap/chains`' ChainId names of the served chains, by their ids."""
MASTER_CHEFS = {
    "1": "0x556B9306565093C855AEA9AE92A594704c2Cd59e",
    "56": "0x556B9306565093C855AEA9AE92A594704c2Cd59e",
    "8453": "0xC6A2Db661D5a5690172d8eB0a7DEA2d3008665A3",
    "42161": "0x5e09ACf80C0296740eC5d6F643005a4ef8DaA694",
    "59144": "0x22E2f236065B780FA33EC8C4E58b99ebc8B55c57",
}
"""MasterChefV3 by chain: no package publishes them. Ethereum's and BNB Chain's are PancakeSwap's
deployment records (pancakeswap/pancake-v3-contracts `projects/masterchef-v3/deployments/eth.json`
and `bscMainnet.json` at 5cc479f); Base's, Arbitrum's and Linea's its developer docs' v3 addresses."""


def pancakeswap_map(source: str, name: str) -> dict[str, str]:
    """One of the SDK's address maps (`FACTORY_ADDRESSES`, ...) by chain id, for the served chains."""
    constants = dict(re.findall(r'^var (\w+) = "(0x[0-9a-fA-F]+)";$', source, re.M))
    body = source.split(f"var {name} = {{", 1)[1].split("};", 1)[0]
    entries = dict(re.findall(r"\[chains\.ChainId\.(\w+)\]: (\w+|\"0x[0-9a-fA-F]+\")", body))
    return {
        PANCAKESWAP_CHAINS[chain]: constants.get(value, value.strip('"'))
        for chain, value in entries.items()
        if chain in PANCAKESWAP_CHAINS
    }


def test_every_pancakeswap_deployment_is_its_sdks_and_none_is_missing():
    """Against PancakeSwap's own maps in `@pancakeswap/v3-sdk` (pinned in tools/packs.json): the
    factory and position manager of every served chain the maps list, and PancakeSwap listed on each;
    MasterChefV3 as PancakeSwap records it (MASTER_CHEFS)."""
    source = pack(PANCAKESWAP_SDK)["dist/index.js"].decode()
    factories = pancakeswap_map(source, "FACTORY_ADDRESSES")
    managers = pancakeswap_map(source, "NFT_POSITION_MANAGER_ADDRESSES")
    data = json.loads(addresses.BUILT_IN.read_text())
    served = {chain: value["pancakeswap"] for chain, value in data.items() if "pancakeswap" in value}
    assert sorted(served) == sorted(factories) == sorted(managers) == sorted(MASTER_CHEFS)
    for chain, pancake in served.items():
        assert pancake["v3"] == {"factory": factories[chain], "positionManager": managers[chain]}, chain
        assert pancake["masterChef"] == MASTER_CHEFS[chain], chain


def test_the_pancakeswap_world_deploys_pools_where_the_sdks_init_code_hash_puts_them():
    """The SDK's POOL_INIT_CODE_HASH on every served chain is the keccak of the pool bytecode
    `@pancakeswap/v3-core` publishes, which the test world deploys."""
    from eth_hash.auto import keccak

    from tests.pancakeswap_world import CORE, published

    source = pack(PANCAKESWAP_SDK)["dist/index.js"].decode()
    hashes = set(pancakeswap_map(source, "POOL_INIT_CODE_HASHES").values())
    assert hashes == {
        "0x" + keccak(bytes.fromhex(published(CORE, "PancakeV3Pool.sol/PancakeV3Pool.json").bytecode[2:])).hex()
    }


def test_venus_pools_are_venus_deployment_records():
    """The core pool's Unitroller on BNB Chain is the one Venus's own deployment record names
    (`deployments/bscmainnet_addresses.json` in the pinned `@venusprotocol/venus-protocol`), and no
    other chain lists a core pool: Venus has one only there. Every chain served where Venus runs
    isolated pools lists the PoolRegistry of `@venusprotocol/isolated-pools`' records for it, and
    its startBlock is that record's deployment block (BNB Chain's core pool is older: none)."""
    record = json.loads(pack("@venusprotocol/venus-protocol")["deployments/bscmainnet_addresses.json"])
    assert int(record["chainId"]) == 56
    data = json.loads(addresses.BUILT_IN.read_text())
    listed = {chain: value["venus"] for chain, value in data.items() if "venus" in value}
    assert {c for c, v in listed.items() if "comptroller" in v} == {"56"}
    assert listed["56"]["comptroller"] == record["addresses"]["Unitroller"]
    files = pack("@venusprotocol/isolated-pools")
    networks = {"56": "bscmainnet", "1": "ethereum", "42161": "arbitrumone", "8453": "basemainnet"}
    networks |= {"10": "opmainnet", "130": "unichainmainnet"}
    assert set(listed) == set(networks)
    for chain, network in networks.items():
        names = json.loads(files[f"deployments/{network}_addresses.json"])
        assert int(names["chainId"]) == int(chain), chain
        assert names["addresses"]["PoolRegistry"] == listed[chain]["poolRegistry"], chain
        proxy = json.loads(files[f"deployments/{network}/PoolRegistry_Proxy.json"])
        assert proxy["address"] == listed[chain]["poolRegistry"], chain
        assert listed[chain].get("startBlock") == (None if chain == "56" else proxy["receipt"]["blockNumber"]), chain


def test_compound_v2_is_compound_js_address_book():
    """Compound v2's Comptroller (its Unitroller) on Ethereum is compound-js 0.6.2's
    `address.mainnet.Comptroller` (tools/sdk); no other chain lists a v2. Its startBlock, 7,710,671,
    is compound-config's record of the Unitroller's block (docs/protocols/compound-v2.md cites it)."""
    script = (
        "console.log(require('@compound-finance/compound-js/dist/nodejs/constants.js').address.mainnet.Comptroller)"
    )
    done = subprocess.run(["node", "-e", script], cwd=SDKS.parent, capture_output=True, text=True, check=True)
    data = json.loads(addresses.BUILT_IN.read_text())
    listed = {chain: value["compoundV2"] for chain, value in data.items() if "compoundV2" in value}
    assert listed == {"1": {"comptroller": done.stdout.strip(), "blocksPerYear": 2_628_000, "startBlock": 7_710_671}}


def test_liquity_is_lib_ethers_mainnet_deployment():
    """Liquity v1's contracts on Ethereum, and its startBlock, are `@liquity/lib-ethers` 3.4.0's
    deployments/default/mainnet.json (tools/packs); no other chain lists Liquity v1."""
    published = json.loads(pack("@liquity/lib-ethers")["deployments/default/mainnet.json"])
    data = json.loads(addresses.BUILT_IN.read_text())
    listed = {chain: value["liquity"] for chain, value in data.items() if "liquity" in value}
    expected = {name: published["addresses"][name] for name in liquity_section.NAMES}
    assert (published["chainId"], listed) == (1, {"1": {**expected, "startBlock": published["startBlock"]}})
