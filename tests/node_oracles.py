"""Protocols' own JavaScript libraries as test oracles: a script of tests/ reads a JSON list of
requests on stdin and answers a JSON list on stdout, with the packages pinned in tools/sdk/.

- morpho_sdk.cjs: Morpho's `@morpho-org/blue-sdk` (IRM, markets, positions, vaults).
- aave_math.cjs: Aave's `@aave/math-utils` (compounded rates, incentive APRs).
- pendle_math.cjs: Pendle's offchain math (market trades and prices).
- uniswap_sdk.cjs: Uniswap's `@uniswap/v3-sdk` (position amounts, prices, uncollected fees).
- registries.cjs: the protocols' published registries (Aave's address book, Morpho's addresses,
  Lido's ABIs, Uniswap's addresses).
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from tests.evm import ROOT, SDKS


def ask(script: str, requests: list[Any]) -> list[Any]:
    """Answers of `script` (a .cjs of tests/) to `requests`, in one node process."""
    done = subprocess.run(
        ["node", str(ROOT / "tests" / script), str(SDKS)],
        input=json.dumps(requests),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode:
        raise RuntimeError(f"{script} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def morpho_sdk(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Answers of Morpho's SDK to `requests` ({"kind": "irm" | "market" | "position" | "vault", ...})."""
    return ask("morpho_sdk.cjs", requests)


def aave_apys(rates_ray: list[int]) -> list[float]:
    """`@aave/math-utils`' APY of each ray annual rate (formatReserve's supplyAPY / variableBorrowAPY)."""
    return [float(answer) for answer in ask("aave_math.cjs", [str(rate) for rate in rates_ray])]


def aave_incentive_aprs(incentives: list[dict[str, Any]]) -> list[float]:
    """`@aave/math-utils`' incentive APR (calculateAllReserveIncentives) of each reward: side ("a"
    aToken, "v" variable debt), emissionPerSecond, rewardPriceFeed, priceFeedDecimals,
    rewardTokenDecimals, emissionEndTimestamp, incentivesLastUpdateTimestamp, totalTokenSupply,
    price (the asset's, normalized), decimals."""
    return [float(answer) for answer in ask("aave_math.cjs", incentives)]


def registries(names: list[str]) -> list[dict[str, Any]]:
    """What each named registry publishes (registries.cjs), e.g. ["aave"]: Aave v3 markets by name."""
    return ask("registries.cjs", names)
