"""Flows of liquid staking tokens in `positionsHistory` (adapters/liquid_staking/flows.py), on the
test contracts of tests/liquid_staking_world.py: every Transfer to or from the wallet, mints
included, is a flow of its token in ether by the protocol's own view at the transfer's block, and
each token earns its growth in ether while held. Between the flows every rate grows."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import eth_abi

import auth
from adapters.liquid_staking.flows import CLAIMED, FINALIZED, QUEUED, claim_paid
from chain import Log
from tests import liquid_staking_world as L
from tests.evm import GAS_PRICE, Anvil, selector
from tests.test_history_flows import _block, ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service

PROTOCOLS = ("etherfi", "rocketpool", "renzo", "kelp")


class Staking:
    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = L.build(self.node)
        self.wallet = self.node.accounts[19]
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "staking-flows")[0]

    def ether(self, token: str, amount: int, block: int) -> int:
        """What the world's own view says `amount` of the token is worth in ether at `block`."""
        node, c = self.node, self.world.contracts
        if token == "eETH":
            return amount
        if token == "weETH":
            return int(node.call(c["weETH"], "getEETHByWeETH(uint256)", amount, block=block))
        if token == "rETH":
            return int(node.call(c["rETH"], "getEthValue(uint256)", amount, block=block))
        if token == "rsETH":
            return amount * int(node.call(c["LRTOracle"], "rsETHPrice()", block=block)) // L.ETHER
        (_, _, tvl) = node.call(
            c["RestakeManager"], "calculateTVLs()", returns=("uint256[][]", "uint256[]", "uint256"), block=block
        )
        return amount * int(tvl) // int(node.call(c["ezETH"], "totalSupply()", block=block))


staking = chain_fixture(Staking)


def _grow(staking: Staking, step: int) -> None:
    """Every rate up a little more."""
    node, c = staking.node, staking.world.contracts
    pooled, shares = L.POOL[1]
    node.send(c["pool"], "setTotals(uint256,uint256)", pooled + step * 10**21, shares)
    eth, reth = L.RETH[1]
    node.send(c["rETH"], "setBalances(uint256,uint256)", eth + step * 10**21, reth)
    node.send(c["RestakeManager"], "setTVLs(uint256[])", [tvl + step * 10**21 for tvl in L.RENZO_TVLS[1]])
    node.send(c["LRTOracle"], "setPrice(uint256)", L.RSETH_PRICE[1] + step * 10**15)


async def test_token_transfers_are_flows_in_ether_and_the_rest_is_earned(staking: Staking) -> None:
    node, c, wallet, other = staking.node, staking.world.contracts, staking.wallet, staking.world.wallets["other"]
    node.send(c["eETH"], "setShares(address,uint256)", wallet, 10 * L.ETHER)
    for token in ("weETH", "rETH", "ezETH", "rsETH"):
        node.send(c[token], "mint(address,uint256)", wallet, 10 * L.ETHER)
    start = node.block_number()
    _grow(staking, 1)
    made: list[tuple[str, str, int, int]] = []  # token, kind, signed amount of the token, block
    for token, amount in (("eETH", 3 * L.ETHER), ("rETH", 4 * L.ETHER), ("ezETH", L.ETHER), ("rsETH", 2 * L.ETHER)):
        made.append(
            (
                token,
                "transfer-out",
                -amount,
                _block(node.send(c[token], "transfer(address,uint256)", other, amount, sender=wallet)),
            )
        )
    made.append(
        ("weETH", "mint", 2 * L.ETHER, _block(node.send(c["weETH"], "mint(address,uint256)", wallet, 2 * L.ETHER)))
    )
    _grow(staking, 2)
    node.send(c["rsETH"], "mint(address,uint256)", other, L.ETHER)
    back = node.send(c["rsETH"], "transfer(address,uint256)", wallet, L.ETHER // 2, sender=other)
    made.append(("rsETH", "transfer-in", L.ETHER // 2, _block(back)))
    _grow(staking, 3)
    node.mine(1)
    end = node.block_number()
    inputs = [{"protocol": name, "chainId": node.chain_id, "walletAddress": wallet} for name in PROTOCOLS]
    async with Service(staking.folder, staking.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 2}
        entries = (await ask(service, inputs, **arguments))["data"]
    flows = [flow for entry in entries for flow in entry["flows"]]
    expected = [
        (c[token].lower(), kind, L.NATIVE, (1 if amount > 0 else -1) * staking.ether(token, abs(amount), block), block)
        for token, kind, amount, block in made
    ]
    assert sorted((f["position"], f["kind"], f["asset"], int(f["amount"]), f["blockNumber"]) for f in flows) == sorted(
        expected
    )
    for flow in flows:  # priced by ETH/USD (the native coin's 18 decimals known, not read)
        assert flow["amountUsd"] == float(Fraction(int(flow["amount"]) * L.ETH_USD, 10 ** (18 + 8)))
    assert [w for entry in entries for w in entry["warnings"]] == []
    rows = {row["position"]: row for entry in entries for row in entry["earnings"]}
    assert set(rows) == {c[token].lower() for token in ("eETH", "weETH", "rETH", "ezETH", "rsETH")}
    for token in ("eETH", "weETH", "rETH", "ezETH", "rsETH"):
        row = rows[c[token].lower()]
        assert earned_adds_up(row) > 0, f"{token}: every rate grew while held"
        assert row["asset"] == L.NATIVE


async def test_etherfi_requests_are_flows_and_a_claim_pays_what_its_event_says(staking: Staking) -> None:
    """A request made, one sent away, one received and one claimed (at a frozen rate below the
    locked eETH: the claim's loss is what the request earned); Renzo's and Kelp's requests, held
    throughout, earn nothing and are named by no warning."""
    node, c, w = staking.node, staking.world.contracts, staking.world.wallets
    nft, requester, other = c["nft"], w["requester"], w["other"]
    start = node.block_number()
    made = _block(
        node.send(nft, "request(address,uint256,uint96,uint96)", requester, 8, 2 * L.ETHER, 19 * L.ETHER // 10)
    )
    sent = _block(node.send(nft, "transferFrom(address,address,uint256)", requester, other, 7, sender=requester))
    node.send(nft, "finalize(uint32,uint256)", 8, L.FROZEN_RATE)
    back = _block(node.send(nft, "transferFrom(address,address,uint256)", other, requester, 5, sender=other))
    claimed = _block(node.send(nft, "claim(uint256)", 8))
    paid = 19 * L.ETHER // 10 * L.FROZEN_RATE // L.ETHER
    assert paid < 2 * L.ETHER, "the frozen rate pays less than the eETH locked"
    node.mine(1)
    inputs = [{"protocol": name, "chainId": node.chain_id, "walletAddress": requester} for name in PROTOCOLS]
    async with Service(staking.folder, staking.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        entries = (await ask(service, inputs, **arguments))["data"]
    etherfi = entries[0]
    assert [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in etherfi["flows"]] == [
        ("8:withdrawal", "requested", 2 * L.ETHER, made),
        ("7:withdrawal", "transfer-out", -L.REQUESTS[7][0], sent),
        ("5:withdrawal", "transfer-in", L.REQUESTS[5][0], back),
        ("8:withdrawal", "claimed", -paid, claimed),
    ]
    rows = {row["position"]: row for row in etherfi["earnings"]}
    assert earned_adds_up(rows["8:withdrawal"]) == paid - 2 * L.ETHER
    assert {earned_adds_up(row) for key, row in rows.items() if key != "8:withdrawal"} == {0}
    named: dict[str, set[Any]] = {
        entry["protocol"]: {w["target"] for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"}
        for entry in entries
    }
    assert named == {"etherfi": set(), "rocketpool": set(), "renzo": set(), "kelp": set()}
    renzo_requests = [row for row in entries[2]["earnings"] if row["position"].endswith(":withdrawal")]
    assert renzo_requests and {earned_adds_up(row) for row in renzo_requests} == {0}


async def test_renzo_requests_are_followed_by_the_queues_own_events(staking: Staking) -> None:
    """A request made and one held from before claimed at less than it was to redeem, in the
    WithdrawQueue's own events (neither names the user in a topic): the claim's shortfall is what
    the claimed request earned; another wallet's claim is not the requester's."""
    node, c, w = staking.node, staking.world.contracts, staking.world.wallets
    queue, requester = c["WithdrawQueue"], w["requester"]
    held = node.call(queue, "withdrawRequests(address,uint256)", requester, 0, returns=("address",) + ("uint256",) * 4)
    asset, held_id, held_amount = held[0].lower(), held[1], held[2]
    start = node.block_number()
    call = "request(address,address,uint256,uint256)"
    made = _block(node.send(queue, call, requester, L.NATIVE, 7 * 10**17, 7 * 10**17))
    made_id = node.call(queue, "withdrawRequestNonce()")
    node.send(queue, "setValueAtClaim(uint256)", held_amount - 10**15)
    claimed = _block(node.send(queue, "claim(address,uint256)", requester, 0))
    other = _block(node.send(queue, "claim(address,uint256)", w["other"], 0))
    node.mine(1)
    inputs = [{"protocol": "renzo", "chainId": node.chain_id, "walletAddress": requester}]
    async with Service(staking.folder, staking.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    requests = [flow for flow in entry["flows"] if flow["position"].endswith(":withdrawal")]
    assert [(f["position"], f["kind"], f["asset"], int(f["amount"]), f["blockNumber"]) for f in requests] == [
        (f"{L.NATIVE}:{made_id}:withdrawal", "requested", L.NATIVE, 7 * 10**17, made),
        (f"{asset}:{held_id}:withdrawal", "claimed", asset, -(held_amount - 10**15), claimed),
    ]
    assert other > claimed and [w for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"] == []
    rows = {row["position"]: row for row in entry["earnings"]}
    assert earned_adds_up(rows[f"{asset}:{held_id}:withdrawal"]) == -(10**15), "the claim paid less"
    assert earned_adds_up(rows[f"{L.NATIVE}:{made_id}:withdrawal"]) == 0


async def test_kelp_requests_are_flows_and_unlocking_is_what_they_earn(staking: Staking) -> None:
    """A request queued, then two completed in one block (each pops the oldest), one repriced by
    its unlock below what it expected when queued: that loss is what it earned."""
    node, c, requester = staking.node, staking.world.contracts, staking.world.wallets["requester"]
    manager, eth = c["LRTWithdrawalManager"], L.NATIVE
    expected = {nonce: amount for nonce, (_, _, _, amount) in enumerate(r for r in L.KELP_REQUESTS if r[0] == "ETH")}
    start = node.block_number()
    call = "request(address,address,uint256,uint256)"
    queued = _block(node.send(manager, call, eth, requester, 3 * L.ETHER, 3_123 * 10**15))
    lowered = expected[3] - 10**15
    node.send(manager, "setExpected(address,uint256,uint256)", eth, 3, lowered)
    node.send(manager, "unlock(address,uint256)", eth, 5)
    completing = selector("completeWithdrawal(address,address)") + eth_abi.encode(
        ["address", "address"], [eth, requester]
    )
    sent = {"from": node.accounts[0], "to": manager, "data": "0x" + completing.hex(), "gas": hex(500_000)}
    hashes = [node.rpc("eth_sendTransaction", {**sent, "gasPrice": hex(GAS_PRICE)}) for _ in range(2)]
    node.rpc("evm_mine")  # both in one block
    (completed,) = {int(node.rpc("eth_getTransactionReceipt", tx)["blockNumber"], 16) for tx in hashes}
    node.mine(1)
    inputs = [{"protocol": "kelp", "chainId": node.chain_id, "walletAddress": requester}]
    async with Service(staking.folder, staking.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    assert [(f["position"], f["kind"], f["asset"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]] == [
        (f"{eth}:4:withdrawal", "requested", eth, 3_123 * 10**15, queued),
        (f"{eth}:2:withdrawal", "claimed", eth, -expected[2], completed),
        (f"{eth}:3:withdrawal", "claimed", eth, -lowered, completed),
    ]
    rows = {row["position"]: row for row in entry["earnings"]}
    assert earned_adds_up(rows[f"{eth}:3:withdrawal"]) == lowered - expected[3]
    assert earned_adds_up(rows[f"{eth}:2:withdrawal"]) == earned_adds_up(rows[f"{eth}:4:withdrawal"]) == 0
    assert [w for w in entry["warnings"] if w["code"].startswith("FLOWS")] == []


def test_a_claim_event_of_every_version_says_what_it_paid() -> None:
    """The WithdrawRequestClaimed versions (adapters/liquid_staking/flows.py CLAIMED): four words
    pay the amount; five pay the amount less the fee; the first indexed nothing."""
    four, five = (event.topic for event in CLAIMED)
    owner = int(L.NATIVE, 16)

    def claim(topics: tuple[str, ...], *words: int) -> Log:
        return Log(L.NATIVE, topics, b"".join(word.to_bytes(32, "big") for word in words), 1, 0, "0x01")

    nine = "0x" + f"{9:064x}"
    assert claim_paid(claim((four, nine), 3 * L.ETHER, L.ETHER, owner), 9) == 3 * L.ETHER
    assert claim_paid(claim((four, nine), 3 * L.ETHER, L.ETHER, owner), 8) is None
    assert claim_paid(claim((five, nine), 3 * L.ETHER, L.ETHER, owner, 10**15), 9) == 3 * L.ETHER - 10**15
    assert claim_paid(claim((five,), 9, 3 * L.ETHER, L.ETHER, owner, 10**15), 9) == 3 * L.ETHER - 10**15
    assert claim_paid(claim((five,), 8, 3 * L.ETHER, L.ETHER, owner, 10**15), 9) is None
    published = json.loads((Path(__file__).parent / "liquid_staking_abi.json").read_text())["events"]
    assert {event.signature for event in CLAIMED} == set(published["etherfi:WithdrawRequestNFT"])
    assert {QUEUED.signature, FINALIZED.signature} == set(published["kelp:LRTWithdrawalManager"])
