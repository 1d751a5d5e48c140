"""PancakeSwap v3 on anvil with PancakeSwap's own contracts, their published bytecode as is.

PancakeV3Factory and PancakeV3Pool from `@pancakeswap/v3-core`, NonfungiblePositionManager and
SwapRouter from `@pancakeswap/v3-periphery`, MasterChefV3 from `@pancakeswap/masterchef-v3` (the
tarballs tools/packs.json pins). No package ships PancakeV3PoolDeployer or the farms' LM pool
built: tests/contracts/TestPancakeSwap.sol has stand-ins held to their published interfaces (the
deployer CREATE2s the published pool bytecode, so the pools are where the manager's init code hash
puts them).

The same wallet and trader as Uniswap's world (tests/uniswap_world.py builds both): two WETH/USDC
pools (0.25 % and 0.05 %), positions of every kind, the trader's swaps, blocks in `steps`. Then the
farm: MasterChefV3 adds the 0.25 % pool, is given CAKE for a day, and the wallet stakes two NFTs
(`safeTransferFrom` to the farm); an hour later (at once on the devnet) the trader swaps across the
range of one, the wallet harvests the other; blocks in `farm_steps`.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Any

from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts, packaged
from tests.node_oracles import pack
from tests.uniswap_world import UniswapWorld, build_v3, compile_all

CORE, PERIPHERY, MASTERCHEF = "@pancakeswap/v3-core", "@pancakeswap/v3-periphery", "@pancakeswap/masterchef-v3"
SPACING = {500: 10, 2500: 50}
"""PancakeV3Factory's fee tiers the world uses (it enables 100, 500, 2500 and 10000)."""
SLOT0 = ("uint160", "int24", "uint16", "uint16", "uint16", "uint32", "bool")
"""PancakeV3Pool's `slot0()`: its feeProtocol is a uint32 (two 16-bit fees), not v3-core's uint8."""
CAKE_USD = 2 * 10**8
FARM_CAKE = 8_640 * 10**18
"""The CAKE a day of the farm pays (0.1 CAKE a second)."""
DAY, HOUR = 86_400, 3_600
SAFE_TRANSFER = "safeTransferFrom(address,address,uint256)"


def published(package: str, path: str) -> Artifact:
    """A contract as the pinned package publishes it built (Hardhat's artifact)."""

    def read() -> list[Any]:
        entry = json.loads(pack(package)[f"artifacts/contracts/{path}"])
        return [entry["abi"], entry["bytecode"], entry["deployedBytecode"]]

    return Artifact(*packaged(f"pancakeswap {path}", read))


@functools.lru_cache(maxsize=1)
def stand_ins() -> dict[str, Artifact]:
    return compile_contracts([CONTRACTS / "TestPancakeSwap.sol"])


@dataclass
class PancakeWorld(UniswapWorld):
    pool_deployer: str = ""
    master_chef: str = ""
    cake: str = ""
    farm_start_block: int = 0
    staked: dict[str, int] = field(default_factory=dict)
    """Token ids the farm holds for the wallet, by name (ranged: the trader crosses its range;
    harvested: the wallet harvests it)."""
    farm_steps: list[int] = field(default_factory=list)
    """The block after staking, after an hour, after the trader's swap and after the harvest."""

    def addresses_override(self) -> dict[str, Any]:
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                "pancakeswap": {
                    "v3": {
                        "factory": self.factory,
                        "positionManager": self.manager,
                        "startBlock": self.start_block,
                    },
                    "masterChef": self.master_chef,
                },
                "priceFeeds": {
                    self.tokens[symbol]: {"pair": f"{symbol}/USD", "feed": self.feeds[symbol], "heartbeat": 10**9}
                    for symbol in ("WETH", "USDC", "CAKE")
                },
            }
        }

    def pending(self, token_id: int, block: int | str = "latest") -> int:
        """MasterChefV3's own `pendingCake` of the NFT."""
        return int(self.node.call(self.master_chef, "pendingCake(uint256)", token_id, block=block))

    def stake(self, name: str) -> None:
        owner = self.wallets["lp"]
        self.node.send(self.manager, SAFE_TRANSFER, owner, self.master_chef, self.ids[name], sender=owner)
        self.staked[name] = self.ids[name]


def _pancakeswap_v3(world: UniswapWorld) -> None:
    """PancakeV3Factory with the stand-in deployer, NonfungiblePositionManager and SwapRouter."""
    node, weth = world.node, world.tokens["WETH"]
    assert isinstance(world, PancakeWorld)
    pool = published(CORE, "PancakeV3Pool.sol/PancakeV3Pool.json")
    world.pool_deployer = node.deploy(
        stand_ins()["TestPancakePoolDeployer"], ["bytes"], [bytes.fromhex(pool.bytecode[2:])]
    )
    world.factory = node.deploy(
        published(CORE, "PancakeV3Factory.sol/PancakeV3Factory.json"), ["address"], [world.pool_deployer]
    )
    node.send(world.pool_deployer, "setFactoryAddress(address)", world.factory)
    world.manager = node.deploy(
        published(PERIPHERY, "NonfungiblePositionManager.sol/NonfungiblePositionManager.json"),
        ["address", "address", "address", "address"],
        [world.pool_deployer, world.factory, weth, "0x" + "00" * 19 + "01"],
    )
    world.router = node.deploy(
        published(PERIPHERY, "SwapRouter.sol/SwapRouter.json"),
        ["address", "address", "address"],
        [world.pool_deployer, world.factory, weth],
    )


def build(
    node: Anvil, wallets: dict[str, str] | None = None, demo: bool = False, of: UniswapWorld | None = None
) -> PancakeWorld:
    """`wallets` (lp, trader, empty) default to anvil accounts 14-16; `demo`: positions of a
    person's size; `of`: the Uniswap world whose WETH and USDC it shares (the devnet's)."""
    world = PancakeWorld(node, demo=demo, spacing=dict(SPACING), main_fee=2500, slot0_types=SLOT0)
    build_v3(world, wallets, _pancakeswap_v3, of)
    _farm(world)
    return world


def _farm(world: PancakeWorld) -> None:
    node, owner, lp = world.node, world.node.accounts[0], world.wallets["lp"]
    world.farm_start_block = node.block_number() + 1
    world.cake = node.deploy(
        compile_all()["TestToken"], ["string", "string", "uint8"], ["PancakeSwap Token", "Cake", 18]
    )
    world.tokens["CAKE"] = world.cake
    world.feeds["CAKE"] = node.deploy(compile_all()["TestPriceFeed"], ["uint8"], [8])
    node.send(world.feeds["CAKE"], "set(int256,uint256)", CAKE_USD, node.timestamp())
    world.master_chef = node.deploy(
        published(MASTERCHEF, "MasterChefV3.sol/MasterChefV3.json"),
        ["address", "address", "address"],
        [world.cake, world.manager, world.tokens["WETH"]],
    )
    lm_deployer = node.deploy(
        stand_ins()["TestPancakeLmPoolDeployer"], ["address", "address"], [world.master_chef, world.factory]
    )
    node.send(world.factory, "setLmPoolDeployer(address)", lm_deployer)
    node.send(world.master_chef, "setLMPoolDeployer(address)", lm_deployer)
    node.send(world.cake, "approve(address,uint256)", world.master_chef, 2**256 - 1)
    node.send(world.master_chef, "setReceiver(address)", owner)
    node.send(world.master_chef, "add(uint256,address,bool)", 100, world.pools[world.main_fee], False)
    node.send(world.cake, "mint(address,uint256)", owner, FARM_CAKE)
    node.send(world.master_chef, "upkeep(uint256,uint256,bool)", FARM_CAKE, DAY, True)
    s, base = world.spacing[world.main_fee], world.base
    world.mint("ranged", world.main_fee, base - 4 * s, base + 4 * s)
    world.mint("harvested", world.main_fee, base - 40 * s, base + 40 * s)
    for name in ("ranged", "harvested"):
        world.stake(name)
    world.farm_steps.append(node.block_number())
    if not world.demo:  # the devnet's farm pays by the real second, and the later day's (all_worlds)
        node.rpc("evm_increaseTime", HOUR)
    node.mine()
    world.farm_steps.append(node.block_number())
    world.swap_to(base + 6 * s)
    world.farm_steps.append(node.block_number())
    node.send(world.master_chef, "harvest(uint256,address)", world.staked["harvested"], lp, sender=lp)
    world.farm_steps.append(node.block_number())
