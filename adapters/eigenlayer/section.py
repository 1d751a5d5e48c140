"""EigenLayer's part of a chain's addresses data ("eigenlayer")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Section, fields


@dataclass(frozen=True)
class EigenlayerAddresses:
    """EigenLayer's core on Ethereum (adapters/eigenlayer/): the StrategyManager (token deposits),
    the DelegationManager (delegation, slashing applied, the withdrawal queue) and the
    EigenPodManager (EigenPods, native restaking's beacon chain ETH shares)."""

    strategy_manager: str
    delegation_manager: str
    eigen_pod_manager: str


def parse(value: Any, where: str) -> EigenlayerAddresses:
    value = fields.mapping(value, where)
    names = ("strategyManager", "delegationManager", "eigenPodManager")
    return EigenlayerAddresses(*(fields.address(value.get(name), f"{where} {name}") for name in names))


EIGENLAYER = Section("eigenlayer", parse)
