"""Flows of liquid staking tokens in `positionsHistory` (adapters/liquid_staking/flows.py), on the
test contracts of tests/liquid_staking_world.py: every Transfer to or from the wallet, mints
included, is a flow of its token in ether by the protocol's own view at the transfer's block, and
each token earns its growth in ether while held. Between the flows every rate grows."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import auth
from tests import liquid_staking_world as L
from tests.evm import Anvil
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


async def test_withdrawal_requests_are_named_not_derived(staking: Staking) -> None:
    """ether.fi's requests (and Renzo's and Kelp's) hold ether no flow follows: named, never a
    silent gap in the earnings."""
    node, requester = staking.node, staking.world.wallets["requester"]
    start = node.block_number()
    node.mine(2)
    inputs = [{"protocol": name, "chainId": node.chain_id, "walletAddress": requester} for name in PROTOCOLS]
    async with Service(staking.folder, staking.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        entries = (await ask(service, inputs, **arguments))["data"]
    named: dict[str, set[Any]] = {
        entry["protocol"]: {w["target"] for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"}
        for entry in entries
    }
    assert named == {
        "etherfi": {"EtherfiWithdrawalRequest"},
        "rocketpool": set(),
        "renzo": {"RenzoWithdrawalRequest"},
        "kelp": {"KelpWithdrawalRequest"},
    }
