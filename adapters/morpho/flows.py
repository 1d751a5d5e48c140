"""A wallet's flows in Morpho: its Blue markets' events and its vaults' shares (docs/protocols/morpho.md).

Morpho Blue's events name the position they change by `onBehalf` (the borrower for `Liquidate`),
and carry assets exactly as the contract moved them:

- supply: `Supply` adds `assets`, `Withdraw` takes them out;
- borrow (a debt): `Borrow` adds, `Repay` takes out; `Liquidate` takes out `repaidAssets` and the
  `badDebtAssets` written off (the position's borrow shares fall by both);
- collateral: `SupplyCollateral` adds, `WithdrawCollateral` takes out, `Liquidate` takes out the
  `seizedAssets`.

Vault shares (V1 and V2, both ERC-4626) are adapters/flows.py's `share_flows`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from adapters.context import FetchContext
from adapters.flows import Flow, WalletLogs, share_flows, topic
from adapters.morpho.contracts import (
    BORROW,
    LIQUIDATE,
    REPAY,
    SUPPLY,
    SUPPLY_COLLATERAL,
    WITHDRAW,
    WITHDRAW_COLLATERAL,
)
from adapters.morpho.market import market_params
from chain.abi import decode

ON_BEHALF = {
    SUPPLY.topic: (3, "supply", "supply", 1),
    WITHDRAW.topic: (2, "supply", "withdraw", -1),
    BORROW.topic: (2, "borrow", "borrow", 1),
    REPAY.topic: (3, "borrow", "repay", -1),
    SUPPLY_COLLATERAL.topic: (3, "collateral", "collateral-in", 1),
    WITHDRAW_COLLATERAL.topic: (2, "collateral", "collateral-out", -1),
    LIQUIDATE.topic: (3, "", "", 0),
}
"""topic0 -> (the topic naming the position's owner, the leg, the flow's kind, its sign)."""
ASSETS_AT = {SUPPLY.topic: 0, WITHDRAW.topic: 1, BORROW.topic: 1, REPAY.topic: 0, SUPPLY_COLLATERAL.topic: 0}
"""Where `assets` sits among the data's words (`caller` comes first where it is not indexed)."""


async def flows(ctx: FetchContext, wallet: str, logs: WalletLogs, legs: Mapping[str, str]) -> list[Flow]:
    deployment = ctx.chain.morpho
    assert deployment is not None
    blue, named = deployment.blue.address.lower(), topic(wallet)
    mine = [
        log
        for log in logs
        if log.address == blue
        and len(log.topics) == 4
        and (known := ON_BEHALF.get(log.topics[0])) is not None
        and log.topics[known[0]] == named
    ]
    ids = sorted({log.topics[1] for log in mine})
    reader = ctx.reader()
    params = dict(zip(ids, await asyncio.gather(*(market_params(reader, blue, market) for market in ids))))
    found = []
    for log in mine:
        market, at = log.topics[1], (log.block_number, log.log_index, log.transaction_hash)
        loan, collateral = params[market].loan_token.lower(), params[market].collateral_token.lower()
        if log.topics[0] == LIQUIDATE.topic:
            repaid, _, seized, bad_debt, _ = decode(("uint256",) * 5, log.data)
            found += [
                Flow(f"{market}:borrow", "liquidation-repaid", *at, loan, -repaid),
                Flow(f"{market}:collateral", "liquidation-seized", *at, collateral, -seized),
            ]
            if bad_debt:
                found.append(Flow(f"{market}:borrow", "bad-debt", *at, loan, -bad_debt))
            continue
        _, leg, kind, sign = ON_BEHALF[log.topics[0]]
        words = decode(("uint256",) * (len(log.data) // 32), log.data)
        asset = collateral if leg == "collateral" else loan
        found.append(Flow(f"{market}:{leg}", kind, *at, asset, sign * words[ASSETS_AT.get(log.topics[0], 1)]))
    return sorted([*found, *await share_flows(ctx, wallet, logs, legs)], key=lambda flow: flow[2:4])
