"""Vault-style protocols (Neutrl, Midas, Avantis, Avant, Ethena, Sky, any ERC-4626 vault): positions
that are ERC-4626 shares, or tokens priced by their issuer's own feed. Each protocol is a section
of the addresses data (its vaults and tokens per chain), so the next one is a data entry, a schema
type and a registry line.

How each figure is derived (all at the request's pinned block; docs/protocols/vault-style.md has the long form):

- Share vaults: balance = `balanceOf(wallet)` (shares); assets = `convertToAssets(balance)`;
  exchange rate = `convertToAssets(10^shareDecimals)` / 10^assetDecimals, the assets of one whole
  share; totals = `totalAssets()` and `totalSupply()`. An Ethena-style vault (sNUSD, savUSD) keeps
  what the wallet unstaked in `cooldowns(wallet)` (amount in the asset, claimable from
  `cooldownEnd`): listed as the position's cooldown, and a wallet with only a cooldown has a
  position. USD = assets x the asset's feed (adapters/prices/): null where the data names no feed.
- Priced tokens: balance = `balanceOf(wallet)`; oracle price = the issuer feed's
  `latestRoundData()` answer / 10^`decimals()`, in the feed's currency, refused when older than
  the feed's heartbeat; USD = balance x oracle price x the currency's USD feed (1 for USD).
- APY: the growth of that exchange rate or oracle price over the protocol's period (7 days),
  read by the same view at the block one period back and compounded to a year (adapters/history.py);
  for a vault that holds its own savings rate (Sky: sUSDS' `ssr()`, sDAI's Pot `dsr()`; Spark
  Vaults V2: `vsr()`; per-second factors in ray), that rate at the block compounded over a year:
  (rate / 1e27)^31,536,000 - 1.

All reads at the pinned block go out at once in VaultStyleLens (lenses/, chain/lens.py), which
makes the same calls in the same dependent order and returns their raw answers.
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import replace
from fractions import Fraction
from typing import Any

from adapters import history
from adapters.accounts.probes import Probe
from adapters.accounts.probes import balances as balance_probes
from adapters.context import FetchContext
from adapters.deployment import before, existing
from adapters.legs import CLAIMABLE, REQUESTED, SUPPLIED, VAULT, feed_of, leg
from adapters.legs import position as legs_position
from adapters.position_warnings import Warnings, outcome
from adapters.prices import lens_market, token_feeds
from adapters.sweep import balances
from adapters.vault_style.figures import (
    assets_of,
    feed_answer,
    per_share,
    token_facts,
    token_usd,
    vault_facts,
    vault_prices,
)
from adapters.vault_style.section import PricedToken, ShareVault, VaultStyleAddresses
from addresses import ChainAddresses
from chain import ChainReader, erc20, no_read
from chain.abi import Function
from chain.lens import NONE, Lens
from errors import ProtocolError

COOLDOWNS = Function("cooldowns(address)", "01320fe2", ("uint104 cooldownEnd", "uint152 underlyingAmount"))
"""Ethena's StakedUSDeV2 layout."""
COOLDOWN_FLAG, SSR_FLAG, DSR_FLAG, VSR_FLAG = 1, 2, 4, 8
"""The lens's flags per vault: what else it reads of it."""
LENS = Lens(
    "VaultStyleLens",
    ("address", "address[]", "uint8[]", *("address[]",) * 6, "address"),
)


def probes(section: VaultStyleAddresses) -> tuple[Probe, ...]:
    """What an account must hold to be shown anything: shares, tokens, or a cooldown."""
    held = balance_probes(*(vault.address for vault in section.vaults), *(token.token for token in section.tokens))
    return (*held, *(Probe(vault.address, COOLDOWNS) for vault in section.vaults if vault.cooldown))


async def fetch(ctx: FetchContext[VaultStyleAddresses], wallet: str) -> dict[str, Any]:
    return await positions(ctx, wallet, ctx.protocol, ctx.section)


async def positions(ctx: FetchContext[Any], wallet: str, protocol: str, listed: VaultStyleAddresses) -> dict[str, Any]:
    """The wallet's shares and tokens of a vault-style section of the input's chain (`listed`:
    the input's own protocol's, or Spark's savings vaults beside SparkLend)."""
    chain = ctx.chain
    reader = ctx.reader()
    _prefetch(reader, chain, listed, wallet)
    section = await _existing(reader, protocol, listed)
    vaults, tokens = await asyncio.gather(
        _vault_positions(reader, chain, section, wallet, ctx.warnings),
        _token_positions(reader, chain, section, wallet, ctx.warnings),
    )
    return {"vaultPositions": vaults, "tokenPositions": tokens}


def _prefetch(reader: ChainReader, chain: ChainAddresses, section: VaultStyleAddresses, wallet: str) -> None:
    """The section's reads for `wallet` in one lens call, with the feeds the data names."""
    currency_feeds = [chain.currency_feeds.get(token.currency) for token in section.tokens]
    feeds = [NONE if feed is None else feed.feed for feed in currency_feeds]
    sequencer = chain.sequencer_uptime_feed or NONE
    priced = token_feeds(chain)
    asset_feeds = [feed.feed for feed in priced.values()]
    initcode = LENS.initcode(
        wallet,
        [vault.address for vault in section.vaults],
        [_flags(vault) for vault in section.vaults],
        [token.token for token in section.tokens],
        [token.feed.feed for token in section.tokens],
        feeds,
        list(priced),
        asset_feeds,
        lens_market(chain),
        sequencer,
    )
    targets = [vault.address for vault in section.vaults] + [token.token for token in section.tokens]
    reader.prefetch(
        [initcode], [*targets, *(token.feed.feed for token in section.tokens), *feeds, *asset_feeds, sequencer]
    )
    for vault in section.vaults:
        if vault.rate is None:
            history.read_ahead(reader, section.apy_period, functools.partial(per_share, reader, vault.address))
    for token in section.tokens:
        history.read_ahead(reader, section.apy_period, functools.partial(feed_answer, feed=token.feed.feed))


def _flags(vault: ShareVault) -> int:
    return (
        (COOLDOWN_FLAG if vault.cooldown else 0)
        | (SSR_FLAG if vault.rate == "ssr" else 0)
        | (DSR_FLAG if vault.rate == "dsr" else 0)
        | (VSR_FLAG if vault.rate == "vsr" else 0)
    )


async def _existing(reader: ChainReader, protocol: str, section: VaultStyleAddresses) -> VaultStyleAddresses:
    """The section's vaults and tokens deployed by the reader's block; none: before the protocol."""
    vaults, tokens = await asyncio.gather(
        existing(reader, section.vaults, lambda vault: vault.address),
        existing(reader, section.tokens, lambda token: token.token),
    )
    if (section.vaults or section.tokens) and not vaults and not tokens:
        raise before(
            protocol, reader.chain_id, await reader.block_number(), "none of its vaults and tokens has code then"
        )
    return replace(section, vaults=tuple(vaults), tokens=tuple(tokens))


# ---------------------------------------------------------------- share vaults


async def _vault_positions(
    reader: ChainReader, chain: ChainAddresses, section: VaultStyleAddresses, wallet: str, warnings: Warnings
) -> list[dict[str, Any]]:
    reads = await asyncio.gather(
        *(_holding(reader, vault, wallet, warnings) for vault in section.vaults), return_exceptions=True
    )
    holdings = warnings.survivors("vault", zip((vault.address for vault in section.vaults), reads))
    return list(
        await asyncio.gather(
            *(
                _vault_position(reader, chain, section.apy_period, vault, shares, cooldown, warnings)
                for vault, shares, cooldown in holdings
                if shares or cooldown
            )
        )
    )


async def _holding(
    reader: ChainReader, vault: ShareVault, wallet: str, warnings: Warnings
) -> tuple[ShareVault, int, tuple[int, int] | None]:
    """The wallet's shares and its cooldown (end, amount) where it has one."""
    label = f"vault {vault.address}"
    (shares,), cooldown = await asyncio.gather(
        reader.call(vault.address, erc20.BALANCE_OF, wallet, label=label),
        outcome(reader.call(vault.address, COOLDOWNS, wallet, label=label)) if vault.cooldown else no_read(),
    )
    if isinstance(cooldown, ProtocolError):
        warnings.left_out("the cooldown (assets unstaked, waiting to be claimed) in vault", vault.address, cooldown)
        cooldown = None
    return vault, shares, cooldown if cooldown and cooldown.underlyingAmount else None


async def _vault_position(
    reader: ChainReader,
    chain: ChainAddresses,
    period: int,
    vault: ShareVault,
    shares: int,
    cooldown: tuple[int, int] | None,
    warnings: Warnings,
) -> dict[str, Any]:
    target = vault.address
    facts, now = await asyncio.gather(
        warnings.optional(
            asyncio.gather(vault_facts(reader, target), assets_of(reader, target, shares)),
            target,
            "its asset, assets, exchange rate, totals, USD values and apy are",
        ),
        reader.block_timestamp(),
    )
    position: dict[str, Any] = {
        "type": vault.kind,
        "vaultAddress": target,
        "chainId": reader.chain_id,
        "balance": str(shares),
        "vaultToken": None,
        "underlyingAsset": None,
        "assets": None,
        "balanceUsd": None,
        "exchangeRate": None,
        "apy": None,
        "vaultMetrics": None,
        "cooldown": None,
    }
    price = None
    if facts is not None:
        (share_token, asset, per_share, total_assets, total_supply), assets = facts
        price, apy = await vault_prices(reader, chain, period, vault, share_token, asset, warnings)
        position.update(
            vaultToken=share_token,
            underlyingAsset=asset,
            assets=str(assets),
            balanceUsd=price.value(assets, asset["decimals"]) if price else None,
            exchangeRate=float(Fraction(per_share, 10 ** asset["decimals"])),
            apy=apy,
            vaultMetrics={
                "totalAssets": str(total_assets),
                "totalSupply": str(total_supply),
                "decimals": share_token["decimals"],
            },
        )
    asset, assets = position["underlyingAsset"], None if position["assets"] is None else int(position["assets"])
    legs = [leg(SUPPLIED, target, asset, assets, position["balanceUsd"], feed_of(price))]
    if cooldown:
        end, amount = cooldown
        usd = price.value(amount, asset["decimals"]) if price else None
        position["cooldown"] = {
            "underlyingAmount": str(amount),
            "underlyingAmountUsd": usd,
            "cooldownEnd": str(end),
            "cooldownEndDate": history.iso_date(end),
            "claimable": end <= now,
        }
        role = CLAIMABLE if end <= now else REQUESTED
        legs.append(leg(role, f"{target}:cooldown", asset, amount, usd, feed_of(price)))
    label = position["vaultToken"]["symbol"] if position["vaultToken"] else target
    return {**position, **legs_position("VaultSharePosition", target, VAULT, label, legs)}


# ---------------------------------------------------------------- priced tokens


async def _token_positions(
    reader: ChainReader, chain: ChainAddresses, section: VaultStyleAddresses, wallet: str, warnings: Warnings
) -> list[dict[str, Any]]:
    if not section.tokens:
        return []
    held = await balances(reader, [token.token for token in section.tokens], wallet, warnings, "token")
    return list(
        await asyncio.gather(
            *(
                _token_position(reader, chain, section.apy_period, token, held[token.token], warnings)
                for token in section.tokens
                if token.token in held
            )
        )
    )


async def _token_position(
    reader: ChainReader, chain: ChainAddresses, period: int, priced: PricedToken, balance: int, warnings: Warnings
) -> dict[str, Any]:
    target, feed = priced.token, priced.feed.feed
    info, price, unit, apy = await token_facts(reader, chain, period, priced, warnings, "balanceUsd")
    usd = token_usd(balance, info, price, unit)
    legs = [leg(SUPPLIED, target, info, balance, usd, feed)]
    return {
        **legs_position("PricedTokenPosition", target, VAULT, info["symbol"] if info else target, legs),
        "type": priced.kind,
        "tokenAddress": target,
        "chainId": reader.chain_id,
        "symbol": info["symbol"] if info else None,
        "decimals": info["decimals"] if info else None,
        "balance": str(balance),
        "balanceUsd": usd,
        "apy": apy,
        "oraclePrice": float(Fraction(price.answer, 10**price.decimals)) if price else None,
        "oracleCurrency": priced.currency,
        "oracleAddress": feed,
        "oracleUpdatedAt": str(price.updated_at) if price else None,
    }
