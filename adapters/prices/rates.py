"""The second source of USD prices: a protocol's own rate, for a token that is a claim on another.

- A rate the addresses data names (`priceRates`, addresses.PriceRate): the protocol's own view of
  how much of the other token one whole token is worth, scaled by 1e18 (Lido's `stEthPerToken()`
  for wstETH), or one for one where the protocol redeems one for one (stETH for ether, through
  Lido's withdrawal queue).
- A rate the token's own protocol gives (routes.py): Pendle's PT, YT and LP by its PYLpOracle
  (known from its index); a Balancer pool's token (known from its index) or a Curve LP token
  (its factories and registries asked, from the round of the ERC-4626 probe) by what a
  proportional exit pays (a `Basket`).
- Any ERC-4626 vault's share, found by asking it: `asset()`, and `convertToAssets(10**18)`, what
  10^18 raw shares redeem for at the block.

USD per whole token = the rate x the other token's USD price, which the same order of sources
finds (sources.py): exactly, as answer = rate x its answer with their decimals added. A rate is
read at the answer's block from the protocol's own contract, so it is no market's: it moves only
as the protocol accrues or is reported to. A basket's USD per whole token = the sum of its
amounts x each token's USD price by the same order, exactly; its pool's balances move with every
trade, so it is a market's, its `liquidityUsd` the pool's balances at those prices.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from fractions import Fraction
from typing import Any

from adapters.position_warnings import PriceUnavailable, outcome
from adapters.prices.routes import BASKET_DECIMALS, Basket, Rate, Routed, probed_rate, routed_rate
from adapters.prices.stated import Kind, Price, PriceSource, UsdPrice
from addresses import ChainAddresses, PriceRate
from chain import ChainReader
from chain.abi import Function
from chain.erc20 import DECIMALS, NATIVE
from chain.erc4626 import ASSET, CONVERT_TO_ASSETS
from chain.keccak import keccak256
from errors import ProtocolError

RATE_SCALE = 10**18
"""What a named view's rate and `convertToAssets`' share amount are scaled by."""


async def rate_price(reader: ChainReader, chain: ChainAddresses, token: str, price: Price) -> UsdPrice:
    """The token's USD price by its protocol's rate; PriceUnavailable where it has none or the
    token it is a claim on has no price."""
    named = chain.price_rates.get(token)
    if named is not None:
        return await _priced(reader, token, await _named_rate(reader, token, named), price)
    # A protocol that knows its own tokens with no round trip (its stored index) is asked first,
    # so a vault's reads are asked only for a token no such protocol claims, in the round the
    # route would have read in; a protocol that asks the chain asks in that same round.
    found: Routed | ProtocolError | None = await routed_rate(reader, token)
    if found is None:
        vault, probed = await asyncio.gather(outcome(_vault_rate(reader, token)), probed_rate(reader, token))
        found = probed if probed is not None else vault
    if isinstance(found, ProtocolError):
        raise found
    if isinstance(found, Basket):
        return await _basket_priced(reader, token, found, price)
    return await _priced(reader, token, found, price)


async def _basket_priced(reader: ChainReader, token: str, basket: Basket, price: Price) -> UsdPrice:
    """The sum of the basket's amounts, each at its token's price; PriceUnavailable naming the
    first token with none (a partial sum would understate it)."""
    if not any(basket.amounts):
        raise PriceUnavailable(f"its pool ({basket.contract}) holds nothing for it: no supply or no balances")
    try:
        prices, decimals = await asyncio.gather(
            asyncio.gather(*(price(of) for of in basket.tokens)),
            asyncio.gather(*(_decimals(reader, of, f"{token}'s pool's token") for of in basket.tokens)),
        )
    except PriceUnavailable as exc:
        raise PriceUnavailable(f"a token of its pool ({basket.contract}) has no price: {exc.message}") from None
    except ProtocolError as exc:
        raise PriceUnavailable(f"a token of its pool ({basket.contract}) has no decimals: {exc.message}") from None
    # Each amount's USD is amount x answer / 10^(its decimals + the price's decimals): over one
    # denominator, the largest of those, the sum is exact.
    scales = [places + found.decimals for places, found in zip(decimals, prices)]
    top = max(scales)
    answer = sum(
        amount * found.answer * 10 ** (top - scale) for amount, found, scale in zip(basket.amounts, prices, scales)
    )
    depth = sum(
        Fraction(balance * found.answer, 10**scale) for balance, found, scale in zip(basket.balances, prices, scales)
    )
    # The stalest price it rests on gives its feed, update time and age; a window, the longest.
    root = min(prices, key=lambda found: found.updated_at)
    windows = [found.source.window for found in prices if found.source and found.source.window]
    stated = root.source and _restated(
        root.source,
        token,
        basket.contract,
        derived_from=None,
        window=max(windows, default=None),
        liquidity_usd=float(depth),
        market=True,
    )
    return UsdPrice(answer, top + BASKET_DECIMALS, root.updated_at, stated, tuple(prices))


async def _decimals(reader: ChainReader, token: str, label: str) -> int:
    """A token's `decimals()`; the native coin's 18, with no read."""
    if token == NATIVE:
        return 18
    (places,) = await reader.call(token, DECIMALS, label=label)
    return int(places)


def _restated(root: PriceSource, token: str, contract: str, **changes: Any) -> PriceSource:
    """A derived price's source: the root feed's, with its age, restated as a protocol rate of
    `token` read on `contract`."""
    return replace(root, asset=token, kind=Kind.PROTOCOL_RATE, source=contract, **changes)


async def _priced(reader: ChainReader, token: str, found: Rate, price: Price) -> UsdPrice:
    """The rate times the price of the token it is of."""
    of, decimals = found.of, found.decimals
    if found.rate <= 0:
        raise PriceUnavailable(f"its protocol rate ({found.contract}) is {found.rate}")
    if decimals is None:
        underlying, scale = await price(of), 0
    else:
        try:
            underlying, of_decimals = await asyncio.gather(price(of), _decimals(reader, of, f"{token}'s asset"))
        except PriceUnavailable:
            raise
        except ProtocolError as exc:
            raise PriceUnavailable(f"its asset {of} has no decimals: {exc.message}") from None
        scale = of_decimals - decimals
    # USD per whole token = rate / 1e18 x 10^-scale x the other's USD price (scale: how many
    # decimals finer the other token's raw unit is than this one's; 0 for a rate of whole ones).
    root = underlying.source
    stated = root and _restated(
        root,
        token,
        found.contract,
        derived_from=of,
        window=found.window or root.window,
        market=found.market or root.market,
    )
    answer = found.rate * underlying.answer * 10 ** max(-scale, 0)
    decimals = 18 + underlying.decimals + max(scale, 0)
    return UsdPrice(answer, decimals, underlying.updated_at, stated, (underlying,))


async def _named_rate(reader: ChainReader, token: str, named: PriceRate) -> Rate:
    """A rate the addresses data names (`priceRates`)."""
    if named.view is None:
        return Rate(token, named.of, RATE_SCALE)
    view = Function(named.view, keccak256(named.view.encode())[:4].hex(), ("uint256",))
    contract = named.contract or token
    try:
        (rate,) = await reader.call(contract, view, label=f"{token}'s rate")
    except ProtocolError as exc:
        raise PriceUnavailable(f"its rate {named.view} on {contract} failed: {exc.message}") from None
    return Rate(contract, named.of, rate)


async def _vault_rate(reader: ChainReader, token: str) -> Rate:
    """The token's rate as an ERC-4626 vault's share."""
    label = f"{token} as an ERC-4626 vault"
    of: str
    decimals: int
    rate: int
    try:
        (of,), (rate,), (decimals,) = await asyncio.gather(
            reader.call(token, ASSET, label=label),
            reader.call(token, CONVERT_TO_ASSETS, RATE_SCALE, label=label),
            reader.call(token, DECIMALS, label=label),
        )
    except ProtocolError:
        raise PriceUnavailable(
            "no protocol rate: no priceRates entry, no protocol's own, and not an ERC-4626 vault"
        ) from None
    return Rate(token, of.lower(), rate, decimals)
