"""A wallet's flows in Compound v3 (docs/protocols/compound.md), from each listed Comet's events.

A Comet account holds one signed base balance, shown as a supply (`<comet>:supply`) or a debt
(`<comet>:borrow`), and collateral per asset (`<comet>:<asset>:collateral`). Comet's events:

- `Supply(from, dst, amount)`: `amount` of base into dst's balance. The part that became supply
  is the `Transfer(0, dst, x)` Comet emits right after it; the rest, `amount - x`, repaid debt.
- `Withdraw(src, to, amount)`: out of src's balance; the `Transfer(src, 0, x)` right after it is
  the supply withdrawn, the rest was borrowed.
- `Transfer(src, 0, x)` and `Transfer(0, dst, x)` alone: a base transfer between accounts.
- `AbsorbCollateral(absorber, borrower, asset, amount, usd)`: collateral seized; then
  `AbsorbDebt(absorber, borrower, basePaidOut, usd)` clears the debt, and the
  `Transfer(0, borrower, x)` after it credits the rest as supply: the debt repaid is
  `basePaidOut - x`.
- `SupplyCollateral`, `WithdrawCollateral`, `TransferCollateral`: the collateral itself.

Comet rounds a principal down and its present value down again, so `amount - x` is off by at
most ROUNDING wei: a remainder that small is no repayment or borrow. Comet emits no event for the
debt a base transfer repays or takes on (`transferAsset` of the base from an account without
enough supply): that part shows in what the debt earned.

Flows are valued as the positions are: Comet's `getPrice` of the asset's feed at the flow's
block, in the market's price currency, through the chain's feed of that currency.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, cast

from adapters.compound.contracts import (
    ABSORB_COLLATERAL,
    ABSORB_DEBT,
    BASE_TOKEN,
    BASE_TOKEN_PRICE_FEED,
    GET_ASSET_INFO_BY_ADDRESS,
    PRICE_SCALE,
    REWARD_CLAIMED,
    REWARDS_CLAIMED,
    SUPPLY,
    SUPPLY_COLLATERAL,
    TRANSFER,
    TRANSFER_COLLATERAL,
    WITHDRAW,
    WITHDRAW_COLLATERAL,
)
from adapters.compound.market import comet_price
from adapters.compound.section import CometMarket, CompoundAddresses
from adapters.context import FetchContext
from adapters.flows import NO_ONE, Flow, WalletLogs, address_of, topic
from adapters.position_warnings import outcome
from adapters.prices import currency_usd
from chain import ChainReader, Log, first
from chain.abi import decode
from errors import ProtocolError

ROUNDING = 2
"""Wei a Supply's or Withdraw's split may be off by: Comet's two roundings down, each under one
wei while its supply index is under 2 (it starts at 1 and grows only by interest)."""
CREDITED = {SUPPLY.topic: "supply", ABSORB_DEBT.topic: "liquidation-credit"}
"""The event before a `Transfer(0, wallet)` -> the kind of supply it made (none: a transfer in)."""
DEBT = {SUPPLY.topic: ("repay", -1), WITHDRAW.topic: ("borrow", 1), ABSORB_DEBT.topic: ("liquidation-repaid", -1)}
"""The events that may change the debt -> the kind of flow and its sign."""


def _markets(ctx: FetchContext[CompoundAddresses]) -> dict[str, CometMarket]:
    deployment = ctx.section
    return {market.comet.lower(): market for market in deployment.markets}


async def flows(ctx: FetchContext[Any], wallet: str, logs: WalletLogs, legs: Mapping[str, str]) -> list[Flow]:
    markets, named = _markets(ctx), topic(wallet)
    mine = [log for log in logs if log.address in markets and len(log.topics) in (3, 4) and len(log.data) >= 32]
    comets = sorted({log.address for log in mine})
    reader = ctx.reader()
    found = await asyncio.gather(*(reader.call(comet, BASE_TOKEN) for comet in comets))
    bases = {comet: cast(str, base).lower() for comet, (base,) in zip(comets, found)}
    flows: list[Flow] = []
    for index, log in enumerate(mine):
        event, source, target, *asset = log.topics
        at, key = (log.block_number, log.log_index, log.transaction_hash), f"{log.address}:supply"
        amount, *_ = decode(("uint256",) * (len(log.data) // 32), log.data)
        before, after = (_adjacent(mine, index, step) for step in (-1, 1))
        if asset:
            flows += _collateral(log, address_of(*asset), named, amount, at)
        elif event == TRANSFER.topic and (source, target) == (NO_ONE, named):
            kind = CREDITED.get(_event(before), "transfer-in")
            flows.append(Flow(key, kind, *at, bases[log.address], amount))
        elif event == TRANSFER.topic and (source, target) == (named, NO_ONE):
            kind = "withdraw" if _event(before) == WITHDRAW.topic else "transfer-out"
            flows.append(Flow(key, kind, *at, bases[log.address], -amount))
        elif event in DEBT and (source if event == WITHDRAW.topic else target) == named:
            moved = (named, NO_ONE) if event == WITHDRAW.topic else (NO_ONE, named)
            supplied = 0
            if after is not None and _event(after) == TRANSFER.topic and tuple(after.topics[1:]) == moved:
                supplied, *_ = decode(("uint256",), after.data)
            if amount - supplied > ROUNDING:
                kind, sign = DEBT[event]
                flows.append(Flow(f"{log.address}:borrow", kind, *at, bases[log.address], sign * (amount - supplied)))
    return flows + await _claims(ctx, logs, named, legs)


async def _claims(
    ctx: FetchContext[CompoundAddresses], logs: WalletLogs, named: str, legs: Mapping[str, str]
) -> list[Flow]:
    """Rewards the wallet claimed from CometRewards (`RewardClaimed(src, recipient, token,
    amount)`), out of the reward leg of the market they were claimed in. The event names no
    market: where several of the points' markets pay the token, the one whose
    `rewardsClaimed(comet, wallet)` rose by the amount in that block."""
    rewards = ctx.section.rewards
    paying: dict[str, list[str]] = {}
    for key in legs:
        comet, _, rest = key.partition(":")
        if rest.endswith(":rewards"):
            paying.setdefault(rest.partition(":")[0], []).append(comet)
    claims = []
    for log in logs:
        if rewards is None or log.address != rewards.lower() or len(log.topics) != 4:
            continue
        event, source, _, token = log.topics
        comets = paying.get(address_of(token), [])
        if event == REWARD_CLAIMED.topic and source == named and comets:
            claims.append((log, address_of(token), comets, *decode(("uint256",), log.data)))
    where = await asyncio.gather(  # the markets of claims several pay, side by side
        *(_claimed_in(ctx, cast(str, rewards), comets, named, log, amount) for log, _, comets, amount in claims)
    )
    found = []
    for (log, token, comets, amount), claimed_in in zip(claims, where):
        if claimed_in is None:  # no market's count rose by it: those legs' earnings would be wrong
            for comet in comets:
                logs.unavailable[f"{comet}:{token}:rewards"] = "a claim no market's rewardsClaimed matches"
            continue
        at = (log.block_number, log.log_index, log.transaction_hash)
        found.append(Flow(f"{claimed_in}:{token}:rewards", "claim", *at, token, -amount))
    return found


async def _claimed_in(
    ctx: FetchContext[Any], rewards: str, comets: list[str], named: str, log: Log, amount: int
) -> str | None:
    """The market whose claimed rewards rose by `amount` in the log's block (the only one that
    pays the token, read nothing)."""
    if len(comets) == 1:
        return comets[0]
    wallet = address_of(named)
    after, before = (ctx.chains.reader(ctx.chain_id, block) for block in (log.block_number, log.block_number - 1))
    reads = await asyncio.gather(
        *(reader.call(rewards, REWARDS_CLAIMED, comet, wallet) for comet in comets for reader in (after, before))
    )
    rises = [now - was for (now,), (was,) in zip(reads[::2], reads[1::2])]
    return next((comet for comet, rise in zip(comets, rises) if rise == amount), None)


def _collateral(log: Log, asset: str, named: str, amount: int, at: tuple[int, int, str]) -> list[Flow]:
    event, source, target, _ = log.topics
    key = f"{log.address}:{asset}:collateral"
    if event == SUPPLY_COLLATERAL.topic and target == named:
        return [Flow(key, "collateral-in", *at, asset, amount)]
    if event == WITHDRAW_COLLATERAL.topic and source == named:
        return [Flow(key, "collateral-out", *at, asset, -amount)]
    if event == ABSORB_COLLATERAL.topic and target == named:
        return [Flow(key, "liquidation-seized", *at, asset, -amount)]
    if event == TRANSFER_COLLATERAL.topic and named in (source, target):
        inward = target == named
        return [Flow(key, "transfer-in" if inward else "transfer-out", *at, asset, amount if inward else -amount)]
    return []


def _adjacent(logs: list[Log], index: int, step: int) -> Log | None:
    """The log Comet emitted right before (step -1) or after (+1) `logs[index]` in its
    transaction, where the wallet's logs hold it (Comet's Transfer of the supply part follows the
    event that made it)."""
    if not 0 <= index + step < len(logs):
        return None
    log, near = logs[index], logs[index + step]
    same = near.transaction_hash == log.transaction_hash and near.address == log.address
    return near if same and near.log_index == log.log_index + step else None


def _event(log: Log | None) -> str:
    """A log's topic0 ("" for none)."""
    return next(iter(log.topics), "") if log is not None else ""


async def prices(ctx: FetchContext[Any], reader: ChainReader, moved: list[Flow]) -> dict[int, Fraction | None]:
    """Each flow's USD per whole unit at its block, as the positions are valued: Comet's price of
    the asset's feed, in the market's currency, through the chain's feed of it; a reward claimed
    through the last listed market that lists its token, as base or collateral."""
    markets = _markets(ctx)

    async def price(flow: Flow) -> Fraction | None:
        comet, _, _ = flow.position.partition(":")
        if flow.position.endswith(":rewards"):
            return await _listed(ctx, reader, list(markets.values()), flow.asset)
        return await _priced(ctx, reader, markets[comet], flow.asset, flow.position.endswith(":collateral"))

    found = await asyncio.gather(*(outcome(price(flow)) for flow in moved))
    return {index: None if isinstance(value, ProtocolError) else value for index, value in enumerate(found)}


async def _priced(
    ctx: FetchContext[Any], reader: ChainReader, market: CometMarket, token: str, collateral: bool
) -> Fraction:
    """USD per whole `token` (the market's base, or a collateral of it) at the reader's block;
    PriceUnavailable where the chain has no feed of the market's currency."""
    comet, label = market.comet.lower(), f"Comet {market.comet.lower()}"
    if collateral:
        (info,) = await reader.call(comet, GET_ASSET_INFO_BY_ADDRESS, token, label=label)
        feed = info.priceFeed
    else:
        (feed,) = await reader.call(comet, BASE_TOKEN_PRICE_FEED, label=label)
    found, unit = await asyncio.gather(
        comet_price(reader, comet, feed, label), currency_usd(reader, ctx.chain, market.price_currency, market.name)
    )
    return Fraction(found, PRICE_SCALE) * unit


async def _listed(
    ctx: FetchContext[Any], reader: ChainReader, markets: list[CometMarket], token: str
) -> Fraction | None:
    """A reward token's price as positions.py gives it: through the last market listed that lists
    the token, as its base or a collateral, and prices it then; None where none does."""
    comets = [market.comet.lower() for market in markets]
    bases, infos = await asyncio.gather(
        asyncio.gather(*(outcome(first(reader.call(comet, BASE_TOKEN))) for comet in comets)),
        asyncio.gather(*(outcome(reader.call(comet, GET_ASSET_INFO_BY_ADDRESS, token)) for comet in comets)),
    )
    for market, base, info in reversed(list(zip(markets, bases, infos))):
        is_base = isinstance(base, str) and base.lower() == token
        if is_base or not isinstance(info, ProtocolError):
            price = await outcome(_priced(ctx, reader, market, token, not is_base))
            if isinstance(price, Fraction):
                return price
    return None
