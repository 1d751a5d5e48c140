"""The third source of USD prices: Uniswap v3's time-weighted average price against a token priced
by its feed, from pools deep enough that moving the average would cost more than it is worth.

The pools: for every quote token (a token whose feed prices ether, USDC, USDT or the chain's own
coin: QUOTES) and every fee tier (FEES), the address the chain's Uniswap v3 factory deploys that
pool at (CREATE2 of the factory, keccak256(abi.encode(token0, token1, fee)) and the pool's init
code hash, which Uniswap's v3-sdk publishes: `pool_address`), so no round asks the factory first;
an address with no code is a pool never created. For each pool, the figures of Uniswap's
OracleLibrary.consult from the pool's own `observe([WINDOW, 0])`: the arithmetic mean tick over
the window (the tick cumulatives' difference over WINDOW, rounded toward negative infinity, as
the library rounds it) and the harmonic mean in-range liquidity L (WINDOW x (2^160 - 1) / (the
seconds-per-liquidity difference << 32)). The pool's depth: the virtual reserves L holds at the
mean tick, both sides valued at the quote's USD price, 2 x L x sqrtP of token1 or 2 x L / sqrtP
of token0, whichever the quote is. Only pools at least FLOOR_USD deep count, and the deepest of
those prices the token: OracleLibrary.getQuoteAtTick(mean tick, 10^decimals, token, quote) raw
units of the quote per whole token, times the quote's USD price.

A pool whose observations do not reach WINDOW back (`observe` reverts: its cardinality is too
small, or it is younger) is not used. A swap within the answer's block does not move the price:
the observation the block writes holds the tick before it, and no time has passed since.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from fractions import Fraction

from adapters.position_warnings import PriceUnavailable, outcome
from adapters.prices.stated import Kind, Price, UsdPrice
from adapters.tick_math import sqrt_ratio_at_tick
from addresses import ChainAddresses
from chain import ChainReader, NoCode, first
from chain.abi import Function, encode
from chain.erc20 import DECIMALS
from chain.keccak import keccak256
from errors import ProtocolError

POOL_INIT_CODE_HASH = bytes.fromhex("e34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54")
"""keccak256 of UniswapV3Pool's creation code: @uniswap/v3-sdk's poolInitCodeHash on every chain
but zkSync (none served here)."""
OBSERVE = Function(
    "observe(uint32[])",
    "883bdbfd",
    ("int56[] tickCumulatives", "uint160[] secondsPerLiquidityCumulativeX128s"),
)
WINDOW = 1800
"""Seconds the price is averaged over: 30 minutes."""
FEES = (100, 500, 3000, 10000)
"""The factory's fee tiers, in hundredths of a basis point."""
FLOOR_USD = 100_000
"""The least depth (in USD, as measured above) of a pool whose average is used."""
QUOTES = ("ETH/", "WETH/", "USDC/", "USDT/", "MATIC/", "POL/", "AVAX/", "BNB/", "MNT/", "S/", "RON/")
"""How a quote token's feed's pair starts: the tokens most pools are paired with (ether, the
dollar stablecoins, and the wrapper of a chain's own coin where its feed names it so)."""
Q96 = 2**96
Q128 = 2**128
Q192 = 2**192
UINT128_MAX = 2**128 - 1
UINT160_MAX = 2**160 - 1


@dataclass(frozen=True)
class Average:
    """A pool's figures over the window, as OracleLibrary.consult computes them."""

    tick: int
    """The arithmetic mean tick."""
    liquidity: int
    """The harmonic mean in-range liquidity (0 where none was in range)."""


def v3_factory(chain: ChainAddresses) -> str | None:
    """The chain's Uniswap v3 factory, from its `uniswap` section (adapters/uniswap/section.py;
    read by name: prices sit below the protocols' packages)."""
    version = getattr(chain.parts.get("uniswap"), "v3", None)
    factory = getattr(version, "factory", None)
    return factory if isinstance(factory, str) else None


def quotes(chain: ChainAddresses, token: str) -> list[str]:
    """The tokens a pool may pair `token` with: those whose feed prices one of QUOTES."""
    return sorted(quote for quote, feed in chain.price_feeds.items() if feed.pair.startswith(QUOTES) and quote != token)


async def twap_price(reader: ChainReader, chain: ChainAddresses, token: str, price: Price) -> UsdPrice:
    """The token's USD price by the deepest Uniswap v3 pool's average; PriceUnavailable naming
    why no pool counts."""
    factory, paired = v3_factory(chain), quotes(chain, token)
    if factory is None or not paired:
        raise PriceUnavailable(f"no Uniswap v3 average: {'no v3 factory' if factory is None else 'no quote token'}")
    candidates = [(pool_address(factory, token, quote, fee), quote) for quote in paired for fee in FEES]
    decimals, averages = await asyncio.gather(
        outcome(first(reader.call(token, DECIMALS, label=f"{token}'s decimals"))),
        asyncio.gather(*(outcome(_average(reader, pool)) for pool, _ in candidates)),
    )
    if isinstance(decimals, ProtocolError):
        raise PriceUnavailable(f"no Uniswap v3 average: its decimals failed ({decimals.message})")
    live = [
        (pool, quote, average)
        for (pool, quote), average in zip(candidates, averages, strict=True)
        if not isinstance(average, NoCode)
    ]
    if not live:
        raise PriceUnavailable(f"no Uniswap v3 pool pairs it with {', '.join(paired)}")
    # The quotes' prices only where a pool pairs them: one round after the pools' observations.
    pairing = sorted({quote for _, quote, _ in live})
    quoted = await asyncio.gather(*(outcome(priced_quote(reader, quote, price)) for quote in pairing))
    by_quote = dict(zip(pairing, quoted, strict=True))
    deep: list[tuple[Fraction, str, str, Average, UsdPrice, int]] = []
    passed: list[str] = []
    for pool, quote, average in live:
        priced = by_quote[quote]
        if isinstance(average, ProtocolError):
            passed.append(f"{pool}'s observations do not reach {WINDOW} s back")
        elif isinstance(priced, ProtocolError):
            passed.append(f"{pool}'s other token has no price ({priced.message})")
        elif (depth := _depth(average, token, quote, *priced)) < FLOOR_USD:
            passed.append(f"{pool} is {float(depth):,.0f} USD deep, under the floor of {FLOOR_USD:,}")
        else:
            deep.append((depth, pool, quote, average, *priced))
    if not deep:
        raise PriceUnavailable(f"no Uniswap v3 average: {'; '.join(passed)}")
    depth, pool, quote, average, quote_price, quote_decimals = max(deep, key=lambda found: found[:2])
    amount = quote_at_tick(average.tick, 10**decimals, token, quote)
    stated = quote_price.source and replace(
        quote_price.source,
        asset=token,
        kind=Kind.UNISWAP_V3_TWAP,
        source=pool,
        derived_from=quote,
        window=WINDOW,
        liquidity_usd=float(depth),
        market=True,
    )
    answer, scale = amount * quote_price.answer, quote_decimals + quote_price.decimals
    return UsdPrice(answer, scale, quote_price.updated_at, stated, (quote_price,))


async def priced_quote(reader: ChainReader, quote: str, price: Price) -> tuple[UsdPrice, int]:
    """A quote token's USD price and decimals (both averages' sources ask them)."""
    priced, (decimals,) = await asyncio.gather(price(quote), reader.call(quote, DECIMALS, label=f"{quote}'s decimals"))
    return priced, decimals


async def _average(reader: ChainReader, pool: str) -> Average:
    """OracleLibrary.consult(pool, WINDOW), from the pool's own `observe`."""
    ticks, per_liquidity = await reader.call(pool, OBSERVE, [WINDOW, 0], label=f"Uniswap v3 pool {pool}")
    return average(ticks, per_liquidity)


def average(ticks: list[int], per_liquidity: list[int]) -> Average:
    """consult's mean tick (floored, as int24(delta / WINDOW) then minus one for a negative
    remainder is) and harmonic mean liquidity (its uint160 difference wraps and its uint128 cast
    truncates, as the library's; where no liquidity was in range, which consult cannot divide
    by, 0), from `observe([WINDOW, 0])`."""
    (tick_then, tick_now), (liquidity_then, liquidity_now) = ticks, per_liquidity
    delta = (liquidity_now - liquidity_then) % 2**160
    liquidity = (WINDOW * UINT160_MAX) // (delta << 32) % 2**128 if delta else 0
    return Average((tick_now - tick_then) // WINDOW, liquidity)


def pool_address(factory: str, token: str, quote: str, fee: int) -> str:
    """Where the factory deploys the pool of two tokens and a fee (PoolAddress.computeAddress)."""
    token0, token1 = sorted((token, quote), key=lambda address: int(address, 16))
    salt = keccak256(encode(("address", "address", "uint24"), (token0, token1, fee)))
    return "0x" + keccak256(b"\xff" + bytes.fromhex(factory[2:]) + salt + POOL_INIT_CODE_HASH)[12:].hex()


def quote_at_tick(tick: int, amount: int, base: str, quote: str) -> int:
    """OracleLibrary.getQuoteAtTick: raw units of `quote` that `amount` raw units of `base` are
    worth at `tick` (floored, as FullMath.mulDiv floors)."""
    sqrt = sqrt_ratio_at_tick(tick)
    base_first = int(base, 16) < int(quote, 16)
    if sqrt <= UINT128_MAX:
        ratio = sqrt * sqrt
        return ratio * amount // Q192 if base_first else Q192 * amount // ratio
    ratio = sqrt * sqrt // 2**64
    return ratio * amount // Q128 if base_first else Q128 * amount // ratio


def _depth(average: Average, token: str, quote: str, quote_price: UsdPrice, quote_decimals: int) -> Fraction:
    """The USD value of the virtual reserves the mean liquidity holds at the mean tick: twice
    the quote side's (2 x L x sqrtP of token1, 2 x L / sqrtP of token0)."""
    sqrt = sqrt_ratio_at_tick(average.tick)
    reserve = (
        Fraction(average.liquidity * sqrt, Q96)
        if int(token, 16) < int(quote, 16)
        else Fraction(average.liquidity * Q96, sqrt)
    )
    return Fraction(2 * reserve * quote_price.per_token(), 10**quote_decimals)
