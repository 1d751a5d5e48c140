"""The USD of a wallet's Pendle flows (docs/protocols/pendle.md): PT, YT, LP and SY moved, each in
its own units (adapters/flows.py `share_flows` decodes them), valued at the flow's block as the
positions are valued (positions.py), so a PnL never mixes two prices:

- PT: the market's PT price (asset per PT, from its implied rate; the SY's rate once expired);
- YT: 1 - that price;
- LP: the market's SY and PT worth, per LP;
- SY: its exchange rate;

each times the SY asset's USD feed. Tokens the index's catalog does not know go by the chain's feeds.
"""

from __future__ import annotations

import asyncio
from fractions import Fraction

from adapters.context import FetchContext
from adapters.flows import Flow
from adapters.pendle.contracts import EXCHANGE_RATE, WAD, YieldContract, stream
from adapters.pendle.market import PendleReader
from adapters.pendle.positions import Catalog
from adapters.position_warnings import outcome
from addresses import PendleAddresses
from chain import ChainReader
from chain.erc20 import DECIMALS
from errors import ProtocolError


async def prices(ctx: FetchContext, reader: ChainReader, moved: list[Flow]) -> dict[int, Fraction | None]:
    deployment = ctx.chain.pendle
    assert isinstance(deployment, PendleAddresses)
    catalog = Catalog(await ctx.stored_events(stream(deployment)))
    pendle = PendleReader(reader, ctx.chain, ctx.warnings)

    def pair_of(token: str) -> tuple[str | None, YieldContract] | None:
        """The market (if any) and yield contract behind a PT, YT or LP token."""
        if (pair := catalog.pairs.get(token) or catalog.by_yt.get(token)) is not None:
            return catalog.market_of_pt.get(pair.pt), pair
        if token in catalog.markets and (pair := catalog.pairs.get(catalog.markets[token])) is not None:
            return token, pair
        return None

    async def price(token: str) -> Fraction | None:
        """USD per whole token at the block."""
        found = pair_of(token)
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
        if pair_of(flow.asset) is not None or flow.asset in catalog.sys
    }
    found = await asyncio.gather(*(outcome(price(token)) for token in mine.values()))
    return {index: None if isinstance(value, ProtocolError) else value for index, value in zip(mine, found)}
