"""A wallet's flows in Euler v2 (docs/protocols/euler.md): one account's, as its positions are (an
owner's sub-account is an account of its own, asked as its own input), from the events of the
eVault factory's vaults that name it, in the vault's asset as the vault moved it (EVK's events:
adapters/euler/contracts.py).

- Deposits (`<vault>`, its shares' assets): ERC-4626's `Deposit` and `Withdraw` whose owner is
  the account, and share transfers at `convertToAssets` at their block (adapters/flows.py
  `share_flows`). A liquidation's seizure is such a transfer, the collateral vault's
  `Transfer(violator, liquidator, yieldBalance)` in the transaction of the `Liquidate` that names
  them both: `liquidation-seized` for the violator, `liquidator-yield` for the liquidator.
- Debts (`<vault>:borrow`): every change to a debt but interest is a `Borrow` (adds) or a `Repay`
  (takes out), for EVK logs one in each of increaseBorrow, decreaseBorrow and transferBorrow
  (pullDebt's and a liquidation's). An event after it in the vault's transaction names its kind,
  claiming the account's latest Borrow or Repay before it there: `PullDebt` (`debt-pulled-out`,
  `debt-pulled-in`), `DebtSocialized` (`bad-debt`: the vault's lenders bear it), `Liquidate`
  (`liquidation-repaid` for the violator, `liquidator-debt` for the liquidator). Interest
  (`InterestAccrued`) is no flow: it is what the debt earned.
- Which vaults: those the points hold, and the factory's others the account's logs name (the
  event index's list). While that list is behind the last point, a vault it lacks that the
  factory made (`isProxy`) and no point holds is named not derived: the points may not list it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from adapters.context import FetchContext
from adapters.euler.contracts import (
    BORROW,
    DEBT_SOCIALIZED,
    IS_PROXY,
    LIQUIDATE,
    PULL_DEBT,
    REPAY,
    VAULT,
    stream,
)
from adapters.euler.section import EulerAddresses
from adapters.flows import DEPOSIT, WITHDRAW, Flow, WalletLogs, share_flows, topic, transferred, vault_assets
from chain import Log, first
from chain.abi import decode
from chain.erc20 import TRANSFER

DEBTS = {BORROW.topic: ("borrow", 1), REPAY.topic: ("repay", -1)}
"""The events that change a debt: topic0 -> the flow's kind and sign."""
NAMING = {
    (PULL_DEBT.topic, 0): ("repay", "debt-pulled-out"),
    (PULL_DEBT.topic, 1): ("borrow", "debt-pulled-in"),
    (DEBT_SOCIALIZED.topic, 0): ("repay", "bad-debt"),
    (LIQUIDATE.topic, 1): ("repay", "liquidation-repaid"),
    (LIQUIDATE.topic, 0): ("borrow", "liquidator-debt"),
}
"""(topic0, where the account is among its indexed topics) -> the kind of debt flow it claims (the
account's latest before it in the vault's transaction) and the kind it gives it."""
SEIZED = ("liquidator-yield", "liquidation-seized")
"""The kind of a liquidation's collateral Transfer, by where the account is among the Liquidate's
indexed topics (liquidator, violator)."""
EVENTS = frozenset({DEPOSIT.topic, WITHDRAW.topic, TRANSFER.topic, *DEBTS, *(event for event, _ in NAMING)})
"""A vault's events that may be the account's flows: the logs that make an address worth asking about."""


async def flows(
    ctx: FetchContext[EulerAddresses], wallet: str, logs: WalletLogs, legs: Mapping[str, str]
) -> list[Flow]:
    named, vaults = topic(wallet), await _vaults(ctx, logs, legs)
    mine = [log for log in logs if log.address in vaults and log.topics]
    seized = _seizures(mine, named)
    shares = [
        flow._replace(kind=seized.get((flow.transaction, flow.log_index), flow.kind))
        for flow in await share_flows(ctx, wallet, logs, vaults)
    ]
    return sorted([*shares, *_debts(mine, named, vaults)], key=lambda flow: flow[2:4])


async def _vaults(ctx: FetchContext[EulerAddresses], logs: WalletLogs, legs: Mapping[str, str]) -> dict[str, str]:
    """The vaults whose flows count, by address, with their assets: the points' (their legs'
    keys less `:borrow`), and the factory's others the logs name (their `asset()`; one unreadable
    is named not derived)."""
    held = {key.removesuffix(":borrow"): asset for key, asset in legs.items()}
    touched = sorted({log.address for log in logs if log.topics and log.signature in EVENTS} - set(held))
    if not touched:
        return held
    euler, reader = ctx.section, ctx.reader()
    view = await ctx.events(stream(euler))
    made = view.kind(VAULT)
    listed = [address for address in touched if address in made]
    unlisted = [] if view.complete else [address for address in touched if address not in made]
    label = "Euler eVault factory"
    proxies, assets = await asyncio.gather(
        asyncio.gather(*(first(reader.call(euler.factory.address, IS_PROXY, a, label=label)) for a in unlisted)),
        vault_assets(ctx, logs, listed, "Euler vault"),
    )
    for address, proxy in zip(unlisted, proxies):
        if proxy:
            logs.unavailable[address] = (
                f"the event index has read Euler's vaults up to block {view.covered_to} only: the points may not "
                "list this one"
            )
    return {**held, **assets}


def _seizures(logs: list[Log], named: str) -> dict[tuple[str, int], str]:
    """The share transfers liquidations made, (transaction, log index) -> their kind: the
    collateral vault's Transfer of `yieldBalance` shares between a Liquidate's two parties."""
    liquidated: dict[tuple[str, str, str, int], str] = {}
    for log in logs:
        event, *parties = log.topics
        if event == LIQUIDATE.topic and len(parties) == 2 and named in parties and len(log.data) == 96:
            collateral, _, shares = decode(("address", "uint256", "uint256"), log.data)
            at = parties.index(named)
            liquidated[(log.transaction_hash, str(collateral).lower(), parties[1 - at], shares)] = SEIZED[at]
    found = {}
    for log in logs:
        moved = transferred(log, named)
        kind = liquidated.get((log.transaction_hash, log.address, moved.other, abs(moved.amount))) if moved else None
        if kind is not None:
            found[(log.transaction_hash, log.log_index)] = kind
    return found


def _debts(logs: list[Log], named: str, vaults: Mapping[str, str]) -> list[Flow]:
    """The account's Borrows and Repays as flows of its debt legs, each kind named by the
    PullDebt, DebtSocialized or Liquidate after it that claims it (NAMING)."""
    found: list[Flow] = []
    open_: dict[tuple[str, str, str], list[int]] = {}
    """(transaction, vault, kind) -> where in `found` that kind's flows no event claimed yet are."""
    for log in logs:
        event, *indexed = log.topics
        place = (log.transaction_hash, log.address)
        if event in DEBTS and indexed == [named] and len(log.data) == 32:
            kind, sign = DEBTS[event]
            (assets,) = decode(("uint256",), log.data)
            open_.setdefault((*place, kind), []).append(len(found))
            at = (log.block_number, log.log_index, log.transaction_hash)
            found.append(Flow(f"{log.address}:borrow", kind, *at, vaults[log.address], sign * assets))
        claims = [NAMING[(event, at)] for at, party in enumerate(indexed) if party == named and (event, at) in NAMING]
        for side, kind in claims:
            if pending := open_.get((*place, side)):
                claimed = pending.pop()
                found[claimed] = found[claimed]._replace(kind=kind)
    return found
