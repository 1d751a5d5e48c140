"""Summer.fi DPM accounts: the DSProxy-like accounts Summer.fi makes for each position.

No contract lists a wallet's DPM accounts, so the event index keeps who each was made for (the
AccountFactory's `AccountCreated(proxy, user, vaultId)`) and given to (the AccountGuard's
`ProxyOwnershipTransferred(newOwner, oldAddress, proxy)`); an account counts while the guard's
`owners(proxy)` is the wallet at the block.
"""

from __future__ import annotations

import asyncio

from adapters.accounts.section import SummerDpm
from chain import ChainReader
from chain.abi import Event, Function
from chain.event_index import Stream
from chain.event_logs import Log
from chain.index_store import Holding, Rows

ACCOUNT_CREATED = Event(
    "AccountCreated(address,address,uint256)", "0x33310a89c32d8cc00057ad6ef6274d2f8fe22389a992cf89983e09fc84f6cfff"
)
OWNERSHIP_TRANSFERRED = Event(
    "ProxyOwnershipTransferred(address,address,address)",
    "0xf613da403ea3a512cfd9a6d475983ef47ea2397949a90b8d935d0a2cb8e620d5",
)
OWNERS = Function("owners(address)", "022914a7", ("address",))
VIA = "summer-dpm"


def stream(dpm: SummerDpm) -> Stream:
    """Whom each DPM account was made for or given to: the holder is that wallet, the key the account."""
    factory, guard = dpm.factory.address.lower(), dpm.guard.address.lower()

    def rows(entry: Log) -> Rows:
        topics = entry.topics
        if entry.address == factory and topics[:1] == (ACCOUNT_CREATED.topic,):
            # Summer.fi's ABI indexes all three; its first source left `proxy` in the data.
            if len(topics) == 4:
                return [Holding("0x" + topics[2][-40:], "0x" + topics[1][-40:], entry.block_number)]
            if len(topics) == 3 and len(entry.data) >= 32:
                return [Holding("0x" + topics[1][-40:], "0x" + entry.data[12:32].hex(), entry.block_number)]
        if entry.address == guard and topics[:1] == (OWNERSHIP_TRANSFERRED.topic,) and len(topics) == 4:
            return [Holding("0x" + topics[1][-40:], "0x" + topics[3][-40:], entry.block_number)]
        return []

    start = min(dpm.factory.start_block, dpm.guard.start_block)
    topics = (ACCOUNT_CREATED.topic, OWNERSHIP_TRANSFERRED.topic)
    return Stream(f"summer-dpm {factory},{guard}", (factory, guard), topics, start, rows)


async def accounts(reader: ChainReader, dpm: SummerDpm, candidates: list[str], wallet: str) -> list[str]:
    """The candidates (accounts made for or given to the wallet) that it owns at the block."""
    guard = dpm.guard.address
    owners = await asyncio.gather(
        *(reader.call(guard, OWNERS, proxy, label="Summer.fi AccountGuard") for proxy in candidates)
    )
    return [proxy for proxy, (owner,) in zip(candidates, owners) if str(owner).lower() == wallet]
