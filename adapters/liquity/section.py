"""Liquity v1's part of a chain's addresses data ("liquity"): its contracts as `@liquity/lib-ethers`
publishes them for mainnet (deployments/default/mainnet.json)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Section, fields

NAMES = ("troveManager", "borrowerOperations", "stabilityPool", "lqtyStaking", "collSurplusPool", "priceFeed")
"""The data's keys, in the order of `LiquityAddresses`' fields."""


@dataclass(frozen=True)
class LiquityAddresses:
    """Liquity v1 on Ethereum: every contract a wallet's positions and flows are read from. LUSD
    and LQTY are the TroveManager's `lusdToken()` and `lqtyToken()`."""

    trove_manager: str
    borrower_operations: str
    """Emits the owner's own trove operations (`TroveUpdated`, `LUSDBorrowingFeePaid`)."""
    stability_pool: str
    lqty_staking: str
    coll_surplus_pool: str
    """Holds what a trove closed by redemption (or liquidated in Recovery Mode) left over, until claimed."""
    price_feed: str
    """Liquity's own ETH price (Chainlink's ETH/USD with Tellor behind it): its `fetchPrice()`."""
    start_block: int | None = None


def parse(value: Any, where: str) -> LiquityAddresses:
    value = fields.mapping(value, where)
    manager, operations, pool, staking, surplus, feed = (
        fields.address(value.get(name), f"{where} {name}") for name in NAMES
    )
    return LiquityAddresses(manager, operations, pool, staking, surplus, feed, fields.start_block(value, where))


LIQUITY = Section("liquity", parse)
