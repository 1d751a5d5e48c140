"""DSProxies: the proxy a wallet built through a registry (Maker's ProxyRegistry, which DeFi
Saver's users build through too) and still owns.

A registry's `proxies(wallet)` keeps naming the proxy after its owner gave it away (`setOwner`),
so a proxy counts only while its `owner()` is the wallet, as ds-auth judges it.
"""

from __future__ import annotations

import asyncio

from chain import ChainReader
from chain.abi import ZERO_ADDRESS, Function

PROXIES = Function("proxies(address)", "c4552791", ("address",))
OWNER = Function("owner()", "8da5cb5b", ("address",))
VIA = "dsproxy"


async def accounts(reader: ChainReader, registries: tuple[str, ...], wallet: str) -> list[str]:
    """The proxies of `wallet` in each registry that it owns, in registry order, each once."""
    built = await asyncio.gather(
        *(reader.call(registry, PROXIES, wallet, label="DSProxy registry") for registry in registries)
    )
    proxies = list(dict.fromkeys(str(proxy).lower() for (proxy,) in built if str(proxy).lower() != ZERO_ADDRESS))
    owners = await asyncio.gather(*(reader.call(proxy, OWNER, label="DSProxy") for proxy in proxies))
    return [proxy for proxy, (owner,) in zip(proxies, owners) if str(owner).lower() == wallet]
