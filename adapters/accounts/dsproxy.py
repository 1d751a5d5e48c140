"""DSProxies: the proxy a wallet built through a registry (Maker's ProxyRegistry, which DeFi Saver's
and Summer.fi's users build through too), and those DeFi Saver's DFSProxyRegistry lists for it,
that the wallet still owns.

A registry's `proxies(wallet)` keeps naming the proxy after its owner gave it away (`setOwner`);
DeFi Saver's `getAllProxies(wallet)` answers Maker's proxy (or one its controller recorded after an
owner changed) and the proxies DeFi Saver built for the wallet since, a list only ever appended to.
So a proxy counts only while its `owner()` is the wallet, as ds-auth judges it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from chain import ChainReader
from chain.abi import ZERO_ADDRESS, Function

PROXIES = Function("proxies(address)", "c4552791", ("address",))
GET_ALL_PROXIES = Function("getAllProxies(address)", "86ebdfe3", ("address", "address[]"))
OWNER = Function("owner()", "8da5cb5b", ("address",))
VIA = "dsproxy"


async def accounts(reader: ChainReader, registry: str, wallet: str) -> list[str]:
    """The proxy a Maker-style registry names for `wallet`, if the wallet owns it."""
    (proxy,) = await reader.call(registry, PROXIES, wallet, label="DSProxy registry")
    return await _owned(reader, [proxy], wallet)


async def dfs_accounts(reader: ChainReader, registry: str, wallet: str, most: int) -> tuple[list[str], int]:
    """The proxies DeFi Saver's registry lists for `wallet` that it owns, among the first `most`
    listed, in its order, and how many it lists in all."""
    mcd, more = await reader.call(registry, GET_ALL_PROXIES, wallet, label="DeFi Saver DFSProxyRegistry")
    listed = [mcd, *more] if str(mcd).lower() != ZERO_ADDRESS else list(more)
    return await _owned(reader, listed[:most], wallet), len(listed)


async def _owned(reader: ChainReader, listed: Sequence[object], wallet: str) -> list[str]:
    proxies = list(dict.fromkeys(str(proxy).lower() for proxy in listed if str(proxy).lower() != ZERO_ADDRESS))
    owners = await asyncio.gather(*(reader.call(proxy, OWNER, label="DSProxy") for proxy in proxies))
    return [proxy for proxy, (owner,) in zip(proxies, owners) if str(owner).lower() == wallet]
