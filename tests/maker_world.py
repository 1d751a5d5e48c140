"""Maker (Sky) on anvil: the Vat, Spotter, Jug, Dog, joins, CdpManager, GetCdps, a ProxyRegistry,
DssProxyActions and Sky's LockstakeEngine as test contracts with the signatures and arithmetic of
Maker's own (tests/contracts/TestMaker.sol: no registry package ships Maker's bytecode), named by a
ChainLog and an IlkRegistry (TestMakerRegistries.sol). Three collateral types with OSM prices; a
vault through a DSProxy, a CdpManager vault and an urn a wallet owns directly, and a staking-engine
urn, each given its collateral as on mainnet: the wallet's tokens through the ilk's join (by
DssProxyActions' lockGemAndDraw for the DSProxy, whose dai leaves as DAI through the DaiJoin), the
staking engine's through its own lock, its ink staked in a farm that pays USDS (priced by a USD
feed); a year of stability fees accrued but not dripped, so the debt is the Jug's compounding to
the block.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import eth_abi

from tests.evm import CONTRACTS, Anvil, Artifact, arg_types, compile_contracts, selector

WAD, RAY, RAD = 10**18, 10**27, 10**45
YEAR = 365 * 24 * 3600
FIVE_PERCENT = 1_000_000_001_547_125_957_863_212_448
"""Jug duty of 5 % a year (Maker's table of per-second rates)."""
ILKS = {
    "ETH-A": ("WETH", 18, 3_000 * WAD, 145 * RAY // 100, FIVE_PERCENT),
    "WBTC-A": ("WBTC", 8, 60_000 * WAD, 175 * RAY // 100, 1_000_000_000_627_937_192_491_029_810),
    "LSEV2-SKY-A": ("lsSKY", 18, 6 * WAD // 100, 125 * RAY // 100, 1_000_000_003_022_265_980_097_387_650),
}
"""ilk -> (gem symbol, gem decimals, OSM price in USD as a wad, mat, duty)."""
SKY_ILK = "LSEV2-SKY-A"
FARM_REWARD = 60 * WAD
"""USDS the staking-engine urn's farm pays out over its week (the urn is its only staker): about
10 % a year of its collateral's $30,000, as Sky's farms pay, not a figure that dwarfs the vault."""
USDS_USD = 100_000_000
"""USDS' USD feed answer (8 decimals): 1 USD."""
JOINS = {"ETH-A": "TestGemJoin", "WBTC-A": "TestGemJoin5"}
"""ilk -> its join, mainnet's kind (dss's GemJoin for WETH, dss-gem-joins' GemJoin5 for WBTC's 8
decimals); the staking ilk has none: the LockstakeEngine slips its collateral itself."""


def ilk_key(name: str) -> bytes:
    return name.encode().ljust(32, b"\0")


def join_key(ilk: str) -> str:
    """The ChainLog's key of an ilk's join (MCD_JOIN_ETH_A)."""
    return "MCD_JOIN_" + ilk.replace("-", "_")


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts(
        [
            CONTRACTS / "TestMaker.sol",
            CONTRACTS / "TestMakerRegistries.sol",
            CONTRACTS / "TestToken.sol",
            CONTRACTS / "TestPriceFeed.sol",
        ]
    )


@dataclass
class MakerWorld:
    node: Anvil
    wallets: dict[str, str] = field(default_factory=dict)
    contracts: dict[str, str] = field(default_factory=dict)
    """By ChainLog key (CDP_MANAGER, MCD_VAT, MCD_JOIN_ETH_A, ...), and "CHAIN_LOG", "PROXY_ACTIONS",
    "PROXY_REGISTRY"."""
    pips: dict[str, str] = field(default_factory=dict)
    gems: dict[str, str] = field(default_factory=dict)
    start_block: int = 0
    proxy: str = ""
    cdps: dict[str, int] = field(default_factory=dict)
    """"proxy" (ETH-A through the DSProxy), "direct" (WBTC-A, owned by the wallet itself)."""
    staked_urn: str = ""
    farm: str = ""
    """The staking-engine urn's farm (a StakingRewards paying USDS)."""

    def addresses_override(self) -> dict[str, Any]:
        """The `maker` section of a chain's addresses."""
        return {"chainLog": {"address": self.contracts["CHAIN_LOG"], "startBlock": self.start_block}}

    def feeds(self) -> dict[str, Any]:
        """USDS' USD feed, a chain's `priceFeeds` entry (what the farm's reward is priced by)."""
        return {self.contracts["USDS"]: {"pair": "USDS/USD", "feed": self.contracts["USDS/USD"], "heartbeat": 10**9}}

    def write_addresses(self, path: Path) -> Path:
        """Maker, USDS' feed and its ProxyRegistry on the node's chain."""
        chain = {"name": "anvil devnet", "maker": self.addresses_override(), "priceFeeds": self.feeds()}
        chain["accounts"] = {"proxyRegistries": [self.contracts["PROXY_REGISTRY"]]}
        path.write_text(json.dumps({str(self.node.chain_id): chain}))
        return path

    def price(self, ilk: str) -> int:
        """The OSM's price of `ilk` as a wad."""
        _, _, price, *_ = ILKS[ilk]
        return price

    def set_price(self, ilk: str, wad: int) -> None:
        """The OSM's price of `ilk` set and poked into the Vat's spot."""
        self.node.send(self.pips[ilk], "set(uint256)", wad)
        self.node.send(self.contracts["MCD_SPOT"], "poke(bytes32)", ilk_key(ilk))


def build(node: Anvil, wallets: dict[str, str] | None = None, elapse: int = YEAR) -> MakerWorld:
    """`wallets` (owner: a vault through its DSProxy; direct: a CdpManager vault and a Vat urn of
    its own; staker: a staking-engine urn; empty) default to anvil accounts 14-17; `elapse`
    seconds pass after the vaults are made (none among the other worlds, whose feeds and
    maturities keep their own time)."""
    artifacts = compile_all()
    world = MakerWorld(node)
    world.wallets = wallets or dict(zip(("owner", "direct", "staker", "empty"), node.accounts[14:18]))
    owner, direct, staker = (world.wallets[role] for role in ("owner", "direct", "staker"))
    world.start_block = node.block_number()
    made = world.contracts
    made["CHAIN_LOG"] = node.deploy(artifacts["TestChainLog"])
    made["MCD_VAT"] = vat = node.deploy(artifacts["TestVat"])
    for name, artifact in (("MCD_SPOT", "TestSpotter"), ("MCD_JUG", "TestJug"), ("MCD_DOG", "TestDog")):
        made[name] = node.deploy(artifacts[artifact], ["address"], [vat])
    made["CDP_MANAGER"] = node.deploy(artifacts["TestDssCdpManager"], ["address"], [vat])
    made["GET_CDPS"] = node.deploy(artifacts["TestGetCdps"])
    made["ILK_REGISTRY"] = node.deploy(artifacts["TestIlkRegistry"])
    made["MCD_DAI"] = node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], ["Dai Stablecoin", "DAI", 18])
    made["USDS"] = node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], ["USDS Stablecoin", "USDS", 18])
    made["USDS/USD"] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
    node.send(made["USDS/USD"], "set(int256,uint256)", USDS_USD, node.timestamp())  # a heartbeat of 31 years
    made["PROXY_REGISTRY"] = node.deploy(artifacts["TestProxyRegistry"])
    made["PROXY_ACTIONS"] = node.deploy(artifacts["TestProxyActions"])
    made["MCD_JOIN_DAI"] = node.deploy(artifacts["TestDaiJoin"], ["address", "address"], [vat, made["MCD_DAI"]])
    spot, jug, dog = made["MCD_SPOT"], made["MCD_JUG"], made["MCD_DOG"]
    node.send(vat, "file(bytes32,uint256)", ilk_key("Line"), 10**9 * RAD)
    node.send(dog, "file(bytes32,uint256)", ilk_key("Hole"), 10**9 * RAD)
    for ilk, (symbol, decimals, _, mat, duty) in ILKS.items():
        key = ilk_key(ilk)
        world.gems[ilk] = node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], [symbol, symbol, decimals])
        world.pips[ilk] = node.deploy(artifacts["TestOsm"])
        if ilk in JOINS:
            join = node.deploy(artifacts[JOINS[ilk]], ["address", "bytes32", "address"], [vat, key, world.gems[ilk]])
            made[join_key(ilk)] = join
            node.send(vat, "rely(address)", join)
        node.send(made["ILK_REGISTRY"], "add(bytes32,address)", key, world.gems[ilk])
        node.send(vat, "init(bytes32)", key)
        node.send(vat, "file(bytes32,bytes32,uint256)", key, ilk_key("line"), 10**8 * RAD)
        node.send(vat, "file(bytes32,bytes32,uint256)", key, ilk_key("dust"), 100 * RAD)
        node.send(jug, "init(bytes32)", key)
        node.send(jug, "dripAndFile(bytes32,bytes32,uint256)", key, ilk_key("duty"), duty)
        node.send(spot, "file(bytes32,bytes32,address)", key, ilk_key("pip"), world.pips[ilk])
        node.send(spot, "file(bytes32,bytes32,uint256)", key, ilk_key("mat"), mat)
        node.send(dog, "file(bytes32,bytes32,uint256)", key, ilk_key("chop"), 113 * WAD // 100)
        node.send(dog, "file(bytes32,bytes32,uint256)", key, ilk_key("hole"), 10**8 * RAD)
        world.set_price(ilk, world.price(ilk))
    made["LOCKSTAKE_ENGINE"] = node.deploy(
        artifacts["TestLockstakeEngine"],
        ["address", "address", "bytes32", "address"],
        [vat, jug, ilk_key(SKY_ILK), made["USDS"]],
    )
    node.send(vat, "rely(address)", made["LOCKSTAKE_ENGINE"])
    for name in ("CDP_MANAGER", "GET_CDPS", "MCD_VAT", "MCD_SPOT", "MCD_JUG", "MCD_DOG", "ILK_REGISTRY"):
        node.send(made["CHAIN_LOG"], "setAddress(bytes32,address)", ilk_key(name), made[name])
    for name in ("MCD_DAI", "MCD_JOIN_DAI", *map(join_key, JOINS), "LOCKSTAKE_ENGINE", "PROXY_REGISTRY"):
        node.send(made["CHAIN_LOG"], "setAddress(bytes32,address)", ilk_key(name), made[name])
    _vaults(world, owner, direct, staker)
    if elapse:
        node.rpc("evm_increaseTime", elapse)
        node.mine()
    return world


def _vaults(world: MakerWorld, owner: str, direct: str, staker: str) -> None:
    node, made = world.node, world.contracts
    vat, manager, actions = made["MCD_VAT"], made["CDP_MANAGER"], made["PROXY_ACTIONS"]
    eth, wbtc = ilk_key("ETH-A"), ilk_key("WBTC-A")
    eth_join, wbtc_join = made[join_key("ETH-A")], made[join_key("WBTC-A")]
    world.proxy = node.call(made["PROXY_REGISTRY"], "build(address)", owner, returns=("address",))
    world.proxy = world.proxy.lower()
    node.send(made["PROXY_REGISTRY"], "build(address)", owner)
    execute = "execute(address,bytes)"
    node.send(world.proxy, execute, actions, _calldata("open(address,bytes32)", manager, eth), sender=owner)
    world.cdps["proxy"] = cdp = _last_cdp(node, manager)
    _hold(world, "ETH-A", owner, 10 * WAD, world.proxy)
    lock = _calldata(
        "lockGemAndDraw(address,address,address,address,uint256,uint256,uint256,bool)",
        manager,
        made["MCD_JUG"],
        eth_join,
        made["MCD_JOIN_DAI"],
        cdp,
        10 * WAD,
        12_000 * WAD,
        True,
    )
    node.send(world.proxy, execute, actions, lock, sender=owner)
    node.send(manager, "open(bytes32,address)", wbtc, direct, sender=direct)
    world.cdps["direct"] = cdp = _last_cdp(node, manager)
    urn = node.call(manager, "urns(uint256)", cdp, returns=("address",))
    btc = 10 ** ILKS["WBTC-A"][1]  # GemJoin5 takes WBTC in its own units, 8 decimals
    _hold(world, "WBTC-A", direct, 2 * btc, wbtc_join)
    node.send(wbtc_join, "join(address,uint256)", urn, 2 * btc, sender=direct)
    node.send(manager, "frob(uint256,int256,int256)", cdp, 2 * WAD, 40_000 * WAD, sender=direct)
    _hold(world, "ETH-A", direct, 5 * WAD, eth_join)
    node.send(eth_join, "join(address,uint256)", direct, 5 * WAD, sender=direct)
    node.send(
        vat,
        "frob(bytes32,address,address,address,int256,int256)",
        eth,
        direct,
        direct,
        direct,
        5 * WAD,
        0,
        sender=direct,
    )
    engine = made["LOCKSTAKE_ENGINE"]
    node.send(engine, "open(uint256)", 0, sender=staker)
    world.staked_urn = node.call(engine, "ownerUrns(address,uint256)", staker, 0, returns=("address",))
    world.staked_urn = world.staked_urn.lower()
    usds = made["USDS"]
    world.farm = node.deploy(compile_all()["TestStakingRewards"], ["address", "address"], [usds, world.gems[SKY_ILK]])
    node.send(usds, "mint(address,uint256)", world.farm, FARM_REWARD)
    node.send(world.farm, "notifyRewardAmount(uint256)", FARM_REWARD)
    node.send(engine, "addFarm(address)", world.farm)
    node.send(engine, "selectFarm(address,uint256,address,uint16)", staker, 0, world.farm, 0, sender=staker)
    node.send(engine, "lock(address,uint256,uint256,uint16)", staker, 0, 500_000 * WAD, 0, sender=staker)
    node.send(engine, "draw(address,uint256,address,uint256)", staker, 0, staker, 10_000 * WAD, sender=staker)


def _hold(world: MakerWorld, ilk: str, wallet: str, amount: int, spender: str) -> None:
    """`wallet` gets `amount` of the ilk's token (as a purchase would give it) and lets `spender`
    (the ilk's join, or the DSProxy whose proxy actions pass it on) take it."""
    gem = world.gems[ilk]
    world.node.send(gem, "mint(address,uint256)", wallet, amount)
    world.node.send(gem, "approve(address,uint256)", spender, amount, sender=wallet)


def _last_cdp(node: Anvil, manager: str) -> int:
    cdp = node.call(manager, "cdpi()")
    return int(cdp)


def _calldata(signature: str, *args: Any) -> bytes:
    return selector(signature) + eth_abi.encode(arg_types(signature), list(args))
