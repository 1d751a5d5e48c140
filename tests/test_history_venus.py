"""Flows and earnings of Venus positions (adapters/venus/flows.py) in `positionsHistory`, on
Venus's own contracts (tests/venus_world.py): the borrower supplies more ETH, borrows and repays
USDT, redeems ETH, sends vETH to the saver, claims its XVS, mints and repays VAI. Each flow is the
vToken's (or the VAIController's) own event at the block it was emitted, with the underlying amount
it names; the vETH sent is its tokens at the stored exchange rate; the claim is what the XVS
balance grew by; every leg's earnings add up, and the debts' interest is paid (negative)."""

from __future__ import annotations

from pathlib import Path

import auth
from tests import venus_world as V
from tests.evm import Anvil
from tests.test_history_flows import ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service

ETHER = V.ETHER


class VenusFlows:
    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = V.build(self.node)
        self.wallet, self.other = self.world.wallets["borrower"], self.world.wallets["saver"]
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "venus-flows")[0]


venus = chain_fixture(VenusFlows)


async def test_the_markets_events_are_the_flows_and_earnings_add_up(venus: VenusFlows) -> None:
    node, world, wallet = venus.node, venus.world, venus.wallet
    usdt, eth = world.markets["USDT"], world.markets["ETH"]
    expected: list[tuple[str, str, int]] = []
    start = node.block_number()
    V.supply(node, world, "ETH", 2 * ETHER, wallet)
    expected.append((f"{eth.vtoken}:supply", "supply", 2 * ETHER))
    V.borrow(node, world, "USDT", 1_000 * ETHER, wallet)
    expected.append((f"{usdt.vtoken}:borrow", "borrow", 1_000 * ETHER))
    node.send(usdt.underlying, "approve(address,uint256)", usdt.vtoken, 2**256 - 1, sender=wallet)
    V.succeed(node, usdt.vtoken, "repayBorrow(uint256)", 400 * ETHER, sender=wallet)
    expected.append((f"{usdt.vtoken}:borrow", "repay", -400 * ETHER))
    V.succeed(node, eth.vtoken, "redeemUnderlying(uint256)", ETHER // 2, sender=wallet)
    expected.append((f"{eth.vtoken}:supply", "withdraw", -(ETHER // 2)))
    tokens = node.call(eth.vtoken, "balanceOf(address)", wallet) // 10
    node.send(eth.vtoken, "transfer(address,uint256)", venus.other, tokens, sender=wallet)
    rate = node.call(eth.vtoken, "exchangeRateStored()")
    expected.append((f"{eth.vtoken}:supply", "transfer-out", -(tokens * rate // ETHER)))
    before = node.call(world.xvs, "balanceOf(address)", wallet)
    node.send(world.comptroller, "claimVenus(address)", wallet, sender=wallet)
    paid = node.call(world.xvs, "balanceOf(address)", wallet) - before
    expected.append((f"{world.comptroller}:{world.xvs}:rewards", "claim", -paid))
    V.succeed(node, world.vai_controller, "mintVAI(uint256)", 100 * ETHER, sender=wallet)
    expected.append((f"{world.vai_controller}:borrow", "borrow", 100 * ETHER))
    node.send(world.vai, "approve(address,uint256)", world.vai_controller, 2**256 - 1, sender=wallet)
    held = node.call(world.vai, "balanceOf(address)", wallet)
    node.send(world.vai_controller, "repayVAI(uint256)", 50 * ETHER, sender=wallet)
    repaid = held - node.call(world.vai, "balanceOf(address)", wallet)
    assert 0 < 50 * ETHER - repaid < 10**6, "what the controller computes it can take of 50 VAI"
    expected.append((f"{world.vai_controller}:borrow", "repay", -repaid))
    node.mine(200)  # interest on the debts
    end = node.block_number()
    inputs = [{"protocol": "venus", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(venus.folder, venus.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    flows = [(f["position"], f["kind"], int(f["amount"])) for f in entry["flows"]]
    assert flows == expected
    assert not [w for w in entry["warnings"] if w["code"] in ("FLOWS_UNAVAILABLE", "FLOWS_UNPRICED")]
    rows = {row["position"]: row for row in entry["earnings"]}
    for row in rows.values():
        earned_adds_up(row)
    assert int(rows[f"{usdt.vtoken}:borrow"]["earned"]) < 0, "the borrow's interest, paid"
