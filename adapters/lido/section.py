"""Lido's part of a chain's addresses data ("lido")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Section, fields


@dataclass(frozen=True)
class LidoAddresses:
    """Lido on Ethereum: the stETH token (Lido itself), wstETH, and the withdrawal queue (unstETH NFTs)."""

    steth: str
    wsteth: str
    withdrawal_queue: str
    apy_period: int = 7 * 24 * 3600
    """Seconds over which the APY is measured (the growth of stETH per share)."""
    start_block: int | None = None
    """`startBlock`: the block stETH was deployed at, where the data says (its page
    under docs/protocols/ cites the source): a block before it is refused with no read."""


def parse(value: Any, where: str) -> LidoAddresses:
    value = fields.mapping(value, where)
    steth, wsteth, queue = (
        fields.address(value.get(name), f"{where} {name}") for name in ("stETH", "wstETH", "withdrawalQueue")
    )
    return LidoAddresses(steth, wsteth, queue, fields.period(value, where), fields.start_block(value, where))


LIDO = Section("lido", parse)
