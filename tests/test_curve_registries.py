"""Curve's registries (addresses.json's `curve`) against @curvefi/api, Curve's own JavaScript
library, pinned as a tarball in tools/packs.json: its network constants list, by chain, CRV, the
pool factories and the AddressProvider (ALIASES), and its pools data (POOLS_DATA) the pools that
no factory lists. A factory that drifts from it, one it lists on a served chain that the data
leaves out, a served chain it covers that is neither served nor named below, or a chain whose
hand-listed pools the AddressProvider's registries are not asked for, fails here."""

from __future__ import annotations

import json

import addresses
from adapters.curve import contracts
from adapters.curve.section import FACTORY_KINDS
from tests.node_oracles import curve_aliases, curve_pools_data

ZERO = "0x" + "00" * 20


def built_in() -> dict[str, dict]:
    return json.loads(addresses.BUILT_IN.read_text())


def test_every_curve_section_is_curvefi_apis_crv_and_factories():
    """On each chain with a `curve` section: CRV is @curvefi/api's `crv`, the factories are
    exactly the ones of FACTORY_KINDS (adapters/curve/section.py) it lists there (a zero or missing alias is none), and
    off Ethereum the child gauge factories are its `child_gauge_factory` and
    `child_gauge_factory_old`, in that order (where it finds a pool's gauge there)."""
    published = curve_aliases()
    sections = {chain: value["curve"] for chain, value in built_in().items() if "curve" in value}
    assert "1" in sections
    for chain, section in sections.items():
        aliases = published[chain]
        assert section.get("crv", ZERO).lower() == aliases["crv"].lower(), chain  # none listed: no CRV (Mantle)
        listed = {name: address.lower() for name, address in section["factories"].items()}
        expected = {
            name: aliases[name].lower() for name in FACTORY_KINDS if aliases.get(name) and aliases[name].lower() != ZERO
        }
        assert listed == expected, chain
        children = {name: address.lower() for name, address in section.get("childGaugeFactories", {}).items()}
        expected_children = {
            name: aliases[name].lower()
            for name in ("child_gauge_factory", "child_gauge_factory_old")
            if chain != "1" and aliases.get(name) and aliases[name].lower() != ZERO
        }
        assert children == expected_children, chain


def test_every_served_chain_that_curvefi_api_covers_answers_curve():
    """Every served chain @curvefi/api covers has a `curve` section (Mantle too, where it lists
    factories and child gauge factories but no CRV)."""
    published = curve_aliases()
    served = built_in()
    covered = {chain for chain in served if chain in published}
    assert covered == {chain for chain, value in served.items() if "curve" in value}
    assert "5000" in covered


def test_the_factory_kinds_are_the_aliases_curvefi_api_uses():
    """Each factory alias this service knows is one @curvefi/api's Ethereum constants name."""
    assert set(FACTORY_KINDS) <= set(curve_aliases()["1"])


def test_the_address_provider_is_curvefi_apis_where_it_lists_pools_no_factory_lists():
    """A chain's `addressProvider` (whose `get_address` 0 and 5 name the main and the crypto
    registry, read at the block) is @curvefi/api's `address_provider`, and it is there exactly on
    the served chains where @curvefi/api's POOLS_DATA lists pools (its hand list of the pools no
    factory lists: Ethereum, Optimism, Polygon, Arbitrum, Avalanche). Base and Sonic list none
    (Base's `address_provider` is marked "TODO CHANGE" there, Sonic's is another contract), nor
    does BNB Chain (zero)."""
    aliases, pools = curve_aliases(), curve_pools_data()
    sections = {chain: value["curve"] for chain, value in built_in().items() if "curve" in value}
    assert set(pools) == set(sections)
    with_provider = {chain for chain, section in sections.items() if "addressProvider" in section}
    assert with_provider == {chain for chain in sections if pools[chain]} == {"1", "10", "137", "42161", "43114"}
    for chain in with_provider:
        assert sections[chain]["addressProvider"].lower() == aliases[chain]["address_provider"].lower(), chain


NO_WITHDRAW_ONE_COIN = {
    "1": {"compound", "usdt", "y", "busd", "susd", "pax", "ib"},
}
"""POOLS_DATA pools whose swap ABI declares no `calc_withdraw_one_coin` the adapter calls (the
oldest pools withdraw one coin through their deposit zap; ib's ABI has a three-argument form only):
their `withdrawOneCoin` is null, named FIGURE_UNAVAILABLE."""
NO_LP_PRICE = {
    "1": {"tricrypto2", "eurtusd", "eursusd", "xautusd", "euroc"},
    "137": {"atricrypto3", "eurtusd", "eursusd"},
    "42161": {"tricrypto", "eursusd"},
    "43114": {"atricrypto", "avaxcrypto"},
}
"""POOLS_DATA crypto pools whose swap ABI declares no `lp_price()`: their `lpPrice` is null, named."""


def test_every_hand_listed_pool_has_the_views_the_adapter_reads():
    """Each pool of @curvefi/api's POOLS_DATA on a served chain (what the older registries list)
    declares in its swap ABI the coin views the adapter reads: `coins` and `balances` by uint256,
    or by int128 on the oldest pools (where `coins(uint256)` reverts), `get_virtual_price`, and
    `calc_withdraw_one_coin` by int128 (stableswap) or uint256 (is_crypto) and `lp_price` (is_crypto),
    but for the pools named above, and one of the `calc_token_amount` forms the adapter tries for
    its number of coins (every one has one)."""
    int128, missing_withdraw, missing_price = set(), {}, {}
    for chain, pools in curve_pools_data().items():
        for name, pool in pools.items():
            abi = set(pool["abi"])
            legacy = contracts.COINS.signature not in abi
            if legacy:
                int128.add(name)
            coins, balances = (
                (contracts.COINS_INT128, contracts.BALANCES_INT128) if legacy else (contracts.COINS, contracts.BALANCES)
            )
            assert {coins.signature, balances.signature, contracts.GET_VIRTUAL_PRICE.signature} <= abi, (chain, name)
            withdraw = contracts.CALC_WITHDRAW_ONE_COIN_CRYPTO if pool["crypto"] else contracts.CALC_WITHDRAW_ONE_COIN
            if withdraw.signature not in abi:
                missing_withdraw.setdefault(chain, set()).add(name)
            if pool["crypto"] and contracts.LP_PRICE.signature not in abi:
                missing_price.setdefault(chain, set()).add(name)
            views = {view.signature for view, _flag in contracts.token_amount_views(len(pool["coins"]))}
            assert views & abi, (chain, name, "calc_token_amount")
    assert int128 == {"compound", "usdt", "y", "busd", "susd", "pax", "ren", "sbtc"}
    assert missing_withdraw == NO_WITHDRAW_ONE_COIN
    assert missing_price == NO_LP_PRICE


def test_hand_listed_pools_with_an_lp_token_of_their_own_are_what_get_lp_token_is_for():
    """Most POOLS_DATA pools have an LP token apart from the pool (3pool's 3CRV, steCRV, tricrypto2's
    crv3crypto, Polygon's am3CRV ...), which is why an older registry's pool is held through its
    `get_lp_token(pool)`, not the pool's own balance; every one has a gauge @curvefi/api lists
    (found on Ethereum as the registry's first `get_gauges(pool)`, elsewhere as the factories' are)."""
    pools = curve_pools_data()
    apart = {
        chain: sum(p["swap"].lower() != p["token"].lower() for p in each.values()) for chain, each in pools.items()
    }
    assert apart == {"1": 45, "10": 1, "56": 0, "137": 5, "146": 0, "5000": 0, "8453": 0, "42161": 3, "43114": 5}
    assert all(int(p["gauge"], 16) for found in pools.values() for p in found.values())
