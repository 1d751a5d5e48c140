"""Where the accounts a wallet controls are registered on a chain: the addresses data's
"accounts" part, which every protocol's answer follows (adapters/accounts/)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import ChainAddresses, Deployment, Section, fields


@dataclass(frozen=True)
class SummerDpm:
    """Summer.fi's DPM accounts: made by the AccountFactory (`AccountCreated`), owned as the
    AccountGuard says (`owners`, `ProxyOwnershipTransferred`)."""

    factory: Deployment
    guard: Deployment


@dataclass(frozen=True)
class AccountsAddresses:
    proxy_registries: tuple[str, ...] = ()
    """DSProxy registries (`proxies(owner)`): Maker's ProxyRegistry, which DeFi Saver uses too."""
    insta_list: str | None = None
    """Instadapp's InstaList: the DSAs an owner is linked to."""
    summer_dpm: SummerDpm | None = None
    dfs_proxy_registries: tuple[str, ...] = ()
    """DeFi Saver's DFSProxyRegistries (`getAllProxies(owner)`): the proxies it built for an owner."""


def parse(value: Any, where: str) -> AccountsAddresses:
    value = fields.mapping(value, where)
    registries, dfs = (
        fields.listed(value.get(name, []), f"{where} {name}") for name in ("proxyRegistries", "dfsProxyRegistries")
    )
    dpm = None
    if value.get("summerDpm") is not None:
        entry = fields.mapping(value["summerDpm"], f"{where} summerDpm")
        dpm = SummerDpm(
            *(
                fields.deployment(entry.get(name), f"{where} summerDpm {name}")
                for name in ("accountFactory", "accountGuard")
            )
        )
    return AccountsAddresses(
        tuple(fields.address(registry, f"{where} proxyRegistries") for registry in registries),
        fields.optional_address(value, "instaList", where),
        dpm,
        tuple(fields.address(registry, f"{where} dfsProxyRegistries") for registry in dfs),
    )


ACCOUNTS = Section("accounts", parse)


def of(chain: ChainAddresses) -> AccountsAddresses:
    """The chain's registries of controlled accounts (none where its data names none)."""
    return ACCOUNTS.of(chain) or AccountsAddresses()
