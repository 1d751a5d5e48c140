"""Renzo on Ethereum: the wallet's ezETH in ether by what backs it, and its WithdrawQueue
requests, on-chain.

How each figure is derived (all at the request's pinned block; docs/protocols/renzo.md has the
long form):

- ezETH (`renzo-ezeth`): `balance` = `balanceOf(wallet)` (ezETH does not rebase; `shares` = the
  balance); `eth` = balance x totalTVL / `totalSupply()`, rounded down, where totalTVL is the third
  answer of the RestakeManager's `calculateTVLs()` (every operator delegator's and the deposit
  queue's assets in ether, by Renzo's oracle): what RenzoOracle's `calculateRedeemAmount` (a pure
  function) gives and the WithdrawQueue pays by; `ethPerToken` = 1e18 x totalTVL / totalSupply,
  as Renzo's BalancerRateProvider `getRate` computes it.
- USD: eth x Chainlink's ETH/USD feed.
- APY: the growth of `ethPerToken` over the period before the block (7 days), compounded to a year.
- Withdrawal requests: the WithdrawQueue is the one the RestakeManager counts in its TVL, found
  on-chain as it finds it (`depositQueue()`, then that DepositQueue's `withdrawQueue()`); the
  wallet's `getOutstandingWithdrawRequests(wallet)` requests, each `withdrawRequests(wallet, i)`:
  the collateral it pays, its id, `amountToRedeem` (the collateral fixed when requested),
  `ezETHLocked` and `createdAt`. `claim` lets it be claimed from createdAt + the cooldown, the
  larger of the queue's `coolDownPeriod()` and its `riskOracleMiddleware()`'s
  `withdrawCooldownPeriod()` (none for a `whitelisted` wallet while that oracle's
  `instantWithdrawPaused()` is false; before Renzo's v2.1 a queue has no risk oracle: v2.0's
  whitelisted wallets wait for nothing, v1.8 has no whitelist). USD through the collateral's feed
  (ether's for ETH).

All reads go out at once in RenzoLens (lenses/, chain/lens.py), up to MAX_REQUESTS requests; the
rest take rounds of their own.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, cast

from adapters import history
from adapters.context import FetchContext
from adapters.deployment import require
from adapters.liquid_staking import tokens
from adapters.liquid_staking.contracts import (
    CALCULATE_TVLS,
    COOL_DOWN_PERIOD,
    DEPOSIT_QUEUE,
    INSTANT_WITHDRAW_PAUSED,
    ONE,
    OUTSTANDING_REQUESTS,
    RENZO_LENS,
    RISK_ORACLE,
    WHITELISTED,
    WITHDRAW_COOLDOWN,
    WITHDRAW_QUEUE,
    WITHDRAW_REQUEST,
)
from adapters.liquid_staking.section import RenzoAddresses
from adapters.position_warnings import Warnings, outcome
from adapters.prices import lens_feeds, warned_usd_price
from addresses import ChainAddresses
from chain import ChainReader, erc20
from chain.abi import ZERO_ADDRESS
from errors import ProtocolError

MAX_REQUESTS = 64
"""Requests the lens reads (a wallet rarely queues more)."""
LABEL = "Renzo WithdrawQueue"


async def backing(reader: ChainReader, renzo: RenzoAddresses) -> tuple[int, int]:
    """(totalTVL, ezETH's totalSupply) at the reader's block."""
    (_, _, tvl), (supply,) = await asyncio.gather(
        reader.call(renzo.restake_manager, CALCULATE_TVLS, label="Renzo RestakeManager"),
        reader.call(renzo.ezeth, erc20.TOTAL_SUPPLY, label="Renzo ezETH"),
    )
    return cast(int, tvl), cast(int, supply)


async def worth(reader: ChainReader, renzo: RenzoAddresses, amount: int) -> int:
    """What `amount` ezETH redeems for: amount x totalTVL / totalSupply (0 without a supply)."""
    tvl, supply = await backing(reader, renzo)
    return amount * tvl // supply if supply else 0


async def fetch(ctx: FetchContext[RenzoAddresses], wallet: str) -> dict[str, Any]:
    chain, reader = ctx.chain, ctx.reader()
    renzo = ctx.section
    keys, feeds, sequencer = lens_feeds(chain)
    reader.prefetch(
        [RENZO_LENS.initcode(wallet, renzo.ezeth, renzo.restake_manager, MAX_REQUESTS, keys, feeds, sequencer)],
        [renzo.ezeth, renzo.restake_manager, *feeds, sequencer],
    )
    rate = functools.partial(worth, renzo=renzo, amount=ONE)
    history.read_ahead(reader, renzo.apy_period, rate)
    await require(reader, "renzo", renzo.ezeth, "ezETH")
    staked, requests = await asyncio.gather(
        tokens.held(
            reader,
            chain,
            ctx.warnings,
            ("renzo-ezeth", renzo.ezeth),
            wallet,
            renzo.apy_period,
            rate,
            lambda balance: worth(reader, renzo, balance),
        ),
        outcome(_requests(reader, chain, renzo, wallet, ctx.warnings)),
    )
    if isinstance(requests, ProtocolError):  # the ezETH still answers: only the requests are left out
        what = "Renzo's WithdrawQueue, found through the RestakeManager"
        ctx.warnings.left_out(what, renzo.restake_manager, requests)
        requests = []
    return {"stakedPositions": staked, "withdrawalRequests": requests}


async def withdraw_queue(reader: ChainReader, renzo: RenzoAddresses) -> str:
    """The WithdrawQueue the RestakeManager's DepositQueue names (the one its TVL counts)."""
    (deposits,) = await reader.call(renzo.restake_manager, DEPOSIT_QUEUE, label="Renzo RestakeManager")
    (queue,) = await reader.call(deposits, WITHDRAW_QUEUE, label="Renzo DepositQueue")
    return cast(str, queue)


async def cooldown(reader: ChainReader, queue: str, wallet: str) -> int:
    """Seconds after a request's createdAt from which `claim` pays it, by claim's own rule in the
    queue's version: v2.1 (a risk oracle), v2.0 (a whitelist alone) or v1.8 (neither)."""
    (own,) = await reader.call(queue, COOL_DOWN_PERIOD, label=LABEL)
    try:
        (oracle,) = await reader.call(queue, RISK_ORACLE, label=LABEL)
    except ProtocolError:
        oracle = None
    try:
        (whitelisted,) = await reader.call(queue, WHITELISTED, wallet, label=LABEL)
    except ProtocolError:
        return cast(int, own)  # v1.8: the queue's cooldown alone
    if oracle is None or oracle == ZERO_ADDRESS:
        return 0 if whitelisted else cast(int, own)  # v2.0: whitelisted wallets wait for nothing
    (longer,), (instant_paused,) = await asyncio.gather(
        reader.call(oracle, WITHDRAW_COOLDOWN, label="Renzo RiskOracleMiddleware"),
        reader.call(oracle, INSTANT_WITHDRAW_PAUSED, label="Renzo RiskOracleMiddleware"),
    )
    if whitelisted and not instant_paused:
        return 0
    return max(cast(int, own), cast(int, longer))


async def _requests(
    reader: ChainReader, chain: ChainAddresses, renzo: RenzoAddresses, wallet: str, warnings: Warnings
) -> list[dict[str, Any]]:
    """The wallet's requests in the WithdrawQueue's order (claim moves the last into a claimed
    one's place)."""
    queue = await withdraw_queue(reader, renzo)
    if queue == ZERO_ADDRESS:
        return []
    (count,) = await reader.call(queue, OUTSTANDING_REQUESTS, wallet, label=LABEL)
    if not count:
        return []
    delay, now, requests = await asyncio.gather(
        cooldown(reader, queue, wallet),
        reader.block_timestamp(),
        asyncio.gather(*(reader.call(queue, WITHDRAW_REQUEST, wallet, i, label=LABEL) for i in range(count))),
    )
    assets = list(dict.fromkeys(str(request.collateralToken).lower() for request in requests))
    infos, prices = await asyncio.gather(
        asyncio.gather(*(erc20.token_info(reader, asset) for asset in assets)),
        asyncio.gather(*(warned_usd_price(reader, chain, asset, warnings) for asset in assets)),
    )
    by_asset = dict(zip(assets, zip(infos, prices)))
    found = []
    for request in requests:
        token, price = by_asset[str(request.collateralToken).lower()]
        claimable_from = request.createdAt + delay
        key = f"{token['address']}:{request.withdrawRequestID}:withdrawal"
        label = f"{token['symbol']} withdrawal {request.withdrawRequestID}"
        ready = now >= claimable_from
        found.append(
            {
                **tokens.request("RenzoWithdrawalRequest", key, label, ready, token, request.amountToRedeem, price),
                "asset": token,
                "withdrawRequestId": str(request.withdrawRequestID),
                "ezETHLocked": str(request.ezETHLocked),
                "amountToRedeem": str(request.amountToRedeem),
                "amountToRedeemUsd": price.value(request.amountToRedeem, token["decimals"]) if price else None,
                "createdAt": request.createdAt,
                "claimableFrom": claimable_from,
                "isClaimable": now >= claimable_from,
            }
        )
    return found
