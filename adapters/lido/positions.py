"""Lido on Ethereum: the wallet's stETH, wstETH and withdrawal requests (unstETH NFTs), on-chain.

How each figure is derived (all at the request's pinned block; docs/protocols/lido.md has the long form):

- stETH: `balance` = `balanceOf(wallet)` (stETH rebases: shares x the pooled ether per share),
  `shares` = `sharesOf(wallet)`.
- wstETH: `balance` = `balanceOf(wallet)`, one wstETH per share; its stETH =
  `getStETHByWstETH(balance)`, the contract's own conversion.
- USD: stETH x Chainlink's stETH/USD feed (the addresses data's feed for the stETH token).
- APY: the growth of stETH per share, `getPooledEthByShares(1e18)`, over the period before the
  block (7 days), compounded to a year (adapters/history.py), as for the vault-style protocols:
  what one share earned, fees and rebases included.
- Withdrawal requests: `getWithdrawalRequests(wallet)`, then `getWithdrawalStatus(ids)`
  (stETH and shares locked, request time, finalized, claimed); what a finalized request pays is
  `getClaimableEther(ids, hints)` with the hints `findCheckpointHints(ids sorted, 1,
  getLastCheckpointIndex())`, the queue's own answer (0 until finalized, and once claimed).
  Every request is listed; the lens reads up to MAX_REQUESTS of them, the rest take rounds of
  their own.

All reads go out at once in LidoLens (lenses/, chain/lens.py).
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from adapters import history
from adapters.accounts.probes import Probe, balances
from adapters.context import FetchContext
from adapters.deployment import require
from adapters.legs import CLAIMABLE, REQUESTED, STAKED, STAKING, WITHDRAWAL, feed_of, leg, position
from adapters.lido.section import LidoAddresses
from adapters.lido.shares import STETH_BY_WSTETH, per_share
from adapters.position_warnings import Warnings
from adapters.prices import UsdPrice, token_feeds, warned_usd_price
from addresses import ChainAddresses
from chain import ChainReader, erc20, no_read
from chain.abi import Function
from chain.erc20 import NATIVE
from chain.lens import NONE, Lens

SHARES_OF = Function("sharesOf(address)", "f5eb42dc", ("uint256",))
WITHDRAWAL_REQUESTS = Function("getWithdrawalRequests(address)", "7d031b65", ("uint256[]",))
WITHDRAWAL_STATUS = Function(
    "getWithdrawalStatus(uint256[])",
    "b8c4b85a",
    (
        "(uint256 amountOfStETH,uint256 amountOfShares,address owner,uint256 timestamp,bool isFinalized,"
        "bool isClaimed)[] statuses",
    ),
)
LAST_CHECKPOINT_INDEX = Function("getLastCheckpointIndex()", "526eae3e", ("uint256",))
CHECKPOINT_HINTS = Function("findCheckpointHints(uint256[],uint256,uint256)", "62abe3fa", ("uint256[]",))
CLAIMABLE_ETHER = Function("getClaimableEther(uint256[],uint256[])", "c97912d8", ("uint256[]",))
MAX_REQUESTS = 256
"""Withdrawal requests the lens reads per wallet (each is an NFT; a wallet rarely holds more)."""
LENS = Lens("LidoLens", ("address", "address", "address", "address", "uint256", "address[]", "address"))


def probes(lido: LidoAddresses) -> tuple[Probe, ...]:
    """What an account must hold to be shown anything: stETH shares, wstETH, a withdrawal request."""
    return (Probe(lido.steth, SHARES_OF), *balances(lido.wsteth), Probe(lido.withdrawal_queue, WITHDRAWAL_REQUESTS))


async def fetch(ctx: FetchContext[LidoAddresses], wallet: str) -> dict[str, Any]:
    chain = ctx.chain
    lido = ctx.section
    reader = ctx.reader()
    _prefetch(reader, chain, lido, wallet)
    await require(reader, "lido", lido.steth, "stETH")
    staked, requests = await asyncio.gather(
        _staked(reader, chain, lido, wallet, ctx.warnings),
        _requests(reader, chain, lido, wallet, ctx.warnings),
    )
    return {"stakedPositions": staked, "withdrawalRequests": requests}


def _prefetch(reader: ChainReader, chain: ChainAddresses, lido: LidoAddresses, wallet: str) -> None:
    """Every read for `wallet` in one lens call, with the USD feeds of stETH and ether."""
    priced = token_feeds(chain)
    feeds = [feed.feed for token in (lido.steth, NATIVE) if (feed := priced.get(token))]
    sequencer = chain.sequencer_uptime_feed or NONE
    reader.prefetch(
        [LENS.initcode(wallet, lido.steth, lido.wsteth, lido.withdrawal_queue, MAX_REQUESTS, feeds, sequencer)],
        [lido.steth, lido.wsteth, lido.withdrawal_queue, *feeds, sequencer],
    )
    history.read_ahead(reader, lido.apy_period, functools.partial(per_share, steth=lido.steth))


async def _staked(
    reader: ChainReader, chain: ChainAddresses, lido: LidoAddresses, wallet: str, warnings: Warnings
) -> list[dict[str, Any]]:
    """The stETH and wstETH the wallet holds, each with its stETH, USD value and APY."""
    (steth_balance,), (shares,), (wsteth_balance,) = await asyncio.gather(
        reader.call(lido.steth, erc20.BALANCE_OF, wallet, label="Lido stETH"),
        reader.call(lido.steth, SHARES_OF, wallet, label="Lido stETH"),
        reader.call(lido.wsteth, erc20.BALANCE_OF, wallet, label="Lido wstETH"),
    )
    if not steth_balance and not wsteth_balance:
        return []
    steth_token, wsteth_token, wrapped, price, apy = await asyncio.gather(
        erc20.token_info(reader, lido.steth),
        erc20.token_info(reader, lido.wsteth) if wsteth_balance else no_read(),
        reader.call(lido.wsteth, STETH_BY_WSTETH, wsteth_balance, label="Lido wstETH") if wsteth_balance else no_read(),
        warned_usd_price(reader, chain, lido.steth, warnings),
        history.period_apy(
            reader, lido.apy_period, lambda at: per_share(at, lido.steth), warnings, lido.steth, "apy is"
        ),
    )
    (wrapped_steth,) = wrapped or (0,)
    found = []
    for kind, token, balance, held_shares, steth in (
        ("lido-steth", steth_token, steth_balance, shares, steth_balance),
        ("lido-wsteth", wsteth_token, wsteth_balance, wsteth_balance, wrapped_steth),
    ):
        if balance:
            usd, address = price.value(steth, 18) if price else None, token["address"].lower()
            found.append(
                {
                    "type": kind,
                    "token": token,
                    "balance": str(balance),
                    "shares": str(held_shares),
                    "stEth": str(steth),
                    "balanceUsd": usd,
                    "apy": apy,
                    **position(
                        "LidoStakedPosition",
                        address,
                        STAKING,
                        token["symbol"],
                        [leg(STAKED, address, steth_token, steth, usd, feed_of(price))],
                    ),
                }
            )
    return found


async def _requests(
    reader: ChainReader, chain: ChainAddresses, lido: LidoAddresses, wallet: str, warnings: Warnings
) -> list[dict[str, Any]]:
    """The wallet's withdrawal requests with their status and what each pays now."""
    queue, label = lido.withdrawal_queue, "Lido withdrawal queue"
    (ids,) = await reader.call(queue, WITHDRAWAL_REQUESTS, wallet, label=label)
    if not ids:
        return []
    ordered = sorted(ids)
    (statuses,), (last,), steth_price, eth_price, steth = await asyncio.gather(
        reader.call(queue, WITHDRAWAL_STATUS, ids, label=label),
        reader.call(queue, LAST_CHECKPOINT_INDEX, label=label),
        warned_usd_price(reader, chain, lido.steth, warnings),
        warned_usd_price(reader, chain, NATIVE, warnings),
        erc20.token_info(reader, lido.steth),
    )
    (hints,) = await reader.call(queue, CHECKPOINT_HINTS, ordered, 1, last, label=label)
    (claimable,) = await reader.call(queue, CLAIMABLE_ETHER, ordered, hints, label=label)
    payable = dict(zip(ordered, claimable))
    return [
        _request(request, status, payable[request], steth, steth_price, eth_price)
        for request, status in zip(ids, statuses)
    ]


def _request(
    request: int,
    status: Any,
    payable: int,
    steth: dict[str, Any],
    steth_price: UsdPrice | None,
    eth_price: UsdPrice | None,
) -> dict[str, Any]:
    """A withdrawal request: its stETH, asked to be withdrawn until finalized, then claimable."""
    usd = steth_price.value(status.amountOfStETH, 18) if steth_price else None
    role = CLAIMABLE if status.isFinalized else REQUESTED
    withdrawal = leg(role, f"{request}:withdrawal", steth, status.amountOfStETH, usd, feed_of(steth_price))
    return {
        "requestId": str(request),
        "amountOfStETH": str(status.amountOfStETH),
        "amountOfStETHUsd": usd,
        "amountOfShares": str(status.amountOfShares),
        "requestedAt": status.timestamp,
        "isFinalized": status.isFinalized,
        "isClaimed": status.isClaimed,
        "claimableEth": str(payable),
        "claimableEthUsd": eth_price.value(payable, 18) if eth_price else None,
        **position("LidoWithdrawalRequest", str(request), WITHDRAWAL, f"stETH withdrawal {request}", [withdrawal]),
    }
