"""Chain reads through the whole stack: HTTP -> resolver -> adapter -> reader -> anvil."""

from __future__ import annotations

import asyncio
import logging

import server
from config import Settings
from tests.conftest import Api, position_input
from tests.evm import CHAIN_ID, free_port
from tests.stand_ins import chain_balances

QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on MorphoWalletPositions { walletAddress blockNumber vaultV1Positions { vaultAddress shares } } }
  errors { walletAddress error { code message retryable } } } }"""


def wallets(n: int) -> list[str]:
    return ["0x" + f"{i + 1:040x}" for i in range(n)]


async def make_api(aiohttp_client, keys_file, api_key, tokens, url, **settings):
    app = server.create_app(
        Settings(keys_file=str(keys_file), **{"head_poll_seconds": 0, **settings}),
        {"balances": chain_balances(tokens, CHAIN_ID)},
        rpc_urls={CHAIN_ID: url},
    )
    return Api(await aiohttp_client(app), api_key, app)


def access_lines(caplog):
    return [record.fields for record in caplog.records if record.name == "wallet_positions.access"]


async def test_rpc_requests_do_not_grow_with_inputs(aiohttp_client, keys_file, api_key, anvil, artifacts, caplog):
    caplog.set_level(logging.INFO, logger="wallet_positions.access")
    tokens = [anvil.deploy(artifacts["TestToken"], ["string", "string", "uint8"], ["T", "T", 18]) for _ in range(4)]
    for index, wallet in enumerate(wallets(5)):
        anvil.send(tokens[index % 4], "mint(address,uint256)", wallet, 1000 + index)
    api = await make_api(aiohttp_client, keys_file, api_key, tokens, anvil.url)
    await api.query(QUERY, {"inputs": [position_input("balances", CHAIN_ID, wallets(1)[0])]})
    caplog.clear()
    one = await api.query(QUERY, {"inputs": [position_input("balances", CHAIN_ID, wallets(1)[0])]})
    five = await api.query(QUERY, {"inputs": [position_input("balances", CHAIN_ID, w) for w in wallets(5)]})
    first, second = access_lines(caplog)
    assert (first["rpc_requests"], first["rpc_subcalls"]) == (2, 4)
    assert (second["rpc_requests"], second["rpc_subcalls"]) == (2, 20)
    data = five.body["data"]["walletPositions"]["data"]
    assert [d["walletAddress"] for d in data] == wallets(5)
    assert len({d["blockNumber"] for d in data}) == 1
    block = data[0]["blockNumber"]
    for index, entry in enumerate(data):
        expected = [str(anvil.call(t, "balanceOf(address)", entry["walletAddress"], block=block)) for t in tokens]
        assert [p["shares"] for p in entry["vaultV1Positions"]] == expected
        assert expected[index % 4] == str(1000 + index)
    assert one.body["data"]["walletPositions"]["errors"] == []


async def test_hanging_endpoint_is_a_timeout_and_down_endpoint_a_network_error(
    aiohttp_client, keys_file, api_key, proxy, caplog
):
    proxy.mode = "hang"
    api = await make_api(aiohttp_client, keys_file, api_key, [], proxy.url, input_timeout=0.5)
    reply = await api.query(QUERY, {"inputs": [position_input("balances", CHAIN_ID)]})
    (error,) = reply.body["data"]["walletPositions"]["errors"]
    assert error["error"]["code"] == "TIMEOUT" and error["error"]["retryable"] is True

    down = await make_api(aiohttp_client, keys_file, api_key, [], f"http://127.0.0.1:{free_port()}/key123")
    reply = await down.query(QUERY, {"inputs": [position_input("balances", CHAIN_ID)]})
    (error,) = reply.body["data"]["walletPositions"]["errors"]
    assert error["error"]["code"] == "NETWORK_ERROR" and error["error"]["retryable"] is True
    assert "127.0.0.1" not in error["error"]["message"] and "key123" not in error["error"]["message"]
    causes = [r.getMessage() for r in caplog.records if r.getMessage().startswith("input failed")]
    assert causes[0].startswith(f"input failed: balances on chain {CHAIN_ID}: TIMEOUT")
    assert causes[1].startswith(f"input failed: balances on chain {CHAIN_ID}: NETWORK_ERROR The RPC endpoint")
    assert not any("key123" in cause or "127.0.0.1" in cause for cause in causes), "never the URL"


async def test_reverting_contract_is_a_protocol_error(aiohttp_client, keys_file, api_key, anvil):
    api = await make_api(aiohttp_client, keys_file, api_key, ["0x" + "de" * 20], anvil.url)
    reply = await api.query(QUERY, {"inputs": [position_input("balances", CHAIN_ID)]})
    (error,) = reply.body["data"]["walletPositions"]["errors"]
    assert error["error"]["code"] == "PROTOCOL_ERROR" and error["error"]["retryable"] is False
    assert "balanceOf" in error["error"]["message"] and "0x" + "de" * 20 in error["error"]["message"]


async def test_a_chain_the_server_has_no_endpoint_for_is_its_own_error(aiohttp_client, keys_file, api_key):
    """The operator's configuration, not the client's input: CHAIN_NOT_CONFIGURED, not retryable,
    naming the variable that would serve it."""
    app = server.create_app(
        Settings(keys_file=str(keys_file)), {"balances": chain_balances(["0x" + "11" * 20], 999)}, rpc_urls={}
    )
    api = Api(await aiohttp_client(app), api_key, app)
    reply = await api.query(QUERY, {"inputs": [position_input("balances", 999, wallets(1)[0])]})
    (entry,) = reply.body["data"]["walletPositions"]["errors"]
    assert entry["error"]["code"] == "CHAIN_NOT_CONFIGURED" and entry["error"]["retryable"] is False
    assert "RPC_URL_999" in entry["error"]["message"]


async def test_a_server_following_heads_pins_its_chains_at_boot(
    aiohttp_client, keys_file, api_key, anvil, artifacts, caplog
):
    """Its first query reads with no pin of its own, and an endpoint serving another chain is in
    the log before anyone asks (its URL is not)."""
    caplog.set_level(logging.INFO)
    token = anvil.deploy(artifacts["TestToken"], ["string", "string", "uint8"], ["T", "T", 18])
    anvil.send(token, "mint(address,uint256)", wallets(1)[0], 7)
    app = server.create_app(
        Settings(keys_file=str(keys_file), head_poll_seconds=0.05),
        {"balances": chain_balances([token], CHAIN_ID)},
        rpc_urls={CHAIN_ID: anvil.url, 1: anvil.url},
    )
    api = Api(await aiohttp_client(app), api_key, app)
    follower = app[server.CHAINS].follower(CHAIN_ID)
    for _ in range(500):
        if follower.head is not None and "chain 1 not reached at boot" in caplog.text:
            break
        await asyncio.sleep(0.02)
    assert follower.head is not None
    booted = [record.getMessage() for record in caplog.records if "not reached at boot" in record.getMessage()]
    assert len(booted) == 1 and "serves chain 31337" in booted[0] and anvil.url not in caplog.text
    caplog.clear()
    answer = await api.query(QUERY, {"inputs": [position_input("balances", CHAIN_ID, wallets(1)[0])]})
    assert answer.body["data"]["walletPositions"]["data"][0]["vaultV1Positions"][0]["shares"] == "7"
    assert access_lines(caplog)[0]["rpc_requests"] == 1
