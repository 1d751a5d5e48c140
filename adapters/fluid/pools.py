"""Fluid's `poolDetails`: an fToken (lending) or a vault by its address, from the same resolvers
and with the same figures as the wallet query (figures.py).

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
from adapters.fluid.contracts import (
    GET_ALL_FTOKENS,
    GET_ALL_VAULTS,
    GET_FTOKEN_DETAILS,
    GET_VAULT_ENTIRE_DATA,
    RATE_SCALE,
)
from adapters.fluid.figures import FluidReader, ftoken_fields, vault_sides
from adapters.fluid.section import FluidAddresses
from errors import InputValidationError


async def details(ctx: FetchContext[FluidAddresses], pool: str) -> dict[str, Any]:
    chain_id, chain = ctx.chain_id, ctx.chain
    deployment = ctx.section
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


async def _lending(fluid: FluidReader, found: Any) -> dict[str, Any]:
    """An fToken from its FTokenDetails."""
    fields, underlying, price = await ftoken_fields(fluid, found)
    total_assets, total_supply = found.totalAssets, found.totalSupply
    return {
        "__typename": "FluidLendingPool",
        "type": "fluid-lending-pool",
        **fields,
        "chainId": fluid.reader.chain_id,
        "totalAssets": str(total_assets),
        "totalAssetsUsd": price.value(total_assets, underlying["decimals"]) if price and underlying else None,
        "totalSupply": str(total_supply),
    }


async def _vault(fluid: FluidReader, found: Any) -> dict[str, Any]:
    """A vault from its VaultEntireData: its sides hold the vault's totals."""
    configs, totals, limits = found.configs, found.totalSupplyAndBorrow, found.limitsAndAvailability
    return {
        "__typename": "FluidVaultPool",
        "type": "fluid-vault-pool",
        "vaultAddress": found.vault.lower(),
        "chainId": fluid.reader.chain_id,
        **await vault_sides(fluid, found, totals.totalSupplyVault, totals.totalBorrowVault),
        "liquidationMaxLimit": configs.liquidationMaxLimit / RATE_SCALE,
        "liquidationPenalty": configs.liquidationPenalty / RATE_SCALE,
        "borrowFee": configs.borrowFee / RATE_SCALE,
        "oracle": configs.oracle.lower(),
        "oraclePriceOperate": str(configs.oraclePriceOperate),
        "oraclePriceLiquidate": str(configs.oraclePriceLiquidate),
        "withdrawable": str(limits.withdrawable),
        "borrowable": str(limits.borrowable),
    }
