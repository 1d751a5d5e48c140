"""ether.fi on Ethereum: the wallet's eETH, weETH and withdraw request NFTs, on-chain.

How each figure is derived (all at the request's pinned block; docs/protocols/etherfi.md has the
long form):

- eETH (`etherfi-eeth`): `balance` = `balanceOf(wallet)`, which rebases (the LiquidityPool's
  `amountForShare` of the wallet's shares), so `eth` = the balance; `shares` = `shares(wallet)`.
- weETH (`etherfi-weeth`): `balance` = `balanceOf(wallet)`, one eETH share per weETH (`shares` =
  the balance); `eth` = `getEETHByWeETH(balance)`, weETH's own conversion.
- `ethPerToken` (both): `amountForShare(1e18)`, ether per eETH share, the rate weETH is worth.
- USD: eth x Chainlink's ETH/USD feed.
- APY: the growth of `amountForShare(1e18)` over the period before the block (7 days),
  compounded to a year (adapters/history.py).
- Withdrawal requests: the WithdrawRequestNFT is not enumerable, so the token ids come from its
  Transfer events (the event index's stream `withdraw_requests`), each kept while `ownerOf(id)`
  is the wallet (a claimed request is burned). `getRequest(id)`: `amountOfEEth`, `shareOfEEth`,
  `isValid`, `feeGwei`; `isFinalized(id)`; `claimableEth` = `getClaimableAmount(id)` once
  finalized and valid (the NFT's own answer: the lesser of the eETH requested and its shares at
  the rate frozen at finalization), else 0.

All reads go out at once in EtherfiLens (lenses/, chain/lens.py): the candidates the index has
stored; those only its tail found take rounds of their own.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, cast

from adapters import history
from adapters.accounts.probes import Probe, balances
from adapters.context import FetchContext
from adapters.deployment import require
from adapters.liquid_staking import tokens
from adapters.liquid_staking.contracts import (
    AMOUNT_FOR_SHARE,
    CLAIMABLE_AMOUNT,
    EETH_BY_WEETH,
    EETH_SHARES,
    ETHERFI_LENS,
    GET_REQUEST,
    IS_FINALIZED,
    ONE,
    OWNER_OF,
    withdraw_requests,
)
from adapters.liquid_staking.section import EtherfiAddresses
from adapters.position_warnings import PART_UNREADABLE, Warnings
from adapters.prices import warned_usd_price
from addresses import ChainAddresses
from chain import ChainReader, erc20, no_read
from chain.erc20 import NATIVE
from errors import ProtocolError

MAX_REQUESTS = 256
"""Candidate request NFTs checked per wallet (the newest); a wallet that received more is told."""
LABEL, NFT_LABEL = "ether.fi", "ether.fi WithdrawRequestNFT"


async def per_share(reader: ChainReader, pool: str) -> int:
    (amount,) = await reader.call(pool, AMOUNT_FOR_SHARE, ONE, label=f"{LABEL} LiquidityPool")
    return cast(int, amount)


def probes(etherfi: EtherfiAddresses) -> tuple[Probe, ...]:
    """What an account must hold to be shown anything: eETH shares, weETH, a withdraw request NFT."""
    return (Probe(etherfi.eeth, EETH_SHARES), *balances(etherfi.weeth, etherfi.withdraw_request_nft.address))


async def fetch(ctx: FetchContext[EtherfiAddresses], wallet: str) -> dict[str, Any]:
    chain, reader = ctx.chain, ctx.reader()
    etherfi = ctx.section
    stored = await _candidates(ctx, etherfi, wallet, stored=True)
    feeds, sequencer = tokens.feeds(chain)
    nft = etherfi.withdraw_request_nft.address
    reader.prefetch(
        [
            ETHERFI_LENS.initcode(
                wallet, etherfi.eeth, etherfi.weeth, etherfi.liquidity_pool, nft, stored, feeds, sequencer
            )
        ],
        [etherfi.eeth, etherfi.weeth, etherfi.liquidity_pool, nft, *feeds, sequencer],
    )
    history.read_ahead(reader, etherfi.apy_period, functools.partial(per_share, pool=etherfi.liquidity_pool))
    await require(reader, "etherfi", etherfi.liquidity_pool, "LiquidityPool")
    staked, requests = await asyncio.gather(
        _staked(reader, chain, etherfi, wallet, ctx.warnings), _requests(ctx, etherfi, wallet)
    )
    return {"stakedPositions": staked, "withdrawalRequests": requests}


async def _candidates(ctx: FetchContext[Any], etherfi: EtherfiAddresses, wallet: str, stored: bool) -> list[int]:
    """Request ids the index has seen sent to the wallet (stored only, or with the tail), the newest
    MAX_REQUESTS."""
    events = withdraw_requests(etherfi)
    view = await (ctx.stored_events(events) if stored else ctx.events(events))
    return sorted(int(key) for key in await view.keys(wallet))[-MAX_REQUESTS:]


async def _staked(
    reader: ChainReader, chain: ChainAddresses, etherfi: EtherfiAddresses, wallet: str, warnings: Warnings
) -> list[dict[str, Any]]:
    """The eETH and weETH the wallet holds, each with its ether, USD value and APY."""
    (balance,), (shares,), (wrapped,) = await asyncio.gather(
        reader.call(etherfi.eeth, erc20.BALANCE_OF, wallet, label=f"{LABEL} eETH"),
        reader.call(etherfi.eeth, EETH_SHARES, wallet, label=f"{LABEL} eETH"),
        reader.call(etherfi.weeth, erc20.BALANCE_OF, wallet, label=f"{LABEL} weETH"),
    )
    if not balance and not wrapped:
        return []
    rate_at = functools.partial(per_share, pool=etherfi.liquidity_pool)
    eeth_token, weeth_token, unwrapped, rate, price, apy = await asyncio.gather(
        erc20.token_info(reader, etherfi.eeth),
        erc20.token_info(reader, etherfi.weeth) if wrapped else no_read(),
        reader.call(etherfi.weeth, EETH_BY_WEETH, wrapped, label=f"{LABEL} weETH") if wrapped else no_read(),
        per_share(reader, etherfi.liquidity_pool),
        warned_usd_price(reader, chain, NATIVE, warnings),
        tokens.apy(reader, etherfi.apy_period, rate_at, warnings, etherfi.eeth),
    )
    (wrapped_eth,) = unwrapped or (0,)
    held = (
        ("etherfi-eeth", eeth_token, balance, shares, balance),
        ("etherfi-weeth", weeth_token, wrapped, wrapped, wrapped_eth),
    )
    return [
        tokens.position(kind, token, amount, held_shares, eth, rate, price, apy, reader.chain_id)
        for kind, token, amount, held_shares, eth in held
        if amount
    ]


async def _requests(ctx: FetchContext[Any], etherfi: EtherfiAddresses, wallet: str) -> list[dict[str, Any]]:
    """The wallet's withdraw request NFTs, in id order, with what each pays now."""
    reader, warnings, nft = ctx.reader(), ctx.warnings, etherfi.withdraw_request_nft.address
    ids, (count,) = await asyncio.gather(
        _candidates(ctx, etherfi, wallet, stored=False),
        reader.call(nft, erc20.BALANCE_OF, wallet, label=NFT_LABEL),
    )
    owners = await asyncio.gather(*(_owner(reader, nft, request) for request in ids))
    owned = [request for request, owner in zip(ids, owners) if owner == wallet]
    if count > len(owned):
        warnings.add(
            PART_UNREADABLE,
            nft,
            f"the wallet owns {count} withdraw request NFTs; {count - len(owned)} not among the newest "
            f"{MAX_REQUESTS} the event index has seen sent to it are left out",
            retryable=True,
        )
    if not owned:
        return []
    price = await warned_usd_price(reader, ctx.chain, NATIVE, warnings)
    outcomes = await asyncio.gather(*(_request(reader, nft, request) for request in owned), return_exceptions=True)
    found = warnings.survivors("withdrawal request", [(f"{nft} #{i}", o) for i, o in zip(owned, outcomes)])
    ether = erc20.native_info(reader.chain_id)
    for request in found:
        request["claimableEthUsd"] = price.value(int(request["claimableEth"]), 18) if price else None
        request["amountOfEEthUsd"] = price.value(int(request["amountOfEEth"]), 18) if price else None
        key, claimable = f"{request['requestId']}:withdrawal", request["isFinalized"] and request["isValid"]
        label = f"eETH withdrawal {request['requestId']}"
        request |= tokens.request(
            "EtherfiWithdrawalRequest", key, label, claimable, ether, int(request["amountOfEEth"]), price
        )
    return found


async def _owner(reader: ChainReader, nft: str, request: int) -> str | None:
    """The NFT's owner at the block; None once burned (claimed: ownerOf reverts)."""
    try:
        (owner,) = await reader.call(nft, OWNER_OF, request, label=NFT_LABEL)
    except ProtocolError:
        return None
    return str(owner).lower()


async def _request(reader: ChainReader, nft: str, request: int) -> dict[str, Any]:
    (status,), (finalized,) = await asyncio.gather(
        reader.call(nft, GET_REQUEST, request, label=NFT_LABEL),
        reader.call(nft, IS_FINALIZED, request, label=NFT_LABEL),
    )
    claimable = 0
    if finalized:
        (payable,) = await reader.call(nft, CLAIMABLE_AMOUNT, request, label=NFT_LABEL)
        claimable = payable if status.isValid else 0
    return {
        "requestId": str(request),
        "amountOfEEth": str(status.amountOfEEth),
        "shareOfEEth": str(status.shareOfEEth),
        "isValid": status.isValid,
        "feeGwei": status.feeGwei,
        "isFinalized": finalized,
        "claimableEth": str(claimable),
    }
