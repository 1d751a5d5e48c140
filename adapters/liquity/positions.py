"""Liquity v1 on Ethereum: the wallet's trove, Stability Pool deposit and LQTY stake, on-chain.

How each figure is derived (all at the pinned block; docs/protocols/liquity.md has the long form):

- Price: the PriceFeed's `fetchPrice()`, as every operation takes it and as lib-ethers' `getPrice`
  reads it (an eth_call: its write of `lastGoodPrice` has no effect), USD per ETH in 18 decimals.
  Ether is valued at it throughout; LUSD at 1 USD, as the system counts it.
- Trove: `Troves(wallet)`'s status; `getEntireDebtAndColl(wallet)`'s debt and collateral, the
  redistribution gains not yet applied included (the 200 LUSD gas compensation is in the debt).
  Listed while active, or while CollSurplusPool's `getCollateral(wallet)` holds what a redemption
  or liquidation left over (claimable through `claimCollateral`).
- Collateral ratio: coll x price / debt, floored (LiquityMath's `_computeCR`); recovery mode: the
  system's ratio, getEntireSystemColl x price / getEntireSystemDebt, below CCR.
- Risk: liquidatable once the ratio falls below MCR, or, for a trove whose coll / debt is below
  the system's, once the system enters recovery mode (its ratio below CCR: then any trove under
  the system's ratio can be liquidated). Since every trove holds ether, the system's coll / debt
  does not move with the price, so the liquidation price is debt x R / coll with R the larger of
  MCR and CCR x (system debt / system coll) x (coll / debt) for such a trove; the threshold is
  1 / R, the health factor the ratio / R. The oracle is the PriceFeed's Chainlink aggregator.
- APY: 0 for a trove (v1 charges a one-off borrowing fee, `borrowingRate` now, not interest);
  null for the deposit and the stake (the protocol states no rate for them).
- Stability Pool: `getCompoundedLUSDDeposit`, `getDepositorETHGain`, `getDepositorLQTYGain`.
- LQTY staking: `stakes`, `getPendingETHGain`, `getPendingLUSDGain`. LQTY by the chain's feed.

All reads go out at once in LiquityLens (lenses/, chain/lens.py); `fetchPrice()` is last.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from adapters.accounts.probes import Probe
from adapters.context import FetchContext
from adapters.legs import (
    CLAIMABLE,
    COLLATERAL,
    DEBT,
    LENDING,
    REWARD,
    STAKED,
    STAKING,
    SUPPLIED,
    feed_of,
    leg,
    position,
)
from adapters.liquity.contracts import (
    BORROWING_RATE,
    CCR,
    COMPOUNDED_DEPOSIT,
    DEPOSITOR_ETH_GAIN,
    DEPOSITOR_LQTY_GAIN,
    DEPOSITS,
    ENTIRE_DEBT_AND_COLL,
    FETCH_PRICE,
    LQTY_TOKEN,
    LUSD_TOKEN,
    MCR,
    PENDING_ETH_GAIN,
    PENDING_LUSD_GAIN,
    STAKES,
    SURPLUS,
    SYSTEM_COLL,
    SYSTEM_DEBT,
    TROVE_STATUS,
    TROVES,
    WAD,
    updated_at,
)
from adapters.liquity.section import LiquityAddresses
from adapters.position_warnings import Warnings, outcome
from adapters.prices import UsdPrice, token_feeds, warned_usd_price
from adapters.risk import Collateral, Unit, borrow_risk, oracle_info
from chain import ChainReader, erc20, first, known, no_read
from chain.abi import Function
from chain.lens import Lens

LENS = Lens("LiquityLens", ("address",) * 6 + ("address[]", "address[]"))
STATUSES = ("nonExistent", "active", "closedByOwner", "closedByLiquidation", "closedByRedemption")
"""TroveManager's `Status` enum, in order."""
ACTIVE = 1


def probes(liquity: LiquityAddresses) -> tuple[Probe, ...]:
    """What an account must have to be shown anything: a trove ever (its status), a deposit made
    (its initial value), an LQTY stake."""
    return (
        Probe(liquity.trove_manager, TROVE_STATUS),
        Probe(liquity.stability_pool, DEPOSITS),
        Probe(liquity.lqty_staking, STAKES),
    )


@dataclass(frozen=True)
class Quoted:
    """What every position's USD figures are from: the PriceFeed's ether price (None where it
    failed, warned) and LQTY's by the chain's feed (None where no position shows LQTY), with the
    tokens."""

    eth: int | None
    eth_token: dict[str, Any]
    lusd: dict[str, Any]
    lqty: dict[str, Any]
    lqty_usd: UsdPrice | None
    price_feed: str
    trove_manager: str

    def eth_usd(self, amount: int) -> float | None:
        return None if self.eth is None else float(Fraction(amount * self.eth, WAD * WAD))

    def lqty_value(self, amount: int) -> float | None:
        return self.lqty_usd.value(amount, self.lqty["decimals"]) if self.lqty_usd else None


@dataclass(frozen=True)
class Trove:
    status: int
    debt: int
    coll: int
    surplus: int


async def fetch(ctx: FetchContext[LiquityAddresses], wallet: str) -> dict[str, Any]:
    liquity, reader, warnings = ctx.section, ctx.reader(), ctx.warnings
    priced = token_feeds(ctx.chain)
    contracts = (
        liquity.trove_manager,
        liquity.stability_pool,
        liquity.lqty_staking,
        liquity.coll_surplus_pool,
        liquity.price_feed,
    )
    feeds = [feed.feed for feed in priced.values()]
    reader.prefetch([LENS.initcode(wallet, *contracts, list(priced), feeds)], [*contracts, *feeds])
    found_trove, found_deposit, found_stake = await asyncio.gather(
        outcome(_trove(reader, liquity, wallet)),
        outcome(_amounts(reader, liquity.stability_pool, wallet, DEPOSIT_VIEWS, "Liquity StabilityPool")),
        outcome(_amounts(reader, liquity.lqty_staking, wallet, STAKE_VIEWS, "Liquity LQTYStaking")),
    )
    (trove, *_), (deposit, *_), (stake, *_) = (
        warnings.survivors("the trove at the TroveManager", [(liquity.trove_manager, found_trove)]) or [None],
        warnings.survivors("the deposit in the Stability Pool", [(liquity.stability_pool, found_deposit)]) or [None],
        warnings.survivors("the stake at LQTYStaking", [(liquity.lqty_staking, found_stake)]) or [None],
    )
    if not (trove or deposit or stake):
        return {"troves": [], "stabilityDeposits": [], "stakes": []}
    prices, system = await asyncio.gather(  # one round: neither needs the other
        _prices(ctx, liquity, warnings, bool(deposit or stake)),
        _system(reader, liquity, trove.debt, warnings) if trove else known(None),
    )
    return {
        "troves": [_trove_position(liquity, trove, prices, system, warnings)] if trove and system else [],
        "stabilityDeposits": [_deposit(liquity.stability_pool, deposit, prices)] if deposit else [],
        "stakes": [_stake(liquity.lqty_staking, stake, prices)] if stake else [],
    }


DEPOSIT_VIEWS = (COMPOUNDED_DEPOSIT, DEPOSITOR_ETH_GAIN, DEPOSITOR_LQTY_GAIN)
STAKE_VIEWS = (STAKES, PENDING_ETH_GAIN, PENDING_LUSD_GAIN)


async def _trove(reader: ChainReader, liquity: LiquityAddresses, wallet: str) -> Trove | None:
    """The wallet's trove while active, or while a closed one's surplus awaits its claim."""
    tm, label = liquity.trove_manager, "Liquity TroveManager"
    recorded: Any
    entire: Any
    surplus: int
    recorded, entire, surplus = await asyncio.gather(
        reader.call(tm, TROVES, wallet, label=label),
        reader.call(tm, ENTIRE_DEBT_AND_COLL, wallet, label=label),
        first(reader.call(liquity.coll_surplus_pool, SURPLUS, wallet, label="Liquity CollSurplusPool")),
    )
    if recorded.status == ACTIVE:
        return Trove(recorded.status, entire.debt, entire.coll, surplus)
    return Trove(recorded.status, 0, 0, surplus) if surplus else None


async def _amounts(
    reader: ChainReader, contract: str, wallet: str, views: tuple[Function, ...], label: str
) -> tuple[int, ...] | None:
    """A deposit's or stake's amount and its two gains; None where all are 0."""
    amounts = tuple(await asyncio.gather(*(first(reader.call(contract, view, wallet, label=label)) for view in views)))
    return amounts if any(amounts) else None


async def _prices(
    ctx: FetchContext[LiquityAddresses], liquity: LiquityAddresses, warnings: Warnings, lqty_shown: bool
) -> Quoted:
    reader, tm, feed = ctx.reader(), liquity.trove_manager, liquity.price_feed
    eth, (lusd,), (lqty,) = await asyncio.gather(
        warnings.optional(
            first(reader.call(feed, FETCH_PRICE, label="Liquity PriceFeed")), feed, "ether's USD values are"
        ),
        reader.call(tm, LUSD_TOKEN, label="Liquity TroveManager"),
        reader.call(tm, LQTY_TOKEN, label="Liquity TroveManager"),
    )
    lusd_token, lqty_token, lqty_usd = await asyncio.gather(
        erc20.token_info(reader, lusd),
        erc20.token_info(reader, lqty),
        warned_usd_price(reader, ctx.chain, lqty.lower(), warnings) if lqty_shown else no_read(),
    )
    return Quoted(eth, erc20.native_info(reader.chain_id), lusd_token, lqty_token, lqty_usd, feed, tm)


@dataclass(frozen=True)
class System:
    """The TroveManager's figures a trove's risk is computed from, and its oracle's last update."""

    mcr: int
    ccr: int
    coll: int
    debt: int
    borrowing_rate: int
    updated: int | None
    now: int


async def _system(reader: ChainReader, liquity: LiquityAddresses, debt: int, warnings: Warnings) -> System:
    tm, feed, label = liquity.trove_manager, liquity.price_feed, "Liquity TroveManager"
    views = (MCR, CCR, SYSTEM_COLL, SYSTEM_DEBT, BORROWING_RATE)
    figures, updated, now = await asyncio.gather(
        asyncio.gather(*(first(reader.call(tm, view, label=label)) for view in views)),
        warnings.optional(updated_at(reader, feed), feed, "the oracle's updatedAt is") if debt else known(None),
        reader.block_timestamp(),
    )
    mcr, ccr, system_coll, system_debt, rate = figures
    return System(mcr, ccr, system_coll, system_debt, rate, updated, now)


def _trove_position(
    liquity: LiquityAddresses, trove: Trove, prices: Quoted, system: System, warnings: Warnings
) -> dict[str, Any]:
    tm, debt, coll, price = liquity.trove_manager, trove.debt, trove.coll, prices.eth
    mcr, ccr, system_coll, system_debt = system.mcr, system.ccr, system.coll, system.debt
    ratio = None if price is None or not debt else Fraction(coll * price // debt, WAD)
    recovery = None if price is None or not system_debt else system_coll * price // system_debt < ccr
    risk = None
    if debt and price is not None:
        threshold = Fraction(mcr, WAD)
        if coll * system_debt < system_coll * debt:  # below the system's ratio: recovery mode reaches it too
            threshold = max(threshold, Fraction(ccr, WAD) * Fraction(system_debt * coll, system_coll * debt))
        held = Collateral(prices.eth_token, Fraction(coll, WAD), Fraction(price, WAD), 1 / threshold)
        risk = borrow_risk(Fraction(debt, WAD), [held], Unit(Fraction(1), Fraction(1)), warnings, tm)
        risk["oracle"] = oracle_info(liquity.price_feed, system.updated, system.now)
    eth, feed = prices.eth_token, prices.price_feed
    legs = [
        leg(COLLATERAL, f"{tm}:collateral", eth, coll, prices.eth_usd(coll), feed),
        leg(DEBT, f"{tm}:debt", prices.lusd, debt, lusd_usd(debt), tm),
        leg(CLAIMABLE, f"{tm}:surplus", eth, trove.surplus, prices.eth_usd(trove.surplus), feed),
    ]
    status = STATUSES[trove.status] if trove.status < len(STATUSES) else str(trove.status)
    return {
        **position("LiquityTrove", tm, LENDING, "ETH/LUSD trove", legs, apy=0.0, risk=risk),
        "type": "liquity-trove",
        "status": status,
        "collateral": str(coll),
        "debt": str(debt),
        "collateralRatio": None if ratio is None else float(ratio),
        "collateralSurplus": str(trove.surplus),
        "borrowingRate": float(Fraction(system.borrowing_rate, WAD)),
        "recoveryMode": recovery,
    }


def lusd_usd(amount: int) -> float:
    """LUSD in USD as the system counts it: one dollar a LUSD."""
    return float(Fraction(amount, WAD))


def _deposit(sp: str, amounts: tuple[int, ...], prices: Quoted) -> dict[str, Any]:
    deposit, eth_gain, lqty_gain = amounts
    legs = [
        leg(SUPPLIED, f"{sp}:deposit", prices.lusd, deposit, lusd_usd(deposit), prices.trove_manager),
        leg(REWARD, f"{sp}:eth-gain", prices.eth_token, eth_gain, prices.eth_usd(eth_gain), prices.price_feed),
        leg(REWARD, f"{sp}:lqty-gain", prices.lqty, lqty_gain, prices.lqty_value(lqty_gain), feed_of(prices.lqty_usd)),
    ]
    return {
        **position("LiquityStabilityDeposit", sp, STAKING, "LUSD Stability Pool", legs, apy=None),
        "type": "liquity-stability-deposit",
        "deposit": str(deposit),
        "ethGain": str(eth_gain),
        "lqtyGain": str(lqty_gain),
    }


def _stake(staking: str, amounts: tuple[int, ...], prices: Quoted) -> dict[str, Any]:
    stake, eth_gain, lusd_gain = amounts
    legs = [
        leg(STAKED, f"{staking}:stake", prices.lqty, stake, prices.lqty_value(stake), feed_of(prices.lqty_usd)),
        leg(REWARD, f"{staking}:eth-gain", prices.eth_token, eth_gain, prices.eth_usd(eth_gain), prices.price_feed),
        leg(REWARD, f"{staking}:lusd-gain", prices.lusd, lusd_gain, lusd_usd(lusd_gain), prices.trove_manager),
    ]
    return {
        **position("LiquityStake", staking, STAKING, "LQTY staking", legs, apy=None),
        "type": "liquity-lqty-stake",
        "stake": str(stake),
        "ethGain": str(eth_gain),
        "lusdGain": str(lusd_gain),
    }
