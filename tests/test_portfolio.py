"""`portfolio`: a wallet's whole portfolio in one query, against the per-protocol answers.

On one chain holding every test world (tests/all_worlds.py), one long-running server answers
every demo wallet's portfolio, then each protocol's `walletPositions` at the portfolio's block:
the portfolio lists exactly the entries of the protocols where the wallet holds something, equal
field for field (every member's own fields too, five members a query as the cost bound allows),
and its coverage names every protocol, held or empty. A second node, a fork of the first under
another chain id, makes a two-chain portfolio; a cold index behind a slow node, and a registry
that cannot be read, make coverages that are not complete.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Collection
from dataclasses import replace
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

import server
from adapters.accounts.probes import Probe, nonzero
from adapters.vault_style import VAULT_STYLE
from tests.conftest import served_fixture
from tests.evm import Anvil
from tests.rpc_proxy import RpcProxy
from tests.test_fault_schedules import MEMBERS, SCHEMA, select_all
from tests.test_past_blocks import Service

worlds = served_fixture("portfolio")

PORTFOLIO = (
    "query($wallet: String!, $chains: [Int!], $at: HistoryBound) "
    "{ portfolio(walletAddress: $wallet, chainIds: $chains, at: $at) %s }"
)
GROUP = 5
"""Members whose own fields one query selects: the cost bound's five (limits.py)."""


def portfolio_query(members: Collection[str] = ()) -> str:
    """Every field of the portfolio, the entries through the interfaces and `members`' own fields
    (the empty checks' entries through the interfaces: they hold nothing a member's fields show)."""
    coverage = select_all(SCHEMA.type_map["ChainCoverage"], skip=("provenance", "emptyEntries"))[1:-1]
    empty = select_all(SCHEMA.type_map["WalletPositions"], members=())
    return PORTFOLIO % (
        f"{{ walletAddress data {select_all(SCHEMA.type_map['WalletPositions'], members=members)} "
        f"errors {select_all(SCHEMA.type_map['PositionError'])} coverage {{ {coverage} emptyEntries {empty} }} }}"
    )


async def post(service: Service, query: str, variables: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    async with service.client.post(
        "/graphql", json={"query": query, "variables": variables}, headers={"x-api-key": service.key}
    ) as response:
        return response.status, await response.json()


async def portfolio(service: Service, variables: dict[str, Any], members: Collection[str] = ()) -> dict[str, Any]:
    status, body = await post(service, portfolio_query(members), variables)
    assert status == 200 and "errors" not in body, body
    answer: dict[str, Any] = body["data"]["portfolio"]
    return answer


async def whole(service: Service, variables: dict[str, Any]) -> dict[str, Any]:
    """The portfolio with every member's own fields: one query through the interfaces, then one per
    five members it lists, each at the first's blocks; the entries merged."""
    first = await portfolio(service, variables)
    held = sorted({MEMBERS[entry["protocol"]] for entry in first["data"]})
    if variables.get("at") is None and len(first["coverage"]) == 1:
        variables = {**variables, "at": {"blockNumber": first["coverage"][0]["blockNumber"]}}
    for start in range(0, len(held), GROUP):
        group = held[start : start + GROUP]
        part = await portfolio(service, variables, group)
        assert [entry["protocol"] for entry in part["data"]] == [entry["protocol"] for entry in first["data"]]
        for entry, more in zip(first["data"], part["data"]):
            if MEMBERS[entry["protocol"]] in group:
                entry.update(more)
    return first


def on_chain(service: Service, chain_id: int) -> list[str]:
    return sorted(name for name, protocol in service.app[server.REGISTRY].items() if chain_id in protocol.chains)


@pytest.fixture(scope="module")
def answers(worlds: Any) -> dict[str, Any]:
    """Every demo wallet's portfolio and per-protocol answers, from one server, with its bad-input
    answers and a past-time portfolio."""
    built, folder, key = worlds
    chain_id = built.node.chain_id

    async def run() -> dict[str, Any]:
        found: dict[str, Any] = {"wallets": {}}
        async with Service(folder, key, built.node, state="portfolio", rate_limit=10**6) as service:
            names = found["protocols"] = on_chain(service, chain_id)
            found["registry"] = sorted(service.app[server.REGISTRY])
            for role, wallet in sorted(built.wallets.items()):
                got = await whole(service, {"wallet": wallet})
                block = got["coverage"][0]["blockNumber"]
                inputs = [
                    {"protocol": name, "chainId": chain_id, "walletAddress": wallet, "blockNumber": block}
                    for name in names
                ]
                found["wallets"][role] = (got, await service.positions(inputs))
            found["refused"] = {
                name: await post(service, portfolio_query(), variables) for name, variables in refused(built).items()
            }
            found["repeat"] = await portfolio(service, {"wallet": built.wallets["saver"]})
            found["past"] = await past(service, built)
            found["early"] = await early(service, built)
        return found

    return asyncio.run(run())


def refused(built: Any) -> dict[str, dict[str, Any]]:
    wallet, chain_id = built.wallets["saver"], built.node.chain_id
    return {
        "malformed address": {"wallet": "0x1234"},
        "chain not served": {"wallet": wallet, "chains": [1]},
        "no chain": {"wallet": wallet, "chains": []},
        "a chain twice": {"wallet": wallet, "chains": [chain_id, chain_id]},
        "a future time": {"wallet": wallet, "at": {"timestamp": int(time.time()) + 10 * 365 * 86400}},
        "a block after the newest": {"wallet": wallet, "at": {"blockNumber": 10**9}},
        "a block and a time": {"wallet": wallet, "at": {"blockNumber": 1, "timestamp": 1}},
        "a negative block": {"wallet": wallet, "at": {"blockNumber": -1}},
    }


async def past(service: Service, built: Any) -> dict[str, Any]:
    """The saver's portfolio at the time of a block 40 before the newest, and walletPositions at the
    last block at or before that time (found from the node's headers)."""
    node, wallet = built.node, built.wallets["saver"]
    newest = int(node.rpc("eth_blockNumber"), 16)
    moment = int(node.rpc("eth_getBlockByNumber", hex(newest - 40), False)["timestamp"], 16)
    block = newest - 40
    while block < newest and int(node.rpc("eth_getBlockByNumber", hex(block + 1), False)["timestamp"], 16) <= moment:
        block += 1
    got = await whole(service, {"wallet": wallet, "at": {"timestamp": moment}})
    names = on_chain(service, node.chain_id)
    inputs = [
        {"protocol": name, "chainId": node.chain_id, "walletAddress": wallet, "blockNumber": block} for name in names
    ]
    return {"block": block, "portfolio": got, "positions": await service.positions(inputs)}


async def early(service: Service, built: Any) -> dict[str, Any]:
    """The saver's portfolio at a block after half the protocols' deployments and before the
    others', and each protocol's answer at that block."""
    registry, chain_id, wallet = service.app[server.REGISTRY], built.node.chain_id, built.wallets["saver"]
    starts = {
        name: protocol.deployed(protocol.part(protocol.chain(chain_id)))
        for name, protocol in registry.items()
        if chain_id in protocol.chains
    }
    block = sorted(starts.values())[len(starts) // 2]
    got = await whole(service, {"wallet": wallet, "at": {"blockNumber": block}})
    inputs = [{"protocol": name, "chainId": chain_id, "walletAddress": wallet, "blockNumber": block} for name in starts]
    return {"block": block, "starts": starts, "portfolio": got, "positions": await service.positions(inputs)}


def held(positions: dict[str, Any], protocols: Collection[str] | None = None) -> list[dict[str, Any]]:
    """The per-protocol entries of the protocols whose entries hold a position (or of `protocols`),
    in portfolio order."""
    holding = {entry["protocol"] for entry in positions["data"] if entry["allPositions"]}
    holding = holding if protocols is None else set(protocols)
    return sorted(
        (entry for entry in positions["data"] if entry["protocol"] in holding),
        key=lambda entry: entry["protocol"],  # stable: a protocol's own entry stays before its accounts'
    )


def test_every_demo_wallets_portfolio_is_its_per_protocol_answers_field_for_field(answers: dict[str, Any]) -> None:
    assert len(answers["wallets"]) >= 6
    for role, (got, positions) in answers["wallets"].items():
        assert positions["errors"] == [], (role, positions["errors"])
        assert got["errors"] == [], (role, got["errors"])
        assert got["data"] == held(positions), role
        (coverage,) = got["coverage"]
        assert {entry["blockNumber"] for entry in got["data"]} <= {coverage["blockNumber"]}, role


def test_a_wallet_that_holds_something_gets_entries_and_the_empty_wallet_none(answers: dict[str, Any]) -> None:
    counts = {role: len(got["data"]) for role, (got, _) in answers["wallets"].items()}
    assert counts["empty"] == 0
    assert counts["saver"] >= 10, counts
    assert counts["controller"] >= 3, counts
    controller, _ = answers["wallets"]["controller"]
    assert {entry["via"] for entry in controller["data"]} - {None}, "the accounts it controls are in its portfolio"


def test_coverage_names_every_protocol_and_is_complete(answers: dict[str, Any]) -> None:
    names, registry = answers["protocols"], answers["registry"]
    for role, (got, positions) in answers["wallets"].items():
        (coverage,) = got["coverage"]
        assert coverage["complete"] is True and coverage["reasons"] == [], (role, coverage["reasons"])
        assert coverage["checked"] == names
        assert coverage["holding"] == sorted({entry["protocol"] for entry in held(positions)})
        assert coverage["empty"] == sorted(set(names) - set(coverage["holding"]))
        assert coverage["partial"] == coverage["failed"] == []
        empties = held(positions, coverage["empty"])
        assert coverage["emptyEntries"] == [{name: e[name] for name in coverage["emptyEntries"][0]} for e in empties]
        assert coverage["notServed"] == sorted(set(registry) - set(names))
        assert coverage["blockHash"].startswith("0x") and coverage["blockTimestamp"] > 0
        assert coverage["index"], "the index-backed checks say how far the index reaches"
        for reach in coverage["index"]:
            assert reach["complete"] and reach["storedTo"] <= coverage["blockNumber"], reach
            assert set(reach["protocols"]) <= set(names)
    assert answers["wallets"]["empty"][0]["coverage"][0]["empty"] == names


def test_a_repeat_at_the_newest_block_is_the_same_portfolio(answers: dict[str, Any]) -> None:
    got, _ = answers["wallets"]["saver"]
    repeat = answers["repeat"]
    assert repeat["coverage"] == got["coverage"]
    assert [entry["protocol"] for entry in repeat["data"]] == [entry["protocol"] for entry in got["data"]]


def test_bad_arguments_are_refused_with_a_validation_error(answers: dict[str, Any]) -> None:
    for name, (status, body) in answers["refused"].items():
        assert status == 200, (name, body)
        assert body["data"] == {"portfolio": None}, (name, body)
        (error,) = body["errors"]
        assert error["extensions"] == {"code": "VALIDATION_ERROR", "classification": "ValidationError"}, (name, error)
        assert error["path"] == ["portfolio"]
    said = {name: body["errors"][0]["message"] for name, (_, body) in answers["refused"].items()}
    assert "Malformed walletAddress" in said["malformed address"]
    assert "Chain 1 is not served by this server" in said["chain not served"]
    assert "is in the future" in said["a future time"]
    assert "is not on chain" in said["a block after the newest"]
    assert "exactly one of blockNumber and timestamp" in said["a block and a time"]


def test_a_portfolio_at_a_past_time_is_the_answers_at_the_last_block_before_it(answers: dict[str, Any]) -> None:
    past = answers["past"]
    (coverage,) = past["portfolio"]["coverage"]
    assert coverage["blockNumber"] == past["block"]
    assert past["positions"]["errors"] == []
    assert past["portfolio"]["data"] == held(past["positions"])
    assert past["portfolio"]["data"], "the saver held something then"


def test_an_operation_holds_one_portfolio_and_nothing_else(worlds: Any) -> None:
    built, folder, key = worlds
    wallet = built.wallets["saver"]
    one = {"protocol": "morpho", "chainId": built.node.chain_id, "walletAddress": wallet}

    async def run() -> list[tuple[int, dict[str, Any]]]:
        async with Service(folder, key, built.node, state="portfolio-inputs") as service:
            return [
                await post(service, query, {"wallet": wallet, "inputs": [one]})
                for query in (
                    "query($wallet: String!, $inputs: [PositionInput!]!) { portfolio(walletAddress: $wallet) "
                    "{ walletAddress } walletPositions(inputs: $inputs) { errors { chainId } } }",
                    "query($wallet: String!) { a: portfolio(walletAddress: $wallet) { walletAddress } "
                    "b: portfolio(walletAddress: $wallet) { walletAddress } }",
                )
            ]

    for status, body in asyncio.run(run()):
        assert status == 400 and body["errors"][0]["extensions"]["code"] == "TOO_MANY_INPUTS", body
        assert "a portfolio counts 5" in body["errors"][0]["message"]


@pytest.fixture(scope="module")
def fork(worlds: Any) -> Any:
    """A second chain: a fork of the worlds' node under another chain id, with the same addresses."""
    built, folder, _ = worlds
    node = Anvil(chain_id=built.node.chain_id + 1, fork=built.node.url)
    try:
        data = json.loads((folder / "addresses.json").read_text())
        data[str(node.chain_id)] = data[str(built.node.chain_id)]
        (folder / "two-chains.json").write_text(json.dumps(data))
        yield node
    finally:
        node.stop()


def test_a_two_chain_portfolio_answers_each_chain_at_its_block(worlds: Any, fork: Anvil) -> None:
    built, folder, key = worlds
    wallet, first, second = built.wallets["saver"], built.node.chain_id, fork.chain_id

    async def run() -> dict[str, Any]:
        async with Service(
            folder, key, built.node, state="two-chains", more_chains=(fork,), addresses="two-chains.json", rate_limit=9
        ) as service:
            both = await portfolio(service, {"wallet": wallet})
            ordered = await portfolio(service, {"wallet": wallet, "chains": [second, first]})
            block = await post(service, portfolio_query(), {"wallet": wallet, "at": {"blockNumber": 1}})
            moment = built.node.timestamp() - 1  # a second before the newest block: an earlier block stands for it
            then = await portfolio(service, {"wallet": wallet, "at": {"timestamp": moment}})
            last = built.node.block_number()
            while built.node.timestamp(last) > moment:
                last -= 1
            refused = await post(service, portfolio_query(), {"wallet": wallet})
            alone = await post(service, portfolio_query(), {"wallet": wallet, "chains": [first]})
        found = {"both": both, "ordered": ordered, "refused": refused, "alone": alone, "block": block}
        return {**found, "then": then, "last": last}

    found = asyncio.run(run())
    both = found["both"]
    assert [c["chainId"] for c in both["coverage"]] == [first, second]
    assert [c["chainId"] for c in found["ordered"]["coverage"]] == [second, first]
    assert all(c["complete"] for c in both["coverage"]), [c["reasons"] for c in both["coverage"]]
    on = {chain: [e for e in both["data"] if e["chainId"] == chain] for chain in (first, second)}
    assert on[first] and [e["protocol"] for e in on[first]] == [e["protocol"] for e in on[second]]
    for one, other in zip(on[first], on[second]):  # the fork holds what its parent held at its block
        assert one["allPositions"] == other["allPositions"] and one["totals"] == other["totals"]
    assert both["data"] == on[first] + on[second], "chain by chain"
    then = found["then"][
        "coverage"
    ]  # a time: each chain's own last block at or before it (the fork's are its parent's)
    assert then[0]["blockNumber"] == then[1]["blockNumber"] == found["last"] < both["coverage"][0]["blockNumber"]
    assert [c["blockHash"] for c in then] == [then[0]["blockHash"]] * 2 and all(c["complete"] for c in then)
    status, body = found["refused"]  # 2 + 2 + 2 + 2 of a quota of 9: a fifth portfolio is refused
    assert status == 429 and body["errors"][0]["extensions"]["code"] == "RATE_LIMITED", body
    assert "costs 2 requests" in body["errors"][0]["message"]
    assert found["alone"][0] == 429, "the refused portfolio spent the one request its door took"
    status, body = found["block"]
    assert body["data"] == {"portfolio": None} and "at.blockNumber names a block of one chain" in str(body), body


def test_a_cold_index_behind_a_slow_node_makes_an_incomplete_coverage_that_drops_nothing(worlds: Any) -> None:
    built, folder, key = worlds
    wallet = built.wallets["saver"]

    async def run() -> tuple[dict[str, Any], list[str]]:
        proxy = RpcProxy(built.node.url)
        async with TestServer(proxy.app(), host="127.0.0.1") as proxy_server:
            proxy.method_delays = {"eth_getLogs": 1.0}
            async with Service(
                folder,
                key,
                built.node,
                str(proxy_server.make_url("/")),
                state="cold",
                logs_block_range=1,
                input_timeout=12.0,
            ) as service:
                got = await portfolio(service, {"wallet": wallet})
                proxy.released.set()
                return got, on_chain(service, built.node.chain_id)

    got, names = asyncio.run(run())
    (coverage,) = got["coverage"]
    assert coverage["complete"] is False and coverage["reasons"], coverage
    assert coverage["checked"] == names
    assert [reach for reach in coverage["index"] if not reach["complete"]], coverage["index"]
    behind = {name for reach in coverage["index"] if not reach["complete"] for name in reach["protocols"]}
    assert not behind & set(coverage["empty"]), "a check that could not be made in full is never left out"
    assert behind <= set(coverage["holding"]) | set(coverage["partial"]) | set(coverage["failed"])
    # Answered in part, with its warning: "holding" where the index reached the saver's first market
    # event within the budget, "partial" where a loaded machine kept it short of it (seen once in CI).
    assert "morpho" in coverage["holding"] + coverage["partial"], "answered in part, never left out"
    assert any("morpho" in reason and "PART_UNREADABLE" in reason for reason in coverage["reasons"])


def test_a_registry_that_cannot_be_read_names_itself_and_drops_nothing(worlds: Any) -> None:
    """InstaList (the Instadapp DSA registry every protocol's accounts are found through) at a
    contract that is not one (a token, which reverts its calls): every check lacks the DSAs, so
    none is left out as empty."""
    built, folder, key = worlds
    chain = str(built.node.chain_id)
    broken = built.parts["morpho"].usdc
    data = json.loads((folder / "addresses.json").read_text())
    data[chain]["accounts"]["instaList"] = broken
    (folder / "broken-registry.json").write_text(json.dumps(data))

    async def run() -> dict[str, Any]:
        async with Service(
            folder, key, built.node, state="broken-registry", addresses="broken-registry.json"
        ) as service:
            return {role: await portfolio(service, {"wallet": built.wallets[role]}) for role in ("empty", "controller")}

    found = asyncio.run(run())
    for role, got in found.items():
        (coverage,) = got["coverage"]
        assert coverage["complete"] is False and coverage["empty"] == [], (role, coverage)
        (reason,) = [reason for reason in coverage["reasons"] if broken.lower() in reason.lower()]
        assert "ACCOUNT_UNREADABLE" in reason and reason.startswith(", ".join(coverage["checked"])), reason
        assert sorted(coverage["holding"] + coverage["partial"]) == coverage["checked"]
    assert not found["empty"]["coverage"][0]["holding"]
    assert [entry["allPositions"] for entry in found["empty"]["data"]] == [[]] * len(found["empty"]["data"])


def test_a_portfolio_asks_the_operators_endpoints_and_a_public_default_only_where_named(
    worlds: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server with the operator's endpoint for the worlds' chain and the public defaults for the
    rest (a dead loopback port in the tests): left out, `chainIds` is the operator's chain; a chain
    named that only a public default serves is checked, and its failure is named, not dropped."""
    built, folder, key = worlds
    chain_id, wallet = built.node.chain_id, built.wallets["saver"]
    monkeypatch.setenv(f"RPC_URL_{chain_id}", built.node.url)

    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        app = server.create_app(
            server.Settings(
                keys_file=str(folder / "keys.env"),
                addresses_file=str(folder / "addresses.json"),
                state_dir=str(folder / "defaults"),
                head_poll_seconds=0,
            )
        )
        from aiohttp.test_utils import TestClient

        async with TestClient(TestServer(app, host="127.0.0.1")) as client:
            service = Service(folder, key, built.node)
            service.client = client
            return await portfolio(service, {"wallet": wallet}), await portfolio(
                service, {"wallet": wallet, "chains": [chain_id, 1]}
            )

    own, named = asyncio.run(run())
    assert [coverage["chainId"] for coverage in own["coverage"]] == [chain_id] and own["errors"] == []
    local, mainnet = named["coverage"]
    unindexed = {name: value for name, value in own["coverage"][0].items() if name != "index"}
    assert {name: value for name, value in local.items() if name != "index"} == unindexed  # the scan moved on
    assert named["data"] == own["data"]
    assert mainnet["blockNumber"] is None and mainnet["complete"] is False
    assert mainnet["failed"] == mainnet["checked"] and mainnet["holding"] == mainnet["empty"] == []
    assert {error["chainId"] for error in named["errors"]} == {1}
    assert {error["protocol"] for error in named["errors"]} == set(mainnet["checked"])
    assert {error["error"]["code"] for error in named["errors"]} == {"NETWORK_ERROR"}
    assert all("reached" in reason or "NETWORK_ERROR" in reason for reason in mainnet["reasons"])


def test_a_portfolio_before_some_deployments_has_those_empty_and_reads_the_others_in_full(
    answers: dict[str, Any],
) -> None:
    """The accounts' discovery every protocol shares is bound by each registry's own code at the
    block, never by the deployment of whichever protocol started it."""
    found = answers["early"]
    (coverage,) = found["portfolio"]["coverage"]
    later = sorted(name for name, start in found["starts"].items() if start > found["block"])
    assert later and coverage["blockNumber"] == found["block"]
    assert coverage["complete"] is True and coverage["reasons"] == [], coverage["reasons"]
    assert set(later) <= set(coverage["empty"])
    refused = {error["protocol"] for error in found["positions"]["errors"]}
    assert set(later) <= refused <= set(coverage["empty"]), "walletPositions refuses the block where they were not yet"
    assert {error["error"]["code"] for error in found["positions"]["errors"]} == {"VALIDATION_ERROR"}
    assert all(" before " in error["error"]["message"] for error in found["positions"]["errors"])
    assert all("ACCOUNT" not in w["code"] for e in found["positions"]["data"] for w in e["warnings"])
    assert found["portfolio"]["data"] == held(found["positions"])


def lens_calls(proxy: RpcProxy) -> list[dict[str, Any]]:
    """The lenses the proxy passed on: calls without `to` (chain/lens.py)."""
    return [call for call in proxy.calls("eth_call") if "to" not in call["params"][0]]


def probe_says(node: Anvil, probe: Probe, holder: str, block: int) -> bool:
    """Whether a probe leaves the holder in (adapters/accounts/probes.py): nonzero, or reverted."""
    data = "0x" + probe.function.calldata(holder).hex()
    try:
        answer = node.rpc("eth_call", {"to": probe.target, "data": data}, hex(block))
    except RuntimeError:
        return True
    return nonzero(probe.function.decode(bytes.fromhex(answer[2:])))


def test_probes_leave_out_an_account_only_where_its_protocol_shows_it_nothing(worlds: Any) -> None:
    """Every protocol's probes against its own answer, for every demo wallet and every account the
    controller controls, each asked as a wallet: where the protocol shows the address something,
    its checks leave it in (the lens's probes answer nonzero, or its index probe says so); the
    lens's probes answer nonzero exactly there; and each protocol's checks leave some address out."""
    built, folder, key = worlds
    chain_id = built.node.chain_id

    async def run() -> tuple[dict[str, Any], list[str], int, dict[str, Any], dict[tuple[str, str], bool]]:
        async with Service(folder, key, built.node, state="probes", rate_limit=10**6) as service:
            registry = service.app[server.REGISTRY]
            probed = {
                name: protocol
                for name, protocol in registry.items()
                if protocol.probes(chain_id) or protocol.index_probe
            }
            controller = await portfolio(service, {"wallet": built.wallets["controller"]})
            block = controller["coverage"][0]["blockNumber"]
            holders = sorted({*built.wallets.values(), *(entry["holder"] for entry in controller["data"])})
            inputs = [
                {"protocol": name, "chainId": chain_id, "walletAddress": holder, "blockNumber": block}
                | {"controlledAccounts": False}
                for name in sorted(probed)
                for holder in holders
            ]
            answers = await service.positions(inputs)
            deadline = asyncio.get_running_loop().time() + 60
            chains, indexes = service.app[server.CHAINS].request(deadline), service.app[server.INDEXES]
            indexed = {
                (name, holder): await protocol.index_probe(
                    protocol.context(deadline, chains, indexes, chain_id, block), holder
                )
                for name, protocol in probed.items()
                if protocol.index_probe
                for holder in holders
            }
            return probed, holders, block, answers, indexed

    probed, holders, block, answers, indexed = asyncio.run(run())
    assert len(probed) >= 16 and len(holders) >= 12 and answers["errors"] == []
    assert {"morpho", "euler", "balancer"} <= {name for name, _ in indexed}
    shown = {(entry["protocol"], entry["walletAddress"]) for entry in answers["data"] if entry["allPositions"]}
    for name, protocol in probed.items():
        found = protocol.probes(chain_id) or ()
        left_out = []
        for holder in holders:
            says = any(probe_says(built.node, probe, holder, block) for probe in found)
            if not protocol.index_probe:
                assert says == ((name, holder) in shown), (name, holder)
            if (name, holder) in shown:
                assert says or indexed.get((name, holder)), (name, holder)
            if not says and not indexed.get((name, holder), False):
                left_out.append(holder)
        assert left_out, f"{name}'s checks leave no address out"
    assert {name for name, _ in shown} == set(probed), "every probed protocol shows some holder something"


def test_an_account_given_what_a_probe_reads_is_answered_through_the_lens(worlds: Any) -> None:
    """The controller's portfolio with every protocol's probes is the one without any, with about a
    third fewer lens calls (answers made); then a vault share moved from the saver to a DSProxy the
    controller owns: its portfolio lists the vault's protocol through that account, as the protocol
    answers the proxy itself, where the lens's probes left every account out before. (Last: it
    changes the chain.)"""
    built, folder, key = worlds
    node, chain_id, saver = built.node, built.node.chain_id, built.wallets["saver"]

    async def run() -> tuple[dict[str, Any], dict[str, Any], str, dict[str, Any], list[int]]:
        proxy = RpcProxy(node.url)
        async with (
            TestServer(proxy.app(), host="127.0.0.1") as proxy_server,
            # No answer kept: the second portfolio reads all it answers, as the first did.
            Service(folder, key, node, str(proxy_server.make_url("/")), state="given", answer_cache_bytes=0) as service,
        ):
            registry = service.app[server.REGISTRY]
            lenses: list[int] = []
            declared, both = dict(registry), []
            at = {"wallet": built.wallets["controller"], "at": {"blockNumber": node.block_number()}}
            for probed in (True, False):  # the same portfolio with every protocol's probes, then without any
                for name, protocol in declared.items():
                    registry[name] = protocol if probed else replace(protocol, probe=None, index_probe=None)
                counted = len(lens_calls(proxy))
                both.append(await portfolio(service, at))
                lenses.append(len(lens_calls(proxy)) - counted)
            registry.update(declared)
            proxy.released.set()
            before, without = both
            assert before["data"] == without["data"], "the probes leave out only what holds nothing"
            (one,), (other,) = before["coverage"], without["coverage"]
            assert {**one, "index": None} == {**other, "index": None}  # the index read on meanwhile
            proxy = next(entry["holder"] for entry in before["data"] if entry["via"] == "dsproxy")
            name, vault, balance = next(
                (name, vault.address, held)
                for name, protocol in sorted(registry.items())
                if name in VAULT_STYLE
                for vault in protocol.part(protocol.chain(chain_id)).vaults
                if (held := node.call(vault.address, "balanceOf(address)", saver))
            )
            node.send(vault, "transfer(address,uint256)", proxy, balance // 2, sender=saver)
            after = await portfolio(service, {"wallet": built.wallets["controller"]})
            block = after["coverage"][0]["blockNumber"]
            own = {"protocol": name, "chainId": chain_id, "walletAddress": proxy, "blockNumber": block}
            return before, after, name, await service.positions([own | {"controlledAccounts": False}]), lenses

    before, after, name, direct, lenses = asyncio.run(run())
    probed, without = lenses  # lens calls: about one an answer, an account's in each protocol that answers it
    assert probed < without * 3 / 4, lenses  # 185 and 283 when written: 16 of 26 protocols leave the accounts out
    assert name not in {entry["protocol"] for entry in before["data"]}
    own, entry = [entry for entry in after["data"] if entry["protocol"] == name]
    (alone,) = direct["data"]
    assert own["via"] is None and own["allPositions"] == []
    assert entry["via"] == "dsproxy" and entry["holder"] == alone["walletAddress"]
    assert entry["allPositions"] == alone["allPositions"] != []
    assert after["coverage"][0]["holding"] == sorted({*before["coverage"][0]["holding"], name})
