"""Aura's flows and earnings in `positionsHistory` (adapters/aura/flows.py) on the Aura world
(tests/aura_world.py over Balancer's, with a sidechain's BoosterLite and L2Coordinator beside
Ethereum's Boosters), after the world's own deposits: the depositor's deposits through the
Booster (a v2 and a v3 pool), an ERC-4626 deposit into the reward pool (its `Deposit` beside
`Staked`: one flow), a withdrawAndUnwrap, and, after more rewards accrued (the test's stand-in:
`setEarned`), claims: BAL with its AURA minted and the extra reward (the current Booster), BAL
alone (the earlier Booster, not AURA's operator), BAL with the L2Coordinator's AuraOFT (the
chain read as a sidechain). Each deposit and withdrawal is a flow of each of the pool's tokens
at its block (Balancer's views, read here); claims are flows out of the reward legs; each leg's
earned is end - start - net flows, and the staked BPT earns nothing but rounding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import auth
from adapters.aura import contracts as C
from tests import aura_world as A
from tests.evm import Anvil
from tests.test_history_balancer import bpt_moved, events_of, proportional
from tests.test_history_flows import _block, adds_up_in_usd, ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service


class Deposits:
    """The Aura world with its sidechain's parts on its own chain, with a service's files: the
    chain as Ethereum (addresses.json) and as a sidechain (l2.json)."""

    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = A.build(self.node, l2=True)
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        (folder / "l2.json").write_text(json.dumps(self.world.l2_addresses_override()))
        self.key = auth.create_key(folder / "keys.env", "aura-flows")[0]

    async def series(self, wallet: str, start: int, end: int, addresses: str) -> dict[str, Any]:
        inputs = [{"protocol": "aura", "chainId": self.node.chain_id, "walletAddress": wallet}]
        async with Service(self.folder, self.key, self.node, addresses=addresses) as service:
            arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 3}
            (entry,) = (await ask(service, inputs, **arguments))["data"]
        assert [w for w in entry["warnings"] if w["code"].startswith("FLOWS")] == [], entry["warnings"]
        return entry


deposits = chain_fixture(Deposits)


def _received(node: Anvil, token: str, wallet: str, receipt: dict[str, Any]) -> int:
    block = _block(receipt)
    return int(node.call(token, "balanceOf(address)", wallet, block=block)) - int(
        node.call(token, "balanceOf(address)", wallet, block=block - 1)
    )


async def test_flows_over_the_worlds_history_are_its_actions_and_add_up(deposits: Deposits) -> None:
    node, world = deposits.node, deposits.world
    balancer, depositor = world.balancer, world.wallets["depositor"]
    bal, rwd = balancer.tokens["BAL"], balancer.tokens["RWD"]
    weighted, pool = balancer.pools["weighted"][0], world.reward_pools[0]
    stable_pool = world.reward_pools[1]
    expected: list[tuple[str, str, int]] = []

    def moved(kind: str, receipt: dict[str, Any]) -> None:
        bpt, block = bpt_moved(receipt, weighted, depositor), _block(receipt)
        for asset, amount in proportional(balancer, "weighted", abs(bpt), block).items():
            expected.append((f"{pool}:{asset}", kind, -amount if bpt > 0 else amount))  # BPT out of the wallet: in

    node.mine(1)
    start = node.block_number()
    held = node.call(weighted, "balanceOf(address)", depositor)
    node.send(weighted, "approve(address,uint256)", world.booster, held // 10, sender=depositor)
    moved("deposit", node.send(world.booster, "deposit(uint256,uint256,bool)", 0, held // 10, True, sender=depositor))
    node.send(weighted, "approve(address,uint256)", pool, held // 20, sender=depositor)
    moved("deposit", node.send(pool, "deposit(uint256,address)", held // 20, depositor, sender=depositor))
    moved("withdraw", node.send(pool, "withdrawAndUnwrap(uint256,bool)", held // 40, False, sender=depositor))
    v3 = balancer.v3.pool if balancer.v3 else ""
    node.send(v3, "approve(address,uint256)", world.booster, 2**256 - 1, sender=depositor)
    v3_held = node.call(v3, "balanceOf(address)", depositor) // 10
    node.send(world.booster, "deposit(uint256,uint256,bool)", 2, v3_held, True, sender=depositor)
    for rewards, amount in ((stable_pool, A.EARNED["BAL"]), (world.older_pool, A.OLDER_EARNED)):
        node.send(rewards, "setEarned(address,uint256)", depositor, 2 * amount)
        node.send(bal, "mint(address,uint256)", rewards, 2 * amount)
    node.send(world.extra, "setEarned(address,uint256)", depositor, 2 * A.EARNED["RWD"])
    node.send(rwd, "mint(address,uint256)", world.stash, 2 * A.EARNED["RWD"])
    receipt = node.send(stable_pool, "getReward(address,bool)", depositor, True, sender=depositor)
    minted = _received(node, world.aura, depositor, receipt)
    assert minted > 0
    expected += [
        (f"{stable_pool}:{bal}:reward", "claim", -2 * A.EARNED["BAL"]),
        (f"{stable_pool}:{world.aura}:reward", "claim", -minted),
        (f"{stable_pool}:{rwd}:reward", "claim", -2 * A.EARNED["RWD"]),
    ]
    receipt = node.send(world.older_pool, "getReward(address,bool)", depositor, True, sender=depositor)
    assert _received(node, world.aura, depositor, receipt) == 0, "the earlier Booster is not AURA's operator"
    expected.append((f"{world.older_pool}:{bal}:reward", "claim", -2 * A.OLDER_EARNED))
    node.send(world.l2_pool, "setEarned(address,uint256)", depositor, 2 * A.L2_EARNED)
    node.send(bal, "mint(address,uint256)", world.l2_pool, 2 * A.L2_EARNED)
    receipt = node.send(world.l2_pool, "getReward(address,bool)", depositor, True, sender=depositor)
    oft = _received(node, world.aura_oft, depositor, receipt)
    assert oft > 0
    node.mine(1)
    end = node.block_number()

    entry = await deposits.series(depositor, start, end, "addresses.json")
    flows = [(f["position"], f["kind"], int(f["amount"])) for f in entry["flows"]]
    for one in expected:
        assert one in flows, one
    assert len([f for f in flows if f[0] == f"{pool}:{weighted}"]) == 0, "keyed by the pool's tokens, not its BPT"
    deposits_in = [f for f in entry["flows"] if f["kind"] == "deposit" and f["position"].startswith(pool)]
    assert len(deposits_in) == 2 * 2, "the Booster's deposit and the ERC-4626 one, each once, in two tokens"
    kinds = {f["kind"] for f in entry["flows"]}
    assert kinds >= {"deposit", "withdraw", "claim"}, kinds
    assert any(f["position"].startswith(world.v3_pool) and f["kind"] == "deposit" for f in entry["flows"]), (
        "a v3 pool's, by the v3 Vault's views"
    )
    _earnings(
        entry, {f"{world.older_pool}:{bal}:reward": A.OLDER_EARNED, f"{stable_pool}:{bal}:reward": A.EARNED["BAL"]}
    )

    l2 = await deposits.series(depositor, start, end, "l2.json")
    l2_flows = [(f["position"], f["kind"], int(f["amount"])) for f in l2["flows"]]
    assert (f"{world.l2_pool}:{bal}:reward", "claim", -2 * A.L2_EARNED) in l2_flows
    assert (f"{world.l2_pool}:{world.aura_oft}:reward", "claim", -oft) in l2_flows
    _earnings(l2, {f"{world.l2_pool}:{bal}:reward": A.L2_EARNED})


def _earnings(entry: dict[str, Any], claimed: dict[str, int]) -> None:
    """Each leg's earned adds up; staked BPT earns only rounding; a reward claimed to the last
    wei earned what accrued in the range."""
    rows = {row["position"]: row for row in entry["earnings"]}
    for row in rows.values():
        earned = earned_adds_up(row)
        if not row["position"].endswith(":reward"):
            assert abs(earned) <= max(10, int(row["endAmount"]) // 10**12), row
    for key, amount in claimed.items():
        assert int(rows[key]["endAmount"]) == 0 and int(rows[key]["earned"]) == amount, rows[key]
    adds_up_in_usd(entry)


def test_the_test_contracts_declare_auras_events_as_the_flows_read_them() -> None:
    """The events of aura's convex-platform (6c8abb2: BaseRewardPool.sol's Staked, Withdrawn,
    RewardPaid and Transfer, BaseRewardPool4626's ERC-4626 Deposit, Booster.sol's Deposited and
    Withdrawn), recorded from there (no package ships Aura's ABIs), in the test contracts whose
    emits the flows test reads; the adapter's topics are theirs."""
    recorded = {
        "TestAuraRewardPool": {
            "Staked(address,uint256)": [True, False],
            "Withdrawn(address,uint256)": [True, False],
            "RewardPaid(address,uint256)": [True, False],
            "Transfer(address,address,uint256)": [True, True, False],
            "Deposit(address,address,uint256,uint256)": [True, True, False, False],
        },
        "TestAuraBooster": {
            "Deposited(address,uint256,uint256)": [True, True, False],
            "Withdrawn(address,uint256,uint256)": [True, True, False],
        },
    }
    artifacts = A.compile_all()
    for name, events in recorded.items():
        assert {e: events_of(artifacts[name].abi).get(e) for e in events} == events, name
    assert {C.STAKED.signature, C.WITHDRAWN.signature, C.REWARD_PAID.signature} <= set(recorded["TestAuraRewardPool"])
