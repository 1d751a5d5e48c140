"""tools/worlds.json.gz, the compiled worlds the devnet starts from with anvil alone (tests/evm.py
`packaged`): compiled from the packages and contracts of now, equal to what a build from them
deploys, and enough on its own to build every world in which the demo wallets hold what they hold
when built from the packages. Each build runs in a process of its own, as the devnet does."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

from tests.evm import ROOT, WORLDS, as_child, compiled_worlds_current

BUILD = """
import asyncio, json, sys
sys.path.insert(0, "scripts")
from tests import all_worlds, evm
if sys.argv[1] == "bundle":
    evm.from_packages = lambda: False
evm.recording = {}
node = evm.Anvil()
try:
    worlds = all_worlds.build(node)
    import addresses, devnet, protocols
    from pathlib import Path
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "addresses.json"
        path.write_text(json.dumps(devnet.timeless_feeds(worlds.addresses)))
        served = protocols.registry(protocols.load_addresses(path))
        held = asyncio.run(devnet.holdings(served, node.chain_id, node.url, worlds.wallets))
finally:
    node.stop()
print(json.dumps({"recorded": evm.recording, "held": {role: devnet.summary(found) for role, found in held.items()}}))
"""


def build(source: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", BUILD, source],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        preexec_fn=as_child,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found


def test_the_compiled_worlds_are_those_of_the_packages_and_serve_alone():
    assert compiled_worlds_current(), "tools/package-lock.json or tests/contracts changed: run scripts/compile-worlds"
    bundled = json.loads(gzip.decompress(WORLDS.read_bytes()))["items"]
    from_packages = build("packages")
    assert from_packages["recorded"] == bundled, "a world deploys other artifacts now: run scripts/compile-worlds"
    alone = build("bundle")
    assert alone["recorded"] == {}, "built from the compiled worlds alone"
    assert alone["held"] == from_packages["held"]
    assert all(alone["held"].values()) and "morpho" in str(alone["held"])
