"""Flows and earnings of Liquity v1 positions in `positionsHistory` (adapters/liquity/flows.py), on
the stand-ins of tests/liquity_world.py: the borrower adds ether and draws LUSD in one adjustment,
repays, withdraws ether, deposits in the Stability Pool and takes part out, gains ether from a
liquidation the pool absorbs and LQTY from its issuance, takes them all out, stakes the LQTY,
takes its fee gain out with its stake, and closes its trove. Each flow is what the wallet moved:
the events' new figures against those before, the borrowing fee and the gas compensation left
out of the debt's; every leg's earnings add up: the debt's is the gas compensation the closing
repaid less the fee paid."""

from __future__ import annotations

from pathlib import Path

import auth
from tests import liquity_world as L
from tests.evm import Anvil
from tests.test_history_flows import adds_up_in_usd, ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service

ETHER = L.ETHER
GAS = 200 * ETHER


class LiquityFlows:
    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = L.build(self.node)
        self.wallet = self.world.wallets["borrower"]
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "liquity-flows")[0]


liquity = chain_fixture(LiquityFlows)


async def test_the_events_new_figures_are_the_flows_and_earnings_add_up(liquity: LiquityFlows) -> None:
    node, world, wallet = liquity.node, liquity.world, liquity.wallet
    tm, sp, staking = world.trove_manager, world.stability_pool, world.lqty_staking
    bo, zero = world.borrower_operations, L.ZERO
    expected: list[tuple[str, str, int]] = []
    start = node.block_number()
    adjust = "adjustTrove(uint256,uint256,uint256,bool,address,address)"
    data = L.calldata(adjust, L.MAX_BORROWING_FEE, 0, 1_000 * ETHER, True, zero, zero)
    owed = node.call(tm, "getTroveDebt(address)", wallet)
    node.transact({"to": bo, "data": "0x" + data.hex(), "value": hex(ETHER)}, wallet)
    fee = node.call(tm, "getTroveDebt(address)", wallet) - owed - 1_000 * ETHER
    assert fee > 0
    expected += [(f"{tm}:collateral", "deposit", ETHER), (f"{tm}:debt", "borrow", 1_000 * ETHER)]
    node.send(bo, "repayLUSD(uint256,address,address)", 500 * ETHER, zero, zero, sender=wallet)
    node.send(bo, "withdrawColl(uint256,address,address)", ETHER // 2, zero, zero, sender=wallet)
    expected += [(f"{tm}:debt", "repay", -500 * ETHER), (f"{tm}:collateral", "withdraw", -(ETHER // 2))]
    L.provide(world, wallet, 1_000 * ETHER)
    L.pass_time(node, 3_600)  # LQTY issued to the pool's depositors
    held = node.call(world.lqty, "balanceOf(address)", wallet)
    node.send(sp, "withdrawFromSP(uint256)", 400 * ETHER, sender=wallet)
    early = node.call(world.lqty, "balanceOf(address)", wallet) - held
    assert early > 0
    expected += [(f"{sp}:deposit", "deposit", 1_000 * ETHER), (f"{sp}:lqty-gain", "claim", -early)]
    expected.append((f"{sp}:deposit", "withdraw", -400 * ETHER))
    victim = node.accounts[12]
    L.open_trove(world, victim, ETHER, 2_000 * ETHER)
    L.set_price(world, L.CRASH_USD)
    L.liquidate(world, victim, node.accounts[0])
    L.set_price(world, L.ETH_USD)
    gain, deposit = (
        node.call(sp, f"{view}(address)", wallet) for view in ("getDepositorETHGain", "getCompoundedLUSDDeposit")
    )
    assert gain > 0 and deposit < 600 * ETHER, "the liquidation's gain and loss"
    held = node.call(world.lqty, "balanceOf(address)", wallet)
    node.send(sp, "withdrawFromSP(uint256)", 10**6 * ETHER, sender=wallet)
    lqty = node.call(world.lqty, "balanceOf(address)", wallet) - held
    expected += [
        (f"{sp}:lqty-gain", "claim", -lqty),
        (f"{sp}:deposit", "withdraw", -deposit),
        (f"{sp}:eth-gain", "claim", -gain),
    ]
    lqty += early
    L.stake(world, wallet, lqty)
    expected.append((f"{staking}:stake", "stake", lqty))
    lender = node.accounts[11]
    L.open_trove(world, lender, 10 * ETHER, 3_000 * ETHER)  # its fee: the stake's LUSD gain
    fees = node.call(staking, "getPendingLUSDGain(address)", wallet)
    node.send(staking, "unstake(uint256)", lqty, sender=wallet)
    expected += [(f"{staking}:lusd-gain", "claim", -fees), (f"{staking}:stake", "unstake", -lqty)]
    node.send(world.lusd, "transfer(address,uint256)", wallet, 3_000 * ETHER, sender=lender)
    debt, coll = (node.call(tm, f"{view}(address)", wallet) for view in ("getTroveDebt", "getTroveColl"))
    node.send(bo, "closeTrove()", sender=wallet)
    expected += [(f"{tm}:collateral", "close", -coll), (f"{tm}:debt", "close", -(debt - GAS))]
    end = node.block_number()
    inputs = [{"protocol": "liquity", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(liquity.folder, liquity.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    flows = [(f["position"], f["kind"], int(f["amount"])) for f in entry["flows"]]
    assert sorted(flows) == sorted(flow for flow in expected if flow[2]), "none of amount 0"
    assert not [w for w in entry["warnings"] if w["code"] in ("FLOWS_UNAVAILABLE", "FLOWS_UNPRICED")]
    assert all(f["amountUsd"] is not None for f in entry["flows"]), (
        "ether at the PriceFeed's, LUSD at 1, LQTY by its feed"
    )
    rows = {row["position"]: row for row in entry["earnings"]}
    for row in rows.values():
        earned_adds_up(row)
    assert int(rows[f"{tm}:debt"]["earned"]) == GAS - fee, "the gas compensation repaid at closing, the fee paid"
    assert int(rows[f"{sp}:deposit"]["earned"]) < 0 < int(rows[f"{sp}:eth-gain"]["earned"]), "the loss, the gain"
    adds_up_in_usd(entry)


async def test_a_redemption_and_a_liquidation_take_out_what_they_took(liquity: LiquityFlows) -> None:
    """From the world's start: `redeemed` opened 2 ETH / 3,600 LUSD and a redemption closed it,
    its leftover ether CollSurplusPool's; `liquidated` opened 1 ETH / 2,000 and lost it all. The
    redeemed debt's earnings are its fee alone (the closing repaid the gas compensation), the
    liquidated one's the fee and the gas compensation; the collateral earns nothing."""
    node, world = liquity.node, liquity.world
    tm, surplus_pool = world.trove_manager, world.coll_surplus_pool
    redeemed, liquidated = world.wallets["redeemed"], world.wallets["liquidated"]
    surplus = node.call(surplus_pool, "getCollateral(address)", redeemed)
    inputs = [{"protocol": "liquity", "chainId": node.chain_id, "walletAddress": w} for w in (redeemed, liquidated)]
    async with Service(liquity.folder, liquity.key, node) as service:
        arguments = {"from": {"blockNumber": world.start_block}, "to": {"blockNumber": node.block_number()}}
        closed, lost = (await ask(service, inputs, points=2, **arguments))["data"]
    coll, drawn = L.TROVES["redeemed"]
    assert [(f["position"], f["kind"], int(f["amount"])) for f in closed["flows"]] == [
        (f"{tm}:collateral", "open", coll),
        (f"{tm}:debt", "open", drawn),
        (f"{tm}:surplus", "surplus", surplus),  # CollSurplusPool's account comes before the trove's event
        (f"{tm}:collateral", "redemption", -coll),
        (f"{tm}:debt", "redemption", -(drawn + drawn // 200)),
    ]
    coll, drawn = L.TROVES["liquidated"]
    assert [(f["position"], f["kind"], int(f["amount"])) for f in lost["flows"]] == [
        (f"{tm}:collateral", "open", coll),
        (f"{tm}:debt", "open", drawn),
        (f"{tm}:collateral", "liquidation", -coll),
        (f"{tm}:debt", "liquidation", -(drawn + drawn // 200 + GAS)),
    ]
    for entry, cost in ((closed, 18 * ETHER), (lost, 10 * ETHER + GAS)):
        rows = {row["position"]: row for row in entry["earnings"]}
        for row in rows.values():
            earned_adds_up(row)
        assert int(rows[f"{tm}:debt"]["earned"]) == -cost and int(rows[f"{tm}:collateral"]["earned"]) == 0, rows
        assert all(f["amountUsd"] is not None for f in entry["flows"])
