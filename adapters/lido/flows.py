"""A wallet's flows in Lido (docs/protocols/lido.md), every leg in stETH:

- stETH (`<stETH address>`): every `Transfer` to or from the wallet, mints (`submit`) and burns
  included, in stETH as Lido emits it; the rebases between them are what it earned;
- wstETH (`<wstETH address>`): every wstETH `Transfer` to or from the wallet (wraps and unwraps
  are mints and burns), in stETH at `getStETHByWstETH` at its block: what it earned is the growth
  of stETH per share while held;
- a withdrawal request (`<requestId>:withdrawal`, its `amountOfStETH`): the queue's
  `WithdrawalRequested` (owner) adds the stETH it locked (the stETH leg shows that stETH sent to
  the queue), `WithdrawalClaimed` (owner) takes out the ether paid, and the unstETH NFT sent to
  or from another holder moves its `amountOfStETH` (`getWithdrawalStatus` at its block). What a
  request "earns" is the ether it paid less the stETH it locked: 0, or the loss a finalization
  below the locked rate made.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from adapters.context import FetchContext
from adapters.flows import NO_ONE, Flow, WalletLogs, own_transfers, topic
from adapters.lido.positions import WITHDRAWAL_STATUS
from adapters.lido.section import LidoAddresses
from adapters.lido.shares import STETH_BY_WSTETH
from chain import Log
from chain.abi import Event, decode
from chain.erc20 import TRANSFER

WITHDRAWAL_REQUESTED = Event(
    "WithdrawalRequested(uint256,address,address,uint256,uint256)",
    "0xf0cb471f23fb74ea44b8252eb1881a2dca546288d9f6e90d1a0e82fe0ed342ab",
)
WITHDRAWAL_CLAIMED = Event(
    "WithdrawalClaimed(uint256,address,address,uint256)",
    "0x6ad26c5e238e7d002799f9a5db07e81ef14e37386ae03496d7a7ef04713e145b",
)
"""WithdrawalQueueBase's events: WithdrawalRequested(requestId, requestor, owner, amountOfStETH,
amountOfShares), WithdrawalClaimed(requestId, owner, receiver, amountOfETH), all but the amounts indexed."""


async def flows(ctx: FetchContext[LidoAddresses], wallet: str, logs: WalletLogs, legs: Mapping[str, str]) -> list[Flow]:
    lido = ctx.section
    steth, wsteth, queue, named = lido.steth.lower(), lido.wsteth.lower(), lido.withdrawal_queue.lower(), topic(wallet)
    found = [flow for log in logs if log.address == steth for flow in own_transfers(log, named)]
    wrapped = [flow for log in logs if log.address == wsteth for flow in own_transfers(log, named)]

    async def in_steth(flow: Flow) -> Flow:
        reader = ctx.chains.reader(ctx.chain_id, flow.block)
        (amount,) = await reader.call(wsteth, STETH_BY_WSTETH, abs(flow.amount), label="Lido wstETH")
        return flow._replace(asset=steth, amount=amount if flow.amount > 0 else -amount)

    requests = [log for log in logs if log.address == queue and len(log.topics) == 4]
    found += await asyncio.gather(
        *(in_steth(flow) for flow in wrapped), *(_request(ctx, queue, steth, log, named) for log in requests)
    )
    return sorted([flow for flow in found if flow is not None], key=lambda flow: flow[2:4])


async def _request(ctx: FetchContext[Any], queue: str, steth: str, log: Log, named: str) -> Flow | None:
    """A withdrawal request's flow: made, claimed or its NFT sent (a mint or burn is the request
    or the claim already)."""
    event, *indexed = log.topics
    at = (log.block_number, log.log_index, log.transaction_hash)
    if event == WITHDRAWAL_REQUESTED.topic and indexed[2] == named:  # (requestId, requestor, owner)
        amount, _ = decode(("uint256", "uint256"), log.data)
        return Flow(f"{int(indexed[0], 16)}:withdrawal", "requested", *at, steth, amount)
    if event == WITHDRAWAL_CLAIMED.topic and indexed[1] == named:  # (requestId, owner, receiver)
        (paid,) = decode(("uint256",), log.data)
        return Flow(f"{int(indexed[0], 16)}:withdrawal", "claimed", *at, steth, -paid)
    sender, receiver, token_id = indexed  # the unstETH NFT's Transfer(from, to, tokenId)
    if event != TRANSFER.topic or NO_ONE in (sender, receiver) or (sender == named) == (receiver == named):
        return None
    reader = ctx.chains.reader(ctx.chain_id, log.block_number)
    (statuses,) = await reader.call(queue, WITHDRAWAL_STATUS, [int(token_id, 16)], label="Lido withdrawal queue")
    status: Any = next(iter(statuses))
    inward = receiver == named
    amount = status.amountOfStETH if inward else -status.amountOfStETH
    return Flow(f"{int(token_id, 16)}:withdrawal", "transfer-in" if inward else "transfer-out", *at, steth, amount)
