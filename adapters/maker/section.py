"""Maker's part of a chain's addresses data ("maker")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Deployment, Section, fields


@dataclass(frozen=True)
class MakerAddresses:
    """Maker (Sky) on Ethereum: its ChainLog, which names every other contract at the block
    (adapters/maker/), from the block it was deployed at."""

    chain_log: Deployment


def parse(value: Any, where: str) -> MakerAddresses:
    return MakerAddresses(fields.deployment(fields.mapping(value, where).get("chainLog"), f"{where} chainLog"))


MAKER = Section("maker", parse)
