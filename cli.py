"""The command line beside serving (server.py's `main` serves): the parser of every setting and
command, `keys create|rotate|list|revoke`, `healthcheck`, and `index build|status|export|import`,
the event index from the command line, so an operator can build it ahead of serving and ship a
prebuilt snapshot with the container."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import addresses
import auth
import protocols
import verify
from chain import ChainConfig, Chains
from chain.event_index import Indexes, open_stores
from chain.index_sqlite import SCHEMA, SqliteIndex
from chain.rpc import DEFAULT_RPC_URLS, rpc_urls_from_env
from config import Settings, add_arguments
from errors import PositionError
from metrics import VERSION

TABLES = {
    "progress": {"stream", "start_block", "covered_to", "block_hash"},
    "entries": {"stream", "kind", "key", "value", "block"},
    "holdings": {"stream", "holder", "key", "block"},
}
EARLIER = {"holdings": {"stream", "holder", "key"}}
"""Layouts of snapshots written by earlier versions, still accepted (event_index migrates them)."""


def add_index_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], settings: Callable[[argparse.ArgumentParser], None]
) -> None:
    """The `index` command; `settings` adds the service settings each action accepts."""
    index = commands.add_parser("index", help="build, inspect, export or import the event index")
    actions = index.add_subparsers(dest="index_command", required=True, metavar="{build,status,export,import}")
    build = actions.add_parser("build", help="scan a chain's event streams up to its settled block (resumable)")
    build.add_argument("--chain", type=int, required=True, help="chain id")
    status = actions.add_parser("status", help="every index file: streams, blocks covered, rows")
    settings(build)
    settings(status)
    for name, verb in (("export", "write a consistent copy of"), ("import", "install a copy as")):
        action = actions.add_parser(name, help=f"{verb} a chain's index file")
        action.add_argument("--chain", type=int, required=True, help="chain id")
        action.add_argument("file", help="the snapshot file")
        settings(action)


def index_command(args: argparse.Namespace, settings: Settings, registry: protocols.Registry) -> int:
    state = Path(settings.state_dir)
    if settings.index_url:
        return asyncio.run(_shared_index_command(args, settings, registry))
    if args.index_command == "status":
        return _status(state)
    if args.index_command == "build":
        try:
            return asyncio.run(_build(args.chain, settings, registry))
        except KeyboardInterrupt:
            print("\ninterrupted: every finished window is kept; run the same command to go on", file=sys.stderr)
            return 130
    path = state / f"index-{args.chain}.sqlite"
    if args.index_command == "export":
        if not path.exists():
            print(f"error: there is no index for chain {args.chain} in {state}", file=sys.stderr)
            return 1
        index = SqliteIndex(path)
        try:
            asyncio.run(index.export(Path(args.file)))
        finally:
            index.close()
        print(f"exported the index of chain {args.chain} to {args.file}", file=sys.stderr)
        return 0
    problem = _check_snapshot(Path(args.file))
    if problem:
        print(f"error: {args.file} is not an index snapshot: {problem}", file=sys.stderr)
        return 1
    _install(Path(args.file), path)
    print(
        f"imported {args.file} as the index of chain {args.chain}"
        + (f"; the previous file is kept as {path.name}.bak" if path.with_suffix(".sqlite.bak").exists() else ""),
        file=sys.stderr,
    )
    return 0


async def _shared_index_command(args: argparse.Namespace, settings: Settings, registry: protocols.Registry) -> int:
    """The `index` commands against the database of INDEX_URL (snapshots are SQLite files either way)."""
    if args.index_command == "build":
        return await _build(args.chain, settings, registry)
    from chain.index_postgres import PostgresStores

    stores = PostgresStores(settings.index_url, 2)
    try:
        if args.index_command == "status":
            print("CHAIN  STREAM  START  COVERED_TO  ENTRIES  HOLDINGS")
            for chain_id in await stores.chains():
                for name, start, covered, entries, holdings in await stores.store(chain_id).status():
                    print(f"{chain_id}  {name.split()[0]}  {start}  {covered}  {entries}  {holdings}")
        elif args.index_command == "export":
            await stores.store(args.chain).export(Path(args.file))
            print(f"exported the index of chain {args.chain} to {args.file}", file=sys.stderr)
        else:
            if problem := _check_snapshot(Path(args.file)):
                print(f"error: {args.file} is not an index snapshot: {problem}", file=sys.stderr)
                return 1
            await stores.store(args.chain).install(Path(args.file))
            print(f"imported {args.file} as the index of chain {args.chain}", file=sys.stderr)
    except PositionError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    finally:
        await stores.close()
    return 0


async def _build(chain_id: int, settings: Settings, registry: protocols.Registry) -> int:
    streams = list({stream.name: stream for p in registry.values() for stream in p.chain_streams(chain_id)}.values())
    if not streams:
        print(f"error: no protocol reads events on chain {chain_id}", file=sys.stderr)
        return 2
    chains = Chains(rpc_urls_from_env(os.environ), ChainConfig(logs_block_range=settings.logs_block_range))
    indexes = Indexes(open_stores(Path(settings.state_dir), settings.index_url, 2), chains)
    try:
        for stream in streams:
            reader = chains.request(asyncio.get_running_loop().time() + 120).reader(chain_id)
            started = time.monotonic()
            reached = await indexes.build(reader, stream, _progress_bar(stream.name, started))
            print(
                f"\n{stream.name.split()[0]}: up to block {reached} in {time.monotonic() - started:.0f} s",
                file=sys.stderr,
            )
    except PositionError as exc:
        print(f"\nerror: {exc.message}", file=sys.stderr)
        return 1
    finally:
        await indexes.close()
        await chains.close()
    return 0


def _progress_bar(name: str, started: float) -> Callable[[int, int, int], None]:
    label = name.split()[0]

    def report(first: int, done_to: int, target: int) -> None:
        total, done = max(target - first + 1, 1), done_to - first + 1
        elapsed = time.monotonic() - started
        rate = done / elapsed if elapsed else 0.0
        eta = (target - done_to) / rate if rate else 0.0
        bar = "#" * (30 * done // total)
        print(
            f"\r{label} [{bar:<30}] block {done_to} of {target}, {rate:.0f} blocks/s, ETA {eta:.0f} s",
            end="",
            file=sys.stderr,
            flush=True,
        )

    return report


def _status(state: Path) -> int:
    files = sorted(state.glob("index-*.sqlite"))
    if not files:
        print(f"no index files in {state}", file=sys.stderr)
        return 0
    print("CHAIN  STREAM  START  COVERED_TO  ENTRIES  HOLDINGS")
    for path in files:
        index = SqliteIndex(path)
        try:
            for name, start, covered, entries, holdings in asyncio.run(index.status()):
                print(
                    f"{path.stem.removeprefix('index-')}  {name.split()[0]}  {start}  {covered}  {entries}  {holdings}"
                )
        finally:
            index.close()
    return 0


def _check_snapshot(path: Path) -> str | None:
    """Why the file cannot serve as an index, or None."""
    if not path.is_file():
        return "no such file"
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            if db.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                return "it fails SQLite's integrity check"
            for table, columns in TABLES.items():
                found = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
                if found not in (columns, EARLIER.get(table)):
                    return f"its table {table} has columns {sorted(found)}, not {sorted(columns)}"
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        return f"not a SQLite database ({exc})"
    return None


def _install(source: Path, path: Path) -> None:
    """The snapshot becomes the chain's file: copied beside it, the old file (its write-ahead log
    folded in first) kept as .bak, then renamed into place. Run it while no server uses the
    state directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    incoming = path.with_suffix(".sqlite.incoming")
    reader, writer = sqlite3.connect(f"file:{source}?mode=ro", uri=True), sqlite3.connect(incoming)
    try:
        reader.backup(writer)
        writer.executescript(SCHEMA)
    finally:
        reader.close()
        writer.close()
    if path.exists():
        old = sqlite3.connect(path)
        try:
            old.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            old.close()
        os.replace(path, path.with_suffix(".sqlite.bak"))
    for leftover in (Path(f"{path}-wal"), Path(f"{path}-shm")):
        leftover.unlink(missing_ok=True)
    os.replace(incoming, path)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="server.py",
        allow_abbrev=False,
        description="Wallet positions GraphQL service. Without a command it serves; every "
        "setting can also come from the environment variable shown.",
        epilog="RPC endpoints: RPC_URL_<chainId> (e.g. RPC_URL_8453) sets the JSON-RPC URL of a "
        "chain; public defaults exist for chains "
        + ", ".join(str(chain) for chain in DEFAULT_RPC_URLS)
        + ". URLs never appear in logs.",
    )
    parser.add_argument("--version", action="version", version=f"wallet-positions {VERSION}")
    add_arguments(parser)
    commands = parser.add_subparsers(dest="command", metavar="{keys,index,healthcheck,verify}")
    keys = commands.add_parser("keys", help="manage API keys (create, rotate, list, revoke)")
    actions = keys.add_subparsers(dest="keys_command", required=True, metavar="{create,rotate,list,revoke}")
    create = actions.add_parser("create", help="create a key and print it on stdout (shown once)")
    create.add_argument("--name", required=True, help="label for the key: letters, digits, . _ -")
    rotate = actions.add_parser(
        "rotate",
        help="create a key named NAME and print it on stdout (shown once), revoking the active key of "
        "that name in the same write; with none, only create",
    )
    rotate.add_argument("name", help="the key's name, as `keys list` shows it")
    listing = actions.add_parser("list", help="list keys: id, name, created, revoked")
    revoke = actions.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("id", help="the key's id, as `keys list` shows it")
    for sub in (create, rotate, listing, revoke):
        add_arguments(sub, only=("keys_file",), suppress_default=True)
    add_index_parser(
        commands,
        lambda sub: add_arguments(
            sub, only=("state_dir", "index_url", "addresses_file", "logs_block_range"), suppress_default=True
        ),
    )
    health = commands.add_parser(
        "healthcheck",
        help="exit 0 if the server on this machine answers GET /healthz "
        "(a container's health check; the image has no curl)",
    )
    add_arguments(health, only=("host", "port"), suppress_default=True)
    check = commands.add_parser(
        "verify",
        help="replay an answer's provenance on a node of your choosing and recompute its figures "
        "(exit 0: all agree, 1: a difference, 2: the node lacks a block or the file is unreadable)",
    )
    check.add_argument("answer", help="a GraphQL answer saved as JSON, its entries with `provenance` selected")
    check.add_argument("--rpc", required=True, help="the JSON-RPC URL of a node of the answer's chain")
    add_arguments(check, only=("addresses_file",), suppress_default=True)
    return parser


def verify_command(args: argparse.Namespace, settings: Settings) -> int:
    """`verify`: the answer file read, the node's URL checked, then verify.py (its exit code)."""
    try:
        answer = json.loads(Path(args.answer).read_text(encoding="utf-8"))
        registry = protocols.registry(protocols.load_addresses(settings.addresses_file or None))
    except (OSError, ValueError, addresses.AddressesError) as exc:
        print(f"cannot verify: {exc}", file=sys.stderr)
        return 2
    parts = urlsplit(args.rpc)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        print("cannot verify: --rpc is not an http:// or https:// URL with a host", file=sys.stderr)
        return 2
    return asyncio.run(verify.verify(answer, args.rpc, registry, sys.stdout))


def healthcheck(settings: Settings) -> int:
    host = "127.0.0.1" if settings.host in ("0.0.0.0", "") else "::1" if settings.host == "::" else settings.host
    url = f"http://{f'[{host}]' if ':' in host else host}:{settings.port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            healthy = response.status == 200 and json.load(response).get("status") == "ok"
    except (OSError, ValueError) as exc:
        print(f"unhealthy: {url}: {exc}", file=sys.stderr)
        return 1
    return 0 if healthy else 1


def keys_command(args: argparse.Namespace, settings: Settings) -> int:
    """`keys create|rotate|list|revoke`: only a new key goes to stdout (create, rotate); messages to
    stderr."""
    path = settings.keys_file
    try:
        if args.keys_command == "create":
            key, record = auth.create_key(path, args.name)
            print(key)
            print(f"created key {record.id} ({record.name}) in {path}; it is shown only once", file=sys.stderr)
        elif args.keys_command == "rotate":
            key, record, revoked = auth.rotate_key(path, args.name)
            print(key)
            was = f"revoked key {revoked.id}; " if revoked else f"no active key was named {record.name}; "
            print(f"{was}created key {record.id} ({record.name}) in {path}; it is shown only once", file=sys.stderr)
        elif args.keys_command == "list":
            rows = [("ID", "NAME", "CREATED", "REVOKED")] + [
                (r.id, r.name, r.created or "-", r.revoked or "-") for r in auth.load_keys(path).values()
            ]
            widths = [max(len(row[i]) for row in rows) for i in range(4)]
            for row in rows:
                print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
        else:
            record, changed = auth.revoke_key(path, args.id)
            verb = "revoked" if changed else "was already revoked"
            print(f"key {record.id} ({record.name}) {verb} at {record.revoked}", file=sys.stderr)
    except (auth.KeyFileError, ValueError, LookupError) as exc:
        print(f"error: {auth.redact(str(exc.args[0]))}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: cannot use the keys file {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0
