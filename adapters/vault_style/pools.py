"""A vault-style protocol's `poolDetails`: one of the vaults or priced tokens its section lists, by
address, with the figures its positions show (positions.py reads them the same way).

- A share vault (`ShareVaultPool`): `totalAssets()`, `totalSupply()`, the exchange rate
  (`convertToAssets(10^shareDecimals)` / 10^assetDecimals), the APY as for positions (its savings
  rate where it holds one, else the rate's growth over the period); totalAssetsUsd = totalAssets x
  the asset's feed. ERC-4626 has no fee view: what a vault charges is already out of its rate.
- A priced token (`PricedTokenPool`): `totalSupply()`, the issuer feed's price, its currency and
  age, the APY of that price over the period; totalSupplyUsd = totalSupply x price x the
  currency's USD.
"""

from __future__ import annotations

import asyncio
from fractions import Fraction
from typing import Any

from adapters.context import FetchContext
from adapters.deployment import require
from adapters.vault_style.figures import token_facts, token_usd, vault_facts, vault_prices
from adapters.vault_style.section import PricedToken, ShareVault, VaultStyleAddresses
from chain import first
from chain.erc20 import TOTAL_SUPPLY
from errors import InputValidationError


async def details(ctx: FetchContext[VaultStyleAddresses], pool: str) -> dict[str, Any]:
    listed = ctx.section
    vault = next((vault for vault in listed.vaults if vault.address == pool), None)
    token = next((token for token in listed.tokens if token.token == pool), None)
    if vault is None and token is None:
        known = [vault.address for vault in listed.vaults] + [token.token for token in listed.tokens]
        raise InputValidationError(
            f"{pool} is none of {ctx.protocol}'s vaults and tokens on chain {ctx.chain_id}. "
            f"Expected one of: {', '.join(known)}."
        )
    await require(ctx.reader(), ctx.protocol, pool, "vault" if vault else "token")
    if vault is not None:
        return {"details": await _vault(ctx, vault)}
    assert token is not None
    return {"details": await _token(ctx, token)}


async def _vault(ctx: FetchContext[VaultStyleAddresses], vault: ShareVault) -> dict[str, Any]:
    reader, warnings = ctx.reader(), ctx.warnings
    share_token, asset, per_share, total_assets, total_supply = await vault_facts(reader, vault.address)
    price, apy = await vault_prices(reader, ctx.chain, ctx.section.apy_period, vault, share_token, asset, warnings)
    return {
        "__typename": "ShareVaultPool",
        "type": "share-vault-pool",
        "kind": vault.kind,
        "vaultAddress": vault.address,
        "chainId": ctx.chain_id,
        "vaultToken": share_token,
        "underlyingAsset": asset,
        "totalAssets": str(total_assets),
        "totalAssetsUsd": price.value(total_assets, asset["decimals"]) if price else None,
        "totalSupply": str(total_supply),
        "exchangeRate": float(Fraction(per_share, 10 ** asset["decimals"])),
        "apy": apy,
    }


async def _token(ctx: FetchContext[VaultStyleAddresses], priced: PricedToken) -> dict[str, Any]:
    reader = ctx.reader()
    supply, (info, price, unit, apy) = await asyncio.gather(
        first(reader.call(priced.token, TOTAL_SUPPLY, label=f"token {priced.token}")),
        token_facts(reader, ctx.chain, ctx.section.apy_period, priced, ctx.warnings, "totalSupplyUsd"),
    )
    return {
        "__typename": "PricedTokenPool",
        "type": "priced-token-pool",
        "kind": priced.kind,
        "tokenAddress": priced.token,
        "chainId": ctx.chain_id,
        "token": info,
        "totalSupply": str(supply),
        "totalSupplyUsd": token_usd(supply, info, price, unit),
        "apy": apy,
        "tokenPrice": float(Fraction(price.answer, 10**price.decimals)) if price else None,
        "oracleCurrency": priced.currency,
        "oracleAddress": priced.feed.feed,
        "oracleUpdatedAt": str(price.updated_at) if price else None,
    }
