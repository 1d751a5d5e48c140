"""The accounts a wallet controls (adapters/accounts/): found through each route's registry at the
block, answered as the protocol answers a wallet, after the wallet's own entry (tests/accounts_world.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from adapters import accounts
from adapters.accounts import dsproxy, instadapp, probes, summer
from chain import erc20, lens
from tests import accounts_world as A
from tests import morpho_world as M
from tests.conftest import input_entries, world_api, world_fixture
from tests.evm import Anvil
from tests.node_oracles import abi_functions

QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on MorphoWalletPositions { walletAddress holder via blockNumber warnings { code target message }
    marketPositions { marketId supplyShares supplyAssets supplyAssetsUsd } } }
  errors { error { code message } } } }"""


@dataclass
class World:
    node: Anvil
    morpho: M.MorphoWorld
    accounts: A.AccountsWorld

    def write_addresses(self, path: Path) -> Path:
        data = self.morpho.addresses_override()
        data[str(self.node.chain_id)]["accounts"] = self.accounts.addresses_override()
        path.write_text(json.dumps(data))
        return path


def build(node: Anvil) -> World:
    morpho = M.build(node, M.compile_all())
    return World(node, morpho, A.build(node, morpho, node.accounts[7], node.accounts[8]))


world = world_fixture(build)


async def positions(api: Any, wallet: str, **more: Any) -> list[dict[str, Any]]:
    return await input_entries(api, QUERY, "morpho", wallet, **more)


async def test_each_route_answers_the_accounts_the_wallet_controls_after_its_own_entry(world_client, world):
    wallet = world.accounts.wallet
    own, *entries = await positions(world_client, wallet)
    assert (own["walletAddress"], own["holder"], own["via"]) == (wallet, wallet, None)
    assert own["marketPositions"] == [] and own["warnings"] == []
    assert {entry["holder"]: entry["via"] for entry in entries} == world.accounts.controlled()
    assert [entry["via"] for entry in entries] == sorted(
        (entry["via"] for entry in entries), key=("dsproxy", "instadapp-dsa", "summer-dpm").index
    ), "in route order"
    for entry in entries:
        assert entry["walletAddress"] == wallet
        (alone,) = await positions(world_client, entry["holder"], controlledAccounts=False)
        assert entry == {**alone, "walletAddress": wallet, "holder": entry["holder"], "via": entry["via"]}
        (market,) = entry["marketPositions"]
        role = next(role for role, account in world.accounts.accounts.items() if account == entry["holder"])
        assert int(market["supplyAssets"]) == pytest.approx(A.SUPPLIED[role] * A.USDC, abs=A.USDC)


async def test_the_option_turns_them_off_and_other_wallets_get_none_of_them(world_client, world):
    (own,) = await positions(world_client, world.accounts.wallet, controlledAccounts=False)
    assert own["holder"] == world.accounts.wallet
    other = await positions(world_client, world.accounts.other)
    assert {entry["holder"] for entry in other[1:]} == {
        world.accounts.accounts[role] for role in ("dpm_given_away", "others_dsa", "dsa_shared")
    }, "its DSAs and the DPM account given to it; not the proxy it gave away, which the registry still names"


async def test_an_account_given_away_is_answered_up_to_the_block_before(world_client, world):
    """The AccountGuard decides at the block: a DPM account the wallet gives away leaves its answer
    from that block on, and stays in its answers of the blocks before; given back, it returns."""
    node, wallet, other = world.node, world.accounts.wallet, world.accounts.other
    account = world.accounts.accounts["dpm"]
    before = node.block_number()
    node.send(world.accounts.guard, "changeOwner(address,address)", other, account, sender=wallet)
    try:
        assert account not in {entry["holder"] for entry in await positions(world_client, wallet)}
        assert account in {entry["holder"] for entry in await positions(world_client, other)}
        then = await positions(world_client, wallet, blockNumber=before)
        assert account in {entry["holder"] for entry in then}
    finally:
        node.send(world.accounts.guard, "changeOwner(address,address)", wallet, account, sender=other)
    assert account in {entry["holder"] for entry in await positions(world_client, wallet)}


async def test_accounts_beyond_each_bound_are_named_not_dropped(world_client, world, monkeypatch):
    """Past MAX_ACCOUNTS (2 here) the wallet's entry names what each registry lists beyond what is
    read, and the accounts found beyond those answered; past MAX_CANDIDATES (1), the DPM accounts
    whose owners are not read. The accounts answered are the first found, in route order."""
    monkeypatch.setattr(accounts, "MAX_ACCOUNTS", 2)
    monkeypatch.setattr(accounts, "MAX_CANDIDATES", 1)
    made = world.accounts.accounts
    own, *entries = await positions(world_client, world.accounts.wallet)
    assert [entry["holder"] for entry in entries] == [made["dsproxy"], made["dfs_recorded"]]
    warnings = {warning["target"]: warning for warning in own["warnings"]}
    assert {warning["code"] for warning in own["warnings"]} == {accounts.ACCOUNTS_LEFT_OUT}
    assert set(warnings) == {
        world.accounts.dfs_registry,
        world.accounts.insta_list,
        world.accounts.factory,
        "controlled accounts",
    }
    assert warnings[world.accounts.dfs_registry]["message"] == (
        "DeFi Saver's registry lists 3 DSProxies for the wallet; 1 after the first 2 are not answered"
    )
    assert warnings[world.accounts.insta_list]["message"] == (
        "InstaList links 3 DSAs to the wallet; 1 after the first 2 are not answered"
    )
    assert warnings[world.accounts.factory]["message"].startswith("3 DPM accounts were made for or given to the wallet")
    left = warnings["controlled accounts"]["message"]
    assert left.startswith("the wallet controls ") and "only the first 2 are answered" in left
    assert all(made[role] in left for role in ("dfs_built", "dsa"))


async def test_a_registry_that_fails_is_named_and_the_other_accounts_answered(
    aiohttp_client, keys_file, api_key, world, tmp_path
):
    """A registry whose call reverts (here a contract that is no registry) is ACCOUNT_UNREADABLE in
    the wallet's entry, naming it; every other route's accounts are answered as before."""
    broken = world.morpho.morpho
    data = json.loads(world.write_addresses(tmp_path / "a.json").read_text())
    section = data[str(world.node.chain_id)]["accounts"]
    section["proxyRegistries"].append(broken)
    section["dfsProxyRegistries"].append(broken)
    (tmp_path / "broken.json").write_text(json.dumps(data))
    api = await world_api(aiohttp_client, keys_file, api_key, tmp_path / "broken.json", world.node)
    own, *entries = await positions(api, world.accounts.wallet)
    assert {entry["holder"]: entry["via"] for entry in entries} == world.accounts.controlled()
    assert [(w["code"], w["target"]) for w in own["warnings"]] == [(accounts.ACCOUNT_UNREADABLE, broken)] * 2
    assert all(w["message"].startswith("the dsproxy accounts it registers are not answered: ") for w in own["warnings"])


def test_the_test_contracts_declare_what_the_routes_read():
    """The test contracts answer the routes' calls as the published ABIs declare them (those of
    dai-plugin-mcd, @defisaver/sdk and dsa-connect hold the routes in tests/test_account_registries.py; Summer.fi
    publishes its ABIs on a public repository only, which AccountGuard's `owners` follows)."""
    artifacts = A.compile_all()
    for contract, functions in (
        ("TestProxyRegistry", [dsproxy.PROXIES]),
        ("TestDFSProxyRegistry", [dsproxy.GET_ALL_PROXIES]),
        ("TestDSProxy", [dsproxy.OWNER]),
        ("TestInstaList", [instadapp.USER_LINK, instadapp.USER_LIST, instadapp.ACCOUNT_ADDR]),
        ("TestAccountGuard", [summer.OWNERS]),
    ):
        declared = abi_functions(artifacts[contract].abi)
        for function in functions:
            assert declared[function.signature] == function.output_types, (contract, function.signature)
    events = {
        entry["name"]: entry
        for name in ("TestAccountFactory", "TestAccountGuard")
        for entry in artifacts[name].abi
        if entry["type"] == "event"
    }
    for event in (summer.ACCOUNT_CREATED, summer.OWNERSHIP_TRANSFERRED):
        entry = events[event.signature.split("(")[0]]
        assert all(part["indexed"] for part in entry["inputs"]), "all three indexed, as Summer.fi's ABI has them"
    assert accounts.MAX_ACCOUNTS == 50


@pytest.mark.parametrize("count", [0, 1, 27, 32, 33, 76, 200])
def test_the_probes_are_split_evenly_among_lenses_of_at_most_per_lens(count: int) -> None:
    """Every probe in exactly one AccountsLens, in order, PER_LENS at most a lens, and one lens where
    none is asked (the accounts are still found)."""
    asked = [probes.Probe(f"0x{index:040x}") for index in range(count)]
    parts = probes.lens_parts(asked)
    assert [target for targets, _ in parts for target in targets] == [probe.target for probe in asked]
    assert all(len(targets) <= probes.PER_LENS for targets, _ in parts)
    assert len(parts) == max(1, -(-count // probes.PER_LENS))
    sizes = [len(targets) for targets, _ in parts]
    assert max(sizes) - min(sizes) <= 1, sizes
    assert all(selectors == [bytes.fromhex("70a08231")] * len(targets) for targets, selectors in parts)


@pytest.mark.parametrize("per_account", [probes.PER_LENS, 10 * probes.PER_LENS])
def test_the_accounts_lens_stays_far_inside_an_eth_calls_gas_however_many_probes(world, per_account: int) -> None:
    """AccountsLens for the wallet of the world's accounts: a lens's share of probes (PER_LENS)
    for each of its 7 accounts fits the tape; ten times as many cut it, and the lens stops probing
    there, so its gas (each probe's read and the 72 bytes it returns) stays bounded by the tape,
    far inside the 50 million gas common nodes give an `eth_call` (docs/accounts.md, "Probes")."""
    node, found = world.node, world.accounts
    dpms = [account for account, via in found.controlled().items() if via == "summer-dpm"]
    tokens = [world.morpho.usdc.lower(), world.morpho.weth.lower()]
    targets = tokens * (per_account // 2)
    selectors = [bytes.fromhex(erc20.BALANCE_OF.selector)] * len(targets)
    routes = ([found.registry], [found.dfs_registry], found.insta_list, accounts.MAX_ACCOUNTS, found.guard, dpms)
    initcode = accounts.LENS.initcode(found.wallet, *routes, targets, selectors)
    call = {"data": "0x" + initcode.hex(), "gas": hex(50_000_000)}
    gas = int(node.rpc("eth_estimateGas", call), 16)
    tape, cut = lens.records(bytes.fromhex(node.rpc("eth_call", call, "latest")[2:]))
    print(f"{per_account} probes an account: {gas:,} gas, cut: {cut}")
    assert gas < 10_000_000
    assert cut is (per_account > probes.PER_LENS)
    held = [
        (token, lens.digest(erc20.BALANCE_OF.calldata(account))) in tape
        for account in found.controlled()
        for token in tokens
    ]
    assert all(held) if not cut else not all(held), "every account's probes; past the cut, some left to be read in full"
