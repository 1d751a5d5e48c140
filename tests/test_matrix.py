"""The matrix of every protocol against every feature (tests/matrix.py, docs/matrix.md) held to what
it names: a row for every protocol of the registry with every cell; each test, benchmark row and
docs section it names there; the registry's own declarations (pool details, flows, borrows) where
a cell says done or exempt; and the page generated from it."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

import protocols
from tests.matrix import CELLS, FEATURES, HISTORY, PAGE, ROOT, TOKEN_IN_ACCOUNT, Done, Exempt, Missing, render
from tests.test_fault_schedules import DEPOSITED, MOVABLE, TRANSFERRED
from tests.test_past_blocks import INPUTS
from tests.test_positions_history import EVERY_OTHER

REGISTRY = protocols.registry(protocols.load_addresses())
FIRST = frozenset(
    {
        *("morpho", "aave", "spark", "compound", "fluid", "pendle", "lido", "maker", "euler", "uniswap"),
        *("neutrl", "midas", "avantis", "avant", "ethena", "sky", "erc4626"),
        *("etherfi", "rocketpool", "renzo", "kelp", "balancer", "eigenlayer", "aura", "curve", "convex"),
    }
)
"""The protocols the matrix began with: only their cells may be not built yet (a protocol added
since lands with every cell done or exempt)."""


@cache
def functions(path: Path) -> frozenset[str]:
    """The names of a module's top-level functions."""
    tree = ast.parse(path.read_text())
    return frozenset(node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef))


@cache
def headings(path: Path) -> frozenset[str]:
    return frozenset(re.findall(r"^#{2,3} (.+?)\s*$", path.read_text(), flags=re.M))


def found(ref: str) -> str | None:
    """Why `ref` (`path::name`) names nothing, or None."""
    path, _, name = ref.partition("::")
    file = ROOT / path
    if not name or not file.is_file():
        return f"{ref}: no such file, or no name after ::"
    if path.startswith("tests/"):
        return None if name in functions(file) else f"{ref}: no such test function"
    if path == "bench/latency.py":
        return None if repr(name) in file.read_text() or f'"{name}"' in file.read_text() else f"{ref}: no such row"
    if path.startswith("docs/"):
        return None if name in headings(file) else f"{ref}: no such heading"
    return f"{ref}: a cell names tests, bench/latency.py rows or docs headings"


def test_every_protocol_has_a_row_with_every_cell():
    assert list(CELLS) == list(REGISTRY)
    for protocol, cells in CELLS.items():
        assert list(cells) == list(FEATURES), protocol


def test_only_the_first_protocols_may_have_a_cell_not_built_yet():
    late = {p for p, cells in CELLS.items() if any(isinstance(cell, Missing) for cell in cells.values())}
    assert late <= FIRST


def test_every_cell_names_what_exercises_it_or_says_why_not():
    problems = []
    for protocol, cells in CELLS.items():
        for key, cell in cells.items():
            if isinstance(cell, Done):
                problems += [f"{protocol} {key}: {why}" for ref in cell.refs or ("",) if (why := found(ref))]
            elif not (cell.reason if isinstance(cell, Exempt) else cell.what).strip():
                problems.append(f"{protocol} {key}: says nothing")
    assert problems == []


@pytest.mark.parametrize("protocol", list(REGISTRY))
def test_the_registry_agrees_with_the_cells(protocol):
    """Done only where the registry offers it; offered, never exempt; risk exempt exactly where the
    protocol does not lend."""
    declared, cells = REGISTRY[protocol], CELLS[protocol]
    for key, offered in (("poolDetails", declared.details is not None), ("flows", declared.flows is not None)):
        if isinstance(cells[key], Done):
            assert offered, f"{key} done, but the registry does not offer it"
        if offered:
            assert not isinstance(cells[key], Exempt), f"{key} offered, but exempt"
    assert isinstance(cells["risk"], Exempt) != declared.borrows


@pytest.mark.parametrize(
    ("test", "asked"),
    [
        (HISTORY, {protocol for protocol, _ in [*INPUTS, *EVERY_OTHER]}),
        (TOKEN_IN_ACCOUNT, {*MOVABLE, *TRANSFERRED, *DEPOSITED}),
    ],
)
def test_a_cell_naming_a_test_of_many_protocols_is_of_one_it_asks(test, asked):
    """The series test asks the inputs of tests/test_past_blocks.py and EVERY_OTHER, the accounts
    test the protocols of MOVABLE, TRANSFERRED and DEPOSITED: a protocol outside them cannot count it as its own."""
    naming = {
        p for p, cells in CELLS.items() for cell in cells.values() if isinstance(cell, Done) and test in cell.refs
    }
    assert naming and naming <= asked


def test_the_page_is_the_matrix():
    assert PAGE.read_text() == render(), "run `.venv/bin/python -m tests.matrix` to write docs/matrix.md"
