"""Compound v2: an account's cToken supplies and borrows, its risk and the COMP it is owed, read by
Venus's package (adapters/venus: Venus's core pool is this Comptroller's fork, and its reads and
formulas are these, named venus* where Compound's are comp*). What differs is named there by the
pool's kind (adapters/venus/listing.py, COMPOUND_V2):

- `markets(cToken)` has three fields: isListed, the collateral factor, isComped; the collateral
  factor is also where the Comptroller's `getAccountLiquidity` starts a shortfall, so it is the
  liquidation threshold too;
- COMP is paid by the Comptroller (compAccrued, compSupplyState ...), its initial index
  `compInitialIndex()`, priced by the oracle's price of the market whose underlying it is (the
  oracle prices cTokens only);
- the APYs compound the per-block rates over the chain's blocks a year, declared in the
  addresses data (`blocksPerYear`), not the rate models' 2,102,400;
- a cToken without `underlying()` (cETH) holds the chain's coin.

One CompoundV2Lens call reads them all (lenses/).
"""

from __future__ import annotations

from typing import Any

from adapters.compound_v2.section import CompoundV2Addresses
from adapters.context import FetchContext
from adapters.deployment import require
from adapters.venus.contracts import COMPOUND_LENS
from adapters.venus.listing import COMPOUND_V2, ListedPool
from adapters.venus.pools import pool_details
from adapters.venus.positions import account

NAME = "Compound v2"


def _pool(v2: CompoundV2Addresses) -> ListedPool:
    return ListedPool(NAME, v2.comptroller.lower(), COMPOUND_V2, v2.blocks_per_year)


async def details(ctx: FetchContext[CompoundV2Addresses], address: str) -> dict[str, Any]:
    """`poolDetails` of the Comptroller (every market) or one cToken (adapters/venus/pools.py)."""
    await require(ctx.reader(), NAME, ctx.section.comptroller, "Comptroller")
    return await pool_details(ctx, [_pool(ctx.section)], address)


async def fetch(ctx: FetchContext[CompoundV2Addresses], wallet: str) -> dict[str, Any]:
    v2, reader = ctx.section, ctx.reader()
    reader.prefetch([COMPOUND_LENS.initcode(wallet, v2.comptroller)], [v2.comptroller])
    await require(reader, NAME, v2.comptroller, "Comptroller")
    found = await account(ctx, _pool(v2), wallet)
    return {
        "accountState": found.state,
        "supplyPositions": found.supplies,
        "borrowPositions": found.borrows,
        "rewardPositions": found.claims,
    }
