"""Morpho's own SDK as a test oracle, through tests/morpho_sdk.cjs and the pinned node package."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from tests.evm import ROOT, TOOLS


def ask(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Answers of the SDK to `requests` ({"kind": "irm" | "market", ...}), in one node process."""
    done = subprocess.run(["node", str(ROOT / "tests" / "morpho_sdk.cjs"), str(TOOLS)], input=json.dumps(requests),
                          capture_output=True, text=True, timeout=120)
    if done.returncode:
        raise RuntimeError(f"the SDK failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)
