"""PancakeSwap's part of a chain's addresses data ("pancakeswap"): v3's factory and position
manager, read as Uniswap v3's, and the MasterChefV3 farm that holds staked position NFTs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adapters.uniswap.section import UniswapAddresses, parse_v3
from addresses import Section, fields


@dataclass(frozen=True)
class PancakeSwapAddresses(UniswapAddresses):
    """PancakeSwap v3 on a chain (`v3`, its codebase "pancakeswap"; no v4) and its MasterChefV3,
    where the chain has one: a Uniswap section to the Uniswap package's reads."""

    master_chef: str | None = None


def parse(value: Any, where: str) -> PancakeSwapAddresses:
    value = fields.mapping(value, where)
    v3 = parse_v3(value.get("v3"), f"{where} v3", "pancakeswap")
    return PancakeSwapAddresses(v3, None, fields.optional_address(value, "masterChef", where))


PANCAKESWAP = Section("pancakeswap", parse)
