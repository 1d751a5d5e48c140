"""Curve's registries (addresses.json's `curve`) against @curvefi/api, Curve's own JavaScript
library, pinned as a tarball in tools/packs.json: its network constants list, by chain, CRV and
the pool factories (ALIASES). A factory that drifts from it, one it lists on a served chain that
the data leaves out, or a served chain it covers that is neither served nor named below, fails
here."""

from __future__ import annotations

import json

import addresses
from tests.node_oracles import curve_aliases

ZERO = "0x" + "00" * 20
NOT_YET = {"5000": "@curvefi/api lists no CRV on Mantle (ALIASES_MANTLE has no crv), which claimable CRV is in"}
"""Served chains @curvefi/api covers that this service does not answer Curve on yet, with why."""


def built_in() -> dict[str, dict]:
    return json.loads(addresses.BUILT_IN.read_text())


def test_every_curve_section_is_curvefi_apis_crv_and_factories():
    """On each chain with a `curve` section: CRV is @curvefi/api's `crv`, the factories are
    exactly the ones of CURVE_FACTORY_KINDS it lists there (a zero or missing alias is none), and
    off Ethereum the child gauge factories are its `child_gauge_factory` and
    `child_gauge_factory_old`, in that order (where it finds a pool's gauge there)."""
    published = curve_aliases()
    sections = {chain: value["curve"] for chain, value in built_in().items() if "curve" in value}
    assert "1" in sections
    for chain, section in sections.items():
        aliases = published[chain]
        assert section["crv"].lower() == aliases["crv"].lower(), chain
        listed = {name: address.lower() for name, address in section["factories"].items()}
        expected = {
            name: aliases[name].lower()
            for name in addresses.CURVE_FACTORY_KINDS
            if aliases.get(name) and aliases[name].lower() != ZERO
        }
        assert listed == expected, chain
        children = {name: address.lower() for name, address in section.get("childGaugeFactories", {}).items()}
        expected_children = {
            name: aliases[name].lower()
            for name in ("child_gauge_factory", "child_gauge_factory_old")
            if chain != "1" and aliases.get(name) and aliases[name].lower() != ZERO
        }
        assert children == expected_children, chain


def test_no_served_chain_that_curvefi_api_covers_is_left_unsaid():
    """Every served chain @curvefi/api covers has a `curve` section or is named in NOT_YET."""
    published = curve_aliases()
    served = built_in()
    covered = {chain for chain in served if chain in published}
    with_curve = {chain for chain, value in served.items() if "curve" in value}
    assert covered - with_curve == set(NOT_YET)
    assert not with_curve & set(NOT_YET)


def test_the_factory_kinds_are_the_aliases_curvefi_api_uses():
    """Each factory alias this service knows is one @curvefi/api's Ethereum constants name."""
    assert set(addresses.CURVE_FACTORY_KINDS) <= set(curve_aliases()["1"])
