"""Flows of a vault-style cooldown in `positionsHistory` (adapters/vault_style/flows.py): the
holder of an Ethena-style vault starts a cooldown (its shares' assets withdrawn to the silo, with
OpenZeppelin's ERC-4626 events) and the silo pays an unstake; the cooldown leg adds what the
withdrawal sent and takes out what the silo paid, and earns nothing. The world's own cooldowns,
started the same way, are derived too; a vault whose silo is the zero address is named."""

from __future__ import annotations

from pathlib import Path

import pytest

import auth
from tests import vault_style_world as V
from tests.evm import Anvil
from tests.test_history_flows import _assets, _block, ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service


class CooldownFlows:
    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = V.build(self.node)
        self.wallet, self.silo = self.world.wallets["holder"], self.node.accounts[5]
        self.vault = self.world.vaults["ethena-susde"].lower()
        self.usde = self.world.tokens["USDe"].lower()
        # an account in place of the world's silo (a contract that pays nothing), to pay an unstake
        self.node.send(self.vault, "setSilo(address)", self.silo)
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "cooldown-flows")[0]


cooldowns = chain_fixture(CooldownFlows)


async def test_a_cooldown_started_and_unstaked(cooldowns: CooldownFlows) -> None:
    node, vault, wallet, usde = cooldowns.node, cooldowns.vault, cooldowns.wallet, cooldowns.usde
    start = node.block_number()
    waiting = node.call(vault, "cooldowns(address)", wallet, returns=("uint104", "uint152"))[1]
    shares = node.call(vault, "balanceOf(address)", wallet) // 4
    assets = node.call(vault, "convertToAssets(uint256)", shares)
    cooled = _block(node.send(vault, "cooldownShares(uint256)", shares, sender=wallet))
    paid = waiting + assets // 2  # the silo pays part of what waits (Ethena's unstake pays it all)
    node.send(usde, "mint(address,uint256)", cooldowns.silo, paid)
    unstaked = _block(node.send(usde, "transfer(address,uint256)", wallet, paid, sender=cooldowns.silo))
    node.send(vault, "setCooldown(address,uint104,uint152)", wallet, 1, waiting + assets - paid)
    node.mine(1)
    inputs = [{"protocol": "ethena", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(cooldowns.folder, cooldowns.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    assert [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]] == [
        (vault, "withdraw", -assets, cooled),
        (f"{vault}:cooldown", "cooldown", assets, cooled),
        (f"{vault}:cooldown", "unstake", -paid, unstaked),
    ]
    assert all(flow["asset"] == usde and flow["amountUsd"] is not None for flow in entry["flows"])
    rows = {row["position"]: row for row in entry["earnings"]}
    assert earned_adds_up(rows[f"{vault}:cooldown"]) == 0, "a cooldown earns nothing while it waits"
    assert int(rows[f"{vault}:cooldown"]["startAmount"]) == waiting
    assert not [w for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"]
    assert pytest.approx(rows[f"{vault}:cooldown"]["pnlUsd"], abs=1e-6) == 0


async def test_the_worlds_cooldown_made_by_the_entry_points(cooldowns: CooldownFlows) -> None:
    """The cooler's cooldown in Avant's vault since `then`, as the world made it: shares minted
    (ERC-4626's mint at the first state's rate), then cooled down to the vault's silo: the share
    leg's deposit and withdraw, the cooldown leg's cooldown, as much as the vault's cooldowns() holds."""
    node, world = cooldowns.node, cooldowns.world
    cooler, vault = world.wallets["cooler"], world.vaults["avant-savusd"].lower()
    (shares,) = [shares for role, kind, shares, _ in V.COOLDOWNS if (role, kind) == ("cooler", "avant-savusd")]
    spec = next(spec for spec in V.VAULTS if spec.kind == "avant-savusd")
    paid = -(-shares * spec.assets[0] // spec.supply)
    end, waiting = world.cooldowns[cooler]["avant-savusd"]
    assert waiting == shares * (spec.assets[0] + paid) // (spec.supply + shares), "cooldownShares' convertToAssets"
    inputs = [{"protocol": "avant", "chainId": node.chain_id, "walletAddress": cooler}]
    async with Service(cooldowns.folder, cooldowns.key, node) as service:
        arguments = {"from": {"blockNumber": world.then}, "to": {"blockNumber": node.block_number()}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    assert [(f["position"], f["kind"], int(f["amount"])) for f in entry["flows"]] == [
        (vault, "deposit", paid),
        (vault, "withdraw", -waiting),
        (f"{vault}:cooldown", "cooldown", waiting),
    ]
    minted, cooled, leg = (flow["blockNumber"] for flow in entry["flows"])
    assert minted < cooled == leg and V.WEEK + world.timestamp(cooled) == end
    assert not [w for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"]
    rows = {row["position"]: row for row in entry["earnings"]}
    assert earned_adds_up(rows[f"{vault}:cooldown"]) == 0 and int(rows[f"{vault}:cooldown"]["endAmount"]) == waiting


async def test_a_cooldown_vault_without_a_silo_is_named_not_guessed(cooldowns: CooldownFlows) -> None:
    """Neutrl's vault with its silo at the zero address: its cooldown leg is named as not derived
    and left out of the earnings (its shares' flows stand)."""
    node, world, wallet = cooldowns.node, cooldowns.world, cooldowns.wallet
    vault = world.vaults["neutrl-snusd"].lower()
    silo = node.call(vault, "silo()", returns=("address",))
    node.send(vault, "setSilo(address)", "0x" + "00" * 20)
    try:
        start = node.block_number()
        shares = node.call(vault, "balanceOf(address)", wallet) // 5
        node.send(vault, "cooldownShares(uint256)", shares, sender=wallet)
        node.mine(1)
        inputs = [{"protocol": "neutrl", "chainId": node.chain_id, "walletAddress": wallet}]
        async with Service(cooldowns.folder, cooldowns.key, node) as service:
            arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
            (entry,) = (await ask(service, inputs, **arguments))["data"]
    finally:
        node.send(vault, "setSilo(address)", silo)
    (warning,) = [w for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"]
    assert warning["target"] == f"{vault}:cooldown" and "zero address" in warning["message"]
    assert [row["position"] for row in entry["earnings"]] == [vault]
    assert [(f["position"], f["kind"]) for f in entry["flows"]] == [(vault, "withdraw")]


async def test_a_contract_the_flows_need_failing_leaves_the_points_standing(cooldowns: CooldownFlows) -> None:
    """A share transfer at a block where the vault's convertToAssets reverts: the points are
    answered, the flows named as not derived, and nothing fails as a whole."""
    node, vault, wallet = cooldowns.node, cooldowns.vault, cooldowns.wallet
    start = node.block_number()
    node.send(vault, "setBroken(uint8)", 1)
    node.send(vault, "transfer(address,uint256)", cooldowns.world.wallets["cooler"], 10**18, sender=wallet)
    node.send(vault, "setBroken(uint8)", 0)
    node.mine(1)
    inputs = [{"protocol": "ethena", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(cooldowns.folder, cooldowns.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    assert all(point["error"] is None for point in entry["points"])
    (warning,) = [w for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"]
    assert warning["target"] == "ethena" and "convertToAssets broken" in warning["message"]
    assert entry["flows"] == entry["earnings"] == []


async def test_sky_savings_vaults_minted_and_sent_are_flows(cooldowns: CooldownFlows) -> None:
    """Sky's savings vaults (sUSDS, sDAI) follow the vault-style flows: a mint into sUSDS (in USDS, as
    its ERC-4626 event says) and sDAI shares sent away (in DAI, by the vault's own rate then), priced, and
    earnings that add up."""
    node, world, wallet = cooldowns.node, cooldowns.world, cooldowns.wallet
    susds, sdai = world.vaults["sky-susds"].lower(), world.vaults["sky-sdai"].lower()
    usds = world.tokens["USDS"].lower()
    node.send(usds, "mint(address,uint256)", wallet, 1_000 * 10**18)
    node.send(usds, "approve(address,uint256)", susds, 1_000 * 10**18, sender=wallet)
    start = node.block_number()
    deposited = node.send(susds, "mint(uint256,address)", 400 * 10**18, wallet, sender=wallet)  # as the world does
    shares = node.call(sdai, "balanceOf(address)", wallet) // 3
    sent = node.send(sdai, "transfer(address,uint256)", node.accounts[6], shares, sender=wallet)
    sent_assets = node.call(sdai, "convertToAssets(uint256)", shares, block=_block(sent))
    node.mine(1)
    inputs = [{"protocol": "sky", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(cooldowns.folder, cooldowns.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    assert [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]] == [
        (susds, "deposit", _assets(deposited, 0, address=susds), _block(deposited)),
        (sdai, "transfer-out", -sent_assets, _block(sent)),
    ]
    assert all(flow["amountUsd"] is not None for flow in entry["flows"])
    assert {row["position"] for row in entry["earnings"]} == {susds, sdai}
    for row in entry["earnings"]:
        earned_adds_up(row)
