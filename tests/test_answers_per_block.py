"""Answers kept per input and block (schema.py), on the vault-style world behind a proxy: the same
input at the same block costs no RPC request; a new block, or a reorganised one at the same
height, is read afresh; an answer with a warning a retry could clear is not kept."""

from __future__ import annotations

import server
from tests import vault_style_world as W
from tests.conftest import proxied_api, world_fixture
from tests.null_figures import failed
from tests.test_head import until
from tests.test_vault_style import answers

world = world_fixture(W.build)


async def test_the_same_input_at_the_same_block_costs_no_rpc_request(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path
):
    proxy, api = await proxied_api(
        aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path, head_poll_seconds=0.05
    )
    holder = world.wallets["holder"]
    first = await answers(api, holder)
    assert all(failed(answer["warnings"]) == [] for answer in first.values())
    before = proxy.reads()
    assert await answers(api, holder) == first
    assert proxy.reads() == before, "kept: pinned by the follower, answered from memory"
    assert await answers(api, holder, ("midas", "neutrl")) == {p: first[p] for p in ("midas", "neutrl")}
    assert proxy.reads() == before, "each input is kept on its own"
    block = first["midas"]["blockNumber"]
    world.node.mine()
    follower = api.app[server.CHAINS].follower(world.node.chain_id)
    await until(lambda: follower.head is not None and follower.head.number == block + 1)
    later = await answers(api, holder)
    assert {answer["blockNumber"] for answer in later.values()} == {block + 1}
    assert proxy.reads() > before, "a new block is read"


async def test_a_reorganised_block_at_the_same_height_is_read_afresh(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path
):
    proxy, api = await proxied_api(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path)
    node, holder = world.node, world.wallets["holder"]
    snapshot = node.rpc("evm_snapshot")
    node.mine()
    first = await answers(api, holder, ("midas",))
    before = proxy.reads()
    assert await answers(api, holder, ("midas",)) == first
    assert proxy.reads() == before, "nothing but the pin's header (the follower is off here)"
    node.rpc("evm_revert", snapshot)
    node.rpc("anvil_mine", "0x1", hex(3600))
    again = await answers(api, holder, ("midas",))
    assert again["midas"]["blockNumber"] == first["midas"]["blockNumber"]
    assert proxy.reads() > before, "another block at the same height: read, not served from memory"


async def test_an_answer_a_retry_could_complete_is_not_kept(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path
):
    proxy, api = await proxied_api(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path)
    proxy.history_from = world.then + 1
    holder = world.wallets["holder"]
    first = await answers(api, holder, ("midas",))
    assert {w["code"] for w in first["midas"]["warnings"]} == {"HISTORY_UNAVAILABLE"}
    before = proxy.reads()
    await answers(api, holder, ("midas",))
    assert proxy.reads() > before, "read again: another node may keep the history"
    proxy.history_from = None
    healed = await answers(api, holder, ("midas",))
    assert healed["midas"]["warnings"] == []
    assert healed["midas"]["blockNumber"] == first["midas"]["blockNumber"]
