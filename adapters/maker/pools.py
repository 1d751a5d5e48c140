"""Maker's `poolDetails`: one collateral type (ilk) by its bytes32 name, with the figures its
vaults show (positions.py reads them the same way, every contract the ChainLog's at the block).

- Known: an ilk the Vat has initialised (`Vat.ilks(ilk).rate` nonzero).
- `totalNormalizedDebt` = Art; `totalDebt` = Art x rate' / 1e27 rounded up, rate' as Jug.drip
  would set it at the block's time; `debtCeiling` = line / 1e27 and `dust` = dust / 1e27 (rad to
  wad); in USD at the Spotter's par.
- `stabilityFeeApy`, `liquidationRatio` and `priceUsd` as for a vault; the oracle is the ilk's pip,
  its last update its `zzz()` where it has one.
"""

from __future__ import annotations

import asyncio
from fractions import Fraction
from typing import Any

from adapters.context import FetchContext
from adapters.fixed_point import RAY
from adapters.maker.contracts import BASE, ENGINE_ILK, PAR, WAD, Core, core, dripped, ilk_name
from adapters.maker.ilks import fee_apy, ilk_facts, spot_price, usds_token
from adapters.maker.section import MakerAddresses
from adapters.risk import oracle_info
from chain import ChainReader, erc20, first
from errors import InputValidationError


async def details(ctx: FetchContext[MakerAddresses], pool: str) -> dict[str, Any]:
    if len(pool) != 66:
        raise InputValidationError(
            f"{pool} is not an ilk: Maker names its pools (collateral types) by their bytes32 name, "
            "e.g. ETH-A is 0x4554482d41 followed by 54 zeros."
        )
    maker, reader = ctx.section, ctx.reader()
    log = maker.chain_log
    contracts = await reader.shared(("maker core", log.address), lambda: core(reader, log.address))
    ilk = bytes.fromhex(pool[2:])
    name = ilk_name(ilk)
    facts, par, base, now, debt_token = await asyncio.gather(
        ilk_facts(reader, contracts, ilk, ctx.warnings),
        first(reader.call(contracts.spot, PAR, label="Maker Spotter")),
        first(reader.call(contracts.jug, BASE, label="Maker Jug")),
        reader.block_timestamp(),
        _debt_token(reader, contracts, ilk),
    )
    if not facts.rate:
        raise InputValidationError(
            f"{pool} ({name!r}) is not an ilk of Maker's Vat on chain {ctx.chain_id} at block "
            f"{await reader.block_number()}. Expected a collateral type's bytes32 name, e.g. ETH-A's."
        )
    rate = dripped(facts.rate, facts.duty, base, facts.rho, now)
    owed = -(-facts.art * rate // RAY)
    usd_per_dai = Fraction(par, RAY)
    price = spot_price(facts, par)
    return {
        "details": {
            "__typename": "MakerIlkPool",
            "type": "maker-ilk-pool",
            "ilk": name,
            "ilkId": pool,
            "chainId": ctx.chain_id,
            "collateralAsset": facts.token,
            "debtAsset": debt_token,
            "totalNormalizedDebt": str(facts.art),
            "rate": str(rate),
            "totalDebt": str(owed),
            "totalDebtUsd": float(Fraction(owed, WAD) * usd_per_dai),
            "debtCeiling": str(facts.line // RAY),
            "dust": str(facts.dust // RAY),
            "stabilityFeeApy": fee_apy(facts, base),
            "liquidationRatio": float(Fraction(facts.mat, RAY)),
            "priceUsd": float(price) if price is not None else None,
            "priceOracle": oracle_info(facts.pip, facts.updated, now),
        }
    }


async def _debt_token(reader: ChainReader, contracts: Core, ilk: bytes) -> dict[str, Any] | None:
    """What the ilk's vaults owe: USDS for the staking engine's ilk, DAI for every other."""
    if contracts.engine is not None:
        staked = await first(reader.call(contracts.engine, ENGINE_ILK, label="Sky LockstakeEngine"))
        if staked == ilk:
            return await usds_token(reader, contracts)
    return await erc20.token_info(reader, contracts.dai)
