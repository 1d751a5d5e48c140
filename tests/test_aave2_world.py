"""The Aave v2 world (tests/aave2_world.py) builds and its contracts answer what it promises: the
borrower's debt and health, a stable borrow, a deposit that is no collateral, accrued rewards a
claim would pay, each market's oracle base, and the data provider where Aave's deploy puts it."""

from __future__ import annotations

from typing import Any

import pytest

from tests import aave2_world as W
from tests.conftest import world_fixture
from tests.evm import calldata

USER_RESERVE = ["uint256"] * 7 + ["uint40", "bool"]
"""AaveProtocolDataProvider.getUserReserveData: ..., currentStableDebt (1), ..., usageAsCollateralEnabled (8)."""

world = world_fixture(W.build)


def user_reserve(world: W.Aave2World, symbol: str, role: str) -> Any:
    eth = world.markets[0]
    return world.node.call(
        eth.data_provider,
        "getUserReserveData(address,address)",
        eth.tokens[symbol],
        world.wallets[role],
        returns=USER_RESERVE,
    )


def test_positions(world: W.Aave2World) -> None:
    node, eth, borrower = world.node, world.markets[0], world.wallets["borrower"]
    data = node.call(eth.pool, "getUserAccountData(address)", borrower, returns=["uint256"] * 6)
    assert data[1] > 0 and data[5] > 10**18
    assert user_reserve(world, "DAI", "borrower")[1] > 0
    assert user_reserve(world, "WETH", "saver")[8] is False


def test_rewards_accrue_and_pay(world: W.Aave2World) -> None:
    node, eth, borrower = world.node, world.markets[0], world.wallets["borrower"]
    assert eth.incentives is not None
    controller, assets = eth.incentives.controller, [eth.atokens["WETH"]]
    pending = node.call(controller, "getRewardsBalance(address[],address)", assets, borrower)
    assert pending > 0
    claim = calldata("claimRewards(address[],uint256,address,bool)", assets, 2**256 - 1, borrower, False)
    paid = node.rpc("eth_call", {"from": borrower, "to": controller, "data": "0x" + claim.hex()}, "latest")
    assert int(paid, 16) >= pending  # one uint256: the RWD the vault would transfer


def test_oracles_and_provider(world: W.Aave2World) -> None:
    node, (eth, usd) = world.node, world.markets
    assert node.call(usd.oracle, "BASE_CURRENCY_UNIT()") == 10**8
    with pytest.raises(RuntimeError, match="revert"):
        node.call(eth.oracle, "BASE_CURRENCY_UNIT()")
    found = node.call(eth.provider, "getAddress(bytes32)", W.DATA_PROVIDER_ID, returns=["address"])
    assert found.lower() == eth.data_provider
