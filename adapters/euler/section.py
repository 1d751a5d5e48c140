"""Euler v2's part of a chain's addresses data ("euler")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Deployment, Section, fields


@dataclass(frozen=True)
class EulerAddresses:
    """Euler v2 on a chain: its EVC (accounts, collaterals, controllers) and the factory that
    makes its EVK vaults (found through its ProxyCreated events from its deployment block)."""

    evc: str
    factory: Deployment
    reward_streams: str | None = None
    """`rewardStreams`: the chain's TrackingRewardStreams, the balance tracker Euler's vaults
    report to, where the data names it: each vault position's rewards are read from it."""


def parse(value: Any, where: str) -> EulerAddresses:
    value = fields.mapping(value, where)
    return EulerAddresses(
        fields.address(value.get("evc"), f"{where} evc"),
        fields.deployment(value.get("eVaultFactory"), f"{where} eVaultFactory"),
        fields.optional_address(value, "rewardStreams", where),
    )


EULER = Section("euler", parse)
