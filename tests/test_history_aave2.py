"""Flows and earnings of Aave v2 positions (adapters/aave/flows.py) in `positionsHistory`, on
Aave's own v2 contracts (tests/aave2_world.py): the borrower deposits, borrows at a variable and at
a stable rate, repays part of each, withdraws, sends aTokens to the saver and claims its RWD from
the aave-stake controller. Each flow is v2's own event (`Deposit`, `Borrow` with its uint256 rate
mode, `Repay` with no aToken flag, v2's `RewardsClaimed` naming no reward) at the block it was
emitted, with the amount the contracts moved; the ETH market's flows are valued through the ETH/USD
feed, as its positions are; every leg's earnings add up."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import auth
from tests import aave2_world as W
from tests.evm import Anvil
from tests.test_history_flows import ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service


class Aave2Flows:
    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = W.build(self.node)
        self.wallet, self.other = self.world.wallets["borrower"], self.world.wallets["saver"]
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "aave2-flows")[0]


aave2 = chain_fixture(Aave2Flows)


async def test_v2_events_are_the_flows_and_earnings_add_up(aave2: Aave2Flows) -> None:
    node, wallet, (eth, _) = aave2.node, aave2.wallet, aave2.world.markets
    pool, incentives = eth.pool, eth.incentives
    assert incentives is not None
    tokens = {symbol: eth.tokens[symbol] for symbol in ("WETH", "USDC", "DAI")}
    expected: list[tuple[str, str, int]] = []

    def leg(symbol: str, side: str) -> str:
        return f"{pool}:{tokens[symbol]}:{side}"

    start = node.block_number()
    W.deposit(node, eth, "WETH", 2 * W.ETHER, wallet)
    expected.append((leg("WETH", "supply"), "supply", 2 * W.ETHER))
    W.borrow(node, eth, "USDC", 1_000 * W.USDC, W.VARIABLE, wallet)
    expected.append((leg("USDC", "borrow"), "borrow", 1_000 * W.USDC))
    W.borrow(node, eth, "DAI", 500 * W.ETHER, W.STABLE, wallet)
    expected.append((leg("DAI", "borrow"), "borrow", 500 * W.ETHER))
    for symbol, amount, mode in (("USDC", 400 * W.USDC, W.VARIABLE), ("DAI", 100 * W.ETHER, W.STABLE)):
        node.send(tokens[symbol], "approve(address,uint256)", pool, 2**256 - 1, sender=wallet)
        node.send(pool, "repay(address,uint256,uint256,address)", tokens[symbol], amount, mode, wallet, sender=wallet)
        expected.append((leg(symbol, "borrow"), "repay", -amount))
    node.send(pool, "withdraw(address,uint256,address)", tokens["WETH"], W.ETHER // 2, wallet, sender=wallet)
    expected.append((leg("WETH", "supply"), "withdraw", -(W.ETHER // 2)))
    node.send(eth.atokens["WETH"], "transfer(address,uint256)", aave2.other, W.ETHER // 4, sender=wallet)
    expected.append((leg("WETH", "supply"), "transfer-out", -(W.ETHER // 4)))
    earning = [eth.atokens["WETH"], eth.variable_debt["USDC"]]
    before = node.call(incentives.reward, "balanceOf(address)", wallet)
    node.send(
        incentives.controller,
        "claimRewards(address[],uint256,address,bool)",
        earning,
        2**256 - 1,
        wallet,
        False,
        sender=wallet,
    )
    paid = node.call(incentives.reward, "balanceOf(address)", wallet) - before
    assert paid > 0
    expected.append((f"{incentives.controller}:{incentives.reward}:rewards", "claim", -paid))
    node.rpc("evm_increaseTime", W.ELAPSED)  # so that the debts' interest shows
    node.mine(1)
    end = node.block_number()
    inputs = [{"protocol": "aave", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(aave2.folder, aave2.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    flows = [(f["position"], f["kind"], int(f["amount"])) for f in entry["flows"]]
    assert flows == expected
    assert not [w for w in entry["warnings"] if w["code"] in ("FLOWS_UNAVAILABLE", "PRICE_UNAVAILABLE")]
    eth_usd = Fraction(W.ETH_USD, 10**8)
    for flow in entry["flows"]:
        if flow["position"] == leg("WETH", "supply"):
            assert flow["amountUsd"] == pytest.approx(float(int(flow["amount"]) * eth_usd / 10**18), rel=1e-12)
    rows = {row["position"]: row for row in entry["earnings"]}
    for row in rows.values():
        earned_adds_up(row)
    assert int(rows[leg("DAI", "borrow")]["earned"]) < 0 and int(rows[leg("USDC", "borrow")]["earned"]) < 0, (
        "the stable and the variable interest paid"
    )
