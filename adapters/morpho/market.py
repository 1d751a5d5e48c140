"""Morpho Blue markets at the request's block: their state read once per request and accrued to
the block's timestamp as MorphoBalancesLib accrues it, their APYs as Morpho's SDK quotes them, and
the reads positions, pools and vaults share (MorphoReader), so that all give the same figures.
"""

from __future__ import annotations

import asyncio
import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from adapters.morpho import adaptive_curve_irm as irm
from adapters.morpho.adaptive_curve_irm import SECONDS_PER_YEAR, WAD
from adapters.morpho.contracts import (
    BORROW_RATE_VIEW,
    ID_TO_MARKET_PARAMS,
    MARKET,
    ORACLE_FEEDS,
    ORACLE_PRICE,
    POSITION,
    RATE_AT_TARGET,
    MarketParams,
)
from adapters.morpho.section import MorphoAddresses
from adapters.position_warnings import FIGURE_UNAVAILABLE, Warnings, outcome
from adapters.prices import UsdPrice, noted, oldest_update, usd_price
from addresses import ChainAddresses
from chain import ChainReader, erc20, first, no_read
from errors import ProtocolError

ORACLE_PRICE_SCALE = 10**36
VIRTUAL_SHARES = 10**6
VIRTUAL_ASSETS = 1

Money = Callable[[int | None], float | None]
"""Raw units of a vault's or market's asset to USD (None where the amount or the price is)."""


@dataclass(frozen=True)
class MarketState:
    """A market's totals accrued to the block's timestamp, and its rates (None: not derivable)."""

    params: MarketParams
    total_supply_assets: int
    total_supply_shares: int
    total_borrow_assets: int
    total_borrow_shares: int
    fee: int
    borrow_apy: float | None
    supply_apy: float | None
    pending_fee_shares: int = 0
    """Supply shares the accrual mints to the fee recipient, not yet in its `position()`."""
    rate_problem: str | None = None
    """Why the APYs are None, when they are."""
    accrued_supply_rate: int | None = None
    """Per second, WAD: what suppliers earn from the accrued state on (the rate vaults are weighed by)."""

    @property
    def liquidity(self) -> int:
        """What suppliers can withdraw and borrowers borrow: supplied less borrowed."""
        return self.total_supply_assets - self.total_borrow_assets

    def supply_assets(self, shares: int) -> int:
        return mul_div_down(
            shares, self.total_supply_assets + VIRTUAL_ASSETS, self.total_supply_shares + VIRTUAL_SHARES
        )

    def borrow_assets(self, shares: int) -> int:
        return _mul_div_up(shares, self.total_borrow_assets + VIRTUAL_ASSETS, self.total_borrow_shares + VIRTUAL_SHARES)


def mul_div_down(x: int, y: int, d: int) -> int:
    return x * y // d


def _mul_div_up(x: int, y: int, d: int) -> int:
    return (x * y + d - 1) // d


def _w_taylor_compounded(rate: int, elapsed: int) -> int:
    """e^(rate x elapsed) - 1 in WAD, to the third term, as Morpho Blue's MathLib computes it."""
    first = rate * elapsed
    second = mul_div_down(first, first, 2 * WAD)
    third = mul_div_down(second, first, 3 * WAD)
    return first + second + third


def accrue(
    params: MarketParams,
    totals: tuple[int, ...],
    borrow_rate: int | None,
    now: int,
    quoted: irm.BorrowRates | None,
    rate_problem: str | None = None,
    adaptive: bool = False,
) -> MarketState:
    """Market totals at `now`, as MorphoBalancesLib.expectedMarketBalances computes them, with
    `borrow_rate` (what the next accrual charges). The APYs are those of the market accrued to
    `now`, the state the amounts are reported at, as Morpho's SDK quotes them
    (`market.accrueInterest(now)`, then Market.getBorrowApy / getSupplyApy): for
    AdaptiveCurveIrm the curve at the end rate at target and the accrued utilization; for other
    IRMs `borrowRateView` (`quoted.end`), the only state they are asked about. Borrow APY =
    e^(rate x year) - 1; supply rate = rate x accrued utilization x (1 - fee), rounded as the
    SDK does, compounded the same way. The accrued supply rate is also what the vaults weigh.

    Without a borrow rate the totals cannot be brought to `now` when interest is owed; that is
    a ProtocolError (the amounts are null, with a warning), not stale amounts shown as current.
    """
    supply_assets, supply_shares, borrow_assets, borrow_shares, last_update, fee = totals
    elapsed = now - last_update
    fee_shares = 0
    if elapsed > 0 and borrow_assets:
        if borrow_rate is None:
            raise ProtocolError(f"its interest cannot be accrued: {rate_problem}")
        interest = mul_div_down(borrow_assets, _w_taylor_compounded(borrow_rate, elapsed), WAD)
        borrow_assets += interest
        supply_assets += interest
        if fee:
            fee_amount = mul_div_down(interest, fee, WAD)
            fee_shares = mul_div_down(
                fee_amount, supply_shares + VIRTUAL_SHARES, supply_assets - fee_amount + VIRTUAL_ASSETS
            )
            supply_shares += fee_shares
    borrow_apy = supply_apy = accrued_supply_rate = None
    if quoted is not None:
        accrued_utilization = irm.utilization(borrow_assets, supply_assets)
        accrued_borrow_rate = (
            irm.borrow_rates(accrued_utilization, quoted.end_rate_at_target, 0).end if adaptive else quoted.end
        )
        accrued_supply_rate = _supply_rate(accrued_borrow_rate, accrued_utilization, fee)
        try:
            borrow_apy = rate_to_apy(accrued_borrow_rate)
            supply_apy = rate_to_apy(accrued_supply_rate)
        except OverflowError:
            rate_problem = f"the IRM's rate of {accrued_borrow_rate} per second is too large to be an APY"
    return MarketState(
        params,
        supply_assets,
        supply_shares,
        borrow_assets,
        borrow_shares,
        fee,
        borrow_apy,
        supply_apy,
        fee_shares,
        rate_problem,
        accrued_supply_rate,
    )


def _supply_rate(borrow_rate: int, utilization: int, fee: int) -> int:
    """borrow rate x utilization x (1 - fee), WAD, rounded down then up (Market.getSupplyApy)."""
    return _mul_div_up(mul_div_down(borrow_rate, utilization, WAD), WAD - fee, WAD)


def rate_to_apy(rate: int) -> float:
    """A per-second WAD rate compounded continuously over a 365-day year (MarketUtils.rateToApy)."""
    return math.expm1(rate * SECONDS_PER_YEAR / WAD)


def money(token: dict[str, Any] | None, price: UsdPrice | None) -> Money:
    """USD of raw amounts of `token`, where both it and its price are known."""

    def usd(amount: int | None) -> float | None:
        return price.value(amount, token["decimals"]) if price and token and amount is not None else None

    return usd


async def market_params(reader: ChainReader, blue: str, market_id: str) -> MarketParams:
    """Morpho Blue's own `idToMarketParams` at the block: zero parameters for an id no market has."""
    found = await reader.call(blue, ID_TO_MARKET_PARAMS, bytes.fromhex(market_id[2:]), label="Morpho Blue")
    return MarketParams(*found)


class MorphoReader:
    """The reads of one input, sharing the request's reader (and so its rounds and block)."""

    def __init__(
        self,
        reader: ChainReader,
        deployment: MorphoAddresses,
        chain: ChainAddresses,
        markets: Mapping[str, MarketParams],
        warnings: Warnings,
    ) -> None:
        self.reader = reader
        self.warnings = warnings
        self.blue = deployment.blue.address
        self.adaptive_curve_irm = deployment.adaptive_curve_irm
        self.chain = chain
        self.markets = markets

    @functools.cached_property
    def markets_by_params(self) -> dict[tuple[Any, ...], str]:
        return {params.as_tuple(): market_id for market_id, params in self.markets.items()}

    async def market(self, market_id: str) -> MarketState:
        return await self.reader.shared(("morpho", "market", market_id), lambda: self._read_market(market_id))

    async def quoted_market(self, market_id: str, what: str) -> MarketState | None:
        """A market's state for an answer: None with a warning when it cannot be read (`what`
        names the figures then null), and a warning when only its APYs cannot be derived."""
        state = await self.warnings.optional(self.market(market_id), market_id, what)
        if state is not None and state.rate_problem:
            self.warnings.add(FIGURE_UNAVAILABLE, market_id, f"supplyApy and borrowApy are null: {state.rate_problem}")
        return state

    async def params(self, market_id: str) -> MarketParams:
        """A market's parameters: from the index's catalog, or else Morpho Blue's at the block
        (a market the index has not reached, or a reader without a catalog)."""
        known = self.markets.get(market_id)
        if known is not None:
            return known
        found = await market_params(self.reader, self.blue, market_id)
        if not found.exists:
            raise ProtocolError(
                f"{market_id} is not a market of Morpho Blue {self.blue} on chain "
                f"{self.reader.chain_id} at block {await self.reader.block_number()}."
            )
        return found

    async def totals(self, market_id: str) -> Any:
        """Morpho Blue's `market(id)` as stored, before the accrual to the block (IMorpho's `Market`)."""
        return await self.reader.call(self.blue, MARKET, bytes.fromhex(market_id[2:]), label="Morpho Blue")

    async def _read_market(self, market_id: str) -> MarketState:
        params = await self.params(market_id)
        adaptive = params.irm == self.adaptive_curve_irm
        label = f"IRM of market {market_id}"
        totals, now, at_target = await asyncio.gather(
            self.totals(market_id),
            self.reader.block_timestamp(),
            outcome(self.reader.call(params.irm, RATE_AT_TARGET, bytes.fromhex(market_id[2:]), label=label))
            if adaptive
            else no_read(),
        )
        if int(params.irm, 16) == 0:
            return accrue(params, totals, 0, now, irm.BorrowRates(0, 0, 0))
        try:
            (rate,) = await self.reader.call(params.irm, BORROW_RATE_VIEW, params.as_tuple(), totals, label=label)
        except ProtocolError as exc:
            return accrue(params, totals, None, now, None, exc.message)
        if not adaptive:
            return accrue(params, totals, rate, now, irm.BorrowRates(rate, rate, 0))
        if isinstance(at_target, ProtocolError):
            return accrue(params, totals, rate, now, None, at_target.message)
        (rate_at_target,) = at_target
        utilization = irm.utilization(totals.totalBorrowAssets, totals.totalSupplyAssets)
        quoted = irm.borrow_rates(utilization, rate_at_target, now - totals.lastUpdate)
        return accrue(params, totals, rate, now, quoted, adaptive=True)

    async def position(self, market_id: str, owner: str) -> Any:
        """Morpho Blue's `position(id, owner)` (IMorpho's `Position`): shares, not yet accrued."""
        return await self.reader.call(self.blue, POSITION, bytes.fromhex(market_id[2:]), owner, label="Morpho Blue")

    async def supply(self, market_id: str, owner: str) -> int:
        """The assets `owner` supplies to a market, accrued to the block."""
        position, state = await asyncio.gather(self.position(market_id, owner), self.market(market_id))
        return state.supply_assets(position.supplyShares)

    async def supply_rate(self, market_id: str) -> int:
        """A market's accrued supply rate (per second, WAD); ProtocolError where it has none."""
        state = await self.market(market_id)
        if state.accrued_supply_rate is None:
            raise ProtocolError(f"market {market_id} has no rate ({state.rate_problem})")
        return state.accrued_supply_rate

    async def price(self, token: str) -> UsdPrice | None:
        price = await self.reader.shared(("morpho", "price", token), lambda: usd_price(self.reader, self.chain, token))
        return noted(self.reader, price)

    async def token(self, token: str) -> dict[str, Any]:
        return await self.reader.shared(("morpho", "token", token), lambda: erc20.token_info(self.reader, token))

    async def oracle_price(self, oracle: str) -> int:
        return cast(int, await first(self.reader.call(oracle, ORACLE_PRICE, label=f"oracle {oracle}")))

    async def oracle_updated_at(self, oracle: str) -> int | None:
        """The oldest `updatedAt` of the feeds a MorphoChainlinkOracle(V2) reads (ORACLE_FEEDS);
        None for an oracle that names none (another kind: its price carries no time)."""
        label = f"oracle {oracle}"
        named = await asyncio.gather(
            *(self.reader.call(oracle, getter, label=label) for getter in ORACLE_FEEDS), return_exceptions=True
        )
        feeds = []
        for answer in named:
            if isinstance(answer, ProtocolError):
                continue
            if isinstance(answer, BaseException):
                raise answer
            (feed,) = answer
            if int(feed, 16):
                feeds.append(feed)
        return await oldest_update(self.reader, feeds, label)
