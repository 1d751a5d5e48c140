"""A vault-style protocol's part of a chain's addresses data: its ERC-4626 vaults and its tokens
priced by their issuer's feed, under the protocol's name (one shape, a section per protocol)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import PriceFeed, Section, fields
from addresses.fields import AddressesError

SAVINGS_RATES = ("ssr", "dsr", "vsr")
"""The savings rates a share vault may name (ShareVault.rate)."""


@dataclass(frozen=True)
class ShareVault:
    """An ERC-4626 vault whose shares a wallet holds (adapters/vault_style/)."""

    kind: str
    """The position's `type`, e.g. "neutrl-snusd"."""
    address: str
    cooldown: bool = False
    """Ethena-style: assets the wallet unstaked wait in `cooldowns(wallet)` until they can be claimed."""
    rate: str | None = None
    """Where the vault's own savings rate is: "ssr" (sUSDS' `ssr()`), "dsr" (sDAI's `pot()`'s `dsr()`),
    "vsr" (a Spark Vault V2's `vsr()`); the APY then comes from it, not from a past window."""


@dataclass(frozen=True)
class PricedToken:
    """A token valued by its issuer's own Chainlink-style feed (adapters/vault_style/)."""

    kind: str
    token: str
    feed: PriceFeed
    """Quotes one token in `currency`; `heartbeat` is the longest an answer counts as fresh."""
    currency: str = "USD"
    """USD, or a currency of the chain's currencyFeeds (BTC, ETH, EUR) that converts it to USD."""


@dataclass(frozen=True)
class VaultStyleAddresses:
    """A vault-style protocol on a chain: every vault and token it has there."""

    vaults: tuple[ShareVault, ...] = ()
    tokens: tuple[PricedToken, ...] = ()
    apy_period: int = 7 * 24 * 3600
    """Seconds over which an APY is measured (the growth of an exchange rate or price)."""
    start_block: int | None = None
    """`startBlock`: the block the first of its vaults and tokens was deployed at, where the data says (its page
    under docs/protocols/ cites the source): a block before it is refused with no read."""


def parse(value: Any, where: str) -> VaultStyleAddresses:
    value = fields.mapping(value, where)
    vaults = []
    for index, vault in enumerate(fields.listed(value.get("vaults", []), f"{where} vaults")):
        here = f"{where} vaults[{index}]"
        vault = fields.mapping(vault, here)
        rate = vault.get("rate")
        if rate not in (None, *SAVINGS_RATES):
            raise AddressesError(f"{here}: rate must be one of {', '.join(SAVINGS_RATES)} (or left out)")
        address = fields.address(vault.get("address"), here)
        vaults.append(ShareVault(_kind(vault, here), address, vault.get("cooldown") is True, rate))
    tokens = []
    for index, token in enumerate(fields.listed(value.get("tokens", []), f"{where} tokens")):
        here = f"{where} tokens[{index}]"
        token = fields.mapping(token, here)
        currency = str(token.get("currency", "USD"))
        feed = fields.feed({"pair": f"{token.get('symbol', '')}/{currency}", **token}, here)
        tokens.append(PricedToken(_kind(token, here), fields.address(token.get("token"), here), feed, currency))
    return VaultStyleAddresses(
        tuple(vaults), tuple(tokens), fields.period(value, where), fields.start_block(value, where)
    )


def _kind(value: dict[str, Any], where: str) -> str:
    kind = value.get("type")
    if not isinstance(kind, str) or not kind:
        raise AddressesError(f"{where}: must have a type (the positions' `type`)")
    return kind


def section(name: str) -> Section[VaultStyleAddresses]:
    """The vault-style section under `name` (a protocol's, or Spark's savings vaults)."""
    return Section(name, parse)
