"""The vault-style protocols: Midas, Avantis and Avant as data over one method (positions.py), and Neutrl,
that answer plus the hosted API's single `vaultPosition` (neutrl.py)."""

from __future__ import annotations

import addresses
from adapters.context import FetchFunction
from adapters.protocol import Protocol
from adapters.vault_style import flows, neutrl, positions
from addresses import VaultStyleAddresses

VAULT_STYLE = tuple(name for name in addresses.VAULT_STYLE if name not in ("neutrl", "sparkVaults"))
"""The vault-style sections answered by the shared method alone, each as a protocol of its own:
Neutrl adds a field of its own, and Spark's savings vaults are a part of Spark."""


def _declared(name: str, fetch: FetchFunction) -> Protocol[VaultStyleAddresses]:
    return Protocol(name=name, section=lambda chain: chain.vault_style.get(name), fetch=fetch, flows=flows.flows)


PROTOCOLS = (_declared("neutrl", neutrl.fetch), *(_declared(name, positions.fetch) for name in VAULT_STYLE))
