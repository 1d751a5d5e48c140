"""A wallet's flows in Fluid (docs/protocols/fluid.md): its fTokens' shares (ERC-4626, adapters/flows.py
`share_flows`) and its vault position NFTs, each in two legs:

- `<vault>:<nftId>:collateral` (`supply`, in the collateral token) and `<vault>:<nftId>:debt`
  (`borrow`, in the debt token, a debt): the vault's `LogOperate(user, nftId, colAmt, debtAmt,
  to)` for the NFT, signed as Fluid signs them (collateral deposited or withdrawn, debt borrowed
  or paid back). The event indexes nothing, not even the NFT: the logs are an index stream of
  every operation of the vaults the points hold positions in, kept to the NFTs held.
- Not derived, named with FLOWS_UNAVAILABLE (WalletLogs.unavailable): a smart side (its amounts
  are DEX shares, not the token; its leg has no token to follow), and a position whose NFT
  changed hands in the range (another owner's operations are in the same stream).
- A liquidation emits no event of the position: what it took shows in the legs' `earned`, with
  the dust debt Fluid's rounding adds.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping
from typing import Any

from adapters.context import FetchContext
from adapters.flows import NO_ONE, Flow, WalletLogs, log_rows, share_flows
from adapters.fluid.contracts import GET_VAULT_ENTIRE_DATA
from adapters.fluid.section import FluidAddresses
from adapters.position_warnings import outcome
from chain.abi import Event, decode
from chain.erc20 import TRANSFER
from chain.event_index import Stream
from chain.index_store import WALLET_STREAMS
from errors import ProtocolError

LOG_OPERATE = Event(
    "LogOperate(address,uint256,int256,int256,address)",
    "0xfef64760e30a41b9d5ba7dd65ff7236a61d89ed8b44c67a29e84db1a67513a1c",
)
"""IFluidVault's LogOperate(user_, nftId_, colAmt_, debtAmt_, to_): nothing indexed."""
SIDES = (("collateral", "deposit", "withdraw"), ("debt", "borrow", "payback"))
"""Each leg, and the kinds of a positive and a negative amount of it."""


async def flows(ctx: FetchContext[Any], wallet: str, logs: WalletLogs, legs: Mapping[str, str]) -> list[Flow]:
    found = await share_flows(ctx, wallet, logs, legs)
    held: dict[tuple[str, int], set[str]] = {}
    for key in legs:
        vault, _, rest = key.partition(":")
        token_id, _, leg = rest.partition(":")
        if leg in ("collateral", "debt"):
            held.setdefault((vault, int(token_id)), set()).add(leg)
    if not held:
        return found
    for (vault, nft), present in held.items():
        for leg in {"collateral", "debt"} - present:
            logs.unavailable[f"{vault}:{nft}:{leg}"] = "a smart side moves in DEX shares, not a token"
    vaults = sorted({vault for vault, _ in held})
    sent, unknown = await _sent(ctx, logs, vaults)
    for vault, nft in held:
        why = "the NFT changed hands in the range" if nft in sent else "its vault's factory is unreadable"
        for leg in ("collateral", "debt") if nft in sent or vault in unknown else ():
            logs.unavailable[f"{vault}:{nft}:{leg}"] = why
    prefix = f"{WALLET_STREAMS}positions-fluid-{hashlib.sha256(','.join(vaults).encode()).hexdigest()[:16]}-"

    def stream(start: int) -> Stream:
        return Stream(f"{prefix}{start}", tuple(vaults), (LOG_OPERATE.topic,), start, log_rows)

    indexed = await logs.more(ctx, prefix, stream)
    if indexed is None:
        for vault, nft in held:
            for leg in ("collateral", "debt"):
                logs.unavailable[f"{vault}:{nft}:{leg}"] = "its vault has more operations than one request reads"
    for log in indexed or []:
        if log.topics != (LOG_OPERATE.topic,) or len(log.data) != 160:
            continue
        _, nft, *amounts, _ = decode(("address", "uint256", "int256", "int256", "address"), log.data)
        at = (log.block_number, log.log_index, log.transaction_hash)
        for (leg, up, down), amount in zip(SIDES, amounts):
            key = f"{log.address}:{nft}:{leg}"
            if amount and key in legs and key not in logs.unavailable:
                found.append(Flow(key, up if amount > 0 else down, *at, legs[key], amount))
    return sorted(found, key=lambda flow: flow[2:4])


async def _sent(ctx: FetchContext[FluidAddresses], logs: WalletLogs, vaults: list[str]) -> tuple[set[int], set[str]]:
    """The vault NFTs sent to or from the wallet in the range (not minted or burned): the
    Transfers of the vaults' factory, as the VaultResolver names it; and the vaults whose data
    could not say."""
    resolver, reader = ctx.section.vault_resolver, ctx.reader()
    datas = await asyncio.gather(
        *(outcome(reader.call(resolver, GET_VAULT_ENTIRE_DATA, vault, label="Fluid VaultResolver")) for vault in vaults)
    )
    unknown, factories = set(), set()
    for vault, data in zip(vaults, datas):
        if isinstance(data, ProtocolError):
            unknown.add(vault)
        else:
            (entire,) = data
            factories.add(str(entire.constantVariables.factory).lower())
    sent = set()
    for log in logs:
        if log.address in factories and len(log.topics) == 4 and log.signature == TRANSFER.topic:
            _, source, target, token = log.topics
            if NO_ONE not in (source, target):
                sent.add(int(token, 16))
    return sent, unknown
