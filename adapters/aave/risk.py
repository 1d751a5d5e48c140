"""The `BorrowRisk` of an Aave v3 account (one market), by the Pool's own liquidation check.

A position may be liquidated once its health factor is below 1 (LiquidationLogic,
HEALTH_FACTOR_LIQUIDATION_THRESHOLD), where GenericLogic.calculateUserAccountData makes it
Σ collateral value x average threshold / debt, in the oracle's base currency:

- collateral: every supply whose collateral flag is set and that counts (collateral.decide), at
  `getAssetPrice` (up to v3.1, the e-mode category's price source for the assets in the wallet's
  category), weighted by the threshold the Pool applies to it (collateral.threshold: the
  reserve's, or the wallet's e-mode category's);
- the average threshold floored to a basis point before it multiplies (adapters/risk.py solves
  the price against the floored average, as the Pool computes it);
- debt: `totalDebtBase` of `getUserAccountData`, the Pool's own sum.

A price moves every term the Pool prices by it (adapters/risk.py, `source`): an asset's price
moves the debt in that asset too, and, up to v3.1, the price of the wallet's e-mode category's
source moves every asset of the category, collateral and debt alike. So a category collateral's
liquidation price is the price of that source at which the position becomes liquidatable, with
all it prices moved together. A wallet in the category may borrow only its assets, so its debt
falls as fast as that collateral: no fall of the source liquidates unless the floor of the
average threshold does (its liquidation price is null otherwise).

The oracle is the market's AaveOracle; its last update is the oldest `updatedAt` of the sources
it names (`getSourceOfAsset`) for the assets the account holds: the source's `latestRoundData`,
or, for Aave's price-cap adapters (CAPO, which answer only `latestAnswer`), that of the Chainlink
feed they wrap (`ASSET_TO_USD_AGGREGATOR` of the stable adapters, `BASE_TO_USD_AGGREGATOR` of the
ratio adapters; bgd-labs/aave-capo's interfaces). A source that answers neither reports no time
and is not counted; null when none does.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, cast

from adapters.aave.collateral import Rules
from adapters.aave.contracts import SOURCE_OF_ASSET, WRAPPED_FEEDS
from adapters.position_warnings import FIGURE_UNAVAILABLE, Warnings, outcome
from adapters.prices import LATEST_ROUND_DATA
from adapters.risk import Collateral, Unit, borrow_risk, oracle_info, unknown_risk
from chain import ChainReader
from chain.abi import ZERO_ADDRESS
from errors import ProtocolError

BASIS_POINT = Fraction(1, 10_000)


@dataclass(frozen=True)
class Held:
    """A reserve of the account as the check sees it (None where its read failed)."""

    token: dict[str, Any] | None
    decimals: int | None
    collateral: int
    """The supply, where it counts as collateral; else 0."""
    owed: int
    price: int | None
    """In the oracle's base currency per whole token, as the check prices it."""
    threshold: int | None
    """In basis points, for a collateral."""
    in_category: bool
    """In the wallet's e-mode category as v3.0 and v3.1 count it (priced by the category's source)."""
    source: str
    """The oracle's asset key the check prices it by: its own (account_risk sets the category's)."""
    updated_at: int | None


async def updated_at(reader: ChainReader, oracle: str, asset: str, label: str) -> int | None:
    """When the oracle's source for `asset` was last updated (see the module); None when the
    source reports no time. A node's failure propagates; a contract's answers None."""
    source = _address(await outcome(reader.call(oracle, SOURCE_OF_ASSET, asset, label=f"{label} oracle")))
    if source is None:
        return None
    answer = await outcome(reader.call(source, LATEST_ROUND_DATA, label=f"{label} price source"))
    if isinstance(answer, ProtocolError):
        wrapped = await asyncio.gather(
            *(outcome(reader.call(source, f, label=f"{label} price source")) for f in WRAPPED_FEEDS)
        )
        inner = next((feed for feed in map(_address, wrapped) if feed is not None), None)
        if inner is None:
            return None
        answer = await outcome(reader.call(inner, LATEST_ROUND_DATA, label=f"{label} price source"))
        if isinstance(answer, ProtocolError):
            return None
    _round, _answer, _started, updated, _answered_in = answer  # Chainlink's latestRoundData
    return cast(int, updated)


def _address(answer: tuple[Any, ...] | ProtocolError) -> str | None:
    """An address a view answers; None where the view fails or answers the zero address (none)."""
    if isinstance(answer, ProtocolError):
        return None
    (address,) = answer
    return None if address == ZERO_ADDRESS else cast(str, address)


async def account_risk(
    reader: ChainReader,
    held: list[Held],
    account: Any,
    base: Fraction | None,
    oracle: str,
    rules: Rules | None,
    now: int,
    warnings: Warnings,
    target: str,
    label: str,
) -> dict[str, Any]:
    """The account's `BorrowRisk` from its held reserves and its `account` data (USER_ACCOUNT_DATA:
    what it owes), in the oracle's unit, worth `base` USD (market.base_usd; None: unknown);
    warnings name `target` (the Pool).
    Up to v3.1 the wallet's e-mode category may price the reserves in it by its own source, whose
    time is then read (in the round of the reserves' own, by the lens)."""
    if rules is not None and rules.emode_source is not None and any(h.in_category for h in held):
        time = await updated_at(reader, oracle, rules.emode_source, label)
        held = [
            replace(h, price=rules.emode_price, updated_at=time, source=rules.emode_source) if h.in_category else h
            for h in held
        ]
    collaterals = [h for h in held if h.collateral]
    loans = [h for h in held if h.owed]
    times = [h.updated_at for h in collaterals + loans if h.updated_at is not None]
    risk_oracle = oracle_info(oracle, min(times, default=None), now)
    # The debt a collateral's source prices moves with it; a debt whose Pool record failed (price
    # None) may be priced by the category's source.
    sources = {h.source for h in collaterals}
    category_priced = rules is not None and rules.emode_source is not None
    moving = [h for h in loans if h.source in sources or (h.price is None and category_priced)]
    if any(h.price is None or h.decimals is None or h.threshold is None for h in collaterals) or any(
        h.price is None or h.decimals is None for h in moving
    ):
        return {
            **unknown_risk([h.token for h in collaterals], account.currentLiquidationThreshold / 10_000),
            "oracle": risk_oracle,
        }
    loan_price = loans[0].price if len(loans) == 1 else None
    if len(loans) > 1 and collaterals:
        warnings.add(
            FIGURE_UNAVAILABLE,
            target,
            f"the liquidation prices' priceInLoanAsset is null: the account owes {len(loans)} assets, "
            "so no one loan asset prices them (priceUsd gives them)",
        )
    unit = Unit(
        usd=base,
        per_loan_asset=Fraction(loan_price) if loan_price else None,
    )
    owed: dict[str, Fraction] = {}
    for h in moving:
        owed[h.source] = owed.get(h.source, Fraction(0)) + Fraction(h.owed, 10 ** cast(int, h.decimals))
    figures = borrow_risk(
        Fraction(account.totalDebtBase),
        [
            Collateral(
                h.token,
                Fraction(h.collateral, 10 ** cast(int, h.decimals)),
                Fraction(cast(int, h.price)),
                Fraction(cast(int, h.threshold), 10_000),
                source=h.source,
            )
            for h in collaterals
        ],
        unit,
        warnings,
        target,
        step=BASIS_POINT,
        owed=owed,
    )
    return {**figures, "oracle": risk_oracle}
