"""`positionsHistory`: a wallet's positions at a series of blocks, each point the answer
`walletPositions` gives at its block, with the wallet's USD totals (docs/history.md).

- The points: `from` and `to` both blocks, spaced evenly in blocks; both times, spaced evenly in
  time, each time standing for the last block at or before it (adapters/history.py `block_at`,
  kept in the app's cache once the block after it has settled). `to` left out is the newest block.
  A series asks at most MAX_POINTS points, and an operation at most SERIES_BUDGET points over all
  its inputs: what one request can make the service read is bounded before it reads anything.
- Each point is an input at a past block (schema.fetch_input): its answer is kept per block like
  any other, so a repeat costs no RPC request, and points of one block share its reads. A point
  that fails says why in its own `error`; points before the protocol's deployment are left out
  with one warning; an input whose every point fails is an error as a whole.
- Totals are each point's answer's own (`totals`, the sums of its positions' legs by role,
  adapters/legs.py); flows and earnings follow the same legs by their keys.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from adapters.context import FetchContext
from adapters.earnings import Held, earnings
from adapters.flows import usd_values, wallet_logs
from adapters.history import block_at
from adapters.legs import DEBT, GROWS
from adapters.prices import Routes, routing
from chain import ChainReader
from errors import BeforeChain, BeforeDeployment, InputValidationError, PositionError, ProtocolError
from immutable_cache import ImmutableCache
from protocols import Protocol

MAX_POINTS = 366
"""Points per series: a year of days."""
SERIES_BUDGET = 400
"""Points of one operation over all its series (inputs x points): five inputs at 80 points, or one
at 366. Each point costs what one `walletPositions` input at a past block costs."""


@dataclass(frozen=True)
class Range:
    """A series' arguments, checked before any read."""

    start: int
    end: int | None
    """None: the newest block (or its time)."""
    points: int
    by_time: bool


def parsed(args: Mapping[str, Any]) -> Range:
    """The arguments as a Range; VALIDATION_ERROR for any the client must change."""
    points, start, end = args["points"], _bound(args["from"], "from"), _bound(args.get("to"), "to")
    if not 1 <= points <= MAX_POINTS:
        raise InputValidationError(f"points must be from 1 to {MAX_POINTS}; it is {points}.")
    assert start is not None  # `from` is required by the schema
    if end is not None and start[1] != end[1]:
        raise InputValidationError("from and to must both be blocks or both be timestamps.")
    if end is not None and start[0] > end[0]:
        raise InputValidationError(f"from ({start[0]}) is after to ({end[0]}).")
    return Range(start[0], end[0] if end is not None else None, points, start[1])


def _bound(bound: Mapping[str, Any] | None, name: str) -> tuple[int, bool] | None:
    """(value, is a time) of `from` or `to`."""
    if bound is None:
        return None
    given = [(key, value) for key, value in bound.items() if value is not None]
    if len(given) != 1:
        raise InputValidationError(f"{name} takes exactly one of blockNumber and timestamp.")
    key, value = given[0]
    if value < 0:
        raise InputValidationError(f"{name}.{key} must be 0 or more; it is {value}.")
    return value, key == "timestamp"


class Point(NamedTuple):
    block: int
    timestamp: int | None
    """The time asked, where the series is in time."""


async def points(reader: ChainReader, asked: Range) -> list[Point]:
    """The series' blocks on the reader's chain (a reader of the newest block)."""
    head = await reader.block_number()
    if not asked.by_time:
        if max(asked.start, asked.end or 0) > head:  # past the followed head: the node may have it (one header)
            head = await reader.node_head()
        end = head if asked.end is None else asked.end
        if max(asked.start, end) > head:
            raise InputValidationError(
                f"Block {max(asked.start, end)} is not on chain {reader.chain_id} yet: its newest block is {head}."
            )
        if asked.points > end - asked.start + 1:
            raise InputValidationError(
                f"{asked.points} points do not fit in the {end - asked.start + 1} blocks from {asked.start} to {end}."
            )
        return [Point(block, None) for block in _spaced(asked.start, end, asked.points)]
    newest = await reader.block_timestamp()
    if max(asked.start, asked.end or 0) > max(newest, time.time()):
        raise InputValidationError(
            f"Timestamp {max(asked.start, asked.end or 0)} is in the future: chain {reader.chain_id}'s newest block "
            f"is of {newest}."
        )
    end = newest if asked.end is None else asked.end
    times = _spaced(asked.start, end, asked.points)
    found = await asyncio.gather(*(_block_at(reader, moment) for moment in times))
    if found[0] is None:
        raise BeforeChain(f"Chain {reader.chain_id} has no block as old as timestamp {times[0]}.")
    return [Point(block, moment) for block, moment in zip(found, times) if block is not None]


def _spaced(start: int, end: int, count: int) -> list[int]:
    """`count` integers from `start` to `end`, both included, evenly spaced (rounded down)."""
    if count == 1:
        return [end]
    return [start + (end - start) * step // (count - 1) for step in range(count)]


async def _block_at(reader: ChainReader, moment: int) -> int | None:
    """The last block at or before `moment`: kept in the app's cache once the block after it has
    settled (no reorganisation can change it then), so a repeat reads nothing."""

    async def read() -> tuple[int | None, bool]:
        found = await block_at(reader, moment)
        if found is None:
            return None, True
        return found[0], found[0] + 1 <= await reader.settled_block()

    block, _ = await reader.remembered(("block at time", moment), read, lasting=lambda found: bool(found[1]))
    return block if isinstance(block, int) else None


PointFetch = Callable[[int], Awaitable[dict[str, Any]]]
"""One point's answer: the input's `walletPositions` answer at a block (or its PositionError)."""


async def series(fetch: PointFetch, asked: list[Point]) -> dict[str, Any]:
    """An input's series: each point's answer and totals, or its error; points before the protocol's
    deployment left out with a warning; PositionError when no point could be answered."""
    outcomes = await asyncio.gather(*(fetch(point.block) for point in asked), return_exceptions=True)
    kept, early, failed = [], [], []
    for point, outcome in zip(asked, outcomes):
        if isinstance(outcome, BeforeDeployment):
            early.append((point, outcome))
            continue
        if isinstance(outcome, BaseException) and not isinstance(outcome, PositionError):
            raise outcome
        entry: dict[str, Any] = {"blockNumber": point.block, "timestamp": point.timestamp}
        if isinstance(outcome, PositionError):
            failed.append(outcome)
            entry |= {"positions": None, "totals": None}
            entry["error"] = {"code": outcome.code, "message": outcome.message, "retryable": outcome.retryable}
        else:
            entry |= {"positions": outcome, "totals": outcome["totals"], "error": None}
        kept.append(entry)
    if not kept:
        raise early[-1][1]
    if len(failed) == len(kept):
        raise failed[-1]
    warnings = []
    if early:
        (first, reason), last = early[0], early[-1][0]
        warnings.append(
            {
                "code": "BEFORE_DEPLOYMENT",
                "target": str(last.block),
                "message": f"{len(early)} points, blocks {first.block} to {last.block}, are left out: {reason.message}",
            }
        )
    return {"points": kept, "warnings": warnings}


def legs(answer: Mapping[str, Any]) -> dict[str, Held]:
    """The legs a point's answer holds by key (its `allPositions`' legs, adapters/legs.py). A leg
    several positions hold parts of (a RewardsController's reward accrued in several markets) is
    one leg, their amounts and USD added."""
    found: dict[str, Held] = {}
    for position in answer["allPositions"]:
        for leg in position["legs"]:
            amount, asset = leg["amount"], leg["asset"]
            held = Held(
                None if amount is None else int(amount),
                leg["usd"],
                None if asset is None else asset["address"],
                leg["role"] == DEBT,
                leg["role"] in GROWS,
            )
            found[leg["key"]] = held if leg["key"] not in found else _summed(found[leg["key"]], held)
    return found


def _summed(one: Held, other: Held) -> Held:
    amount = None if one.amount is None or other.amount is None else one.amount + other.amount
    usd = None if one.usd is None or other.usd is None else one.usd + other.usd
    return Held(amount, usd, one.asset, one.debt, one.grows)


async def kept_flows(
    at: Callable[[int], FetchContext[Any]],
    answers: ImmutableCache,
    protocol: Protocol,
    wallet: str,
    answer: dict[str, Any],
    routes: Routes,
) -> None:
    """`flows`, kept like answers: per range and the last point's block key (its hash), so a
    repeat reads no logs; not kept while the index is behind (FLOWS_INCOMPLETE). Priced as the
    points are, with the protocols' rates of their own tokens (`routes`)."""
    answered = [point["blockNumber"] for point in answer["points"] if point["positions"] is not None]
    ctx = at(answered[-1])
    block_key = await ctx.reader().block_key() if answers.max_bytes > 0 else None
    key = ("flows", protocol.name, ctx.chain_id, wallet, answered[0], answered[-1], block_key)
    if block_key is not None and (kept := answers.get(key)) is not None:
        answer["flows"], answer["earnings"] = kept["flows"], kept["earnings"]
        answer["warnings"] = answer["warnings"] + kept["warnings"]
        return
    before = len(answer["warnings"])
    with routing(routes):
        await flows(ctx, protocol, wallet, answer)
    added = answer["warnings"][before:]
    if block_key is not None and not any(warning["code"] == "FLOWS_INCOMPLETE" for warning in added):
        answers.put(key, {"flows": answer["flows"], "earnings": answer["earnings"], "warnings": added})


async def flows(ctx: FetchContext[Any], protocol: Protocol, wallet: str, answer: dict[str, Any]) -> None:
    """The series' flows and earnings from its first answered point to its last (the context's
    block), into `answer`, or the warnings that say why not."""
    answered = [point for point in answer["points"] if point["positions"] is not None]
    (start, held), (end, now) = (
        (point["blockNumber"], legs(point["positions"])) for point in (answered[0], answered[-1])
    )

    def warn(code: str, target: str, message: str) -> None:
        answer["warnings"].append({"code": code, "target": target, "message": message})

    if protocol.flows is None:
        warn(
            "FLOWS_UNAVAILABLE", protocol.name, f"Flows and earnings of {protocol.name} positions are not derived yet."
        )
        return
    assets = {key: leg.asset for key, leg in {**held, **now}.items() if leg.asset}
    try:
        logs = await wallet_logs(ctx, wallet, start + 1, end)
        found = await protocol.flows(ctx, wallet, logs, assets)
        values, decimals = await usd_values(ctx, found, protocol.flow_prices)
    except ProtocolError as exc:  # a contract's answer the flows needed, or too many logs: the points stand
        warn(
            "FLOWS_UNAVAILABLE",
            protocol.name,
            f"Flows and earnings of {protocol.name} positions could not be derived: {exc.message}",
        )
        return
    for key, why in sorted(logs.unavailable.items()):
        warn("FLOWS_UNAVAILABLE", key, f"Flows of {key} are not derived ({why}): its earnings are left out.")
    if not logs.complete:
        message = "The event index is still reading the wallet's logs over the range: flows may be missing; ask again."
        warn("FLOWS_INCOMPLETE", wallet, message)
    unpriced = [flow.asset for flow, value in zip(found, values) if value is None]
    for asset in sorted(set(unpriced)):
        message = f"{asset} has no USD price at the blocks of {unpriced.count(asset)} of its flows: their amountUsd, "
        warn(
            "FLOWS_UNPRICED",
            asset,
            message + "and their positions' flowsUsd, pnlUsd and cost basis, and earnedUsd where no point prices "
            "it, are null.",
        )
    answer["flows"] = [
        {
            "position": flow.position,
            "kind": flow.kind,
            "blockNumber": flow.block,
            "logIndex": flow.log_index,
            "transactionHash": flow.transaction,
            "asset": flow.asset,
            "amount": str(flow.amount),
            "amountUsd": value,
        }
        for flow, value in zip(found, values)
    ]
    points = [  # a point that left a part out cannot say its legs there held nothing
        (point["blockNumber"], legs(point["positions"]))
        for at, point in enumerate(answered)
        if at in (0, len(answered) - 1)
        or not any(warning["code"] == "PART_UNREADABLE" for warning in point["positions"]["warnings"])
    ]
    named = logs.unavailable  # a leg's key, or a position's (its legs' keys less the last part)
    answer["earnings"] = [
        row
        for row in earnings(points, answer["flows"], decimals)
        if not {row["position"], row["position"].rsplit(":", 1)[0]} & set(named)
    ]
    for row in answer["earnings"]:
        for code, message in _earnings_warnings(row, set(unpriced)):
            warn(code, row["position"], message)


def _earnings_warnings(row: dict[str, Any], unpriced: set[str]) -> list[tuple[str, str]]:
    """What names an earnings row's null figures (its `unexplained` amount popped): the figures of
    a leg fed by a path the flows do not follow; an earned amount no point prices, where the
    asset's FLOWS_UNPRICED does not already name it."""
    found = []
    if row["earned"] is not None and row["earnedUsd"] is None and row["asset"] not in unpriced:
        why = f"no leg of {row['asset']} holds an amount with a USD value at the last or the first point"
        found.append(("PRICE_UNAVAILABLE", f"earnedUsd and priceEffectUsd of {row['position']} are null: {why}."))
    if amount := row.pop("unexplained", 0):
        found.append(
            (
                "FLOWS_UNEXPLAINED",
                f"{amount} raw units of {row['asset']} came into this leg after a point at which it held nothing, "
                "with no flow that brings them in (a transfer or mint by a path the flows do not follow): its "
                "earned, earnedUsd, pnlUsd and priceEffectUsd are null, not counted as yield.",
            )
        )
    return found
