"""What a watch asks and how a position is judged against it: the thresholds with their recovery
line (hysteresis), the figures a position's `risk` gives, the state each new figure moves it to,
and how many blocks a position far from its line may wait (docs/watches.md)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from adapters import legs
from errors import InputValidationError

HEALTH_FACTOR, DROP = "healthFactor", "dropToLiquidation"
LIMITS: Mapping[str, tuple[float, float]] = {HEALTH_FACTOR: (0.0, 100.0), DROP: (0.0, 1.0)}
"""Each figure's open lower and closed upper bound for a threshold (a drop is a fraction of the
collateral's price)."""
RECOVERY = 1.05
"""A threshold's recovery line when the watch names none: 5% above it, so a figure sitting on the
line does not alert every block."""
CROSSED, RECOVERED, CLOSED, FAILING = "watch.crossed", "watch.recovered", "watch.closed", "watch.failing"
RETRACTED = "watch.retracted"
REORG_WINDOW = 128
"""Blocks below the head whose events are checked against the chain at each evaluation: a
reorganisation deeper than this is not retracted (Ethereum finalizes in 64 to 96)."""
BEFORE_RETRACTED = {CROSSED: False, RECOVERED: True, CLOSED: False}
"""A position's state before an event of this kind: what a retraction restores."""
"""The events a watch sends (docs/watches.md)."""
SPREAD = ((2.0, 8), (1.5, 4), (1.2, 2))
"""(figure / threshold at least, blocks between evaluations): a position far above its line is
read less often; below 1.2 times its threshold, or crossed, every block."""


@dataclass(frozen=True)
class Threshold:
    below: float
    recover_above: float


@dataclass(frozen=True)
class Conditions:
    health_factor: Threshold | None
    drop: Threshold | None

    def thresholds(self) -> Iterable[tuple[str, Threshold]]:
        for name, threshold in ((HEALTH_FACTOR, self.health_factor), (DROP, self.drop)):
            if threshold is not None:
                yield name, threshold


def threshold(name: str, given: Mapping[str, Any] | None) -> Threshold | None:
    """A threshold input as a Threshold, its recovery line filled in; VALIDATION_ERROR out of range."""
    if given is None:
        return None
    low, high = LIMITS[name]
    below = given["below"]
    if not (math.isfinite(below) and low < below <= high) or (name == DROP and below >= high):
        upper = f"below {high:g}" if name == DROP else f"{high:g} at most"
        raise InputValidationError(f"{name}.below {below:g} is out of range: it must be above {low:g} and {upper}.")
    recover = given.get("recoverAbove")
    if recover is None:
        recover = min(float(f"{below * RECOVERY:.12g}"), high)  # 1.575, not 1.5750000000000002
    if not (math.isfinite(recover) and below < recover <= high):
        raise InputValidationError(
            f"{name}.recoverAbove {recover:g} must be above {name}.below ({below:g}) and {high:g} at most."
        )
    return Threshold(below, recover)


def conditions(given: Mapping[str, Any]) -> Conditions:
    found = Conditions(threshold(HEALTH_FACTOR, given.get(HEALTH_FACTOR)), threshold(DROP, given.get(DROP)))
    if found.health_factor is None and found.drop is None:
        raise InputValidationError(f"A watch needs a condition: {HEALTH_FACTOR}, {DROP}, or both.")
    return found


@dataclass(frozen=True)
class Figures:
    """One borrow's figures at a block: its health factor, and the smallest drop of one of its
    collateral assets' price that makes it liquidatable (None where the answer has none)."""

    position: str
    """The position's identity across blocks: its holder and its `id`."""
    label: str
    health_factor: float | None
    drop: float | None
    risk: Mapping[str, Any]

    def value(self, name: str) -> float | None:
        return self.health_factor if name == HEALTH_FACTOR else self.drop


def borrows(entries: Iterable[Mapping[str, Any]]) -> list[Figures]:
    """Every position of the entries with a borrow's `risk` (its health factor stated or null)."""
    found = []
    for entry in entries:
        for one in legs.listed(entry):
            risk = one.get("risk")
            if not isinstance(risk, Mapping):
                continue
            drops = [p["dropToLiquidation"] for p in risk["liquidationPrices"] if p["dropToLiquidation"] is not None]
            holder = str(entry.get("holder") or entry.get("walletAddress") or "")
            found.append(
                Figures(
                    f"{holder}:{one['id']}", str(one["label"]), risk["healthFactor"], min(drops, default=None), risk
                )
            )
    return found


def judged(crossed: bool, figures: Figures, asked: Conditions) -> bool:
    """Whether the position stands crossed after these figures: it crosses once any figure falls
    below its threshold, and recovers only once every figure it was watched by stands above its
    recovery line (a figure that cannot be read keeps the state it had)."""
    values = [(figures.value(name), line) for name, line in asked.thresholds()]
    if any(value is not None and value < line.below for value, line in values):
        return True
    if crossed:
        return not all(value is not None and value > line.recover_above for value, line in values)
    return False


def wait(figures: Iterable[Figures], asked: Conditions, crossed: bool) -> int:
    """Blocks until the next evaluation (SPREAD): the nearest figure to its threshold decides; a
    crossed position, or one whose figures cannot be read, is read every block."""
    if crossed:
        return 1
    ratios = []
    for one in figures:
        for name, line in asked.thresholds():
            value = one.value(name)
            if value is None:
                return 1
            ratios.append(value / line.below)
    nearest = min(ratios, default=math.inf)
    return next((blocks for ratio, blocks in SPREAD if nearest >= ratio), 1)
