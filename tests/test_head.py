"""The head followed in the background (chain/head.py): a request pins the newest block seen
without a round trip; an idle chain is not polled; a head the follower cannot confirm is not
used, and the request meets the endpoint's failure itself. Real anvil behind tests/rpc_proxy.py."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from chain import erc20, head
from errors import InputValidationError, NetworkError
from tests.evm import CHAIN_ID
from tests.test_chain import WALLET, deploy_token, stats

POLL = 0.05


def polls(proxy: Any) -> int:
    """Posts that are the follower's: only `latest` and `finalized` headers (and the hash probe)."""
    return len(proxy.posts) - proxy.reads()


async def until(condition: Any, seconds: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        assert loop.time() < deadline, "the condition did not come true in time"
        await asyncio.sleep(0.01)


async def test_a_request_pins_the_followed_head_without_a_round_trip(anvil, open_chains, proxy):
    chains = await open_chains({CHAIN_ID: proxy.url}, head_poll_seconds=POLL)
    loop = asyncio.get_running_loop()
    first = chains.request(loop.time() + 10).reader(CHAIN_ID)
    pinned = await first.block_number()
    assert stats(first).requests == 1, "the first request pins the chain itself"
    anvil.mine()
    follower = chains.follower(CHAIN_ID)
    await until(lambda: follower.head is not None and follower.head.number == pinned + 1)
    later = chains.request(loop.time() + 10).reader(CHAIN_ID)
    assert await later.block_number() == pinned + 1
    header = anvil.rpc("eth_getBlockByNumber", hex(pinned + 1), False)
    assert await later.block_key() == header["hash"].lower()
    assert await later.block_timestamp() == int(header["timestamp"], 16)
    assert stats(later).requests == 0, "pinned, hashed and timed with no request of its own"
    past = chains.request(loop.time() + 10).reader(CHAIN_ID, pinned)
    assert await past.block_number() == pinned and stats(past).requests == 0
    await until(lambda: follower.settled is not None)
    assert follower.settled == anvil.finalized_block()


async def test_an_unused_chain_is_no_longer_polled(anvil, open_chains, proxy, monkeypatch):
    monkeypatch.setattr(head, "IDLE_SECONDS", 0.3)
    chains = await open_chains({CHAIN_ID: proxy.url}, head_poll_seconds=POLL)
    loop = asyncio.get_running_loop()
    await chains.request(loop.time() + 10).reader(CHAIN_ID).block_number()
    await until(lambda: polls(proxy) >= 2)
    await asyncio.sleep(0.5)
    quiet = polls(proxy)
    await asyncio.sleep(0.3)
    assert polls(proxy) == quiet, "an idle chain costs its endpoint nothing"
    again = chains.request(loop.time() + 10).reader(CHAIN_ID)
    assert await again.block_number() == anvil.block_number()
    assert stats(again).requests == 1, "the next request pins its own block, and following resumes"
    await until(lambda: polls(proxy) > quiet)


async def test_a_head_the_follower_cannot_confirm_is_not_used(anvil, open_chains, proxy):
    chains = await open_chains({CHAIN_ID: proxy.url}, head_poll_seconds=POLL, max_attempts=1)
    loop = asyncio.get_running_loop()
    await chains.request(loop.time() + 10).reader(CHAIN_ID).block_number()
    proxy.mode = "not-json"
    await asyncio.sleep(POLL * (head.STALE_POLLS + 3))
    failing = chains.request(loop.time() + 2).reader(CHAIN_ID)
    with pytest.raises(NetworkError, match="not JSON"):
        await failing.block_number()
    proxy.mode = "forward"
    follower = chains.follower(CHAIN_ID)
    await until(lambda: follower.current() is not None)
    assert await chains.request(loop.time() + 10).reader(CHAIN_ID).block_number() == anvil.block_number()


async def test_following_is_off_at_zero(anvil, open_chains, proxy):
    chains = await open_chains({CHAIN_ID: proxy.url})
    loop = asyncio.get_running_loop()
    for _ in range(2):
        reader = chains.request(loop.time() + 10).reader(CHAIN_ID)
        await reader.block_number()
        assert stats(reader).requests == 1
    await asyncio.sleep(0.1)
    assert len(proxy.posts) == 2, "only the two requests' own pins"


@pytest.mark.parametrize(
    "chain_id, changed, delay",
    [(1, True, 11.0), (1, False, 1.0), (8453, True, 1.0), (42161, True, 1.0), (999_999, True, 1.0)],
)
def test_a_slow_chain_is_polled_about_twice_a_block_and_no_chain_faster_than_the_interval(chain_id, changed, delay):
    class Endpoint:
        pass

    endpoint: Any = Endpoint()
    endpoint.chain_id = chain_id
    assert head.Follower(endpoint, 1.0)._delay(changed) == delay


def block_params(proxy: Any, method: str = "eth_call") -> list[Any]:
    return [item["params"][-1] for item in proxy.calls(method)]


async def test_reads_name_their_block_by_hash_once_the_endpoint_takes_one(anvil, artifacts, open_chains, proxy):
    token = deploy_token(anvil, artifacts)
    chains = await open_chains({CHAIN_ID: proxy.url}, head_poll_seconds=POLL)
    loop = asyncio.get_running_loop()
    first = chains.request(loop.time() + 10).reader(CHAIN_ID)
    assert await first.call(token, erc20.DECIMALS) == (6,)
    assert block_params(proxy) == [hex(await first.block_number())], "before the probe: by number"
    endpoint = chains.endpoint(CHAIN_ID)
    await until(lambda: endpoint.hash_tags is not None)
    assert endpoint.hash_tags is True and len(proxy.calls("eth_getBalance")) == 1, "asked once, in a poll"
    anvil.mine()
    follower = chains.follower(CHAIN_ID)
    await until(lambda: follower.head is not None and follower.head.number == anvil.block_number())
    proxy.posts.clear()
    later = chains.request(loop.time() + 10).reader(CHAIN_ID)
    assert await later.call(token, erc20.SYMBOL) == ("TST",)
    head = await later.block_header()
    assert block_params(proxy) == [{"blockHash": head.hash}]
    proxy.posts.clear()
    past = chains.request(loop.time() + 10).reader(CHAIN_ID, head.number - 1)
    assert await past.call(token, erc20.BALANCE_OF, WALLET) == (0,)
    header = await past.block_header()
    assert await past.call(token, erc20.BALANCE_OF, token) == (0,)
    assert block_params(proxy) == [hex(head.number - 1), {"blockHash": header.hash}], (
        "a given block's first round by number beside its header, every later one by that header's hash"
    )
    assert header.hash == anvil.rpc("eth_getBlockByNumber", hex(head.number - 1), False)["hash"].lower()
    assert len(proxy.calls("eth_getBalance")) == 0, "never asked again"


async def test_an_endpoint_that_refuses_hashes_is_read_by_number(anvil, artifacts, open_chains, proxy, caplog):
    caplog.set_level(logging.INFO, logger="wallet_positions.chain")
    token = deploy_token(anvil, artifacts)
    proxy.hash_tags = "refuse"
    chains = await open_chains({CHAIN_ID: proxy.url}, head_poll_seconds=POLL)
    loop = asyncio.get_running_loop()
    assert await chains.request(loop.time() + 10).reader(CHAIN_ID).call(token, erc20.DECIMALS) == (6,)
    endpoint = chains.endpoint(CHAIN_ID)
    await until(lambda: endpoint.hash_tags is not None)
    assert endpoint.hash_tags is False
    anvil.mine()
    await asyncio.sleep(POLL * 4)
    reader = chains.request(loop.time() + 10).reader(CHAIN_ID)
    assert await reader.call(token, erc20.SYMBOL) == ("TST",)
    assert all(isinstance(tag, str) for tag in block_params(proxy))
    assert len(proxy.calls("eth_getBalance")) == 1
    said = [r.getMessage() for r in caplog.records if "refuses block hashes" in r.getMessage()]
    assert len(said) == 1 and proxy.url not in said[0]


async def test_a_block_given_by_hash_is_read_at_that_hash(anvil, artifacts, open_chains, proxy):
    token = deploy_token(anvil, artifacts)
    anvil.send(token, "mint(address,uint256)", WALLET, 5)
    before = anvil.rpc("eth_getBlockByNumber", "latest", False)
    anvil.send(token, "mint(address,uint256)", WALLET, 7)
    chains = await open_chains({CHAIN_ID: proxy.url}, head_poll_seconds=POLL)
    endpoint = chains.endpoint(CHAIN_ID)
    loop = asyncio.get_running_loop()
    await chains.request(loop.time() + 10).reader(CHAIN_ID).block_number()
    await until(lambda: endpoint.hash_tags is True)
    proxy.posts.clear()
    number = int(before["number"], 16)
    reader = chains.request(loop.time() + 10).reader(CHAIN_ID, block_hash=before["hash"].lower())
    assert await reader.call(token, erc20.BALANCE_OF, WALLET) == (5,)
    assert await reader.block_number() == number and reader.past
    assert (await reader.block_header()).timestamp == int(before["timestamp"], 16)
    assert await reader.block_key() == before["hash"].lower()
    assert block_params(proxy) == [{"blockHash": before["hash"].lower()}]
    assert stats(reader).requests == 2, (
        "its header (the number), then the reads beside the question whether Multicall3 existed then "
        "(asked once per endpoint below any block seen with it)"
    )
    both = chains.request(loop.time() + 10).reader(CHAIN_ID, number, before["hash"].lower())
    assert await both.call(token, erc20.BALANCE_OF, WALLET) == (5,)
    wrong = chains.request(loop.time() + 10).reader(CHAIN_ID, number + 1, before["hash"].lower())
    with pytest.raises(InputValidationError, match=f"is block {number} of chain {CHAIN_ID}, not block {number + 1}"):
        await wrong.block_number()
    unknown = chains.request(loop.time() + 10).reader(CHAIN_ID, block_hash="0x" + "ab" * 32)
    with pytest.raises(InputValidationError, match="is not known to the RPC endpoint"):
        await unknown.call(token, erc20.DECIMALS)


async def test_a_block_given_by_hash_is_read_by_hash_without_a_follower(anvil, artifacts, open_chains, proxy):
    """The request asks itself, beside the block's header, whether the endpoint takes hashes; one
    that does not is read by number, the number checked to name that very block."""
    token = deploy_token(anvil, artifacts)
    anvil.send(token, "mint(address,uint256)", WALLET, 5)
    block = anvil.rpc("eth_getBlockByNumber", "latest", False)
    anvil.mine()
    for refuse, tags in ((False, [{"blockHash": block["hash"].lower()}]), (True, [block["number"]])):
        proxy.hash_tags = "refuse" if refuse else "forward"
        chains = await open_chains({CHAIN_ID: proxy.url})
        proxy.posts.clear()
        reader = chains.request(asyncio.get_running_loop().time() + 10).reader(
            CHAIN_ID, block_hash=block["hash"].lower()
        )
        assert await reader.call(token, erc20.BALANCE_OF, WALLET) == (5,)
        assert chains.endpoint(CHAIN_ID).hash_tags is not refuse
        assert block_params(proxy) == tags


async def test_a_recorded_request_reads_what_the_app_keeps(anvil, artifacts, open_chains):
    """`provenance`'s requests share no cache with the app or each other: each reads every fact."""
    token = deploy_token(anvil, artifacts)
    chains = await open_chains({CHAIN_ID: anvil.url})
    for _ in range(2):
        request = chains.request(asyncio.get_running_loop().time() + 10, recorded=True)
        assert await request.reader(CHAIN_ID).call(token, erc20.DECIMALS) == (6,)
        assert [method for method, _, _ in request.stats.reads or []].count("eth_call") == 1
    plain = chains.request(asyncio.get_running_loop().time() + 10)
    assert await plain.reader(CHAIN_ID).call(token, erc20.DECIMALS) == (6,)
