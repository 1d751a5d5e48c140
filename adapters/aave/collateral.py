"""Whether an Aave v3 supply is the wallet's collateral, and whether it can be, as the Pool decides.

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
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import cast

from adapters.position_warnings import outcome
from chain import ChainReader, no_read
from chain.abi import Function
from errors import ProtocolError

LTVZERO_BITMAP = Function("getEModeCategoryLtvzeroBitmap(uint8)", "fd89dee5", ("uint128",))
COLLATERAL_BITMAP = Function("getEModeCategoryCollateralBitmap(uint8)", "b0771dba", ("uint128",))
COLLATERAL_CONFIG = Function("getEModeCategoryCollateralConfig(uint8)", "b286f467", ("uint16",) * 3)
POOL_RESERVE_DATA = Function(
    "getReserveData(address)",
    "35ea6a75",
    ("uint256",) + ("uint128",) * 5 + ("uint40", "uint16") + ("address",) * 4 + ("uint128",) * 3,
)
"""The Pool's ReserveDataLegacy (same selector as the data provider's getReserveData, another layout)."""
DEBT_CEILING = Function("getDebtCeiling(address)", "3c798109", ("uint256",))


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


async def rules(
    reader: ChainReader, pool: str, data_provider: str, emode: int, flagged: list[str], label: str
) -> Rules:
    """The wallet's rules: the Pool's version, its e-mode category's collateral terms (v3.6 and
    later) and what isolation mode needs. One round: the e-mode reads are made before the
    version is known (they exist from v3.2) and used only from v3.6."""
    category = min(emode, 255)
    isolating = flagged if len(flagged) <= 2 else []
    probe, bitmap, config, *ceilings = await asyncio.gather(
        outcome(reader.call(pool, LTVZERO_BITMAP, category, label=label)),
        outcome(reader.call(pool, COLLATERAL_BITMAP, category, label=label)) if emode else no_read(),
        outcome(reader.call(pool, COLLATERAL_CONFIG, category, label=label)) if emode else no_read(),
        *(reader.call(data_provider, DEBT_CEILING, asset, label=f"{label} data provider") for asset in isolating),
    )
    v3_6 = not isinstance(probe, ProtocolError)
    ceiling_of = {a: c for a, (c,) in zip(isolating, ceilings)}
    if not (v3_6 and emode):
        return Rules(v3_6, emode, tuple(flagged), ceiling_of)
    for answer in (bitmap, config):
        if isinstance(answer, ProtocolError):
            raise answer
    return Rules(
        True,
        emode,
        tuple(flagged),
        ceiling_of,
        emode_ltv=config[0],
        collateral_bitmap=bitmap[0],
        ltvzero_bitmap=probe[0],
    )


async def reserve_id(reader: ChainReader, pool: str, asset: str, emode: int, label: str) -> int | None:
    """The reserve's id (its bit in e-mode bitmaps), read only for a wallet in an e-mode, in the
    same round as the rules (the field is at the same place from v3.0 on)."""
    if not emode:
        return None
    return cast(int, (await reader.call(pool, POOL_RESERVE_DATA, asset, label=label))[7])


def decide(
    rules: Rules, asset: str, ltv: int, liquidation_threshold: int, debt_ceiling: int, reserve: int | None
) -> tuple[bool, bool]:
    """(isCollateral, canBeCollateral) of one supply, as the Pool decides them (see the module).
    canBeCollateral is whether the Pool lets the wallet enable it, again if it is enabled now:
    judged against the wallet's other collateral."""
    is_collateral = asset in rules.flagged and (rules.v3_6 or liquidation_threshold != 0)
    wallet_ltv = ltv
    if rules.v3_6 and rules.emode and reserve is not None and rules.collateral_bitmap >> reserve & 1:
        wallet_ltv = 0 if rules.ltvzero_bitmap >> reserve & 1 else rules.emode_ltv
    others = [other for other in rules.flagged if other != asset]
    isolated = len(others) == 1 and rules.ceilings[others[0]] != 0
    return is_collateral, wallet_ltv != 0 and (not others or (not isolated and debt_ceiling == 0))
