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
- All reads of an input go out at once in AaveLens (lenses/, chain/lens.py), which makes the
  same calls in the same dependent order and returns their raw answers.
- isCollateral and canBeCollateral as the Pool decides them, v3.0 to v3.5 and v3.6 on (e-mode-only
  collateral): collateral.py. Its reads join the held reserves' round.
- The account's liquidation risk by the Pool's own check (risk.py), on the market state when it
  borrows; the incentives on its aTokens and variable debt tokens and what it may claim, from the
  RewardsController (rewards.py). Both read in AaveLens too.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable
from fractions import Fraction
from typing import Any, cast

from adapters.aave import collateral, rewards, risk
from adapters.aave.collateral import ASSET_PRICE
from adapters.context import FetchContext
from adapters.deployment import deployed
from adapters.position_warnings import FIGURE_UNAVAILABLE, PriceUnavailable, Warnings, outcome
from addresses import AaveMarket, ChainAddresses
from chain import ChainReader, erc20, no_read
from chain.abi import ZERO_ADDRESS, Function
from chain.lens import Lens
from errors import ProtocolError

log = logging.getLogger("wallet_positions.aave")

RAY = 10**27
WAD = 10**18
SECONDS_PER_YEAR = 365 * 24 * 3600
MAX_RESERVES = 128
"""Aave v3's own cap on reserves per pool (ReserveConfiguration.MAX_RESERVES_COUNT)."""

RESERVES_LIST = Function("getReservesList()", "d1946dbc", ("address[]",))
USER_ACCOUNT_DATA = Function("getUserAccountData(address)", "bf92857c", ("uint256",) * 6)
USER_EMODE = Function("getUserEMode(address)", "eddf1b79", ("uint256",))
USER_RESERVE_DATA = Function("getUserReserveData(address,address)", "28dd2d01", ("uint256",) * 7 + ("uint40", "bool"))
RESERVE_DATA = Function("getReserveData(address)", "35ea6a75", ("uint256",) * 11 + ("uint40",))
"""The data provider's layout (the Pool's getReserveData shares the selector, not the layout)."""
RESERVE_TOKENS = Function("getReserveTokensAddresses(address)", "d2493b6c", ("address", "address", "address"))
RESERVE_CONFIGURATION = Function("getReserveConfigurationData(address)", "3e150141", ("uint256",) * 5 + ("bool",) * 5)
BASE_CURRENCY = Function("BASE_CURRENCY()", "e19f4700", ("address",), immutable=True)
BASE_CURRENCY_UNIT = Function("BASE_CURRENCY_UNIT()", "8c89b64f", ("uint256",), immutable=True)
GET_POOL_DATA_PROVIDER = Function("getPoolDataProvider()", "e860accb", ("address",))
GET_PRICE_ORACLE = Function("getPriceOracle()", "fca513a8", ("address",))
LENS = Lens("AaveLens", ("address", "address[]", "address[]", "address[]", "address[]"))
LENS_COLUMNS = ("pool", "addresses_provider", "data_provider", "oracle")

Rules = tuple[int, Callable[[], Awaitable["collateral.Rules"]]]
"""The wallet's e-mode category, and its collateral rules (read once per market, when a supply asks)."""


def apy(rate_ray: int) -> float:
    """Per-second compounding of a ray-denominated annual rate over a 365-day year."""
    try:
        return math.expm1(SECONDS_PER_YEAR * math.log1p(rate_ray / RAY / SECONDS_PER_YEAR))
    except OverflowError:
        raise ProtocolError(f"a reserve reports a rate of {rate_ray} ray, too large to be an APY") from None


def quoted_apy(rate_ray: int, asset: str, warnings: Warnings, what: str) -> float | None:
    """`apy(rate_ray)`, or None with a warning (`what` names the figure) for a rate too large."""
    try:
        return apy(rate_ray)
    except ProtocolError as exc:
        warnings.figure(asset, what, exc)
        return None


def markets_of(chain: ChainAddresses, protocol: str) -> tuple[AaveMarket, ...]:
    """The chain's Aave v3 markets ("aave") or SparkLend markets ("spark")."""
    return chain.spark if protocol == "spark" else chain.aave


def chains(addresses: dict[int, ChainAddresses], protocol: str = "aave") -> frozenset[int]:
    """Every chain whose addresses data lists markets of `protocol`."""
    return frozenset(chain_id for chain_id, chain in addresses.items() if markets_of(chain, protocol))


async def fetch(ctx: FetchContext, wallet: str) -> dict[str, Any]:
    """The wallet's account in every market the data lists of the input's protocol (Aave's, or
    SparkLend's, a fork read the same way)."""
    protocol, reader = ctx.protocol, ctx.reader()
    listed = markets_of(ctx.chain, protocol)
    _prefetch(reader, listed, wallet)
    markets = await deployed(reader, protocol, listed, lambda market: market.pool, "markets' Pools")
    results = await asyncio.gather(
        *(_market(reader, market, wallet, ctx.warnings) for market in markets), return_exceptions=True
    )
    kept = ctx.warnings.survivors("Aave market", ((market.pool, result) for market, result in zip(markets, results)))
    if not kept:
        raise next(r for r in results if isinstance(r, BaseException))
    return {
        "marketStates": [state for state, _, _, _ in kept if state],
        "supplyPositions": [p for _, supplies, _, _ in kept for p in supplies],
        "borrowPositions": [p for _, _, borrows, _ in kept for p in borrows],
        "rewardPositions": [p for *_, claims in kept for p in claims],
    }


def _prefetch(reader: ChainReader, markets: tuple[AaveMarket, ...], wallet: str) -> None:
    """Every market's reads for `wallet` in one lens call."""
    columns = [[getattr(market, name) for market in markets] for name in LENS_COLUMNS]
    reader.prefetch([LENS.initcode(wallet, *columns)], [address for column in columns for address in column])


async def _market(
    reader: ChainReader, market: AaveMarket, wallet: str, warnings: Warnings
) -> tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    label = f"Aave market {market.name}"
    (reserves,), account, (emode,), data_provider, oracle = await asyncio.gather(
        reader.call(market.pool, RESERVES_LIST, label=label),
        outcome(reader.call(market.pool, USER_ACCOUNT_DATA, wallet, label=label)),
        reader.call(market.pool, USER_EMODE, wallet, label=label),
        current(reader, market.addresses_provider, GET_POOL_DATA_PROVIDER, market.data_provider, label),
        current(reader, market.addresses_provider, GET_PRICE_ORACLE, market.oracle, label),
    )
    bounded_reserves(reserves, label)
    user_data, usd_unit = await asyncio.gather(
        asyncio.gather(
            *(
                reader.call(data_provider, USER_RESERVE_DATA, asset, wallet, label=f"{label} data provider")
                for asset in reserves
            )
        ),
        usd_unit_of(reader, oracle, label),
    )
    held = [(asset, data) for asset, data in zip(reserves, user_data) if data[0] or data[1] or data[2]]
    if not held:
        return None, [], [], []
    flagged = [asset for asset, data in zip(reserves, user_data) if data[8]]
    rules = (
        emode,
        lambda: reader.shared(
            ("aave collateral rules", market.pool, wallet),
            lambda: collateral.rules(reader, market.pool, data_provider, oracle, emode, flagged, label),
        ),
    )
    borrowing = not isinstance(account, ProtocolError) and account[1] > 0
    reads = await asyncio.gather(
        *(
            _reserve(reader, market, data_provider, oracle, asset, data, usd_unit, rules, borrowing, warnings)
            for asset, data in held
        )
    )
    supplies = [supply for supply, _, _, _ in reads if supply]
    borrows = [borrow for _, borrow, _, _ in reads if borrow]
    state = _state(market, account, emode, usd_unit, supplies, borrows, warnings)
    if state is not None:  # the account's totals in USD, so its risk too
        state["risk"] = None
        if borrowing:
            terms = await outcome(rules[1]()) if supplies else None
            category = terms if isinstance(terms, collateral.Rules) else None
            state["risk"] = await risk.account_risk(
                reader,
                [h for _, _, h, _ in reads],
                account,
                usd_unit,
                oracle,
                category,
                await reader.block_timestamp(),
                warnings,
                market.pool,
                label,
            )
    earning = [token for *_, tokens in reads for token in tokens]
    claims = await warnings.optional(_claims(reader, earning, wallet, label), market.pool, "reward positions are")
    base = {"type": f"{market.protocol}-reward", "marketAddress": market.pool, "marketName": market.name}
    return state, supplies, borrows, [{**base, **claim} for claim in claims or []]


async def _claims(reader: ChainReader, tokens: list[str], wallet: str, label: str) -> list[dict[str, Any]]:
    """What the wallet may claim for the tokens it holds, from each controller they name."""
    controllers = await asyncio.gather(*(rewards.controller_of(reader, token, label) for token in tokens))
    by_controller: dict[str, list[str]] = {}
    for token, controller in zip(tokens, controllers):
        if controller is not None:
            by_controller.setdefault(controller, []).append(token)
    found = await asyncio.gather(
        *(rewards.claimable(reader, c, held, wallet, label) for c, held in by_controller.items())
    )
    return [claim for claims in found for claim in claims]


def bounded_reserves(reserves: list[str], label: str) -> None:
    if len(reserves) > MAX_RESERVES:
        raise ProtocolError(f"{label} lists {len(reserves)} reserves, more than Aave's {MAX_RESERVES}.")


async def usd_unit_of(reader: ChainReader, oracle: str, label: str) -> int | None:
    """The oracle's BASE_CURRENCY_UNIT when its base currency is USD (the zero address), else
    None: the market's prices are then in no currency this service converts."""
    base_currency, unit = await asyncio.gather(
        outcome(reader.call(oracle, BASE_CURRENCY, label=f"{label} oracle")),
        outcome(reader.call(oracle, BASE_CURRENCY_UNIT, label=f"{label} oracle")),
    )
    return unit[0] if base_currency == (ZERO_ADDRESS,) and not isinstance(unit, ProtocolError) and unit[0] else None


def usd_value(amount: int, price: int | None, decimals: int | None, usd_unit: int | None) -> float | None:
    """amount / 10^decimals x price / BASE_CURRENCY_UNIT; None where a part is unknown."""
    if usd_unit is None or price is None or decimals is None:
        return None
    return float(Fraction(amount * price, 10**decimals * usd_unit))


async def current(reader: ChainReader, provider: str, function: Function, recorded: str, label: str) -> str:
    """The market's current contract as its PoolAddressesProvider names it (Aave redeploys data
    providers and oracles in upgrades), or the address book's if the provider cannot say."""
    try:
        (address,) = await reader.call(provider, function, label=f"{label} addresses provider")
    except ProtocolError as exc:
        log.warning("%s: using the recorded %s (%s)", label, function.name, exc.message)
        return recorded
    return cast(str, address)


def _state(
    market: AaveMarket,
    account: Any,
    emode: int,
    usd_unit: int | None,
    supplies: list[dict[str, Any]],
    borrows: list[dict[str, Any]],
    warnings: Warnings,
) -> dict[str, Any] | None:
    """The market's account totals, or None (with a warning) when they cannot be given in USD."""
    problem = (
        account.message
        if isinstance(account, ProtocolError)
        else "the market's base currency is not USD"
        if usd_unit is None
        else f"e-mode category {emode} is not one Aave can have"
        if emode > 255
        else None
    )
    if problem:
        warnings.add(FIGURE_UNAVAILABLE, market.pool, f"the marketState of {market.name} is left out: {problem}")
        return None
    collateral, debt, available, threshold, ltv, health = account
    if None in [p["balanceUsd"] for p in supplies] + [p["debtUsd"] for p in borrows]:
        net_worth = float(Fraction(collateral - debt, usd_unit))
    else:
        net_worth = sum(p["balanceUsd"] for p in supplies) - sum(p["debtUsd"] for p in borrows)
    return {
        "marketAddress": market.pool,
        "marketName": market.name,
        "netWorthUsd": net_worth,
        "totalCollateralUsd": float(Fraction(collateral, usd_unit)),
        "totalDebtUsd": float(Fraction(debt, usd_unit)),
        "availableBorrowsUsd": float(Fraction(available, usd_unit)),
        "healthFactor": float(Fraction(health, WAD)) if debt else None,
        "ltv": ltv / 10_000,
        "liquidationThreshold": threshold / 10_000,
        "eModeCategoryId": emode,
    }


async def _reserve(
    reader: ChainReader,
    market: AaveMarket,
    data_provider: str,
    oracle: str,
    asset: str,
    user: tuple[Any, ...],
    usd_unit: int | None,
    rules: Rules,
    borrowing: bool,
    warnings: Warnings,
) -> tuple[dict[str, Any] | None, dict[str, Any] | None, risk.Held, list[str]]:
    """A reserve the wallet holds: listed whatever fails, each failing figure null with a warning;
    what the account's liquidation check sees of it (when the account borrows, the time of the
    reserve's price is read in the same round); and the tokens of it the wallet holds that may
    earn incentives (its aToken, its variable debt token)."""
    label, optional = f"Aave market {market.name}", warnings.optional
    balance, stable_debt, variable_debt, *_, stable_rate, _, _, flagged = user
    emode = rules[0]
    reserve, config, price, token, terms, (record, updated, tokens) = await asyncio.gather(
        optional(reader.call(data_provider, RESERVE_DATA, asset, label=f"{label} data provider"), asset, "apy is"),
        optional(
            reader.call(data_provider, RESERVE_CONFIGURATION, asset, label=f"{label} data provider"),
            asset,
            "isCollateral and canBeCollateral are",
        ),
        optional(priced(reader.call(oracle, ASSET_PRICE, asset, label=f"{label} oracle")), asset, "USD values are"),
        optional(erc20.token_info(reader, asset), asset, "currency is"),
        optional(
            _collateral_terms(reader, data_provider, asset, rules[1], label),
            asset,
            "isCollateral and canBeCollateral are",
        )
        if balance
        else no_read(),
        asyncio.gather(
            outcome(collateral.pool_reserve(reader, market.pool, asset, emode, label)),
            risk.updated_at(reader, oracle, asset, label) if borrowing else no_read(),
            optional(
                reader.call(data_provider, RESERVE_TOKENS, asset, label=f"{label} data provider"), asset, "rewards are"
            ),
        ),
    )
    risk_price = price
    if isinstance(record, ProtocolError):
        # Without it, neither the collateral decision nor (up to v3.1) the e-mode price is known.
        warnings.figure(asset, "isCollateral and canBeCollateral are" if balance else "risk prices are", record)
        risk_price = record = None
    decimals = config[0] if config else token["decimals"] if token else None

    def usd(amount: int) -> float | None:
        return usd_value(amount, price, decimals, usd_unit)

    def rate(value: int) -> float | None:
        return quoted_apy(value, asset, warnings, "apy is")

    currency = {**token, "decimals": decimals} if token else None
    base = {"marketAddress": market.pool, "marketName": market.name, "currency": currency}
    supply: dict[str, Any] | None = None
    borrow: dict[str, Any] | None = None
    is_collateral = can_be_collateral = threshold = None
    if balance:
        if config and terms and (record or not emode):
            is_collateral, can_be_collateral = collateral.decide(
                terms[0], asset, config[1], config[2], terms[1], record
            )
            threshold = collateral.threshold(terms[0], config[2], record)
        supply = {
            **base,
            "type": f"{market.protocol}-supply",
            "balance": str(balance),
            "balanceUsd": usd(balance),
            "apy": rate(reserve[5]) if reserve else None,
            "isCollateral": is_collateral,
            "canBeCollateral": can_be_collateral,
        }
    debt = stable_debt + variable_debt
    if debt:
        stable, variable = (rate(stable_rate) if stable_debt else 0.0), (rate(reserve[6]) if reserve else None)
        weighted = (
            None if stable is None or variable is None else (stable_debt * stable + variable_debt * variable) / debt
        )
        borrow = {**base, "type": f"{market.protocol}-borrow", "debt": str(debt), "debtUsd": usd(debt), "apy": weighted}
    now = await reader.block_timestamp()
    asset_usd = Fraction(price, usd_unit) if price is not None and usd_unit else None

    def rates(token: str, side: str) -> Awaitable[list[dict[str, Any]] | None]:
        return optional(rewards.rates(reader, token, decimals, asset_usd, now, warnings, asset, label), asset, side)

    supply_rates, borrow_rates = await asyncio.gather(
        rates(tokens[0], "supply rewards are") if supply and tokens else no_read(),
        rates(tokens[2], "borrow rewards are") if variable_debt and tokens else no_read(),
    )
    if supply:
        supply["rewards"] = supply_rates
    if borrow:
        borrow["rewards"] = borrow_rates if variable_debt else []  # stable debt (before v3.2) earns none here
    earning = [] if tokens is None else [t for t, held in ((tokens[0], balance), (tokens[2], variable_debt)) if held]
    held = risk.Held(
        token=currency,
        decimals=decimals,
        collateral=balance if is_collateral or (is_collateral is None and flagged) else 0,
        owed=debt,
        price=risk_price,
        threshold=threshold,
        in_category=collateral.in_legacy_category(emode, record),
        source=asset,
        updated_at=updated,
    )
    return supply, borrow, held, earning


async def _collateral_terms(
    reader: ChainReader,
    data_provider: str,
    asset: str,
    rules: Callable[[], Awaitable[collateral.Rules]],
    label: str,
) -> tuple[collateral.Rules, int]:
    """What the Pool's collateral decision on one supply needs beyond the reserve's own record:
    the wallet's rules and the reserve's debt ceiling, read in the round of its other reads."""
    terms, (debt_ceiling,) = await asyncio.gather(
        rules(),
        reader.call(data_provider, collateral.DEBT_CEILING, asset, label=f"{label} data provider"),
    )
    return terms, debt_ceiling


async def priced(call: Any) -> int:
    """The oracle's price; a failing oracle is a PriceUnavailable (a PRICE_UNAVAILABLE warning)."""
    try:
        (price,) = await call
    except ProtocolError as exc:
        raise PriceUnavailable(f"the oracle failed: {exc.message}") from None
    return cast(int, price)
