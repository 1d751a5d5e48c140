"""A Pendle market's state at the block and the reads both queries share, so a position and its
market's pool details never disagree: the SY's asset and its USD price, and the market's and YT's
figures every price and APY is derived from (positions.py has the formulas' sources)."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from adapters.pendle.contracts import (
    ASSET_INFO,
    DO_CACHE_INDEX_SAME_BLOCK,
    EXCHANGE_RATE,
    PY_INDEX_LAST_UPDATED_BLOCK,
    PY_INDEX_STORED,
    STORAGE,
    WAD,
    YieldContract,
)
from adapters.position_warnings import Warnings
from adapters.prices import UsdPrice, noted, usd_price
from addresses import ChainAddresses
from chain import ChainReader, erc20
from errors import ProtocolError

IMPLIED_RATE_TIME = 365 * 24 * 3600
"""MarketMathCore's year for implied rates."""


@dataclass(frozen=True)
class Asset:
    """What an SY's value is counted in (`assetInfo`), with its token facts and USD price."""

    address: str
    decimals: int
    token: dict[str, Any] | None
    price: UsdPrice | None

    def usd(self, amount: Fraction | int | None) -> float | None:
        """USD of an amount in the asset's raw unit."""
        if amount is None or self.price is None:
            return None
        return float(Fraction(amount) * self.price.answer / 10 ** (self.decimals + self.price.decimals))


@dataclass(frozen=True)
class MarketState:
    """A market and its SY and YT at the block: what every price and APY is derived from."""

    market: str | None
    pair: YieldContract
    now: int
    sy_rate: int
    py_index: int
    total_pt: int = 0
    total_sy: int = 0
    total_lp: int = 0
    ln_implied_rate: int = 0

    @property
    def expired(self) -> bool:
        return self.now >= self.pair.expiry

    @property
    def implied_apy(self) -> float | None:
        if self.expired or self.market is None:
            return None
        return math.expm1(self.ln_implied_rate / WAD)

    @property
    def pt_price(self) -> Fraction | None:
        """Asset per PT (raw units of both)."""
        if self.expired:
            return Fraction(self.sy_rate, self.py_index)
        if self.market is None:
            return None
        exponent = self.ln_implied_rate * (self.pair.expiry - self.now) // IMPLIED_RATE_TIME
        return Fraction(1 / math.exp(exponent / WAD))

    @property
    def market_value(self) -> Fraction | None:
        """What the market's SY and PT are worth, in the asset's raw unit."""
        pt_price = self.pt_price
        if self.market is None or pt_price is None:
            return None
        total_asset = self.total_sy * self.py_index // WAD
        return Fraction(total_asset + (self.total_pt if self.expired else self.total_pt * pt_price))

    @property
    def lp_price(self) -> Fraction | None:
        """Asset per LP (raw units)."""
        value = self.market_value
        if value is None or not self.total_lp:
            return None
        return value / self.total_lp


class PendleReader:
    """The reads of one input, sharing the request's reader (and so its rounds and block)."""

    def __init__(self, reader: ChainReader, chain: ChainAddresses, warnings: Warnings) -> None:
        self.reader = reader
        self.chain = chain
        self.warnings = warnings

    async def state(self, market: str | None, pair: YieldContract) -> MarketState:
        return await self.reader.shared(("pendle", "state", market, pair.yt), lambda: self._state(market, pair))

    async def _state(self, market: str | None, pair: YieldContract) -> MarketState:
        reader = self.reader
        label = f"YT {pair.yt}"
        now, block, (sy_rate,), (stored,), (caches,), (updated,) = await asyncio.gather(
            reader.block_timestamp(),
            reader.block_number(),
            reader.call(pair.sy, EXCHANGE_RATE, label=f"SY {pair.sy}"),
            reader.call(pair.yt, PY_INDEX_STORED, label=label),
            reader.call(pair.yt, DO_CACHE_INDEX_SAME_BLOCK, label=label),
            reader.call(pair.yt, PY_INDEX_LAST_UPDATED_BLOCK, label=label),
        )
        py_index = stored if caches and updated == block else max(sy_rate, stored)
        if not py_index:
            raise ProtocolError(f"{label} has no interest index")
        if market is None:
            return MarketState(None, pair, now, sy_rate, py_index)
        label = f"market {market}"
        (total_pt, total_sy, ln_rate, *_), (total_lp,) = await asyncio.gather(
            reader.call(market, STORAGE, label=label), reader.call(market, erc20.TOTAL_SUPPLY, label=label)
        )
        return MarketState(market, pair, now, sy_rate, py_index, total_pt, total_sy, total_lp, ln_rate)

    async def asset(self, sy: str) -> Asset:
        """The SY's underlying asset. Its info is read once per request, but its token facts and
        price are asked by each input, so that each notes the price (its `usdPrices`) and gets its
        own warning: a shared read notes and warns only for the input that started it."""
        _, address, decimals = await self.reader.shared(
            ("pendle", "asset", sy), lambda: self.reader.call(sy, ASSET_INFO, label=f"SY {sy}")
        )
        token, price = await asyncio.gather(
            self.warnings.optional(self.token(address), address, "underlyingAsset is"), self.price(address)
        )
        return Asset(address, decimals, token, price)

    async def price(self, token: str) -> UsdPrice | None:
        read = self.reader.shared(("pendle", "price", token), lambda: usd_price(self.reader, self.chain, token))
        return noted(self.reader, await self.warnings.optional(read, token, "its USD values are"))

    async def token(self, token: str) -> dict[str, Any]:
        return await self.reader.shared(("pendle", "token", token), lambda: erc20.token_info(self.reader, token))
