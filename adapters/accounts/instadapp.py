"""Instadapp DSAs: the smart accounts InstaList links to a wallet (an owner the DSA authorised).

InstaList keeps each owner's DSAs as a linked list of account ids: `userLink(owner)` gives the
first, `userList(owner, id)` the next, and `accountAddr(id)` the DSA's address; a DSA's
`addAuth`/`removeAuth` keep the list as the DSA's own authorities are.
"""

from __future__ import annotations

import asyncio

from chain import ChainReader
from chain.abi import Function

USER_LINK = Function("userLink(address)", "f227a99f", ("uint64 first", "uint64 last", "uint64 count"))
USER_LIST = Function("userList(address,uint64)", "748e6e18", ("uint64 prev", "uint64 next"))
ACCOUNT_ADDR = Function("accountAddr(uint64)", "60330d79", ("address",))
VIA = "instadapp-dsa"
LABEL = "Instadapp InstaList"


async def accounts(reader: ChainReader, insta_list: str, wallet: str, most: int) -> tuple[list[str], int]:
    """The wallet's DSAs in list order, `most` at most, and how many it has in all."""
    first, _, count = await reader.call(insta_list, USER_LINK, wallet, label=LABEL)
    found: list[str] = []
    at: int = first
    while at and len(found) < min(count, most):
        address, link = await asyncio.gather(
            reader.call(insta_list, ACCOUNT_ADDR, at, label=LABEL),
            reader.call(insta_list, USER_LIST, wallet, at, label=LABEL),
        )
        found.append(str(address[0]).lower())
        at = link[1]
    return found, count
