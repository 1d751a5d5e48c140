"""The docs held to the code, as datasette's test_docs holds its own: what the code has must be in
the docs (settings, protocols, error codes, schema types), and what the docs name in backticks
must exist in the code (settings, flags, files, module attributes, functions), so neither side
drifts silently."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib
import json
import os
import re
import shlex
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from graphql import GraphQLList, GraphQLNonNull, GraphQLObjectType, build_schema, parse, print_ast, validate

import cli
import config
import protocols
from adapters.maker import contracts as maker_contracts
from chain import rpc
from chain.erc20 import NATIVE_COINS, native_coin
from graphql_http.scalars import with_scalars
from schema import SDL
from tests.modules import MIN_MODULES, packages, service_files

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted([ROOT / "README.md", *DOCS.rglob("*.md")])
SERVICE_FILES = service_files()
SERVICE_MODULES = list(SERVICE_FILES)

NOT_CODES = {"CREATED", "REVOKED", "NAME", "HTTP_", "KEY_", "SHA256", "USD", "COMMIT", "ROLLBACK"}
"""All-caps strings of the service modules that are not answers' codes: keys-file fields, prefixes,
SQL statements, a currency. HTTP methods and the settings' variables are left out by rule."""
LOG_ONLY = {"HEADERS_TIMEOUT", "SHUTDOWN"}
"""Values of the access log's `refused` that no client sees as a code: they belong to operations.md."""
HTTP_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
OUTSIDE_TOOLS = ("ruff", "mypy", "pytest", "docker", "npm", "curl", "git")
"""A backticked command of one of these names carries that tool's flags, not the service's."""
FILE_KINDS = ("py", "json", "md", "toml", "txt", "cjs", "sol", "graphql", "env", "sqlite", "ts", "lock")


def text(path: Path) -> str:
    return path.read_text()


def spans(path: Path) -> list[str]:
    """The backticked spans of a page, code blocks left out."""
    prose = re.sub(r"^```.*?^```", "", text(path), flags=re.S | re.M)
    return re.findall(r"`([^`\n]+)`", prose)


def all_spans() -> list[tuple[Path, str]]:
    return [(page, span) for page in PAGES for span in spans(page)]


def docs_text() -> str:
    return "\n".join(text(page) for page in PAGES)


@cache
@cache
def code_files() -> tuple[Path, ...]:
    """The repository's code, walked without entering what is not ours (a virtualenv, the npm
    tools, caches, hidden folders): those hold hundreds of thousands of files."""
    skip = {".venv", ".build-venv", "tools", "build", "dist", "docs", "state", "__pycache__"}
    kinds = (".py", ".graphql", ".json", ".sol", ".cjs", ".toml")
    found = []
    for folder, folders, files in os.walk(ROOT):
        folders[:] = sorted(name for name in folders if name not in skip and not name.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            if path.suffix in kinds or path.parent.name == "scripts" or name == "Dockerfile":
                found.append(path)
    return tuple(found)


@cache
def code_text() -> str:
    return "\n".join(path.read_text(errors="replace") for path in code_files())


@cache
def defined_functions() -> set[str]:
    names = set()
    for path in code_files():
        if path.suffix == ".py":
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(node.name)
    return names


def service_codes() -> set[str]:
    """Every code the service can answer: the all-caps string constants of its modules, less
    the settings' variables, HTTP methods, NOT_CODES, the native coins' symbols, the names a
    package's `__all__` exports and the keys of Maker's ChainLog."""
    envs = {setting.metadata["env"] for setting in dataclasses.fields(config.Settings)}
    found, exported = set(), set()
    for path in SERVICE_FILES.values():
        for node in ast.walk(ast.parse(text(path))):
            if isinstance(node, ast.Constant) and re.fullmatch(r"[A-Z][A-Z0-9_]{2,}", str(node.value)):
                found.add(node.value)
            elif isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
                exported.update(item.value for item in ast.walk(node.value) if isinstance(item, ast.Constant))
    coins = {native_coin(chain)[0] for chain in (1, *NATIVE_COINS)}
    return found - envs - HTTP_METHODS - NOT_CODES - exported - coins - set(maker_contracts.KEYS)


def parser_flags() -> set[str]:
    flags: set[str] = set()
    parsers = [cli.build_parser()]
    while parsers:
        parser = parsers.pop()
        for action in parser._actions:
            flags.update(option for option in action.option_strings if option.startswith("--"))
            if isinstance(action, argparse._SubParsersAction):
                parsers.extend(action.choices.values())
    return flags


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    prose = re.sub(r"^```.*?^```", "", text(page), flags=re.S | re.M)
    return {slug(heading) for heading in re.findall(r"^#+ (.+)$", prose, flags=re.M)}


# ---- what the code has is in the docs


@pytest.mark.parametrize("setting", dataclasses.fields(config.Settings), ids=lambda setting: setting.name)
def test_every_setting_is_a_row_of_the_configuration_table(setting):
    flag, env = "--" + setting.name.replace("_", "-"), setting.metadata["env"]
    row = re.search(rf"^\| `{flag}` \| `{env}` \| ([^|]+) \|", text(DOCS / "operations.md"), flags=re.M)
    assert row, f"{flag} / {env} is not a row of the configuration table"
    default = {False: "`0`", None: "off", "": "none"}.get(setting.default, f"`{setting.default}`")
    assert row.group(1).strip() in (default, "off", "none") if default in ("off", "none") else row.group(1) == default


def test_the_defaults_read_as_help_shows_them():
    """The configuration table's default of each setting is what `--help` prints (`0` for a switch
    that is off, `unset` where the table says off or none)."""
    shown = " ".join(cli.build_parser().format_help().split())
    operations = text(DOCS / "operations.md")
    wrong = []
    for setting in dataclasses.fields(config.Settings):
        cell = re.search(rf"^\| `--{setting.name.replace('_', '-')}` \| `[A-Z_]+` \| ([^|]+) \|", operations, re.M)
        assert cell, setting.name
        default = cell.group(1).strip().strip("`")
        default = "unset" if default in ("off", "none") else default
        if f"(env {setting.metadata['env']}, default {default})" not in shown:
            wrong.append(f"{setting.name}: the docs say {default}")
    assert wrong == []


def test_every_module_is_in_the_layout_table():
    """A module by its path, or by its file name in its folder's row; a package by its folder."""
    layout = text(DOCS / "development.md").split("## Layout", 1)[1].split("\n## ", 1)[0]

    def listed(path: Path) -> bool:
        relative = path.relative_to(ROOT)
        folder = f"`{relative.parent.as_posix()}/`"
        if relative.name == "__init__.py":
            return folder in layout
        row = next((row for row in layout.splitlines() if row.startswith(f"| {folder} |")), "")
        return f"`{relative.as_posix()}`" in layout or f"`{relative.name}`" in row

    assert len(SERVICE_FILES) >= MIN_MODULES
    missing = [name for name, path in SERVICE_FILES.items() if not listed(path)]
    assert missing == [], f"modules the layout table of docs/development.md does not list: {missing}"


@pytest.mark.parametrize(
    "protocol", protocols.registry(protocols.load_addresses()).values(), ids=lambda protocol: protocol.name
)
def test_every_protocol_has_its_page(protocol):
    page = DOCS / "protocols" / f"{protocol.name}.md"
    assert page.exists(), f"{protocol.name} has no page"
    assert text(page).startswith("# ") and f'`protocol: "{protocol.name}"`' in text(page).splitlines()[0]
    assert f"`{protocol.type_name}" in text(page)
    assert f"(docs/protocols/{protocol.name}.md)" in text(ROOT / "README.md")


def test_every_chain_served_has_a_default_endpoint_or_is_named_as_needing_one(monkeypatch):
    monkeypatch.undo()  # the public endpoints as they ship, not the tests' dead port (read, never called)
    served = {
        chain for protocol in protocols.registry(protocols.load_addresses()).values() for chain in protocol.chains
    }
    operations = text(DOCS / "operations.md")
    assert {56, 146} <= served
    missing = sorted(chain for chain in served - set(rpc.DEFAULT_RPC_URLS) if f"`RPC_URL_{chain}`" not in operations)
    assert missing == [], "chains with no default endpoint that docs/operations.md does not name"
    paragraph = next(part for part in operations.split("\n\n") if "with no default needs" in part)
    unnamed = sorted(
        (chain, protocol.name)
        for protocol in protocols.registry(protocols.load_addresses()).values()
        for chain in protocol.chains - set(rpc.DEFAULT_RPC_URLS)
        if f"`{protocol.name}`" not in paragraph
    )
    assert unnamed == [], "protocols served on a chain with no default endpoint, not named beside it"
    undocumented = sorted(url for url in rpc.DEFAULT_RPC_URLS.values() if f"`{url}`" not in operations)
    assert undocumented == [], "default endpoints docs/operations.md does not list"


REGISTERED = protocols.registry(protocols.load_addresses()).values()
SERVED_SCHEMA = build_schema(SDL)


def page_of(protocol: protocols.Protocol) -> str:
    """A protocol's docs page, its whitespace one space."""
    return " ".join(text(DOCS / "protocols" / f"{protocol.name}.md").split())


@pytest.mark.parametrize("protocol", REGISTERED, ids=lambda protocol: protocol.name)
def test_every_protocol_page_returns_the_fields_of_its_type(protocol):
    page = page_of(protocol)
    returns = re.search(rf"Returns `{protocol.type_name} implements WalletEntry \{{ ([^}}]+) \}}`", page)
    assert returns, f"docs/protocols/{protocol.name}.md has no Returns line"
    header = SERVED_SCHEMA.type_map["WalletEntry"].fields
    fields = SERVED_SCHEMA.type_map[protocol.type_name].fields
    assert returns.group(1).split() == [name for name in fields if name not in header]


@pytest.mark.parametrize("protocol", REGISTERED, ids=lambda protocol: protocol.name)
def test_every_protocol_page_says_what_each_of_its_positions_legs_are(protocol):
    """Each position type a protocol answers implements Position, and its page says its legs."""
    legs = re.search(r"\*\*Legs\*\* \(\[`Position`\]\([^)]*\)\): (.*?)(?= \*\*|$)", page_of(protocol))
    assert legs, f"docs/protocols/{protocol.name}.md has no Legs paragraph"
    position = SERVED_SCHEMA.type_map["Position"]

    def positions(graphql_type: Any, seen: set[str]) -> set[str]:
        while isinstance(graphql_type, (GraphQLNonNull, GraphQLList)):
            graphql_type = graphql_type.of_type
        if not isinstance(graphql_type, GraphQLObjectType) or graphql_type.name in seen:
            return set()
        seen.add(graphql_type.name)
        own = {graphql_type.name} if position in graphql_type.interfaces else set()
        return own.union(*(positions(field.type, seen) for field in graphql_type.fields.values()))

    member = SERVED_SCHEMA.type_map[protocol.type_name]
    named = set(re.findall(r"`(\w+)`", legs.group(1)))
    vault_style = "vault-style.md" in legs.group(1)
    missing = sorted(
        positions(member, {"AaveMarketState"}) - named - ({"VaultSharePosition"} if vault_style else set())
    )
    assert missing == [], f"docs/protocols/{protocol.name}.md: its Legs paragraph does not name {missing}"


def test_every_code_is_in_the_api_page():
    codes = service_codes()
    assert {"VALIDATION_ERROR", "RATE_LIMITED", "PART_UNREADABLE", "MALFORMED_HTTP", "SHUTDOWN"} <= codes
    missing = sorted(code for code in codes - LOG_ONLY if f"`{code}`" not in text(DOCS / "api.md"))
    assert missing == [], f"codes the service answers but docs/api.md does not name: {missing}"
    assert all(re.search(rf"\b{code}\b", text(DOCS / "operations.md")) for code in LOG_ONLY)


def test_every_schema_type_is_named_in_the_docs():
    schema = build_schema(SDL)
    names = {name for name, kind in schema.type_map.items() if not name.startswith("__")}
    names -= {"String", "Int", "Float", "Boolean", "ID", "Query"}
    assert len(names) > 50
    docs = docs_text()
    missing = sorted(name for name in names if not re.search(rf"\b{name}\b", docs))
    assert missing == [], f"schema types the docs never name: {missing}"


# ---- what the docs name exists


def test_named_settings_and_variables_exist():
    names = {
        match
        for _, span in all_spans()
        for match in re.findall(r"(?<![\w<>.])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w(<])", span)
    }
    assert {"API_KEYS_FILE", "STATE_DIR", "VALIDATION_ERROR"} <= names
    unknown = sorted(name for name in names if not re.search(rf"\b{name}\b", code_text()))
    assert unknown == [], f"the docs name variables or codes the code does not have: {unknown}"


def test_named_flags_exist():
    known = parser_flags() | set(re.findall(r"--[a-z][a-z0-9-]+", code_text()))
    named = {
        flag
        for _, span in all_spans()
        if not span.split()[0].endswith(OUTSIDE_TOOLS)
        for flag in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+", span)
    }
    assert {"--keys-file", "--metrics-port"} <= named
    assert sorted(named - known) == [], "the docs name flags nothing takes"


def test_named_files_exist():
    """Paths of ours, and bare file names: at the root, in tests/, bench/, scripts/ or a package."""
    folders = "|".join(["tests", "bench", "docs", r"\.ci", *(package.name for package in packages())])
    missing = []
    for page, span in all_spans():
        for word in span.split():
            ours = re.fullmatch(rf"({folders})/[\w./<>*-]*|scripts/[\w-]+|[\w-]+\.(py|graphql|toml)", word)
            if not ours or "://" in word:
                continue
            pattern = re.sub(r"<[^>]+>", "*", word)
            elsewhere = ["tests", "bench", "scripts", *(f"{package.name}/**" for package in packages())]
            candidates = [pattern] if "/" in word else [pattern, *(f"{folder}/{pattern}" for folder in elsewhere)]
            if not any(list(ROOT.glob(candidate)) for candidate in candidates):
                missing.append(f"{page.relative_to(ROOT)}: {word}")
    assert missing == []


def test_named_module_attributes_exist():
    """`module.attribute`, the module by its longest dotted prefix that is ours (`chain.rpc.classify`)."""
    missing = []
    for page, span in all_spans():
        if "://" in span:
            continue
        for dotted in re.findall(r"(?<![\w./])[a-z_][a-z0-9_]*(?:\.[A-Za-z_]\w*)+", span):
            parts = dotted.split(".")
            module = next(
                (
                    ".".join(parts[:cut])
                    for cut in range(len(parts) - 1, 0, -1)
                    if ".".join(parts[:cut]) in SERVICE_MODULES
                ),
                None,
            )
            if module is None:
                continue
            attribute = parts[len(module.split("."))]
            known = attribute in FILE_KINDS or f"{module}.{attribute}" in SERVICE_MODULES
            if not known and not hasattr(importlib.import_module(module), attribute):
                missing.append(f"{page.relative_to(ROOT)}: {module}.{attribute}")
    assert missing == []


def test_named_classes_have_the_attributes_named():
    classes = {
        name: value
        for module in SERVICE_MODULES
        for name, value in vars(importlib.import_module(module)).items()
        if isinstance(value, type) and value.__module__ == module
    }
    missing = []
    for page, span in all_spans():
        for name, attribute in re.findall(r"(?<![\w.])([A-Z]\w*)\.([a-z_]\w*)", span):
            if name in classes:
                cls = classes[name]
                fields = {field.name for field in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
                if not hasattr(cls, attribute) and attribute not in fields:
                    missing.append(f"{page.relative_to(ROOT)}: {name}.{attribute}")
    assert missing == []


def test_named_functions_exist():
    named = {
        (page, name)
        for page, span in all_spans()
        for name in re.findall(r"(?<![\w.])([a-z][a-z0-9]*_[a-z0-9_]+)\(", span)
    }
    assert named, "the docs name functions of ours"
    missing = sorted(f"{page.relative_to(ROOT)}: {name}()" for page, name in named if name not in defined_functions())
    assert missing == []


def test_links_reach_their_file_and_heading():
    broken = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", text(page)):
            if re.match(r"\w+://", target):
                continue
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            if not resolved.exists() or (anchor and anchor not in anchors(resolved)):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


def test_cited_decisions_are_sections_of_the_decisions_page():
    sections = set(re.findall(r"^## (\d+)\. ", text(DOCS / "decisions.md"), flags=re.M))
    cited = [
        (path, match)
        for path in [*code_files(), *PAGES]
        for match in re.finditer(r"(?<!\S)(\S*)decisions\.md §(\w+)", path.read_text(errors="replace"))
    ]
    assert len(cited) >= 5
    wrong = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path, match in cited
        if not match.group(1).endswith("docs/") or match.group(2) not in sections
    ]
    assert wrong == [], "a citation names a decisions.md other than docs/decisions.md, or a section it lacks"


def test_the_readme_query_is_valid():
    command = re.search(r"^curl .*?(?=^```)", text(ROOT / "README.md"), flags=re.S | re.M).group(0)
    words = shlex.split(command.replace("\\\n", " "))
    body = json.loads(words[words.index("-d") + 1])
    schema = build_schema(SDL)
    assert validate(schema, parse(body["query"])) == []
    assert body["variables"]["inputs"][0]["protocol"] in protocols.registry(protocols.load_addresses())


def test_every_query_in_the_docs_is_valid():
    """Each ```graphql block of the README and the docs that is an operation (not an excerpt of
    the schema's types) validates against the schema as written."""
    schema = with_scalars(build_schema(SDL))
    pages = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    found = {
        f"{page.relative_to(ROOT)}: {block[:60]!r}": validate(schema, parse(block))
        for page in pages
        for block in re.findall(r"^```graphql\n(.*?)^```", text(page), flags=re.S | re.M)
        if block.lstrip().startswith(("query", "mutation", "{"))
    }
    assert len(found) >= 3
    assert {where: errors for where, errors in found.items() if errors} == {}


@pytest.mark.parametrize("union", ["WalletPositions", "PoolDetails"])
def test_the_api_pages_unions_are_the_schemas(union):
    """A union the API page quotes lists the schema's members, no more and no fewer."""

    def members(source: str) -> set[str] | None:
        found = re.search(rf"^union {union} = ((?:.*\n)(?:\s+\|.*\n)*)", source, re.MULTILINE)
        return None if found is None else {name.strip() for name in found.group(1).split("|")}

    schema = members(SDL)
    quoted = members(text(DOCS / "api.md"))
    assert schema
    assert quoted is None or quoted == schema, union


def test_commands_in_the_docs_work_pasted_into_a_fresh_shell():
    """A command a user pastes runs the service through what installs its dependencies
    (`./scripts/serve`, `.venv/bin/python`, the binary), never a bare `python server.py`: a fresh
    shell's python has no aiohttp."""
    blocks = [block for page in PAGES for block in re.findall(r"^```sh\n(.*?)^```", text(page), flags=re.S | re.M)]
    bare = [
        line for block in blocks for line in block.splitlines() if re.search(r"(^|\$\()\s*python3? server\.py", line)
    ]
    assert len(blocks) >= 5 and bare == []


def test_the_api_page_names_every_protocol_with_pool_details():
    """The poolDetails section's list of protocols with pool details is the registry's."""
    section = text(DOCS / "api.md").split("## Pool details", 1)[1].split("\n## ", 1)[0]
    with_details = [
        protocol.name for protocol in protocols.registry(protocols.load_addresses()).values() if protocol.details
    ]
    assert len(with_details) >= 7
    assert [name for name in with_details if f"(protocols/{name}.md" not in section] == []


def prose(path: Path) -> str:
    """A page's text with its line breaks and runs of spaces as single spaces, so a number's
    sentence is found wherever the page wraps it."""
    return " ".join(text(path).split())


def stated(path: Path, pattern: str) -> list[float]:
    """The number (commas dropped) in group 1 of every match of `pattern` on the page."""
    return [float(found.group(1).replace(",", "")) for found in re.finditer(pattern, prose(path))]


def numbers_of_the_rules() -> list[tuple[str, float, Path, str]]:
    """Each rule's number as the code has it, and every sentence of the docs that states it."""
    import limits
    from graphql_http import rules
    from tests.test_layout import MAX_ROOT_MODULES

    api, decisions, development = DOCS / "api.md", DOCS / "decisions.md", DOCS / "development.md"
    (minutes,) = stated(development, r"([\d.]+) minutes of pytest on 2 idle cores")
    (seconds,) = stated(development, r"minutes of pytest on 2 idle cores \([\d,]+ tests in ([\d,]+) s")
    return [
        ("depth", limits.MAX_DEPTH, api, r"more than (\d+) levels of field nesting"),
        ("depth", limits.MAX_DEPTH, api, r"\| nesting depth \| (\d+) \|"),
        ("depth", limits.MAX_DEPTH, decisions, r"\| operation depth \| at most (\d+) levels"),
        ("inputs", limits.MAX_INPUTS, api, r"\| inputs per request \| (\d+) \|"),
        ("inputs", limits.MAX_INPUTS, decisions, r"\| inputs per request \| at most (\d+)"),
        ("body", limits.MAX_BODY_BYTES / 1024, api, r"\| body \| (\d+) KiB \|"),
        ("body", limits.MAX_BODY_BYTES / 1024, decisions, r"\| request body \| at most (\d+) KiB"),
        ("tokens", limits.MAX_TOKENS, api, r"must have at most ([\d,]+) tokens"),
        ("fragments", limits.MAX_FRAGMENTS, api, r"tokens, (\d+) fragment definitions"),
        ("fields", limits.MAX_FIELDS, api, r"fragment definitions, ([\d,]+) fields"),
        ("aliases", limits.MAX_ALIASES, api, r"fields, (\d+) aliases"),
        ("spreads", limits.MAX_SPREADS, api, r"aliases, (\d+) fragment spreads"),
        ("selections", limits.MAX_SELECTIONS, api, r"and (\d+) selections in any selection set"),
        ("merged", limits.MAX_MERGED, api, r"at most (\d+) fields at any one response path"),
        ("expanded", limits.MAX_EXPANDED, api, r"response path and ([\d,]+) fields in all"),
        ("introspection depth", rules.MAX_INTROSPECTION_DEPTH, api, r"introspection subtree deeper than (\d+) levels"),
        ("introspection depth", rules.MAX_INTROSPECTION_DEPTH, api, r"at most (\d+) levels \(the standard"),
        ("introspection lists", rules.MAX_INTROSPECTION_LISTS, api, r"or with more than (\d+) list fields"),
        ("introspection lists", rules.MAX_INTROSPECTION_LISTS, api, r"and at most (\d+) list fields"),
        ("analysis goal", limits.ANALYSIS_GOAL_MS, api, r"takes well under (\d+) ms to parse and validate"),
        ("root modules", MAX_ROOT_MODULES, development, r"at most (\d+) modules at the root"),
        ("suite minutes", round(seconds / 60, 1), development, r"([\d.]+) minutes of pytest on 2 idle cores"),
        ("suite minutes", round(minutes), ROOT / "README.md", r"the whole suite, about (\d+) minutes"),
        ("quick tier", 3, ROOT / "README.md", r"`./scripts/test --quick`, under (\d+) minutes"),
        ("quick tier", 3, development, r"the quick tier, under (\d+) minutes"),
    ]


def test_a_rule_has_one_number_wherever_the_docs_state_it():
    """A limit, a goal or a measured time stated on two pages (or twice on one) is the code's own
    number in each: a change of one is a change of all, or this fails naming the sentence."""
    wrong = [
        f"{path.name}: {rule} is stated as {found}, not {value}"
        for rule, value, path, pattern in numbers_of_the_rules()
        for found in stated(path, pattern) or ["nothing"]
        if found != value
    ]
    assert wrong == []


def test_the_inputs_the_api_page_sums_up_are_the_schemas():
    """`input X { ... }` in the API page's summary lists every field of the schema's input, default included."""
    schema = build_schema(SDL)
    quoted = re.findall(r"^input (\w+) \{(.*?)\}", text(DOCS / "api.md"), flags=re.S | re.M)
    assert {name for name, _ in quoted} >= {"PositionInput", "PoolInput"}
    for name, fields in quoted:
        fields_of = schema.type_map[name].fields.items()
        default = {
            field: f" = {print_ast(value.ast_node.default_value)}"
            for field, value in fields_of
            if value.ast_node and value.ast_node.default_value
        }
        expected = {f"{field}: {value.type}{default.get(field, '')}" for field, value in fields_of}
        assert set(re.split(r"\s{2,}|\n\s*", fields.strip())) == expected, name
