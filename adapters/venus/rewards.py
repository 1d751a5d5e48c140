"""XVS the core pool owes an account at the block, as the Comptroller's RewardFacet would pay it
on a claim (XVSRewardsHelper: updateVenusSupplyIndex, distributeSupplierVenus and their borrow
twins), from its views:

- what it stored for the account, `venusAccrued(account)`;
- per market the account holds, the supply index brought to the block: index + speed x blocks
  since the state's block x 1e36 / totalSupply (`venusSupplySpeeds`, `venusSupplyState`); the
  account's share: vToken balance x (index - its `venusSupplierIndex`) / 1e36 (an index of 0 read
  as `venusInitialIndex` once the market's has passed it);
- borrow alike: the index grows by speed x blocks x 1e36 / (totalBorrows x 1e18 / borrowIndex),
  the share is borrowBalanceStored x 1e18 / borrowIndex x (index - `venusBorrowerIndex`) / 1e36,
  with the market's stored borrowIndex, as a claim reads it.

Each step floors as the contract's ExponentialNoError does.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from adapters.venus.contracts import (
    BORROW_INDEX,
    BORROW_SPEED,
    BORROW_STATE,
    BORROWER_INDEX,
    DOUBLE,
    MANTISSA,
    SUPPLIER_INDEX,
    SUPPLY_SPEED,
    SUPPLY_STATE,
    TOTAL_BORROWS,
)
from chain import ChainReader, erc20, first


@dataclass(frozen=True)
class Accrual:
    """A market's XVS for one account: what is pending on its supply and its borrow, and what the
    market's APRs need: its speeds (XVS wei a block), vToken supply and borrows."""

    pending: int
    supply_speed: int
    borrow_speed: int
    total_supply: int
    total_borrows: int


def _advanced(index: int, since: int, block: int, speed: int, amount: int) -> int:
    """A reward index brought from `since` to `block` at `speed` over `amount` (fraction: x 1e36)."""
    blocks = block - since
    if blocks <= 0 or not speed:
        return index
    return index + (speed * blocks * DOUBLE // amount if amount else 0)


def _share(index: int, account_index: int, initial: int, amount: int) -> int:
    if account_index == 0 and index >= initial:
        account_index = initial
    return amount * (index - account_index) // DOUBLE


async def accrual(
    reader: ChainReader,
    comptroller: str,
    vtoken: str,
    wallet: str,
    held: tuple[int, int],
    initial: int,
    label: str,
) -> Accrual:
    """What the market owes `wallet` beyond `venusAccrued` at the block; `held`: its vToken balance
    and stored borrow balance (its account snapshot's)."""
    balance, borrowed = held
    call = reader.call
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
        block,
    ) = await asyncio.gather(
        call(comptroller, SUPPLY_STATE, vtoken, label=label),
        call(comptroller, BORROW_STATE, vtoken, label=label),
        first(call(comptroller, SUPPLY_SPEED, vtoken, label=label)),
        first(call(comptroller, BORROW_SPEED, vtoken, label=label)),
        first(call(comptroller, SUPPLIER_INDEX, vtoken, wallet, label=label)),
        first(call(comptroller, BORROWER_INDEX, vtoken, wallet, label=label)),
        first(call(vtoken, erc20.TOTAL_SUPPLY, label=label)),
        first(call(vtoken, TOTAL_BORROWS, label=label)),
        first(call(vtoken, BORROW_INDEX, label=label)),
        reader.block_number(),
    )
    supply_index = _advanced(supply_state.index, supply_state.block, block, supply_speed, total_supply)
    borrow_amount = total_borrows * MANTISSA // borrow_index if borrow_index else 0
    borrow_index_now = _advanced(borrow_state.index, borrow_state.block, block, borrow_speed, borrow_amount)
    owed = _share(supply_index, supplier, initial, balance)
    if borrow_index:
        owed += _share(borrow_index_now, borrower, initial, borrowed * MANTISSA // borrow_index)
    return Accrual(owed, supply_speed, borrow_speed, total_supply, total_borrows)
