"""Balancer's flows and earnings in `positionsHistory` (adapters/balancer/flows.py) on the Balancer
world (tests/balancer_world.py: Balancer's own v2 Vault and pools, v3 Vault and pools, the test
gauges and Minter), over its whole history: the INIT joins of every pool and the gauge stakes the
world makes, then the lp wallet's proportional join and exit through the Vault, an unstake, a
claim of the gauge's reward token and of BAL from the Minter, BPT sent away and received back.

Each BPT move is a flow of each of its pool's tokens, what the BPT pays in a proportional exit at
its block (the Vault's own views, read here), out of the pool's legs and into the gauge's for a
stake; claims are flows out of the reward legs; each leg's earned is end - start - net flows,
and without swaps the pool's legs earn nothing but rounding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import eth_abi
import pytest

import auth
from adapters.balancer import contracts as C
from tests import balancer_world as W
from tests.evm import Anvil
from tests.node_oracles import pack
from tests.test_history_flows import TRANSFER_TOPIC, _block, adds_up_in_usd, ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service

JOIN = "joinPool(bytes32,address,address,(address[],uint256[],bytes,bool))"
EXIT = "exitPool(bytes32,address,address,(address[],uint256[],bytes,bool))"
ALL_TOKENS_IN_FOR_EXACT_BPT_OUT, EXACT_BPT_IN_FOR_TOKENS_OUT = 3, 1
"""WeightedPool's JoinKind and ExitKind of a proportional join and exit."""


class Pools:
    """The Balancer world on its own chain, with a service's files."""

    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = W.build(self.node)
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "balancer-flows")[0]


def proportional(world: W.BalancerWorld, kind: str, bpt: int, block: int) -> dict[str, int]:
    """What `bpt` of a v2 pool without its own BPT among its tokens pays of each token in a
    proportional exit at `block`, by the Vault's and the pool's own views."""
    pool, pool_id = world.pools[kind]
    tokens, balances, _ = world.node.call(
        world.vault,
        "getPoolTokens(bytes32)",
        bytes.fromhex(pool_id[2:]),
        returns=("address[]", "uint256[]", "uint256"),
        block=block,
    )
    supply = world.node.call(pool, "getActualSupply()", block=block)
    return {token.lower(): balance * bpt // supply for token, balance in zip(tokens, balances)}


pools = chain_fixture(Pools)


def bpt_moved(receipt: dict[str, Any], token: str, wallet: str) -> int:
    """The BPT (or gauge token) the receipt moved to (positive) or from the wallet."""
    named = "0x" + "00" * 12 + wallet[2:]
    for log in receipt["logs"]:
        if log["address"] == token and log["topics"][0] == TRANSFER_TOPIC and named in log["topics"][1:]:
            sign = 1 if log["topics"][2] == named else -1
            return sign * int(log["data"], 16)
    raise AssertionError(f"no Transfer of {token} names {wallet}")


async def test_flows_over_the_worlds_history_are_its_actions_and_add_up(pools: Pools) -> None:
    node, world = pools.node, pools.world
    lp, other = world.wallets["lp"], world.wallets["empty"]
    pool, pool_id = world.pools["weighted"]
    gauge, bal, rwd = world.gauge, world.tokens["BAL"], world.tokens["RWD"]
    tokens, _ = world.pool_tokens("weighted")
    expected: list[tuple[str, str, int]] = []

    def moved(holder: str, kind: str, receipt: dict[str, Any], token: str) -> None:
        bpt, block = bpt_moved(receipt, token, lp), _block(receipt)
        for asset, amount in proportional(world, "weighted", abs(bpt), block).items():
            expected.append((f"{holder}:{asset}", kind, amount if bpt > 0 else -amount))

    supply = node.call(pool, "getActualSupply()")
    join_data = eth_abi.encode(["uint256", "uint256"], [ALL_TOKENS_IN_FOR_EXACT_BPT_OUT, supply // 10])
    receipt = node.send(
        world.vault, JOIN, bytes.fromhex(pool_id[2:]), lp, lp, (tokens, [W.MAX] * 2, join_data, False), sender=lp
    )
    moved(pool, "join", receipt, pool)
    exit_data = eth_abi.encode(["uint256", "uint256"], [EXACT_BPT_IN_FOR_TOKENS_OUT, supply // 20])
    receipt = node.send(
        world.vault, EXIT, bytes.fromhex(pool_id[2:]), lp, lp, (tokens, [0, 0], exit_data, False), sender=lp
    )
    moved(pool, "exit", receipt, pool)
    unstaked = node.call(gauge, "balanceOf(address)", lp) // 2
    receipt = node.send(gauge, "withdraw(uint256)", unstaked, sender=lp)
    moved(pool, "unstake", receipt, pool)
    moved(gauge, "unstake", receipt, gauge)
    node.send(rwd, "mint(address,uint256)", gauge, W.CLAIMABLE["RWD"])
    receipt = node.send(gauge, "claim_rewards()", sender=lp)
    expected.append((f"{gauge}:{rwd}:reward", "claim", -W.CLAIMABLE["RWD"]))
    receipt = node.send(world.minter, "mint(address)", gauge, sender=lp)
    expected.append((f"{gauge}:{bal}:reward", "claim", -W.CLAIMABLE["BAL"]))
    node.send(gauge, "setClaimableBal(address,uint256)", lp, W.CLAIMABLE["BAL"] // 3)  # accrues again
    sent = node.call(pool, "balanceOf(address)", lp) // 5
    receipt = node.send(pool, "transfer(address,uint256)", other, sent, sender=lp)
    moved(pool, "transfer-out", receipt, pool)
    receipt = node.send(pool, "transfer(address,uint256)", lp, sent // 2, sender=other)
    moved(pool, "transfer-in", receipt, pool)
    node.mine(1)
    end = node.block_number()

    inputs = [{"protocol": "balancer", "chainId": node.chain_id, "walletAddress": lp}]
    async with Service(pools.folder, pools.key, node) as service:
        arguments = {"from": {"blockNumber": world.start_block}, "to": {"blockNumber": end}, "points": 4}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    assert [w for w in entry["warnings"] if w["code"].startswith("FLOWS")] == [], entry["warnings"]
    flows = entry["flows"]
    acted = [(f["position"], f["kind"], int(f["amount"])) for f in flows]
    for one in expected:
        assert one in acted, one
    kinds = {f["kind"] for f in flows}
    assert kinds >= {"join", "exit", "stake", "unstake", "claim", "transfer-in", "transfer-out"}, kinds
    v3_pool = world.v3.pool if world.v3 else ""
    assert {f["kind"] for f in flows if f["position"].startswith(v3_pool)} >= {"join", "stake"}, "v3's INIT and stake"
    assert {f["kind"] for f in flows if f["position"].startswith(world.v3_gauge)} == {"stake"}
    for flow in flows:
        price = W.PRICES[next(name for name, token in world.tokens.items() if token == flow["asset"])] / 10**8
        decimals = W.DECIMALS[next(name for name, token in world.tokens.items() if token == flow["asset"])]
        assert flow["amountUsd"] == pytest.approx(int(flow["amount"]) / 10**decimals * price, rel=1e-12)
    rows = {row["position"]: row for row in entry["earnings"]}
    for row in rows.values():
        earned = earned_adds_up(row)
        if not row["position"].endswith(":reward"):
            assert int(row["startAmount"]) == 0, "the series starts before the world's first join"
            assert abs(earned) <= max(10, int(row["endAmount"]) // 10**12), row  # no swaps: rounding
    assert int(rows[f"{gauge}:{rwd}:reward"]["earned"]) == W.CLAIMABLE["RWD"]
    bal_row = rows[f"{gauge}:{bal}:reward"]
    assert int(bal_row["endAmount"]) == W.CLAIMABLE["BAL"] // 3
    assert int(bal_row["earned"]) == W.CLAIMABLE["BAL"] + W.CLAIMABLE["BAL"] // 3
    adds_up_in_usd(entry)


def events_of(abi: list[dict[str, Any]]) -> dict[str, list[bool]]:
    """An ABI's events by signature, with which inputs are indexed."""
    return {
        f"{e['name']}({','.join(i['type'] for i in e['inputs'])})": [i["indexed"] for i in e["inputs"]]
        for e in abi
        if e["type"] == "event"
    }


def test_the_events_the_flows_read_are_balancers_published_ones() -> None:
    """`Minted` and `minted(user, gauge)` as BalancerMinter's published ABI declares them, and the
    test gauges' and Minter's events as LiquidityGaugeV5's and BalancerMinter's (which the flows
    test reads: a Transfer of the gauge token beside `Deposit` / `Withdraw`)."""
    published = {
        name: json.loads(pack(W.PACKAGE)[f"{W.TASKS}/{task}/abi/{name}.json"])
        for task, name in (
            ("20220325-gauge-controller", "BalancerMinter"),
            ("20220822-mainnet-gauge-factory-v2", "LiquidityGaugeV5"),
        )
    }
    minter, gauge = events_of(published["BalancerMinter"]), events_of(published["LiquidityGaugeV5"])
    assert minter[C.MINTED.signature] == [True, False, False]
    (minted,) = [f for f in published["BalancerMinter"] if f.get("name") == "minted"]
    assert ([i["type"] for i in minted["inputs"]], [o["type"] for o in minted["outputs"]]) == (
        ["address", "address"],
        ["uint256"],
    )
    assert C.MINTED_SO_FAR.signature == "minted(address,address)"
    artifacts = W.compile_all()
    assert events_of(artifacts["TestBalancerMinter"].abi)[C.MINTED.signature] == minter[C.MINTED.signature]
    for name in ("TestBalancerGauge", "TestBalancerChildChainGauge"):
        test_gauge = events_of(artifacts[name].abi)
        for event in ("Deposit(address,uint256)", "Withdraw(address,uint256)", "Transfer(address,address,uint256)"):
            assert test_gauge[event] == gauge[event], (name, event)
