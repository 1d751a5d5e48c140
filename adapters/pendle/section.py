"""Pendle's part of a chain's addresses data ("pendle"): every factory version, each from its
deployment block, and its PT, YT and LP oracle."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Deployment, Section, fields


@dataclass(frozen=True)
class PendleAddresses:
    market_factories: tuple[Deployment, ...]
    """Every market factory version: markets are created by their CreateNewMarket events."""
    yield_contract_factories: tuple[Deployment, ...]
    """Every yield-contract factory version: PT and YT pairs by their CreateYieldContract events."""
    oracle: str | None = None
    """PendlePYLpOracle ("pyYtLpOracle" in Pendle's deployment records): its PT, YT and LP rates
    price those tokens wherever they appear (rates.py); None where the chain has none."""


def parse(value: Any, where: str) -> PendleAddresses:
    value = fields.mapping(value, where)
    return PendleAddresses(
        fields.deployments(value.get("marketFactories", []), f"{where} marketFactories"),
        fields.deployments(value.get("yieldContractFactories", []), f"{where} yieldContractFactories"),
        fields.optional_address(value, "pyYtLpOracle", where),
    )


PENDLE = Section("pendle", parse)
