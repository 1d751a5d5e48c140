"""The second source of USD prices: a protocol's own rate, for a token that is a claim on another.

- A rate the addresses data names (`priceRates`, addresses.PriceRate): the protocol's own view of
  how much of the other token one whole token is worth, scaled by 1e18 (Lido's `stEthPerToken()`
  for wstETH), or one for one where the protocol redeems one for one (stETH for ether, through
  Lido's withdrawal queue).
- Any ERC-4626 vault's share, found by asking it: `asset()`, and `convertToAssets(10**18)`, what
  10^18 raw shares redeem for at the block.

USD per whole token = the rate x the other token's USD price, which the same order of sources
finds (sources.py): exactly, as answer = rate x its answer with their decimals added. A rate is
read at the answer's block from the protocol's own contract, so it is no market's: it moves only
as the protocol accrues or is reported to.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from adapters.position_warnings import PriceUnavailable
from adapters.prices.stated import Kind, Price, UsdPrice
from addresses import ChainAddresses
from chain import ChainReader
from chain.abi import Function
from chain.erc20 import DECIMALS
from chain.erc4626 import ASSET, CONVERT_TO_ASSETS
from chain.keccak import keccak256
from errors import ProtocolError

RATE_SCALE = 10**18
"""What a named view's rate and `convertToAssets`' share amount are scaled by."""


async def rate_price(reader: ChainReader, chain: ChainAddresses, token: str, price: Price) -> UsdPrice:
    """The token's USD price by its protocol's rate; PriceUnavailable where it has none or the
    token it is a claim on has no price."""
    contract, of, rate, decimals = await _rate(reader, chain, token)
    if rate <= 0:
        raise PriceUnavailable(f"its protocol rate ({contract}) is {rate}")
    if decimals is None:
        underlying, scale = await price(of), 0
    else:
        try:
            underlying, (of_decimals,) = await asyncio.gather(
                price(of), reader.call(of, DECIMALS, label=f"{token}'s asset")
            )
        except PriceUnavailable:
            raise
        except ProtocolError as exc:
            raise PriceUnavailable(f"its asset {of} has no decimals: {exc.message}") from None
        scale = of_decimals - decimals
    # USD per whole token = rate / 1e18 x 10^-scale x the other's USD price (scale: how many
    # decimals finer the other token's raw unit is than this one's; 0 for a named rate).
    stated = underlying.source and replace(
        underlying.source, asset=token, kind=Kind.PROTOCOL_RATE, source=contract, derived_from=of
    )
    answer = rate * underlying.answer * 10 ** max(-scale, 0)
    decimals = 18 + underlying.decimals + max(scale, 0)
    return UsdPrice(answer, decimals, underlying.updated_at, stated, (underlying,))


async def _rate(reader: ChainReader, chain: ChainAddresses, token: str) -> tuple[str, str, int, int | None]:
    """(the contract read, the token it is a claim on, the rate scaled by 1e18, this token's
    decimals where the rate is in raw units (an ERC-4626 share's), None where in whole ones)."""
    named = chain.price_rates.get(token)
    if named is not None and named.view is None:
        return token, named.of, RATE_SCALE, None
    if named is not None and named.view is not None:
        view = Function(named.view, keccak256(named.view.encode())[:4].hex(), ("uint256",))
        contract = named.contract or token
        try:
            (rate,) = await reader.call(contract, view, label=f"{token}'s rate")
        except ProtocolError as exc:
            raise PriceUnavailable(f"its rate {named.view} on {contract} failed: {exc.message}") from None
        return contract, named.of, rate, None
    label = f"{token} as an ERC-4626 vault"
    of: str
    decimals: int
    try:
        (of,), (rate,), (decimals,) = await asyncio.gather(
            reader.call(token, ASSET, label=label),
            reader.call(token, CONVERT_TO_ASSETS, RATE_SCALE, label=label),
            reader.call(token, DECIMALS, label=label),
        )
    except ProtocolError:
        raise PriceUnavailable("no protocol rate: no priceRates entry, and not an ERC-4626 vault") from None
    return token, of.lower(), rate, decimals
