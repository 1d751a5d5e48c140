"""Balancer's part of a chain's addresses data ("balancer"): the Vaults and gauge factories, each
from its deployment block."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Deployment, Section, fields


@dataclass(frozen=True)
class BalancerAddresses:
    """Balancer v2 (and v3): the Vault (every pool is registered there: `PoolRegistered`), the gauge
    factories (every gauge: `GaugeCreated`), and BAL, what a gauge's `claimable_tokens` pays."""

    v2_vault: Deployment
    gauge_factories: tuple[Deployment, ...]
    bal: str | None
    v3_vault: Deployment | None = None
    """Balancer v3's Vault where the chain has one (every v3 pool: its `PoolRegistered`)."""


def parse(value: Any, where: str) -> BalancerAddresses:
    value = fields.mapping(value, where)
    return BalancerAddresses(
        fields.deployment(value.get("v2Vault"), f"{where} v2Vault"),
        fields.deployments(value.get("gaugeFactories", []), f"{where} gaugeFactories"),
        fields.optional_address(value, "bal", where),
        fields.deployment(value["v3Vault"], f"{where} v3Vault") if "v3Vault" in value else None,
    )


BALANCER = Section("balancer", parse)
