"""The service's rooms and the way its imports run (docs/development.md, Layout): a small root, no
import cycle counting every import (in functions and under `TYPE_CHECKING` too), and each layer
importing only those below it: HTTP -> resolvers -> adapters -> event index -> reader ->
transport. Static checks read the source, so an import that runs only in some branch counts."""

from __future__ import annotations

import ast
import glob
import re
import tomllib
from pathlib import Path

from tests.modules import MIN_MODULES, ROOT, service_files

MAX_ROOT_MODULES = 14
"""The card's files and a few of one job each (docs/development.md, Layout, states the same number):
the GraphQL-over-HTTP parts are one package (graphql_http/), the HTTP layer another (api/)."""
UNDER_THE_RESOLVERS = {"auth", "config", "connections", "limits", "logs", "metrics"}
"""Root modules the HTTP layer uses beside the resolvers: none imports a resolver (schema.py,
series.py) or the registry, not even for a type annotation (a type both need lives below)."""
LEAVES = {
    "errors",
    "metrics",
    "immutable_cache",
    "addresses",
    "addresses.fields",
    "addresses.load",
    "addresses.sections",
}
"""Root modules every layer may use: they import no other module of the service."""
CHAIN_MAY_USE = {"errors", "metrics", "immutable_cache"}
ADAPTERS_MAY_USE = {"errors", "addresses", "addresses.fields"}
CHAIN_LAYERS = [
    {"chain.abi", "chain.keccak", "chain.rpc", "chain.rpc_batches", "chain.futures", "chain.index_store"},
    {"chain.head", "chain.lens", "chain.plans", "chain.rounds", "chain.index_sqlite"},
    {"chain.event_logs", "chain.index_postgres", "chain.pins"},
    {"chain.reader", "chain"},
    {"chain.erc20", "chain.erc4626", "chain.provenance"},
    {"chain.event_index"},
]
"""Within `chain/`, bottom up: the transport, the codec, the hash, the shared futures and what the
index stores; the head follower, the lenses' tapes, the read plans, the rounds of calls and the index's SQLite
store; eth_getLogs in those rounds, its PostgreSQL store (which writes SQLite snapshots) and the
pins that take a round trip; the
reader (and the face that re-exports it), the token views read through it, and the event index
above them all."""


def imports(name: str, path: Path, modules: set[str]) -> set[str]:
    """The service modules `name` imports anywhere in its source: `from package import module`
    counts as the module, a relative import is resolved against the module's package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(part for part in [*anchor, base] if part)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    files = service_files()
    return {name: imports(name, path, set(files)) for name, path in files.items()}


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path that returns to its start, or None (depth-first search)."""
    state: dict[str, int] = {}
    trail: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        trail.append(node)
        for target in sorted(edges[node]):
            if state.get(target) == 1:
                return [*trail[trail.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        trail.pop()
        state[node] = 2
        return None

    return next((found for node in sorted(edges) if node not in state and (found := visit(node))), None)


def test_the_walk_reaches_every_package():
    edges = graph()
    assert len(edges) >= MIN_MODULES
    assert {"chain.reader", "chain.event_index", "adapters.morpho.positions", "adapters.context"} <= set(edges)
    assert "chain.reader" in edges["chain.event_index"], "imports are found"
    assert "adapters.context" in edges["adapters.morpho.positions"], "imports under TYPE_CHECKING are found"


def test_no_import_cycle():
    assert cycle(graph()) is None


def test_a_cycle_is_found():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None


def test_the_root_holds_the_service_and_few_modules():
    root = sorted(path.stem for path in ROOT.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, root
    assert {"server", "schema", "auth", "limits", "protocols"} <= set(root), "the card's files stay at the root"


def test_what_the_http_layer_uses_sits_under_the_resolvers():
    edges = graph()
    above = {"schema", "series", "protocols", "verify", "cli", "server"}
    wrong = [f"{name} -> {target}" for name in sorted(UNDER_THE_RESOLVERS) for target in edges[name] if target in above]
    assert wrong == []


def test_each_layer_imports_only_those_below_it():
    edges = graph()
    wrong = []
    for name, targets in edges.items():
        for target in targets:
            top = target.split(".")[0]
            if name.split(".")[0] == "chain":
                allowed = top == "chain" or target in CHAIN_MAY_USE
            elif name.split(".")[0] == "adapters":
                allowed = top in ("chain", "adapters") or target in ADAPTERS_MAY_USE
            elif top == "api":
                allowed = name == "server" or name.split(".")[0] == "api"
            else:
                allowed = name not in LEAVES or target in LEAVES
            if not allowed:
                wrong.append(f"{name} -> {target}")
    assert wrong == []


def test_the_accounts_feature_imports_no_protocol():
    """A protocol's own route to the accounts a wallet controls lives in its package and imports the
    feature (Euler's sub-accounts), never the other way: the feature stays the same for every protocol."""
    edges = graph()
    feature = [name for name in edges if name.startswith("adapters.accounts")]
    protocols = {path.parent.name for path in (ROOT / "adapters").glob("*/__init__.py")} - {"accounts"}
    wrong = [
        f"{name} -> {target}"
        for name in feature
        for target in edges[name]
        if target.split(".")[0] == "adapters" and target.split(".")[1:2] and target.split(".")[1] in protocols
    ]
    assert len(feature) >= 4 and wrong == []


def test_within_chain_the_index_is_above_the_reader_and_the_reader_above_the_transport():
    edges = graph()
    layer = {name: rank for rank, names in enumerate(CHAIN_LAYERS) for name in names}
    assert set(layer) == {name for name in edges if name.split(".")[0] == "chain"}, "every chain module has a layer"
    upward = [
        f"{name} -> {target}"
        for name, targets in edges.items()
        if name in layer
        for target in targets
        if target in layer and layer[target] > layer[name]
    ]
    assert upward == []
    assert "chain" not in {target for name in layer for target in edges[name]}, "the package never uses its face"


def test_mypy_checks_every_service_module():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    checked = set()
    for entry in config["files"]:
        for match in glob.glob(entry, root_dir=ROOT):
            path = ROOT / match
            checked.update(path.rglob("*.py") if path.is_dir() else [path])
    files = set(service_files().values())
    assert len(files) >= MIN_MODULES
    assert files - checked == set(), "modules mypy does not check"


MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 600
MAX_SERVER_LINES = 500
MAX_ADAPTER_SUBSCRIPTS = 60
"""Integer subscripts left in adapters/ (issue 47 found 246): decoded structs are read by name."""
MAX_LENS_SELECTORS = 5
"""Raw 4-byte selector literals left in the lenses (issue 47 found 152): they call by name."""
MAX_TYPE_CHECKING = 2


def test_positions_and_pools_stand_side_by_side_on_their_protocols_ground_floor():
    edges = graph()
    pairs = [
        f"{name} -> {target}"
        for name, targets in edges.items()
        for target in targets
        if name.startswith("adapters.")
        and {name.rpartition(".")[2], target.rpartition(".")[2]} == {"positions", "pools"}
        and name.rpartition(".")[0] == target.rpartition(".")[0]
    ]
    assert pairs == []


def test_service_functions_and_modules_are_of_a_readable_length():
    long_functions, long_modules = [], []
    for name, path in service_files().items():
        source = path.read_text()
        if len(source.splitlines()) > (MAX_SERVER_LINES if name == "server" else MAX_MODULE_LINES):
            long_modules.append(f"{name}: {len(source.splitlines())}")
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.end_lineno:
                continue
            if (length := node.end_lineno - node.lineno + 1) > MAX_FUNCTION_LINES:
                long_functions.append(f"{name}.{node.name}: {length}")
    assert long_modules == [] and long_functions == []


def test_adapters_read_decoded_data_by_name():
    subscripts = [
        f"{name}:{node.lineno}"
        for name, path in service_files().items()
        if name.startswith("adapters")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int
    ]
    assert len(subscripts) <= MAX_ADAPTER_SUBSCRIPTS, subscripts


def test_the_registry_reads_alike_and_guards_are_few():
    assert "partial" not in (ROOT / "protocols.py").read_text()
    guards = sum(path.read_text().count("if TYPE_CHECKING") for path in service_files().values())
    assert guards <= MAX_TYPE_CHECKING


def test_the_lenses_call_by_name():
    literals = [
        f"{path.name}: {literal}"
        for path in sorted((ROOT / "lenses").glob("*.sol"))
        for literal in re.findall(r"\b0x[0-9a-fA-F]{8}\b", path.read_text())
    ]
    assert len(literals) <= MAX_LENS_SELECTORS, literals
