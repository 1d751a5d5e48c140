"""Rewards a Venus pool (or Compound v2) owes an account at the block, as a claim would pay them,
from the payer's views. Compound v2's Comptroller pays COMP (comp*: updateCompSupplyIndex,
distributeSupplierComp and their borrow twins); the core pool's Comptroller pays XVS (RewardFacet's XVSRewardsHelper:
updateVenusSupplyIndex, distributeSupplierVenus and their borrow twins); an isolated pool pays
through its RewardsDistributors, each in its own token, by the same steps
(RewardsDistributor: _updateRewardTokenSupplyIndex, _distributeSupplierRewardToken, ...):

- what it stored for the account (`venusAccrued`, `rewardTokenAccrued`);
- per market the account holds, the supply index brought to now: index + speed x periods since
  the state's x 1e36 / totalSupply, where now is the block (the core pool, a distributor that
  counts blocks) or its timestamp (one that counts seconds: its `...TimeBased` states), and a
  distributor's state stops at its last rewarding period where one is set; the account's share:
  vToken balance x (index - its supplier index) / 1e36 (an index of 0 read as the initial index
  once the market's has passed it);
- borrow alike: the index grows by speed x periods x 1e36 / (totalBorrows x 1e18 / borrowIndex),
  the share is borrowBalanceStored x 1e18 / borrowIndex x (index - its borrower index) / 1e36,
  with the market's stored borrowIndex, as a claim reads it.

Each step floors as the contracts' ExponentialNoError does.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from adapters.venus.contracts import (
    BORROW_INDEX,
    BORROW_SPEED,
    BORROW_STATE,
    BORROWER_INDEX,
    COMP_BORROW_SPEED,
    COMP_BORROW_STATE,
    COMP_BORROWER_INDEX,
    COMP_SUPPLIER_INDEX,
    COMP_SUPPLY_SPEED,
    COMP_SUPPLY_STATE,
    DOUBLE,
    MANTISSA,
    REWARD_BORROW_SPEED,
    REWARD_BORROW_STATE,
    REWARD_BORROW_STATE_BY_TIME,
    REWARD_BORROWER_INDEX,
    REWARD_SUPPLIER_INDEX,
    REWARD_SUPPLY_SPEED,
    REWARD_SUPPLY_STATE,
    REWARD_SUPPLY_STATE_BY_TIME,
    SUPPLIER_INDEX,
    SUPPLY_SPEED,
    SUPPLY_STATE,
    TOTAL_BORROWS,
)
from chain import ChainReader, erc20, first
from chain.abi import Function


@dataclass(frozen=True)
class Views:
    """How a payer names its market states, speeds and account indexes."""

    supply_state: Function
    borrow_state: Function
    supply_speed: Function
    borrow_speed: Function
    supplier_index: Function
    borrower_index: Function


CORE = Views(SUPPLY_STATE, BORROW_STATE, SUPPLY_SPEED, BORROW_SPEED, SUPPLIER_INDEX, BORROWER_INDEX)
"""The core pool's Comptroller (venus*)."""
COMP = Views(
    COMP_SUPPLY_STATE, COMP_BORROW_STATE, COMP_SUPPLY_SPEED, COMP_BORROW_SPEED, COMP_SUPPLIER_INDEX, COMP_BORROWER_INDEX
)
"""Compound v2's Comptroller (comp*), whose steps Venus's core pool keeps."""
BY_BLOCK = Views(
    REWARD_SUPPLY_STATE,
    REWARD_BORROW_STATE,
    REWARD_SUPPLY_SPEED,
    REWARD_BORROW_SPEED,
    REWARD_SUPPLIER_INDEX,
    REWARD_BORROWER_INDEX,
)
"""A RewardsDistributor that counts blocks."""
BY_TIME = Views(
    REWARD_SUPPLY_STATE_BY_TIME,
    REWARD_BORROW_STATE_BY_TIME,
    REWARD_SUPPLY_SPEED,
    REWARD_BORROW_SPEED,
    REWARD_SUPPLIER_INDEX,
    REWARD_BORROWER_INDEX,
)
"""A RewardsDistributor that counts seconds."""


@dataclass(frozen=True)
class Payer:
    """Who pays a pool's rewards: the core pool's Comptroller (XVS) or a RewardsDistributor."""

    address: str
    token: str
    accrued: int
    """What it stored for the account."""
    initial: int
    """The index an account's 0 is read as."""
    views: Views

    @property
    def by_time(self) -> bool:
        return self.views is BY_TIME


def _advanced(index: int, since: int, now: int, speed: int, amount: int) -> int:
    """A reward index brought from `since` to `now` at `speed` over `amount` (fraction: x 1e36)."""
    periods = now - since
    if periods <= 0 or not speed:
        return index
    return index + (speed * periods * DOUBLE // amount if amount else 0)


def _share(index: int, account_index: int, initial: int, amount: int) -> int:
    if account_index == 0 and index >= initial:
        account_index = initial
    return amount * (index - account_index) // DOUBLE


def _brought(state: tuple[int, ...], now: int, speed: int, amount: int) -> int:
    """A market state's index brought to `now`, stopped at the state's last rewarding period
    where it has one (a distributor's third field; 0: none)."""
    index, since, *last = state
    end = next(iter(last), 0)
    return _advanced(index, since, min(now, end) if end else now, speed, amount)


async def accrual(
    reader: ChainReader, payer: Payer, vtoken: str, wallet: str, held: tuple[int, int], label: str
) -> int:
    """What the market owes `wallet` beyond the payer's stored amount at the block; `held`: its
    vToken balance and stored borrow balance (its account snapshot's)."""
    balance, borrowed = held
    call, views, at = reader.call, payer.views, payer.address
    (
        supply_state,
        borrow_state,
        supply_speed,
        borrow_speed,
        supplier,
        borrower,
        total_supply,
        total_borrows,
        borrow_index,
        now,
    ) = await asyncio.gather(
        call(at, views.supply_state, vtoken, label=label),
        call(at, views.borrow_state, vtoken, label=label),
        first(call(at, views.supply_speed, vtoken, label=label)),
        first(call(at, views.borrow_speed, vtoken, label=label)),
        first(call(at, views.supplier_index, vtoken, wallet, label=label)),
        first(call(at, views.borrower_index, vtoken, wallet, label=label)),
        first(call(vtoken, erc20.TOTAL_SUPPLY, label=label)),
        first(call(vtoken, TOTAL_BORROWS, label=label)),
        first(call(vtoken, BORROW_INDEX, label=label)),
        reader.block_timestamp() if payer.by_time else reader.block_number(),
    )
    supply_index = _brought(supply_state, now, supply_speed, total_supply)
    borrow_amount = total_borrows * MANTISSA // borrow_index if borrow_index else 0
    borrow_index_now = _brought(borrow_state, now, borrow_speed, borrow_amount)
    owed = _share(supply_index, supplier, payer.initial, balance)
    if borrow_index:
        owed += _share(borrow_index_now, borrower, payer.initial, borrowed * MANTISSA // borrow_index)
    return owed
