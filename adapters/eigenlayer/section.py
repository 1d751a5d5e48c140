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
    start_block: int | None = None
    """`startBlock`: the block the StrategyManager was deployed at, where the data says (its page
    under docs/protocols/ cites the source): a block before it is refused with no read."""


def parse(value: Any, where: str) -> EigenlayerAddresses:
    value = fields.mapping(value, where)
    names = ("strategyManager", "delegationManager", "eigenPodManager")
    strategies, delegation, pods = (fields.address(value.get(name), f"{where} {name}") for name in names)
    return EigenlayerAddresses(strategies, delegation, pods, fields.start_block(value, where))


EIGENLAYER = Section("eigenlayer", parse)
