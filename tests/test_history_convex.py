"""Convex's flows and earnings in `positionsHistory` (adapters/convex/flows.py) on the test contracts
(tests/convex_world.py on tests/curve_world.py): the depositor deposits Curve LP through the
Booster, withdraws and unwraps some through its reward pool, stakes and unstakes the deposit token,
and claims CRV, CVX and the extra reward, each action at a point of the series. Each deposit flow is
its LP in the Curve pool's coins at its block, read from the pool here; each claim is what the claim
paid; between two points each leg moves by its flows (the pool's state stays: nothing to earn)."""

from __future__ import annotations

import json
from pathlib import Path

import auth
from adapters.convex import contracts as C
from tests import convex_world as W
from tests import curve_world
from tests.evm import Anvil
from tests.test_history_curve import Actions, adds_up, in_coins, series
from tests.test_history_flows import chain_fixture

MAX = 2**256 - 1


class ConvexFlows:
    """The Convex world on the Curve world's pools, on its own chain."""

    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = W.build(self.node)
        self.folder = folder
        addresses = self.world.addresses_override()
        chain = str(self.node.chain_id)
        addresses[chain]["curve"] = self.world.curve.addresses_override()[chain]["curve"]
        (folder / "addresses.json").write_text(json.dumps(addresses))
        self.key = auth.create_key(folder / "keys.env", "convex-flows")[0]


convex = chain_fixture(ConvexFlows)


async def test_deposits_withdrawals_stakes_and_claims_are_flows_and_add_up(convex: ConvexFlows) -> None:
    node, world, curve = convex.node, convex.world, convex.world.curve
    depositor, stable, rewards = world.wallets["depositor"], curve.stable, world.rewards[1]
    crv, cvx, extra_token = curve.tokens["CRV"], world.cvx, curve.tokens["EXTRA"]
    coins = [curve.tokens["USDC"], curve.tokens["crvUSD"]]
    node.send(stable, "mint(address,uint256)", depositor, 5_000 * curve_world.E18)
    for spender in (world.booster, rewards):
        node.send(stable, "approve(address,uint256)", spender, MAX, sender=depositor)
    act = Actions(node, depositor)
    blocks = act.blocks
    expected: list[tuple[str, str, int, int]] = []

    def lp_flow(kind: str, lp: int, block: int) -> None:
        amounts = in_coins(node, stable, stable, coins, abs(lp), block, False)
        expected.extend((f"{stable}:{coin}", kind, a if lp > 0 else -a, block) for coin, a in zip(coins, amounts))

    e18 = curve_world.E18
    act(stable, "balanceOf(address)", depositor)  # the first point, before any flow
    lp_flow("deposit", 1_000 * e18, act(world.booster, "deposit(uint256,uint256,bool)", 1, 1_000 * e18, True))
    lp_flow("withdraw", -300 * e18, act(rewards, "withdrawAndUnwrap(uint256,bool)", 300 * e18, False))
    lp_flow("stake", 200 * e18, act(rewards, "stake(uint256)", 200 * e18))
    lp_flow("unstake", -100 * e18, act(rewards, "withdraw(uint256,bool)", 100 * e18, False))
    cvx_before = node.call(cvx, "balanceOf(address)", depositor)
    block = act(rewards, "getReward()")
    minted = node.call(cvx, "balanceOf(address)", depositor, block=block) - cvx_before
    assert minted > 0
    expected += [
        (f"{rewards}:{crv}:reward", "claim", -W.EARNED[1], block),
        (f"{rewards}:{cvx}:reward", "claim", -minted, block),
        (f"{rewards}:{extra_token}:reward", "claim", -W.EXTRA, block),
    ]

    entry = await series(convex, "convex", depositor, blocks[0], blocks[-1], len(blocks))
    assert [point["blockNumber"] for point in entry["points"]] == blocks
    assert [w for w in entry["warnings"] if w["code"].startswith("FLOWS")] == [], entry["warnings"]
    found = [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]]
    lower = [(p.lower(), kind, amount, block) for p, kind, amount, block in expected]
    assert sorted(found) == sorted(lower)
    assert {"deposit", "withdraw", "stake", "unstake", "claim"} == {kind for _, kind, _, _ in found}
    assert all(flow["amountUsd"] is not None for flow in entry["flows"])
    adds_up(entry, lambda key, earlier, later: 0)
    rows = {row["position"]: row for row in entry["earnings"]}
    for token, paid in ((crv, W.EARNED[1]), (extra_token, W.EXTRA)):
        row = rows[f"{rewards}:{token}:reward".lower()]
        assert int(row["netFlows"]) == -paid and int(row["endAmount"]) == 0


def test_the_test_contracts_declare_convexs_events_as_the_flows_read_them() -> None:
    """The Booster's and the reward pools' events as convex-eth/platform declares them (Booster.sol:
    Deposited and Withdrawn with the user and pool id indexed; BaseRewardPool.sol and
    VirtualBalanceRewardPool.sol: Staked, Withdrawn and RewardPaid with the user indexed)."""
    artifacts = W.compile_all()
    declared = {
        f"{e['name']}({','.join(i['type'] for i in e['inputs'])})": [i["indexed"] for i in e["inputs"]]
        for name in ("TestBooster", "TestBaseRewardPool", "TestVirtualBalanceRewardPool")
        for e in artifacts[name].abi
        if e["type"] == "event"
    }
    assert declared == {
        C.DEPOSITED.signature: [True, True, False],
        C.WITHDRAWN.signature: [True, True, False],
        C.STAKED.signature: [True, False],
        C.UNSTAKED.signature: [True, False],
        C.REWARD_PAID.signature: [True, False],
    }
