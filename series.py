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
- Totals walk the answer by its GraphQL type: ROLES says which USD figure counts as supplied,
  collateral, debt or rewards. A total with a part that has no USD figure is null.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from graphql import GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLOutputType, GraphQLSchema

from adapters.context import FetchContext
from adapters.earnings import Held, earnings
from adapters.flows import usd_values, wallet_logs
from adapters.history import block_at
from adapters.uniswap import flows as uniswap_flows
from chain import ChainReader
from errors import BeforeDeployment, InputValidationError, PositionError, ProtocolError
from immutable_cache import ImmutableCache
from protocols import Protocol

MAX_POINTS = 366
"""Points per series: a year of days."""
SERIES_BUDGET = 400
"""Points of one operation over all its series (inputs x points): five inputs at 80 points, or one
at 366. Each point costs what one `walletPositions` input at a past block costs."""

SUPPLIED, COLLATERAL, DEBT, REWARDS = "suppliedUsd", "collateralUsd", "debtUsd", "rewardsUsd"


class Role(NamedTuple):
    """Where a USD figure counts, and the raw amounts that say it is zero (a position with nothing
    in it counts 0 even without a price)."""

    total: str
    amounts: tuple[str, ...]
    collateral_if: str | None = None
    """A Boolean field that, when true, moves the figure to collateral (Aave's `isCollateral`)."""


ROLES: dict[tuple[str, str], Role] = {
    ("MorphoVaultV1Position", "assetsUsd"): Role(SUPPLIED, ("shares",)),
    ("MorphoVaultV2Position", "assetsUsd"): Role(SUPPLIED, ("shares",)),
    ("MorphoMarketPosition", "supplyAssetsUsd"): Role(SUPPLIED, ("supplyShares",)),
    ("MorphoMarketPosition", "borrowAssetsUsd"): Role(DEBT, ("borrowShares",)),
    ("MorphoMarketPosition", "collateralUsd"): Role(COLLATERAL, ("collateral",)),
    ("AaveSupplyPosition", "balanceUsd"): Role(SUPPLIED, ("balance",), "isCollateral"),
    ("AaveBorrowPosition", "debtUsd"): Role(DEBT, ("debt",)),
    ("AaveRewardPosition", "accruedUsd"): Role(REWARDS, ("accrued",)),
    ("CompoundSupplyPosition", "balanceUsd"): Role(SUPPLIED, ("balance",)),
    ("CompoundBorrowPosition", "debtUsd"): Role(DEBT, ("debt",)),
    ("CompoundCollateralPosition", "balanceUsd"): Role(COLLATERAL, ("balance",)),
    ("CompoundRewardPosition", "accruedUsd"): Role(REWARDS, ("accrued",)),
    ("PendlePtPosition", "balanceUsd"): Role(SUPPLIED, ("balance",)),
    ("PendleYtPosition", "balanceUsd"): Role(SUPPLIED, ("balance",)),
    ("PendleLpPosition", "balanceUsd"): Role(SUPPLIED, ("balance",)),
    ("PendleSyPosition", "balanceUsd"): Role(SUPPLIED, ("balance",)),
    ("PendleAmount", "amountUsd"): Role(REWARDS, ("amount",)),
    ("PendleReward", "amountUsd"): Role(REWARDS, ("amount",)),
    ("FluidLendingPosition", "underlyingAmountUsd"): Role(SUPPLIED, ("shares",)),
    ("FluidVaultPosition", "supplyUsd"): Role(COLLATERAL, ("supply",)),
    ("FluidVaultPosition", "borrowUsd"): Role(DEBT, ("borrow",)),
    ("LidoStakedPosition", "balanceUsd"): Role(SUPPLIED, ("balance",)),
    ("LidoWithdrawalRequest", "amountOfStETHUsd"): Role(SUPPLIED, ("amountOfStETH",)),
    ("UniswapPosition", "valueUsd"): Role(SUPPLIED, ("amount0", "amount1")),
    ("UniswapPosition", "uncollectedFeesUsd"): Role(REWARDS, ("uncollectedFees0", "uncollectedFees1")),
    ("UniswapPosition", "principalOwedUsd"): Role(SUPPLIED, ("principalOwed0", "principalOwed1")),
    ("VaultSharePosition", "balanceUsd"): Role(SUPPLIED, ("balance",)),
    ("VaultCooldown", "underlyingAmountUsd"): Role(SUPPLIED, ("underlyingAmount",)),
    ("PricedTokenPosition", "balanceUsd"): Role(SUPPLIED, ("balance",)),
    ("MakerVault", "collateralUsd"): Role(COLLATERAL, ("collateral",)),
    ("MakerVault", "debtUsd"): Role(DEBT, ("normalizedDebt",)),
    ("EulerVaultPosition", "assetsUsd"): Role(SUPPLIED, ("shares",), "isCollateral"),
    ("EulerVaultPosition", "borrowedUsd"): Role(DEBT, ("borrowed",)),
    ("BalancerTokenShare", "amountUsd"): Role(SUPPLIED, ("amount",)),
    ("BalancerReward", "amountUsd"): Role(REWARDS, ("amount",)),
    ("LiquidStakingPosition", "balanceUsd"): Role(SUPPLIED, ("balance",)),
    ("EtherfiWithdrawalRequest", "amountOfEEthUsd"): Role(SUPPLIED, ("amountOfEEth",)),
    ("KelpWithdrawalRequest", "expectedAssetAmountUsd"): Role(SUPPLIED, ("expectedAssetAmount",)),
    ("RenzoWithdrawalRequest", "amountToRedeemUsd"): Role(SUPPLIED, ("amountToRedeem",)),
    ("EigenlayerRestakedPosition", "amountUsd"): Role(SUPPLIED, ("amount",)),
    ("EigenlayerWithdrawalStrategy", "amountUsd"): Role(SUPPLIED, ("amount",)),
    ("EigenlayerPod", "restakedEthUsd"): Role(SUPPLIED, ("restakedEth",)),
    ("CurveLpPosition", "valueUsd"): Role(SUPPLIED, ("lpBalance", "stakedBalance")),
    ("CurveLpPosition", "claimableCrvUsd"): Role(REWARDS, ("claimableCrv",)),
    ("CurveReward", "claimableUsd"): Role(REWARDS, ("claimable",)),
    ("ConvexDeposit", "valueUsd"): Role(SUPPLIED, ("balance",)),
    ("ConvexDeposit", "claimableCrvUsd"): Role(REWARDS, ("claimableCrv",)),
    ("ConvexDeposit", "claimableCvxUsd"): Role(REWARDS, ("claimableCvx",)),
}
NOT_COUNTED: dict[tuple[str, str], str] = {
    ("AaveMarketState", "netWorthUsd"): "the account's totals as Aave states them: its positions are counted",
    ("AaveMarketState", "totalCollateralUsd"): "likewise",
    ("AaveMarketState", "totalDebtUsd"): "likewise",
    ("AaveMarketState", "availableBorrowsUsd"): "a capacity, not a holding",
    ("CompoundBorrowPosition", "borrowCapacityUsd"): "a capacity, not a holding",
    ("CompoundBorrowPosition", "liquidationThresholdUsd"): "a threshold, not a holding",
    ("LidoWithdrawalRequest", "claimableEthUsd"): "the same ether as amountOfStETHUsd, once finalized",
    ("LiquidationPrice", "priceUsd"): "a price, not a holding",
    ("UsdPriceSource", "priceUsd"): "likewise",
    ("MakerVault", "priceUsd"): "likewise",
    ("UniswapPosition", "amount0Usd"): "a part of valueUsd",
    ("UniswapPosition", "amount1Usd"): "likewise",
    ("BalancerPoolPosition", "valueUsd"): "the sum of its tokens' amountUsd",
    ("UniswapPosition", "uncollectedFees0Usd"): "a part of uncollectedFeesUsd",
    ("UniswapPosition", "uncollectedFees1Usd"): "likewise",
    ("UniswapPosition", "principalOwed0Usd"): "a part of principalOwedUsd",
    ("UniswapPosition", "principalOwed1Usd"): "likewise",
    ("NeutrlWalletPositions", "vaultPosition"): "the sNUSD position of vaultPositions again (the hosted API's field)",
    ("EtherfiWithdrawalRequest", "claimableEthUsd"): "the same ether as amountOfEEthUsd, once finalized",
    ("RocketpoolBurn", "burnableEthUsd"): "a part of the rETH's balanceUsd: what a burn of it pays now",
    ("CurvePoolCoin", "amountUsd"): "a part of valueUsd (Curve's and Convex's)",
}
"""USD figures (and one object) below WalletPositions that no total counts, and why; a test holds
ROLES and this to every `...Usd` field of the schema."""


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
        raise InputValidationError(f"Chain {reader.chain_id} has no block as old as timestamp {times[0]}.")
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


async def series(fetch: PointFetch, asked: list[Point], schema: GraphQLSchema, type_name: str) -> dict[str, Any]:
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
            entry |= {"positions": outcome, "totals": totals(schema, type_name, outcome), "error": None}
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


def totals(schema: GraphQLSchema, type_name: str, answer: Mapping[str, Any]) -> dict[str, float | None]:
    """The point's totals in USD (ROLES), each null where a part it counts has no USD figure."""
    sums: dict[str, float | None] = dict.fromkeys((SUPPLIED, COLLATERAL, DEBT, REWARDS), 0.0)
    member = schema.type_map[type_name]
    assert isinstance(member, GraphQLObjectType)
    _add(_plan(member), answer, sums)
    parts = [sums[SUPPLIED], sums[COLLATERAL], sums[REWARDS], sums[DEBT]]
    net = None if None in parts else sum(part for part in parts[:3] if part is not None) - (sums[DEBT] or 0.0)
    return {**sums, "netUsd": net}


Plan = list[tuple[str, "Role | Plan"]]
"""Per object type, the fields that count (their Role) and those that lead to more (their plan)."""


@functools.cache
def _plan(object_type: GraphQLObjectType) -> Plan:
    plan: Plan = []
    for name, graphql_field in object_type.fields.items():
        key = (object_type.name, name)
        if key in ROLES:
            plan.append((name, ROLES[key]))
        elif key in NOT_COUNTED or not isinstance(inner := _object_of(graphql_field.type), GraphQLObjectType):
            continue
        elif sub := _plan(inner):
            plan.append((name, sub))
    return plan


def _object_of(graphql_type: GraphQLOutputType) -> Any:
    while isinstance(graphql_type, (GraphQLNonNull, GraphQLList)):
        graphql_type = graphql_type.of_type
    return graphql_type


def _add(plan: Plan, value: Any, sums: dict[str, float | None]) -> None:
    if isinstance(value, list):
        for item in value:
            _add(plan, item, sums)
        return
    if not isinstance(value, Mapping):
        return
    for name, step in plan:
        if isinstance(step, list):
            _add(step, value.get(name), sums)
            continue
        total = COLLATERAL if step.collateral_if and value.get(step.collateral_if) else step.total
        figure = value.get(name)
        if figure is None and all(value.get(amount) == "0" for amount in step.amounts):
            figure = 0.0
        current = sums[total]
        sums[total] = None if current is None or figure is None else current + figure


class Leg(NamedTuple):
    """One leg of a position type, as earnings follow it: its key (the values at `key`'s dotted
    paths joined by ":", then a suffix; a path starting with "^" is the enclosing object's), its raw
    amount, its USD figure and the dotted path to its asset's address (empty where the answer
    names no token of the leg's units, Lido's stETH for wstETH: its flows name it)."""

    key: tuple[str, ...]
    suffix: str
    amount: str
    usd: str
    asset: str
    debt: bool = False
    grows: bool = False
    """Rewards and fees accrue from nothing, an AMM's token amounts move with its price: no inflow needed."""


LEGS: dict[str, tuple[Leg, ...]] = {
    "MorphoVaultV1Position": (Leg(("vaultAddress",), "", "assets", "assetsUsd", "asset.address"),),
    "MorphoVaultV2Position": (Leg(("vaultAddress",), "", "assets", "assetsUsd", "asset.address"),),
    "MorphoMarketPosition": (
        Leg(("marketId",), ":supply", "supplyAssets", "supplyAssetsUsd", "loanAsset.address"),
        Leg(("marketId",), ":borrow", "borrowAssets", "borrowAssetsUsd", "loanAsset.address", debt=True),
        Leg(("marketId",), ":collateral", "collateral", "collateralUsd", "collateralAsset.address"),
    ),
    "AaveSupplyPosition": (
        Leg(("marketAddress", "currency.address"), ":supply", "balance", "balanceUsd", "currency.address"),
    ),
    "AaveRewardPosition": (
        Leg(
            ("controller", "rewardToken.address"),
            ":rewards",
            "accrued",
            "accruedUsd",
            "rewardToken.address",
            grows=True,
        ),
    ),
    "AaveBorrowPosition": (
        Leg(("marketAddress", "currency.address"), ":borrow", "debt", "debtUsd", "currency.address", debt=True),
    ),
    "VaultSharePosition": (Leg(("vaultAddress",), "", "assets", "balanceUsd", "underlyingAsset.address"),),
    "VaultCooldown": (
        Leg(("^vaultAddress",), ":cooldown", "underlyingAmount", "underlyingAmountUsd", "^underlyingAsset.address"),
    ),
    "FluidVaultPosition": (
        Leg(("vaultAddress", "nftId"), ":collateral", "supply", "supplyUsd", "supplyToken.address"),
        Leg(("vaultAddress", "nftId"), ":debt", "borrow", "borrowUsd", "borrowToken.address", debt=True),
    ),
    "FluidLendingPosition": (
        Leg(("fTokenAddress",), "", "underlyingAmount", "underlyingAmountUsd", "underlyingAsset.address"),
    ),
    "PricedTokenPosition": (Leg(("tokenAddress",), "", "balance", "balanceUsd", "tokenAddress"),),
    "LidoStakedPosition": (Leg(("token.address",), "", "stEth", "balanceUsd", ""),),
    "LidoWithdrawalRequest": (Leg(("requestId",), ":withdrawal", "amountOfStETH", "amountOfStETHUsd", ""),),
    "LiquidStakingPosition": (Leg(("token.address",), "", "eth", "balanceUsd", ""),),
    "EtherfiWithdrawalRequest": (Leg(("requestId",), ":withdrawal", "amountOfEEth", "amountOfEEthUsd", ""),),
    "KelpWithdrawalRequest": (
        Leg(
            ("asset.address", "userNonce"),
            ":withdrawal",
            "expectedAssetAmount",
            "expectedAssetAmountUsd",
            "asset.address",
        ),
    ),
    "PendlePtPosition": (Leg(("ptToken.address",), "", "balance", "balanceUsd", "ptToken.address"),),
    "PendleYtPosition": (Leg(("ytToken.address",), "", "balance", "balanceUsd", "ytToken.address"),),
    "PendleLpPosition": (Leg(("lpToken.address",), "", "balance", "balanceUsd", "lpToken.address"),),
    "PendleSyPosition": (Leg(("syTokenAddress",), "", "balance", "balanceUsd", "syTokenAddress"),),
    "PendleAmount": (Leg(("^ytToken.address",), ":interest", "amount", "amountUsd", "^syTokenAddress", grows=True),),
    "PendleReward": (
        Leg(("^ytToken.address", "token.address"), ":reward", "amount", "amountUsd", "token.address", grows=True),
    ),
    "UniswapPosition": tuple(
        Leg(
            ("positionManager", "tokenId"),
            f":{leg}{side}",
            f"{field}{side}",
            f"{field}{side}Usd",
            f"token{side}.address",
            grows=leg != "owed",
        )
        for leg, field in uniswap_flows.LEGS
        for side in (0, 1)
    ),
    "CompoundSupplyPosition": (Leg(("marketAddress",), ":supply", "balance", "balanceUsd", "baseAsset.address"),),
    "CompoundBorrowPosition": (Leg(("marketAddress",), ":borrow", "debt", "debtUsd", "baseAsset.address", debt=True),),
    "CompoundRewardPosition": (
        Leg(
            ("marketAddress", "rewardToken.address"),
            ":rewards",
            "accrued",
            "accruedUsd",
            "rewardToken.address",
            grows=True,
        ),
    ),
    "CompoundCollateralPosition": (
        Leg(("marketAddress", "asset.address"), ":collateral", "balance", "balanceUsd", "asset.address"),
    ),
}
"""The position types whose flows are derived (adapters/flows.py and the protocols' flows.py),
by type; a position of another type with a USD figure gets a FLOWS_UNAVAILABLE warning."""


def legs(schema: GraphQLSchema, type_name: str, answer: Mapping[str, Any]) -> tuple[dict[str, Held], set[str]]:
    """The legs a point's answer holds by key, and the position types it holds whose flows are
    not derived."""
    found: dict[str, Held] = {}
    underived: set[str] = set()
    member = schema.type_map[type_name]
    assert isinstance(member, GraphQLObjectType)
    _walk_legs(member, answer, found, underived)
    return found, underived


def _walk_legs(
    object_type: GraphQLObjectType,
    value: Any,
    found: dict[str, Held],
    underived: set[str],
    parent: Mapping[str, Any] | None = None,
) -> None:
    if isinstance(value, list):
        for item in value:
            _walk_legs(object_type, item, found, underived, parent)
        return
    if not isinstance(value, Mapping):
        return
    for leg in LEGS.get(object_type.name, ()):
        amount, parts = value.get(leg.amount), [_at(value, path, parent) for path in leg.key]
        if None in parts:  # a token that could not be read: no key to follow it by
            underived.add(object_type.name)
            continue
        key = f"{':'.join(str(part).lower() for part in parts)}{leg.suffix}"
        asset = _at(value, leg.asset, parent)
        held = Held(int(amount) if isinstance(amount, str) else None, value.get(leg.usd), asset, leg.debt, leg.grows)
        found[key] = held if key not in found else _summed(found[key], held)
    if object_type.name not in LEGS and any(key[0] == object_type.name for key in ROLES):
        underived.add(object_type.name)
    for name, graphql_field in object_type.fields.items():
        inner = _object_of(graphql_field.type)
        if isinstance(inner, GraphQLObjectType) and (object_type.name, name) not in NOT_COUNTED:
            _walk_legs(inner, value.get(name), found, underived, value)


def _summed(one: Held, other: Held) -> Held:
    """A leg several positions hold parts of (a RewardsController's reward accrued in several
    markets): their amounts and USD added, None where a part's is."""
    amount = None if one.amount is None or other.amount is None else one.amount + other.amount
    usd = None if one.usd is None or other.usd is None else one.usd + other.usd
    return Held(amount, usd, one.asset, one.debt, one.grows)


def _at(value: Any, path: str, parent: Mapping[str, Any] | None = None) -> Any:
    """The value at a dotted path ("currency.address"), of the enclosing object where it starts
    with "^" ("^ytToken.address"); None where a step is missing."""
    if path.startswith("^"):
        value, path = parent, path[1:]
    for step in path.split("."):
        value = value.get(step) if isinstance(value, Mapping) else None
    return value


async def kept_flows(
    at: Callable[[int], FetchContext[Any]],
    answers: ImmutableCache,
    schema: GraphQLSchema,
    protocol: Protocol,
    wallet: str,
    answer: dict[str, Any],
) -> None:
    """`flows`, kept like answers: per range and the last point's block key (its hash), so a
    repeat reads no logs; not kept while the index is behind (FLOWS_INCOMPLETE)."""
    answered = [point["blockNumber"] for point in answer["points"] if point["positions"] is not None]
    ctx = at(answered[-1])
    block_key = await ctx.reader().block_key() if answers.max_bytes > 0 else None
    key = ("flows", protocol.name, ctx.chain_id, wallet, answered[0], answered[-1], block_key)
    if block_key is not None and (kept := answers.get(key)) is not None:
        answer["flows"], answer["earnings"] = kept["flows"], kept["earnings"]
        answer["warnings"] = answer["warnings"] + kept["warnings"]
        return
    before = len(answer["warnings"])
    await flows(ctx, schema, protocol, wallet, answer)
    added = answer["warnings"][before:]
    if block_key is not None and not any(warning["code"] == "FLOWS_INCOMPLETE" for warning in added):
        answers.put(key, {"flows": answer["flows"], "earnings": answer["earnings"], "warnings": added})


async def flows(
    ctx: FetchContext[Any], schema: GraphQLSchema, protocol: Protocol, wallet: str, answer: dict[str, Any]
) -> None:
    """The series' flows and earnings from its first answered point to its last (the context's
    block), into `answer`, or the warnings that say why not."""
    answered = [point for point in answer["points"] if point["positions"] is not None]
    (start, held), (end, now) = (
        (point["blockNumber"], legs(schema, protocol.type_name, point["positions"]))
        for point in (answered[0], answered[-1])
    )

    def warn(code: str, target: str, message: str) -> None:
        answer["warnings"].append({"code": code, "target": target, "message": message})

    if protocol.flows is None:
        warn(
            "FLOWS_UNAVAILABLE", protocol.name, f"Flows and earnings of {protocol.name} positions are not derived yet."
        )
        return
    for type_name in sorted(held[1] | now[1]):
        warn(
            "FLOWS_UNAVAILABLE",
            type_name,
            f"Flows of {type_name} positions are not derived yet: their earnings are left out.",
        )
    assets = {key: leg.asset for key, leg in {**held[0], **now[0]}.items() if leg.asset}
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
        warn("FLOWS_UNPRICED", asset, message + "and their positions' flowsUsd, pnlUsd and cost basis, are null.")
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
        (point["blockNumber"], legs(schema, protocol.type_name, point["positions"])[0])
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
        if amount := row.pop("unexplained", 0):
            warn(
                "FLOWS_UNEXPLAINED",
                row["position"],
                f"{amount} raw units of {row['asset']} came into this leg after a point at which it held nothing, "
                "with no flow that brings them in (a transfer or mint by a path the flows do not follow): its "
                "earned, earnedUsd, pnlUsd and priceEffectUsd are null, not counted as yield.",
            )
