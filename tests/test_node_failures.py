"""A node's failure is never taken for a contract's: retried, then a retryable NETWORK_ERROR.

Real anvil behind tests/rpc_proxy.py, which lags, errors, redirects or floods on demand.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest

from chain import erc20, rpc, rpc_batches
from chain.abi import Function
from errors import NetworkError, ProtocolError
from tests.evm import CHAIN_ID, ROOT
from tests.rpc_proxy import HEADER_NOT_FOUND, LIMIT_EXCEEDED, NODE_ERRORS
from tests.test_chain import WALLET, deploy_token, reader_for, stats

BURN = Function("burn()", "44df8e70", ("uint256",))
HEAVY = Function("heavy()", "b52a7a86", ("uint256",))
REVERTS_EMPTY = Function("reverts()", "3bccbbc9", ("uint256",))


class _AnyInt:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, int)


ANY_INT = _AnyInt()


def holders(count: int) -> list[str]:
    return ["0x" + f"{i + 1:040x}" for i in range(count)]


async def test_a_node_error_on_every_call_is_retried_whole_then_a_network_error(anvil, artifacts, open_chains, proxy):
    token = deploy_token(anvil, artifacts)
    reader = await reader_for(open_chains, proxy.url)
    await reader.block_number()
    proxy.item_faults = {"eth_call": (1.0, HEADER_NOT_FOUND)}
    results = await asyncio.gather(
        *(reader.call(token, erc20.BALANCE_OF, h) for h in holders(200)), return_exceptions=True
    )
    assert all(isinstance(r, NetworkError) and r.retryable for r in results)
    assert (
        results[0].message
        == f"The RPC endpoint for chain {CHAIN_ID} answered eth_call with error -32000: header not found."
    )
    assert stats(reader).requests == 1 + 3, "the pin, then one aggregate3 three times: never split"


@pytest.mark.parametrize("error", NODE_ERRORS)
async def test_only_the_calls_a_node_failed_are_asked_again(anvil, artifacts, open_chains, proxy, error):
    token = deploy_token(anvil, artifacts)
    anvil.send(token, "mint(address,uint256)", WALLET, 5)
    reader = await reader_for(open_chains, proxy.url, max_calls=10)
    await reader.block_number()
    proxy.posts.clear()
    proxy.item_faults, proxy.fault_limit = {"eth_call": (1.0, error)}, 3
    wallets = [WALLET, *holders(39)]
    results = await asyncio.gather(*(reader.call(token, erc20.BALANCE_OF, h) for h in wallets))
    assert results == [(5,)] + [(0,)] * 39
    assert [len(post) if isinstance(post, list) else 1 for post in proxy.posts] == [4, 3], (
        "four aggregate3 chunks, then only the three the node failed"
    )


async def test_a_block_the_node_does_not_know_yet_is_retried_then_a_network_error(anvil, open_chains, proxy):
    """The pinned head's own timestamp comes with its header; an earlier block's is asked."""
    anvil.rpc("evm_mine")
    reader = await reader_for(open_chains, proxy.url)
    block = await reader.block_number() - 1
    proxy.item_faults, proxy.fault_limit = {"eth_getBlockByNumber": (1.0, None)}, 2
    assert await reader.timestamp_of(block) == int(
        anvil.rpc("eth_getBlockByNumber", hex(block), False)["timestamp"], 16
    )
    lagging = await reader_for(open_chains, proxy.url)
    await lagging.block_number()
    proxy.fault_limit = None
    with pytest.raises(NetworkError, match="answered eth_getBlockByNumber with null") as caught:
        await lagging.timestamp_of(block)
    assert caught.value.retryable


async def test_a_limit_on_the_head_header_is_a_network_error_not_a_protocol_error(open_chains, proxy):
    proxy.item_faults = {"eth_getBlockByNumber": (1.0, LIMIT_EXCEEDED)}
    reader = await reader_for(open_chains, proxy.url)
    with pytest.raises(NetworkError, match="answered eth_getBlockByNumber with error -32005: limit exceeded"):
        await reader.block_number()
    assert stats(reader).requests == 3


async def test_a_sub_call_starved_of_gas_by_an_earlier_one_is_run_again_alone(anvil, artifacts, open_chains, proxy):
    burner, heavy = anvil.deploy(artifacts["GasBurner"]), anvil.deploy(artifacts["HeavyView"])
    reader = await reader_for(open_chains, proxy.url)
    await reader.block_number()
    burned, total = await asyncio.gather(reader.call(burner, BURN), reader.call(heavy, HEAVY))
    assert burned[0] > 0 and total == (anvil.call(heavy, "heavy()"),)
    alone = [c for c in proxy.calls("eth_call") if c["params"][0]["to"] == heavy]
    assert len(alone) == 1, "the starved sub-call was asked again on its own"
    assert alone[0]["params"][1] == hex(await reader.block_number()), "at the same block"


async def test_an_empty_revert_that_persists_alone_is_the_contracts(anvil, artifacts, open_chains, proxy):
    heavy = anvil.deploy(artifacts["HeavyView"])
    reader = await reader_for(open_chains, proxy.url)
    with pytest.raises(ProtocolError, match=r"reverts on chain .* reverted \(no reason given\)"):
        await reader.call(heavy, REVERTS_EMPTY)
    assert len([c for c in proxy.calls("eth_call") if c["params"][0]["to"] == heavy]) == 1


async def test_a_redirect_is_not_followed(open_chains, proxy):
    proxy.mode = "redirect"
    reader = await reader_for(open_chains, proxy.url)
    with pytest.raises(NetworkError, match="answered with a redirect \\(HTTP 307\\), which is not followed"):
        await reader.block_number()
    assert proxy.elsewhere == []


async def test_an_oversized_answer_is_not_read_past_the_ceiling(open_chains, proxy):
    proxy.mode = "oversized"
    reader = await reader_for(open_chains, proxy.url, max_response_bytes=1 << 20)
    with pytest.raises(NetworkError, match=f"answered with more than {1 << 20} bytes"):
        await reader.block_number()


async def test_a_batch_answer_over_the_ceiling_is_asked_again_in_halves(anvil, artifacts, open_chains, proxy):
    token = deploy_token(anvil, artifacts)
    anvil.send(token, "mint(address,uint256)", WALLET, 3)
    reader = await reader_for(open_chains, proxy.url, max_calls=10, max_response_bytes=8_000)
    await reader.block_number()
    proxy.posts.clear()
    wallets = [WALLET, *holders(99)]
    assert await asyncio.gather(*(reader.call(token, erc20.BALANCE_OF, h) for h in wallets)) == [(3,)] + [(0,)] * 99
    assert len(proxy.posts) > 1 and reader.endpoint.batches_supported, "split, and batches stay in use"


async def test_one_hanging_endpoint_cannot_starve_another_chain(anvil, artifacts, open_chains, proxy):
    token = deploy_token(anvil, artifacts)
    proxy.mode = "hang"
    chains = await open_chains({1: proxy.url, CHAIN_ID: anvil.url})
    loop = asyncio.get_running_loop()
    stuck = [asyncio.ensure_future(chains.request(loop.time() + 30).reader(1).block_number()) for _ in range(100)]
    await asyncio.sleep(0.2)
    try:
        healthy = chains.request(loop.time() + 5).reader(CHAIN_ID)
        assert await healthy.call(token, erc20.SYMBOL) == ("TST",)
        assert not any(task.done() for task in stuck)
    finally:
        for task in stuck:
            task.cancel()
        await asyncio.gather(*stuck, return_exceptions=True)


async def test_a_batch_too_large_for_the_endpoint_is_split_not_given_up(anvil, artifacts, open_chains, proxy):
    """A body over the endpoint's limit is refused whole (anvil: about 2 MiB): the batch is sent
    again in halves, every call is answered, and the endpoint keeps its batches."""
    token = deploy_token(anvil, artifacts)
    proxy.max_body_bytes = 48 * 1024
    reader = await reader_for(open_chains, proxy.url, max_calls=100)
    holders = ["0x" + f"{i:040x}" for i in range(1, 1_201)]
    balances = await asyncio.gather(*(reader.call(token, erc20.BALANCE_OF, holder) for holder in holders))
    assert balances == [(0,)] * len(holders)
    assert reader.endpoint.batches_supported is True
    assert max(proxy.body_sizes) > proxy.max_body_bytes, "the first try was too large"
    assert len(proxy.posts) < 40, "split in halves, not sent one call at a time"


def test_batches_and_chunks_are_bounded_by_bytes():
    calls = [("eth_call", [{"to": "0x" + "11" * 20, "data": "0x" + "ab" * 20_000}, "latest"])] * 200
    groups = rpc_batches._groups(calls, 50)
    assert all(sum(len(json.dumps(c)) for c in group) <= rpc_batches.MAX_RPC_BODY_BYTES for group in groups)
    assert sum(len(group) for group in groups) == 200 and len(groups) > 4


async def test_an_endpoint_that_refused_a_batch_is_probed_again_later(anvil, artifacts, open_chains, proxy):
    token = deploy_token(anvil, artifacts)
    proxy.mode = "no-batches"
    chains = await open_chains({CHAIN_ID: proxy.url})
    loop = asyncio.get_running_loop()
    reader = chains.request(loop.time() + 10).reader(CHAIN_ID)
    assert await reader.call(token, erc20.SYMBOL) == ("TST",)
    assert reader.endpoint.batches_supported is False
    proxy.mode = "forward"
    reader.endpoint.batches_refused_at -= rpc.BATCH_REPROBE_SECONDS + 1
    proxy.posts.clear()
    later = chains.request(loop.time() + 10).reader(CHAIN_ID)
    await later.block_number()
    assert await asyncio.gather(later.call(token, erc20.DECIMALS), later.timestamp_of(0)) == [(6,), ANY_INT]
    assert any(isinstance(post, list) for post in proxy.posts), "batches are tried again"


async def test_untrusted_text_is_capped_and_stripped_and_the_cache_is_bounded_in_bytes(anvil, artifacts, open_chains):
    hostile = anvil.deploy(artifacts["HostileText"])
    chains = await open_chains({CHAIN_ID: anvil.url}, cache_bytes=8_000)
    reader = chains.request(asyncio.get_running_loop().time() + 10).reader(CHAIN_ID)
    info = await erc20.token_info(reader, hostile)
    assert info["symbol"] == "EVLX"
    assert len(info["name"]) == rpc.MAX_TEXT and info["name"].startswith("EvilToken")
    assert not any(ord(c) < 32 or 0x202A <= ord(c) <= 0x202E for c in info["name"])
    tokens = [deploy_token(anvil, artifacts, symbol=f"T{count}") for count in range(30)]
    later = chains.request(asyncio.get_running_loop().time() + 10).reader(CHAIN_ID)
    await asyncio.gather(*(erc20.token_info(later, token) for token in tokens))
    assert len(chains.cache) > 3 and 0 < chains.cache.bytes <= 8_000


def test_a_malformed_rpc_url_stops_start_up_naming_the_variable_only(tmp_path):
    env = {**os.environ, "RPC_URL_8453": "htps//user:secret-value@nowhere", "API_KEYS_FILE": str(tmp_path / "k.env")}
    done = subprocess.run(
        [sys.executable, str(ROOT / "server.py"), "--port", "0"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "RPC_URL_8453 is not an http:// or https:// URL with a host" in done.stderr
    assert "secret-value" not in done.stderr + done.stdout


def test_a_node_failure_is_never_classified_as_the_contracts():
    for error in NODE_ERRORS:
        answer = {"jsonrpc": "2.0", "id": 0, "error": error}
        assert isinstance(rpc.classify(answer, "eth_call", []), rpc.NodeFailure), error
    revert = {"jsonrpc": "2.0", "id": 0, "error": {"code": 3, "message": "execution reverted", "data": "0x"}}
    assert isinstance(rpc.classify(revert, "eth_call", []), rpc.RpcError)
    assert isinstance(rpc.classify({"jsonrpc": "2.0", "id": 0, "result": None}, "eth_call", []), rpc.NodeFailure)
