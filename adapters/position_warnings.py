"""What an answer lacks: the `warnings` list of every `<Protocol>WalletPositions`.

Nothing is dropped silently. Every adapter reports through one `Warnings` per input:

- PART_UNREADABLE: a part (a market, vault, reserve, Comet, collateral asset) whose contracts
  failed is left out; the wallet may hold a position there that the answer does not show.
- FIGURE_UNAVAILABLE: a position the wallet holds is listed, but figures that need a failed
  contract read are null (the message names them).
- PRICE_UNAVAILABLE: a USD figure is null because no source in the order of adapters/prices/
  prices its asset at the block (the message names the token and what each source lacked: no
  feed, a stale one or an L2 sequencer down or just back, no rate, no pool deep enough), or a
  liquidation price in USD would rest on a market's price. Every null figure of an answer is
  named by a warning.
- HISTORY_UNAVAILABLE: a figure that compares with the state a period earlier (an APY from the
  growth of an exchange rate or oracle price) is null: the endpoint keeps no state that old (a
  pruned, non-archive node), or the chain has no block that old.

Only a contract's failure (errors.ProtocolError) becomes a warning, and an endpoint's missing
history (HISTORY_UNAVAILABLE). Any other failure of a node, the time budget or a bug fails the
whole input instead, so an empty list means the answer is complete.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Iterable
from typing import TypeVar

from errors import ProtocolError

log = logging.getLogger("wallet_positions.warnings")

PART_UNREADABLE = "PART_UNREADABLE"
FIGURE_UNAVAILABLE = "FIGURE_UNAVAILABLE"
PRICE_UNAVAILABLE = "PRICE_UNAVAILABLE"
HISTORY_UNAVAILABLE = "HISTORY_UNAVAILABLE"
NO_LIQUIDATION_PRICE = "NO_LIQUIDATION_PRICE"
"""Not a failure: a collateral whose fall alone cannot make its borrow liquidatable (adapters/risk.py)."""
CODES = (PART_UNREADABLE, FIGURE_UNAVAILABLE, PRICE_UNAVAILABLE, HISTORY_UNAVAILABLE, NO_LIQUIDATION_PRICE)

T = TypeVar("T")


class PriceUnavailable(ProtocolError):
    """A price source exists but gives no trustworthy price at the block."""


class Warnings:
    """One input's warnings, each (code, target, message) once, listed by target, code and message:
    the same answer lists them alike, whichever of its reads came back first."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, str, str], None] = {}
        self.retryable = False
        """Whether a retry could clear a warning (another node may keep the history; the event
        index catches up), so the answer is not kept for the block (schema.py)."""

    def add(self, code: str, target: str, message: str, retryable: bool = False) -> None:
        """`retryable`: the warning may not hold for a later request at the same block
        (HISTORY_UNAVAILABLE always may)."""
        self.retryable |= retryable or code == HISTORY_UNAVAILABLE
        if (code, target, message) not in self._items:
            log.info("warning %s for %s: %s", code, target, message)
            self._items[(code, target, message)] = None

    def left_out(self, what: str, target: str, error: ProtocolError) -> None:
        self.add(PART_UNREADABLE, target, f"{what} {target} is left out: {error.message}")

    def figure(self, target: str, what: str, error: ProtocolError) -> None:
        code = PRICE_UNAVAILABLE if isinstance(error, PriceUnavailable) else FIGURE_UNAVAILABLE
        self.add(code, target, f"{what} null: {error.message}")

    async def optional(self, read: Awaitable[T], target: str, what: str) -> T | None:
        """`read`'s value, or None with a warning when a contract fails it (`what` names the
        figures that are then null, e.g. "apy is")."""
        try:
            return await read
        except ProtocolError as exc:
            self.figure(target, what, exc)
            return None

    def value(self, outcome: T | ProtocolError, target: str, what: str) -> T | None:
        """An outcome read earlier (a value, or the ProtocolError that failed it): the value, or
        None with a warning. For reads shared by positions that may not need them, so that a
        warning is given only where a figure of the answer is null."""
        if isinstance(outcome, ProtocolError):
            self.figure(target, what, outcome)
            return None
        return outcome

    def survivors(self, what: str, outcomes: Iterable[tuple[str, T | BaseException]]) -> list[T]:
        """The outcomes that are results; a part whose contract failed is left out with a
        warning. Any other exception (a node's failure, the budget, a bug) is raised: it
        concerns the whole input."""
        kept: list[T] = []
        for target, outcome in outcomes:
            if isinstance(outcome, ProtocolError):
                self.left_out(what, target, outcome)
            elif isinstance(outcome, BaseException):
                raise outcome
            else:
                kept.append(outcome)
        return kept

    def as_list(self) -> list[dict[str, str]]:
        ordered = sorted((target, code, message) for code, target, message in self._items)
        return [{"code": code, "target": target, "message": message} for target, code, message in ordered]

    def __len__(self) -> int:
        return len(self._items)


async def outcome(read: Awaitable[T]) -> T | ProtocolError:
    """`read`'s value, or the ProtocolError that failed it, for Warnings.value to judge later."""
    try:
        return await read
    except ProtocolError as exc:
        return exc
