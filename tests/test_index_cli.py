"""`python server.py index ...` as a real process against the Morpho world on anvil: a build that
is resumable, status, and an export / import round trip that serves the same positions."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

from tests.conftest import world_api
from tests.evm import ROOT
from tests.test_morpho import market_id, positions, world  # noqa: F401 (the world fixture, shared)


def index(world, tmp_path, *args, state="state", rpc=True):
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("RPC_URL_")},
        "ADDRESSES_FILE": str(world.write_addresses(tmp_path / "addresses.json")),
        "STATE_DIR": str(tmp_path / state),
        **({f"RPC_URL_{world.node.chain_id}": world.node.url} if rpc else {}),
    }
    return subprocess.run(
        [sys.executable, str(ROOT / "server.py"), "index", *args], env=env, capture_output=True, text=True, timeout=120
    )


def covered(path) -> list[tuple]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT stream, covered_to FROM progress").fetchall() + [
            db.execute(f"SELECT COUNT(*) FROM {table}").fetchone() for table in ("entries", "holdings")
        ]
    finally:
        db.close()


def test_build_status_export_import(world, tmp_path):
    chain = str(world.node.chain_id)
    built = index(world, tmp_path, "build", "--chain", chain)
    assert built.returncode == 0, built.stderr
    assert f"up to block {world.node.finalized_block()}" in built.stderr and "blocks/s" in built.stderr
    again = index(world, tmp_path, "build", "--chain", chain)
    assert again.returncode == 0 and "blocks/s" not in again.stderr, "a second build has nothing to scan"
    status = index(world, tmp_path, "status")
    assert status.returncode == 0 and f"{chain}  morpho" in status.stdout
    assert str(world.node.finalized_block()) in status.stdout

    snapshot = tmp_path / "snapshot.sqlite"
    assert index(world, tmp_path, "export", "--chain", chain, str(snapshot)).returncode == 0
    imported = index(world, tmp_path, "import", "--chain", chain, str(snapshot), state="other")
    assert imported.returncode == 0, imported.stderr
    original, copy = (tmp_path / d / f"index-{chain}.sqlite" for d in ("state", "other"))
    assert covered(copy) == covered(original) and covered(copy)[-1][0] > 0


def test_import_refuses_what_is_not_an_index(world, tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    refused = index(world, tmp_path, "import", "--chain", str(world.node.chain_id), str(junk))
    assert refused.returncode == 1 and "is not an index snapshot" in refused.stderr
    assert not (tmp_path / "state" / f"index-{world.node.chain_id}.sqlite").exists()


async def test_an_imported_snapshot_serves_without_a_scan(world, tmp_path, aiohttp_client, keys_file, api_key, caplog):
    chain = str(world.node.chain_id)
    assert index(world, tmp_path, "build", "--chain", chain).returncode == 0
    assert index(world, tmp_path, "export", "--chain", chain, str(tmp_path / "s.sqlite")).returncode == 0
    assert (
        index(world, tmp_path, "import", "--chain", chain, str(tmp_path / "s.sqlite"), state="served").returncode == 0
    )
    api = await world_api(
        aiohttp_client, keys_file, api_key, tmp_path / "addresses.json", world.node, state_dir=str(tmp_path / "served")
    )
    (entry,) = (await positions(api, world.wallets["lender"]))["data"]
    assert {p["marketId"] for p in entry["marketPositions"]} == {market_id(world.market_a), market_id(world.market_b)}
    assert not any("blocks done" in r.getMessage() for r in caplog.records)


def test_build_without_an_endpoint_for_the_chain_says_so(world, tmp_path):
    refused = index(world, tmp_path, "build", "--chain", str(world.node.chain_id), rpc=False)
    assert refused.returncode == 1 and "has no RPC endpoint for chain" in refused.stderr
    assert "Traceback" not in refused.stderr
