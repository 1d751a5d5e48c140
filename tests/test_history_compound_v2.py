"""Flows and earnings of Compound v2 positions in `positionsHistory` (adapters/compound_v2/flows.py,
through adapters/venus/flows.py), on the stand-ins of tests/compound_v2_world.py: the borrower
supplies more ETH to cETH, borrows and repays USDC, redeems ETH, sends cETH to the saver and
claims its COMP. Each flow is the cToken's own event with the amount it names (the cETH sent:
its tokens at the stored exchange rate; the claim: what the COMP balance grew by); every leg's
earnings add up, and the debts' interest is paid (negative)."""

from __future__ import annotations

from pathlib import Path

import auth
from tests import compound_v2_world as C
from tests.evm import Anvil
from tests.test_history_flows import ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service

ETHER = C.ETHER


class CompoundV2Flows:
    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = C.build(self.node)
        self.wallet, self.other = self.world.wallets["borrower"], self.world.wallets["saver"]
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "compound-v2-flows")[0]


compound = chain_fixture(CompoundV2Flows)


async def test_the_ctokens_events_are_the_flows_and_earnings_add_up(compound: CompoundV2Flows) -> None:
    node, world, wallet = compound.node, compound.world, compound.wallet
    eth, usdc = world.markets["ETH"], world.markets["USDC"]
    expected: list[tuple[str, str, int]] = []
    start = node.block_number()
    C.supply(node, world, "ETH", 2 * ETHER, wallet)
    expected.append((f"{eth.ctoken}:supply", "supply", 2 * ETHER))
    C.borrow(node, world, "USDC", 1_000 * 10**6, wallet)
    expected.append((f"{usdc.ctoken}:borrow", "borrow", 1_000 * 10**6))
    node.send(usdc.underlying, "approve(address,uint256)", usdc.ctoken, 2**256 - 1, sender=wallet)
    node.send(usdc.ctoken, "repayBorrow(uint256)", 400 * 10**6, sender=wallet)
    expected.append((f"{usdc.ctoken}:borrow", "repay", -400 * 10**6))
    node.send(eth.ctoken, "redeemUnderlying(uint256)", ETHER // 2, sender=wallet)
    expected.append((f"{eth.ctoken}:supply", "withdraw", -(ETHER // 2)))
    tokens = node.call(eth.ctoken, "balanceOf(address)", wallet) // 10
    node.send(eth.ctoken, "transfer(address,uint256)", compound.other, tokens, sender=wallet)
    rate = node.call(eth.ctoken, "exchangeRateStored()")
    expected.append((f"{eth.ctoken}:supply", "transfer-out", -(tokens * rate // ETHER)))
    before = node.call(world.comp, "balanceOf(address)", wallet)
    node.send(world.comptroller, "claimComp(address)", wallet, sender=wallet)
    paid = node.call(world.comp, "balanceOf(address)", wallet) - before
    assert paid > 0
    expected.append((f"{world.comptroller}:{world.comp}:rewards", "claim", -paid))
    node.mine(200)  # interest on the debts
    end = node.block_number()
    inputs = [{"protocol": "compound-v2", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(compound.folder, compound.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    flows = [(f["position"], f["kind"], int(f["amount"])) for f in entry["flows"]]
    assert flows == expected
    assert not [w for w in entry["warnings"] if w["code"] in ("FLOWS_UNAVAILABLE", "FLOWS_UNPRICED")]
    assert all(f["amountUsd"] is not None for f in entry["flows"]), "every flow priced, COMP by cCOMP's price"
    rows = {row["position"]: row for row in entry["earnings"]}
    for row in rows.values():
        earned_adds_up(row)
    assert int(rows[f"{usdc.ctoken}:borrow"]["earned"]) < 0, "the borrow's interest, paid"
