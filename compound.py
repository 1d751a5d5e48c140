"""Compound v3 (Comet): base supply and borrow, collateral and unclaimed rewards, on-chain.

Every Comet market the addresses data lists for the chain is read:

- Round 1: `baseToken`, `baseTokenPriceFeed`, `baseScale`, `numAssets`, `getUtilization`, the
  wallet's `balanceOf` and `borrowBalanceOf` (both accrued to the block by Comet itself), and its
  unclaimed reward, `CometRewards.getRewardOwed(comet, wallet)` (not a view, but eth_call runs it
  without effect; a market without rewards reverts it and simply has none).
- Round 2: `getAssetInfo(i)` for every collateral asset, the supply and borrow rates at that
  utilization, the base price.
- Round 3: the wallet's `collateralBalanceOf` for every asset and each asset's `getPrice`.
- Prices are Comet's own: `getPrice(priceFeed)`, USD with 8 decimals. A reward token is priced
  through the feed of a market on the chain that lists it as collateral or base, if any.
- APR = per-second rate x 31,536,000 / 1e18, as Compound documents; APY compounds the rate
  per second over that year: (1 + rate / 1e18)^31,536,000 - 1.
- Borrow capacity and liquidation threshold, as Comet's isBorrowCollateralized and
  isLiquidatable weigh collateral: Σ collateral x price / scale x borrowCollateralFactor (resp.
  liquidateCollateralFactor) / 1e18, in USD.
"""

from __future__ import annotations

import asyncio
import logging
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import erc20
from abi import Function
from addresses import ChainAddresses, CompoundAddresses
from chain import ChainReader
from errors import ProtocolError

if TYPE_CHECKING:
    from protocols import FetchContext

log = logging.getLogger("wallet_positions.compound")

WAD = 10**18
PRICE_SCALE = 10**8
SECONDS_PER_YEAR = 365 * 24 * 3600
MAX_ASSETS = 32
"""Comet holds at most 24 collateral assets (CometWithExtendedAssetList); more is refused."""

BASE_TOKEN = Function("baseToken()", "c55dae63", ("address",), immutable=True)
BASE_TOKEN_PRICE_FEED = Function("baseTokenPriceFeed()", "e7dad6bd", ("address",))
BASE_SCALE = Function("baseScale()", "44c1e5eb", ("uint256",), immutable=True)
NUM_ASSETS = Function("numAssets()", "a46fe83b", ("uint8",))
GET_ASSET_INFO = Function("getAssetInfo(uint8)", "c8c7fe6b",
                          ("(uint8,address,address,uint64,uint64,uint64,uint64,uint128)",))
BALANCE_OF = Function("balanceOf(address)", "70a08231", ("uint256",))
BORROW_BALANCE_OF = Function("borrowBalanceOf(address)", "374c49b4", ("uint256",))
COLLATERAL_BALANCE_OF = Function("collateralBalanceOf(address,address)", "5c2549ee", ("uint128",))
GET_PRICE = Function("getPrice(address)", "41976e09", ("uint256",))
GET_UTILIZATION = Function("getUtilization()", "7eb71131", ("uint256",))
GET_SUPPLY_RATE = Function("getSupplyRate(uint256)", "d955759d", ("uint64",))
GET_BORROW_RATE = Function("getBorrowRate(uint256)", "9fa83b5a", ("uint64",))
GET_REWARD_OWED = Function("getRewardOwed(address,address)", "41e0cad6", ("address", "uint256"))


def apr(rate: int) -> float:
    return rate * SECONDS_PER_YEAR / WAD


def apy(rate: int) -> float:
    return math.expm1(SECONDS_PER_YEAR * math.log1p(rate / WAD))


def chains(addresses: dict[int, ChainAddresses]) -> frozenset[int]:
    """Every chain whose addresses data lists Comet markets."""
    return frozenset(chain_id for chain_id, chain in addresses.items() if chain.compound and chain.compound.markets)


async def fetch(addresses: dict[int, ChainAddresses], ctx: FetchContext, chain_id: int, wallet: str) -> dict[str, Any]:
    deployment = addresses[chain_id].compound
    assert deployment is not None
    reader = ctx.reader(chain_id)
    block = await reader.block_number()
    markets = await asyncio.gather(*(_market(reader, deployment, comet, wallet)
                                     for _, comet in deployment.markets), return_exceptions=True)
    kept: list[dict[str, Any]] = []
    for (name, comet), result in zip(deployment.markets, markets):
        if isinstance(result, ProtocolError):
            log.warning("Compound market %s (%s) left out on chain %d: %s", name, comet, chain_id, result.message)
        elif isinstance(result, BaseException):
            raise result
        else:
            kept.append(result)
    if not kept:
        raise next(r for r in markets if isinstance(r, BaseException))
    prices = {token: price for market in kept for token, price in market["prices"].items()}
    rewards = await asyncio.gather(*(_reward(reader, market, prices) for market in kept if market["reward"]),
                                   return_exceptions=True)
    for reward in rewards:
        if isinstance(reward, ProtocolError):
            log.warning("Compound reward left out on chain %d: %s", chain_id, reward.message)
        elif isinstance(reward, BaseException):
            raise reward
    return {
        "blockNumber": block,
        "supplyPositions": [market["supply"] for market in kept if market["supply"]],
        "borrowPositions": [market["borrow"] for market in kept if market["borrow"]],
        "collateralPositions": [position for market in kept for position in market["collateral"]],
        "rewardPositions": [reward for reward in rewards if not isinstance(reward, BaseException)],
    }


async def _market(reader: ChainReader, deployment: CompoundAddresses, comet: str, wallet: str) -> dict[str, Any]:
    label = f"Comet {comet}"
    (base,), (base_feed,), (base_scale,), (count,), (utilization,), (supplied,), (borrowed,), reward = \
        await asyncio.gather(
            reader.call(comet, BASE_TOKEN, label=label), reader.call(comet, BASE_TOKEN_PRICE_FEED, label=label),
            reader.call(comet, BASE_SCALE, label=label), reader.call(comet, NUM_ASSETS, label=label),
            reader.call(comet, GET_UTILIZATION, label=label), reader.call(comet, BALANCE_OF, wallet, label=label),
            reader.call(comet, BORROW_BALANCE_OF, wallet, label=label), _reward_owed(reader, deployment, comet, wallet))
    if count > MAX_ASSETS:
        raise ProtocolError(f"{label} reports {count} assets, more than the {MAX_ASSETS} this service reads.")
    infos, (supply_rate,), (borrow_rate,), (base_price,) = await asyncio.gather(
        asyncio.gather(*(reader.call(comet, GET_ASSET_INFO, i, label=label) for i in range(count))),
        reader.call(comet, GET_SUPPLY_RATE, utilization, label=label),
        reader.call(comet, GET_BORROW_RATE, utilization, label=label),
        reader.call(comet, GET_PRICE, base_feed, label=label))
    assets = [info for (info,) in infos]
    balances, prices = await asyncio.gather(
        asyncio.gather(*(reader.call(comet, COLLATERAL_BALANCE_OF, wallet, asset[1], label=label) for asset in assets)),
        asyncio.gather(*(_price(reader, comet, asset[2], label) for asset in assets)))
    held = [(asset, balance, price) for asset, (balance,), price in zip(assets, balances, prices) if balance]
    known_prices = {base: (base_price, base_scale), **{asset[1]: (price, asset[3])
                                                       for asset, price in zip(assets, prices) if price}}
    if not (supplied or borrowed or held or reward):
        return {"supply": None, "borrow": None, "collateral": [], "reward": None, "prices": known_prices}
    base_info, *collateral_infos = await asyncio.gather(erc20.token_info(reader, base),
                                                        *(erc20.token_info(reader, asset[1]) for asset, _, _ in held))

    def usd(amount: int, price: int | None, scale: int) -> float | None:
        return float(Fraction(amount * price, scale * PRICE_SCALE)) if price is not None else None

    def weighted(factor: int) -> float | None:
        """Σ collateral USD x a collateral factor; None when a collateral has no price."""
        if any(price is None for _, _, price in held):
            return None
        return float(sum(Fraction(b * p * a[factor], a[3] * PRICE_SCALE * WAD) for a, b, p in held))

    collateral = [{
        "type": "compound-collateral", "marketAddress": comet, "asset": info, "balance": str(balance),
        "balanceUsd": usd(balance, price, asset[3]),
        "borrowCollateralFactor": asset[4] / WAD, "liquidateCollateralFactor": asset[5] / WAD,
    } for (asset, balance, price), info in zip(held, collateral_infos)]
    base_fields = {"marketAddress": comet, "baseAsset": base_info}
    supply = borrow = None
    if supplied:
        supply = {**base_fields, "type": "compound-supply", "balance": str(supplied),
                  "balanceUsd": usd(supplied, base_price, base_scale), "apr": apr(supply_rate), "apy": apy(supply_rate)}
    if borrowed:
        borrow = {**base_fields, "type": "compound-borrow", "debt": str(borrowed),
                  "debtUsd": usd(borrowed, base_price, base_scale), "apr": apr(borrow_rate), "apy": apy(borrow_rate),
                  "borrowCapacityUsd": weighted(4), "liquidationThresholdUsd": weighted(5)}
    return {"supply": supply, "borrow": borrow, "collateral": collateral, "prices": known_prices,
            "reward": (comet, *reward) if reward else None}


async def _price(reader: ChainReader, comet: str, feed: str, label: str) -> int | None:
    """Comet's price for a collateral feed; None (USD fields null) when Comet refuses it."""
    try:
        (price,) = await reader.call(comet, GET_PRICE, feed, label=label)
    except ProtocolError as exc:
        log.warning("no price from %s for feed %s: %s", label, feed, exc.message)
        return None
    return price


async def _reward_owed(reader: ChainReader, deployment: CompoundAddresses, comet: str,
                       wallet: str) -> tuple[str, int] | None:
    """(token, owed) of the wallet's unclaimed rewards in a market, None when there are none."""
    if deployment.rewards is None:
        return None
    try:
        token, owed = await reader.call(deployment.rewards, GET_REWARD_OWED, comet, wallet,
                                        label=f"CometRewards {deployment.rewards}")
    except ProtocolError as exc:
        log.info("no rewards for Comet %s: %s", comet, exc.message)
        return None
    return (token, owed) if owed else None


async def _reward(reader: ChainReader, market: dict[str, Any], prices: dict[str, tuple[int, int]]) -> dict[str, Any]:
    comet, token, owed = market["reward"]
    info = await erc20.token_info(reader, token)
    price = prices.get(token)
    return {"type": "compound-reward", "marketAddress": comet, "rewardToken": info, "accrued": str(owed),
            "accruedUsd": float(Fraction(owed * price[0], 10 ** info["decimals"] * PRICE_SCALE)) if price else None}
