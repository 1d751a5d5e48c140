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
    start_block: int | None = None
    """`startBlock`: the block the Booster was deployed at, where the data says (its page
    under docs/protocols/ cites the source): a block before it is refused with no read."""


def parse(value: Any, where: str) -> ConvexAddresses:
    value = fields.mapping(value, where)
    booster, cvx, crv = (fields.address(value.get(name), f"{where} {name}") for name in ("booster", "cvx", "crv"))
    return ConvexAddresses(booster, cvx, crv, fields.start_block(value, where))


CONVEX = Section("convex", parse)
