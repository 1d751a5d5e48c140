"""EigenLayer's flows and earnings in `positionsHistory` (adapters/eigenlayer/flows.py), on the test
contracts of tests/eigenlayer_world.py acting through their entry points, which emit EigenLayer's
events as mainnet's do (none of the StrategyManager's or DelegationManager's names the staker in a
topic: the flows read them from an index stream of their own).

A staker deposits into two strategies (another staker too), its eLST strategy earns, it queues a
withdrawal of both, its operator is slashed in tEIGEN, and it completes that withdrawal as tokens
and an older one as shares; a pod owner restakes a validator, checkpoints a gain and a loss,
queues beacon chain ETH and completes it as shares. Every flow is the action's shares in the
strategy's token at its block (the contracts' own views), the moves between legs net to nothing,
and every leg's earnings add up: the slashing and the beacon chain loss are negative earnings,
the checkpoint's gain a positive one."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import eth_abi
from eth_hash.auto import keccak

import auth
from tests import eigenlayer_world as E
from tests.evm import Anvil
from tests.test_history_flows import _block, ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service

NATIVE = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
DEPOSIT = "0x" + keccak(b"Deposit(address,address,uint256)").hex()
POD_SHARES_UPDATED = "0x" + keccak(b"PodSharesUpdated(address,int256)").hex()
TRANSFER = "0x" + keccak(b"Transfer(address,address,uint256)").hex()
ZERO = "0x" + "00" * 20


class Restaking:
    """The EigenLayer world on its own chain, with a service's files."""

    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = E.build(self.node)
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "eigenlayer-flows")[0]

    def underlying(self, strategy: str, shares: int, block: int) -> int:
        """What the strategy's own view says `shares` hold at `block` (beacon chain ETH: wei)."""
        if strategy == E.BEACON:
            return shares
        return int(self.node.call(strategy, "sharesToUnderlyingView(uint256)", shares, block=block))

    def withdrawable(self, staker: str, strategy: str, block: int) -> int:
        (shares,), _ = self.node.call(
            self.world.delegation_manager,
            "getWithdrawableShares(address,address[])",
            staker,
            [strategy],
            returns=("uint256[]", "uint256[]"),
            block=block,
        )
        return int(shares)

    def paid(self, withdrawal: tuple[Any, ...], block: int) -> list[int]:
        """The shares a withdrawal completed at `block` paid: the queue's view at the block before."""
        _, shares = self.node.call(
            self.world.delegation_manager,
            "getQueuedWithdrawal(bytes32)",
            bytes.fromhex(root(withdrawal)[2:]),
            returns=(E.WITHDRAWAL, "uint256[]"),
            block=block - 1,
        )
        return list(shares)

    async def series(self, wallets: list[str], start: int) -> list[dict[str, Any]]:
        """Each wallet's series from `start` to the newest block, flows and earnings selected."""
        self.node.mine(1)
        inputs = [{"protocol": "eigenlayer", "chainId": self.node.chain_id, "walletAddress": w} for w in wallets]
        async with Service(self.folder, self.key, self.node) as service:
            arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": self.node.block_number()}, "points": 3}
            entries: list[dict[str, Any]] = (await ask(service, inputs, **arguments))["data"]
        return entries


restaking = chain_fixture(Restaking)


def root(withdrawal: tuple[Any, ...]) -> str:
    """calculateWithdrawalRoot: keccak256(abi.encode(withdrawal))."""
    return "0x" + keccak(eth_abi.encode([E.WITHDRAWAL], [withdrawal])).hex()


def _logs(receipt: dict[str, Any], topic: str) -> list[bytes]:
    return [bytes.fromhex(log["data"][2:]) for log in receipt["logs"] if log["topics"][0] == topic]


def _queued(receipt: dict[str, Any]) -> tuple[tuple[Any, ...], list[int]]:
    """The withdrawal a queueWithdrawals receipt queued and its sharesToWithdraw."""
    (data,) = _logs(receipt, E.QUEUED_TOPIC)
    _, withdrawal, shares = eth_abi.decode(["bytes32", E.WITHDRAWAL, "uint256[]"], data)
    return withdrawal, list(shares)


@dataclass
class Acted:
    """What the actions must show: (position, kind, asset, amount, block) per flow, in chain order;
    what came in from outside the wallet's legs or went out (by asset: deposits and validators in,
    tokens paid out); the transactions that only move shares between its legs; blocks to check by."""

    restaking: Restaking
    flows: list[tuple[str, str, str, int, int]] = field(default_factory=list)
    outside: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    between_legs: set[str] = field(default_factory=set)
    blocks: dict[str, int] = field(default_factory=dict)
    tokens_paid: int = 0

    def moved(
        self, position: str, kind: str, strategy: str, shares: int, receipt: dict[str, Any], outside: bool = False
    ) -> None:
        """A flow of `shares` (signed) of the strategy, in its token at the receipt's block."""
        world, block = self.restaking.world, _block(receipt)
        asset = NATIVE if strategy == E.BEACON else world.token_of(strategy)
        amount = self.restaking.underlying(strategy, abs(shares), block) * (1 if shares > 0 else -1)
        self.flows.append((position, kind, asset, amount, block))
        self.outside[asset] += amount if outside else 0


def act(restaking: Restaking) -> Acted:
    """The staker's and the pod owner's actions, through the contracts' entry points."""
    node, world, acted = restaking.node, restaking.world, Acted(restaking)
    staker, restaker = world.wallets["staker"], world.wallets["restaker"]
    lst, eigen, pod = world.strategies["eLST"], world.strategies["tEIGEN"], f"{world.pod}:restaked"
    for symbol, amount in (("eLST", 20 * E.ETHER), ("tEIGEN", 6 * E.ETHER)):
        receipt = world.deposit(staker, symbol, amount)
        (_, strategy, shares) = eth_abi.decode(["address", "address", "uint256"], _logs(receipt, DEPOSIT)[0])
        acted.moved(strategy.lower(), "deposit", strategy.lower(), shares, receipt, outside=True)
    world.deposit(world.wallets["empty"], "eLST", 5 * E.ETHER)  # another staker's: none of the wallet's
    node.send(world.tokens["eLST"], "mint(address,uint256)", lst, 30 * E.ETHER)  # the eLST strategy earns
    queued = world.queue_withdrawal(staker, [lst, eigen], [5 * E.ETHER, 2 * E.ETHER])
    withdrawal, taken = _queued(queued)
    for strategy, shares in zip((lst, eigen), taken):
        acted.moved(strategy, "queued", strategy, -shares, queued)
        acted.moved(f"{root(withdrawal)}:{strategy}", "queued", strategy, shares, queued)
    acted.blocks["before slash"] = node.block_number()
    acted.blocks["slash"] = _block(world.slash(eigen, 8 * E.WAD // 10))

    restaked = world.restake(b"\x01" * 32, 32 * 10**9)
    acted.moved(pod, "restaked", E.BEACON, 32 * E.ETHER, restaked, outside=True)
    acted.blocks["gain"] = _block(world.checkpoint(500_000_000))  # rewards: earned, not a flow
    acted.blocks["loss"] = _block(world.checkpoint(-1_000_000_000))  # the beacon chain slashing factor falls
    beacon = world.queue_withdrawal(restaker, [E.BEACON], [4 * E.ETHER])
    beacon_withdrawal, (beacon_shares,) = _queued(beacon)
    acted.moved(pod, "queued", E.BEACON, -beacon_shares, beacon)
    acted.moved(f"{root(beacon_withdrawal)}:{E.BEACON}", "queued", E.BEACON, beacon_shares, beacon)
    node.mine(E.DELAY)

    as_tokens = world.complete(withdrawal, as_tokens=True)
    for strategy, shares in zip((lst, eigen), restaking.paid(withdrawal, _block(as_tokens))):
        acted.moved(f"{root(withdrawal)}:{strategy}", "completed", strategy, -shares, as_tokens, outside=True)
    acted.blocks["as tokens"] = _block(as_tokens)
    older = world.withdrawals[0]  # queued before the series, completed as shares: back into the restaked leg
    as_shares = world.complete(older, as_tokens=False)
    (older_paid,) = restaking.paid(older, _block(as_shares))
    assert eth_abi.decode(["address", "address", "uint256"], _logs(as_shares, DEPOSIT)[0])[2] == older_paid
    acted.moved(f"{root(older)}:{lst}", "completed", lst, -older_paid, as_shares)
    acted.moved(lst, "redeposited", lst, older_paid, as_shares)
    pod_back = world.complete(beacon_withdrawal, as_tokens=False)
    (pod_paid,) = restaking.paid(beacon_withdrawal, _block(pod_back))
    assert eth_abi.decode(["int256"], _logs(pod_back, POD_SHARES_UPDATED)[0]) == (pod_paid,)
    acted.moved(f"{root(beacon_withdrawal)}:{E.BEACON}", "completed", E.BEACON, -pod_paid, pod_back)
    acted.moved(pod, "redeposited", E.BEACON, pod_paid, pod_back)
    acted.between_legs = {receipt["transactionHash"] for receipt in (queued, beacon, as_shares, pod_back)}
    acted.tokens_paid = sum(eth_abi.decode(["uint256"], data)[0] for data in _logs(as_tokens, TRANSFER))
    return acted


async def test_deposits_withdrawals_slashing_and_the_pod_are_flows_and_earnings_add_up(restaking: Restaking) -> None:
    world, start = restaking.world, restaking.node.block_number()
    staker, restaker = world.wallets["staker"], world.wallets["restaker"]
    acted = act(restaking)
    entries = await restaking.series([staker, restaker], start)
    flows = [flow for entry in entries for flow in entry["flows"]]
    got = [(f["position"], f["kind"], f["asset"], int(f["amount"]), f["blockNumber"]) for f in flows]
    assert sorted(got, key=lambda flow: flow[4]) == acted.flows, "each wallet's in chain order, as acted"
    for flow in flows:
        if flow["asset"] == world.tokens["tEIGEN"]:
            assert flow["amountUsd"] is None, "tEIGEN has no feed: unpriced, and named"
        else:
            answer = E.ETH_USD if flow["asset"] == NATIVE else E.LST_USD
            assert flow["amountUsd"] == float(Fraction(int(flow["amount"]) * answer, 10 ** (18 + 8)))
    assert [(w["code"], w["target"]) for entry in entries for w in entry["warnings"]] == [
        ("FLOWS_UNPRICED", world.tokens["tEIGEN"])
    ]
    paid_out = [-int(f["amount"]) for f in flows if f["blockNumber"] == acted.blocks["as tokens"]]
    assert abs(sum(paid_out) - acted.tokens_paid) <= 2, "what the strategies paid, valued at the rate after it"
    between: dict[tuple[str, str], int] = defaultdict(int)
    for flow in flows:
        if flow["transactionHash"] in acted.between_legs:
            between[(flow["transactionHash"], flow["asset"])] += int(flow["amount"])
    assert set(between.values()) == {0}, "a withdrawal queued or completed as shares moves value between legs"

    rows = {row["position"]: row for entry in entries for row in entry["earnings"]}
    for row in rows.values():
        earned_adds_up(row)
    _earned_as_the_chain_moved(restaking, acted, rows)
    for asset, external in acted.outside.items():
        legs = [row for row in rows.values() if row["asset"] == asset]
        change = sum(int(row["endAmount"]) - int(row["startAmount"]) for row in legs)
        assert sum(int(row["earned"]) for row in legs) == change - external, ("in total", asset)


def _earned_as_the_chain_moved(restaking: Restaking, acted: Acted, rows: dict[str, Any]) -> None:
    """The eLST strategy's growth is earned; the operator's slashing is a loss of every tEIGEN leg
    it was delegated with (restaked and queued); the pod earns its checkpoints, a gain and a loss."""
    world, blocks = restaking.world, acted.blocks
    staker, restaker = world.wallets["staker"], world.wallets["restaker"]
    lst, eigen = world.strategies["eLST"], world.strategies["tEIGEN"]
    assert int(rows[lst]["earned"]) > 0, "the eLST strategy earned while the shares were restaked"
    queued = [flow[0] for flow in acted.flows if flow[1] == "queued" and flow[0].endswith(f":{eigen}")]
    for key in [eigen, *queued, f"{root(world.withdrawals[2])}:{eigen}"]:
        assert int(rows[key]["earned"]) < 0, ("the operator's slashing, a loss", key)
    before = restaking.withdrawable(staker, eigen, blocks["before slash"])
    after = restaking.withdrawable(staker, eigen, blocks["slash"])
    lost = restaking.underlying(eigen, before - after, blocks["slash"])
    assert abs(int(rows[eigen]["earned"]) + lost) <= 10, (rows[eigen], lost)
    gained, fell = (
        restaking.withdrawable(restaker, E.BEACON, block) - restaking.withdrawable(restaker, E.BEACON, block - 1)
        for block in (blocks["gain"], blocks["loss"])
    )
    assert abs(gained - 5 * 10**17) <= 1_000 and fell < 0, (gained, fell)
    # Besides the checkpoints, the rounding of SlashingLib.update: the deposit scaling factor is a
    # WAD, so each restake or redeposit moves ~1e20 deposit shares' worth by up to ~1e2 wei.
    pod = rows[f"{world.pod}:restaked"]
    assert abs(int(pod["earned"]) - (gained + fell)) <= 1_000, (pod, gained, fell)
    held = rows[f"{root(world.withdrawals[1])}:{E.BEACON}"]  # queued before the series: the beacon chain loss
    assert int(held["earned"]) < 0 and int(held["netFlows"]) == 0


async def test_a_strategy_whose_views_fail_names_its_legs_and_the_rest_stand(restaking: Restaking) -> None:
    """Shares of a strategy whose token is no contract (its sharesToUnderlyingView reverts: a
    contract's failure, not the node's), queued with eLST: its two legs are named FLOWS_UNAVAILABLE
    and left out of the earnings; eLST's flows and earnings stand."""
    node, world = restaking.node, restaking.world
    wallet, lst = node.accounts[18], world.strategies["eLST"]
    broken = node.deploy(E.compile_all()["TestStrategy"], ["address"], [ZERO])
    node.send(world.strategy_manager, "setDeposit(address,address,uint256)", wallet, broken, E.ETHER)
    start = node.block_number()
    deposit = world.deposit(wallet, "eLST", 2 * E.ETHER)
    queued = world.queue_withdrawal(wallet, [broken, lst], [E.ETHER // 2, E.ETHER])
    (entry,) = await restaking.series([wallet], start)
    key = root(_queued(queued)[0])
    unavailable = {w["target"] for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"}
    assert unavailable == {broken, f"{key}:{broken}"}, entry["warnings"]
    assert [(f["position"], f["kind"], f["blockNumber"]) for f in entry["flows"]] == [
        (lst, "deposit", _block(deposit)),
        (lst, "queued", _block(queued)),
        (f"{key}:{lst}", "queued", _block(queued)),
    ]
    rows = {row["position"]: row for row in entry["earnings"]}
    assert set(rows) == {lst, f"{key}:{lst}"}, "the broken strategy's legs left out, never a figure without flows"
    for row in rows.values():
        earned_adds_up(row)
