"""The in-browser query page `GET /graphql` serves (query.html): one file, its script and style
inline, nothing from another host, with the Content-Security-Policy that holds it to that."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

from protocols import Registry

QUERY_PAGE_PATH = Path(__file__).resolve().parents[1] / "query.html"


def query_page(chain_id: int = 8453, path: Path = QUERY_PAGE_PATH) -> tuple[bytes, dict[str, str]]:
    """The page, its example input on `chain_id`, with a Content-Security-Policy that admits its
    own inline script and style (by their SHA-256) and requests to this service only: the
    browser loads nothing from elsewhere."""
    page = path.read_text(encoding="utf-8").replace('"chainId": 8453', f'"chainId": {chain_id}')
    hashes = {
        kind: " ".join(
            "'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"
            for body in re.findall(rf"<{kind}>(.*?)</{kind}>", page, flags=re.S)
        )
        for kind in ("script", "style")
    }
    policy = (
        f"default-src 'none'; script-src {hashes['script']}; style-src {hashes['style']}; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    headers = {"Content-Security-Policy": policy, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"}
    return page.encode(), headers


def example_chain(registry: Registry, configured: Iterable[int]) -> int:
    """The chain of the page's example (a Morpho input): the lowest whose endpoint the operator set
    (a devnet's 31337, say: offline, Base's public endpoint answers nothing), else Base."""
    served = registry["morpho"].chains if "morpho" in registry else frozenset()
    return next((chain for chain in sorted(configured) if chain in served), 8453)
