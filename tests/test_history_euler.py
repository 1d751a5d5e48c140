"""Euler v2's flows and earnings in `positionsHistory` (adapters/euler/flows.py) on the test
contracts (tests/euler_world.py, with EVK's liquidate and the EVC's controlCollateral): an owner's
sub-accounts deposit, withdraw, send shares, post collateral, borrow and repay, then one is
liquidated twice, the second time of all its collateral so that the rest of its debt is socialised,
by a liquidator that takes the debt on and repays it. Each account's flows are its own actions
(the amounts the test sent; what a liquidation moved read from the vaults' balances, or the
amounts the vault computed where only it knows them), each leg's earned is end - start - net
flows, and over the legs the PnL adds up to the change of the totals less the flows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import auth
from adapters.euler import contracts as C
from adapters.flows import DEPOSIT, WITHDRAW
from chain.erc20 import TRANSFER
from tests import euler_world as W
from tests.evm import Anvil
from tests.test_history_flows import _block, adds_up_in_usd, ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service

CALL = "call(address,address,uint256,bytes)"
BATCH = "batch((address,address,uint256,bytes)[])"
NO_ONE = "0x" + "0" * 40
MAX = 2**256 - 1


class EulerFlows:
    """The Euler world on its own chain, and a liquidator with USDC to repay what it takes on."""

    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = W.build(self.node)
        self.liquidator = self.node.accounts[16].lower()
        made = self.world.contracts
        self.node.send(made["USDC"], "mint(address,uint256)", self.liquidator, 100_000 * W.USDC)
        self.node.send(made["USDC"], "approve(address,uint256)", made["eUSDC"], MAX, sender=self.liquidator)
        self.node.send(made["eUSDC"], "setMaxLiquidationDiscount(uint16)", 1_500)  # by its governor
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "euler-flows")[0]


euler = chain_fixture(EulerFlows)


def _set_weth(flows: EulerFlows, usd: int) -> None:
    """WETH's price, alike in the vault's oracle router and in its USD feed (the positions')."""
    node, made = flows.node, flows.world.contracts
    node.send(made["oracle"], "setPrice(address,uint256)", made["WETH"], usd * 10**18)
    node.send(made["WETH/USD"], "set(int256,uint256)", usd * 10**8, node.timestamp())


def _liquidated(flows: EulerFlows, violator: str, repay: int) -> tuple[dict[str, Any], int]:
    """The liquidator takes `repay` of the violator's debt (MAX: the most it may) with its WETH
    collateral's yield, and repays the debt in the same batch: the receipt, and the assets at that
    block of the collateral shares the violator lost."""
    node, made, liquidator = flows.node, flows.world.contracts, flows.liquidator
    before = node.call(made["eWETH"], "balanceOf(address)", violator)
    items = [
        (made["evc"], NO_ONE, 0, W._data("enableController(address,address)", liquidator, made["eUSDC"])),
        (made["evc"], NO_ONE, 0, W._data("enableCollateral(address,address)", liquidator, made["eWETH"])),
        (
            made["eUSDC"],
            liquidator,
            0,
            W._data("liquidate(address,address,uint256,uint256)", violator, made["eWETH"], repay, 0),
        ),
        (made["eUSDC"], liquidator, 0, W._data("repay(uint256,address)", MAX, liquidator)),
    ]
    receipt = node.send(made["evc"], BATCH, items, sender=liquidator)
    block = _block(receipt)
    seized = before - node.call(made["eWETH"], "balanceOf(address)", violator, block=block)
    return receipt, node.call(made["eWETH"], "convertToAssets(uint256)", seized, block=block)


def _word(receipt: dict[str, Any], topic: str, word: int) -> int:
    (entry,) = [log for log in receipt["logs"] if log["topics"][0] == topic]
    return int(entry["data"][2 + 64 * word : 2 + 64 * (word + 1)], 16)


async def test_each_accounts_flows_are_its_actions_and_its_earnings_add_up(euler: EulerFlows) -> None:
    node, world, made = euler.node, euler.world, euler.world.contracts
    owner, borrower, lender, liquidator = world.owner, world.sub(1), world.sub(2), euler.liquidator
    usdc, weth, e_usdc, e_weth = made["USDC"], made["WETH"], made["eUSDC"], made["eWETH"]
    debt = f"{e_usdc}:borrow"
    expected: dict[str, list[tuple[str, str, int, int]]] = {owner: [], borrower: [], lender: [], liquidator: []}

    def on_behalf(vault: str, account: str, signature: str, *args: Any) -> int:
        """The owner acts for one of its accounts through the EVC, as Euler's app does: the block."""
        return _block(node.send(made["evc"], CALL, vault, account, 0, W._data(signature, *args), sender=owner))

    node.send(usdc, "mint(address,uint256)", owner, 10_000 * W.USDC)
    node.send(weth, "mint(address,uint256)", owner, 2 * W.ETHER)
    start = node.block_number()
    block = on_behalf(e_usdc, owner, "deposit(uint256,address)", 5_000 * W.USDC, lender)
    expected[lender].append((e_usdc, "deposit", 5_000 * W.USDC, block))
    node.rpc("evm_increaseTime", 30 * 86_400)
    block = on_behalf(e_usdc, lender, "withdraw(uint256,address,address)", 2_000 * W.USDC, owner, lender)
    expected[lender].append((e_usdc, "withdraw", -2_000 * W.USDC, block))
    shares = node.call(e_usdc, "balanceOf(address)", lender) // 10
    block = on_behalf(e_usdc, lender, "transfer(address,uint256)", owner, shares)
    sent = node.call(e_usdc, "convertToAssets(uint256)", shares, block=block)
    expected[lender].append((e_usdc, "transfer-out", -sent, block))
    expected[owner].append((e_usdc, "transfer-in", sent, block))
    block = on_behalf(e_weth, owner, "deposit(uint256,address)", 2 * W.ETHER, borrower)
    expected[borrower].append((e_weth, "deposit", 2 * W.ETHER, block))
    block = on_behalf(e_usdc, borrower, "borrow(uint256,address)", 1_000 * W.USDC, owner)
    expected[borrower].append((debt, "borrow", 1_000 * W.USDC, block))
    node.rpc("evm_increaseTime", 30 * 86_400)
    block = _block(node.send(e_usdc, "repay(uint256,address)", 3_000 * W.USDC, borrower, sender=owner))
    expected[borrower].append((debt, "repay", -3_000 * W.USDC, block))

    _set_weth(euler, 1_700)  # 12 WETH at 85 % no longer cover about 18,400 USDC
    receipt, value = _liquidated(euler, borrower, 5_000 * W.USDC)
    block = _block(receipt)
    expected[borrower] += [
        (debt, "liquidation-repaid", -5_000 * W.USDC, block),
        (e_weth, "liquidation-seized", -value, block),
    ]
    expected[liquidator] += [
        (debt, "liquidator-debt", 5_000 * W.USDC, block),
        (e_weth, "liquidator-yield", value, block),
        (debt, "repay", -5_000 * W.USDC, block),
    ]
    _set_weth(euler, 500)  # all its WETH now covers less than the debt: the rest is socialised
    receipt, value = _liquidated(euler, borrower, MAX)
    block = _block(receipt)
    repaid, socialised = _word(receipt, C.LIQUIDATE.topic, 1), _word(receipt, C.DEBT_SOCIALIZED.topic, 0)
    assert node.call(e_weth, "balanceOf(address)", borrower, block=block) == 0 < socialised
    assert node.call(e_usdc, "debtOf(address)", borrower, block=block) == 0
    expected[borrower] += [
        (debt, "liquidation-repaid", -repaid, block),
        (e_weth, "liquidation-seized", -value, block),
        (debt, "bad-debt", -socialised, block),
    ]
    expected[liquidator] += [
        (debt, "liquidator-debt", repaid, block),
        (e_weth, "liquidator-yield", value, block),
        (debt, "repay", -repaid, block),
    ]
    node.mine(1)
    end = node.block_number()

    accounts = [owner, borrower, lender, liquidator]
    inputs = [{"protocol": "euler", "chainId": node.chain_id, "walletAddress": account} for account in accounts]
    async with Service(euler.folder, euler.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 3}
        entries = (await ask(service, inputs, **arguments))["data"]
    for account, entry in zip(accounts, entries):
        flows = [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]]
        assert flows == expected[account], account
        assert [w for w in entry["warnings"] if w["code"].startswith("FLOWS")] == [], entry["warnings"]
        for flow in entry["flows"]:
            feed = node.call(
                made[f"{'USDC' if flow['asset'] == usdc else 'WETH'}/USD"], "latestAnswer()", block=flow["blockNumber"]
            )
            decimals = 6 if flow["asset"] == usdc else 18
            assert flow["amountUsd"] == pytest.approx(int(flow["amount"]) * feed / 10**8 / 10**decimals, rel=1e-12)
        rows = {row["position"]: row for row in entry["earnings"]}
        for row in rows.values():
            earned_adds_up(row)
        if e_weth in rows:
            assert abs(int(rows[e_weth]["earned"])) <= 2, "a vault without borrows earns nothing"
        adds_up_in_usd(entry)
    borrowed = {row["position"]: row for row in entries[1]["earnings"]}[debt]
    assert borrowed["endAmount"] == "0" and int(borrowed["earned"]) < 0, "the interest it paid"


def test_the_test_vault_declares_evks_events_as_the_flows_read_them():
    """EVK's events as src/EVault/shared/Events.sol declares them (which fields are indexed), in
    the test vault whose emits the flows test reads; pullDebt, and so PullDebt, is left out."""
    declared = {
        f"{e['name']}({','.join(i['type'] for i in e['inputs'])})": [i["indexed"] for i in e["inputs"]]
        for e in W.compile_all()["TestEVault"].abi
        if e["type"] == "event"
    }
    indexed = {
        DEPOSIT: [True, True, False, False],
        WITHDRAW: [True, True, True, False, False],
        TRANSFER: [True, True, False],
        C.BORROW: [True, False],
        C.REPAY: [True, False],
        C.LIQUIDATE: [True, True, False, False, False],
        C.DEBT_SOCIALIZED: [True, False],
    }
    assert {event.signature: flags for event, flags in indexed.items()} == {
        event.signature: declared.get(event.signature) for event in indexed
    }
    assert C.PULL_DEBT.signature not in declared
