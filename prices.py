"""USD prices from on-chain Chainlink-style feeds, with staleness checked against each heartbeat.

A token is priced only through the feed the addresses data names for it on that chain. The
answer of `latestRoundData()` at the pinned block is the price, scaled by the feed's
`decimals()`. No feed, a failing feed, a non-positive answer, or an answer older than the feed's
heartbeat at the pinned block's timestamp: no price, and the USD field is null.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from abi import Function
from addresses import PriceFeed
from chain import ChainReader
from erc20 import DECIMALS
from errors import ProtocolError

log = logging.getLogger("wallet_positions.prices")

LATEST_ROUND_DATA = Function("latestRoundData()", "feaf968c", ("uint80", "int256", "uint256", "uint256", "uint80"))


@dataclass(frozen=True)
class UsdPrice:
    answer: int
    decimals: int
    """USD per whole token = answer / 10**decimals."""

    def value(self, amount: int, token_decimals: int) -> float:
        """USD value of `amount` raw token units, computed exactly, rounded once to a float."""
        return float(Fraction(amount * self.answer, 10 ** (token_decimals + self.decimals)))


async def usd_price(reader: ChainReader, feeds: Mapping[str, PriceFeed], token: str) -> UsdPrice | None:
    """The token's USD price at the pinned block, or None when it has no trustworthy one."""
    feed = feeds.get(token.lower())
    if feed is None:
        return None
    label = f"{feed.pair} feed {feed.feed}"
    try:
        (_, answer, _, updated_at, _), (decimals,), now = await asyncio.gather(
            reader.call(feed.feed, LATEST_ROUND_DATA, label=label),
            reader.call(feed.feed, DECIMALS, label=label),
            reader.block_timestamp(),
        )
    except ProtocolError as exc:
        log.warning("no price for %s on chain %d: %s", token, reader.chain_id, exc.message)
        return None
    if answer <= 0 or now - updated_at > feed.heartbeat:
        log.info("no price for %s on chain %d: %s answer %d updated at %d, block time %d, heartbeat %d s",
                 token, reader.chain_id, feed.pair, answer, updated_at, now, feed.heartbeat)
        return None
    return UsdPrice(answer, decimals)
