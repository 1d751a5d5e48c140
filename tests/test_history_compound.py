"""Flows and earnings of Compound v3 positions (adapters/compound/flows.py) in `positionsHistory`,
on the Comet test contract whose account changes keep Comet's signed principal and emit Comet's
events as Comet.sol does (tests/contracts/TestComet.sol; the events are held to Compound's
published ABI below). For random sequences of supplies, withdrawals into a borrow, repayments,
base and collateral transfers, interest accruing and absorptions (hypothesis), the flows are
exactly what Comet's own arithmetic (modelled here) moved, and each position's earnings add up."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import auth
from adapters.compound import contracts as comet
from chain.abi import Event
from tests import compound_world as C
from tests.conftest import examples
from tests.evm import SDKS, Anvil
from tests.test_history_flows import Expected, _block, ask, chain_fixture, earned_adds_up, taken
from tests.test_past_blocks import Service

SCALE = 10**15
"""Comet's BASE_INDEX_SCALE."""
ROUNDING = 2


class CompoundFlows:
    """Compound's test world; the borrower acts in the USDC market (COMP as its collateral), the
    saver is the other side of its transfers."""

    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = C.build(self.node)
        self.market = self.world.usdc_market.lower()
        self.usdc, self.comp = self.world.tokens["USDC"].lower(), self.world.tokens["COMP"].lower()
        self.wallet, self.other = self.world.wallets["borrower"], self.world.wallets["saver"]
        self.node.send(self.market, "setAccount(address,uint256,uint256)", self.other, 10**9 * C.USDC, 0)
        self.node.send(self.market, "supplyTo(address,address,uint256)", self.other, self.comp, 10**24)
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "compound-flows")[0]

    def indexes(self) -> tuple[int, int]:
        return (
            self.node.call(self.market, "baseSupplyIndex()"),
            self.node.call(self.market, "baseBorrowIndex()"),
        )


compound = chain_fixture(CompoundFlows)


def present(principal: int, indexes: tuple[int, int]) -> int:
    """CometCore.presentValue."""
    supply, borrow = indexes
    return principal * supply // SCALE if principal >= 0 else -(-principal * borrow // SCALE)


def principal_of(value: int, indexes: tuple[int, int]) -> int:
    """CometCore.principalValue: a supply's rounded down, a borrow's up."""
    supply, borrow = indexes
    return value * SCALE // supply if value >= 0 else -((-value * SCALE + borrow - 1) // borrow)


def supplied_part(old: int, new: int) -> int:
    """Comet.repayAndSupplyAmount's supply amount (a principal)."""
    return 0 if new < old or new <= 0 else new - max(old, 0)


def withdrawn_part(old: int, new: int) -> int:
    """Comet.withdrawAndBorrowAmount's withdraw amount (a principal)."""
    return 0 if new > old or old <= 0 else old - max(new, 0)


def compound_act(flows: CompoundFlows, action: tuple[str, int], expected: Expected) -> None:
    """One action on the USDC market and the flows Comet's arithmetic says it makes."""
    node, market, wallet, usdc, comp = flows.node, flows.market, flows.wallet, flows.usdc, flows.comp
    kind, size = action
    amount, indexes = size * C.USDC, flows.indexes()
    old = node.call(market, "principals(address)", wallet, returns=("int104",))
    collateral = node.call(market, "collateralBalanceOf(address,address)", wallet, comp, returns=("uint128",))
    supply, borrow, held = f"{market}:supply", f"{market}:borrow", f"{market}:{comp}:collateral"

    def base(move: int, sender: str, function: str, *args: Any) -> tuple[int, int, int]:
        """Send a base move of `move` (signed, to the wallet's balance) and give the block, the
        present value of the supply principal it added (or took) and the rest."""
        new = principal_of(present(old, indexes) + move, indexes)
        part = supplied_part(old, new) if move > 0 else withdrawn_part(old, new)
        moved = part * indexes[0] // SCALE
        return _block(node.send(market, function, *args, sender=sender)), moved, abs(move) - moved

    if kind == "supply":
        block, moved, rest = base(amount, wallet, "supplyTo(address,address,uint256)", wallet, usdc, amount)
        expected.flows += [(borrow, "repay", -rest, block)] if rest > ROUNDING else []
        expected.flows += [(supply, "supply", moved, block)] if moved else []
    elif kind == "withdraw":
        block, moved, rest = base(-amount, wallet, "withdrawTo(address,address,uint256)", wallet, usdc, amount)
        expected.flows += [(borrow, "borrow", rest, block)] if rest > ROUNDING else []
        expected.flows += [(supply, "withdraw", -moved, block)] if moved else []
    elif kind == "send" and present(old, indexes) > 0:
        amount = present(old, indexes) // 3 or 1
        block, moved, _ = base(-amount, wallet, "transferAsset(address,address,uint256)", flows.other, usdc, amount)
        expected.flows.append((supply, "transfer-out", -moved, block))
    elif kind == "receive" and old >= 0:  # a transfer that repays a debt has no event of it: not asked
        block, moved, _ = base(amount, flows.other, "transferAsset(address,address,uint256)", wallet, usdc, amount)
        expected.flows.append((supply, "transfer-in", moved, block))
    elif kind == "collateral-in":
        tokens = size * 10**17
        receipt = node.send(market, "supplyTo(address,address,uint256)", wallet, comp, tokens, sender=wallet)
        expected.flows.append((held, "collateral-in", tokens, _block(receipt)))
    elif kind in ("collateral-out", "collateral-send") and collateral:
        taken = collateral // 3 or collateral
        if kind == "collateral-out":
            receipt = node.send(market, "withdrawTo(address,address,uint256)", wallet, comp, taken, sender=wallet)
            expected.flows.append((held, "collateral-out", -taken, _block(receipt)))
        else:
            call = "transferAsset(address,address,uint256)"
            receipt = node.send(market, call, flows.other, comp, taken, sender=wallet)
            expected.flows.append((held, "transfer-out", -taken, _block(receipt)))
    elif kind == "accrue":
        grown = (indexes[0] + indexes[0] * size // 100_000, indexes[1] + indexes[1] * size // 50_000)
        node.send(market, "setIndexes(uint64,uint64)", *grown)
    elif kind == "absorb" and old < 0 and collateral:
        _absorb(flows, -present(old, indexes), collateral, size % 2 == 0, expected)


def _absorb(flows: CompoundFlows, debt: int, collateral: int, excess: bool, expected: Expected) -> None:
    """COMP's price dropped until the borrower can be liquidated (its collateral worth more than
    the debt after the liquidation factor if `excess`, less if not), absorbed, the price restored."""
    node, market, wallet, comp, indexes = flows.node, flows.market, flows.wallet, flows.comp, flows.indexes()
    feed = flows.world.feeds["COMP"]
    price = debt * 10**22 // (collateral * 80 if excess else collateral * 200)  # USD per COMP, 8 decimals
    timestamp = int(node.rpc("eth_getBlockByNumber", "latest", False)["timestamp"], 16)
    node.send(feed, "set(int256,uint256)", max(price, 1), timestamp)
    old = node.call(market, "principals(address)", wallet, returns=("int104",))
    value = collateral * max(price, 1) // 10**18
    credited = present(old, indexes) + value * 95 // 100 * C.USDC // 10**8
    new = principal_of(max(credited, 0), indexes)
    paid = max(credited, 0) - present(old, indexes)
    moved = new * indexes[0] // SCALE if new > 0 else 0
    receipt = node.send(market, "absorb(address,address[])", flows.other, [wallet], sender=flows.other)
    block = _block(receipt)
    expected.flows.append((f"{market}:{comp}:collateral", "liquidation-seized", -collateral, block))
    expected.flows.append((f"{market}:borrow", "liquidation-repaid", -(paid - moved), block))
    expected.flows += [(f"{market}:supply", "liquidation-credit", moved, block)] if moved else []
    node.send(feed, "set(int256,uint256)", C.PRICES["COMP"], timestamp)


KINDS = ["supply", "withdraw", "send", "receive", "collateral-in", "collateral-out", "collateral-send"]


@settings(max_examples=examples(12), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    steps=st.lists(
        st.tuples(st.sampled_from([*KINDS, "accrue", "absorb"]), st.integers(1, 1_000)), min_size=1, max_size=8
    )
)
def test_compound_flows_follow_comets_arithmetic_and_earnings_add_up(
    compound: CompoundFlows, steps: list[tuple[str, int]]
) -> None:
    _check(compound, steps)


def test_every_kind_of_compound_flow(compound: CompoundFlows) -> None:
    """One sequence through every kind: a withdrawal into a borrow, a supply that repays and one
    that repays and supplies, interest, absorptions with and without a supply credited."""
    node, market = compound.node, compound.market
    node.send(market, "setAccount(address,uint256,uint256)", compound.wallet, 0, 0)  # a fresh account
    node.send(market, "setCollateral(address,address,uint128)", compound.wallet, compound.comp, 0)
    steps = [
        *[("collateral-in", 900), ("supply", 10), ("withdraw", 60), ("accrue", 700), ("supply", 20)],
        *[("supply", 100), ("send", 1), ("receive", 5), ("withdraw", 300), ("absorb", 2), ("collateral-in", 10)],
        *[("collateral-send", 1), ("collateral-out", 1), ("withdraw", 900), ("absorb", 1)],
    ]
    assert _check(compound, steps) == {
        *("supply", "withdraw", "borrow", "repay", "transfer-in", "transfer-out", "collateral-in", "collateral-out"),
        *("liquidation-seized", "liquidation-repaid", "liquidation-credit"),
    }


def _check(compound: CompoundFlows, steps: list[tuple[str, int]]) -> set[str]:
    """Take the steps, ask the series over them and check its flows and earnings; the kinds seen."""
    start, end, expected = taken(compound.node, steps, lambda step, expected: compound_act(compound, step, expected))
    entry = asyncio.run(_series(compound, start, end))
    flows = [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]]
    assert flows == expected.flows
    assert [w for w in entry["warnings"] if w["code"].startswith("FLOWS")] == []
    accrued = any(kind == "accrue" for kind, _ in steps)
    for row in entry["earnings"]:
        earned = earned_adds_up(row)
        rounding = ROUNDING * (1 + sum(1 for flow in entry["flows"] if flow["position"] == row["position"]))
        if row["position"].endswith(":collateral"):
            assert earned == 0, row
        elif row["debt"]:  # interest paid: at most rounding in the borrower's favour
            assert earned <= rounding and (accrued or earned >= -rounding), row
        else:
            assert earned >= -rounding and (accrued or earned <= rounding), row
    return {kind for _, kind, _, _ in flows}


async def _series(flows: CompoundFlows, start: int, end: int) -> dict[str, Any]:
    inputs = [{"protocol": "compound", "chainId": flows.node.chain_id, "walletAddress": flows.wallet}]
    async with Service(flows.folder, flows.key, flows.node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    return entry


async def test_compound_flows_are_valued_by_comets_prices(compound: CompoundFlows) -> None:
    """A flow's USD is Comet's price of its asset at its block, through the chain's ETH/USD feed
    in the ETH-quoted market, as the positions' own figures are."""
    node, world, wallet = compound.node, compound.world, compound.wallet
    start = node.block_number()
    expected = Expected()
    compound_act(compound, ("supply", 40), expected)
    weth_market, wbtc = world.weth_market.lower(), world.tokens["WBTC"].lower()
    node.send(weth_market, "supplyTo(address,address,uint256)", wallet, wbtc, 2 * 10**7, sender=wallet)
    node.mine(1)
    entry = await _series(compound, start, node.block_number())
    supplied, posted = entry["flows"]
    assert supplied["amountUsd"] == pytest.approx(int(supplied["amount"]) / C.USDC, rel=1e-12)
    wbtc_usd = C.IN_ETH["WBTC"] / 10**8 * C.PRICES["WETH"] / 10**8
    assert (posted["position"], posted["kind"]) == (f"{weth_market}:{wbtc}:collateral", "collateral-in")
    assert posted["amountUsd"] == pytest.approx(0.2 * wbtc_usd, rel=1e-12)
    (row,) = [row for row in entry["earnings"] if row["position"] == posted["position"]]
    assert row["netFlows"] == str(2 * 10**7) and row["earned"] == "0"
    assert row["pnlUsd"] == pytest.approx(0, abs=1e-9), "the flow and the position priced alike"


def test_comet_events_and_the_test_comets_match_compounds_published_abi() -> None:
    """The events the flows decode, and the test Comet's events and account changes, are Comet's."""
    path = SDKS / "@compound-finance" / "compound-js" / "dist" / "nodejs" / "comet-artifacts" / "comet-constants.json"
    published = _entries(json.loads(path.read_text())["abi"])
    events = [value for value in vars(comet).values() if isinstance(value, Event) and value is not comet.REWARD_CLAIMED]
    assert len(events) == 8
    for event in events:
        indexed = [True] * event.signature.count("address") + [False] * event.signature.count("uint256")
        assert published[("event", event.signature)] == indexed, event.signature
    ours = _entries(C.compile_all()["TestComet"].abi)
    changes = ("supplyTo", "withdrawTo", "transferAsset", "absorb", "getAssetInfoByAddress")
    mine = {key: value for key, value in ours.items() if key[0] == "event" or key[1].split("(")[0] in changes}
    assert len(mine) == 8 + len(changes)
    assert {key: published.get(key) for key in mine} == mine
    # CometRewards' event: no registry package ships its ABI; as contracts/CometRewards.sol declares it
    rewards = _entries(C.compile_all()["TestCometRewards"].abi)
    assert rewards[("event", comet.REWARD_CLAIMED.signature)] == [True, True, True, False]


def _entries(abi: list[dict[str, Any]]) -> dict[tuple[str, str], list[bool]]:
    """(kind, signature) -> each input's `indexed` flag, of every event and function."""
    return {
        (entry["type"], f"{entry['name']}({','.join(i['type'] for i in entry['inputs'])})"): [
            bool(i.get("indexed")) for i in entry["inputs"]
        ]
        for entry in abi
        if entry.get("type") in ("event", "function")
    }


async def test_compound_rewards_claimed_in_the_market_that_paid_them(compound: CompoundFlows) -> None:
    """Two markets pay the borrower COMP; a claim in one is a flow out of that market's reward leg
    (found by CometRewards' `rewardsClaimed`), priced as the reward is, and what accrues after it
    is earned."""
    node, world, wallet = compound.node, compound.world, compound.wallet
    rewards, comp = world.rewards.lower(), compound.comp
    weth_market, owed = world.weth_market.lower(), "setOwed(address,address,uint256)"
    node.send(rewards, owed, compound.market, wallet, 5 * 10**17)
    start = node.block_number()
    claimed = node.call(rewards, "getRewardOwed(address,address)", weth_market, wallet, returns=("address", "uint256"))[
        1
    ]
    receipt = node.send(rewards, "claim(address,address,bool)", weth_market, wallet, True, sender=wallet)
    node.send(rewards, owed, weth_market, wallet, 2 * 10**16)  # accrued since
    node.mine(1)
    entry = await _series(compound, start, node.block_number())
    leg = f"{weth_market}:{comp}:rewards"
    claims = [
        (f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"] if f["kind"] == "claim"
    ]
    assert claims == [(leg, "claim", -claimed, _block(receipt))] and claimed > 0
    (flow,) = [f for f in entry["flows"] if f["kind"] == "claim"]
    assert flow["amountUsd"] == pytest.approx(-claimed / 10**18 * C.PRICES["COMP"] / 10**8, rel=1e-12)
    rows = {row["position"]: row for row in entry["earnings"]}
    assert earned_adds_up(rows[leg]) == 2 * 10**16
    assert earned_adds_up(rows[f"{compound.market}:{comp}:rewards"]) == 0, "the other market's, untouched"


async def test_a_balance_with_no_flow_to_explain_it_is_not_taken_for_yield(compound: CompoundFlows) -> None:
    """A supply that appears without an event the flows follow (Comet's shortcut here; on mainnet
    a path the flows do not read) earned nothing it could have accrued on: its earned figures are
    null and a FLOWS_UNEXPLAINED warning names the leg and the amount."""
    node, world = compound.node, compound.world
    wallet, leg = node.accounts[19].lower(), f"{compound.market}:supply"
    start = node.block_number()
    node.send(compound.market, "setAccount(address,uint256,uint256)", wallet, 25_000 * C.USDC + 123, 0)
    node.mine(1)
    inputs = [{"protocol": "compound", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(compound.folder, compound.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 3}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    (row,) = [row for row in entry["earnings"] if row["position"] == leg]
    held = node.call(compound.market, "balanceOf(address)", wallet)
    assert (row["startAmount"], row["endAmount"], row["netFlows"]) == ("0", str(held), "0")
    assert row["earned"] is row["earnedUsd"] is row["pnlUsd"] is row["priceEffectUsd"] is None
    (warning,) = [w for w in entry["warnings"] if w["code"] == "FLOWS_UNEXPLAINED"]
    assert warning["target"] == leg and warning["message"].startswith(
        f"{held} raw units of {world.tokens['USDC'].lower()}"
    )
