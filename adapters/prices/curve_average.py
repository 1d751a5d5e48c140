"""The fourth source of USD prices: Curve's own moving-average price (`price_oracle`) against a
token priced by its feed, from pools deep enough.

The pools: for every quote token (twap.QUOTES) and every factory of the chain's Curve section of
the kinds whose averages Curve's docs hold up (CURVE_KINDS: stableswap-ng, twocrypto-ng,
tricrypto-ng; the older cryptoswap pools' average follows `last_price`, which a trade sets), the
factory's `find_pool_for_coins(token, quote, 0)`. For each pool found, read at the block: the
factory's `get_coin_indices(pool, token, quote)`, the pool's `price_oracle` (twocrypto-ng's
`price_oracle()` is coin 1's price in coin 0; stableswap-ng's and tricrypto-ng's
`price_oracle(k)` coin k + 1's, all scaled by 1e18, in whole tokens), its `balances` of the two
coins and its average's time (`ma_time()`, stableswap-ng's `ma_exp_time()`). The token's price in
the quote is then p(token) / p(quote), p(coin 0) being 1.

Not used: a stableswap-ng pool whose `stored_rates()` are not all 1e18 (a coin of other than 18
decimals, or one with a rate oracle): there, Curve's docs say, the implementation its factory
used until 12 December 2023 moves the average sharply when liquidity is removed unevenly, and
which implementation a pool has is not read here; a metapool whose factory finds the coins
among its underlying ones; a pool less than twap.FLOOR_USD deep (its
balances of the two coins, valued at the average and at the quote's USD price). Of the rest, the
deepest prices the token. Its `windowSeconds` is the pool's average's time.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from adapters.position_warnings import PriceUnavailable, outcome
from adapters.prices.stated import Kind, Price, UsdPrice
from adapters.prices.twap import FLOOR_USD, priced_quote, quotes
from addresses import ChainAddresses
from chain import ChainReader, first, no_read
from chain.abi import ZERO_ADDRESS, Function
from chain.erc20 import DECIMALS
from errors import ProtocolError

CURVE_KINDS = ("stableswap-ng", "twocrypto-ng", "tricrypto-ng")
"""The factories' kinds (adapters/curve/section.py) whose pools' averages are read."""
FIND_POOL_FOR_COINS = Function("find_pool_for_coins(address,address,uint256)", "6982eb0b", ("address",))
COIN_INDICES_NG = Function("get_coin_indices(address,address,address)", "eb85226d", ("int128", "int128", "bool"))
COIN_INDICES = Function("get_coin_indices(address,address,address)", "eb85226d", ("uint256", "uint256"))
PRICE_ORACLE = Function("price_oracle()", "86fc88d3", ("uint256",))
PRICE_ORACLE_K = Function("price_oracle(uint256)", "68727653", ("uint256",))
BALANCES = Function("balances(uint256)", "4903b0d1", ("uint256",))
STORED_RATES = Function("stored_rates()", "fd0684b1", ("uint256[]",))
MA_TIME = Function("ma_time()", "09c3da6a", ("uint256",))
MA_EXP_TIME = Function("ma_exp_time()", "1be913a5", ("uint256",))
SCALE = 10**18


@dataclass(frozen=True)
class Average:
    """A pool's figures at the block: the token's price in the quote (whole tokens), the two
    coins' raw balances, its average's time; or why it is not used."""

    pool: str
    quote: str
    price: Fraction
    balances: tuple[int, int]
    window: int


def factories(chain: ChainAddresses) -> list[tuple[str, str]]:
    """(address, kind) of the Curve factories whose pools' averages are read (adapters/curve/
    section.py; read by name: prices sit below the protocols' packages)."""
    found = getattr(chain.parts.get("curve"), "factories", ())
    return [(factory.address, factory.kind) for factory in found if getattr(factory, "kind", "") in CURVE_KINDS]


def lp_factories(chain: ChainAddresses) -> list[str]:
    """The Curve factories whose pools are their own LP token (all but the v2 crypto factory's,
    adapters/curve/contracts.py `has_token`): those Curve's price route asks `get_coins(token)`."""
    found = getattr(chain.parts.get("curve"), "factories", ())
    return [factory.address for factory in found if getattr(factory, "kind", "") != "cryptoswap"]


def address_provider(chain: ChainAddresses) -> str | None:
    """Curve's AddressProvider, whose older registries Curve's price route asks (None: none)."""
    found = getattr(chain.parts.get("curve"), "address_provider", None)
    return found if isinstance(found, str) else None


async def curve_price(reader: ChainReader, chain: ChainAddresses, token: str, price: Price) -> UsdPrice:
    """The token's USD price by the deepest Curve pool's average; PriceUnavailable naming why no
    pool counts."""
    made, paired = factories(chain), quotes(chain, token)
    if not made or not paired:
        raise PriceUnavailable(f"no Curve average: {'no Curve factory' if not made else 'no quote token'}")
    candidates = [(factory, kind, quote) for factory, kind in made for quote in paired]
    found = await asyncio.gather(
        *(
            outcome(first(reader.call(factory, FIND_POOL_FOR_COINS, token, quote, 0, label="Curve factory")))
            for factory, _, quote in candidates
        )
    )
    pools = [
        (pool.lower(), factory, kind, quote)
        for pool, (factory, kind, quote) in zip(found, candidates, strict=True)
        if isinstance(pool, str) and pool != ZERO_ADDRESS
    ]
    if not pools:
        raise PriceUnavailable(f"no Curve pool of the kinds read pairs it with {', '.join(paired)}")
    pairing = sorted({quote for *_, quote in pools})
    averages, quoted, decimals = await asyncio.gather(
        asyncio.gather(*(outcome(_average(reader, token, *pool)) for pool in pools)),
        asyncio.gather(*(outcome(priced_quote(reader, quote, price)) for quote in pairing)),
        outcome(first(reader.call(token, DECIMALS, label=f"{token}'s decimals"))),
    )
    if isinstance(decimals, ProtocolError):
        raise PriceUnavailable(f"no Curve average: its decimals failed ({decimals.message})")
    by_quote = dict(zip(pairing, quoted, strict=True))
    deep: list[tuple[Fraction, str, Average, UsdPrice, int]] = []
    passed: list[str] = []
    for (pool, *_), average in zip(pools, averages, strict=True):
        priced = by_quote[average.quote] if isinstance(average, Average) else None
        if isinstance(average, ProtocolError):
            passed.append(f"Curve pool {pool}: {average.message}")
        elif isinstance(priced, ProtocolError) or priced is None:
            passed.append(f"Curve pool {pool}'s other token has no price")
        elif (depth := _depth(average, decimals, *priced)) < FLOOR_USD:
            passed.append(f"Curve pool {pool} is {float(depth):,.0f} USD deep, under the floor of {FLOOR_USD:,}")
        else:
            deep.append((depth, pool, average, *priced))
    if not deep:
        raise PriceUnavailable(f"no Curve average: {'; '.join(passed)}")
    depth, _, average, quote_price, _ = max(deep, key=lambda found: found[:2])
    stated = quote_price.source and replace(
        quote_price.source,
        asset=token,
        kind=Kind.CURVE_ORACLE,
        source=average.pool,
        derived_from=average.quote,
        window=average.window,
        liquidity_usd=float(depth),
        market=True,
    )
    # p(token) / p(quote) x the quote's answer, rounded down to 18 more decimals than its feed's
    # (exact where the quote is coin 0: p(quote) = 1e18).
    answer = average.price.numerator * quote_price.answer * SCALE // average.price.denominator
    return UsdPrice(answer, quote_price.decimals + 18, quote_price.updated_at, stated, (quote_price,))


async def _average(reader: ChainReader, token: str, pool: str, factory: str, kind: str, quote: str) -> Average:
    """The pool's average of `token` in `quote`; ProtocolError (PriceUnavailable) where a read
    fails or the pool is not used."""
    label = f"Curve pool {pool}"
    ng = kind == "stableswap-ng"
    oracles: list[Any] = (
        [first(reader.call(pool, PRICE_ORACLE, label=label))]
        if kind == "twocrypto-ng"
        else [outcome(first(reader.call(pool, PRICE_ORACLE_K, k, label=label))) for k in range(2)]
    )
    indices, window, rates, prices, balances = await asyncio.gather(
        reader.call(factory, COIN_INDICES_NG if ng else COIN_INDICES, pool, token, quote, label="Curve factory"),
        first(reader.call(pool, MA_EXP_TIME if ng else MA_TIME, label=label)),
        first(reader.call(pool, STORED_RATES, label=label)) if ng else no_read(),
        asyncio.gather(*oracles),
        asyncio.gather(*(outcome(first(reader.call(pool, BALANCES, i, label=label))) for i in range(3))),
    )
    if rates is not None and any(rate != SCALE for rate in rates):
        raise PriceUnavailable(
            "a stableswap-ng pool of coins not all of 18 decimals, or with rates, whose early implementation's "
            "average Curve's docs name as unreliable"
        )
    i, j, *underlying = indices
    if any(underlying):
        raise PriceUnavailable("a metapool, whose indices are of its underlying coins, which its average is not of")
    p = [SCALE, *(value if isinstance(value, int) else 0 for value in prices)]
    held = [value if isinstance(value, int) else -1 for value in balances]
    if max(i, j) >= len(p) or not p[i] or not p[j] or min(held[i], held[j]) < 0:
        raise PriceUnavailable(f"no average of coins {i} and {j}")
    return Average(pool, quote, Fraction(p[i], p[j]), (held[i], held[j]), int(window))


def _depth(average: Average, decimals: int, quote_price: UsdPrice, quote_decimals: int) -> Fraction:
    """The USD value of the pool's balances of the two coins, at the average and the quote's price."""
    per_quote = quote_price.per_token()
    token_balance, quote_balance = average.balances
    return (
        Fraction(token_balance, 10**decimals) * average.price * per_quote
        + Fraction(quote_balance, 10**quote_decimals) * per_quote
    )
