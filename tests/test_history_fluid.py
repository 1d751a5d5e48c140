"""Flows of Fluid vault positions in `positionsHistory` (adapters/fluid/flows.py), on the canned
Fluid world (tests/fluid_world.py: the resolvers answer as the test sets them; a vault emits
IFluidVault's LogOperate as the test says). The flows are the operations on the wallet's NFTs,
signed as Fluid signs them, none of another NFT's; the collateral earns nothing, the debt its
interest; a smart side is named, not guessed."""

from __future__ import annotations

from pathlib import Path

import eth_abi

import auth
from adapters.fluid.flows import LOG_OPERATE
from tests import fluid_world as F
from tests.evm import Anvil
from tests.test_history_flows import _block, ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service


class FluidFlows:
    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = F.build(self.node)
        self.wallet = self.world.wallets["borrower"]
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "fluid-flows")[0]

    def operate(self, nft: int, collateral: int, debt: int, interest: int = 0) -> int:
        """The vault's LogOperate for the NFT, the resolver's amounts moved as it says (and the
        debt by `interest` more); the block."""
        (position,) = [p for p in self.world.positions if p.nft_id == nft]
        data = eth_abi.encode(
            ["address", "uint256", "int256", "int256", "address"], [self.wallet, nft, collateral, debt, self.wallet]
        )
        receipt = self.node.send(
            position.vault.address, "emitLog(bytes32,bytes)", bytes.fromhex(LOG_OPERATE.topic[2:]), data
        )
        position.supply += collateral
        position.borrow += debt + interest
        self.world.publish(self.wallet)
        return _block(receipt)


fluid = chain_fixture(FluidFlows)


async def test_fluid_vault_operations_are_flows(fluid: FluidFlows) -> None:
    node, world = fluid.node, fluid.world
    start = node.block_number()
    first = fluid.operate(11, 5 * 10**17, 500 * 10**6, interest=7)
    fluid.operate(13, 10**18, 0)  # another NFT of the wallet's, in another vault
    second = fluid.operate(11, -(10**17), -200 * 10**6)
    node.mine(1)
    inputs = [{"protocol": "fluid", "chainId": node.chain_id, "walletAddress": fluid.wallet}]
    async with Service(fluid.folder, fluid.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    vault = world.positions[0].vault.address.lower()
    mine = [
        (f["position"], f["kind"], int(f["amount"]), f["blockNumber"])
        for f in entry["flows"]
        if f["position"].startswith(f"{vault}:11:")
    ]
    assert mine == [
        (f"{vault}:11:collateral", "deposit", 5 * 10**17, first),
        (f"{vault}:11:debt", "borrow", 500 * 10**6, first),
        (f"{vault}:11:collateral", "withdraw", -(10**17), second),
        (f"{vault}:11:debt", "payback", -200 * 10**6, second),
    ]
    (native,) = [f for f in entry["flows"] if f["position"].endswith(":13:collateral")]
    assert native["asset"] == F.NATIVE and native["amountUsd"], "native ETH is priced (its 18 decimals known)"
    rows = {row["position"]: row for row in entry["earnings"]}
    assert earned_adds_up(rows[f"{vault}:11:collateral"]) == 0
    assert earned_adds_up(rows[f"{vault}:11:debt"]) == -7, "the interest paid"
    smart = {p.vault.address.lower(): p.nft_id for p in world.positions if p.vault.smart_col or p.vault.smart_debt}
    named = {w["target"] for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"}
    assert named and all(target.split(":")[0] in smart for target in named), named
    assert not [row for row in rows if row in named], "a leg named unavailable has no earnings"
