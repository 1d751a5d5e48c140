"""Kelp on Ethereum: the wallet's rsETH in ether by Kelp's own oracle, and its withdrawal
requests, on-chain.

How each figure is derived (all at the request's pinned block; docs/protocols/kelp.md has the long
form):

- rsETH (`kelp-rseth`): `balance` = `balanceOf(wallet)` (rsETH does not rebase; `shares` = the
  balance); `ethPerToken` = the LRTOracle's `rsETHPrice()` (ether per rsETH, 1e18 scale, which
  Kelp's `updateRSETHPrice` sets from the assets in the protocol less its fee); `eth` = balance x
  rsETHPrice / 1e18, rounded down, as the LRTWithdrawalManager values rsETH in ether.
- USD: eth x Chainlink's ETH/USD feed.
- APY: the growth of `rsETHPrice()` over the period before the block (7 days), compounded to a year.
- Withdrawal requests: for each asset of the LRTConfig's `getSupportedAssetList()`, the
  LRTWithdrawalManager's `userAssociatedNonces(asset, wallet)` (the bounds of the wallet's queue
  of request nonces) and each `getUserWithdrawalRequest(asset, wallet, i)`: rsETH unstaked, the
  asset amount it pays (fixed when requested), the block it was made at and its nonce. It is
  unlocked once its nonce is below `nextLockedNonce(asset)`, claimable from `withdrawalStartBlock
  + withdrawalDelayBlocks()` once unlocked (`completeWithdrawal` checks both). USD through the
  asset's feed (ether's for ETH).

All reads go out at once in KelpLens (lenses/, chain/lens.py), up to MAX_REQUESTS per asset; the
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
    KELP_LENS,
    NEXT_LOCKED_NONCE,
    ONE,
    RSETH_PRICE,
    SUPPORTED_ASSETS,
    USER_NONCES,
    USER_WITHDRAWAL_REQUEST,
    WITHDRAWAL_DELAY_BLOCKS,
)
from adapters.liquid_staking.section import KelpAddresses
from adapters.position_warnings import Warnings
from adapters.prices import lens_feeds, warned_usd_price
from addresses import ChainAddresses
from chain import ChainReader, erc20

MAX_REQUESTS = 64
"""Requests per asset the lens reads (a wallet rarely queues more)."""
LABEL = "Kelp LRTWithdrawalManager"


async def price(reader: ChainReader, oracle: str) -> int:
    (answer,) = await reader.call(oracle, RSETH_PRICE, label="Kelp LRTOracle")
    return cast(int, answer)


async def fetch(ctx: FetchContext[KelpAddresses], wallet: str) -> dict[str, Any]:
    chain, reader = ctx.chain, ctx.reader()
    kelp = ctx.section
    contracts = (kelp.rseth, kelp.lrt_oracle, kelp.lrt_config, kelp.withdrawal_manager)
    keys, feeds, sequencer = lens_feeds(chain)
    reader.prefetch(
        [KELP_LENS.initcode(wallet, contracts, MAX_REQUESTS, keys, feeds, sequencer)],
        [*contracts, *feeds, sequencer],
    )
    rate = functools.partial(price, oracle=kelp.lrt_oracle)
    history.read_ahead(reader, kelp.apy_period, rate)
    await require(reader, "kelp", kelp.rseth, "rsETH")

    async def worth(balance: int) -> int:
        return balance * await price(reader, kelp.lrt_oracle) // ONE

    staked, requests = await asyncio.gather(
        tokens.held(reader, chain, ctx.warnings, ("kelp-rseth", kelp.rseth), wallet, kelp.apy_period, rate, worth),
        _requests(reader, chain, kelp, wallet, ctx.warnings),
    )
    return {"stakedPositions": staked, "withdrawalRequests": requests}


async def _requests(
    reader: ChainReader, chain: ChainAddresses, kelp: KelpAddresses, wallet: str, warnings: Warnings
) -> list[dict[str, Any]]:
    """The wallet's withdrawal requests, asset by asset in the LRTConfig's order, oldest first."""
    (assets,) = await reader.call(kelp.lrt_config, SUPPORTED_ASSETS, label="Kelp LRTConfig")
    manager = kelp.withdrawal_manager
    bounds = await asyncio.gather(*(reader.call(manager, USER_NONCES, asset, wallet, label=LABEL) for asset in assets))
    queued = [(str(asset).lower(), end - begin) for asset, (begin, end) in zip(assets, bounds) if end > begin]
    found = await asyncio.gather(
        *(_asset(reader, chain, manager, asset, count, wallet, warnings) for asset, count in queued)
    )
    return [request for requests in found for request in requests]


async def _asset(
    reader: ChainReader, chain: ChainAddresses, manager: str, asset: str, count: int, wallet: str, warnings: Warnings
) -> list[dict[str, Any]]:
    (locked,), (delay,), token, asset_price, block = await asyncio.gather(
        reader.call(manager, NEXT_LOCKED_NONCE, asset, label=LABEL),
        reader.call(manager, WITHDRAWAL_DELAY_BLOCKS, label=LABEL),
        erc20.token_info(reader, asset),
        warned_usd_price(reader, chain, asset, warnings),
        reader.block_number(),
    )
    requests: list[Any] = await asyncio.gather(
        *(reader.call(manager, USER_WITHDRAWAL_REQUEST, asset, wallet, i, label=LABEL) for i in range(count))
    )
    found = []
    for request in requests:
        unlocked = request.userNonce < locked
        from_block = request.withdrawalStartBlock + delay
        key = f"{token['address']}:{request.userNonce}:withdrawal"
        label = f"{token['symbol']} withdrawal {request.userNonce}"
        claimable = unlocked and block >= from_block
        found.append(
            {
                **tokens.request(
                    "KelpWithdrawalRequest", key, label, claimable, token, request.expectedAssetAmount, asset_price
                ),
                "asset": token,
                "userNonce": str(request.userNonce),
                "rsETHUnstaked": str(request.rsETHAmount),
                "expectedAssetAmount": str(request.expectedAssetAmount),
                "expectedAssetAmountUsd": (
                    asset_price.value(request.expectedAssetAmount, token["decimals"]) if asset_price else None
                ),
                "withdrawalStartBlock": request.withdrawalStartBlock,
                "isUnlocked": unlocked,
                "claimableFromBlock": from_block,
                "isClaimable": unlocked and block >= from_block,
            }
        )
    return found
