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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

from adapters.accounts.probes import Probe
from adapters.compound.contracts import (
    BALANCE_OF,
    BASE_SCALE,
    BASE_TOKEN,
    BASE_TOKEN_PRICE_FEED,
    BORROW_BALANCE_OF,
    COLLATERAL_BALANCE_OF,
    GET_ASSET_INFO,
    GET_BORROW_RATE,
    GET_REWARD_OWED,
    GET_SUPPLY_RATE,
    GET_UTILIZATION,
    MAX_ASSETS,
    NUM_ASSETS,
    PRICE_SCALE,
    USER_BASIC,
    WAD,
)
from adapters.compound.market import apr, apy, comet_price, usd_per_unit
from adapters.compound.section import CometMarket, CompoundAddresses
from adapters.context import FetchContext
from adapters.deployment import deployed
from adapters.legs import COLLATERAL, DEBT, LENDING, REWARD, REWARDS, SUPPLIED, leg, position, symbol
from adapters.position_warnings import Warnings, outcome
from adapters.prices import currency_usd, oldest_update
from adapters.risk import Collateral, Unit, borrow_risk, oracle_info, unknown_risk
from addresses import ChainAddresses
from chain import ChainReader, erc20, first, no_read
from chain.lens import NONE, Lens
from errors import ProtocolError

log = logging.getLogger("wallet_positions.compound")

LENS = Lens("CompoundLens", ("address", "address[]", "address[]", "address", "address"))


def probes(compound: CompoundAddresses) -> tuple[Probe, ...]:
    """What an account must have in a market to be shown anything there: a principal (a supply or a
    borrow), a collateral asset's bit, or reward tracking (an unclaimed reward accrues only
    through it)."""
    return tuple(Probe(market.comet, USER_BASIC) for market in compound.markets)


async def fetch(ctx: FetchContext[CompoundAddresses], wallet: str) -> dict[str, Any]:
    chain = ctx.chain
    deployment = ctx.section
    reader = ctx.reader()
    _prefetch(reader, chain, deployment, wallet)
    warnings = ctx.warnings
    comets = await deployed(reader, "compound", deployment.markets, lambda market: market.comet, "Comets")
    markets = await asyncio.gather(
        *(_market(reader, _read(reader, chain, deployment, market, wallet, warnings), warnings) for market in comets),
        return_exceptions=True,
    )
    kept = warnings.survivors("Compound market", ((market.comet, result) for market, result in zip(comets, markets)))
    if not kept:
        raise next(r for r in markets if isinstance(r, BaseException))
    prices = {token: priced for market in kept for token, priced in market["prices"].items()}
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


@dataclass(frozen=True)
class _Holding:
    """A collateral asset the wallet holds in a market: Comet's AssetInfo, the balance, Comet's
    price and the USD per raw unit it makes."""

    asset: Any
    balance: int
    price: int | ProtocolError
    usd: Fraction | ProtocolError | None


@dataclass(frozen=True)
class _Reads:
    """What rounds 1 to 3 read of a market for the wallet, before any figure is shaped from it."""

    comet: str
    base: str
    base_feed: str
    base_scale: int
    supplied: int
    borrowed: int
    supply_rate: int | ProtocolError
    borrow_rate: int | ProtocolError
    base_price: int | ProtocolError
    base_usd: Fraction | ProtocolError | None
    unit_usd: Fraction | ProtocolError | None
    """USD per unit of the market's price currency."""
    held: list[_Holding]
    prices: dict[str, tuple[Fraction, str]]
    """USD per raw unit of the base and of every collateral asset Comet prices, and the feed Comet
    reads for it: the rewards' prices."""
    reward: tuple[str, int] | None


async def _market(reader: ChainReader, reading: Awaitable[_Reads], warnings: Warnings) -> dict[str, Any]:
    """A market's positions: its reads (`reading`), then the facts of the tokens they hold and, for
    a borrow, the age of the risk oracle, shaped."""
    read = await reading
    comet, borrowed = read.comet, read.borrowed
    if not (read.supplied or borrowed or read.held or read.reward):
        return {"supply": None, "borrow": None, "collateral": [], "reward": None, "prices": read.prices}
    feeds = [read.base_feed, *(holding.asset.priceFeed for holding in read.held)]
    (base_info, *collateral_infos), (updated, now) = await asyncio.gather(
        asyncio.gather(
            warnings.optional(erc20.token_info(reader, read.base), read.base, "baseAsset is"),
            *(
                warnings.optional(erc20.token_info(reader, holding.asset.asset), holding.asset.asset, "asset is")
                for holding in read.held
            ),
        ),
        asyncio.gather(
            warnings.optional(oldest_update(reader, feeds, f"Comet {comet}"), comet, "the risk oracle's updatedAt is")
            if borrowed
            else no_read(),
            reader.block_timestamp() if borrowed else no_read(),
        ),
    )
    oracle = oracle_info(comet, updated, cast(int, now)) if borrowed else None
    return {
        **_positions(read, base_info, collateral_infos, oracle, warnings),
        "prices": read.prices,
        "reward": (comet, *read.reward) if read.reward else None,
    }


async def _read(
    reader: ChainReader,
    chain: ChainAddresses,
    deployment: CompoundAddresses,
    market: CometMarket,
    wallet: str,
    warnings: Warnings,
) -> _Reads:
    """Rounds 1 to 3 of the module's docstring: each round asks what the one before names."""
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
    if base_scale == 0 or any(asset.scale == 0 for asset in assets):
        raise ProtocolError(f"{label} reports a scale of 0.")
    balances, prices, reward = await asyncio.gather(
        asyncio.gather(
            *(
                outcome(first(reader.call(comet, COLLATERAL_BALANCE_OF, wallet, asset.asset, label=label)))
                for asset in assets
            )
        ),
        asyncio.gather(*(outcome(comet_price(reader, comet, asset.priceFeed, label)) for asset in assets)),
        _reward_owed(reader, deployment, comet, wallet),
    )
    held = []
    for asset, balance, price in zip(assets, balances, prices):
        if isinstance(balance, ProtocolError):
            warnings.left_out(f"collateral {asset.asset} of", comet, balance)
        elif balance:
            held.append(_Holding(asset, balance, price, usd_per_unit(price, asset.scale, unit_usd)))
    base_usd = usd_per_unit(base_price, base_scale, unit_usd)
    known = {
        base: (base_usd, base_feed),
        **{
            asset.asset: (usd_per_unit(price, asset.scale, unit_usd), asset.priceFeed)
            for asset, price in zip(assets, prices)
        },
    }
    return _Reads(
        comet,
        base,
        base_feed,
        base_scale,
        supplied,
        borrowed,
        supply_rate,
        borrow_rate,
        base_price,
        base_usd,
        unit_usd,
        held,
        {token: (usd, feed.lower()) for token, (usd, feed) in known.items() if isinstance(usd, Fraction)},
        reward,
    )


def _positions(
    read: _Reads,
    base_info: dict[str, Any] | None,
    collateral_infos: list[dict[str, Any] | None],
    oracle: dict[str, Any] | None,
    warnings: Warnings,
) -> dict[str, Any]:
    """The market's supply, borrow and collateral positions, shaped from its reads and the tokens'
    facts; `oracle` is the risk oracle of a borrow."""
    comet, supplied, borrowed = read.comet, read.supplied, read.borrowed
    collateral_usd = [
        warnings.value(
            holding.usd, holding.asset.asset, "balanceUsd, borrowCapacityUsd and liquidationThresholdUsd are"
        )
        for holding in read.held
    ]
    priced = [(holding, usd) for holding, usd in zip(read.held, collateral_usd) if usd is not None]

    def weighted(factor: Callable[[Any], int]) -> float | None:
        """Σ collateral USD x a collateral factor of its AssetInfo; None when a collateral has no price."""
        if len(priced) < len(read.held):
            return None
        return float(sum(holding.balance * usd * factor(holding.asset) / WAD for holding, usd in priced))

    collateral = [
        _collateral(comet, holding, None if usd is None else float(holding.balance * usd), info)
        for holding, usd, info in zip(read.held, collateral_usd, collateral_infos)
    ]
    base_fields = {"marketAddress": comet, "baseAsset": base_info}
    base_value = warnings.value(read.base_usd, comet, "balanceUsd and debtUsd are") if supplied or borrowed else None
    supply = borrow = None
    feed, label = read.base_feed.lower(), symbol(base_info)
    if supplied:
        rate = warnings.value(read.supply_rate, comet, "the supply apr and apy are")
        usd, key = float(supplied * base_value) if base_value is not None else None, f"{comet.lower()}:supply"
        supply = {
            **base_fields,
            "type": "compound-supply",
            "balance": str(supplied),
            "balanceUsd": usd,
            "apr": None if rate is None else apr(rate),
            "apy": None if rate is None else apy(rate),
            **position(
                "CompoundSupplyPosition", key, LENDING, label, [leg(SUPPLIED, key, base_info, supplied, usd, feed)]
            ),
        }
    if borrowed:
        rate = warnings.value(read.borrow_rate, comet, "the borrow apr and apy are")
        usd, key = float(borrowed * base_value) if base_value is not None else None, f"{comet.lower()}:borrow"
        borrow = {
            **base_fields,
            "type": "compound-borrow",
            "debt": str(borrowed),
            "debtUsd": usd,
            **position("CompoundBorrowPosition", key, LENDING, label, [leg(DEBT, key, base_info, borrowed, usd, feed)]),
            "apr": None if rate is None else apr(rate),
            "apy": None if rate is None else apy(rate),
            "borrowCapacityUsd": weighted(lambda asset: asset.borrowCollateralFactor),
            "liquidationThresholdUsd": weighted(lambda asset: asset.liquidateCollateralFactor),
            "risk": {**_risk(read, collateral_infos, warnings), "oracle": oracle},
        }
    return {"supply": supply, "borrow": borrow, "collateral": collateral}


def _collateral(comet: str, holding: _Holding, usd: float | None, info: dict[str, Any] | None) -> dict[str, Any]:
    """A collateral asset the wallet has posted in a market."""
    key = f"{comet.lower()}:{holding.asset.asset.lower()}:collateral"
    return {
        "type": "compound-collateral",
        "marketAddress": comet,
        "asset": info,
        "balance": str(holding.balance),
        "balanceUsd": usd,
        "borrowCollateralFactor": holding.asset.borrowCollateralFactor / WAD,
        "liquidateCollateralFactor": holding.asset.liquidateCollateralFactor / WAD,
        **position(
            "CompoundCollateralPosition",
            key,
            LENDING,
            symbol(info),
            [leg(COLLATERAL, key, info, holding.balance, usd, holding.asset.priceFeed.lower())],
        ),
    }


def _risk(read: _Reads, infos: list[dict[str, Any] | None], warnings: Warnings) -> dict[str, Any]:
    """The `BorrowRisk` figures of a borrow (adapters/risk.py) by Comet's `isLiquidatable`:
    liquidatable once Σ collateral x getPrice / scale x liquidateCollateralFactor / 1e18 <
    borrowBalance x getPrice(base) / baseScale, in Comet's price currency (8 decimals)."""
    base_price = read.base_price
    if isinstance(base_price, ProtocolError) or any(isinstance(holding.price, ProtocolError) for holding in read.held):
        return unknown_risk(infos)
    collaterals = [
        Collateral(
            info,
            Fraction(holding.balance, holding.asset.scale),
            Fraction(cast(int, holding.price), PRICE_SCALE),
            Fraction(holding.asset.liquidateCollateralFactor, WAD),
        )
        for holding, info in zip(read.held, infos)
    ]
    unit_usd = read.unit_usd
    unit = Unit(
        usd=unit_usd if isinstance(unit_usd, Fraction) else None,
        per_loan_asset=Fraction(base_price, PRICE_SCALE),
    )
    debt = Fraction(read.borrowed, read.base_scale) * Fraction(base_price, PRICE_SCALE)
    return borrow_risk(debt, collaterals, unit, warnings, read.comet)


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
    reader: ChainReader, market: dict[str, Any], prices: dict[str, tuple[Fraction, str]], warnings: Warnings
) -> dict[str, Any]:
    comet, token, owed = market["reward"]
    info = await warnings.optional(erc20.token_info(reader, token), token, "rewardToken is")
    per_unit, feed = prices.get(token, (None, None))
    usd = float(owed * per_unit) if per_unit is not None else None
    key = f"{comet.lower()}:{token.lower()}:rewards"
    return {
        "type": "compound-reward",
        "marketAddress": comet,
        "rewardToken": info,
        "accrued": str(owed),
        "accruedUsd": usd,
        **position("CompoundRewardPosition", key, REWARDS, symbol(info), [leg(REWARD, key, info, owed, usd, feed)]),
    }
