"""The accounts' registries (addresses.json's `accounts`) and the reads of adapters/accounts/ against
their publishers' own npm packages, pinned as tarballs in tools/packs.json: Maker's
(`@makerdao/dai-plugin-mcd`: the ProxyRegistry and the DSProxy ABIs), DeFi Saver's
(`@defisaver/sdk`: the DFSProxyRegistry's address and ABI), Instadapp's (`dsa-connect`: InstaList's
addresses and ABI) and Summer.fi's (`@oasisdex/addresses`: the DPM AccountFactory and AccountGuard).
An address that drifts from its publisher, or a chain the publisher lists that this service serves
without it, fails here.

Summer.fi's AccountGuard `owners` and the DPM events (adapters/accounts/summer.py) are not held to
an ABI: no npm package of Summer.fi's publishes the AccountGuard's or the AccountFactory's ABI."""

from __future__ import annotations

import json

import addresses
from adapters.accounts import dsproxy, instadapp
from tests.evm import functions_of
from tests.node_oracles import defisaver_abi, maker_abi, maker_addresses, packs

SUMMER_NETWORKS = {"1": "mainnet", "42161": "arbitrum", "10": "optimism", "8453": "base"}
"""@oasisdex/addresses' network names (ADDRESSES.<network>) by chain id; its others are testnets."""
SUMMER_TESTNETS = {"goerli", "sepolia", "test"}
SUMMER_DPM_BLOCKS = {
    "1": {"accountFactory": 16183119, "accountGuard": 16183119},
    "10": {"accountFactory": 84955175, "accountGuard": 84955123},
    "42161": {"accountFactory": 22207817, "accountGuard": 22207817},
    "8453": {"accountFactory": 1_208_526, "accountGuard": 1_208_526},
}
"""Where the DPM streams start. Ethereum's and Optimism's are the blocks Summer.fi's own app reads
the factory's and the guard's logs from (OasisDEX/oasis-borrow at 6d6fe27, blockchain/tokens/
mainnet.ts ACCOUNT_GUARD_FACTORY_GENESIS_MAINNET, optimism.ts ACCOUNT_GUARD_GENESIS_OPTIMISM_MAINNET
and ACCOUNT_FACTORY_GENESIS_OPTIMISM_MAINNET). Summer.fi publishes none for Arbitrum and Base, so
theirs are lower bounds (an earlier block only costs scan time): Arbitrum One's Nitro genesis
(22207817, 2022-08-31), before the DPM contracts were written (OasisDEX/defi-position-manager-
smartcontracts begins 2022-09-28); on Base, the block of 2023-07-13, when Base opened to builders
(1,208,526: Base makes a block every 2 s from its genesis at 1686789347), the DPM being listed
there on 2023-09-13 (OasisDEX/oasis-earn-sc 29cc83e, "Base L2 deployment"), about block 3.9 million."""


DFS_REGISTRIES = {
    "42161": "0xeCF15D0aE171F757175c6aBDD2C70e9a8806984C",
    "10": "0x7cB647205ec73A026fe3566777e5c73Cd5A11b38",
    "8453": "0x2D8BFD9FF88E3106ce7214621b0770c1578749A1",
}
"""DeFi Saver's DFSProxyRegistry where its SDK lists none: its deployment files, defisaver/
defisaver-v3-contracts at ef03f10, addresses/{arbitrum,optimism,base}.json (`DFSProxyRegistry`),
the same addresses as DFS_PROXY_REGISTRY_ADDR in contracts/utils/addresses/<chain>UtilAddresses.sol.
Each reads the ProxyRegistry this service lists on that chain (MKR_PROXY_REGISTRY there)."""


def built_in() -> dict[str, dict]:
    return json.loads(addresses.BUILT_IN.read_text())


def test_the_proxy_registry_is_makers_and_summers():
    """Ethereum's DSProxy registry is the one Maker publishes (dai-plugin-mcd's PROXY_REGISTRY), the
    one Summer.fi builds its DSProxies through too (@oasisdex/addresses' mainnet DSProxyRegistry);
    on Arbitrum, Optimism and Base, the one Summer.fi lists there (DeFi Saver's files name the same)."""
    (summer,) = packs(["summer"])
    published = maker_addresses()["PROXY_REGISTRY"].lower()
    assert summer["mainnet"]["dsProxyRegistry"].lower() == published
    listed = {chain: value.get("accounts", {}).get("proxyRegistries") for chain, value in built_in().items()}
    assert [r.lower() for r in listed["1"]] == [published]
    for chain, network in SUMMER_NETWORKS.items():
        assert [r.lower() for r in listed[chain]] == [summer[network]["dsProxyRegistry"].lower()], chain
    assert {chain for chain, registries in listed.items() if registries} == set(SUMMER_NETWORKS)


def test_every_insta_list_is_dsa_connects_and_none_is_missing():
    """Each chain's InstaList is dsa-connect's `core[chainId].list`, and every served chain that
    dsa-connect lists has it."""
    (dsa,) = packs(["instadapp"])
    for chain, value in built_in().items():
        listed, published = value.get("accounts", {}).get("instaList"), dsa["lists"].get(chain)
        if published is None:
            assert listed is None, f"dsa-connect lists no InstaList on chain {chain}"
            continue
        assert listed is not None, f"Instadapp is on chain {chain}, which this service serves"
        assert listed.lower() == published.lower(), chain


def test_every_summer_dpm_is_summers_and_none_is_missing():
    """Each chain's DPM AccountFactory and AccountGuard are @oasisdex/addresses' (`mpa.core`), from
    the blocks of SUMMER_DPM_BLOCKS, and every network it lists is a served chain with them."""
    (summer,) = packs(["summer"])
    assert set(summer) - SUMMER_TESTNETS == set(SUMMER_NETWORKS.values()), "a network Summer.fi lists is not mapped"
    for chain, value in built_in().items():
        dpm = value.get("accounts", {}).get("summerDpm")
        if chain not in SUMMER_NETWORKS:
            assert dpm is None, f"Summer.fi lists no DPM on chain {chain}"
            continue
        assert dpm is not None, f"Summer.fi's DPM is on chain {chain}, which this service serves"
        published = summer[SUMMER_NETWORKS[chain]]
        assert dpm["accountFactory"]["address"].lower() == published["accountFactory"].lower(), chain
        assert dpm["accountGuard"]["address"].lower() == published["accountGuard"].lower(), chain
        assert {name: dpm[name]["startBlock"] for name in SUMMER_DPM_BLOCKS[chain]} == SUMMER_DPM_BLOCKS[chain], chain


def test_every_dfs_proxy_registry_is_defi_savers():
    """Ethereum's DFSProxyRegistry is the one @defisaver/sdk lists (`otherAddresses`); elsewhere the
    SDK lists none, and those served are DeFi Saver's deployment files' (DFS_REGISTRIES). A chain
    the SDK starts to list fails here, to be checked."""
    (sdk,) = packs(["defisaver"])
    published = {chain: address for chain, address in sdk.items() if address} | DFS_REGISTRIES
    assert sdk["1"] and not DFS_REGISTRIES.keys() & {chain for chain, address in sdk.items() if address}
    listed = {chain: value.get("accounts", {}).get("dfsProxyRegistries") for chain, value in built_in().items()}
    assert {chain: registries for chain, registries in listed.items() if registries} == {
        chain: [address] for chain, address in published.items() if chain in built_in()
    }


def test_the_dsproxy_reads_are_makers_and_defi_savers_published_abis():
    published = {
        "PROXIES": maker_abi("ProxyRegistry"),
        "OWNER": maker_abi("DSProxy"),
        "GET_ALL_PROXIES": defisaver_abi("DFSProxyRegistry"),
    }
    functions = functions_of(dsproxy)
    assert set(functions) == set(published)
    for name, function in functions.items():
        assert published[name][function.signature] == function.output_types, name


def test_the_insta_list_reads_are_instadapps_published_abi():
    (dsa,) = packs(["instadapp"])
    functions = functions_of(instadapp)
    assert set(functions) == {"USER_LINK", "USER_LIST", "ACCOUNT_ADDR"}
    for name, function in functions.items():
        assert dsa["abi"][function.signature] == function.output_types, name


def test_makers_published_abis_are_read():
    """The accessor a Maker adapter's `Function`s are held to: dai-plugin-mcd's ABIs by contract."""
    assert maker_abi("Vat")["urns(bytes32,address)"] == ["uint256", "uint256"]
    assert maker_abi("GetCdps")["getCdpsAsc(address,address)"] == ["uint256[]", "address[]", "bytes32[]"]
    assert maker_abi("IlkRegistry")["list(uint256,uint256)"] == ["bytes32[]"]
    assert maker_abi("DssCdpManager")["urns(uint256)"] == ["address"]
    for contract in ("Spotter", "Jug", "Dog"):
        assert "ilks(bytes32)" in maker_abi(contract), contract
