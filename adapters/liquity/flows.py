"""A wallet's flows in Liquity v1 (docs/protocols/liquity.md): every event it reads indexes the
account, so the wallet's own stream holds them all. Each operation's event states the position's
new figures; a flow is the change from the figures before (the event before it in the range, or
the contract's view at the block before), less what the wallet did not move itself.

- Trove (`<TroveManager>:collateral`, `:debt`): BorrowerOperations' `TroveUpdated` (open, close,
  adjust). The debt's flow is what the wallet drew or repaid: the change less the borrowing fee
  (`LUSDBorrowingFeePaid`, a cost) and, on opening, less the 200 LUSD gas compensation the debt
  holds but the wallet never received (on closing, the gas pool repays it: the wallet pays the
  debt less it). The TroveManager's `TroveUpdated` for redistribution gains applied (operation 0)
  only moves the figures before (a gain, not a flow); a redemption's (operation 3) takes out the
  collateral and debt it took (the gas compensation too where it closes the trove);
  `TroveLiquidated` takes out all.
- Surplus (`<TroveManager>:surplus`): CollSurplusPool's `CollBalanceUpdated`, its new balance.
- Stability Pool (`<StabilityPool>:deposit`, `:eth-gain`, `:lqty-gain`): `UserDepositChanged` is
  the new deposit: the flow is it less the deposit before, compounded (its last value less the
  `ETHGainWithdrawn` loss of the same transaction); `ETHGainWithdrawn` and `LQTYPaidToDepositor`
  take the gains out.
- LQTY staking (`<LQTYStaking>:stake`, `:eth-gain`, `:lusd-gain`): `StakeChanged`, the new stake,
  and `StakingGainsWithdrawn`, the gains taken out.

Prices: as positions.py values the legs, ether at the PriceFeed's `fetchPrice()` at the flow's
block and LUSD at 1 USD (`prices`); LQTY by the chain's feed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from adapters.context import FetchContext
from adapters.flows import Flow, WalletLogs, topic
from adapters.liquity.contracts import (
    BORROWING_FEE_PAID,
    DEPOSIT_CHANGED,
    DEPOSITS,
    ETH_GAIN_WITHDRAWN,
    FETCH_PRICE,
    GAS_COMPENSATION,
    LQTY_PAID,
    LQTY_TOKEN,
    LUSD_TOKEN,
    STAKE_CHANGED,
    STAKES,
    STAKING_GAINS,
    SURPLUS,
    SURPLUS_CHANGED,
    TROVE_LIQUIDATED,
    TROVE_UPDATED,
    TROVES,
    WAD,
)
from adapters.liquity.section import LiquityAddresses
from adapters.position_warnings import outcome
from chain import ChainReader, Log, first
from chain.abi import Function, decode
from chain.erc20 import NATIVE
from errors import ProtocolError

OPEN, CLOSE, ADJUST = 0, 1, 2
"""BorrowerOperations' operations in its `TroveUpdated`."""
APPLIED, REDEEMED = 0, 3
"""The TroveManager's: redistribution gains applied, a redemption."""
KINDS = {OPEN: "open", CLOSE: "close"}


@dataclass
class _Reading:
    """The wallet's logs read in order, with each position's figures as the last event left them."""

    ctx: FetchContext[LiquityAddresses]
    wallet: str
    lusd: str
    lqty: str
    gas: int
    flows: list[Flow] = field(default_factory=list)
    figures: dict[str, tuple[int, ...]] = field(default_factory=dict)
    fees: dict[str, int] = field(default_factory=dict)
    losses: dict[str, int] = field(default_factory=dict)

    def add(self, log: Log, leg: str, kind: str, asset: str, amount: int) -> None:
        if amount:
            self.flows.append(Flow(leg, kind, log.block_number, log.log_index, log.transaction_hash, asset, amount))

    async def before(self, name: str, log: Log, contract: str, view: Function) -> tuple[int, ...]:
        """The figures the last event left, or the view's at the block before the log's."""
        if name not in self.figures:
            reader = self.ctx.chains.reader(self.ctx.chain_id, log.block_number - 1)
            self.figures[name] = tuple(await reader.call(contract, view, self.wallet, label="Liquity"))
        return self.figures[name]


async def flows(
    ctx: FetchContext[LiquityAddresses], wallet: str, logs: WalletLogs, legs: Mapping[str, str]
) -> list[Flow]:
    liquity, reader, named = ctx.section, ctx.reader(), topic(wallet)
    contracts = {
        liquity.trove_manager,
        liquity.borrower_operations,
        liquity.stability_pool,
        liquity.lqty_staking,
        liquity.coll_surplus_pool,
    }
    own = [log for log in logs if log.address in contracts and named in log.topics[1:2]]
    if not own:
        return []
    tm = liquity.trove_manager
    lusd, lqty, gas = await asyncio.gather(
        first(reader.call(tm, LUSD_TOKEN, label="Liquity TroveManager")),
        first(reader.call(tm, LQTY_TOKEN, label="Liquity TroveManager")),
        first(reader.call(tm, GAS_COMPENSATION, label="Liquity TroveManager")),
    )
    reading = _Reading(ctx, wallet, str(lusd).lower(), str(lqty).lower(), gas)
    for log in own:  # what a transaction's other events need, whatever their order
        if log.address == liquity.borrower_operations and log.signature == BORROWING_FEE_PAID.topic:
            (reading.fees[log.transaction_hash],) = decode(("uint256",), log.data)
        elif log.address == liquity.stability_pool and log.signature == ETH_GAIN_WITHDRAWN.topic:
            _, reading.losses[log.transaction_hash] = decode(("uint256", "uint256"), log.data)
    for log in own:
        await _read(reading, liquity, log)
    return reading.flows


async def _read(reading: _Reading, liquity: LiquityAddresses, log: Log) -> None:
    event, data = log.signature, log.data
    if event == TROVE_UPDATED.topic or event == TROVE_LIQUIDATED.topic:
        await _trove(reading, liquity, log)
    elif event == SURPLUS_CHANGED.topic:
        surplus = f"{liquity.trove_manager}:surplus"
        await _changed(reading, log, liquity.coll_surplus_pool, SURPLUS, surplus, NATIVE, ("surplus", "claim"))
    elif event == ETH_GAIN_WITHDRAWN.topic:
        gain, _ = decode(("uint256", "uint256"), data)
        reading.add(log, f"{liquity.stability_pool}:eth-gain", "claim", NATIVE, -gain)
    elif event == LQTY_PAID.topic:
        (paid,) = decode(("uint256",), data)
        reading.add(log, f"{liquity.stability_pool}:lqty-gain", "claim", reading.lqty, -paid)
    elif event == DEPOSIT_CHANGED.topic:
        deposit, kinds = f"{liquity.stability_pool}:deposit", ("deposit", "withdraw")
        await _changed(reading, log, liquity.stability_pool, DEPOSITS, deposit, reading.lusd, kinds, reading.losses)
    elif event == STAKING_GAINS.topic:
        lusd_gain, eth_gain = decode(("uint256", "uint256"), data)
        reading.add(log, f"{liquity.lqty_staking}:lusd-gain", "claim", reading.lusd, -lusd_gain)
        reading.add(log, f"{liquity.lqty_staking}:eth-gain", "claim", NATIVE, -eth_gain)
    elif event == STAKE_CHANGED.topic:
        stake = f"{liquity.lqty_staking}:stake"
        await _changed(reading, log, liquity.lqty_staking, STAKES, stake, reading.lqty, ("stake", "unstake"))


async def _changed(
    reading: _Reading,
    log: Log,
    contract: str,
    view: Function,
    leg: str,
    asset: str,
    kinds: tuple[str, str],
    losses: dict[str, int] | None = None,
) -> None:
    """An event that states a leg's new amount: its flow is the change from the amount before
    (the deposit's less the loss its transaction's `ETHGainWithdrawn` states)."""
    (amount,) = decode(("uint256",), log.data)
    before, *_ = await reading.before(leg, log, contract, view)
    change = amount - (int(before) - (losses or {}).pop(log.transaction_hash, 0))
    inward, outward = kinds
    reading.add(log, leg, inward if change > 0 else outward, asset, change)
    reading.figures[leg] = (amount,)


async def _trove(reading: _Reading, liquity: LiquityAddresses, log: Log) -> None:
    """A trove event's flows: the owner's operation, a redemption or a liquidation; the gains
    applied before an operation only set the figures before it."""
    tm, event = liquity.trove_manager, log.signature
    collateral, owed = f"{tm}:collateral", f"{tm}:debt"
    if event == TROVE_LIQUIDATED.topic:
        debt, coll, _ = decode(("uint256", "uint256", "uint8"), log.data)
        reading.add(log, collateral, "liquidation", NATIVE, -coll)
        reading.add(log, owed, "liquidation", reading.lusd, -debt)
        reading.figures["trove"] = (0, 0)
        return
    debt, coll, _, operation = decode(("uint256", "uint256", "uint256", "uint8"), log.data)
    own = log.address == liquity.borrower_operations
    if log.address == tm and operation != REDEEMED:
        reading.figures["trove"] = (debt, coll)  # gains applied (a liquidation's own event counts it)
        return
    opened = own and operation == OPEN
    debt_before, coll_before, *_ = (0, 0) if opened else await reading.before("trove", log, tm, TROVES)
    closed = not debt and not coll
    drawn = debt - debt_before - (reading.fees.pop(log.transaction_hash, 0) if own else 0)
    drawn += -reading.gas if opened else reading.gas if closed else 0
    kind = KINDS.get(operation, "") if own else "redemption"
    reading.add(log, collateral, kind or ("deposit" if coll > coll_before else "withdraw"), NATIVE, coll - coll_before)
    reading.add(log, owed, kind or ("borrow" if drawn > 0 else "repay"), reading.lusd, drawn)
    reading.figures["trove"] = (debt, coll)


async def prices(
    ctx: FetchContext[LiquityAddresses], reader: ChainReader, moved: list[Flow]
) -> dict[int, Fraction | None]:
    """The flows valued as positions.py values their legs: ether at the PriceFeed's `fetchPrice()`
    at the flow's block, LUSD at 1 USD; LQTY by the chain's feed (not valued here)."""
    liquity = ctx.section
    (lusd,) = await ctx.reader().call(liquity.trove_manager, LUSD_TOKEN, label="Liquity TroveManager")
    eth: Fraction | None = None
    if any(flow.asset == NATIVE for flow in moved):
        price = await outcome(first(reader.call(liquity.price_feed, FETCH_PRICE, label="Liquity PriceFeed")))
        eth = None if isinstance(price, ProtocolError) else Fraction(price, WAD)
    valued: dict[int, Fraction | None] = {}
    for index, flow in enumerate(moved):
        if flow.asset == NATIVE:
            valued[index] = eth
        elif flow.asset == str(lusd).lower():
            valued[index] = Fraction(1)
    return valued
