"""Flows and earnings of Venus positions (adapters/venus/flows.py) in `positionsHistory`, on
Venus's own contracts (tests/venus_world.py): the borrower supplies more ETH, borrows and repays
USDT, redeems ETH, sends vETH to the saver, claims its XVS, mints and repays VAI; then, in the
isolated pool that counts seconds (whose vTokens index the account), supplies more wstETH, borrows
and repays WETH, redeems wstETH and claims its distributor's XVS. Each flow is the
vToken's (or the VAIController's) own event at the block it was emitted, with the underlying amount
it names; the vETH sent is its tokens at the stored exchange rate; the claim is what the XVS
balance grew by; every leg's earnings add up, and the debts' interest is paid (negative)."""

from __future__ import annotations

from pathlib import Path

import auth
from tests import venus_pools_world as P
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
    expected += isolated(venus)
    node.rpc("evm_increaseTime", 600)  # interest on the isolated debt, which counts seconds
    node.mine(200)  # and on the others
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
    weth = world.pools.pools["Liquid Staked ETH"].markets["WETH"]
    assert int(rows[f"{weth.vtoken}:borrow"]["earned"]) < 0, "and the isolated pool's"


def isolated(venus: VenusFlows) -> list[tuple[str, str, int]]:
    """The isolated pool's actions, each through its own entry points, and the flows they make."""
    node, world, wallet = venus.node, venus.world, venus.wallet
    found = world.pools.pools["Liquid Staked ETH"]
    wsteth, weth = found.markets["wstETH"], found.markets["WETH"]
    P.supply(node, world.pools, "wstETH", ETHER, wallet)
    P.borrow(node, world.pools, "WETH", ETHER // 2, wallet)
    node.send(weth.underlying, "approve(address,uint256)", weth.vtoken, 2**256 - 1, sender=wallet)
    node.send(weth.vtoken, "repayBorrow(uint256)", ETHER // 4, sender=wallet)
    held = node.call(wsteth.underlying, "balanceOf(address)", wallet)
    node.send(wsteth.vtoken, "redeemUnderlying(uint256)", ETHER // 3, sender=wallet)
    redeemed = node.call(wsteth.underlying, "balanceOf(address)", wallet) - held
    assert 0 <= redeemed - ETHER // 3 < 10**10, "the vTokens it burns, rounded up, are worth a little more"
    before = node.call(world.xvs, "balanceOf(address)", wallet)
    node.send(found.distributor, "claimRewardToken(address)", wallet, sender=wallet)
    paid = node.call(world.xvs, "balanceOf(address)", wallet) - before
    assert paid > 0
    return [
        (f"{wsteth.vtoken}:supply", "supply", ETHER),
        (f"{weth.vtoken}:borrow", "borrow", ETHER // 2),
        (f"{weth.vtoken}:borrow", "repay", -(ETHER // 4)),
        (f"{wsteth.vtoken}:supply", "withdraw", -redeemed),
        (f"{found.comptroller}:{found.distributor}:{world.xvs}:rewards", "claim", -paid),
    ]
