"""The chain reader against a real anvil node: pinning, batching, failures, logs, cache."""

from __future__ import annotations

import asyncio

import pytest

from chain import ChainConfig, ChainReader, erc20, rpc
from chain.abi import Function
from errors import ChainNotConfigured, NetworkError, ProtocolError
from tests.evm import CHAIN_ID, free_port

WALLET = "0x" + "77" * 20
ALWAYS_REVERTS = Function("alwaysReverts()", "b4f5537d", ("uint256",))
SUPPLY_AS_ADDRESS = Function("totalSupply()", "18160ddd", ("address",))


def deploy_token(node, artifacts, symbol="TST", decimals=6):
    return node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], [f"{symbol} token", symbol, decimals])


async def reader_for(open_chains, url, budget=10.0, **config) -> ChainReader:
    chains = await open_chains({CHAIN_ID: url}, **config)
    return chains.request(asyncio.get_running_loop().time() + budget).reader(CHAIN_ID)


def stats(reader: ChainReader):
    return reader._request.stats


async def test_reads_are_pinned_to_one_block(anvil, artifacts, open_chains, proxy):
    token = deploy_token(anvil, artifacts)
    anvil.send(token, "mint(address,uint256)", WALLET, 100)
    reader = await reader_for(open_chains, proxy.url)
    block = await reader.block_number()
    assert block == anvil.block_number()
    assert await reader.call(token, erc20.BALANCE_OF, WALLET) == (100,)
    anvil.send(token, "mint(address,uint256)", WALLET, 5)
    assert anvil.block_number() > block
    assert await reader.call(token, erc20.BALANCE_OF, WALLET) == (100,), "a later block leaked in"
    assert await reader.block_number() == block
    assert {call["params"][1] for call in proxy.calls("eth_call")} == {hex(block)}
    fresh = await reader_for(open_chains, proxy.url)
    assert await fresh.call(token, erc20.BALANCE_OF, WALLET) == (105,)


async def test_concurrent_calls_travel_in_one_http_request(anvil, artifacts, open_chains):
    tokens = [deploy_token(anvil, artifacts) for _ in range(5)]
    for amount, token in enumerate(tokens, start=1):
        anvil.send(token, "mint(address,uint256)", WALLET, amount * 10**18)
    reader = await reader_for(open_chains, anvil.url)
    holders = [WALLET] + ["0x" + f"{i:040x}" for i in range(1, 10)]
    pairs = [(t, h) for t in tokens for h in holders]
    results = await asyncio.gather(*(reader.call(t, erc20.BALANCE_OF, h) for t, h in pairs))
    assert [value for (value,) in results] == [anvil.call(t, "balanceOf(address)", h) for t, h in pairs]
    assert (stats(reader).requests, stats(reader).subcalls) == (2, 50)


async def test_identical_calls_of_a_request_are_asked_once(anvil, artifacts, open_chains):
    token = deploy_token(anvil, artifacts)
    anvil.send(token, "mint(address,uint256)", WALLET, 3)
    reader = await reader_for(open_chains, anvil.url)
    assert await asyncio.gather(*(reader.call(token, erc20.BALANCE_OF, WALLET) for _ in range(10))) == [(3,)] * 10
    assert await reader.call(token, erc20.BALANCE_OF, WALLET) == (3,)
    assert (stats(reader).requests, stats(reader).subcalls) == (2, 1)


async def test_calls_from_nested_tasks_still_coalesce(anvil, artifacts, open_chains):
    token = deploy_token(anvil, artifacts)
    reader = await reader_for(open_chains, anvil.url)
    await reader.block_number()

    async def nested(depth: int):
        if depth:
            return await asyncio.gather(nested(depth - 1), reader.call(token, erc20.BALANCE_OF, "0x" + f"{depth:040x}"))
        return await reader.call(token, erc20.DECIMALS)

    await asyncio.gather(nested(3), reader.call(token, erc20.SYMBOL))
    assert (stats(reader).requests, stats(reader).subcalls) == (2, 5)


async def test_chunks_of_one_round_share_one_http_request(anvil, artifacts, open_chains, proxy):
    token = deploy_token(anvil, artifacts)
    reader = await reader_for(open_chains, proxy.url, max_calls=7)
    await reader.block_number()
    proxy.posts.clear()
    await asyncio.gather(*(reader.call(token, erc20.BALANCE_OF, "0x" + f"{i:040x}") for i in range(20)))
    (post,) = proxy.posts
    assert [len(bytes.fromhex(item["params"][0]["data"][2:])) > 0 for item in post] == [True] * 3
    assert stats(reader).subcalls == 20


async def test_a_reverting_sub_call_fails_alone(anvil, artifacts, open_chains):
    token = deploy_token(anvil, artifacts)
    anvil.send(token, "mint(address,uint256)", WALLET, 42)
    reader = await reader_for(open_chains, anvil.url)
    good, bad, other = await asyncio.gather(
        reader.call(token, erc20.BALANCE_OF, WALLET),
        reader.call(token, ALWAYS_REVERTS, label="test token"),
        reader.call(token, erc20.SYMBOL),
        return_exceptions=True,
    )
    assert good == (42,) and other == ("TST",)
    assert isinstance(bad, ProtocolError)
    assert bad.message == (
        f"test token: alwaysReverts on chain {CHAIN_ID} at block {await reader.block_number()} "
        "reverted (reason 'TestToken: always reverts')."
    )


async def test_missing_code_is_a_protocol_error(anvil, open_chains):
    reader = await reader_for(open_chains, anvil.url)
    nowhere = "0x" + "de" * 20
    with pytest.raises(ProtocolError, match=f"balanceOf .* returned no data \\(no contract code at {nowhere}"):
        await reader.call(nowhere, erc20.BALANCE_OF, WALLET)


async def test_undecodable_return_is_a_protocol_error(anvil, artifacts, open_chains):
    token = deploy_token(anvil, artifacts)
    anvil.send(token, "mint(address,uint256)", WALLET, 2**200)
    reader = await reader_for(open_chains, anvil.url)
    with pytest.raises(ProtocolError, match=r"totalSupply .* returned undecodable data"):
        await reader.call(token, SUPPLY_AS_ADDRESS)


async def test_without_multicall_reads_fall_back_to_small_batches(bare_anvil, artifacts, open_chains):
    token = deploy_token(bare_anvil, artifacts)
    bare_anvil.send(token, "mint(address,uint256)", WALLET, 7)
    reader = await reader_for(open_chains, bare_anvil.url)
    holders = [WALLET] + ["0x" + f"{i:040x}" for i in range(1, 30)]
    results = await asyncio.gather(
        *(reader.call(token, erc20.BALANCE_OF, h) for h in holders),
        reader.call(token, ALWAYS_REVERTS),
        return_exceptions=True,
    )
    assert results[:30] == [(7,)] + [(0,)] * 29
    assert isinstance(results[30], ProtocolError) and "TestToken: always reverts" in results[30].message
    assert reader.endpoint.has_multicall is False
    assert (stats(reader).requests, stats(reader).subcalls) == (1 + 2, 31)


async def test_a_block_before_multicall3_is_read_plainly_with_no_round_more(bare_anvil, artifacts, open_chains):
    """A past block older than any the endpoint was seen with Multicall3 at: its first reads go
    through Multicall3 in the round that asks whether it had code then; where it had none, the
    aggregate3 that ran nothing goes again plain, and later reads of that block go plain at once."""
    token = deploy_token(bare_anvil, artifacts)
    bare_anvil.send(token, "mint(address,uint256)", WALLET, 7)
    before = bare_anvil.block_number()
    bare_anvil.mine(1)  # anvil sets code in the newest block's state: one after `before`
    bare_anvil.install_multicall(artifacts["Multicall3"])
    bare_anvil.mine(1)
    chains = await open_chains({CHAIN_ID: bare_anvil.url})
    request = chains.request(asyncio.get_running_loop().time() + 10)
    assert await request.reader(CHAIN_ID).block_number() and request.reader(CHAIN_ID).has_multicall
    pinned = request.stats.requests
    old = request.reader(CHAIN_ID, before)
    assert await old.call(token, erc20.BALANCE_OF, WALLET) == (7,)
    assert request.stats.requests - pinned == 2, "the aggregate3 beside the probe, then the calls plain"
    assert old.endpoint.multicall_absent_to == before and not old.has_multicall
    again = chains.request(asyncio.get_running_loop().time() + 10).reader(CHAIN_ID, before)
    assert await again.call(token, erc20.SYMBOL) == ("TST",) and not again.has_multicall


async def test_an_old_block_with_multicall3_costs_no_round_for_its_probe(anvil, artifacts, open_chains, proxy):
    token = deploy_token(anvil, artifacts)
    anvil.send(token, "mint(address,uint256)", WALLET, 5)
    before = anvil.block_number()
    anvil.mine(3)
    chains = await open_chains({CHAIN_ID: proxy.url})
    request = chains.request(asyncio.get_running_loop().time() + 10)
    await request.reader(CHAIN_ID).block_number()
    pinned = request.stats.requests
    old = request.reader(CHAIN_ID, before)
    assert await old.call(token, erc20.BALANCE_OF, WALLET) == (5,)
    assert request.stats.requests - pinned == 1 and old.endpoint.multicall_since == before
    assert len(proxy.calls("eth_getCode")) == 2, "the pin's probe at the head, then the old block's beside its read"


async def test_an_endpoint_that_serves_another_chain_is_refused(anvil, open_chains):
    chains = await open_chains({1: anvil.url})
    reader = chains.request(asyncio.get_running_loop().time() + 5).reader(1)
    with pytest.raises(NetworkError) as caught:
        await reader.block_number()
    assert caught.value.message == f"The RPC endpoint configured for chain 1 serves chain {CHAIN_ID}; it is not used."
    assert "127.0.0.1" not in caught.value.message
    assert reader.endpoint.chain_checked is False


async def test_a_chain_without_endpoint_is_not_configured(open_chains):
    chains = await open_chains({})
    with pytest.raises(ChainNotConfigured, match="no RPC endpoint for chain 5; its operator can set RPC_URL_5"):
        chains.request(0).reader(5)


async def test_an_endpoint_that_is_down_is_a_network_error_after_retries(open_chains, caplog):
    url = f"http://127.0.0.1:{free_port()}/secret-token"
    reader = await reader_for(open_chains, url)
    with pytest.raises(NetworkError) as caught:
        await reader.block_number()
    assert caught.value.message.startswith(f"The RPC endpoint for chain {CHAIN_ID} could not be reached")
    assert stats(reader).requests == ChainConfig().max_attempts
    logged = " ".join(record.getMessage() for record in caplog.records)
    assert "secret-token" not in logged and "127.0.0.1" not in logged and "127.0.0.1" not in caught.value.message


@pytest.mark.parametrize("value", ["not a url", "ftp://127.0.0.1/", "http://", "http://host with space/"])
def test_a_malformed_rpc_url_is_refused_naming_the_variable_only(value):
    with pytest.raises(rpc.RpcUrlError) as caught:
        rpc.rpc_urls_from_env({"RPC_URL_8453": value})
    assert str(caught.value) == "RPC_URL_8453 is not an http:// or https:// URL with a host"


@pytest.mark.parametrize("statuses", [[429], [503, 502]])
async def test_transient_http_failures_are_retried(anvil, open_chains, proxy, statuses):
    proxy.statuses = list(statuses)
    reader = await reader_for(open_chains, proxy.url)
    assert await reader.block_number() == anvil.block_number()
    assert stats(reader).requests == len(statuses) + 1


async def test_a_refusing_endpoint_is_not_retried(open_chains, proxy):
    proxy.statuses = [403]
    reader = await reader_for(open_chains, proxy.url)
    with pytest.raises(NetworkError, match="refused the request \\(HTTP 403\\)"):
        await reader.block_number()
    assert stats(reader).requests == 1


async def test_a_hanging_endpoint_runs_into_the_budget(open_chains, proxy):
    proxy.mode = "hang"
    reader = await reader_for(open_chains, proxy.url, budget=0.5)
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(TimeoutError):
        await reader.block_number()
    assert loop.time() - started < 5, "the attempt must end with the budget, not hang on"


@pytest.mark.parametrize(
    "mode, error, message",
    [
        ("not-json", NetworkError, "answered with something that is not JSON"),
        ("not-jsonrpc", NetworkError, "something that is not JSON-RPC"),
        ("bad-hex", NetworkError, "answered eth_getBlockByNumber with something of the wrong shape"),
    ],
)
async def test_garbage_answers_are_clear_errors(open_chains, proxy, mode, error, message):
    proxy.mode = mode
    reader = await reader_for(open_chains, proxy.url)
    with pytest.raises(error, match=message):
        await reader.block_number()


async def test_endpoints_without_batch_support_get_single_calls(anvil, artifacts, open_chains, proxy):
    proxy.mode = "no-batches"
    token = deploy_token(anvil, artifacts)
    reader = await reader_for(open_chains, proxy.url)
    assert await reader.call(token, erc20.SYMBOL) == ("TST",)
    assert reader.endpoint.batches_supported is False


async def test_get_logs_narrows_the_range_until_the_endpoint_accepts(anvil, artifacts, open_chains, proxy):
    token = deploy_token(anvil, artifacts)
    start = anvil.block_number()
    for amount in range(1, 41):
        anvil.send(token, "mint(address,uint256)", WALLET, amount)
        if amount % 3 == 0:
            anvil.mine(2)
    proxy.max_log_range = 20
    reader = await reader_for(open_chains, proxy.url, logs_block_range=64)
    logs = await reader.get_logs(token, [erc20.TRANSFER.topic], start)
    expected = anvil.rpc(
        "eth_getLogs",
        {
            "address": token,
            "topics": [erc20.TRANSFER.topic],
            "fromBlock": hex(start),
            "toBlock": hex(await reader.block_number()),
        },
    )
    assert [(entry.block_number, entry.log_index, entry.data) for entry in logs] == [
        (int(e["blockNumber"], 16), int(e["logIndex"], 16), bytes.fromhex(e["data"][2:])) for e in expected
    ]
    assert [int.from_bytes(entry.data, "big") for entry in logs] == list(range(1, 41))
    assert logs[0].topics[2] == "0x" + "00" * 12 + WALLET[2:]
    assert reader.endpoint.logs_block_range == 16
    rounds = len([post for post in proxy.posts if "eth_getLogs" in str(post)])
    again = await reader.get_logs(token, [erc20.TRANSFER.topic], start)
    assert again == logs
    assert len([post for post in proxy.posts if "eth_getLogs" in str(post)]) == rounds + 1, (
        "the narrowed range is remembered: one round the second time"
    )
    assert reader.endpoint.logs_block_range == 32, "a call without narrowing lets the range grow back"


async def test_get_logs_refuses_spans_needing_too_many_queries(open_chains, anvil):
    reader = await reader_for(open_chains, anvil.url, logs_block_range=1)
    with pytest.raises(ProtocolError, match="need more than 5000 queries"):
        await reader.get_logs("0x" + "11" * 20, [], 0, 10_000)


async def test_json_rpc_rate_limit_errors_are_network_errors(open_chains, proxy):
    proxy.mode = "rate-limit-error"
    reader = await reader_for(open_chains, proxy.url)
    with pytest.raises(NetworkError, match="rate-limited the service"):
        await reader.block_number()


async def test_one_cancelled_caller_does_not_break_its_batch(anvil, artifacts, open_chains):
    token = deploy_token(anvil, artifacts)
    anvil.send(token, "mint(address,uint256)", WALLET, 9)
    reader = await reader_for(open_chains, anvil.url)
    await reader.block_number()
    doomed = asyncio.ensure_future(reader.call(token, erc20.BALANCE_OF, WALLET))
    survivor = asyncio.ensure_future(reader.call(token, erc20.BALANCE_OF, WALLET))
    await asyncio.sleep(0)
    doomed.cancel()
    assert await survivor == (9,)


async def test_a_bad_target_fails_only_its_own_call(anvil, artifacts, open_chains):
    token = deploy_token(anvil, artifacts)
    reader = await reader_for(open_chains, anvil.url)
    good, bad = await asyncio.gather(
        reader.call(token, erc20.SYMBOL), reader.call("0x12", erc20.SYMBOL), return_exceptions=True
    )
    assert good == ("TST",)
    assert isinstance(bad, ProtocolError) and "no valid target address" in bad.message


async def test_block_timestamp_rides_along_with_the_next_round(anvil, artifacts, open_chains):
    token = deploy_token(anvil, artifacts)
    reader = await reader_for(open_chains, anvil.url)
    block = await reader.block_number()
    timestamp, symbol = await asyncio.gather(reader.block_timestamp(), reader.call(token, erc20.SYMBOL))
    assert timestamp == int(anvil.rpc("eth_getBlockByNumber", hex(block), False)["timestamp"], 16)
    assert symbol == ("TST",) and stats(reader).requests == 2


async def test_immutable_facts_are_cached_across_requests(anvil, artifacts, open_chains):
    token = deploy_token(anvil, artifacts, symbol="CCH", decimals=8)
    chains = await open_chains({CHAIN_ID: anvil.url}, cache_size=3)
    loop = asyncio.get_running_loop()
    first = chains.request(loop.time() + 5)
    info = await erc20.token_info(first.reader(CHAIN_ID), token)
    assert info == {"address": token, "symbol": "CCH", "name": "CCH token", "decimals": 8}
    assert first.stats.subcalls == 3
    second = chains.request(loop.time() + 5)
    assert await erc20.token_info(second.reader(CHAIN_ID), token) == info
    assert (second.stats.requests, second.stats.subcalls) == (0, 0)
    other = deploy_token(anvil, artifacts, symbol="OTH")
    await erc20.token_info(chains.request(loop.time() + 5).reader(CHAIN_ID), other)
    assert len(chains.cache) == 3, "the cache stays within its bound"


async def test_token_info_reads_bytes32_names_too(anvil, open_chains):
    from tests.morpho_world import compile_all

    token = anvil.deploy(compile_all()["Bytes32Token"])
    reader = await reader_for(open_chains, anvil.url)
    assert await erc20.token_info(reader, token) == {"address": token, "symbol": "MKR", "name": "Maker", "decimals": 18}
