"""What each leg of a wallet's positions earned over a series (docs/history.md#earnings), from
its amount and USD figure at the first and the last answered point (`Held`) and its flows:
earned in the asset, PnL in USD split into earned and the price's effect, and over a position's
whole life its cost basis and average entry price. Sums and differences only, so every figure
can be redone by hand from the listed flows and the points' answers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

DEBT_KEYS = (":borrow", ":debt")
"""How every DEBT leg's key ends (adapters/*/positions.py): a debt opened and closed inside a
series, which neither end holds, is still one."""


class Held(NamedTuple):
    """A leg at a point: its raw amount (None: unreadable), USD figure, asset, whether a debt, and
    whether it grows from nothing (rewards and fees accrue, an AMM's token amounts move with its
    price) rather than only from what flows brought in."""

    amount: int | None
    usd: float | None
    asset: str | None
    debt: bool
    grows: bool = False


def earnings(
    points: list[tuple[int, dict[str, Held]]], flows: list[dict[str, Any]], decimals: Mapping[str, int]
) -> list[dict[str, Any]]:
    """Each leg's earnings from the first answered point (`points`: each point's block and legs,
    in order) to the last (docs/history.md). A leg that held nothing at a point and holds some at
    the last with no inflow since (`unexplained`) earned nothing it could have accrued on: its
    amount came by a path the flows do not follow, so its earned figures are null and its row
    says how much (`unexplained`, raw units) for the series' FLOWS_UNEXPLAINED warning."""
    (start_block, start), *_ = points
    *_, (end_block, end) = points
    by_key: dict[str, list[dict[str, Any]]] = {}
    for flow in flows:
        by_key.setdefault(flow["position"], []).append(flow)
    found = []
    units = [_asset_units(end), _asset_units(start)]
    for key in sorted({*start, *end, *by_key}):
        moved = by_key.get(key, [])
        was, now = start.get(key), end.get(key)
        debt = any(held.debt for held in (was, now) if held) or key.endswith(DEBT_KEYS)
        asset = next((held.asset for held in (now, was) if held and held.asset), None)
        asset = asset or next((flow["asset"] for flow in moved), None)
        a0, a1 = _amount(was), _amount(now)
        u0, u1 = _usd(was), _usd(now)
        net = sum(int(flow["amount"]) for flow in moved)
        values = [flow["amountUsd"] for flow in moved]
        flows_usd = None if None in values else float(sum(values))
        sign = -1 if debt else 1
        unexplained = _unexplained(key, points, moved, a1)
        earned = None if a0 is None or a1 is None or unexplained else sign * (a1 - a0 - net)
        pnl = None if u0 is None or u1 is None or flows_usd is None or unexplained else sign * (u1 - u0 - flows_usd)
        unit = _unit_price((a1, u1), (a0, u0))
        if unit is None and asset is not None:  # none held at either end: the asset's price there
            unit = next((known[asset] for known in units if asset in known), None)
        earned_usd = None if earned is None or (unit is None and earned) else earned * (unit or 0.0)
        found.append(
            {
                "position": key,
                "asset": asset,
                "debt": debt,
                "fromBlock": start_block,
                "toBlock": end_block,
                "startAmount": None if a0 is None else str(a0),
                "endAmount": None if a1 is None else str(a1),
                "netFlows": str(net),
                "earned": None if earned is None else str(earned),
                "startUsd": u0,
                "endUsd": u1,
                "flowsUsd": flows_usd,
                "pnlUsd": pnl,
                "earnedUsd": earned_usd,
                "priceEffectUsd": None if pnl is None or earned_usd is None else pnl - earned_usd,
                **_cost_basis(moved, decimals.get(asset or ""), a0 == 0 and not debt),
                **({"unexplained": unexplained} if unexplained else {}),
            }
        )
    return found


def _unexplained(
    key: str, points: list[tuple[int, dict[str, Held]]], moved: list[dict[str, Any]], end: int | None
) -> int:
    """What a leg that does not grow from nothing holds at the end beyond what came in since the
    last point at which it held nothing: a positive amount there has no inflow to come from."""
    if not end or any(held.grows for _, legs in points if (held := legs.get(key))):
        return 0
    empty = [block for block, legs in points if (held := legs.get(key)) is None or held.amount == 0]
    if not empty:
        return 0
    since = [int(flow["amount"]) for flow in moved if flow["blockNumber"] > empty[-1]]
    return 0 if any(amount > 0 for amount in since) else end - sum(since)


def _cost_basis(moved: list[dict[str, Any]], decimals: int | None, whole_life: bool) -> dict[str, float | None]:
    """The average-cost basis in USD of what a position holds, over its whole life: an inflow adds
    its USD at its block and its units, an outflow takes out its share of both; the average entry
    price is the basis per whole unit still counted. Only where the series saw the position open
    (it held none at the first point) and every flow has a price; a debt has none."""
    basis, units = 0.0, 0
    for flow in moved if whole_life else ():
        amount, usd = int(flow["amount"]), flow["amountUsd"]
        if usd is None:
            return {"costBasisUsd": None, "averageEntryPriceUsd": None}
        if amount > 0:
            basis, units = basis + usd, units + amount
        elif units:
            basis -= basis * min(-amount, units) / units
            units = max(0, units + amount)
    if not whole_life:
        return {"costBasisUsd": None, "averageEntryPriceUsd": None}
    price = basis / (units / 10**decimals) if units and decimals is not None else None
    return {"costBasisUsd": basis if units else 0.0, "averageEntryPriceUsd": price}


def _amount(held: Held | None) -> int | None:
    return 0 if held is None else held.amount


def _usd(held: Held | None) -> float | None:
    """A leg's USD figure; 0 for a leg not held or empty (even without a price)."""
    return 0.0 if held is None or held.amount == 0 else held.usd


def _asset_units(legs: Mapping[str, Held]) -> dict[str, float]:
    """USD per raw unit of each asset some leg at a point holds with a price."""
    return {
        held.asset: held.usd / held.amount
        for held in legs.values()
        if held.asset and held.amount and held.usd is not None
    }


def _unit_price(*candidates: tuple[int | None, float | None]) -> float | None:
    """USD per raw unit, from the end's figures, else the start's."""
    for amount, usd in candidates:
        if amount and usd is not None:
            return usd / amount
    return None
