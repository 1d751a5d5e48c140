"""Compound v3 (Comet): base supply and borrow, collateral and unclaimed rewards, on-chain.

Every Comet market the addresses data lists for the chain is read:

- Round 1: `baseToken`, `baseTokenPriceFeed`, `baseScale`, `numAssets`, `getUtilization`, the
  wallet's `balanceOf` and `borrowBalanceOf` (both accrued to the block by Comet itself).
- Round 2: `getAssetInfo(i)` for every collateral asset, the supply and borrow rates at that
  utilization, the base price.
- Round 3: the wallet's `collateralBalanceOf` for every asset, each asset's `getPrice`, and the
  unclaimed reward, `CometRewards.getRewardOwed(comet, wallet)` (not a view, but eth_call runs it
  without effect; a market without rewards reverts it and simply has none).
- Prices are Comet's own: `getPrice(priceFeed)`, 8 decimals, in the market's price currency:
  USD for most markets, the base asset's unit for the WETH, wstETH and WBTC markets (their base
  feed is a constant 1), converted to USD through the chain's Chainlink feed for that currency
  (null when there is none). A reward token is priced through a market on the chain that lists
  it as collateral or base, if any.
- APR = per-second rate x 31,536,000 / 1e18, as Compound documents; APY compounds the rate
  per second over that year: (1 + rate / 1e18)^31,536,000 - 1.
- All reads of an input go out at once in CompoundLens (lenses/, chain/lens.py), which makes the
  same calls in the same dependent order, `getRewardOwed` last, and returns their raw answers.
- Failures: a market whose first round fails is left out with a warning, as is a collateral
  asset whose balance cannot be read; a held position whose rate, price or token fails stays
  listed with those figures null, each with a warning (position_warnings).
- Borrow capacity and liquidation threshold, as Comet's isBorrowCollateralized and
  isLiquidatable weigh collateral: Σ collateral x price / scale x borrowCollateralFactor (resp.
  liquidateCollateralFactor) / 1e18, in USD.
- Risk (`risk` on a borrow): `isLiquidatable`'s comparison solved for each collateral's price
  (`_risk`, adapters/risk.py); the oracle is the Comet (its `getPrice` asks each asset's feed),
  last updated at the oldest `updatedAt` of the base feed and the held collaterals' feeds.
"""

from __future__ import annotations

import asyncio
import logging
import math
from fractions import Fraction
from typing import Any, cast

from adapters.context import FetchContext
from adapters.deployment import deployed
from adapters.position_warnings import PriceUnavailable, Warnings, outcome
from adapters.prices import currency_usd, oldest_update
from adapters.risk import Collateral, Unit, borrow_risk, oracle_info, unknown_risk
from addresses import ChainAddresses, CometMarket, CompoundAddresses
from chain import ChainReader, erc20, first, no_read
from chain.abi import Function
from chain.lens import NONE, Lens
from errors import ProtocolError

log = logging.getLogger("wallet_positions.compound")

WAD = 10**18
PRICE_SCALE = 10**8
SECONDS_PER_YEAR = 365 * 24 * 3600
MAX_ASSETS = 32
"""Comet holds at most 15 collateral assets (24 with the extended asset list); a market
reporting more than this is refused."""

BASE_TOKEN = Function("baseToken()", "c55dae63", ("address",), immutable=True)
BASE_TOKEN_PRICE_FEED = Function("baseTokenPriceFeed()", "e7dad6bd", ("address",))
BASE_SCALE = Function("baseScale()", "44c1e5eb", ("uint256",), immutable=True)
NUM_ASSETS = Function("numAssets()", "a46fe83b", ("uint8",))
GET_ASSET_INFO = Function(
    "getAssetInfo(uint8)", "c8c7fe6b", ("(uint8,address,address,uint64,uint64,uint64,uint64,uint128)",)
)
BALANCE_OF = Function("balanceOf(address)", "70a08231", ("uint256",))
BORROW_BALANCE_OF = Function("borrowBalanceOf(address)", "374c49b4", ("uint256",))
COLLATERAL_BALANCE_OF = Function("collateralBalanceOf(address,address)", "5c2549ee", ("uint128",))
GET_PRICE = Function("getPrice(address)", "41976e09", ("uint256",))
GET_UTILIZATION = Function("getUtilization()", "7eb71131", ("uint256",))
GET_SUPPLY_RATE = Function("getSupplyRate(uint256)", "d955759d", ("uint64",))
GET_BORROW_RATE = Function("getBorrowRate(uint256)", "9fa83b5a", ("uint64",))
GET_REWARD_OWED = Function("getRewardOwed(address,address)", "41e0cad6", ("address", "uint256"))
LENS = Lens("CompoundLens", ("address", "address[]", "address[]", "address", "address"))


def apr(rate: int) -> float:
    return rate * SECONDS_PER_YEAR / WAD


def apy(rate: int) -> float:
    try:
        return math.expm1(SECONDS_PER_YEAR * math.log1p(rate / WAD))
    except OverflowError:
        raise ProtocolError(f"a Comet reports a rate of {rate} per second, too large to be an APY") from None


def chains(addresses: dict[int, ChainAddresses]) -> frozenset[int]:
    """Every chain whose addresses data lists Comet markets."""
    return frozenset(chain_id for chain_id, chain in addresses.items() if chain.compound and chain.compound.markets)


async def fetch(ctx: FetchContext, wallet: str) -> dict[str, Any]:
    chain = ctx.chain
    deployment = chain.compound
    assert deployment is not None
    reader = ctx.reader()
    _prefetch(reader, chain, deployment, wallet)
    warnings = ctx.warnings
    comets = await deployed(reader, "compound", deployment.markets, lambda market: market.comet, "Comets")
    markets = await asyncio.gather(
        *(_market(reader, chain, deployment, market, wallet, warnings) for market in comets), return_exceptions=True
    )
    kept = warnings.survivors("Compound market", ((market.comet, result) for market, result in zip(comets, markets)))
    if not kept:
        raise next(r for r in markets if isinstance(r, BaseException))
    prices = {token: usd for market in kept for token, usd in market["prices"].items() if usd is not None}
    with_rewards = [market for market in kept if market["reward"]]
    rewards = await asyncio.gather(*(_reward(reader, market, prices, warnings) for market in with_rewards))
    return {
        "supplyPositions": [market["supply"] for market in kept if market["supply"]],
        "borrowPositions": [market["borrow"] for market in kept if market["borrow"]],
        "collateralPositions": [position for market in kept for position in market["collateral"]],
        "rewardPositions": rewards,
    }


def _prefetch(reader: ChainReader, chain: ChainAddresses, deployment: CompoundAddresses, wallet: str) -> None:
    """Every market's reads for `wallet` in one lens call, with the currency feeds the data names."""
    comets = [market.comet for market in deployment.markets]
    currency = [chain.currency_feeds.get(market.price_currency) for market in deployment.markets]
    feeds = [NONE if feed is None else feed.feed for feed in currency]
    rewards, sequencer = deployment.rewards or NONE, chain.sequencer_uptime_feed or NONE
    reader.prefetch([LENS.initcode(wallet, comets, feeds, rewards, sequencer)], [*comets, *feeds, rewards, sequencer])


async def _market(
    reader: ChainReader,
    chain: ChainAddresses,
    deployment: CompoundAddresses,
    market: CometMarket,
    wallet: str,
    warnings: Warnings,
) -> dict[str, Any]:
    comet, label = market.comet, f"Comet {market.comet}"
    # Two gathers: one of all eight would type each answer as the union of them all.
    unit_usd: Fraction | ProtocolError | None
    reads, unit_usd = await asyncio.gather(
        asyncio.gather(
            reader.call(comet, BASE_TOKEN, label=label),
            reader.call(comet, BASE_TOKEN_PRICE_FEED, label=label),
            reader.call(comet, BASE_SCALE, label=label),
            reader.call(comet, NUM_ASSETS, label=label),
            reader.call(comet, GET_UTILIZATION, label=label),
            reader.call(comet, BALANCE_OF, wallet, label=label),
            reader.call(comet, BORROW_BALANCE_OF, wallet, label=label),
        ),
        outcome(currency_usd(reader, chain, market.price_currency, market.name)),
    )
    (base,), (base_feed,), (base_scale,), (count,), (utilization,), (supplied,), (borrowed,) = reads
    if count > MAX_ASSETS:
        raise ProtocolError(f"{label} reports {count} assets, more than the {MAX_ASSETS} this service reads.")
    infos, supply_rate, borrow_rate, base_price = await asyncio.gather(
        outcome(asyncio.gather(*(reader.call(comet, GET_ASSET_INFO, i, label=label) for i in range(count)))),
        outcome(first(reader.call(comet, GET_SUPPLY_RATE, utilization, label=label))),
        outcome(first(reader.call(comet, GET_BORROW_RATE, utilization, label=label))),
        outcome(comet_price(reader, comet, base_feed, label)),
    )
    if isinstance(infos, ProtocolError):
        warnings.left_out("the collateral of", comet, infos)
        infos = []
    assets = [info for (info,) in infos]
    if base_scale == 0 or any(asset[3] == 0 for asset in assets):
        raise ProtocolError(f"{label} reports a scale of 0.")
    balances, prices, reward = await asyncio.gather(
        asyncio.gather(
            *(outcome(reader.call(comet, COLLATERAL_BALANCE_OF, wallet, asset[1], label=label)) for asset in assets)
        ),
        asyncio.gather(*(outcome(comet_price(reader, comet, asset[2], label)) for asset in assets)),
        _reward_owed(reader, deployment, comet, wallet),
    )

    def per_unit(price: int | ProtocolError, scale: int) -> Fraction | ProtocolError | None:
        return usd_per_unit(price, scale, unit_usd)

    held, prices_held = [], []
    for asset, balance, price in zip(assets, balances, prices):
        if isinstance(balance, ProtocolError):
            warnings.left_out(f"collateral {asset[1]} of", comet, balance)
        elif balance[0]:
            held.append((asset, balance[0], per_unit(price, asset[3])))
            prices_held.append(price)
    base_usd = per_unit(base_price, base_scale)
    known = {base: base_usd, **{asset[1]: per_unit(price, asset[3]) for asset, price in zip(assets, prices)}}
    known = {token: usd for token, usd in known.items() if isinstance(usd, Fraction)}
    if not (supplied or borrowed or held or reward):
        return {"supply": None, "borrow": None, "collateral": [], "reward": None, "prices": known}
    feeds = [base_feed, *(asset[2] for asset, _, _ in held)]
    (base_info, *collateral_infos), (updated, now) = await asyncio.gather(
        asyncio.gather(
            warnings.optional(erc20.token_info(reader, base), base, "baseAsset is"),
            *(warnings.optional(erc20.token_info(reader, asset[1]), asset[1], "asset is") for asset, _, _ in held),
        ),
        asyncio.gather(
            warnings.optional(oldest_update(reader, feeds, label), comet, "the risk oracle's updatedAt is")
            if borrowed
            else no_read(),
            reader.block_timestamp() if borrowed else no_read(),
        ),
    )
    collateral_usd = [
        warnings.value(usd, asset[1], "balanceUsd, borrowCapacityUsd and liquidationThresholdUsd are")
        for asset, _, usd in held
    ]

    def weighted(factor: int) -> float | None:
        """Σ collateral USD x a collateral factor; None when a collateral has no price."""
        if any(usd is None for usd in collateral_usd):
            return None
        return float(sum(balance * usd * asset[factor] / WAD for (asset, balance, _), usd in zip(held, collateral_usd)))

    collateral = [
        {
            "type": "compound-collateral",
            "marketAddress": comet,
            "asset": info,
            "balance": str(balance),
            "balanceUsd": float(balance * usd) if usd is not None else None,
            "borrowCollateralFactor": asset[4] / WAD,
            "liquidateCollateralFactor": asset[5] / WAD,
        }
        for (asset, balance, _), usd, info in zip(held, collateral_usd, collateral_infos)
    ]
    base_fields = {"marketAddress": comet, "baseAsset": base_info}
    base_value = warnings.value(base_usd, comet, "balanceUsd and debtUsd are") if supplied or borrowed else None
    supply = borrow = None
    if supplied:
        rate = warnings.value(supply_rate, comet, "the supply apr and apy are")
        supply = {
            **base_fields,
            "type": "compound-supply",
            "balance": str(supplied),
            "balanceUsd": float(supplied * base_value) if base_value is not None else None,
            "apr": None if rate is None else apr(rate),
            "apy": None if rate is None else apy(rate),
        }
    if borrowed:
        rate = warnings.value(borrow_rate, comet, "the borrow apr and apy are")
        borrow = {
            **base_fields,
            "type": "compound-borrow",
            "debt": str(borrowed),
            "debtUsd": float(borrowed * base_value) if base_value is not None else None,
            "apr": None if rate is None else apr(rate),
            "apy": None if rate is None else apy(rate),
            "borrowCapacityUsd": weighted(4),
            "liquidationThresholdUsd": weighted(5),
            "risk": {
                **_risk(
                    borrowed, base_scale, base_price, held, prices_held, collateral_infos, unit_usd, warnings, comet
                ),
                "oracle": oracle_info(comet, updated, cast(int, now)),
            },
        }
    return {
        "supply": supply,
        "borrow": borrow,
        "collateral": collateral,
        "prices": known,
        "reward": (comet, *reward) if reward else None,
    }


def _risk(
    borrowed: int,
    base_scale: int,
    base_price: int | ProtocolError,
    held: list[tuple[Any, int, Any]],
    prices: list[int | ProtocolError],
    infos: list[dict[str, Any] | None],
    unit_usd: Fraction | ProtocolError | None,
    warnings: Warnings,
    comet: str,
) -> dict[str, Any]:
    """The `BorrowRisk` figures of a borrow (adapters/risk.py) by Comet's `isLiquidatable`:
    liquidatable once Σ collateral x getPrice / scale x liquidateCollateralFactor / 1e18 <
    borrowBalance x getPrice(base) / baseScale, in Comet's price currency (8 decimals)."""
    if isinstance(base_price, ProtocolError) or any(isinstance(price, ProtocolError) for price in prices):
        return unknown_risk(infos)
    collaterals = [
        Collateral(info, Fraction(balance, asset[3]), Fraction(price, PRICE_SCALE), Fraction(asset[5], WAD))
        for (asset, balance, _), price, info in zip(held, cast(list[int], prices), infos)
    ]
    unit = Unit(
        usd=unit_usd if isinstance(unit_usd, Fraction) else None,
        per_loan_asset=Fraction(base_price, PRICE_SCALE),
    )
    debt = Fraction(borrowed, base_scale) * Fraction(base_price, PRICE_SCALE)
    return borrow_risk(debt, collaterals, unit, warnings, comet)


def usd_per_unit(
    price: int | ProtocolError, scale: int, unit_usd: Fraction | ProtocolError | None
) -> Fraction | ProtocolError | None:
    """USD per raw unit: Comet's price is per whole unit (`scale` raw units), 8 decimals, in the
    market's currency, worth `unit_usd` (None: no feed for that currency)."""
    if isinstance(price, ProtocolError):
        return price
    if isinstance(unit_usd, ProtocolError):
        return unit_usd
    return None if unit_usd is None else Fraction(price, scale * PRICE_SCALE) * unit_usd


async def comet_price(reader: ChainReader, comet: str, feed: str, label: str) -> int:
    """Comet's price for a feed; PriceUnavailable when Comet refuses it."""
    try:
        (price,) = await reader.call(comet, GET_PRICE, feed, label=label)
    except ProtocolError as exc:
        raise PriceUnavailable(f"{label} gives no price for feed {feed}: {exc.message}") from None
    return cast(int, price)


async def _reward_owed(
    reader: ChainReader, deployment: CompoundAddresses, comet: str, wallet: str
) -> tuple[str, int] | None:
    """(token, owed) of the wallet's unclaimed rewards in a market, None when there are none.

    Read in the last round: getRewardOwed accrues the market, and a batch runs its calls in
    order, so it must not precede another input's utilization read in the same batch."""
    if deployment.rewards is None:
        return None
    try:
        token, owed = await reader.call(
            deployment.rewards, GET_REWARD_OWED, comet, wallet, label=f"CometRewards {deployment.rewards}"
        )
    except ProtocolError as exc:
        log.info("no rewards for Comet %s: %s", comet, exc.message)
        return None
    return (token, owed) if owed else None


async def _reward(
    reader: ChainReader, market: dict[str, Any], prices: dict[str, Fraction], warnings: Warnings
) -> dict[str, Any]:
    comet, token, owed = market["reward"]
    info = await warnings.optional(erc20.token_info(reader, token), token, "rewardToken is")
    usd = prices.get(token)
    return {
        "type": "compound-reward",
        "marketAddress": comet,
        "rewardToken": info,
        "accrued": str(owed),
        "accruedUsd": float(owed * usd) if usd is not None else None,
    }
