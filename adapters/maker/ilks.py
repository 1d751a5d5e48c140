"""A collateral type's (ilk's) figures as a vault and the ilk's pool both show them: the Vat's, the
Spotter's and the Jug's, its token and oracle, its price and fee; and the USDS the staking engine's
urns draw (positions.py and pools.py read them alike)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from adapters.fixed_point import RAY, rpow
from adapters.maker.contracts import (
    ENGINE_USDS,
    ILK_GEM,
    JUG_ILKS,
    SPOT_ILKS,
    VAT_ILKS,
    ZZZ,
    Core,
    ilk_name,
)
from adapters.position_warnings import Warnings, outcome
from chain import ChainReader, erc20, first
from errors import ProtocolError

YEAR = 365 * 24 * 3600
"""Maker quotes its rates per second and its fees per 365-day year."""


async def usds_token(reader: ChainReader, contracts: Core) -> dict[str, Any] | None:
    assert contracts.engine is not None
    return await erc20.token_info(
        reader, await first(reader.call(contracts.engine, ENGINE_USDS, label="Sky LockstakeEngine"))
    )


@dataclass(frozen=True)
class Ilk:
    art: int
    rate: int
    spot: int
    line: int
    dust: int
    mat: int
    duty: int
    rho: int
    pip: str
    updated: int | None
    token: dict[str, Any] | None


async def ilk_facts(reader: ChainReader, contracts: Core, ilk: bytes, warnings: Warnings) -> Ilk:
    """A collateral type's figures: the Vat's Art, rate, spot, line and dust, the Spotter's pip and
    mat, the Jug's duty and rho, its token (IlkRegistry's gem) and its OSM's last update."""
    name = ilk_name(ilk)
    vat, (pip, mat), (duty, rho), gem = await asyncio.gather(
        reader.call(contracts.vat, VAT_ILKS, ilk, label="Maker Vat"),
        reader.call(contracts.spot, SPOT_ILKS, ilk, label="Maker Spotter"),
        reader.call(contracts.jug, JUG_ILKS, ilk, label="Maker Jug"),
        outcome(first(reader.call(contracts.ilk_registry, ILK_GEM, ilk, label="Maker IlkRegistry"))),
    )
    if isinstance(gem, str) and not int(gem, 16):
        gem = ProtocolError(f"the IlkRegistry names no token for {name}")
    token = warnings.value(
        gem if isinstance(gem, ProtocolError) else await outcome(erc20.token_info(reader, gem)),
        name,
        "collateralAsset is",
    )
    updated = await outcome(first(reader.call(pip, ZZZ, label=f"Maker {name} oracle"))) if int(pip, 16) else None
    return Ilk(
        vat.Art,
        vat.rate,
        vat.spot,
        vat.line,
        vat.dust,
        mat,
        duty,
        rho,
        str(pip).lower(),
        None if isinstance(updated, ProtocolError) else updated,
        token,
    )


def spot_price(ilk: Ilk, par: int) -> Fraction | None:
    """USD per whole collateral unit by the Spotter: spot x mat x par / 1e81 (None before its mat is set)."""
    return Fraction(ilk.spot * ilk.mat * par, RAY**3) if ilk.mat else None


def fee_apy(ilk: Ilk, base: int) -> float:
    """The stability fee a year: ((base + duty) / 1e27)^31,536,000 - 1."""
    return float(Fraction(rpow(base + ilk.duty, YEAR), RAY) - 1)
