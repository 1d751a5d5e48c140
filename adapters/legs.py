"""Every position as legs (`interface Position` of schema.graphql): what it holds or owes, one leg
per asset and role, each with its raw and whole amount, its USD value and where that value's
price comes from. Each adapter builds its positions' legs where it computes their figures; an
entry's `allPositions` and `totals` are then read off the legs alone, whatever the protocol
(docs/api.md, "One shape for every protocol").

The roles say where `totals` counts a leg (`TOTAL_OF`). A position states every leg its figures
have, those of amount 0 too (the series follows a leg's flows by its key even where it held
nothing at either end), and a leg of amount 0 counts 0, priced or not. A total is the exact sum of
its legs' USD values, rounded once (math.fsum), so it does not depend on the order of the
positions; it is null where a leg it counts has an amount but no USD value (the adapter's warning
names why), or no amount.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from adapters.prices import UsdPrice

SUPPLIED, COLLATERAL, DEBT, REWARD = "SUPPLIED", "COLLATERAL", "DEBT", "REWARD"
LIQUIDITY, STAKED, REQUESTED, CLAIMABLE = "LIQUIDITY", "STAKED", "REQUESTED", "CLAIMABLE"
LENDING, VAULT, LIQUIDITY_POSITION, REWARDS, YIELD = "LENDING", "VAULT", "LIQUIDITY", "REWARDS", "YIELD"
STAKING, WITHDRAWAL = "STAKING", "WITHDRAWAL"
"""Categories (`PositionCategory`; LIQUIDITY_POSITION is the category, LIQUIDITY the role)."""

TOTAL_OF: Mapping[str, str] = {
    SUPPLIED: "suppliedUsd",
    LIQUIDITY: "suppliedUsd",
    STAKED: "suppliedUsd",
    REQUESTED: "suppliedUsd",
    CLAIMABLE: "suppliedUsd",
    COLLATERAL: "collateralUsd",
    DEBT: "debtUsd",
    REWARD: "rewardsUsd",
}
"""Where `totals` counts each role (`LegRole`'s descriptions)."""
GROWS = frozenset((REWARD, LIQUIDITY))
"""Roles whose amounts grow from nothing, with no inflow (rewards, interest and fees accrue, an
AMM's token amounts move with its price): what earnings do not call unexplained."""
NAMES = ("suppliedUsd", "collateralUsd", "debtUsd", "rewardsUsd")
"""`PositionTotals`' sums, in its order (`netUsd` follows)."""
HEADER = frozenset(("warnings", "usdPrices", "provenance", "allPositions", "totals"))
"""An entry's fields that hold no position."""


def feed_of(price: UsdPrice | None) -> str | None:
    """The contract a price was read from (its `usdPrices` entry's source: a feed, a rate's
    contract, a pool); None for a price of no source."""
    return price.source.read if price is not None and price.source is not None else None


def symbol(token: Mapping[str, Any] | None) -> str:
    """A token's symbol for a label; "?" where the token cannot be read (a warning says so)."""
    return "?" if token is None else str(token["symbol"])


def leg(
    role: str,
    key: str,
    asset: Mapping[str, Any] | None,
    amount: int | None,
    usd: float | None,
    source: str | None,
) -> dict[str, Any]:
    """One leg: `key` names it as `positionsHistory`'s flows and earnings do; `asset` is the
    token's TokenInfo (None: unreadable); `source` what `usd` was priced by (a feed's or the
    protocol's oracle's address), dropped where `usd` is None."""
    whole = None if amount is None or asset is None else amount / 10 ** asset["decimals"]
    return {
        "role": role,
        "key": key,
        "asset": asset,
        "amount": None if amount is None else str(amount),
        "amountDecimal": whole,
        "usd": usd,
        "priceSource": None if usd is None else source,
    }


def position(
    typename: str,
    identifier: str,
    category: str,
    label: str,
    legs: Iterable[dict[str, Any]],
    **figures: Any,
) -> dict[str, Any]:
    """The `Position` fields of a typed position object (to merge into its dict); `figures` its
    `apy` and `risk` where its type has no such fields of its own."""
    fields = {"__typename": typename, "id": identifier, "category": category, "label": label, "legs": list(legs)}
    return {**fields, **figures}


def listed(entry: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every position of an entry (the objects with legs), in the order its fields give them, each
    once: a position two fields list (Neutrl's `vaultPosition`) is one position. Each is a copy
    that states `apy` and `risk` (null where its type has none of its own)."""
    found: dict[tuple[str, str], Mapping[str, Any]] = {}

    def walk(value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, Mapping):
            if "legs" in value:  # a type with no `apy` or `risk` of its own states none: null
                found.setdefault((value["__typename"], value["id"]), {"apy": None, "risk": None, **value})
                return
            for item in value.values():
                walk(item)

    for name, value in entry.items():
        if name not in HEADER:
            walk(value)
    return list(found.values())


def totals(positions: Iterable[Mapping[str, Any]]) -> dict[str, float | None]:
    """An entry's `totals` from its positions' legs; `netUsd` = supplied + collateral + rewards - debt."""
    parts: dict[str, list[float] | None] = {name: [] for name in NAMES}
    for one in positions:
        for each in one["legs"]:
            name = TOTAL_OF[each["role"]]
            counted = parts[name]
            if each["amount"] == "0":  # holds nothing: 0, priced or not
                continue
            if counted is not None and each["usd"] is None:
                parts[name] = None
            elif counted is not None:
                counted.append(each["usd"])
    sums = {name: None if values is None else math.fsum(values) for name, values in parts.items()}
    if any(values is None for values in parts.values()):
        return {**sums, "netUsd": None}
    signed = [-usd if name == "debtUsd" else usd for name, values in parts.items() for usd in values or ()]
    return {**sums, "netUsd": math.fsum(signed)}
