"""Pendle's own rates of its PT, YT and LP tokens in their SY's asset, for their USD price wherever
they appear (a PT as a lending market's collateral, a vault's asset); Pendle's own positions
keep the market's state at the block (positions.py).

- Which tokens are Pendle's: the PTs, YTs and markets (LP tokens) of the index's stored part
  (contracts.py's stream, read with no round trip; on a cold start, the index as a Pendle query
  reads it); a PT traded in several markets is priced in the one created last, as positions are.
  One created after the stored part reaches is not found here.
- The rate: PendlePYLpOracle's `getPtToAssetRate`, `getYtToAssetRate` or `getLpToAssetRate` of
  (market, WINDOW), raw asset per raw token x 1e18 (Pendle's PendlePYOracleLib and
  PendleLpOracleLib: the market's implied rate averaged over WINDOW seconds from its `observe`,
  times the SY's index where that fell below the PY index). A market whose observations do not
  reach back that far makes the oracle revert: no price, with the reason.
- The asset: the SY's `assetInfo()`; its USD price by the order of sources (adapters/prices/).
The average follows the market's trades, so the price is a market's: no liquidation check uses it.
"""

from __future__ import annotations

import asyncio

from adapters.pendle.contracts import (
    ASSET_INFO,
    GET_LP_TO_ASSET_RATE,
    GET_PT_TO_ASSET_RATE,
    GET_YT_TO_ASSET_RATE,
    stream,
)
from adapters.pendle.positions import Catalog
from adapters.pendle.section import PendleAddresses
from adapters.position_warnings import PriceUnavailable
from adapters.prices import Rate
from chain import ChainReader
from chain.erc20 import DECIMALS
from chain.event_index import Indexes
from errors import ProtocolError

WINDOW = 900
"""Seconds the oracle's rates average over: the 15 minutes Pendle's oracle docs recommend."""


async def rate(indexes: Indexes, pendle: PendleAddresses, reader: ChainReader, token: str) -> Rate | None:
    """A PT's, YT's or LP token's rate in its SY's asset; None for a token not Pendle's."""
    if pendle.oracle is None:
        return None
    catalog = await reader.shared(("pendle", "catalog"), lambda: _catalog(indexes, pendle, reader))
    found = catalog.pair_of(token)
    if found is None:
        return None
    market, pair = found
    if market is None:
        raise PriceUnavailable(f"Pendle's index names no market for {token}, whose rate its oracle reads")
    view = (
        GET_PT_TO_ASSET_RATE if token == pair.pt else GET_YT_TO_ASSET_RATE if token == pair.yt else GET_LP_TO_ASSET_RATE
    )
    label = f"Pendle's oracle on market {market}"
    try:
        (value,), (_, asset, _), (decimals,) = await asyncio.gather(
            reader.call(pendle.oracle, view, market, WINDOW, label=label),
            reader.call(pair.sy, ASSET_INFO, label=f"SY {pair.sy}"),
            reader.call(token, DECIMALS, label=f"Pendle token {token}"),
        )
    except ProtocolError as exc:
        raise PriceUnavailable(
            f"Pendle's rate of it (its oracle's {WINDOW} s rate of market {market}, its SY's asset) failed: "
            f"{exc.message}"
        ) from None
    return Rate(pendle.oracle, str(asset).lower(), value, decimals, WINDOW, market=True)


async def _catalog(indexes: Indexes, pendle: PendleAddresses, reader: ChainReader) -> Catalog:
    return Catalog(await indexes.known(reader, stream(pendle)))
