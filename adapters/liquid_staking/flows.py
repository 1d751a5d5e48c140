"""A wallet's flows in the liquid staking tokens (docs/protocols/liquid-staking.md), every leg in
ether, as its `LiquidStakingPosition.eth`:

- each `Transfer` of a token to or from the wallet, mints and burns included (a deposit, a wrap,
  a withdrawal request, a burn), keyed by the token's address, in ether by the protocol's own
  conversion at the transfer's block, the one the position uses: eETH 1:1 (its balance is ether),
  weETH `getEETHByWeETH`, rETH `getEthValue`, ezETH amount x `calculateTVLs` total / supply,
  rsETH amount x `rsETHPrice` / 1e18. The state read is that after the block, the closest a read
  can name.
- What a token earns is its growth in ether while held: end - start - the flows.

ether.fi's withdraw request NFTs (`<requestId>:withdrawal`, its `amountOfEEth`), as Lido's
requests: the NFT minted to the wallet adds the eETH it locked (`getRequest(id)` at its block; the
eETH leg shows that eETH sent), sent to or from another holder moves the same, and its burn (the
claim) takes out the ether the claim paid, from the NFT's `WithdrawRequestClaimed` in the same
transaction (CLAIMED). What a request earns is what it paid less what it locked: 0, or the loss of
a fee or of a rate below the locked one; a claim whose event is not found leaves its request's leg
unavailable (WalletLogs.unavailable).

Kelp's requests (`<asset>:<userNonce>:withdrawal`, its `expectedAssetAmount`, in the asset): the
LRTWithdrawalManager's `AssetWithdrawalQueued` (withdrawer, asset, nonce indexed) adds the request's
`expectedAssetAmount` at its block (the wallet's newest, `getUserWithdrawalRequest`);
`AssetWithdrawalFinalized` (withdrawer, asset indexed) takes out its `amountReceived`, from the
request `completeWithdrawal` pops, the wallet's oldest of the asset at the block before (the k-th
completion of a block, its k-th oldest). What a request earns is the change unlocking made to its
expected amount.

Renzo's requests (`<asset>:<withdrawRequestID>:withdrawal`, its `amountToRedeem`, in the asset):
neither of the WithdrawQueue's events indexes the user, so the queue's own events are read over the
range (a stream of the queue the RestakeManager names at the range's end, `WalletLogs.more`):
`WithdrawRequestCreated` whose `user` is the wallet adds its `amountToRedeem` (the ezETH sent to
make it is a flow out of ezETH); `WithdrawRequestClaimed`, whose request struct carries the id and
the amount paid (the claim lowers it to the ezETH's value then, where that is less), takes that
out, for a request the wallet made in the range or held at its start. What a request earns is
what it paid less what it was to redeem: 0, or the loss of that lowering.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, cast

from adapters.context import FetchContext
from adapters.flows import NO_ONE, Flow, WalletLogs, address_of, log_rows, topic, transferred
from adapters.liquid_staking import etherfi as etherfi_module
from adapters.liquid_staking import kelp, renzo, rocketpool
from adapters.liquid_staking.contracts import (
    EETH_BY_WEETH,
    GET_REQUEST,
    ONE,
    RETH_ETH_VALUE,
    USER_NONCES,
    USER_WITHDRAWAL_REQUEST,
)
from adapters.liquid_staking.section import EtherfiAddresses, KelpAddresses, RenzoAddresses, RocketPoolAddresses
from chain import ChainReader, Log
from chain.abi import ZERO_ADDRESS, AbiError, Event, Function, decode
from chain.erc20 import NATIVE, TRANSFER
from chain.event_index import Stream
from chain.index_store import WALLET_STREAMS

CLAIMED_PAID = Event(
    "WithdrawRequestClaimed(uint32,uint256,uint256,address)",
    "0x31712d805743a128cf0ab8cdf453da51797d2e6f674bd1e5d77d92e1518e4921",
)
CLAIMED_WITH_FEE = Event(
    "WithdrawRequestClaimed(uint32,uint256,uint256,address,uint256)",
    "0x4ed779dfda2dd4cb90349b61fba6c125f68e3246023e6109203ddfa8db61ce05",
)
CLAIMED = (CLAIMED_PAID, CLAIMED_WITH_FEE)
QUEUED = Event(
    "AssetWithdrawalQueued(address,address,uint256,uint256)",
    "0xd1ff36888873897951eaf991bca7db625b8ed70bf2b0d54441907bdab02b08d7",
)
FINALIZED = Event(
    "AssetWithdrawalFinalized(address,address,uint256,uint256)",
    "0xca13475b00c46ee0ce4a479bd18ed747ff89395e96e93779ba7f18cbe1735fb4",
)
"""Kelp's LRTWithdrawalManager's events (Kelp-DAO/LRT-rsETH at c289b81,
contracts/interfaces/ILRTWithdrawalManager.sol, unchanged since they were added at c2ed08e):
AssetWithdrawalQueued(withdrawer, asset, rsETHUnstaked, userNonce) and
AssetWithdrawalFinalized(withdrawer, asset, amountBurned, amountReceived), the addresses and the
nonce indexed."""
RENZO_CREATED = Event(
    "WithdrawRequestCreated(uint256,address,address,uint256,uint256,uint256,bool,uint256)",
    "0x600d09550c74d261afbd034c96f1df11e6239324809d812023bfc80ba852d717",
)
RENZO_CREATED_V1 = Event(
    "WithdrawRequestCreated(uint256,address,address,uint256,uint256,uint256)",
    "0x841b09038d6c9a7ea5c3f3b27783d85c987928773f93183f4e239dbce62c0e5b",
)
RENZO_CLAIMED = Event(
    "WithdrawRequestClaimed((address,uint256,uint256,uint256,uint256))",
    "0x59557aa2024e953d94077c5e8323a7be3cfc4c508f3c6120136d03017096ed39",
)
"""Renzo's WithdrawQueue events (Renzo-Protocol/contracts-public, contracts/Withdraw/WithdrawQueue.sol):
WithdrawRequestCreated(withdrawRequestID indexed, user, claimToken, amountToRedeem,
ezETHAmountLocked, withdrawRequestIndex) at 2af5f88, with `queued` and `queueFilled` since v1.8
(ce2718f, unchanged at fc8c8e0, v2.1); WithdrawRequestClaimed(WithdrawRequest) with the struct
(collateralToken, withdrawRequestID, amountToRedeem, ezETHLocked, createdAt) of
WithdrawQueueStorage.sol."""
"""The WithdrawRequestNFT's claim event in its versions (etherfi-protocol/smart-contracts, history of
src/withdrawals/WithdrawRequestNFT.sol): (requestId, amountOfEEth, shares, owner) pays the amount
(2024-09, 2026-06); with a fifth word, the fee, it pays amount - fee (2024-02: the amount is
the payment plus the fee; 2024-12 to 2026-05: the fee is 0); the first (2023-10) indexed nothing,
its requestId the first data word."""

Worth = Callable[[ChainReader, int], Awaitable[int]]
"""The ether an amount of a token is worth at the reader's block, by the protocol's own rate."""


Staked = EtherfiAddresses | RocketPoolAddresses | RenzoAddresses | KelpAddresses
"""The section of one of the liquid staking protocols (adapters/liquid_staking/__init__.py)."""


def worths(section: Staked) -> dict[str, Worth]:
    """The protocol's tokens on the chain (lowercase address) and how each is worth ether."""
    if isinstance(section, EtherfiAddresses):
        return {
            section.eeth.lower(): _itself,
            section.weeth.lower(): _view(section.weeth, EETH_BY_WEETH, "ether.fi weETH"),
        }
    if isinstance(section, RocketPoolAddresses):
        return {section.reth.lower(): _view(section.reth, RETH_ETH_VALUE, rocketpool.LABEL)}
    if isinstance(section, RenzoAddresses):
        restaked = section
        return {restaked.ezeth.lower(): lambda reader, amount: renzo.worth(reader, restaked, amount)}
    oracle = section

    async def rseth(reader: ChainReader, amount: int) -> int:
        return amount * await kelp.price(reader, oracle.lrt_oracle) // ONE

    return {oracle.rseth.lower(): rseth}


async def _itself(_: ChainReader, amount: int) -> int:
    return amount


def _view(token: str, view: Function, label: str) -> Worth:
    async def worth(reader: ChainReader, amount: int) -> int:
        (eth,) = await reader.call(token, view, amount, label=label)
        return cast(int, eth)

    return worth


async def flows(ctx: FetchContext[Staked], wallet: str, logs: WalletLogs, legs: Mapping[str, str]) -> list[Flow]:
    section = ctx.section
    tokens, named = worths(section), topic(wallet)

    async def in_ether(log: Log) -> Flow | None:
        worth, moved = tokens[log.address], transferred(log, named)
        if moved is None:
            return None
        eth = await worth(ctx.chains.reader(ctx.chain_id, log.block_number), abs(moved.amount))
        at = (log.block_number, log.log_index, log.transaction_hash)
        return Flow(log.address, moved.kind, *at, NATIVE, eth if moved.amount > 0 else -eth)

    found = await asyncio.gather(*(in_ether(log) for log in logs if log.address in tokens))
    if isinstance(section, EtherfiAddresses):  # the requests' flows, where derived
        found += await _etherfi_requests(ctx, section, logs, wallet)
    elif isinstance(section, KelpAddresses):
        found += await _kelp_requests(ctx, section, logs, wallet)
    elif isinstance(section, RenzoAddresses):
        found += await _renzo_requests(ctx, section, logs, wallet, legs)
    return sorted([flow for flow in found if flow is not None], key=lambda flow: flow[2:4])


async def _etherfi_requests(
    ctx: FetchContext[Staked], etherfi: EtherfiAddresses, logs: WalletLogs, wallet: str
) -> list[Flow | None]:
    """ether.fi's withdraw request NFTs sent to or from the wallet (minted and burned included)."""
    nft, named = etherfi.withdraw_request_nft.address.lower(), topic(wallet)
    nfts = [log for log in logs if log.address == nft and log.topics[:1] == (TRANSFER.topic,)]
    return list(await asyncio.gather(*(_request(ctx, logs, nft, log, named) for log in nfts)))


async def _renzo_requests(
    ctx: FetchContext[Staked], restaked: RenzoAddresses, logs: WalletLogs, wallet: str, legs: Mapping[str, str]
) -> list[Flow | None]:
    """Renzo's requests made and claimed, from the WithdrawQueue's own events (RENZO_CREATED,
    RENZO_CLAIMED) matched to the wallet: by `user`, then by the ids it made or held."""
    queue = str(await renzo.withdraw_queue(ctx.reader(), restaked)).lower()
    keys = (key.split(":") for key in legs if key.endswith(":withdrawal"))
    held = {int(request): asset for asset, request, _ in keys}
    if queue == ZERO_ADDRESS:
        return []
    prefix = f"{WALLET_STREAMS}positions-renzo-{queue}-"
    topics = (RENZO_CREATED.topic, RENZO_CREATED_V1.topic, RENZO_CLAIMED.topic)
    events = await logs.more(ctx, prefix, lambda start: Stream(f"{prefix}{start}", (queue,), topics, start, log_rows))
    if events is None:
        for request, asset in held.items():
            logs.unavailable[f"{asset}:{request}:withdrawal"] = (
                "its WithdrawQueue has more events than one request reads"
            )
        return []
    found: list[Flow | None] = []
    for log in events:
        at = (log.block_number, log.log_index, log.transaction_hash)
        if log.signature in (RENZO_CREATED.topic, RENZO_CREATED_V1.topic) and len(log.topics) == 2:
            words = ("address", "address", "uint256", "uint256", "uint256")
            user, asset, amount, *_ = decode(
                words + (("bool", "uint256") if log.signature == RENZO_CREATED.topic else ()), log.data
            )
            if str(user).lower() == wallet:
                _, request_id = log.topics
                request = int(request_id, 16)
                held[request] = str(asset).lower()
                found.append(Flow(f"{held[request]}:{request}:withdrawal", "requested", *at, held[request], amount))
        elif log.signature == RENZO_CLAIMED.topic and len(log.topics) == 1:
            ((asset, request, paid, _, _),) = decode(("(address,uint256,uint256,uint256,uint256)",), log.data)
            if held.get(request) == str(asset).lower():
                found.append(Flow(f"{held[request]}:{request}:withdrawal", "claimed", *at, held[request], -paid))
    return found


async def _kelp_requests(
    ctx: FetchContext[Staked], restaked: KelpAddresses, logs: WalletLogs, wallet: str
) -> list[Flow | None]:
    """Kelp's requests queued and completed by the wallet (QUEUED, FINALIZED)."""
    manager, named = restaked.withdrawal_manager.lower(), topic(wallet)
    ours = [log for log in logs if log.address == manager and log.topics[1:2] == (named,)]
    earlier: dict[tuple[object, ...], int] = {}  # completions seen per (block, asset): the next pops one more
    reads = []
    for log in ours:
        event, _, *more = log.topics
        if event == QUEUED.topic and len(more) == 2:
            reads.append(_queued(ctx, logs, manager, wallet, log))
        elif event == FINALIZED.topic and len(more) == 1:
            place = (log.block_number, *more)
            reads.append(_completed(ctx, manager, wallet, log, earlier.get(place, 0)))
            earlier[place] = earlier.get(place, 0) + 1
    return list(await asyncio.gather(*reads))


async def _queued(ctx: FetchContext[Any], logs: WalletLogs, manager: str, wallet: str, log: Log) -> Flow | None:
    """A request queued: its expected amount, the wallet's newest request of the asset at the block."""
    _, _, asset_word, nonce_word = log.topics
    asset, nonce = address_of(asset_word), int(nonce_word, 16)
    key, reader = f"{asset}:{nonce}:withdrawal", ctx.chains.reader(ctx.chain_id, log.block_number)
    begin, end = await reader.call(manager, USER_NONCES, asset, wallet, label=kelp.LABEL)
    newest = end - begin - 1
    request: Any = (
        await reader.call(manager, USER_WITHDRAWAL_REQUEST, asset, wallet, newest, label=kelp.LABEL)
        if newest >= 0
        else None
    )
    if request is None or request.userNonce != nonce:
        logs.unavailable[key] = f"the request is not the wallet's newest of its asset at block {log.block_number}"
        return None
    at = (log.block_number, log.log_index, log.transaction_hash)
    return Flow(key, "requested", *at, asset, request.expectedAssetAmount)


async def _completed(ctx: FetchContext[Any], manager: str, wallet: str, log: Log, popped: int) -> Flow:
    """A request completed: what it paid, from the request the completion popped (the wallet's
    oldest of the asset at the block before, less those popped earlier in the block)."""
    _, _, asset_word = log.topics
    asset = address_of(asset_word)
    paid: Any = decode(("uint256 amountBurned", "uint256 amountReceived"), log.data)
    before = ctx.chains.reader(ctx.chain_id, log.block_number - 1)
    request: Any = await before.call(manager, USER_WITHDRAWAL_REQUEST, asset, wallet, popped, label=kelp.LABEL)
    at = (log.block_number, log.log_index, log.transaction_hash)
    return Flow(f"{asset}:{request.userNonce}:withdrawal", "claimed", *at, asset, -paid.amountReceived)


async def _request(ctx: FetchContext[Any], logs: WalletLogs, nft: str, log: Log, named: str) -> Flow | None:
    """A withdraw request NFT's flow: made (minted to the wallet), claimed (burned) or sent."""
    if len(log.topics) != 4:
        return None
    _, sender, receiver, token_id = log.topics
    if named not in (sender, receiver) or sender == receiver:
        return None
    request, key = int(token_id, 16), f"{int(token_id, 16)}:withdrawal"
    at = (log.block_number, log.log_index, log.transaction_hash)
    reader = ctx.chains.reader(ctx.chain_id, log.block_number)
    if receiver == NO_ONE:
        paid = await _paid(reader, nft, request, log)
        if paid is None:
            logs.unavailable[key] = f"no WithdrawRequestClaimed of #{request} in its claim's transaction"
            return None
        return Flow(key, "claimed", *at, NATIVE, -paid)
    (status,) = await reader.call(nft, GET_REQUEST, request, label=etherfi_module.NFT_LABEL)
    if sender == NO_ONE:
        return Flow(key, "requested", *at, NATIVE, status.amountOfEEth)
    inward = receiver == named
    amount = status.amountOfEEth if inward else -status.amountOfEEth
    return Flow(key, "transfer-in" if inward else "transfer-out", *at, NATIVE, amount)


async def _paid(reader: ChainReader, nft: str, request: int, burn: Log) -> int | None:
    """The ether a claim paid: its WithdrawRequestClaimed (CLAIMED) in the burn's transaction."""
    block = burn.block_number
    claims = await reader.get_logs(nft, [[event.topic for event in CLAIMED]], block, block)
    paid = (claim_paid(claim, request) for claim in claims if claim.transaction_hash == burn.transaction_hash)
    return next((amount for amount in paid if amount is not None), None)


def claim_paid(claim: Log, request: int) -> int | None:
    """What a WithdrawRequestClaimed of any version (CLAIMED) says it paid for `request`; None for
    another request's, or one that does not decode."""
    event, *indexed = claim.topics
    ids, data = [int(word, 16) for word in indexed], claim.data
    if not ids:  # the first version indexed nothing: its requestId is the first data word
        ids, data = list(decode(("uint256",), data[:32])), data[32:]
    with_fee = event == CLAIMED_WITH_FEE.topic
    try:
        paid: Any = decode(("uint256 amount", "uint256 shares", "address owner", *(["uint256 fee"] * with_fee)), data)
    except AbiError:
        return None
    if ids != [request]:
        return None
    return cast(int, paid.amount - (paid.fee if with_fee else 0))
