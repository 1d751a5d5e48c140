"""The event index never misses a Morpho position the chain holds: random sequences of supply,
collateral, borrow, withdraw, repay, vault deposits and share transfers (also on another
wallet's behalf) and liquidations on the real Morpho Blue, then every wallet's markets and vaults
as the service finds them (through the index: its stored part, and the tail it reads) against
the chain itself (`position()` in every market, `balanceOf` in every vault)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import protocols
from adapters.context import FetchContext
from adapters.morpho import positions as morpho
from adapters.morpho.section import MORPHO
from chain import Chains
from chain.event_index import Indexes, open_stores
from tests import morpho_world as W
from tests.conftest import covered_to, examples
from tests.evm import Anvil
from tests.test_morpho import PARAMS, market_id

ACTORS = 5
KINDS = ("supply", "collateral", "borrow", "withdraw", "repay", "deposit", "transfer", "liquidate")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    node = Anvil()
    try:
        world = W.build(node, W.compile_all())
        world.actors = node.accounts[14 : 14 + ACTORS]
        for actor in world.actors:
            W._fund(world, world.usdc, actor, 10_000_000 * W.USDC)
            W._fund(world, world.weth, actor, 10_000 * W.ETHER)
            node.send(world.usdc, "approve(address,uint256)", world.vault_v1, 2**256 - 1, sender=actor)
        world.addresses = world.write_addresses(tmp_path_factory.mktemp("a") / "a.json")
        yield world
    finally:
        node.stop()


def act(world, kind: str, actor: str, other: str, market, amount: int) -> None:
    """One action; one the contracts refuse (not enough collateral, say) just does not happen."""
    node, blue = world.node, world.morpho
    usdc, eth = amount * 1_000 * W.USDC, amount * W.ETHER
    calls = {
        "supply": (blue, f"supply({PARAMS},uint256,uint256,address,bytes)", market, usdc, 0, other, b""),
        "collateral": (blue, f"supplyCollateral({PARAMS},uint256,address,bytes)", market, eth, other, b""),
        "borrow": (blue, f"borrow({PARAMS},uint256,uint256,address,address)", market, usdc, 0, actor, actor),
        "withdraw": (blue, f"withdraw({PARAMS},uint256,uint256,address,address)", market, usdc, 0, actor, actor),
        "repay": (blue, f"repay({PARAMS},uint256,uint256,address,bytes)", market, usdc // 2, 0, actor, b""),
        "deposit": (
            world.vault_v1,
            "deposit(uint256,address,uint256)",
            usdc,
            other,
            0 if market == world.market_a else 1,
        ),
        "transfer": (world.vault_v1, "transfer(address,uint256)", other, amount * 10**15),
    }
    try:
        if kind != "liquidate":
            node.send(*calls[kind], sender=actor)
            return
        node.send(world.oracle, "setPrice(uint256)", W.ORACLE_PRICE // 20)
        try:
            node.send(
                blue,
                f"liquidate({PARAMS},address,uint256,uint256,bytes)",
                market,
                other,
                eth // 10,
                0,
                b"",
                sender=actor,
            )
        finally:
            node.send(world.oracle, "setPrice(uint256)", W.ORACLE_PRICE)
    except RuntimeError:
        pass


def truth(world, wallet: str) -> tuple[set[str], set[str]]:
    node = world.node
    markets = {
        market_id(m)
        for m in (world.market_a, world.market_b)
        if any(
            node.call(
                world.morpho,
                "position(bytes32,address)",
                bytes.fromhex(market_id(m)[2:]),
                wallet,
                returns=["uint256", "uint128", "uint128"],
            )
        )
    }
    vaults = {
        v for v in (world.vault_v1, world.broken_vault, world.vault_v2) if node.call(v, "balanceOf(address)", wallet)
    }
    return markets, vaults


async def found(world, indexes: Indexes, wallet: str) -> tuple[set[str], set[str]]:
    deadline = asyncio.get_running_loop().time() + 30
    chain = protocols.load_addresses(str(world.addresses))[world.node.chain_id]
    answer = await morpho.fetch(
        FetchContext(deadline, indexes.chains.request(deadline), indexes, chain, "morpho", section=MORPHO.of(chain)),
        wallet,
    )
    return (
        {p["marketId"] for p in answer["marketPositions"]},
        {v["vaultAddress"] for v in answer["vaultV1Positions"] + answer["vaultV2Positions"]},
    )


async def service_view(world) -> list[tuple[set[str], set[str]]]:
    """Every actor's positions, once from a cold index (all history read as the tail) and once
    more after the background scan has stored what settled."""
    chains = Chains({world.node.chain_id: world.node.url})
    indexes = Indexes(open_stores(Path(tempfile.mkdtemp(prefix="index-"))), chains)
    try:
        cold = [await found(world, indexes, actor) for actor in world.actors]
        deployment = MORPHO.of(protocols.load_addresses(str(world.addresses))[world.node.chain_id])
        index = indexes.store(world.node.chain_id)
        while await covered_to(index, morpho.stream(deployment)) < world.node.finalized_block():
            await asyncio.sleep(0.05)
        stored = [await found(world, indexes, actor) for actor in world.actors]
        assert stored == cold, "the stored part and the tail agree"
        return cold
    finally:
        await indexes.close()
        await chains.close()


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(KINDS),
            st.integers(0, ACTORS - 1),
            st.integers(0, ACTORS - 1),
            st.booleans(),
            st.integers(1, 300),
        ),
        min_size=1,
        max_size=14,
    ),
    st.sampled_from([0, 3, 70]),
)
def test_the_index_finds_every_position_the_chain_holds(world, actions, blocks_after):
    node = world.node
    snapshot = node.rpc("evm_snapshot")
    try:
        for kind, actor, other, first_market, amount in actions:
            act(
                world,
                kind,
                world.actors[actor],
                world.actors[other],
                world.market_a if first_market else world.market_b,
                amount,
            )
        node.mine(blocks_after)
        expected = [truth(world, actor) for actor in world.actors]
        assert asyncio.run(service_view(world)) == expected
    finally:
        node.rpc("evm_revert", snapshot)
