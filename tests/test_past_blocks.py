"""Positions at a past block (`blockNumber`), for every protocol, on one chain holding every test
world (tests/all_worlds.py).

The chain moves through several steps: a Morpho market and a vault created, deposits,
withdrawals, transfers, a Fluid position grown, prices moved, time passed. After each step the
service, running all along, answers every input at the newest block, and those answers are kept.
At the end, with the index far past those blocks, a restarted service asked for each kept block
must give the kept answer, field for field, warnings included; a few figures are also read from
the chain at that block directly.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from graphql import build_schema

import protocols
import server
from config import Settings
from schema import SDL
from tests import aave_world, all_worlds, fluid_world, morpho_world, test_fault_schedules
from tests.evm import Anvil
from tests.morpho_world import market_id
from tests.rpc_proxy import RpcProxy
from tests.test_fault_schedules import positions_query, select_all

SCHEMA = build_schema(SDL)
POOLS = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) {
  data { protocol chainId poolAddress blockNumber blockHash blockTimestamp data warnings { code message target } }
  errors { protocol chainId poolAddress blockNumber error { code message retryable } } } }"""
"""`data` is the whole of `details` as JSON: the union's members cannot all be selected at once
(their fields of one name differ in type)."""
PARAMS = "(address,address,address,address,uint256)"
LLTV_C = 770_000_000_000_000_000
USDC = 10**6
DAY = 24 * 3600
INPUTS = [
    *test_fault_schedules.INPUTS,
    ("fluid", "lender"),
    ("avantis", "borrower"),
    ("avant", "saver"),
]


class Service:
    """The real app on loopback, pointed at the worlds' chain (through `url` if given).

    Its inputs' time budget is 60 s, not the service's 10 s: these tests check answers and request
    counts, and anvil's reads at past blocks (states spilled to disk) on a loaded CI machine have
    outrun 10 s (a series of ten points behind the proxy, which forwards a batch one call at a time)."""

    def __init__(
        self,
        folder: Path,
        key: str,
        node: Anvil,
        url: str | None = None,
        head_poll_seconds: float = 0,
        state: str = "state",
        more_chains: tuple[Anvil, ...] = (),
        addresses: str = "addresses.json",
        **settings: Any,
    ) -> None:
        """`more_chains`: other nodes it serves (their chains in the `addresses` file of `folder`)."""
        self.folder, self.key, self.node, self.url = folder, key, node, url
        self.head_poll_seconds, self.state, self.settings = head_poll_seconds, state, settings
        self.more_chains, self.addresses = more_chains, addresses

    async def __aenter__(self) -> Service:
        app = server.create_app(
            Settings(
                keys_file=str(self.folder / "keys.env"),
                addresses_file=str(self.folder / self.addresses),
                state_dir=str(self.folder / self.state),
                head_poll_seconds=self.head_poll_seconds,
                **{"input_timeout": 60.0, **self.settings},
            ),
            rpc_urls={
                self.node.chain_id: self.url or self.node.url,
                **{other.chain_id: other.url for other in self.more_chains},
            },
        )
        self.app = app
        self.client = TestClient(TestServer(app, host="127.0.0.1"))
        await self.client.start_server()
        return self

    async def __aexit__(self, *_: Any) -> None:
        await self.client.close()

    async def ask(self, query: str, inputs: list[dict[str, Any]], more: dict[str, Any] | None = None) -> dict[str, Any]:
        """The answer's one root field, with `inputs` and any `more` variables."""
        variables = {"inputs": inputs, **(more or {})}
        async with self.client.post(
            "/graphql", json={"query": query, "variables": variables}, headers={"x-api-key": self.key}
        ) as response:
            assert response.status == 200, await response.text()
            body = await response.json()
        assert "errors" not in body, body
        return next(iter(body["data"].values()))

    async def positions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
        """Any number of inputs, five per request; data and errors in input order."""
        data, errors = [], []
        for start in range(0, len(inputs), 5):
            answer = await self.ask(positions_query(inputs[start : start + 5]), inputs[start : start + 5])
            data += answer["data"]
            errors += answer["errors"]
        return {"data": data, "errors": errors}


def position_inputs(worlds: Any, block: int | None = None) -> list[dict[str, Any]]:
    return [
        {
            "protocol": protocol,
            "chainId": worlds.node.chain_id,
            "walletAddress": worlds.wallets[role],
            **({"blockNumber": block} if block is not None else {}),
        }
        for protocol, role in INPUTS
    ]


def pool_inputs(worlds: Any, block: int | None = None) -> list[dict[str, Any]]:
    parts = worlds.parts
    pools = [
        ("morpho", market_id(parts["morpho"].market_a)),
        ("aave", parts["aave"].markets[0].provider),
        ("compound", parts["compound"].usdc_market),
        ("pendle", parts["pendle"].active.market),
        ("fluid", parts["fluid"].ftokens[0].address),
    ]
    return [
        {
            "protocol": protocol,
            "chainId": worlds.node.chain_id,
            "poolAddress": pool,
            **({"blockNumber": block} if block is not None else {}),
        }
        for protocol, pool in pools
    ]


def first_step(worlds: Any) -> None:
    """A Morpho market and a MetaMorpho vault that did not exist before, with positions in them;
    an Aave supply; vault-style shares and a Midas token minted; an EigenLayer deposit; a day."""
    node, morpho, wallets = worlds.node, worlds.parts["morpho"], worlds.wallets
    market_c = (morpho.usdc, morpho.weth, morpho.oracle, morpho.irm, LLTV_C)
    node.send(morpho.morpho, "enableLltv(uint256)", LLTV_C)
    node.send(morpho.morpho, f"createMarket({PARAMS})", market_c)
    node.send(
        morpho.morpho,
        f"supply({PARAMS},uint256,uint256,address,bytes)",
        market_c,
        10_000 * USDC,
        0,
        wallets["lender"],
        b"",
        sender=wallets["lender"],
    )
    later = node.deploy(
        worlds.parts["artifacts"]["TestVaultV1"],
        ["address", "address", "string", "string", "uint96"],
        [morpho.morpho, morpho.usdc, "Later Vault", "lvUSDC", 0],
    )
    node.send(later, f"addMarket({PARAMS},uint184)", morpho.market_a, 10**12 * USDC)
    node.send(morpho.factory, "announceV1(address,address,string,string)", later, morpho.usdc, "v", "v")
    node.send(morpho.usdc, "approve(address,uint256)", later, 2**256 - 1, sender=wallets["depositor"])
    node.send(
        later, "deposit(uint256,address,uint256)", 5_000 * USDC, wallets["depositor"], 0, sender=wallets["depositor"]
    )
    aave = worlds.parts["aave"]
    aave_world.supply(node, aave.markets[0], "WETH", 2 * 10**18, wallets["borrower"])
    vaults = worlds.parts["vaults"]
    for token, role, amount in (
        (vaults.vaults["neutrl-snusd"], "saver", 10**18),
        (vaults.vaults["avant-savusd"], "saver", 10**18),
        (vaults.vaults["avantis-vault"], "borrower", 10**6),
        (vaults.tokens["mTBILL"], "saver", 10**18),
    ):
        node.send(token, "mint(address,uint256)", wallets[role], amount)
    worlds.parts["eigenlayer"].deposit(wallets["saver"], "eLST", 3 * 10**18)
    node.rpc("evm_increaseTime", DAY)
    node.mine(3)


def second_step(worlds: Any) -> None:
    """A Morpho withdrawal, a Fluid position doubled, an EigenLayer withdrawal queued, the devnet's
    later day (all_worlds.later_day: the other demo wallets act in their protocols), the USDC price
    moved, a day."""
    node, morpho, wallets = worlds.node, worlds.parts["morpho"], worlds.wallets
    node.send(
        morpho.morpho,
        f"withdraw({PARAMS},uint256,uint256,address,address)",
        morpho.market_a,
        100_000 * USDC,
        0,
        wallets["lender"],
        wallets["lender"],
        sender=wallets["lender"],
    )
    fluid: fluid_world.FluidWorld = worlds.parts["fluid"]
    lender = wallets["lender"]
    fluid.holdings[lender] = {
        token: (shares * 2, assets * 2) for token, (shares, assets) in fluid.holdings[lender].items()
    }
    fluid.publish(lender)
    eigenlayer = worlds.parts["eigenlayer"]
    eigenlayer.queue_withdrawal(wallets["saver"], [eigenlayer.strategies["eLST"]], [10**18])
    all_worlds.later_day(worlds)
    node.rpc("evm_increaseTime", DAY)
    node.mine(2)
    morpho.set_feed(morpho_world.USDC_USD - 20_000)


def third_step(worlds: Any) -> None:
    """Only time: accrued interest, Pendle's prices towards expiry, vault-style APY windows."""
    worlds.node.rpc("evm_increaseTime", 2 * DAY)
    worlds.node.mine(5)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The worlds, the folder of the service's files, its key, and the answers kept at each step
    by block: (positions, pools)."""
    node = Anvil()
    try:
        folder = tmp_path_factory.mktemp("past")
        worlds, key = all_worlds.prepare(node, folder, "past")
        kept = asyncio.run(_live(worlds, folder, key))
        yield worlds, folder, key, kept
    finally:
        node.stop()


async def _live(worlds: Any, folder: Path, key: str) -> dict[int, tuple[dict[str, Any], dict[str, Any]]]:
    """The service running while the chain moves: the answers at the newest block after each
    step; at the end the chain moves on and the index stores what is settled, past every kept block."""
    kept = {}
    async with Service(folder, key, worlds.node) as service:
        for step in (lambda _: None, first_step, second_step, third_step):
            step(worlds)
            positions = await service.positions(position_inputs(worlds))
            pools = await service.ask(POOLS, pool_inputs(worlds))
            blocks = {entry["blockNumber"] for entry in positions["data"] + pools["data"]}
            assert blocks == {worlds.node.block_number()}
            kept[blocks.pop()] = (positions, pools)
        worlds.node.mine(150)
        await service.positions(position_inputs(worlds)[:1])
        index = service.app[server.INDEXES].store(worlds.node.chain_id)
        for _ in range(400):
            if min(covered for _, _, covered in await index.covered()) > max(kept):
                break
            await asyncio.sleep(0.05)
    return kept


async def test_each_kept_block_is_answered_as_it_was_then(history):
    worlds, folder, key, kept = history
    assert len(kept) == 4
    for number, (protocol, role) in enumerate(INPUTS):
        answers = {json.dumps({**positions["data"][number], "blockNumber": None}) for positions, _ in kept.values()}
        assert len(answers) > 1, f"{protocol} {role}: the steps must change the answer for the test to mean anything"
    async with Service(folder, key, worlds.node) as service:
        for block, (positions, pools) in kept.items():
            assert positions["errors"] == [] and pools["errors"] == []
            assert await service.positions(position_inputs(worlds, block)) == positions, block
            assert await service.ask(POOLS, pool_inputs(worlds, block)) == pools, block


async def test_figures_equal_the_chain_at_that_block(history):
    worlds, folder, key, kept = history
    node, morpho, lender = worlds.node, worlds.parts["morpho"], worlds.wallets["lender"]
    depositor = worlds.wallets["depositor"]
    market_a = market_id(morpho.market_a)
    async with Service(folder, key, node) as service:
        for block in kept:
            answer = await service.positions(
                [
                    {"protocol": "morpho", "chainId": node.chain_id, "walletAddress": lender, "blockNumber": block},
                    {"protocol": "morpho", "chainId": node.chain_id, "walletAddress": depositor, "blockNumber": block},
                ]
            )
            lent, deposited = answer["data"]
            shares = node.call(
                morpho.morpho,
                "position(bytes32,address)",
                bytes.fromhex(market_a[2:]),
                lender,
                returns=("uint256", "uint128", "uint128"),
                block=block,
            )[0]
            supplied = {p["marketId"]: p["supplyShares"] for p in lent["marketPositions"]}
            assert supplied[market_a] == str(shares)
            vaults = {p["vaultAddress"]: p["shares"] for p in deposited["vaultV1Positions"]}
            assert vaults[morpho.vault_v1.lower()] == str(
                node.call(morpho.vault_v1, "balanceOf(address)", depositor, block=block)
            )
            assert len(lent["marketPositions"]) == (2 if block == min(kept) else 3)
            assert len(vaults) == (2 if block == min(kept) else 3)


async def test_inputs_at_several_blocks_in_one_request(history):
    worlds, folder, key, kept = history
    blocks = sorted(kept)
    lender = worlds.wallets["lender"]
    chain = worlds.node.chain_id
    inputs = [
        {"protocol": "morpho", "chainId": chain, "walletAddress": lender, "blockNumber": blocks[0]},
        {"protocol": "aave", "chainId": chain, "walletAddress": worlds.wallets["borrower"], "blockNumber": blocks[1]},
        {"protocol": "morpho", "chainId": chain, "walletAddress": lender},
        {"protocol": "morpho", "chainId": chain, "walletAddress": lender, "blockNumber": blocks[3]},
        {"protocol": "morpho", "chainId": chain, "walletAddress": lender, "blockNumber": blocks[0]},
    ]
    async with Service(folder, key, worlds.node) as service:
        answer = await service.ask(positions_query(inputs), inputs)
    assert answer["errors"] == []
    first, aave, newest, last, again = answer["data"]
    assert first == again == kept[blocks[0]][0]["data"][INPUTS.index(("morpho", "lender"))]
    assert aave == kept[blocks[1]][0]["data"][INPUTS.index(("aave", "borrower"))]
    assert last == kept[blocks[3]][0]["data"][INPUTS.index(("morpho", "lender"))]
    assert newest["blockNumber"] == worlds.node.block_number() > blocks[3]


async def test_inputs_at_one_block_share_their_reads(history, caplog):
    """As at the newest block: the rounds of several inputs at one block are those of the deepest."""
    worlds, folder, key, kept = history
    caplog.set_level(logging.INFO, logger="wallet_positions.access")
    block = sorted(kept)[1]
    roles = ("lender", "borrower", "saver")
    inputs = [
        {
            "protocol": "aave",
            "chainId": worlds.node.chain_id,
            "walletAddress": worlds.wallets[role],
            "blockNumber": block,
        }
        for role in roles
    ]
    async with Service(folder, key, worlds.node) as service:
        await service.ask(positions_query(inputs[:1]), inputs[:1])
        caplog.clear()
        for single in inputs:
            await service.ask(positions_query([single]), [single])
        await service.ask(positions_query(inputs), inputs)
    lines = [r.fields for r in caplog.records if r.name == "wallet_positions.access"]
    singles, together = [line["rpc_requests"] for line in lines[:3]], lines[3]["rpc_requests"]
    assert together <= max(singles), (singles, together)


async def test_a_future_block_or_one_before_the_protocol_is_a_validation_error(history):
    """Every protocol refuses a block before its contracts existed, in words that say so: on the
    devnet each declares its first block (`startBlock`), so the refusal names it (the code
    checks' refusal words it otherwise), for a block given by hash too."""
    worlds, folder, key, _ = history
    node, chain = worlds.node, worlds.node.chain_id
    head = node.block_number()
    wallet = worlds.wallets["lender"]
    before_all = 0
    inputs = [
        {"protocol": "morpho", "chainId": chain, "walletAddress": wallet, "blockNumber": head + 1000},
        {"protocol": "morpho", "chainId": chain, "walletAddress": wallet, "blockNumber": -1},
        {
            "protocol": "morpho",
            "chainId": chain,
            "walletAddress": wallet,
            "blockNumber": worlds.parts["morpho"].start_block - 1,
        },
    ]
    served = protocols.registry(protocols.load_addresses(folder / "addresses.json"))
    unserved = sorted(name for name, protocol in served.items() if chain not in protocol.chains)
    assert unserved == [], "tests/all_worlds.py: give each its world on the devnet's chain"
    inputs += [
        {"protocol": protocol, "chainId": chain, "walletAddress": wallet, "blockNumber": before_all}
        for protocol in sorted(served)
        if protocol != "morpho"
    ]
    first = {name: protocol.deployed(protocol.part(protocol.chain(chain))) for name, protocol in served.items()}
    assert [name for name, block in first.items() if block is None] == [], "each declares its first block here"
    by_hash = node.rpc("eth_getBlockByNumber", hex(first["lido"] - 1), False)["hash"]
    inputs.append({"protocol": "lido", "chainId": chain, "walletAddress": wallet, "blockHash": by_hash})
    async with Service(folder, key, node) as service:
        answer = await service.positions(inputs)
        pools = await service.ask(POOLS, pool_inputs(worlds, before_all))
    assert answer["data"] == []
    errors = answer["errors"]
    assert [(e["error"]["code"], e["error"]["retryable"], e["blockNumber"]) for e in errors] == [
        ("VALIDATION_ERROR", False, item.get("blockNumber")) for item in inputs
    ]
    assert errors[0]["error"]["message"] == (
        f"Block {head + 1000} is not on chain {chain} yet: its newest block is {head}."
    )
    assert "a block number is 0 or more" in errors[1]["error"]["message"]
    morpho = worlds.parts["morpho"]
    assert first["morpho"] == morpho.start_block
    assert errors[2]["error"]["message"] == (
        f"Block {morpho.start_block - 1} is before morpho's deployment on chain {chain}: its first contract "
        f"there was deployed at block {morpho.start_block}."
    )
    for error, item in zip(errors[3:], inputs[3:]):
        block = item.get("blockNumber", first["lido"] - 1)
        assert error["error"]["message"] == (
            f"Block {block} is before {error['protocol']}'s deployment on chain {chain}: its first contract "
            f"there was deployed at block {first[error['protocol']]}."
        )
    assert pools["data"] == []
    assert [(e["error"]["code"], e["blockNumber"]) for e in pools["errors"]] == [("VALIDATION_ERROR", before_all)] * 5
    assert all(f"Block {before_all} is before " in e["error"]["message"] for e in pools["errors"])


async def test_every_member_answers_the_shared_header_through_its_interface(history):
    """`... on WalletEntry` selects every member's header (all 30 protocols), and answers the very
    bytes that the same fields under `... on <Member>` do: a client written before the interface
    keeps its answers, and one that knows no member renders every entry's header."""
    worlds, folder, key, _ = history
    header = select_all(SCHEMA.type_map["WalletEntry"])
    members = SCHEMA.type_map["WalletPositions"].types
    assert len(members) == 30 and all(SCHEMA.type_map["WalletEntry"] in member.interfaces for member in members)
    query = "query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) { data %s errors { protocol } } }"
    generic = query % f"{{ ... on WalletEntry {header} }}"
    chain, wallet = worlds.node.chain_id, worlds.wallets["saver"]
    registry = protocols.registry(protocols.load_addresses(folder / "addresses.json"))
    names = sorted(registry)
    async with Service(folder, key, worlds.node) as service:
        for start in range(0, len(names), 5):
            batch = names[start : start + 5]
            inputs = [{"protocol": name, "chainId": chain, "walletAddress": wallet} for name in batch]
            asked = dict.fromkeys(registry[name].type_name for name in batch)
            typed = query % ("{ " + " ".join(f"... on {member} {header}" for member in asked) + " }")
            by_interface, by_member = await service.ask(generic, inputs), await service.ask(typed, inputs)
            assert by_interface["errors"] == [] and len(by_interface["data"]) >= len(inputs)
            assert json.dumps(by_interface) == json.dumps(by_member)


async def test_every_entry_names_its_blocks_hash_and_time(history):
    """blockHash and blockTimestamp are the chain's at the entry's blockNumber: at the newest block
    (the answers kept while the chain moved, pools too) and at a given one."""
    worlds, folder, key, kept = history
    node = worlds.node

    def header(block: int) -> tuple[str, int]:
        found = node.rpc("eth_getBlockByNumber", hex(block), False)
        return found["hash"], int(found["timestamp"], 16)

    entries = [entry for positions, pools in kept.values() for entry in positions["data"] + pools["data"]]
    async with Service(folder, key, node) as service:
        entries += (await service.positions(position_inputs(worlds, min(kept))))["data"]
    assert len(entries) > 40 and min(kept) in {entry["blockNumber"] for entry in entries}
    wrong = [
        entry for entry in entries if (entry["blockHash"], entry["blockTimestamp"]) != header(entry["blockNumber"])
    ]
    assert wrong == []


async def test_a_block_given_by_its_hash_is_answered_as_at_its_number(history):
    """`blockHash` instead of (or beside) `blockNumber`: every protocol's answer at each kept block
    is the one kept, wallets and pools; a malformed hash, one the endpoint does not know and a
    number that is not the hash's block are VALIDATION_ERRORs that echo what was sent."""
    worlds, folder, key, kept = history
    node, chain, wallet = worlds.node, worlds.node.chain_id, worlds.wallets["lender"]

    def hashed(inputs: list[dict[str, Any]], block: int) -> list[dict[str, Any]]:
        block_hash = node.rpc("eth_getBlockByNumber", hex(block), False)["hash"]
        return [{**{k: v for k, v in item.items() if k != "blockNumber"}, "blockHash": block_hash} for item in inputs]

    async with Service(folder, key, node) as service:
        for block, (positions, pools) in kept.items():
            assert await service.positions(hashed(position_inputs(worlds), block)) == positions, block
            assert await service.ask(POOLS, hashed(pool_inputs(worlds), block)) == pools, block
        block = min(kept)
        block_hash = node.rpc("eth_getBlockByNumber", hex(block), False)["hash"]
        base = {"protocol": "morpho", "chainId": chain, "walletAddress": wallet}
        inputs = [
            {**base, "blockHash": block_hash.upper().replace("0X", "0x"), "blockNumber": block},
            {**base, "blockHash": "0x1234"},
            {**base, "blockHash": "0x" + "ab" * 32},
            {**base, "blockHash": block_hash, "blockNumber": block + 1},
        ]
        answer = await service.positions(inputs)
    assert [entry["blockHash"] for entry in answer["data"]] == [block_hash.lower()]
    assert answer["data"][0] == kept[block][0]["data"][0]
    assert [(e["error"]["code"], e["blockHash"], e["blockNumber"]) for e in answer["errors"]] == [
        ("VALIDATION_ERROR", item["blockHash"], item.get("blockNumber")) for item in inputs[1:]
    ]
    messages = [e["error"]["message"] for e in answer["errors"]]
    assert messages == [
        "Malformed blockHash '0x1234': expected 0x followed by 64 hexadecimal characters.",
        f"Block 0x{'ab' * 32} is not known to the RPC endpoint for chain {chain}: a block of another chain, "
        "one reorganised away, or one the endpoint has not seen yet.",
        f"Block {block_hash.lower()} is block {block} of chain {chain}, not block {block + 1}.",
    ]


async def test_a_block_past_the_followed_head_is_asked_of_the_node(history):
    """A client that read a new block from its own node asks for it at once: the head the server
    follows is older (here by an hour's poll), so the node is asked before the block is refused."""
    worlds, folder, key, _ = history
    node, chain, wallet = worlds.node, worlds.node.chain_id, worlds.wallets["lender"]
    newest = {"protocol": "morpho", "chainId": chain, "walletAddress": wallet}
    async with Service(folder, key, node, head_poll_seconds=3600) as service:
        followed = (await service.positions([newest]))["data"][0]["blockNumber"]
        node.mine(1)
        answer = await service.positions([{**newest, "blockNumber": followed + 1}, newest])
        assert answer["errors"] == []
        assert [entry["blockNumber"] for entry in answer["data"]] == [followed + 1, followed]
        later = await service.positions([{**newest, "blockNumber": followed + 2}])
    assert [(e["error"]["code"], e["error"]["message"]) for e in later["errors"]] == [
        ("VALIDATION_ERROR", f"Block {followed + 2} is not on chain {chain} yet: its newest block is {followed + 1}.")
    ]


async def test_a_pruned_endpoint_says_it_has_no_state_that_old(history, aiohttp_server):
    """A node that keeps the state of its last blocks only: an older block is HISTORY_UNAVAILABLE,
    not retryable, naming what would have it; a recent one is answered."""
    worlds, folder, key, kept = history
    node = worlds.node
    proxy = RpcProxy(node.url)
    proxied = await aiohttp_server(proxy.app(), host="127.0.0.1")
    head = node.block_number()
    proxy.history_from = head - 20
    old, recent = max(kept), head - 10
    inputs = [
        {
            "protocol": "morpho",
            "chainId": node.chain_id,
            "walletAddress": worlds.wallets["lender"],
            "blockNumber": block,
        }
        for block in (old, recent)
    ]
    try:
        async with Service(folder, key, node, str(proxied.make_url("/"))) as service:
            answer = await service.ask(positions_query(inputs), inputs)
            pools = await service.ask(POOLS, pool_inputs(worlds, old)[:1])
    finally:
        proxy.released.set()
    (error,) = answer["errors"]
    assert error["blockNumber"] == old
    assert error["error"]["code"] == "HISTORY_UNAVAILABLE" and error["error"]["retryable"] is False
    assert f"The RPC endpoint for chain {node.chain_id} has no state that old" in error["error"]["message"]
    assert "an archive node has it" in error["error"]["message"]
    assert "127.0.0.1" not in json.dumps(answer)
    (data,) = answer["data"]
    assert data["blockNumber"] == recent and len(data["marketPositions"]) == 3
    assert [e["error"]["code"] for e in pools["errors"]] == ["HISTORY_UNAVAILABLE"]
