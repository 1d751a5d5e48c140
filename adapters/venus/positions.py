"""Venus's core pool (BNB Chain): an account's supplies, borrows, XVS and liquidation risk, on-chain.

- Round 1, the Comptroller: `getAllMarkets()`, the markets the account entered (`getAssetsIn`),
  the pool's `oracle()`, `getAccountLiquidity(account)`, `venusAccrued(account)`, XVS's address
  and `venusInitialIndex()`.
- Round 2: every market's `getAccountSnapshot(account)` (its vToken balance and stored borrow),
  and the VAI it owes where the pool has a VAIController.
- Round 3, per market it holds: `exchangeRateCurrent()` and `borrowBalanceCurrent(account)`
  (eth_call runs their accrual with no effect: the market's own figures at the block), the
  account's effective collateral factor and liquidation threshold (`getEffectiveLtvFactor`), its
  token, price and rates (markets.py) and its XVS (rewards.py); then XVS's price by the oracle.
- All of these go out in one call (VenusLens, lenses/, chain/lens.py), which makes them in the
  same dependent order, the accruals last (they write), and returns their raw answers; without it
  they take four rounds.
- Amounts: supply = vToken balance x exchangeRateCurrent / 1e18, floored as `balanceOfUnderlying`;
  debt = `borrowBalanceCurrent`.
- isCollateral: the account entered the market and its liquidation threshold there is not 0;
  canBeCollateral: that threshold is not 0 (entering the market would count the supply).
- Risk (`risk` on the state): the Comptroller's liquidation check (PolicyFacet, against the
  liquidation thresholds in v10): liquidatable once Σ supply x price x threshold (entered markets)
  falls below Σ debt x price, solved per collateral by adapters/risk.py; the health factor is that
  ratio. `getAccountLiquidity` makes the same sum from stored balances: its liquidity (or
  shortfall) is given beside it, as the Comptroller says it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from fractions import Fraction
from typing import Any, NamedTuple, cast

from adapters.context import FetchContext
from adapters.legs import COLLATERAL, DEBT, LENDING, REWARD, REWARDS, SUPPLIED, leg, position, symbol
from adapters.position_warnings import FIGURE_UNAVAILABLE, Warnings, outcome
from adapters.risk import Collateral, Unit, borrow_risk, oracle_info, unknown_risk
from adapters.venus import rewards
from adapters.venus.contracts import (
    ACCOUNT_LIQUIDITY,
    ACCOUNT_SNAPSHOT,
    ALL_MARKETS,
    ASSET_PRICE,
    ASSETS_IN,
    BORROW_BALANCE_CURRENT,
    EFFECTIVE_LTV_FACTOR,
    EXCHANGE_RATE_CURRENT,
    INITIAL_INDEX,
    LENS,
    LTV_FACTOR,
    MANTISSA,
    MAX_MARKETS,
    ORACLE,
    PRICE_SCALE,
    THRESHOLD_FACTOR,
    VAI_ADDRESS,
    VAI_BLOCKS_PER_YEAR,
    VAI_CONTROLLER,
    VAI_RATE,
    VAI_REPAY_AMOUNT,
    VENUS_ACCRUED,
    XVS_ADDRESS,
)
from adapters.venus.markets import LABEL, MarketFigures, apy, market
from adapters.venus.section import VenusAddresses
from chain import ChainReader, erc20, first, known, no_read
from chain.abi import ZERO_ADDRESS, Function
from errors import ProtocolError


class _Pool(NamedTuple):
    """The Comptroller's round (see the module)."""

    markets: list[str]
    entered: set[str]
    oracle: str
    liquidity: Any
    """ACCOUNT_LIQUIDITY's answer, or the error that failed it."""
    accrued: int
    xvs: str
    initial: int
    vai_controller: str | None
    """The core pool's VAIController; None where it has none."""


class _Held(NamedTuple):
    """One market the account holds: its figures, positions and what the risk and XVS need."""

    market: MarketFigures
    supply: dict[str, Any] | None
    borrow: dict[str, Any] | None
    collateral: Collateral | None
    supplied: int
    owed: int
    accrual: rewards.Accrual | None


async def fetch(ctx: FetchContext[VenusAddresses], wallet: str) -> dict[str, Any]:
    reader, warnings, comptroller = ctx.reader(), ctx.warnings, ctx.section.comptroller
    reader.prefetch([LENS.initcode(wallet, comptroller)], [comptroller])
    pool = await _pool(reader, comptroller, wallet)
    vai, *snapshots = await asyncio.gather(
        outcome(_vai(reader, pool.vai_controller, wallet, warnings)) if pool.vai_controller else no_read(),
        *(outcome(reader.call(vtoken, ACCOUNT_SNAPSHOT, wallet, label=LABEL)) for vtoken in pool.markets),
    )
    held, missing = [], 0  # parts left out (unreadable): the account's totals and risk are then unknown
    for vtoken, snapshot in zip(pool.markets, snapshots):
        if isinstance(snapshot, ProtocolError):
            warnings.left_out("the Venus market", vtoken, snapshot)
            missing += 1
            continue
        error, balance, borrowed, _ = snapshot
        if error == 0 and (balance or borrowed):
            held.append((vtoken, balance, borrowed))
    found = await asyncio.gather(*(outcome(_held(reader, comptroller, pool, wallet, h, warnings)) for h in held))
    parts = [part for part in found if isinstance(part, _Held)]
    for (vtoken, _, _), part in zip(held, found):
        if isinstance(part, ProtocolError):
            warnings.left_out("the Venus market", vtoken, part)
            missing += 1
    if isinstance(vai, ProtocolError):
        warnings.left_out("the VAI debt of the VAIController", str(pool.vai_controller), vai)
        missing += 1
    parts += [vai] if isinstance(vai, _Held) else []
    state = await _state(comptroller, pool, parts, not missing, warnings) if parts or missing else None
    claims = await _claims(ctx, comptroller, pool, parts) if parts or pool.accrued else []
    return {
        "marketState": state,
        "supplyPositions": [part.supply for part in parts if part.supply],
        "borrowPositions": [part.borrow for part in parts if part.borrow],
        "rewardPositions": claims,
    }


async def _pool(reader: ChainReader, comptroller: str, wallet: str) -> _Pool:
    (markets,), (entered,), oracle, liquidity, accrued, xvs, initial, vai = await asyncio.gather(
        reader.call(comptroller, ALL_MARKETS, label=LABEL),
        reader.call(comptroller, ASSETS_IN, wallet, label=LABEL),
        first(reader.call(comptroller, ORACLE, label=LABEL)),
        outcome(reader.call(comptroller, ACCOUNT_LIQUIDITY, wallet, label=LABEL)),
        first(reader.call(comptroller, VENUS_ACCRUED, wallet, label=LABEL)),
        first(reader.call(comptroller, XVS_ADDRESS, label=LABEL)),
        first(reader.call(comptroller, INITIAL_INDEX, label=LABEL)),
        first(reader.call(comptroller, VAI_CONTROLLER, label=LABEL)),
    )
    if len(markets) > MAX_MARKETS:
        raise ProtocolError(f"the {LABEL} lists {len(markets)} markets, more than {MAX_MARKETS}")
    lowered = [str(vtoken).lower() for vtoken in markets]
    controller = None if vai == ZERO_ADDRESS else str(vai).lower()
    entered_markets = {str(v).lower() for v in entered}
    return _Pool(lowered, entered_markets, str(oracle), liquidity, accrued, str(xvs).lower(), initial, controller)


async def _vai(reader: ChainReader, controller: str, wallet: str, warnings: Warnings) -> _Held | None:
    """The VAI the account must repay (minted against its collateral, with interest), a debt the
    Comptroller counts at 1 USD a VAI; None where it owes none. APY: the controller's repay rate a
    block compounded over its blocks a year."""
    label = f"{LABEL} VAIController"
    owed, vai, rate, year = await asyncio.gather(
        first(reader.call(controller, VAI_REPAY_AMOUNT, wallet, label=label)),
        first(reader.call(controller, VAI_ADDRESS, label=label)),
        warnings.optional(first(reader.call(controller, VAI_RATE, label=label)), controller, "VAI's apy is"),
        warnings.optional(first(reader.call(controller, VAI_BLOCKS_PER_YEAR, label=label)), controller, "VAI's apy is"),
    )
    if not owed:
        return None
    token = await warnings.optional(erc20.token_info(reader, str(vai).lower()), controller, "VAI's currency is")
    rates = apy(rate, year) if rate is not None and year else None
    found = MarketFigures(controller, token, Fraction(1), None, rates, year)
    borrow = {**_borrow(found, owed, controller), "type": "venus-vai"}
    return _Held(found, None, borrow, None, 0, owed, None)


async def _held(
    reader: ChainReader,
    comptroller: str,
    pool: _Pool,
    wallet: str,
    held: tuple[str, int, int],
    warnings: Warnings,
) -> _Held:
    """A market the account holds (`held`: the vToken, its balance and stored borrow)."""
    vtoken, balance, stored = held

    def read(target: str, function: Function, *args: Any, what: str) -> Awaitable[Any]:
        return warnings.optional(first(reader.call(target, function, *args, label=LABEL)), vtoken, what)

    found: MarketFigures
    found, rate, debt, ltv, threshold, accrual = await asyncio.gather(
        market(reader, pool.oracle, vtoken, warnings, LABEL),
        first(reader.call(vtoken, EXCHANGE_RATE_CURRENT, label=LABEL)),  # none: the market is left out
        first(reader.call(vtoken, BORROW_BALANCE_CURRENT, wallet, label=LABEL)) if stored else known(0),
        read(comptroller, EFFECTIVE_LTV_FACTOR, wallet, vtoken, LTV_FACTOR, what="collateralFactor is"),
        read(comptroller, EFFECTIVE_LTV_FACTOR, wallet, vtoken, THRESHOLD_FACTOR, what="isCollateral and risk are"),
        warnings.optional(
            rewards.accrual(reader, comptroller, vtoken, wallet, (balance, stored), pool.initial, LABEL),
            vtoken,
            "its XVS is",
        ),
    )
    supplied = balance * rate // MANTISSA
    entered = vtoken in pool.entered
    supply = borrow = collateral = None
    if balance:
        supply = _supply(found, supplied, balance, entered, ltv, threshold, pool.oracle)
        if entered and threshold and found.token and found.usd is not None:
            whole = Fraction(supplied, 10 ** found.token["decimals"])
            collateral = Collateral(found.token, whole, found.usd, Fraction(threshold, MANTISSA), source=vtoken)
    if stored:
        borrow = _borrow(found, debt, pool.oracle)
    return _Held(found, supply, borrow, collateral, supplied, debt or 0, accrual)


def _supply(
    found: MarketFigures,
    supplied: int,
    balance: int,
    entered: bool,
    ltv: int | None,
    threshold: int | None,
    oracle: str,
) -> dict[str, Any]:
    key, usd = f"{found.vtoken}:supply", found.value(supplied)
    is_collateral = None if threshold is None else entered and threshold > 0
    return {
        "type": "venus-supply",
        "vToken": found.vtoken,
        "currency": found.token,
        "balance": str(supplied),
        "balanceUsd": usd,
        "vTokenBalance": str(balance),
        "apy": found.supply_apy,
        "isCollateral": is_collateral,
        "canBeCollateral": None if threshold is None else threshold > 0,
        "collateralFactor": None if ltv is None else ltv / MANTISSA,
        "liquidationThreshold": None if threshold is None else threshold / MANTISSA,
        **position(
            "VenusSupplyPosition",
            key,
            LENDING,
            f"{symbol(found.token)} (Venus)",
            [leg(COLLATERAL if is_collateral else SUPPLIED, key, found.token, supplied, usd, oracle.lower())],
        ),
    }


def _borrow(found: MarketFigures, debt: int, oracle: str) -> dict[str, Any]:
    key, usd = f"{found.vtoken}:borrow", found.value(debt)
    return {
        "type": "venus-borrow",
        "vToken": found.vtoken,
        "currency": found.token,
        "debt": str(debt),
        "debtUsd": usd,
        "apy": found.borrow_apy,
        **position(
            "VenusBorrowPosition",
            key,
            LENDING,
            f"{symbol(found.token)} (Venus)",
            [leg(DEBT, key, found.token, debt, usd, oracle.lower())],
        ),
    }


async def _state(
    comptroller: str, pool: _Pool, parts: list[_Held], complete: bool, warnings: Warnings
) -> dict[str, Any]:
    """The account's totals in the pool and its risk (see the module); `complete`: every debt was
    read (else the debt, net worth and risk are unknown)."""
    supplies = [p.market.value(p.supplied) for p in parts if p.supply]
    loans = [p for p in parts if p.owed]
    priced = [(_whole(p), p.market.usd) for p in loans]
    debt_known = complete and all(whole is not None and usd is not None for whole, usd in priced)
    debt_usd = sum((whole * usd for whole, usd in priced if whole is not None and usd is not None), Fraction(0))
    supply_usd = None if None in supplies else sum(cast(list[float], supplies))
    state: dict[str, Any] = {
        "comptroller": comptroller.lower(),
        "totalSupplyUsd": supply_usd,
        "totalDebtUsd": float(debt_usd) if debt_known else None,
        "netWorthUsd": supply_usd - float(debt_usd) if supply_usd is not None and debt_known else None,
        "liquidityUsd": None,
        "shortfallUsd": None,
        "healthFactor": None,
        "risk": None,
    }
    error, excess, shortfall = (None, 0, 0) if isinstance(pool.liquidity, ProtocolError) else pool.liquidity
    if error != 0:
        why = f"it answers error {error}" if error is not None else cast(ProtocolError, pool.liquidity).message
        warnings.add(FIGURE_UNAVAILABLE, comptroller, f"getAccountLiquidity of the {LABEL} failed: {why}")
    else:
        state["liquidityUsd"], state["shortfallUsd"] = excess / MANTISSA, shortfall / MANTISSA
    if loans or not complete:
        state["risk"] = _risk(pool, parts, debt_usd if debt_known else None, warnings, comptroller)
        state["healthFactor"] = state["risk"]["healthFactor"]
    return state


def _whole(part: _Held) -> Fraction | None:
    """The debt in whole tokens; None where the token is unknown."""
    return None if part.market.token is None else Fraction(part.owed, 10 ** part.market.token["decimals"])


def _risk(
    pool: _Pool, parts: list[_Held], debt_usd: Fraction | None, warnings: Warnings, comptroller: str
) -> dict[str, Any]:
    """The account's `BorrowRisk` by the Comptroller's liquidation check (see the module)."""
    collateral = [p.collateral for p in parts if p.collateral]
    risk_oracle = oracle_info(pool.oracle, None, 0)
    unknown = [
        p
        for p in parts
        if p.supply and (p.supply["isCollateral"] is None or (p.supply["isCollateral"] and not p.collateral))
    ]
    if debt_usd is None or unknown:
        return {**unknown_risk([p.market.token for p in parts if p.supply], None), "oracle": risk_oracle}
    loans = [p for p in parts if p.owed]
    single = next(iter(loans)).market.usd if len(loans) == 1 else None
    owed = {p.market.vtoken: cast(Fraction, _whole(p)) for p in loans}
    unit = Unit(usd=Fraction(1), per_loan_asset=single)
    return {**borrow_risk(debt_usd, collateral, unit, warnings, comptroller, owed=owed), "oracle": risk_oracle}


async def _claims(
    ctx: FetchContext[VenusAddresses], comptroller: str, pool: _Pool, parts: list[_Held]
) -> list[dict[str, Any]]:
    """The XVS the account may claim: `venusAccrued` and what its markets owe it at the block."""
    amount = pool.accrued + sum(p.accrual.pending for p in parts if p.accrual)
    if not amount:
        return []
    reader = ctx.reader()
    info, price = await asyncio.gather(
        erc20.token_info(reader, pool.xvs),
        ctx.warnings.optional(
            first(reader.call(pool.oracle, ASSET_PRICE, pool.xvs, label=f"{LABEL} oracle")), pool.xvs, "accruedUsd is"
        ),
    )
    usd = None if price is None else float(Fraction(amount * price, PRICE_SCALE))
    key = f"{comptroller.lower()}:{pool.xvs}:rewards"
    return [
        {
            "type": "venus-reward",
            "rewardToken": info,
            "accrued": str(amount),
            "accruedUsd": usd,
            **position(
                "VenusRewardPosition",
                key,
                REWARDS,
                symbol(info),
                [leg(REWARD, key, info, amount, usd, pool.oracle.lower())],
            ),
        }
    ]
