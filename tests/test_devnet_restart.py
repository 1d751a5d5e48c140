"""A devnet started again under a kept state directory, as a new user does: every world built on
a new chain under the same chain id (the same addresses, other block hashes), shorter than the
old one had grown, and the service started again on the event index the old chain left. Every
protocol answers every demo wallet, with the positions it had on the old chain; before, every
input that reads the index answered NETWORK_ERROR until the directory was deleted."""

from __future__ import annotations

import asyncio
import logging
import shutil
from pathlib import Path
from typing import Any

import protocols
import server
from chain.index_store import IndexStore
from tests import all_worlds
from tests.evm import Anvil
from tests.test_past_blocks import Service


def every_input(worlds: all_worlds.AllWorlds, folder: Path) -> list[dict[str, Any]]:
    """Every protocol served on the chain, for every demo wallet."""
    served = protocols.registry(protocols.load_addresses(folder / "addresses.json"))
    chain = worlds.node.chain_id
    return [
        {"protocol": name, "chainId": chain, "walletAddress": wallet}
        for name, protocol in sorted(served.items())
        if chain in protocol.chains
        for wallet in worlds.wallets.values()
    ]


def holdings(answer: dict[str, Any]) -> list[tuple[str, str, str, dict[str, int]]]:
    """What each entry (the wallet's own, and each account's it controls) holds: its lists of
    positions by length."""
    return [
        (
            entry["protocol"],
            entry["walletAddress"],
            entry["holder"],
            {name: len(value) for name, value in entry.items() if isinstance(value, list) and name != "warnings"},
        )
        for entry in answer["data"]
    ]


async def test_a_devnet_started_again_under_a_kept_state_directory_answers_everything(tmp_path, caplog):
    old_folder, new_folder = tmp_path / "old", tmp_path / "new"
    old_folder.mkdir()
    new_folder.mkdir()
    node = Anvil()
    try:
        old, key = all_worlds.prepare(node, old_folder, "old")
        inputs = every_input(old, old_folder)
        async with Service(old_folder, key, node) as service:
            before = await service.positions(inputs)
            node.mine(300)
            await service.positions(inputs)
            covered = await settled(service.app[server.INDEXES].store(node.chain_id), node.finalized_block())
    finally:
        node.stop()
    assert before["errors"] == [] and len([entry for entry in before["data"] if entry["via"] is None]) == len(inputs)
    assert {"morpho", "pendle", "uniswap"} <= {item["protocol"] for item in inputs}
    shutil.copytree(old_folder / "state", new_folder / "state")
    node = Anvil()
    try:
        new, key = all_worlds.prepare(node, new_folder, "new")
        assert new.addresses == old.addresses and new.wallets == old.wallets, "a devnet started again"
        assert node.block_number() < covered, "shorter than the stored part had grown"
        caplog.set_level(logging.WARNING, "wallet_positions.index")
        async with Service(new_folder, key, node) as service:
            after = await service.positions(every_input(new, new_folder))
    finally:
        node.stop()
    assert after["errors"] == []
    assert holdings(after) == holdings(before)
    assert any("scanning it again" in record.getMessage() for record in caplog.records)


async def settled(index: IndexStore, block: int) -> int:
    """Wait until every stream of the file is stored up to `block`; the lowest block they reach."""
    for _ in range(600):
        if min(covered for _, _, covered in await index.covered()) >= block:
            break
        await asyncio.sleep(0.05)
    return min(covered for _, _, covered in await index.covered())
