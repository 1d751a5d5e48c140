"""A wallet's flows in Morpho: its Blue markets' events and its vaults' shares (docs/protocols/morpho.md).

Morpho Blue's events name the position they change by `onBehalf` (the borrower for `Liquidate`),
and carry assets exactly as the contract moved them:

- supply: `Supply` adds `assets`, `Withdraw` takes them out;
- borrow (a debt): `Borrow` adds, `Repay` takes out; `Liquidate` takes out `repaidAssets` and the
  `badDebtAssets` written off (the position's borrow shares fall by both);
- collateral: `SupplyCollateral` adds, `WithdrawCollateral` takes out, `Liquidate` takes out the
  `seizedAssets`.

Vault shares (V1 and V2, both ERC-4626) are adapters/flows.py's `share_flows`.

Prices (`prices`): a collateral flow is valued as the position is, by the market's oracle in the
loan token times the loan token's USD feed, so a collateral's PnL never mixes two sources and a
collateral token without a feed of its own is still priced; the other flows go by their asset's feed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from fractions import Fraction

from adapters.context import FetchContext
from adapters.flows import Flow, WalletLogs, share_flows, topic
from adapters.morpho.contracts import (
    BORROW,
    LIQUIDATE,
    ORACLE_PRICE,
    REPAY,
    SUPPLY,
    SUPPLY_COLLATERAL,
    WITHDRAW,
    WITHDRAW_COLLATERAL,
)
from adapters.morpho.market import ORACLE_PRICE_SCALE, market_params
from adapters.morpho.section import MorphoAddresses
from adapters.position_warnings import outcome
from adapters.prices import usd_price
from chain import ChainReader, erc20, first
from chain.abi import decode
from errors import ProtocolError

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


async def flows(
    ctx: FetchContext[MorphoAddresses], wallet: str, logs: WalletLogs, legs: Mapping[str, str]
) -> list[Flow]:
    deployment = ctx.section
    blue, named = deployment.blue.address.lower(), topic(wallet)
    mine = [
        log
        for log in logs
        if log.address == blue
        and len(log.topics) == 4
        and (known := ON_BEHALF.get(log.signature)) is not None
        and log.topics[known[0]] == named
    ]
    ids = sorted({log.topics[1] for log in mine})
    reader = ctx.reader()
    params = dict(zip(ids, await asyncio.gather(*(market_params(reader, blue, market) for market in ids))))
    found = []
    for log in mine:
        market, at = log.topics[1], (log.block_number, log.log_index, log.transaction_hash)
        loan, collateral = params[market].loan_token.lower(), params[market].collateral_token.lower()
        if log.signature == LIQUIDATE.topic:
            repaid, _, seized, bad_debt, _ = decode(("uint256",) * 5, log.data)
            found += [
                Flow(f"{market}:borrow", "liquidation-repaid", *at, loan, -repaid),
                Flow(f"{market}:collateral", "liquidation-seized", *at, collateral, -seized),
            ]
            if bad_debt:
                found.append(Flow(f"{market}:borrow", "bad-debt", *at, loan, -bad_debt))
            continue
        _, leg, kind, sign = ON_BEHALF[log.signature]
        words = decode(("uint256",) * (len(log.data) // 32), log.data)
        asset = collateral if leg == "collateral" else loan
        found.append(Flow(f"{market}:{leg}", kind, *at, asset, sign * words[ASSETS_AT.get(log.signature, 1)]))
    return sorted([*found, *await share_flows(ctx, wallet, logs, legs)], key=lambda flow: flow[2:4])


async def prices(
    ctx: FetchContext[MorphoAddresses], reader: ChainReader, moved: list[Flow]
) -> dict[int, Fraction | None]:
    """USD per whole collateral unit of each collateral flow at the reader's block, as
    positions.py values the collateral: oracle `price()` / 1e36 (loan units per collateral unit)
    x the loan token's feed; None where either fails (PriceUnavailable among them)."""
    deployment = ctx.section
    blue = deployment.blue.address.lower()

    async def price(market: str) -> Fraction | None:
        params = await market_params(reader, blue, market)
        oracle_price, loan_usd, loan, collateral = await asyncio.gather(
            first(reader.call(params.oracle, ORACLE_PRICE, label=f"oracle {params.oracle}")),
            usd_price(reader, ctx.chain, params.loan_token),
            erc20.token_info(reader, params.loan_token),
            erc20.token_info(reader, params.collateral_token),
        )
        whole = Fraction(oracle_price * 10 ** collateral["decimals"], ORACLE_PRICE_SCALE * 10 ** loan["decimals"])
        return whole * Fraction(loan_usd.answer, 10**loan_usd.decimals)

    markets = {index: flow.position.partition(":") for index, flow in enumerate(moved)}
    collaterals = {index: market for index, (market, _, leg) in markets.items() if leg == "collateral"}
    found = await asyncio.gather(*(outcome(price(market)) for market in collaterals.values()))
    return {index: None if isinstance(value, ProtocolError) else value for index, value in zip(collaterals, found)}
