"""Morpho's part of a chain's addresses data ("morpho"): Blue and the vault factories, each from
its deployment block (docs/protocols/morpho.md names the sources)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Deployment, Section, fields


@dataclass(frozen=True)
class MorphoAddresses:
    blue: Deployment
    vault_v1_factories: tuple[Deployment, ...]
    vault_v2_factories: tuple[Deployment, ...]
    adaptive_curve_irm: str | None = None
    """Morpho's AdaptiveCurveIrm on the chain: its markets' APYs are quoted at the instantaneous rate."""


def parse(value: Any, where: str) -> MorphoAddresses:
    value = fields.mapping(value, where)
    return MorphoAddresses(
        blue=fields.deployment(value.get("blue"), f"{where} blue"),
        vault_v1_factories=fields.deployments(value.get("vaultV1Factories", []), f"{where} vaultV1Factories"),
        vault_v2_factories=fields.deployments(value.get("vaultV2Factories", []), f"{where} vaultV2Factories"),
        adaptive_curve_irm=fields.optional_address(value, "adaptiveCurveIrm", where),
    )


MORPHO = Section("morpho", parse)
