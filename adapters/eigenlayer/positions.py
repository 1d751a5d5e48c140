"""EigenLayer on Ethereum: the wallet's restaked shares, its operator, its queued withdrawals and
its EigenPod, on-chain.

How each figure is derived (all at the request's pinned block; docs/protocols/eigenlayer.md has
the long form):

- Restaked positions: the StrategyManager's `getDeposits(wallet)` (the strategies and deposit
  shares; no hand list of strategies), then the DelegationManager's
  `getWithdrawableShares(wallet, strategies)`: the shares slashing left withdrawable. `amount` =
  the strategy's `sharesToUnderlyingView(withdrawableShares)` in its `underlyingToken()`, USD
  through that token's feed.
- `operator`: `delegatedTo(wallet)`, null when it is the zero address.
- Queued withdrawals: `getQueuedWithdrawals(wallet)` (each withdrawal and the shares it pays with
  every slashing applied) and `minWithdrawalDelayBlocks()`. DelegationManager's
  `_completeQueuedWithdrawal` requires `block.number > startBlock + MIN_WITHDRAWAL_DELAY_BLOCKS`,
  so `completableFromBlock` = startBlock + delay + 1 and `completable` = pinned block >= it (a
  completion simulated at the pinned block passes that check). `withdrawalRoot` =
  keccak256(abi.encode(withdrawal)), the contract's `calculateWithdrawalRoot`. Beacon chain ETH
  shares are ether, one share a wei.
- EigenPod: the EigenPodManager's `ownerToPod(wallet)` (none: null) and
  `podOwnerDepositShares(wallet)` (signed: a deficit is negative); `withdrawableShares` of the
  beacon chain ETH strategy from the same `getWithdrawableShares` call (slashing applied), which
  is the restaked ether in wei, USD through ETH/USD; the pod's
  `withdrawableRestakedExecutionLayerGwei()`.

All reads go out at once in EigenlayerLens (lenses/, chain/lens.py).
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from adapters.accounts.probes import Probe
from adapters.context import FetchContext
from adapters.deployment import require
from adapters.eigenlayer.contracts import (
    BEACON_CHAIN_ETH,
    DELEGATED_TO,
    GET_DEPOSITS,
    LENS,
    MIN_WITHDRAWAL_DELAY_BLOCKS,
    OWNER_TO_POD,
    POD_OWNER_DEPOSIT_SHARES,
    QUEUED_WITHDRAWALS,
    WITHDRAWABLE_RESTAKED_GWEI,
    WITHDRAWABLE_SHARES,
    WITHDRAWAL,
)
from adapters.eigenlayer.section import EigenlayerAddresses
from adapters.eigenlayer.shares import valued
from adapters.legs import CLAIMABLE, REQUESTED, STAKED, STAKING, feed_of, leg, position
from adapters.legs import WITHDRAWAL as WITHDRAWAL_CATEGORY
from adapters.position_warnings import Warnings
from adapters.prices import lens_market, token_feeds, warned_usd_price
from addresses import ChainAddresses
from chain import ChainReader, erc20
from chain.abi import ZERO_ADDRESS, encode
from chain.erc20 import NATIVE
from chain.keccak import keccak256
from chain.lens import NONE


def probes(eigenlayer: EigenlayerAddresses) -> tuple[Probe, ...]:
    """What an account must have to be shown anything: deposits, an operator, a queued withdrawal
    or an EigenPod (each part of the answer follows from one of these reads)."""
    return (
        Probe(eigenlayer.strategy_manager, GET_DEPOSITS),
        Probe(eigenlayer.delegation_manager, DELEGATED_TO),
        Probe(eigenlayer.delegation_manager, QUEUED_WITHDRAWALS),
        Probe(eigenlayer.eigen_pod_manager, OWNER_TO_POD),
    )


async def fetch(ctx: FetchContext[EigenlayerAddresses], wallet: str) -> dict[str, Any]:
    chain = ctx.chain
    eigen = ctx.section
    reader = ctx.reader()
    _prefetch(reader, chain, eigen, wallet)
    await require(reader, "eigenlayer", eigen.strategy_manager, "StrategyManager")
    manager, delegation, pods = eigen.strategy_manager, eigen.delegation_manager, eigen.eigen_pod_manager
    (strategies, deposit_shares), (operator,), (pod,), (pod_shares,) = await asyncio.gather(
        reader.call(manager, GET_DEPOSITS, wallet, label="EigenLayer StrategyManager"),
        reader.call(delegation, DELEGATED_TO, wallet, label="EigenLayer DelegationManager"),
        reader.call(pods, OWNER_TO_POD, wallet, label="EigenLayer EigenPodManager"),
        reader.call(pods, POD_OWNER_DEPOSIT_SHARES, wallet, label="EigenLayer EigenPodManager"),
    )
    has_pod = pod != ZERO_ADDRESS
    withdrawable, queued = await asyncio.gather(
        _withdrawable(reader, delegation, wallet, [*strategies, *([BEACON_CHAIN_ETH] if has_pod else [])]),
        _queued(reader, chain, delegation, wallet, ctx.warnings),
    )
    restaked = await asyncio.gather(
        *(
            _restaked(reader, chain, strategy, deposit, shares, ctx.warnings)
            for strategy, deposit, shares in zip(strategies, deposit_shares, withdrawable)
        )
    )
    pod_shares_withdrawable = withdrawable[len(strategies) :]
    return {
        "operator": None if operator == ZERO_ADDRESS else operator,
        "restakedPositions": list(restaked),
        "queuedWithdrawals": queued,
        "eigenPod": (
            await _pod(reader, chain, pod, pod_shares, sum(pod_shares_withdrawable), ctx.warnings) if has_pod else None
        ),
    }


def _prefetch(reader: ChainReader, chain: ChainAddresses, eigen: EigenlayerAddresses, wallet: str) -> None:
    """Every read for `wallet` in one lens call, with the USD feeds of the tokens it finds."""
    priced = token_feeds(chain)
    feeds = [feed.feed for feed in priced.values()]
    sequencer = chain.sequencer_uptime_feed or NONE
    managers = (eigen.strategy_manager, eigen.delegation_manager, eigen.eigen_pod_manager)
    reader.prefetch(
        [LENS.initcode(wallet, *managers, list(priced), feeds, lens_market(chain), sequencer)],
        [*managers, *feeds, sequencer],
    )


async def _withdrawable(reader: ChainReader, delegation: str, wallet: str, strategies: list[str]) -> list[int]:
    """getWithdrawableShares' withdrawable shares of the strategies (none asked: no call)."""
    if not strategies:
        return []
    withdrawable, _ = await reader.call(
        delegation, WITHDRAWABLE_SHARES, wallet, strategies, label="EigenLayer DelegationManager"
    )
    return list(withdrawable)


def _leg(role: str, key: str, figures: dict[str, Any], source: str | None) -> dict[str, Any]:
    """The leg of a strategy's shares, as `valued` gave them (`figures`)."""
    amount = None if figures["amount"] is None else int(figures["amount"])
    return leg(role, key, figures["token"], amount, figures["amountUsd"], source)


async def _restaked(
    reader: ChainReader, chain: ChainAddresses, strategy: str, deposit: int, shares: int, warnings: Warnings
) -> dict[str, Any]:
    figures, source = await valued(reader, chain, strategy, shares, warnings)
    label = f"{figures['token']['symbol']} restaked" if figures["token"] else strategy
    return {
        "strategy": strategy,
        "depositShares": str(deposit),
        "withdrawableShares": str(shares),
        **figures,
        **position(
            "EigenlayerRestakedPosition",
            strategy.lower(),
            STAKING,
            label,
            [_leg(STAKED, strategy.lower(), figures, source)],
        ),
    }


async def _queued(
    reader: ChainReader, chain: ChainAddresses, delegation: str, wallet: str, warnings: Warnings
) -> list[dict[str, Any]]:
    """The wallet's queued withdrawals (those of the slashing release on: the view lists no
    older ones), each with what it pays and the block from which it can be completed."""
    label = "EigenLayer DelegationManager"
    withdrawals, shares = await reader.call(delegation, QUEUED_WITHDRAWALS, wallet, label=label)
    if not withdrawals:
        return []
    (delay,), block = await asyncio.gather(
        reader.call(delegation, MIN_WITHDRAWAL_DELAY_BLOCKS, label=label), reader.block_number()
    )
    found = []
    for withdrawal, paid in zip(withdrawals, shares):
        legs = await asyncio.gather(
            *(
                valued(reader, chain, strategy, amount, warnings)
                for strategy, amount in zip(withdrawal.strategies, paid)
            )
        )
        completable_from = withdrawal.startBlock + delay + 1
        root = "0x" + keccak256(encode([WITHDRAWAL], [withdrawal])).hex()
        role = CLAIMABLE if block >= completable_from else REQUESTED
        found.append(
            {
                **position(
                    "EigenlayerQueuedWithdrawal",
                    root,
                    WITHDRAWAL_CATEGORY,
                    f"Withdrawal {withdrawal.nonce}",
                    [
                        _leg(role, f"{root}:{strategy.lower()}", figures, source)
                        for strategy, (figures, source) in zip(withdrawal.strategies, legs)
                    ],
                ),
                "withdrawalRoot": root,
                "nonce": str(withdrawal.nonce),
                "delegatedTo": None if withdrawal.delegatedTo == ZERO_ADDRESS else withdrawal.delegatedTo,
                "startBlock": withdrawal.startBlock,
                "completableFromBlock": completable_from,
                "completable": block >= completable_from,
                "strategies": [
                    {"strategy": strategy, "scaledShares": str(scaled), "shares": str(amount), **figures}
                    for strategy, scaled, amount, (figures, _) in zip(
                        withdrawal.strategies, withdrawal.scaledShares, paid, legs
                    )
                ],
            }
        )
    return found


async def _pod(
    reader: ChainReader, chain: ChainAddresses, pod: str, deposit: int, withdrawable: int, warnings: Warnings
) -> dict[str, Any]:
    """The wallet's EigenPod: its beacon chain ETH shares and the restaked ether they are."""
    label = f"EigenLayer EigenPod {pod}"

    async def restaked_gwei() -> int:
        (gwei,) = await reader.call(pod, WITHDRAWABLE_RESTAKED_GWEI, label=label)
        return cast(int, gwei)

    gwei, price = await asyncio.gather(
        warnings.optional(restaked_gwei(), pod, "withdrawableRestakedExecutionLayerGwei is"),
        warned_usd_price(reader, chain, NATIVE, warnings),
    )
    usd = price.value(withdrawable, 18) if price else None
    return {
        **position(
            "EigenlayerPod",
            pod.lower(),
            STAKING,
            "EigenPod",
            [
                leg(
                    STAKED,
                    f"{pod.lower()}:restaked",
                    erc20.native_info(reader.chain_id),
                    withdrawable,
                    usd,
                    feed_of(price),
                )
            ],
        ),
        "address": pod,
        "depositShares": str(deposit),
        "withdrawableShares": str(withdrawable),
        "restakedEth": str(withdrawable),
        "restakedEthUsd": usd,
        "withdrawableRestakedExecutionLayerGwei": None if gwei is None else str(gwei),
    }
