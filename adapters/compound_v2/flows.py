"""A wallet's flows in Compound v2 (docs/protocols/compound-v2.md): the cTokens' own events, read by
Venus's package (adapters/venus/flows.py), whose core pool's events Compound's cTokens emit (their
Mint and Redeem with three fields); priced by the Comptroller's oracle at the flow's block, COMP
as the market whose underlying it is."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from adapters.context import FetchContext
from adapters.flows import Flow
from adapters.venus import flows as venus_flows
from chain import ChainReader

flows = venus_flows.flows


async def prices(ctx: FetchContext[Any], reader: ChainReader, moved: list[Flow]) -> dict[int, Fraction | None]:
    return await venus_flows.priced(reader, moved, None, compound=True)
