"""Aave v3: supplies, borrows and account health in every listed market of a chain, on-chain; the
same for SparkLend's markets (an Aave v3 fork: the same views, its own Pool, data provider and oracle).

Amounts, rates and prices come from views whose signatures and return layouts are the same from
v3.0 to v3.7 (Pool.getReservesList, getUserAccountData, getUserEMode; AaveProtocolDataProvider.
getUserReserveData, getReserveData, getReserveConfigurationData; AaveOracle.getAssetPrice,
BASE_CURRENCY, BASE_CURRENCY_UNIT), so no version detection is needed for them; only the
collateral rules tell v3.6 from earlier (collateral.py). Fields that later versions
deprecated (stable debt, `unbacked`) keep their slots and read as 0 there.

- Per market, round 1: the reserve list, the wallet's account data and e-mode, and the market's
  current data provider and oracle from its PoolAddressesProvider; round 2: the wallet's
  `getUserReserveData` for every reserve and the oracle's base currency; round 3: for the
  reserves it holds, the reserve's rates and configuration, the oracle price and the token
  facts. A market whose pool or data provider fails is left out with a warning; a held reserve
  whose data, configuration, price or token fails stays listed with those figures null, each
  with a warning (position_warnings).
- Balances: `currentATokenBalance` (supply) and `currentStableDebt + currentVariableDebt` (debt),
  already accrued to the block by Aave's indexes.
- APY from the ray (1e27) annual rates, compounded per second over a 365-day year as Aave
  documents: `(1 + rate / 1e27 / 31536000) ^ 31536000 - 1`; a borrow's APY weights the
  variable rate and (pre-3.2 markets) the user's stable rate by the two debts.
- USD: amount x `getAssetPrice` / 10^decimals / `BASE_CURRENCY_UNIT`, only when the market's
  base currency is USD (`BASE_CURRENCY()` is the zero address); account totals from
  `getUserAccountData` likewise, except net worth = Σ supplies - Σ debts in USD (all supplies,
  as Aave's own UI counts them, not only collateral); health factor / 1e18, null without debt;
  ltv and liquidation threshold in basis points / 1e4.
- All reads of an input go out at once in AaveLens (lenses/, chain/lens.py), a call per market
  in one round, which makes the same calls in the same dependent order and returns their raw answers.
- isCollateral and canBeCollateral as the Pool decides them, v3.0 to v3.5 and v3.6 on (e-mode-only
  collateral): collateral.py. Its reads join the held reserves' round.
- The account's liquidation risk by the Pool's own check (risk.py), on the market state when it
  borrows; the incentives on its aTokens and variable debt tokens and what it may claim, from the
  RewardsController (rewards.py). Both read in AaveLens too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

from adapters.aave import collateral, incentives, rewards, risk
from adapters.aave.contracts import (
    DEBT_CEILING,
    GET_POOL_DATA_PROVIDER,
    GET_PRICE_ORACLE,
    LENS,
    LENS_COLUMNS,
    RESERVE_CONFIGURATION,
    RESERVE_DATA,
    RESERVE_TOKENS,
    RESERVES_LIST,
    USER_ACCOUNT_DATA,
    USER_EMODE,
    USER_RESERVE_DATA,
    V2_RESERVE_DATA,
    WAD,
)
from adapters.aave.market import (
    Valuation,
    asset_price,
    base_usd,
    bounded_reserves,
    current,
    ether_usd,
    markets_of,
    quoted_apy,
)
from adapters.aave.section import AaveMarket
from adapters.context import FetchContext
from adapters.deployment import deployed
from adapters.legs import COLLATERAL, DEBT, LENDING, SUPPLIED, leg, position, symbol
from adapters.position_warnings import FIGURE_UNAVAILABLE, PriceUnavailable, Warnings, outcome
from addresses import ChainAddresses
from chain import ChainReader, erc20, known, no_read
from errors import ProtocolError


async def fetch(ctx: FetchContext[Any], wallet: str) -> dict[str, Any]:
    """The wallet's account in every market the data lists of the input's protocol (Aave's, or
    SparkLend's, a fork read the same way)."""
    protocol, reader = ctx.protocol, ctx.reader()
    listed = markets_of(ctx.chain, protocol)
    _prefetch(reader, listed, wallet)
    markets = await deployed(reader, protocol, listed, lambda market: market.pool, "markets' Pools")
    results = await asyncio.gather(
        *(_market(reader, ctx.chain, market, wallet, ctx.warnings) for market in markets), return_exceptions=True
    )
    kept = ctx.warnings.survivors("Aave market", ((market.pool, result) for market, result in zip(markets, results)))
    if not kept:
        raise next(r for r in results if isinstance(r, BaseException))
    return {
        "marketStates": [part.state for part in kept if part.state],
        "supplyPositions": [p for part in kept for p in part.supplies],
        "borrowPositions": [p for part in kept for p in part.borrows],
        "rewardPositions": [p for part in kept for p in part.claims],
    }


def _prefetch(reader: ChainReader, markets: tuple[AaveMarket, ...], wallet: str) -> None:
    """Every market's reads for `wallet`, a lens call per market in one round: a wallet in many
    markets (Ethereum has seven) would fill one tape."""
    columns = [[getattr(market, name) for name in LENS_COLUMNS] for market in markets]
    reader.prefetch(
        [LENS.initcode(wallet, *([address] for address in column), [m.version]) for column, m in zip(columns, markets)],
        [address for column in columns for address in column],
    )


class _Part(NamedTuple):
    """One market's part of the answer."""

    state: dict[str, Any] | None
    supplies: list[dict[str, Any]]
    borrows: list[dict[str, Any]]
    claims: list[dict[str, Any]]


@dataclass(frozen=True)
class _Account:
    """The wallet in one market: what the reads and figures of each reserve it holds depend on."""

    reader: ChainReader
    market: AaveMarket
    data_provider: str
    oracle: str
    base: Fraction | PriceUnavailable
    """USD per unit of the oracle's prices, or why it is unknown (market.base_usd)."""
    emode: int
    rules: Callable[[], Awaitable[collateral.Rules]]
    """The wallet's collateral rules, read once per market when a supply asks."""
    borrowing: bool
    warnings: Warnings
    label: str


class _Terms(NamedTuple):
    """What the Pool's collateral decision on a supply needs beyond the reserve's configuration."""

    rules: collateral.Rules
    debt_ceiling: int


@dataclass(frozen=True)
class _Reads:
    """A held reserve's round (see the module); each is None where its read failed (warned)."""

    data: Any
    """RESERVE_DATA: the rates."""
    config: Any
    """RESERVE_CONFIGURATION."""
    price: int | None
    token: dict[str, Any] | None
    terms: _Terms | None
    """For a supply."""
    record: collateral.Reserve | None
    """The Pool's record, for a wallet in an e-mode."""
    risk_price: int | None
    """The price, unless the record failed (up to v3.1 an e-mode category may price the reserve)."""
    updated_at: int | None
    tokens: Any
    """RESERVE_TOKENS."""


class _Reserve(NamedTuple):
    """A held reserve's part: its positions, what the risk check sees of it, and the tokens of it
    the wallet holds that may earn incentives (its aToken, its variable debt token)."""

    supply: dict[str, Any] | None
    borrow: dict[str, Any] | None
    held: risk.Held
    earning: tuple[str, ...] = ()
    """Added with the incentives."""


async def _market(
    reader: ChainReader, chain: ChainAddresses, market: AaveMarket, wallet: str, warnings: Warnings
) -> _Part:
    label, v2 = f"Aave market {market.name}", market.version == 2
    ether = ether_usd(reader, chain, market)
    (reserves,), totals, (emode,), data_provider, oracle = await asyncio.gather(
        reader.call(market.pool, RESERVES_LIST, label=label),
        outcome(reader.call(market.pool, USER_ACCOUNT_DATA, wallet, label=label)),
        known((0,)) if v2 else reader.call(market.pool, USER_EMODE, wallet, label=label),  # v2 has no e-mode
        known(market.data_provider)  # v2's provider does not name it
        if v2
        else current(reader, market.addresses_provider, GET_POOL_DATA_PROVIDER, market.data_provider, label),
        current(reader, market.addresses_provider, GET_PRICE_ORACLE, market.oracle, label),
    )
    bounded_reserves(reserves, label)
    user_data: list[Any]
    user_data, base = await asyncio.gather(
        asyncio.gather(
            *(
                reader.call(data_provider, USER_RESERVE_DATA, asset, wallet, label=f"{label} data provider")
                for asset in reserves
            )
        ),
        outcome(base_usd(reader, market, oracle, ether, label)),
    )
    held = [
        (asset, user)
        for asset, user in zip(reserves, user_data)
        if user.currentATokenBalance or user.currentStableDebt or user.currentVariableDebt
    ]
    if not held:
        return _Part(None, [], [], [])
    flagged = [asset for asset, user in zip(reserves, user_data) if user.usageAsCollateralEnabled]
    account = _Account(
        reader=reader,
        market=market,
        data_provider=data_provider,
        oracle=oracle,
        base=base,
        emode=emode,
        rules=lambda: reader.shared(
            ("aave collateral rules", market.pool, wallet),
            lambda: (
                collateral.v2_rules(flagged)
                if v2
                else collateral.rules(reader, market.pool, data_provider, oracle, emode, flagged, label)
            ),
        ),
        borrowing=not isinstance(totals, ProtocolError) and totals.totalDebtBase > 0,
        warnings=warnings,
        label=label,
    )
    parts = await asyncio.gather(*(_reserve(account, asset, user) for asset, user in held))
    supplies = [part.supply for part in parts if part.supply]
    borrows = [part.borrow for part in parts if part.borrow]
    state = _state(market, totals, emode, base, supplies, borrows, warnings)
    if state is not None:  # the account's totals in USD, so its risk too, each borrow's as well
        state["risk"] = await _risk(account, totals, [part.held for part in parts], bool(supplies))
        for borrow in borrows:
            borrow["risk"] = state["risk"]
    earning = [token for part in parts for token in part.earning]
    claims = await warnings.optional(_claims(account, earning, wallet), market.pool, "reward positions are")
    base = {"type": f"{market.protocol}-reward", "marketAddress": market.pool, "marketName": market.name}
    return _Part(state, supplies, borrows, [{**base, **claim} for claim in claims or []])


async def _risk(account: _Account, totals: Any, held: list[risk.Held], supplies: bool) -> dict[str, Any] | None:
    """The account's liquidation risk by the Pool's own check; None without debt."""
    if not account.borrowing:
        return None
    terms = await outcome(account.rules()) if supplies else None
    category = terms if isinstance(terms, collateral.Rules) else None
    reader = account.reader
    return await risk.account_risk(
        reader,
        held,
        totals,
        None if isinstance(account.base, PriceUnavailable) else account.base,
        account.oracle,
        category,
        await reader.block_timestamp(),
        account.warnings,
        account.market.pool,
        account.label,
    )


async def _claims(account: _Account, tokens: list[str], wallet: str) -> list[dict[str, Any]]:
    """What the wallet may claim for the tokens it holds, from each controller they name (a v2
    IncentivesController, or a v3 RewardsController)."""
    reader, label, pool = account.reader, account.label, account.market.pool
    controllers = await asyncio.gather(*(rewards.controller_of(reader, token, label) for token in tokens))
    by_controller: dict[str, list[str]] = {}
    for token, controller in zip(tokens, controllers):
        if controller is not None:
            by_controller.setdefault(controller, []).append(token)
    base = None if isinstance(account.base, PriceUnavailable) else account.base
    found = await asyncio.gather(
        *(
            incentives.claimable(reader, c, held, wallet, label, pool, account.oracle, base)
            if account.market.version == 2
            else rewards.claimable(reader, c, held, wallet, label, pool)
            for c, held in by_controller.items()
        )
    )
    return [claim for claims in found for claim in claims]


def _state(
    market: AaveMarket,
    totals: Any,
    emode: int,
    base: Fraction | PriceUnavailable,
    supplies: list[dict[str, Any]],
    borrows: list[dict[str, Any]],
    warnings: Warnings,
) -> dict[str, Any] | None:
    """The market's account totals (USER_ACCOUNT_DATA, or the error that failed it), or None (with
    a warning) when they cannot be given in USD."""
    problem = (
        totals.message
        if isinstance(totals, ProtocolError)
        else base.message
        if isinstance(base, PriceUnavailable)
        else f"e-mode category {emode} is not one Aave can have"
        if emode > 255
        else None
    )
    if problem or isinstance(base, PriceUnavailable):
        warnings.add(FIGURE_UNAVAILABLE, market.pool, f"the marketState of {market.name} is left out: {problem}")
        return None
    collateral_base, debt = totals.totalCollateralBase, totals.totalDebtBase
    if None in [p["balanceUsd"] for p in supplies] + [p["debtUsd"] for p in borrows]:
        net_worth = float((collateral_base - debt) * base)
    else:
        net_worth = sum(p["balanceUsd"] for p in supplies) - sum(p["debtUsd"] for p in borrows)
    return {
        "marketAddress": market.pool,
        "marketName": market.name,
        "version": market.version,
        "netWorthUsd": net_worth,
        "totalCollateralUsd": float(collateral_base * base),
        "totalDebtUsd": float(debt * base),
        "availableBorrowsUsd": float(totals.availableBorrowsBase * base),
        "healthFactor": float(Fraction(totals.healthFactor, WAD)) if debt else None,
        "ltv": totals.ltv / 10_000,
        "liquidationThreshold": totals.currentLiquidationThreshold / 10_000,
        "eModeCategoryId": emode,
    }


async def _reserve(account: _Account, asset: str, user: Any) -> _Reserve:
    """One reserve the wallet holds (`user`: its USER_RESERVE_DATA): its round's reads, the
    positions and risk terms they give, then the incentives on the tokens the wallet holds."""
    reads = await _read(account, asset, user)
    base = None if isinstance(account.base, PriceUnavailable) else account.base
    value = Valuation.of(reads.config, reads.token, reads.price, base, account.oracle)
    part = _shape(account, asset, user, reads, value)
    tokens, variable_debt = reads.tokens, user.currentVariableDebt
    a_token = tokens.aTokenAddress if tokens and part.supply else None
    debt_token = tokens.variableDebtTokenAddress if tokens and variable_debt else None
    supply_rates, borrow_rates = await rewards.on_reserve(
        account.reader,
        ((a_token, "supply rewards are"), (debt_token, "borrow rewards are")),
        value,
        account.warnings,
        asset,
        account.label,
        incentives.rates if account.market.version == 2 else rewards.rates,
    )
    if part.supply:
        part.supply["rewards"] = supply_rates
    if part.borrow:
        part.borrow["rewards"] = borrow_rates if variable_debt else []  # stable debt (before v3.2) earns none here
    return part._replace(earning=tuple(token for token in (a_token, debt_token) if token))


async def _read(account: _Account, asset: str, user: Any) -> _Reads:
    """The held reserve's round: its rates, configuration, price and token, for a supply the
    collateral terms, the Pool's record of it (in an e-mode), the time of its price (when the
    account borrows) and its tokens."""
    reader, warnings, label = account.reader, account.warnings, account.label
    optional, provider = warnings.optional, f"{label} data provider"
    supplied = user.currentATokenBalance
    reserve_data = V2_RESERVE_DATA if account.market.version == 2 else RESERVE_DATA
    data, config, price, token, terms, (record, updated_at, tokens) = await asyncio.gather(
        optional(reader.call(account.data_provider, reserve_data, asset, label=provider), asset, "apy is"),
        optional(
            reader.call(account.data_provider, RESERVE_CONFIGURATION, asset, label=provider),
            asset,
            "isCollateral and canBeCollateral are",
        ),
        optional(asset_price(reader, account.oracle, asset, label), asset, "USD values are"),
        optional(erc20.token_info(reader, asset), asset, "currency is"),
        optional(_collateral_terms(account, asset), asset, "isCollateral and canBeCollateral are")
        if supplied
        else no_read(),
        asyncio.gather(
            outcome(collateral.pool_reserve(reader, account.market.pool, asset, account.emode, label)),
            risk.updated_at(reader, account.oracle, asset, label) if account.borrowing else no_read(),
            optional(reader.call(account.data_provider, RESERVE_TOKENS, asset, label=provider), asset, "rewards are"),
        ),
    )
    if isinstance(record, ProtocolError):
        # Without it, neither the collateral decision nor (up to v3.1) the e-mode price is known.
        warnings.figure(asset, "isCollateral and canBeCollateral are" if supplied else "risk prices are", record)
        return _Reads(data, config, price, token, terms, None, None, updated_at, tokens)
    return _Reads(data, config, price, token, terms, record, price, updated_at, tokens)


async def _collateral_terms(account: _Account, asset: str) -> _Terms:
    """The wallet's rules and the reserve's debt ceiling (none in v2), read in the round of its other reads."""
    rules, (debt_ceiling,) = await asyncio.gather(
        account.rules(),
        known((0,))
        if account.market.version == 2
        else account.reader.call(account.data_provider, DEBT_CEILING, asset, label=f"{account.label} data provider"),
    )
    return _Terms(rules, debt_ceiling)


def _shape(account: _Account, asset: str, user: Any, reads: _Reads, value: Valuation) -> _Reserve:
    """The held reserve's supply and borrow positions (their incentives still to add) and what the
    risk check sees of it."""
    market, emode, warnings = account.market, account.emode, account.warnings
    supplied, stable_debt, variable_debt = user.currentATokenBalance, user.currentStableDebt, user.currentVariableDebt
    data, config, terms, record = reads.data, reads.config, reads.terms, reads.record
    currency = {**reads.token, "decimals": value.decimals} if reads.token else None
    base = {"marketAddress": market.pool, "marketName": market.name, "currency": currency}
    supply: dict[str, Any] | None = None
    borrow: dict[str, Any] | None = None
    is_collateral = can_be_collateral = threshold = None
    if supplied:
        if config and terms and (record or not emode):
            is_collateral, can_be_collateral = collateral.decide(
                terms.rules, asset, config.ltv, config.liquidationThreshold, terms.debt_ceiling, record
            )
            threshold = collateral.threshold(terms.rules, config.liquidationThreshold, record)
        usd, key = value.usd(supplied), f"{market.pool.lower()}:{asset.lower()}:supply"
        supply = {
            **base,
            "type": f"{market.protocol}-supply",
            "balance": str(supplied),
            "balanceUsd": usd,
            "apy": quoted_apy(data.liquidityRate, asset, warnings, "apy is") if data else None,
            "isCollateral": is_collateral,
            "canBeCollateral": can_be_collateral,
            **position(
                "AaveSupplyPosition",
                key,
                LENDING,
                f"{symbol(currency)} ({market.name})",
                [leg(COLLATERAL if is_collateral else SUPPLIED, key, currency, supplied, usd, account.oracle.lower())],
            ),
        }
    debt = stable_debt + variable_debt
    if debt:
        stable = quoted_apy(user.stableBorrowRate, asset, warnings, "apy is") if stable_debt else 0.0
        variable = quoted_apy(data.variableBorrowRate, asset, warnings, "apy is") if data else None
        weighted = (
            None if stable is None or variable is None else (stable_debt * stable + variable_debt * variable) / debt
        )
        usd, key = value.usd(debt), f"{market.pool.lower()}:{asset.lower()}:borrow"
        borrow = {
            **base,
            "type": f"{market.protocol}-borrow",
            "debt": str(debt),
            "debtUsd": usd,
            "apy": weighted,
            **position(
                "AaveBorrowPosition",
                key,
                LENDING,
                f"{symbol(currency)} ({market.name})",
                [leg(DEBT, key, currency, debt, usd, account.oracle.lower())],
                risk=None,
            ),
        }
    held = risk.Held(
        token=currency,
        decimals=value.decimals,
        collateral=supplied if is_collateral or (is_collateral is None and user.usageAsCollateralEnabled) else 0,
        owed=debt,
        price=reads.risk_price,
        threshold=threshold,
        in_category=collateral.in_legacy_category(emode, record),
        source=asset,
        updated_at=reads.updated_at,
    )
    return _Reserve(supply, borrow, held)
