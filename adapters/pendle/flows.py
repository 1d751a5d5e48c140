"""A wallet's Pendle flows (docs/protocols/pendle.md): PT, YT, LP and SY moved, each in its own
units (adapters/flows.py `share_flows`), and a YT's interest and rewards claimed: its
`RedeemInterest(user, interestOut)` out of the interest leg (`<yt>:interest`, in SY), its
`RedeemRewards(user, amountRewardsOut)` out of each reward's leg (`<yt>:<token>:reward`, the
amounts in the order of `getRewardTokens()` at that block). Each is valued at the flow's block as
the positions are valued (positions.py), so a PnL never mixes two prices:

- PT: the market's PT price (asset per PT, from its implied rate; the SY's rate once expired);
- YT: 1 - that price;
- LP: the market's SY and PT worth, per LP;
- SY: its exchange rate;

each times the SY asset's USD feed. Tokens the index's catalog does not know (rewards) go by the
chain's feeds, as the positions price them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from adapters.context import FetchContext
from adapters.flows import Flow, WalletLogs, share_flows, topic
from adapters.pendle.contracts import EXCHANGE_RATE, GET_REWARD_TOKENS, WAD, YieldContract, stream
from adapters.pendle.market import PendleReader
from adapters.pendle.positions import Catalog
from adapters.pendle.section import PendleAddresses
from adapters.position_warnings import outcome
from chain import ChainReader, Log
from chain.abi import Event, decode
from chain.erc20 import DECIMALS
from errors import ProtocolError

REDEEM_INTEREST = Event(
    "RedeemInterest(address,uint256)", "0x83a945bd12c713615b59a6e48a3467c05d1a7442350600d6f7fce6af9f7190e9"
)
REDEEM_REWARDS = Event(
    "RedeemRewards(address,uint256[])", "0x78d61a0c27b13f43911095f9f356f14daa3cd8b125eea1aa22421245e90e813d"
)
"""IPYieldToken's events: what a YT paid its holder (user indexed)."""


async def flows(ctx: FetchContext[Any], wallet: str, logs: WalletLogs, legs: Mapping[str, str]) -> list[Flow]:
    named = topic(wallet)
    due = {key.partition(":")[0] for key in legs if key.endswith((":interest", ":reward"))}
    claims = [log for log in logs if log.address in due and len(log.topics) == 2 and log.topics[1:] == (named,)]
    found = await share_flows(ctx, wallet, logs, legs)
    found += [flow for part in await asyncio.gather(*(_claim(ctx, log, legs) for log in claims)) for flow in part]
    return sorted(found, key=lambda flow: flow[2:4])


async def _claim(ctx: FetchContext[Any], log: Log, legs: Mapping[str, str]) -> list[Flow]:
    """A YT's RedeemInterest or RedeemRewards as flows out of its legs."""
    event, _ = log.topics
    at = (log.block_number, log.log_index, log.transaction_hash)
    if event == REDEEM_INTEREST.topic and (sy := legs.get(f"{log.address}:interest")) is not None:
        (paid,) = decode(("uint256",), log.data)
        return [Flow(f"{log.address}:interest", "claim", *at, sy, -paid)] if paid else []
    if event != REDEEM_REWARDS.topic:
        return []
    (amounts,) = decode(("uint256[]",), log.data)
    reader = ctx.chains.reader(ctx.chain_id, log.block_number)
    (tokens,) = await reader.call(log.address, GET_REWARD_TOKENS, label=f"YT {log.address}")
    return [
        Flow(f"{log.address}:{str(token).lower()}:reward", "claim", *at, str(token).lower(), -amount)
        for token, amount in zip(tokens, amounts)
        if amount
    ]


async def prices(
    ctx: FetchContext[PendleAddresses], reader: ChainReader, moved: list[Flow]
) -> dict[int, Fraction | None]:
    deployment = ctx.section
    catalog = Catalog(await ctx.stored_events(stream(deployment)))
    pendle = PendleReader(reader, ctx.chain, ctx.warnings)

    async def price(token: str) -> Fraction | None:
        """USD per whole token at the block."""
        found = catalog.pair_of(token)
        asset, per_raw, decimals = await asyncio.gather(
            pendle.asset(token if found is None else found[1].sy), per_unit(token, found), decimals_of(token)
        )
        if per_raw is None or asset.price is None:
            return None
        return per_raw * asset.price.answer * Fraction(10) ** (decimals - asset.decimals - asset.price.decimals)

    async def decimals_of(token: str) -> int:
        (decimals,) = await reader.call(token, DECIMALS)
        return int(decimals)

    async def per_unit(token: str, found: tuple[str | None, YieldContract] | None) -> Fraction | None:
        """The SY asset's raw units per raw unit of the token."""
        if found is None:  # an SY
            (rate,) = await reader.call(token, EXCHANGE_RATE, label=f"SY {token}")
            return Fraction(rate, WAD)
        market, pair = found
        state = await pendle.state(market, pair)
        pt = state.pt_price
        return state.lp_price if token == market else pt if token == pair.pt else None if pt is None else 1 - pt

    mine = {
        index: flow.asset
        for index, flow in enumerate(moved)
        if catalog.pair_of(flow.asset) is not None or flow.asset in catalog.sys
    }
    found = await asyncio.gather(*(outcome(price(token)) for token in mine.values()))
    return {index: None if isinstance(value, ProtocolError) else value for index, value in zip(mine, found)}
