"""Venus: an account's supplies, borrows, rewards and liquidation risk in each of a chain's pools
(listing.py: the core pool on BNB Chain, the isolated pools of the PoolRegistry), on-chain; one
`VenusAccountState` per pool where it holds something.

- Round 1, the pools: the registry's `getAllPools()`.
- Round 2, each pool's Comptroller: `getAllMarkets()`, the markets the account entered
  (`getAssetsIn`), the pool's `oracle()`, `getAccountLiquidity(account)`, and who pays its
  rewards (rewards.py): the core pool's Comptroller itself (`venusAccrued(account)`, XVS's
  address, `venusInitialIndex()`), an isolated pool's `getRewardDistributors()`, each with its
  `rewardToken()`, `isTimeBased()`, `rewardTokenAccrued(account)` and `INITIAL_INDEX()`.
- Round 3: every market's `getAccountSnapshot(account)` (its vToken balance and stored borrow),
  and the VAI it owes where the pool has a VAIController (the core pool).
- Round 4, per market it holds: `exchangeRateCurrent()` and `borrowBalanceCurrent(account)`
  (eth_call runs their accrual with no effect: the market's own figures at the block), the
  account's collateral factor and liquidation threshold (the core pool's `getEffectiveLtvFactor`,
  an isolated pool's `markets(vToken)`), its token, price and rates (markets.py) and what each
  payer owes on it (rewards.py); then each reward token's price by the pool's oracle.
- All of these go out in two calls made in one round (VenusLens for the core pool, VenusPoolsLens
  for the isolated pools: lenses/, chain/lens.py), which make them in the same dependent order,
  the accruals last (they write), and return their raw answers; without them they take five
  rounds.
- Amounts: supply = vToken balance x exchangeRateCurrent / 1e18, floored as `balanceOfUnderlying`;
  debt = `borrowBalanceCurrent`.
- isCollateral: the account entered the market and its liquidation threshold there is not 0;
  canBeCollateral: that threshold is not 0 (entering the market would count the supply).
- Risk (`risk` on the state): the pool's Comptroller's liquidation check (the core pool's
  PolicyFacet and an isolated Comptroller alike, against the liquidation thresholds):
  liquidatable once Σ supply x price x threshold (entered markets) falls below Σ debt x price,
  solved per collateral by adapters/risk.py; the health factor is that ratio.
  `getAccountLiquidity` makes the same sum from stored balances: its liquidity (or
  shortfall) is given beside it, as the Comptroller says it.
"""

from __future__ import annotations

import asyncio
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
    COMP_ACCRUED,
    COMP_ADDRESS,
    COMP_INITIAL_INDEX,
    COMPOUND_MARKETS,
    EFFECTIVE_LTV_FACTOR,
    EXCHANGE_RATE_CURRENT,
    INITIAL_INDEX,
    LENS,
    LTV_FACTOR,
    MANTISSA,
    MAX_MARKETS,
    ORACLE,
    POOL_MARKETS,
    POOLS_LENS,
    PRICE_SCALE,
    REWARD_ACCRUED,
    REWARD_DISTRIBUTORS,
    REWARD_INITIAL_INDEX,
    REWARD_TOKEN,
    THRESHOLD_FACTOR,
    TIME_BASED,
    UNDERLYING_PRICE,
    VAI_ADDRESS,
    VAI_BLOCKS_PER_YEAR,
    VAI_CONTROLLER,
    VAI_RATE,
    VAI_REPAY_AMOUNT,
    VENUS_ACCRUED,
    XVS_ADDRESS,
)
from adapters.venus.listing import VENUS_ISOLATED, ListedPool, pools
from adapters.venus.markets import MarketFigures, apy, holding, market
from adapters.venus.section import VenusAddresses
from chain import ChainReader, erc20, first, known, no_read
from chain.abi import ZERO_ADDRESS
from errors import ProtocolError


class _Round(NamedTuple):
    """A pool's first reads (see the module)."""

    pool: ListedPool
    markets: list[str]
    entered: set[str]
    oracle: str
    liquidity: Any
    """ACCOUNT_LIQUIDITY's answer, or the error that failed it."""
    payers: list[rewards.Payer]
    vai_controller: str | None
    """The core pool's VAIController; None where it has none (an isolated pool)."""


class _Held(NamedTuple):
    """One market the account holds: its figures, positions and what the risk and rewards need."""

    market: MarketFigures
    supply: dict[str, Any] | None
    borrow: dict[str, Any] | None
    collateral: Collateral | None
    supplied: int
    owed: int
    pending: tuple[int | None, ...]
    """What each of the pool's payers owes on it beyond their stored amounts (None: unreadable, warned)."""


class Account(NamedTuple):
    """The account in one pool: its state (None where it holds nothing) and positions."""

    state: dict[str, Any] | None
    supplies: list[dict[str, Any]]
    borrows: list[dict[str, Any]]
    claims: list[dict[str, Any]]


async def fetch(ctx: FetchContext[VenusAddresses], wallet: str) -> dict[str, Any]:
    reader, venus = ctx.reader(), ctx.section
    lenses = [LENS.initcode(wallet, venus.comptroller)] if venus.comptroller else []
    lenses += [POOLS_LENS.initcode(wallet, venus.pool_registry)] if venus.pool_registry else []
    reader.prefetch(lenses, [a for a in (venus.comptroller, venus.pool_registry) if a])
    listed = await pools(reader, venus)
    found = await asyncio.gather(*(outcome(account(ctx, pool, wallet)) for pool in listed))
    held: list[Account] = []
    for pool, answer in zip(listed, found):
        if isinstance(answer, ProtocolError):
            ctx.warnings.left_out(f"the {pool.label} of Comptroller", pool.comptroller, answer)
        else:
            held.append(answer)
    return {
        "poolStates": [one.state for one in held if one.state],
        "supplyPositions": [p for one in held for p in one.supplies],
        "borrowPositions": [p for one in held for p in one.borrows],
        "rewardPositions": [p for one in held for p in one.claims],
    }


async def account(ctx: FetchContext[Any], pool: ListedPool, wallet: str) -> Account:
    """The account in one pool (Compound v2's Comptroller too: adapters/compound)."""
    reader, warnings = ctx.reader(), ctx.warnings
    first_round = await _round(reader, pool, wallet)
    vai, *snapshots = await asyncio.gather(
        outcome(_vai(reader, first_round, wallet, warnings)) if first_round.vai_controller else no_read(),
        *(outcome(reader.call(v, ACCOUNT_SNAPSHOT, wallet, label=pool.label)) for v in first_round.markets),
    )
    held, missing = [], 0  # parts left out (unreadable): the account's totals and risk are then unknown
    for vtoken, snapshot in zip(first_round.markets, snapshots):
        if isinstance(snapshot, ProtocolError):
            warnings.left_out("the Venus market", vtoken, snapshot)
            missing += 1
            continue
        error, balance, borrowed, _ = snapshot
        if error == 0 and (balance or borrowed):
            held.append((vtoken, balance, borrowed))
    found = await asyncio.gather(*(outcome(_held(reader, first_round, wallet, h, warnings)) for h in held))
    parts = [part for part in found if isinstance(part, _Held)]
    for (vtoken, _, _), part in zip(held, found):
        if isinstance(part, ProtocolError):
            warnings.left_out("the Venus market", vtoken, part)
            missing += 1
    if isinstance(vai, ProtocolError):
        warnings.left_out("the VAI debt of the VAIController", str(first_round.vai_controller), vai)
        missing += 1
    parts += [vai] if isinstance(vai, _Held) else []
    state = await _state(first_round, parts, not missing, warnings) if parts or missing else None
    claims = await _claims(ctx, first_round, parts)
    return Account(
        state,
        [part.supply for part in parts if part.supply],
        [part.borrow for part in parts if part.borrow],
        claims,
    )


async def _round(reader: ChainReader, pool: ListedPool, wallet: str) -> _Round:
    comptroller, label = pool.comptroller, pool.label
    (markets,), (entered,), oracle, liquidity, payers, vai = await asyncio.gather(
        reader.call(comptroller, ALL_MARKETS, label=label),
        reader.call(comptroller, ASSETS_IN, wallet, label=label),
        first(reader.call(comptroller, ORACLE, label=label)),
        outcome(reader.call(comptroller, ACCOUNT_LIQUIDITY, wallet, label=label)),
        _distributors(reader, pool, wallet)
        if pool.kind == VENUS_ISOLATED
        else _comptroller_payer(reader, pool, wallet),
        first(reader.call(comptroller, VAI_CONTROLLER, label=label)) if pool.core else known(ZERO_ADDRESS),
    )
    if len(markets) > MAX_MARKETS:
        raise ProtocolError(f"the {label} lists {len(markets)} markets, more than {MAX_MARKETS}")
    lowered = [str(vtoken).lower() for vtoken in markets]
    controller = None if vai == ZERO_ADDRESS else str(vai).lower()
    entered_markets = {str(v).lower() for v in entered}
    return _Round(pool, lowered, entered_markets, str(oracle), liquidity, payers, controller)


async def _comptroller_payer(reader: ChainReader, pool: ListedPool, wallet: str) -> list[rewards.Payer]:
    """The Comptroller itself: the core pool's pays XVS (venus*), Compound v2's COMP (comp*)."""
    comptroller, label = pool.comptroller, pool.label
    owed, address, index = (
        (COMP_ACCRUED, COMP_ADDRESS, COMP_INITIAL_INDEX)
        if pool.compound
        else (VENUS_ACCRUED, XVS_ADDRESS, INITIAL_INDEX)
    )
    accrued, token, initial = await asyncio.gather(
        first(reader.call(comptroller, owed, wallet, label=label)),
        first(reader.call(comptroller, address, label=label)),
        first(reader.call(comptroller, index, label=label)),
    )
    views = rewards.COMP if pool.compound else rewards.CORE
    return [rewards.Payer(comptroller, str(token).lower(), accrued, initial, views)]


async def _distributors(reader: ChainReader, pool: ListedPool, wallet: str) -> list[rewards.Payer]:
    """An isolated pool's RewardsDistributors (`getRewardDistributors()`), each with its token,
    clock (one without `isTimeBased()` counts blocks), what it stored for the account and its
    initial index."""
    (distributors,) = await reader.call(pool.comptroller, REWARD_DISTRIBUTORS, label=pool.label)
    if len(distributors) > MAX_MARKETS:
        raise ProtocolError(f"the {pool.label} lists {len(distributors)} reward distributors")

    async def payer(distributor: str) -> rewards.Payer:
        label = f"{pool.label} RewardsDistributor"
        token, by_time, accrued, initial = await asyncio.gather(
            first(reader.call(distributor, REWARD_TOKEN, label=label)),
            outcome(first(reader.call(distributor, TIME_BASED, label=label))),
            first(reader.call(distributor, REWARD_ACCRUED, wallet, label=label)),
            first(reader.call(distributor, REWARD_INITIAL_INDEX, label=label)),
        )
        views = rewards.BY_TIME if by_time is True else rewards.BY_BLOCK
        return rewards.Payer(distributor, str(token).lower(), accrued, initial, views)

    return list(await asyncio.gather(*(payer(str(d).lower()) for d in distributors)))


async def _vai(reader: ChainReader, found: _Round, wallet: str, warnings: Warnings) -> _Held | None:
    """The VAI the account must repay (minted against its collateral, with interest), a debt the
    Comptroller counts at 1 USD a VAI; None where it owes none. APY: the controller's repay rate a
    block compounded over its blocks a year."""
    controller, label = str(found.vai_controller), f"{found.pool.label} VAIController"
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
    figures = MarketFigures(controller, token, Fraction(1), None, rates, year)
    borrow = {**_borrow(found.pool, figures, owed, controller), "type": "venus-vai"}
    return _Held(figures, None, borrow, None, 0, owed, ())


async def _factors(reader: ChainReader, found: _Round, vtoken: str, wallet: str, warnings: Warnings) -> tuple[Any, Any]:
    """The account's collateral factor and liquidation threshold in the market (None: unreadable,
    warned): the core pool's effective ones for it (`getEffectiveLtvFactor`, its e-mode pool's
    where it joined one), an isolated pool's `markets(vToken)`."""
    comptroller, label, optional = found.pool.comptroller, found.pool.label, warnings.optional
    if found.pool.compound:
        terms = await optional(reader.call(comptroller, COMPOUND_MARKETS, vtoken, label=label), vtoken, "its factor is")
        if terms is None:
            return None, None
        _, factor, _ = terms
        return factor, factor
    if not found.pool.core:
        terms = await optional(reader.call(comptroller, POOL_MARKETS, vtoken, label=label), vtoken, "its factors are")
        if terms is None:
            return None, None
        _, ltv, threshold = terms
        return ltv, threshold
    ltv, threshold = await asyncio.gather(
        optional(
            first(reader.call(comptroller, EFFECTIVE_LTV_FACTOR, wallet, vtoken, LTV_FACTOR, label=label)),
            vtoken,
            "collateralFactor is",
        ),
        optional(
            first(reader.call(comptroller, EFFECTIVE_LTV_FACTOR, wallet, vtoken, THRESHOLD_FACTOR, label=label)),
            vtoken,
            "isCollateral and risk are",
        ),
    )
    return ltv, threshold


async def _held(
    reader: ChainReader, found: _Round, wallet: str, held: tuple[str, int, int], warnings: Warnings
) -> _Held:
    """A market the account holds (`held`: the vToken, its balance and stored borrow)."""
    vtoken, balance, stored = held
    label = found.pool.label
    figures: MarketFigures
    figures, rate, debt, (ltv, threshold), pending = await asyncio.gather(
        market(reader, found.pool, found.oracle, vtoken, warnings),
        first(reader.call(vtoken, EXCHANGE_RATE_CURRENT, label=label)),  # none: the market is left out
        first(reader.call(vtoken, BORROW_BALANCE_CURRENT, wallet, label=label)) if stored else known(0),
        _factors(reader, found, vtoken, wallet, warnings),
        asyncio.gather(
            *(
                warnings.optional(
                    rewards.accrual(reader, payer, vtoken, wallet, (balance, stored), label),
                    vtoken,
                    f"what {payer.address} owes on it is",
                )
                for payer in found.payers
            )
        ),
    )
    supplied = balance * rate // MANTISSA
    entered = vtoken in found.entered
    supply = borrow = collateral = None
    if balance:
        supply = _supply(found, figures, supplied, balance, entered, (ltv, threshold))
        if entered and threshold and figures.token and figures.usd is not None:
            whole = Fraction(supplied, 10 ** figures.token["decimals"])
            collateral = Collateral(figures.token, whole, figures.usd, Fraction(threshold, MANTISSA), source=vtoken)
    if stored:
        borrow = _borrow(found.pool, figures, debt, found.oracle)
    return _Held(figures, supply, borrow, collateral, supplied, debt or 0, tuple(pending))


def _supply(
    found: _Round,
    figures: MarketFigures,
    supplied: int,
    balance: int,
    entered: bool,
    factors: tuple[int | None, int | None],
) -> dict[str, Any]:
    key, usd, pool = f"{figures.vtoken}:supply", figures.value(supplied), found.pool
    ltv, threshold = factors
    is_collateral = None if threshold is None else entered and threshold > 0
    return {
        "type": f"{_prefix(pool)}-supply",
        "comptroller": pool.comptroller,
        pool.token_field: figures.vtoken,
        "currency": figures.token,
        "balance": str(supplied),
        "balanceUsd": usd,
        f"{pool.token_field}Balance": str(balance),
        "apy": figures.supply_apy,
        "isCollateral": is_collateral,
        "canBeCollateral": None if threshold is None else threshold > 0,
        "collateralFactor": None if ltv is None else ltv / MANTISSA,
        "liquidationThreshold": None if threshold is None else threshold / MANTISSA,
        **position(
            f"{pool.typename}SupplyPosition",
            key,
            LENDING,
            pool.title(symbol(figures.token)),
            [leg(COLLATERAL if is_collateral else SUPPLIED, key, figures.token, supplied, usd, found.oracle.lower())],
        ),
    }


def _prefix(pool: ListedPool) -> str:
    """The positions' `type` prefix: venus, compound-v2."""
    return "compound-v2" if pool.compound else "venus"


def _borrow(pool: ListedPool, figures: MarketFigures, debt: int, oracle: str) -> dict[str, Any]:
    key, usd = f"{figures.vtoken}:borrow", figures.value(debt)
    return {
        "type": f"{_prefix(pool)}-borrow",
        "comptroller": pool.comptroller,
        pool.token_field: figures.vtoken,
        "currency": figures.token,
        "debt": str(debt),
        "debtUsd": usd,
        "apy": figures.borrow_apy,
        **position(
            f"{pool.typename}BorrowPosition",
            key,
            LENDING,
            pool.title(symbol(figures.token)),
            [leg(DEBT, key, figures.token, debt, usd, oracle.lower())],
        ),
    }


async def _state(found: _Round, parts: list[_Held], complete: bool, warnings: Warnings) -> dict[str, Any]:
    """The account's totals in the pool and its risk (see the module); `complete`: every debt was
    read (else the debt, net worth and risk are unknown)."""
    comptroller, label = found.pool.comptroller, found.pool.label
    supplies = [p.market.value(p.supplied) for p in parts if p.supply]
    loans = [p for p in parts if p.owed]
    priced = [(_whole(p), p.market.usd) for p in loans]
    debt_known = complete and all(whole is not None and usd is not None for whole, usd in priced)
    debt_usd = sum((whole * usd for whole, usd in priced if whole is not None and usd is not None), Fraction(0))
    supply_usd = None if None in supplies else sum(cast(list[float], supplies))
    state: dict[str, Any] = {
        "pool": found.pool.name,
        "comptroller": comptroller,
        "totalSupplyUsd": supply_usd,
        "totalDebtUsd": float(debt_usd) if debt_known else None,
        "netWorthUsd": supply_usd - float(debt_usd) if supply_usd is not None and debt_known else None,
        "liquidityUsd": None,
        "shortfallUsd": None,
        "healthFactor": None,
        "risk": None,
    }
    error, excess, shortfall = (None, 0, 0) if isinstance(found.liquidity, ProtocolError) else found.liquidity
    if error != 0:
        why = f"it answers error {error}" if error is not None else cast(ProtocolError, found.liquidity).message
        warnings.add(FIGURE_UNAVAILABLE, comptroller, f"getAccountLiquidity of the {label} failed: {why}")
    else:
        state["liquidityUsd"], state["shortfallUsd"] = excess / MANTISSA, shortfall / MANTISSA
    if loans or not complete:
        state["risk"] = _risk(found, parts, debt_usd if debt_known else None, warnings)
        state["healthFactor"] = state["risk"]["healthFactor"]
    return state


def _whole(part: _Held) -> Fraction | None:
    """The debt in whole tokens; None where the token is unknown."""
    return None if part.market.token is None else Fraction(part.owed, 10 ** part.market.token["decimals"])


def _risk(found: _Round, parts: list[_Held], debt_usd: Fraction | None, warnings: Warnings) -> dict[str, Any]:
    """The account's `BorrowRisk` by the Comptroller's liquidation check (see the module)."""
    collateral = [p.collateral for p in parts if p.collateral]
    risk_oracle = oracle_info(found.oracle, None, 0)
    unknown = [
        p
        for p in parts
        if p.supply and (p.supply["isCollateral"] is None or (p.supply["isCollateral"] and not p.collateral))
    ]
    if debt_usd is None or unknown:
        return {**unknown_risk([p.market.token for p in parts if p.supply], None), "oracle": risk_oracle}
    loans = [p for p in parts if p.owed]
    single = next(iter(loans)).market.usd if len(loans) == 1 else None
    if len(loans) > 1 and collateral:
        warnings.add(
            FIGURE_UNAVAILABLE,
            found.pool.comptroller,
            f"the liquidation prices' priceInLoanAsset is null: the account owes {len(loans)} assets, "
            "so no one loan asset prices them (priceUsd gives them)",
        )
    owed = {p.market.vtoken: cast(Fraction, _whole(p)) for p in loans}
    unit = Unit(usd=Fraction(1), per_loan_asset=single)
    comptroller = found.pool.comptroller
    return {**borrow_risk(debt_usd, collateral, unit, warnings, comptroller, owed=owed), "oracle": risk_oracle}


async def _claims(ctx: FetchContext[Any], found: _Round, parts: list[_Held]) -> list[dict[str, Any]]:
    """What each of the pool's payers owes the account: its stored amount and what its markets
    owe at the block (see rewards.py); a payer whose share of a held market is unreadable is left
    out, with the warning that names it."""
    claims = []
    for index, payer in enumerate(found.payers):
        shares = [p.pending[index] for p in parts if p.pending]  # VAI has none
        if None in shares:
            continue
        amount = payer.accrued + sum(cast(list[int], shares))
        if amount:
            claims.append(_claim(ctx, found, payer, amount))
    return list(await asyncio.gather(*claims))


async def _claim(ctx: FetchContext[Any], found: _Round, payer: rewards.Payer, amount: int) -> dict[str, Any]:
    """One payer's claim, priced by the pool's oracle: `getPrice(token)` (Venus's ResilientOracle),
    or in Compound v2, whose oracle prices cTokens only, the price of the market whose underlying
    the token is (cCOMP's)."""
    reader = ctx.reader()
    info, price = await asyncio.gather(
        erc20.token_info(reader, payer.token),
        ctx.warnings.optional(_reward_price(reader, found, payer.token), payer.token, "accruedUsd is"),
    )
    usd = None if price is None else float(Fraction(amount * price, PRICE_SCALE))
    pool = found.pool.comptroller
    key = f"{pool}:{payer.token}:rewards" if payer.address == pool else f"{pool}:{payer.address}:{payer.token}:rewards"
    legs = [leg(REWARD, key, info, amount, usd, found.oracle.lower())]
    return {
        "type": f"{_prefix(found.pool)}-reward",
        "comptroller": pool,
        "distributor": payer.address,
        "rewardToken": info,
        "accrued": str(amount),
        "accruedUsd": usd,
        **position(f"{found.pool.typename}RewardPosition", key, REWARDS, symbol(info), legs),
    }


async def _reward_price(reader: ChainReader, found: _Round, token: str) -> int:
    """The pool's oracle's price of a reward token (see _claim)."""
    label = f"{found.pool.label} oracle"
    if not found.pool.compound:
        return int(await first(reader.call(found.oracle, ASSET_PRICE, token, label=label)))
    market = await holding(reader, found.markets, token, found.pool.label)
    return int(await first(reader.call(found.oracle, UNDERLYING_PRICE, market, label=label)))
