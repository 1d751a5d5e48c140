"""Aave v3: supplies, borrows and account health in every listed market of a chain, on-chain.

Only view functions whose signatures and return layouts are the same from v3.0 to v3.7 are read
(Pool.getReservesList, getUserAccountData, getUserEMode; AaveProtocolDataProvider.
getUserReserveData, getReserveData, getReserveConfigurationData; AaveOracle.getAssetPrice,
BASE_CURRENCY, BASE_CURRENCY_UNIT), so no version detection is needed. Fields that later
versions deprecated (stable debt, `unbacked`) keep their slots and read as 0 there.

- Per market, round 1: the reserve list, the wallet's account data and e-mode; round 2: the
  wallet's `getUserReserveData` for every reserve; round 3: for the reserves it holds, the
  reserve's rates and configuration, the oracle price and the token facts.
- Balances: `currentATokenBalance` (supply) and `currentStableDebt + currentVariableDebt` (debt),
  already accrued to the block by Aave's indexes.
- APY from the ray (1e27) annual rates, compounded per second over a 365-day year as Aave
  documents: `(1 + rate / 1e27 / 31536000) ^ 31536000 - 1`; a borrow's APY weights the
  variable rate and (pre-3.2 markets) the user's stable rate by the two debts.
- USD: amount x `getAssetPrice` / 10^decimals / `BASE_CURRENCY_UNIT`, only when the market's
  base currency is USD (`BASE_CURRENCY()` is the zero address); account totals from
  `getUserAccountData` likewise; health factor / 1e18, null without debt; ltv and liquidation
  threshold in basis points / 1e4.
"""

from __future__ import annotations

import asyncio
import logging
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import erc20
from abi import Function
from addresses import AaveMarket, ChainAddresses
from chain import ChainReader
from errors import ProtocolError

if TYPE_CHECKING:
    from protocols import FetchContext

log = logging.getLogger("wallet_positions.aave")

RAY = 10**27
WAD = 10**18
SECONDS_PER_YEAR = 365 * 24 * 3600
MAX_RESERVES = 128
"""Aave v3's own cap on reserves per pool (ReserveConfiguration.MAX_RESERVES_COUNT)."""
ZERO_ADDRESS = "0x" + "00" * 20

RESERVES_LIST = Function("getReservesList()", "d1946dbc", ("address[]",))
USER_ACCOUNT_DATA = Function("getUserAccountData(address)", "bf92857c", ("uint256",) * 6)
USER_EMODE = Function("getUserEMode(address)", "eddf1b79", ("uint256",))
USER_RESERVE_DATA = Function("getUserReserveData(address,address)", "28dd2d01",
                             ("uint256",) * 7 + ("uint40", "bool"))
RESERVE_DATA = Function("getReserveData(address)", "35ea6a75", ("uint256",) * 11 + ("uint40",))
"""The data provider's layout (the Pool's getReserveData shares the selector, not the layout)."""
RESERVE_CONFIGURATION = Function("getReserveConfigurationData(address)", "3e150141",
                                 ("uint256",) * 5 + ("bool",) * 5)
ASSET_PRICE = Function("getAssetPrice(address)", "b3596f07", ("uint256",))
BASE_CURRENCY = Function("BASE_CURRENCY()", "e19f4700", ("address",), immutable=True)
BASE_CURRENCY_UNIT = Function("BASE_CURRENCY_UNIT()", "8c89b64f", ("uint256",), immutable=True)


def apy(rate_ray: int) -> float:
    """Per-second compounding of a ray-denominated annual rate over a 365-day year."""
    return math.expm1(SECONDS_PER_YEAR * math.log1p(rate_ray / RAY / SECONDS_PER_YEAR))


def chains(addresses: dict[int, ChainAddresses]) -> frozenset[int]:
    """Every chain whose addresses data lists Aave markets."""
    return frozenset(chain_id for chain_id, chain in addresses.items() if chain.aave)


async def fetch(addresses: dict[int, ChainAddresses], ctx: FetchContext, chain_id: int, wallet: str) -> dict[str, Any]:
    reader = ctx.reader(chain_id)
    block = await reader.block_number()
    markets = addresses[chain_id].aave
    results = await asyncio.gather(*(_market(reader, market, wallet) for market in markets),
                                   return_exceptions=True)
    kept = []
    for market, result in zip(markets, results):
        if isinstance(result, ProtocolError):
            log.warning("Aave market %s left out on chain %d: %s", market.name, chain_id, result.message)
        elif isinstance(result, BaseException):
            raise result
        else:
            kept.append(result)
    if not kept:
        raise next(r for r in results if isinstance(r, BaseException))
    return {
        "blockNumber": block,
        "marketStates": [state for state, _, _ in kept if state],
        "supplyPositions": [p for _, supplies, _ in kept for p in supplies],
        "borrowPositions": [p for _, _, borrows in kept for p in borrows],
    }


async def _market(reader: ChainReader, market: AaveMarket, wallet: str) -> tuple[dict[str, Any] | None, list, list]:
    label = f"Aave market {market.name}"
    (reserves,), account, (emode,), (base_currency,), (unit,) = await asyncio.gather(
        reader.call(market.pool, RESERVES_LIST, label=label),
        _or_error(reader.call(market.pool, USER_ACCOUNT_DATA, wallet, label=label)),
        reader.call(market.pool, USER_EMODE, wallet, label=label),
        reader.call(market.oracle, BASE_CURRENCY, label=f"{label} oracle"),
        reader.call(market.oracle, BASE_CURRENCY_UNIT, label=f"{label} oracle"))
    if len(reserves) > MAX_RESERVES:
        raise ProtocolError(f"{label} lists {len(reserves)} reserves, more than Aave's {MAX_RESERVES}.")
    user_data = await asyncio.gather(*(reader.call(market.data_provider, USER_RESERVE_DATA, asset, wallet,
                                                   label=f"{label} data provider") for asset in reserves))
    held = [(asset, data) for asset, data in zip(reserves, user_data) if data[0] or data[1] or data[2]]
    if not held:
        return None, [], []
    usd_unit = unit if base_currency == ZERO_ADDRESS and unit else None
    reserves_read = await asyncio.gather(*(_reserve(reader, market, asset, data, usd_unit)
                                           for asset, data in held))
    supplies = [supply for supply, _ in reserves_read if supply]
    borrows = [borrow for _, borrow in reserves_read if borrow]
    return _state(market, account, emode, usd_unit), supplies, borrows


async def _or_error(call: Any) -> Any:
    try:
        return await call
    except ProtocolError as exc:
        return exc


def _state(market: AaveMarket, account: Any, emode: int, usd_unit: int | None) -> dict[str, Any] | None:
    """The market's account totals, or None (logged) when they cannot be given in USD."""
    if isinstance(account, ProtocolError) or usd_unit is None:
        reason = account.message if isinstance(account, ProtocolError) else "base currency is not USD"
        log.warning("no account state for Aave market %s: %s", market.name, reason)
        return None
    collateral, debt, available, threshold, ltv, health = account
    return {
        "marketAddress": market.pool, "marketName": market.name,
        "netWorthUsd": float(Fraction(collateral - debt, usd_unit)),
        "totalCollateralUsd": float(Fraction(collateral, usd_unit)),
        "totalDebtUsd": float(Fraction(debt, usd_unit)),
        "availableBorrowsUsd": float(Fraction(available, usd_unit)),
        "healthFactor": float(Fraction(health, WAD)) if debt else None,
        "ltv": ltv / 10_000, "liquidationThreshold": threshold / 10_000,
        "eModeCategoryId": emode,
    }


async def _reserve(reader: ChainReader, market: AaveMarket, asset: str, user: tuple[Any, ...],
                   usd_unit: int | None) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    label = f"Aave market {market.name}"
    reserve, config, price, token = await asyncio.gather(
        reader.call(market.data_provider, RESERVE_DATA, asset, label=f"{label} data provider"),
        reader.call(market.data_provider, RESERVE_CONFIGURATION, asset, label=f"{label} data provider"),
        _or_error(reader.call(market.oracle, ASSET_PRICE, asset, label=f"{label} oracle")),
        erc20.token_info(reader, asset))
    if isinstance(price, ProtocolError):
        log.warning("no price for %s in Aave market %s: %s", asset, market.name, price.message)
    decimals = token["decimals"]

    def usd(amount: int) -> float | None:
        if usd_unit is None or isinstance(price, ProtocolError):
            return None
        return float(Fraction(amount * price[0], 10**decimals * usd_unit))

    balance, stable_debt, variable_debt, *_, stable_rate, _, _, collateral_enabled = user
    liquidity_rate, variable_rate = reserve[5], reserve[6]
    can_be_collateral = config[2] != 0
    base = {"marketAddress": market.pool, "marketName": market.name, "currency": token}
    supply = borrow = None
    if balance:
        supply = {**base, "type": "aave-supply", "balance": str(balance), "balanceUsd": usd(balance),
                  "apy": apy(liquidity_rate), "isCollateral": bool(collateral_enabled and can_be_collateral),
                  "canBeCollateral": can_be_collateral}
    debt = stable_debt + variable_debt
    if debt:
        rate = (stable_debt * apy(stable_rate) + variable_debt * apy(variable_rate)) / debt
        borrow = {**base, "type": "aave-borrow", "debt": str(debt), "debtUsd": usd(debt), "apy": rate}
    return supply, borrow
