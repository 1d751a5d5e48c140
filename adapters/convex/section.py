"""Convex's part of a chain's addresses data ("convex")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Section, fields


@dataclass(frozen=True)
class ConvexAddresses:
    """Convex on Ethereum: the Booster (its pools, `poolInfo`), the CVX token (its mint
    parameters) and CRV, which its reward pools pay."""

    booster: str
    cvx: str
    crv: str


def parse(value: Any, where: str) -> ConvexAddresses:
    value = fields.mapping(value, where)
    return ConvexAddresses(*(fields.address(value.get(name), f"{where} {name}") for name in ("booster", "cvx", "crv")))


CONVEX = Section("convex", parse)
