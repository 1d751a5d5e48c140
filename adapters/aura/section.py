"""Aura's part of a chain's addresses data ("aura"), read beside Balancer's, whose Vault values
the deposits: Aura answers on a chain that has both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adapters.balancer.section import BALANCER, BalancerAddresses
from addresses import ChainAddresses, Section, fields


@dataclass(frozen=True)
class AuraAddresses:
    """Aura: its Booster (pools by `poolLength` / `poolInfo`) and the AURA token (what a claim of
    BAL mints)."""

    booster: str
    aura: str
    older_boosters: tuple[str, ...] = ()
    """Aura's earlier Boosters on the chain (Ethereum's 2022 one): read like `booster`, their own pids."""
    l2_coordinator: str | None = None
    """On a sidechain: the L2Coordinator, BoosterLite's `minter`, which pays AURA (`aura`: the AuraOFT)
    at its `mintRate()`, instead of Aura.sol's mint on Ethereum."""
    start_block: int | None = None
    """`startBlock`: the block the first of its Boosters was deployed at, where the data says (its page
    under docs/protocols/ cites the source): a block before it is refused with no read."""


@dataclass(frozen=True)
class AuraParts:
    """What Aura's adapter reads of a chain: its own part and Balancer's."""

    aura: AuraAddresses
    balancer: BalancerAddresses


def parse(value: Any, where: str) -> AuraAddresses:
    value = fields.mapping(value, where)
    return AuraAddresses(
        fields.address(value.get("booster"), f"{where} booster"),
        fields.address(value.get("aura"), f"{where} aura"),
        tuple(
            fields.address(older, f"{where} olderBoosters")
            for older in fields.listed(value.get("olderBoosters", []), where)
        ),
        fields.optional_address(value, "l2Coordinator", where),
        fields.start_block(value, where),
    )


AURA = Section("aura", parse)


def section(chain: ChainAddresses) -> AuraParts | None:
    """Aura's and Balancer's parts of the chain, where it has both."""
    aura, balancer = AURA.of(chain), BALANCER.of(chain)
    return AuraParts(aura, balancer) if aura and balancer else None
