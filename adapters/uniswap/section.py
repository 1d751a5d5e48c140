"""Uniswap's part of a chain's addresses data ("uniswap"): v3's and v4's contracts, either or both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from addresses import Deployment, Section, fields
from addresses.fields import AddressesError

Codebase = Literal["uniswap", "pancakeswap"]
"""Whose v3 contracts a v3 part is (contracts.CODEBASES)."""


@dataclass(frozen=True)
class UniswapV3Addresses:
    """Uniswap v3 on a chain: its factory (the pool of a token pair and fee is `getPool`'s
    answer) and its NonfungiblePositionManager."""

    factory: str
    position_manager: str
    start_block: int | None = None
    """`startBlock`: the block its factory was deployed at, where the data says (its page
    under docs/protocols/ cites the source): a block before it is refused with no read."""
    codebase: Codebase = "uniswap"
    """Whose v3 contracts these are: "uniswap", or "pancakeswap" for PancakeSwap v3 (Uniswap v3's
    code with a wider `slot0`), read the same way (contracts.CODEBASES)."""


@dataclass(frozen=True)
class UniswapV4Addresses:
    """Uniswap v4 on a chain: the PoolManager (every pool), the PositionManager (position NFTs,
    found through its Transfer events from its deployment block) and the StateView (the pools'
    state by PoolId)."""

    pool_manager: str
    position_manager: Deployment
    state_view: str


@dataclass(frozen=True)
class UniswapAddresses:
    v3: UniswapV3Addresses | None
    v4: UniswapV4Addresses | None


def parse_v3(value: Any, where: str, codebase: Codebase = "uniswap") -> UniswapV3Addresses:
    """A v3 part ({factory, positionManager, startBlock}) of the addresses data."""
    part = fields.mapping(value, where)
    factory, manager = (fields.address(part.get(name), f"{where} {name}") for name in ("factory", "positionManager"))
    return UniswapV3Addresses(factory, manager, fields.start_block(part, where), codebase)


def parse(value: Any, where: str) -> UniswapAddresses:
    value = fields.mapping(value, where)
    v3 = v4 = None
    if "v3" in value:
        v3 = parse_v3(value["v3"], f"{where} v3")
    if "v4" in value:
        part = fields.mapping(value["v4"], f"{where} v4")
        v4 = UniswapV4Addresses(
            fields.address(part.get("poolManager"), f"{where} v4 poolManager"),
            fields.deployment(part.get("positionManager"), f"{where} v4 positionManager"),
            fields.address(part.get("stateView"), f"{where} v4 stateView"),
        )
    if v3 is None and v4 is None:
        raise AddressesError(f"{where}: must have a v3 or a v4 section")
    return UniswapAddresses(v3, v4)


UNISWAP = Section("uniswap", parse)
