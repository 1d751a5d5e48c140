"""Euler's `poolDetails`: one EVK vault by its address, with the figures a position in it shows.

- A vault if the eVault factory says it made it (`isProxy(address)` at the block).
- Totals: `totalAssets()`, `cash()`, `totalBorrows()` (accrued to the block by the vault itself);
  APYs as for positions (contracts.apys); `interestFee()` / 1e4.
- Collaterals: `LTVList()`, each with `LTVBorrow` and `LTVLiquidation` / 1e4 (a collateral whose
  LTVs are 0 is one the vault no longer accepts).
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.context import FetchContext
from adapters.euler.contracts import (
    CASH,
    CONFIG_SCALE,
    INTEREST_FEE,
    INTEREST_RATE,
    IS_PROXY,
    LTV_BORROW,
    LTV_LIQUIDATION,
    LTV_LIST,
    ORACLE,
    TOTAL_BORROWS,
    UNIT_OF_ACCOUNT,
    apy_figures,
)
from adapters.euler.section import EulerAddresses
from adapters.factories import vouched_kind
from adapters.prices import warned_usd_price
from chain import erc20, erc4626, first
from errors import InputValidationError


async def details(ctx: FetchContext[EulerAddresses], pool: str) -> dict[str, Any]:
    euler = ctx.section
    reader = ctx.reader()
    block = await reader.block_number()
    if await vouched_kind(reader, [(euler.factory.address, IS_PROXY, "vault")], pool) is None:
        raise InputValidationError(
            f"{pool} is not an Euler vault on chain {ctx.chain_id} at block {block}: the eVault factory did "
            "not make it. Expected an EVK vault address."
        )
    label = f"Euler vault {pool}"
    calls = (
        erc4626.ASSET,
        erc4626.TOTAL_ASSETS,
        CASH,
        TOTAL_BORROWS,
        INTEREST_RATE,
        INTEREST_FEE,
        ORACLE,
        UNIT_OF_ACCOUNT,
    )
    asset, total, cash, borrows, rate, fee, oracle, unit = await asyncio.gather(
        *(first(reader.call(pool, function, label=label)) for function in calls)
    )
    (listed,) = await reader.call(pool, LTV_LIST, label=label)
    token, vault_token, price, ltvs = await asyncio.gather(
        erc20.token_info(reader, asset),
        erc20.token_info(reader, pool),
        warned_usd_price(reader, ctx.chain, str(asset), ctx.warnings),
        asyncio.gather(
            *(
                asyncio.gather(
                    first(reader.call(pool, LTV_BORROW, collateral, label=label)),
                    first(reader.call(pool, LTV_LIQUIDATION, collateral, label=label)),
                )
                for collateral in listed
            )
        ),
    )
    supply_apy, borrow_apy = apy_figures(rate, cash, borrows, fee, ctx.warnings, pool)
    return {
        "details": {
            "__typename": "EulerVaultPool",
            "type": "euler-vault-pool",
            "vaultAddress": pool,
            "chainId": ctx.chain_id,
            "vaultName": vault_token["name"],
            "vaultSymbol": vault_token["symbol"],
            "asset": token,
            "totalAssets": str(total),
            "totalAssetsUsd": price.value(total, token["decimals"]) if price else None,
            "cash": str(cash),
            "totalBorrows": str(borrows),
            "supplyApy": supply_apy,
            "borrowApy": borrow_apy,
            "interestFee": fee / CONFIG_SCALE,
            "oracle": str(oracle).lower(),
            "unitOfAccount": str(unit).lower(),
            "collateralVaults": [
                {"vaultAddress": str(c).lower(), "borrowLtv": b / CONFIG_SCALE, "liquidationLtv": q / CONFIG_SCALE}
                for c, (b, q) in zip(listed, ltvs)
            ],
        }
    }
