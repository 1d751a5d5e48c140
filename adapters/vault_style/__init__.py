"""The vault-style protocols: Midas, Avantis and Avant as data over one method (positions.py), and Neutrl,
that answer plus the hosted API's single `vaultPosition` (neutrl.py); each reads its own section
of one shape (section.py), and answers each vault and token it lists as a pool (pools.py)."""

from __future__ import annotations

from adapters.context import FetchFunction
from adapters.protocol import Protocol
from adapters.vault_style import flows, neutrl, pools, positions
from adapters.vault_style.section import VaultStyleAddresses, section

VAULT_STYLE = ("midas", "avantis", "avant", "ethena", "sky", "erc4626")
"""The vault-style protocols answered by the shared method alone, each as a protocol of its own
(Neutrl adds a field of its own; Spark's savings vaults are a part of Spark)."""


def _declared(name: str, fetch: FetchFunction) -> Protocol[VaultStyleAddresses]:
    return Protocol(
        name=name,
        section=section(name),
        deployed=lambda listed: listed.start_block,
        fetch=fetch,
        details=pools.details,
        flows=flows.flows,
        probe=positions.probes,
    )


PROTOCOLS = (_declared("neutrl", neutrl.fetch), *(_declared(name, positions.fetch) for name in VAULT_STYLE))
