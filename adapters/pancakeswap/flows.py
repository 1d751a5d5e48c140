"""A wallet's flows in PancakeSwap v3 (docs/protocols/pancakeswap.md): its NFTs' legs as Uniswap
v3's (adapters/uniswap/flows.py), with the farm as the wallet's custody, and the CAKE legs.

- Staking (the NFT's Transfer to MasterChefV3, with the farm's Deposit of it in the same
  transaction) and a `withdraw` back to the wallet (the Transfer from the farm, with its Withdraw)
  move nothing: the position stays the wallet's, and the manager's events for it count while the
  farm holds it (MasterChefV3 increases, decreases and collects for the wallet). A `withdraw` to
  another address is the NFT sent there: MasterChefV3's Withdraw names the wallet, the manager's
  Transfer does not, so it is read as the wallet's Transfer to that address at the Withdraw's
  place (to the zero address where `burn` burned it). Any other Transfer between the wallet and
  the farm (a plain `transferFrom` into it, stuck there; another staker's `withdraw` to the
  wallet) is a Transfer as any.
- `<farm>:<tokenId>:cake`, the CAKE pending (PancakeFarmReward): what it earns is the CAKE accrued;
  each Harvest the wallet sends (a harvest, or a withdraw, which harvests first) takes its reward
  out (`claim`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from adapters.context import FetchContext
from adapters.flows import Flow, WalletLogs, address_of, topic
from adapters.pancakeswap.contracts import CAKE, DEPOSIT, HARVEST, MASTER_CHEF, WITHDRAW, cake_leg
from adapters.pancakeswap.section import PancakeSwapAddresses
from adapters.uniswap import flows as uniswap
from chain import Log
from chain.abi import decode
from chain.erc20 import TRANSFER


async def flows(
    ctx: FetchContext[PancakeSwapAddresses], wallet: str, logs: WalletLogs, legs: Mapping[str, str]
) -> list[Flow]:
    pancake = ctx.section
    if pancake.master_chef is None or pancake.v3 is None:
        return await uniswap.flows(ctx, wallet, logs, legs)
    chef, manager, named = pancake.master_chef.lower(), pancake.v3.position_manager.lower(), topic(wallet)
    custody = dataclasses.replace(logs, logs=_in_custody(logs.logs, chef, manager, named))
    found = await uniswap.flows(ctx, wallet, custody, legs)
    logs.complete = logs.complete and custody.complete
    harvests = [log for log in logs if _harvest(log, chef, named)]
    if harvests:
        (cake,) = await ctx.reader().call(chef, CAKE, label=MASTER_CHEF)
        found += [_claim(chef, str(cake).lower(), log) for log in harvests]
    return sorted(found, key=lambda flow: (flow.block, flow.log_index))


def _in_custody(logs: list[Log], chef: str, manager: str, named: str) -> list[Log]:
    """The wallet's logs with the farm as its custody: a Transfer between the wallet and the farm
    left out where the farm's Deposit or Withdraw of the wallet's moves that NFT in the same
    transaction, a Withdraw to another address read as the wallet's Transfer there."""
    farm, kept = topic(chef), []
    staking = {(log.transaction_hash, token_id) for log, token_id in _farm_moves(logs, chef, named)}
    for log in logs:
        if log.address == chef:
            for withdrawn, token_id in _farm_moves([log], chef, named, (WITHDRAW.topic,)):
                (to,) = decode(("address",), withdrawn.data)
                if str(to).lower() != address_of(named):  # elsewhere (the zero address: burned)
                    topics = (TRANSFER.topic, named, topic(str(to)), token_id)
                    kept.append(dataclasses.replace(withdrawn, address=manager, topics=topics, data=b""))
            continue
        if log.address == manager and len(log.topics) == 4 and log.signature == TRANSFER.topic:
            _, source, target, token_id = log.topics
            if {source, target} == {named, farm} and (log.transaction_hash, token_id) in staking:
                continue
        kept.append(log)
    return kept


def _farm_moves(
    logs: list[Log], chef: str, named: str, events: tuple[str, ...] = (DEPOSIT.topic, WITHDRAW.topic)
) -> list[tuple[Log, str]]:
    """The farm's `events` of the wallet's NFTs among `logs`, each with its tokenId topic."""
    found = []
    for log in logs:
        if log.address == chef and len(log.topics) == 4 and log.signature in events:
            _, staker, _, token_id = log.topics
            if staker == named:
                found.append((log, token_id))
    return found


def _harvest(log: Log, chef: str, named: str) -> bool:
    return log.address == chef and len(log.topics) == 4 and log.topics[:2] == (HARVEST.topic, named)


def _claim(chef: str, cake: str, log: Log) -> Flow:
    _, reward = decode(("address", "uint256"), log.data)
    *_, token_id = log.topics
    key = cake_leg(chef, int(token_id, 16))
    return Flow(key, "claim", log.block_number, log.log_index, log.transaction_hash, cake, -reward)
