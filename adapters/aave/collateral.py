"""Whether an Aave supply is the wallet's collateral, and whether it can be, as the Pool decides.

Aave v2 (protocol-v2: GenericLogic.calculateUserAccountData, ValidationLogic.
validateSetUseReserveAsCollateral) has one rule and no e-mode, isolation or caps: a supply counts
when the wallet's flag is set and the reserve's liquidation threshold is not 0. Its LendingPool lets
any supply be flagged, so canBeCollateral is whether flagging it would make it count: the
threshold is not 0 (`v2_rules`).

The rules changed in v3.6 (e-mode-only collateral). From Aave's sources (aave-v3-origin:
GenericLogic.calculateUserAccountData, ValidationLogic.validateUseAsCollateral and, from v3.6,
ValidationLogic.getUserReserveLtv):

- isCollateral: the wallet's collateral flag is set and, up to v3.5, the reserve's own
  liquidation threshold is not 0 (e-mode changes the threshold used, never whether a supply
  counts). From v3.6 every flagged supply counts in `totalCollateralBase`; its threshold may be 0
  (a reserve that is collateral only inside an e-mode category).
- canBeCollateral: the Pool would let the wallet enable it (again, if it is enabled now): the
  wallet's LTV for the reserve is not 0 (up to v3.5 the reserve's LTV; from v3.6 the e-mode
  category's LTV when the reserve is collateral in the wallet's category, 0 when it is in the
  category's ltvzero bitmap, else the reserve's LTV) and, when the wallet has other collateral,
  it is not in isolation mode (that other collateral is its only one and has a debt ceiling) and
  the reserve has no debt ceiling. (v3.0.2 and later; every live market has those rules.)

A Pool is v3.6 or later when it answers `getEModeCategoryLtvzeroBitmap`, new in v3.6. The Pool is a
proxy upgraded in place, so this is asked with every request, in a round that is read anyway.

The liquidation threshold the Pool applies to one collateral (`threshold`, for the risk): the
reserve's own, or the wallet's e-mode category's when the reserve is in it. From v3.2 a reserve is
in a category when its bit is set in `getEModeCategoryCollateralBitmap` (the category's threshold:
`getEModeCategoryCollateralConfig`); up to v3.1 when the reserve's configuration names the
category (bits 168 to 175), whose threshold and price source come from `getEModeCategoryData`:
a category with a price source prices every asset in it by that source's price, collateral and
debt alike (GenericLogic, v3.0.2). A Pool is v3.2 or later when it answers the bitmap view.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from adapters.aave.contracts import (
    ASSET_PRICE,
    COLLATERAL_BITMAP,
    COLLATERAL_CONFIG,
    DEBT_CEILING,
    EMODE_BITS,
    EMODE_CATEGORY_DATA,
    LTVZERO_BITMAP,
    POOL_RESERVE_DATA,
)
from adapters.position_warnings import outcome
from chain import ChainReader, no_read
from chain.abi import ZERO_ADDRESS
from errors import ProtocolError


@dataclass(frozen=True)
class Rules:
    """What the Pool's decision depends on beyond the reserve itself, for one wallet."""

    v3_6: bool
    emode: int
    flagged: tuple[str, ...]
    """The reserves the wallet's collateral flag is set for."""
    ceilings: dict[str, int]
    """Their debt ceilings, where isolation mode can follow from them (two flagged reserves at most)."""
    emode_ltv: int = 0
    collateral_bitmap: int = 0
    ltvzero_bitmap: int = 0
    v3_2: bool = False
    emode_threshold: int = 0
    """The category's liquidation threshold (basis points), for the reserves in it."""
    emode_source: str | None = None
    """Up to v3.1, the category's price source (an asset key of the oracle), where it has one."""
    emode_price: int | None = None
    """Its price."""
    v2: bool = False
    """An Aave v2 Pool's rules (see the module)."""


@dataclass(frozen=True)
class Reserve:
    """The Pool's own record of a reserve a wallet in an e-mode supplies: its id (its bit in the
    category bitmaps) and its configuration word."""

    id: int
    configuration: int


async def rules(
    reader: ChainReader, pool: str, data_provider: str, oracle: str, emode: int, flagged: list[str], label: str
) -> Rules:
    """The wallet's rules: the Pool's version, its e-mode category's collateral terms and what
    isolation mode needs. One round: every version's e-mode reads are made before the version is
    known, each used only where it applies; a v3.0/3.1 category's price source is read after."""
    category = min(emode, 255)
    isolating = flagged if len(flagged) <= 2 else []
    probe, bitmap, config, legacy, *ceilings = await asyncio.gather(
        outcome(reader.call(pool, LTVZERO_BITMAP, category, label=label)),
        outcome(reader.call(pool, COLLATERAL_BITMAP, category, label=label)) if emode else no_read(),
        outcome(reader.call(pool, COLLATERAL_CONFIG, category, label=label)) if emode else no_read(),
        outcome(reader.call(pool, EMODE_CATEGORY_DATA, category, label=label)) if emode else no_read(),
        *(reader.call(data_provider, DEBT_CEILING, asset, label=f"{label} data provider") for asset in isolating),
    )
    v3_6 = not isinstance(probe, ProtocolError)
    ceiling_of = {a: c for a, (c,) in zip(isolating, ceilings)}
    if not emode:
        return Rules(v3_6, emode, tuple(flagged), ceiling_of)
    if not isinstance(bitmap, ProtocolError):
        if isinstance(config, ProtocolError):
            raise config
        (collateral_bitmap,) = bitmap
        (ltvzero_bitmap,) = (0,) if isinstance(probe, ProtocolError) else probe  # none before v3.6
        return Rules(
            v3_6,
            emode,
            tuple(flagged),
            ceiling_of,
            emode_ltv=config.ltv,
            collateral_bitmap=collateral_bitmap,
            ltvzero_bitmap=ltvzero_bitmap,
            v3_2=True,
            emode_threshold=config.liquidationThreshold,
        )
    if isinstance(legacy, ProtocolError):
        raise legacy
    (category,) = legacy
    price = None
    if category.priceSource != ZERO_ADDRESS:
        (price,) = await reader.call(oracle, ASSET_PRICE, category.priceSource, label=f"{label} oracle")
    return Rules(
        v3_6,
        emode,
        tuple(flagged),
        ceiling_of,
        emode_ltv=category.ltv,
        emode_threshold=category.liquidationThreshold,
        emode_source=None if price is None else category.priceSource,
        emode_price=price,
    )


async def v2_rules(flagged: list[str]) -> Rules:
    """An Aave v2 wallet's rules: only its flags count (no read)."""
    return Rules(v3_6=False, emode=0, flagged=tuple(flagged), ceilings={}, v2=True)


async def pool_reserve(reader: ChainReader, pool: str, asset: str, emode: int, label: str) -> Reserve | None:
    """The Pool's record of the reserve, read only for a wallet in an e-mode, in the same round as
    the rules (the fields are at the same places from v3.0 on)."""
    if not emode:
        return None
    record: Any = await reader.call(pool, POOL_RESERVE_DATA, asset, label=label)
    return Reserve(record.id, record.configuration)


def in_emode(rules: Rules, reserve: Reserve | None) -> bool:
    """Whether the reserve is in the wallet's e-mode category, as the Pool's version decides it."""
    if rules.v3_2:
        return reserve is not None and bool(rules.collateral_bitmap >> reserve.id & 1)
    return in_legacy_category(rules.emode, reserve)


def in_legacy_category(emode: int, reserve: Reserve | None) -> bool:
    """Whether the reserve's configuration names the wallet's e-mode category (how v3.0 and v3.1
    decide it; from v3.2 those bits are unused, and a category has no price source to apply)."""
    return bool(emode) and reserve is not None and reserve.configuration >> EMODE_BITS & 0xFF == emode


def threshold(rules: Rules, liquidation_threshold: int, reserve: Reserve | None) -> int:
    """The liquidation threshold (basis points) the Pool applies to this collateral."""
    return rules.emode_threshold if in_emode(rules, reserve) else liquidation_threshold


def decide(
    rules: Rules, asset: str, ltv: int, liquidation_threshold: int, debt_ceiling: int, reserve: Reserve | None
) -> tuple[bool, bool]:
    """(isCollateral, canBeCollateral) of one supply, as the Pool decides them (see the module).
    canBeCollateral is whether the Pool lets the wallet enable it, again if it is enabled now:
    judged against the wallet's other collateral."""
    if rules.v2:
        return asset in rules.flagged and liquidation_threshold != 0, liquidation_threshold != 0
    is_collateral = asset in rules.flagged and (rules.v3_6 or liquidation_threshold != 0)
    wallet_ltv = ltv
    if rules.v3_6 and reserve is not None and in_emode(rules, reserve):
        wallet_ltv = 0 if rules.ltvzero_bitmap >> reserve.id & 1 else rules.emode_ltv
    others = [other for other in rules.flagged if other != asset]
    isolated = len(others) == 1 and rules.ceilings[others[0]] != 0
    return is_collateral, wallet_ltv != 0 and (not others or (not isolated and debt_ceiling == 0))
