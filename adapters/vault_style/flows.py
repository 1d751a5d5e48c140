"""A wallet's flows in the vault-style protocols (docs/protocols/vault-style.md): its shares
(adapters/flows.py `share_flows`) and, in a vault with an Ethena-style cooldown, what waits in it
(`<vault>:cooldown`, `cooldowns(wallet).underlyingAmount`, in the asset):

- vaults and tokens of the protocol that the wallet entered and left between the points (neither
  holds them) are followed too, from the logs that touch them;
- a cooldown started (`cooldownShares`, `cooldownAssets`) is ERC-4626's `Withdraw(sender,
  receiver, owner, assets, shares)` with the vault's `silo()` as receiver: the share leg's
  `withdraw` and this leg's `cooldown`, both of `assets`;
- an unstake is the silo paying the asset: its `Transfer(silo, wallet, amount)` is this leg's
  `unstake`. An unstake paid to another address names no log the wallet's: it shows in the leg's
  `earned`, which is otherwise 0 (a cooldown earns nothing while it waits). A vault that gives
  no `silo()` has its cooldown named as not derived (WalletLogs.unavailable).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from adapters.context import FetchContext
from adapters.flows import WITHDRAW, Flow, WalletLogs, share_flows, topic, vault_assets
from adapters.position_warnings import outcome
from adapters.vault_style.section import VaultStyleAddresses
from chain.abi import ZERO_ADDRESS, Function, decode
from chain.erc20 import TRANSFER
from errors import ProtocolError

SILO = Function("silo()", "eb3beb29", ("address",), immutable=True)


async def flows(
    ctx: FetchContext[VaultStyleAddresses], wallet: str, logs: WalletLogs, legs: Mapping[str, str]
) -> list[Flow]:
    section = ctx.section
    found = await share_flows(ctx, wallet, logs, {**await _passing(ctx, logs, legs, section), **legs})
    cooling = sorted(
        vault.address.lower()
        for vault in (section.vaults if section else ())
        if vault.cooldown and (vault.address.lower() in legs or f"{vault.address.lower()}:cooldown" in legs)
    )
    if not cooling:
        return found
    reader, named = ctx.reader(), topic(wallet)
    silos = await asyncio.gather(*(outcome(reader.call(vault, SILO, label=f"vault {vault}")) for vault in cooling))
    by_silo = {}
    for vault, silo in zip(cooling, silos):
        if isinstance(silo, ProtocolError):
            logs.unavailable[f"{vault}:cooldown"] = f"the vault gives no silo(): {silo.message}"
        elif (address := str(next(iter(silo))).lower()) == ZERO_ADDRESS:
            logs.unavailable[f"{vault}:cooldown"] = "the vault's silo() is the zero address"
        else:
            by_silo[topic(address)] = vault
    assets = {vault: (legs.get(f"{vault}:cooldown") or legs[vault]).lower() for vault in by_silo.values()}
    for log in logs:
        if len(log.topics) < 3:
            continue
        event, source, target, *owner = log.topics
        at = (log.block_number, log.log_index, log.transaction_hash)
        if (
            event == WITHDRAW.topic
            and log.address in assets
            and owner == [named]
            and by_silo.get(target) == log.address
        ):
            moved, _ = decode(("uint256", "uint256"), log.data)
            found.append(Flow(f"{log.address}:cooldown", "cooldown", *at, assets[log.address], moved))
        elif event == TRANSFER.topic and not owner and target == named and source in by_silo:
            vault = by_silo[source]
            if assets[vault] == log.address:
                (paid,) = decode(("uint256",), log.data)
                found.append(Flow(f"{vault}:cooldown", "unstake", *at, log.address, -paid))
    return sorted(found, key=lambda flow: flow[2:4])


async def _passing(
    ctx: FetchContext[Any], logs: WalletLogs, legs: Mapping[str, str], section: VaultStyleAddresses | None
) -> dict[str, str]:
    """The section's vaults and tokens the wallet's logs touch that neither point holds (entered
    and left between them), with their assets: their flows count too, and what they earned is
    what came out less what went in."""
    touched = {log.address for log in logs} - set(legs)
    vaults = [v.address.lower() for v in (section.vaults if section else ()) if v.address.lower() in touched]
    passing = {
        t.token.lower(): t.token.lower() for t in (section.tokens if section else ()) if t.token.lower() in touched
    }
    return {**passing, **await vault_assets(ctx, logs, vaults, "vault")}
