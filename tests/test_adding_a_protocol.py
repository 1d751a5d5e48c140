"""Adding a protocol touches its package, its docs page, its test world and the places
docs/development.md lists under "Adding a protocol": each place is held here or by the test the
page names, so a protocol that misses one fails with a message naming the place."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import protocols
from adapters.protocol import Protocol

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = protocols.registry(protocols.load_addresses())
PACKAGES = {
    path.parent.name: importlib.import_module(f"adapters.{path.parent.name}")
    for path in sorted((ROOT / "adapters").glob("*/__init__.py"))
}
DECLARING = {name: module for name, module in PACKAGES.items() if hasattr(module, "PROTOCOLS")}
PACKAGE_OF = {declared.name: package for package, module in DECLARING.items() for declared in module.PROTOCOLS}
TESTED_IN = {"spark": "test_aave.py"}
"""A protocol whose package's tests live in another's module (SparkLend is Aave's method on its own
markets, tested on the Aave world beside Aave's)."""


def text(relative: str) -> str:
    return (ROOT / relative).read_text()


def in_the_union(protocol: Protocol) -> bool:
    schema = text("schema.graphql")
    union = re.search(r"^union WalletPositions = ((?:.*\n)(?:\s+\|.*\n)*)", schema, re.MULTILINE)
    assert union is not None
    members = {name.strip() for name in union.group(1).split("|")}
    return f"type {protocol.type_name} implements WalletEntry " in schema and protocol.type_name in members


PLACES: dict[str, tuple[str, Callable[[Protocol], bool]]] = {
    "protocols.py": (
        "its package imported and its `PROTOCOLS` in `DECLARED`",
        lambda protocol: f"*{PACKAGE_OF[protocol.name]}.PROTOCOLS," in text("protocols.py"),
    ),
    "schema.graphql": (
        "its `<Name>WalletPositions` type, implementing `WalletEntry`, a member of the `WalletPositions` union",
        in_the_union,
    ),
    "docs/protocols/<name>.md": (
        "its page, every formula (tests/test_docs.py holds what it names)",
        lambda protocol: (ROOT / "docs" / "protocols" / f"{protocol.name}.md").exists(),
    ),
    "README.md": (
        "its row in the table of protocols",
        lambda protocol: f"[`{protocol.name}`](docs/protocols/{protocol.name}.md)" in text("README.md"),
    ),
    "docs/api.md": (
        "its page among the answer types' pages",
        lambda protocol: f"(protocols/{protocol.name}.md)" in text("docs/api.md"),
    ),
    "tests/test_<package>.py": (
        "its tests, on its test world (tests/<package>_world.py)",
        lambda protocol: (
            ROOT / "tests" / TESTED_IN.get(protocol.name, f"test_{PACKAGE_OF[protocol.name]}.py")
        ).exists(),
    ),
}


def test_every_package_that_declares_protocols_is_in_the_registry():
    """A package's `PROTOCOLS` that `protocols.py` does not list would never answer."""
    assert len(DECLARING) >= 17
    declared = {protocol.name for protocol in protocols.DECLARED}
    left_out = sorted(name for name in PACKAGE_OF if name not in declared)
    assert left_out == [], f"protocols.py: list these packages' PROTOCOLS in DECLARED: {left_out}"
    assert set(REGISTRY) == declared and len(REGISTRY) == len(protocols.DECLARED), "each name declared once"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_protocol_is_in_every_place_it_must_be(name):
    protocol = REGISTRY[name]
    missing = [f"{place}: {what}" for place, (what, holds) in PLACES.items() if not holds(protocol)]
    assert missing == [], f"{name} is missing from: {missing}"


def test_the_development_page_lists_every_place():
    """The page's list of places is this test's, and names the tests that hold the others."""
    section = text("docs/development.md").split("## Adding a protocol\n", 1)[1].split("\n## ", 1)[0]
    assert [place for place in PLACES if f"`{place}`" not in section] == []
    held_elsewhere = ("tests/test_positions_history.py", "tests/test_lenses.py", "tests/test_past_blocks.py")
    assert [test for test in held_elsewhere if f"`{test}`" not in section] == []
