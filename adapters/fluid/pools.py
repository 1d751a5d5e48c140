"""Fluid's `poolDetails`: an fToken (lending) or a vault by its address, from the same resolvers
and with the same figures as the wallet query (positions.py).

- The kind: the address is among `LendingResolver.getAllFTokens()` (an fToken) or
  `VaultResolver.getAllVaultsAddresses()` (a vault) at the block.
- fToken: `getFTokenDetails(fToken)`: its token, asset, rates (as a lending position's), total
  assets (the underlying it holds, with USD) and total supply (shares).
- Vault: `getVaultEntireData(vault)`: its sides as a vault position gives them, holding the
  vault's totals (`totalSupplyVault`, `totalBorrowVault`: tokens on a normal side, DEX shares on
  a smart side); the liquidation settings from its configs (/ 1e4); its oracle and the operate
  and liquidate prices (raw, 1e27); what can be withdrawn and borrowed now (`withdrawable`,
  `borrowable` of its limits, in each side's unit).
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.context import FetchContext
from adapters.deployment import require
from adapters.fluid.positions import (
    CONFIGS,
    LENDING_DETAILS,
    ORACLE,
    ORACLE_PRICE_LIQUIDATE,
    ORACLE_PRICE_OPERATE,
    RATE_SCALE,
    VAULT_ENTIRE_DATA,
    FluidReader,
    ftoken_fields,
    vault_sides,
)
from chain.abi import Function
from errors import InputValidationError

GET_ALL_FTOKENS = Function("getAllFTokens()", "4af955c8", ("address[]",))
GET_ALL_VAULTS = Function("getAllVaultsAddresses()", "a8d9f493", ("address[]",))
GET_FTOKEN_DETAILS = Function("getFTokenDetails(address)", "d7a6fdb0", (LENDING_DETAILS,))
GET_VAULT_ENTIRE_DATA = Function("getVaultEntireData(address)", "09c062e2", (VAULT_ENTIRE_DATA,))
TOTALS, LIMITS = 6, 7
LIQUIDATION_MAX_LIMIT, LIQUIDATION_PENALTY, BORROW_FEE = 4, 6, 7


async def details(ctx: FetchContext, pool: str) -> dict[str, Any]:
    chain_id, chain = ctx.chain_id, ctx.chain
    deployment = chain.fluid
    assert deployment is not None
    reader = ctx.reader()
    await asyncio.gather(
        require(reader, "fluid", deployment.lending_resolver, "LendingResolver"),
        require(reader, "fluid", deployment.vault_resolver, "VaultResolver"),
    )
    block, (ftokens,), (vaults,) = await asyncio.gather(
        reader.block_number(),
        reader.call(deployment.lending_resolver, GET_ALL_FTOKENS, label="Fluid LendingResolver"),
        reader.call(deployment.vault_resolver, GET_ALL_VAULTS, label="Fluid VaultResolver"),
    )
    fluid = FluidReader(reader, chain, ctx.warnings)
    if pool in {address.lower() for address in ftokens}:
        (found,) = await reader.call(
            deployment.lending_resolver, GET_FTOKEN_DETAILS, pool, label="Fluid LendingResolver"
        )
        return {"details": await _lending(fluid, found)}
    if pool in {address.lower() for address in vaults}:
        (found,) = await reader.call(
            deployment.vault_resolver, GET_VAULT_ENTIRE_DATA, pool, label="Fluid VaultResolver"
        )
        return {"details": await _vault(fluid, found)}
    raise InputValidationError(
        f"{pool} is not a Fluid fToken or vault on chain {chain_id} at block {block}: "
        "expected an address the LendingResolver or VaultResolver lists."
    )


async def _lending(fluid: FluidReader, found: tuple[Any, ...]) -> dict[str, Any]:
    fields, underlying, price = await ftoken_fields(fluid, found)
    total_assets, total_supply = found[7], found[8]
    return {
        "__typename": "FluidLendingPool",
        "type": "fluid-lending-pool",
        **fields,
        "chainId": fluid.reader.chain_id,
        "totalAssets": str(total_assets),
        "totalAssetsUsd": price.value(total_assets, underlying["decimals"]) if price and underlying else None,
        "totalSupply": str(total_supply),
    }


async def _vault(fluid: FluidReader, found: tuple[Any, ...]) -> dict[str, Any]:
    configs, totals, limits = found[CONFIGS], found[TOTALS], found[LIMITS]
    return {
        "__typename": "FluidVaultPool",
        "type": "fluid-vault-pool",
        "vaultAddress": found[0].lower(),
        "chainId": fluid.reader.chain_id,
        **await vault_sides(fluid, found, totals[0], totals[1]),
        "liquidationMaxLimit": configs[LIQUIDATION_MAX_LIMIT] / RATE_SCALE,
        "liquidationPenalty": configs[LIQUIDATION_PENALTY] / RATE_SCALE,
        "borrowFee": configs[BORROW_FEE] / RATE_SCALE,
        "oracle": configs[ORACLE].lower(),
        "oraclePriceOperate": str(configs[ORACLE_PRICE_OPERATE]),
        "oraclePriceLiquidate": str(configs[ORACLE_PRICE_LIQUIDATE]),
        "withdrawable": str(limits[2]),
        "borrowable": str(limits[5]),
    }
