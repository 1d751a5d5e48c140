"""What every liquid staking token's position and pool share: its figures in ether by the protocol's
own rate, USD through ETH/USD, and the APY of that rate over a period (adapters/history.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from adapters import history
from adapters.context import FetchContext
from adapters.deployment import require
from adapters.legs import CLAIMABLE, REQUESTED, STAKED, STAKING, WITHDRAWAL, feed_of, leg
from adapters.legs import position as positioned
from adapters.position_warnings import Warnings
from adapters.prices import UsdPrice, token_feeds, warned_usd_price
from addresses import ChainAddresses
from chain import ChainReader, erc20, first
from chain.erc20 import NATIVE
from chain.lens import NONE
from errors import InputValidationError

Rate = Callable[[ChainReader], Awaitable[int]]
"""A protocol's rate read through the reader it is given (at the pinned block or a period back)."""


def feeds(chain: ChainAddresses) -> tuple[list[str], str]:
    """The ETH/USD feed a lens reads (every figure is in ether) and the sequencer uptime feed."""
    feed = token_feeds(chain).get(NATIVE)
    return ([feed.feed] if feed else []), chain.sequencer_uptime_feed or NONE


def position(
    kind: str,
    token: dict[str, Any],
    balance: int,
    shares: int,
    eth: int,
    rate: int,
    price: UsdPrice | None,
    apy: float | None,
    chain_id: int,
) -> dict[str, Any]:
    """One token's `LiquidStakingPosition`: its leg is the ether it is worth."""
    usd, address = price.value(eth, 18) if price else None, token["address"].lower()
    staked = leg(STAKED, address, erc20.native_info(chain_id), eth, usd, feed_of(price))
    return {
        "type": kind,
        "token": token,
        "balance": str(balance),
        "shares": str(shares),
        "eth": str(eth),
        "ethPerToken": str(rate),
        "balanceUsd": usd,
        "apy": apy,
        **positioned("LiquidStakingPosition", address, STAKING, token["symbol"], [staked]),
    }


def request(
    typename: str, key: str, label: str, claimable: bool, asset: dict[str, Any], amount: int, price: UsdPrice | None
) -> dict[str, Any]:
    """The `Position` of a withdrawal request: `amount` of `asset`, asked to be withdrawn until it
    is `claimable`."""
    usd = price.value(amount, asset["decimals"]) if price else None
    held = leg(CLAIMABLE if claimable else REQUESTED, key, asset, amount, usd, feed_of(price))
    return positioned(typename, key, WITHDRAWAL, label, [held])


async def apy(reader: ChainReader, period: int, rate: Rate, warnings: Warnings, target: str) -> float | None:
    """The rate's growth over the period before the block, compounded to a year."""
    return await history.period_apy(reader, period, rate, warnings, target, "apy is")


async def held(
    reader: ChainReader,
    chain: ChainAddresses,
    warnings: Warnings,
    token: tuple[str, str],
    wallet: str,
    period: int,
    rate: Rate,
    eth: Callable[[int], Awaitable[int]],
) -> list[dict[str, Any]]:
    """The position of a token that does not rebase (`token`: its kind and address), worth
    `eth(balance)`; none when the wallet holds none."""
    kind, address = token
    (balance,) = await reader.call(address, erc20.BALANCE_OF, wallet, label=kind)
    if not balance:
        return []
    info, now, value, price, growth = await asyncio.gather(
        erc20.token_info(reader, address),
        rate(reader),
        eth(balance),
        warned_usd_price(reader, chain, NATIVE, warnings),
        apy(reader, period, rate, warnings, address),
    )
    return [position(kind, info, balance, balance, value, now, price, growth, reader.chain_id)]


def chosen(ctx: FetchContext[Any], pool: str, kinds: Mapping[str, str]) -> str:
    """The kind of the token `pool` names (`kinds`: the protocol's tokens by address); a
    VALIDATION_ERROR naming them where it is none of them."""
    kind = kinds.get(pool)
    if kind is None:
        listed = ", ".join(f"{address} ({kind})" for address, kind in kinds.items())
        raise InputValidationError(
            f"{pool} is none of {ctx.protocol}'s tokens on chain {ctx.chain_id}. Expected one of: {listed}."
        )
    return kind


async def pool(
    ctx: FetchContext[Any],
    typename: str,
    kind: str,
    address: str,
    period: int,
    rate: Rate,
    eth: Callable[[int], Awaitable[int]],
    priced: str = NATIVE,
) -> dict[str, Any]:
    """A token's pool: its `totalSupply()`, its rate, the ether the supply is worth (`eth(supply)`),
    that in USD by `priced`'s feed (ether's; Lido's is stETH's own) and the rate's APY."""
    reader, warnings = ctx.reader(), ctx.warnings
    await require(reader, ctx.protocol, address, kind)
    info, supply, now, price, growth = await asyncio.gather(
        erc20.token_info(reader, address),
        first(reader.call(address, erc20.TOTAL_SUPPLY, label=kind)),
        rate(reader),
        warned_usd_price(reader, ctx.chain, priced, warnings),
        apy(reader, period, rate, warnings, address),
    )
    worth = await eth(supply)
    return {
        "__typename": typename,
        "type": f"{kind}-pool",
        "token": info,
        "chainId": reader.chain_id,
        "totalSupply": str(supply),
        "ethPerToken": str(now),
        "totalEth": str(worth),
        "totalEthUsd": price.value(worth, 18) if price else None,
        "apy": growth,
    }
