"""The accounts a wallet controls, on the Morpho world (and the Aave world where given): a DSProxy
built through a ProxyRegistry, DSProxies DeFi Saver's DFSProxyRegistry lists, Instadapp DSAs linked
in InstaList, and Summer.fi DPM accounts made by an AccountFactory and owned as its AccountGuard
says, as test contracts with the views of the ABIs their publishers ship
(tests/contracts/TestAccounts.sol, TestMaker.sol). Each account holds a Morpho supply the wallet's
lender made on its behalf, as anyone may; the accounts the wallet does not control (given away,
empty, someone else's) hold one too, so that listing them would show.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from tests import morpho_world as M
from tests.aave_world import AaveWorld
from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts

USDC = 10**6
SUPPLIED = {
    "dsproxy": 2_500,
    "dfs_recorded": 600,
    "dfs_built": 1_500,
    "dsa": 5_000,
    "dsa_shared": 800,
    "dpm": 7_000,
    "dpm_received": 1_000,
}
"""USDC supplied in Morpho market A on behalf of each account the wallet controls: `dfs_recorded`
is a proxy built for another and given to the wallet, which DeFi Saver's registry recorded as its
Maker proxy; `dfs_built` one DeFi Saver built for it."""
NOT_CONTROLLED = {"proxy_given_away": 300, "dfs_given_away": 200, "dpm_given_away": 3_000, "others_dsa": 400}
"""USDC supplied on behalf of accounts the wallet does not (or no longer) control."""
AAVE_SUPPLIED = 2_000
"""USDC supplied in the Aave world's first market on behalf of the wallet's DSA."""


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts([CONTRACTS / "TestAccounts.sol", CONTRACTS / "TestMaker.sol"])


@dataclass
class AccountsWorld:
    node: Anvil
    wallet: str
    other: str
    registry: str = ""
    dfs_registry: str = ""
    insta_list: str = ""
    guard: str = ""
    factory: str = ""
    start_block: int = 0
    accounts: dict[str, str] = field(default_factory=dict)
    """Every account made, by its role (SUPPLIED, NOT_CONTROLLED, "dsa_empty")."""

    def addresses_override(self) -> dict[str, Any]:
        """The `accounts` section of a chain's addresses."""
        deployment = functools.partial(dict, startBlock=self.start_block)
        return {
            "proxyRegistries": [self.registry],
            "dfsProxyRegistries": [self.dfs_registry],
            "instaList": self.insta_list,
            "summerDpm": {
                "accountFactory": deployment(address=self.factory),
                "accountGuard": deployment(address=self.guard),
            },
        }

    def controlled(self) -> dict[str, str]:
        """Account -> `via`, for the accounts the wallet controls."""
        via = {role: "dsproxy" for role in ("dsproxy", "dfs_recorded", "dfs_built")}
        via |= {"dsa": "instadapp-dsa", "dsa_shared": "instadapp-dsa"}
        return {self.accounts[role]: via.get(role, "summer-dpm") for role in SUPPLIED}


def build(
    node: Anvil,
    morpho: M.MorphoWorld,
    wallet: str,
    other: str,
    aave: AaveWorld | None = None,
    registry: str | None = None,
) -> AccountsWorld:
    """`registry`: a ProxyRegistry already deployed (the Maker world's), else one of its own."""
    artifacts = compile_all()
    world = AccountsWorld(node, wallet, other)
    world.start_block = node.block_number()
    world.registry = registry or node.deploy(artifacts["TestProxyRegistry"])
    world.dfs_registry = node.deploy(artifacts["TestDFSProxyRegistry"], ["address"], [world.registry])
    world.insta_list = node.deploy(artifacts["TestInstaList"])
    world.guard = node.deploy(artifacts["TestAccountGuard"])
    world.factory = node.deploy(artifacts["TestAccountFactory"], ["address"], [world.guard])
    made = world.accounts

    def created(receipt: dict[str, Any], event: int = -1) -> str:
        return "0x" + receipt["logs"][event]["topics"][1][-40:]

    built = node.call(world.registry, "proxies(address)", wallet, returns=("address",)).lower()
    made["dsproxy"] = built if int(built, 16) else _returned(node, world.registry, "build(address)", wallet)
    made["proxy_given_away"] = _returned(node, world.registry, "build(address)", other)
    # A proxy built for `other` and given to the wallet: the registry still names it `other`'s.
    node.send(made["proxy_given_away"], "setOwner(address)", wallet, sender=other)
    _dfs_proxies(node, world, made)
    for role, owner in (("dsa", wallet), ("dsa_empty", wallet), ("dsa_shared", other), ("others_dsa", other)):
        made[role] = node.deploy(artifacts["TestDsa"], ["address", "address"], [world.insta_list, owner])
    node.send(made["dsa_shared"], "enable(address)", wallet, sender=other)
    for role, owner in (("dpm", wallet), ("dpm_received", other), ("dpm_given_away", wallet)):
        made[role] = created(node.send(world.factory, "createAccount(address)", owner))
    node.send(world.guard, "changeOwner(address,address)", wallet, made["dpm_received"], sender=other)
    node.send(world.guard, "changeOwner(address,address)", other, made["dpm_given_away"], sender=wallet)
    lender = morpho.wallets["lender"]
    supply = "supply((address,address,address,address,uint256),uint256,uint256,address,bytes)"
    for role, amount in (*SUPPLIED.items(), *NOT_CONTROLLED.items()):
        node.send(morpho.morpho, supply, morpho.market_a, amount * USDC, 0, made[role], b"", sender=lender)
    if aave is not None:
        market = aave.markets[0]
        usdc = market.tokens["USDC"]
        node.send(usdc, "mint(uint256)", AAVE_SUPPLIED * USDC, sender=wallet)
        node.send(usdc, "approve(address,uint256)", market.pool, 2**256 - 1, sender=wallet)
        supply_aave = "supply(address,uint256,address,uint16)"
        node.send(market.pool, supply_aave, usdc, AAVE_SUPPLIED * USDC, made["dsa"], 0, sender=wallet)
    return world


def _dfs_proxies(node: Anvil, world: AccountsWorld, made: dict[str, str]) -> None:
    """What DeFi Saver's controller does: build proxies through the DSProxyFactory and record them,
    and record a proxy given to a wallet as that wallet's Maker proxy."""
    factory = node.call(world.registry, "factory()", returns=("address",))
    wallet, other = world.wallet, world.other
    for role, owner in (("dfs_recorded", other), ("dfs_built", wallet), ("dfs_given_away", wallet)):
        made[role] = _returned(node, factory, "build(address)", owner)
    node.send(made["dfs_recorded"], "setOwner(address)", wallet, sender=other)
    node.send(world.dfs_registry, "changeMcdOwner(address,address)", wallet, made["dfs_recorded"])
    for role in ("dfs_built", "dfs_given_away"):
        node.send(world.dfs_registry, "addAdditionalProxy(address,address)", wallet, made[role])
    # Given away after DeFi Saver recorded it: the registry's list keeps it.
    node.send(made["dfs_given_away"], "setOwner(address)", other, sender=wallet)


def _returned(node: Anvil, to: str, signature: str, *args: Any) -> str:
    """The address a call returns, then the call sent (a factory's new contract)."""
    address = node.call(to, signature, *args, returns=("address",))
    node.send(to, signature, *args)
    return str(address).lower()
