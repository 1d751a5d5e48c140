"""Compound v2 on anvil, from the stand-ins of tests/contracts/TestCompoundV2.sol (no package
publishes Compound v2's contracts built; tests/test_compound_v2.py holds their functions to
compound-js 0.6.2's ABIs): a Comptroller with its oracle, one JumpRateModel, and four markets:
cUSDC (6 decimals), cDAI, cCOMP (COMP is also what the Comptroller pays) and cETH (the chain's
coin, no `underlying()`), COMP speeds on cUSDC and cDAI, and COMP funded on the Comptroller.

The lender supplies USDC; the borrower supplies ETH, enters cETH and borrows USDC and DAI; the
saver supplies DAI without entering it; then ELAPSED_BLOCKS are mined.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.aave_world import Deployer
from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts

ETHER = 10**18
MANTISSA = 10**18
ELAPSED_BLOCKS = 1_000
BLOCKS_PER_YEAR = 2_628_000
"""Ethereum's blocks a year at 12 s, what the adapter compounds over (the addresses data's)."""
RESERVE_FACTOR = MANTISSA // 10
COMP_FUNDS = 1_000_000 * ETHER


@dataclass(frozen=True)
class Listing:
    decimals: int
    usd: int
    collateral_factor: int
    supply_speed: int
    """COMP wei a block to the market's suppliers; borrow_speed: to its borrowers."""
    borrow_speed: int

    @property
    def price(self) -> int:
        """The oracle's price: USD x 1e(36 - decimals)."""
        return self.usd * 10 ** (36 - self.decimals)


LISTINGS = {
    "USDC": Listing(6, 1, MANTISSA * 85 // 100, 10**16, 2 * 10**16),
    "DAI": Listing(18, 1, MANTISSA * 83 // 100, 10**16, 10**16),
    "COMP": Listing(18, 45, MANTISSA * 60 // 100, 0, 0),
    "ETH": Listing(18, 3_000, MANTISSA * 825 // 1000, 0, 0),
}


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts([CONTRACTS / name for name in ("TestToken.sol", "TestCompoundV2.sol")])


@dataclass(frozen=True)
class CompoundV2Market:
    ctoken: str
    underlying: str
    """The ERC-20 it holds; "" for cETH."""
    decimals: int


@dataclass
class CompoundV2World:
    node: Anvil
    comptroller: str = ""
    oracle: str = ""
    model: str = ""
    comp: str = ""
    markets: dict[str, CompoundV2Market] = field(default_factory=dict)
    wallets: dict[str, str] = field(default_factory=dict)
    start_block: int = 0

    def section(self) -> dict[str, Any]:
        """The chain's "compoundV2" section."""
        return {"comptroller": self.comptroller, "blocksPerYear": BLOCKS_PER_YEAR, "startBlock": self.start_block}

    def addresses_override(self) -> dict[str, Any]:
        return {str(self.node.chain_id): {"name": "anvil devnet", "compoundV2": self.section()}}

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path

    def deploy(self, name: str, *args: Any) -> str:
        artifact = compile_all()[name]
        return Deployer(self.node, lambda _: {"abi": artifact.abi, "bytecode": artifact.bytecode}).deploy(name, *args)


def _market(world: CompoundV2World, symbol: str, listing: Listing, underlying: str) -> CompoundV2Market:
    """A cToken over `underlying` ("" for the chain's coin), listed with its factor and price."""
    node = world.node
    ctoken = world.deploy(
        "TestCToken",
        underlying or "0x" + "00" * 20,
        world.comptroller,
        world.model,
        2 * 10 ** (16 + listing.decimals - 8),
        RESERVE_FACTOR,
        f"Compound {symbol}",
        f"c{symbol}",
    )
    node.send(world.comptroller, "_supportMarket(address)", ctoken)
    node.send(world.comptroller, "_setCollateralFactor(address,uint256)", ctoken, listing.collateral_factor)
    node.send(world.oracle, "setUnderlyingPrice(address,uint256)", ctoken, listing.price)
    return CompoundV2Market(ctoken, underlying, listing.decimals)


def supply(node: Anvil, world: CompoundV2World, symbol: str, amount: int, wallet: str) -> None:
    market = world.markets[symbol]
    if not market.underlying:
        node.transact({"to": market.ctoken, "data": "0x1249c58b", "value": hex(amount)}, wallet)  # mint()
        return
    node.send(market.underlying, "mint(address,uint256)", wallet, amount)
    node.send(market.underlying, "approve(address,uint256)", market.ctoken, 2**256 - 1, sender=wallet)
    node.send(market.ctoken, "mint(uint256)", amount, sender=wallet)


def borrow(node: Anvil, world: CompoundV2World, symbol: str, amount: int, wallet: str) -> None:
    node.send(world.markets[symbol].ctoken, "borrow(uint256)", amount, sender=wallet)


def build(node: Anvil, wallets: dict[str, str] | None = None) -> CompoundV2World:
    """`wallets` (lender, borrower, saver, empty) default to anvil accounts 14-17."""
    world = CompoundV2World(node)
    world.start_block = node.block_number() + 1
    world.wallets = wallets or dict(zip(("lender", "borrower", "saver", "empty"), node.accounts[14:18]))
    world.oracle = world.deploy("TestCompoundOracle")
    world.model = world.deploy("TestJumpRateModel", 0, MANTISSA * 4 // 100, MANTISSA * 109 // 100, MANTISSA * 8 // 10)
    world.comp = comp = world.deploy("TestToken", "Compound", "COMP", 18)
    world.comptroller = world.deploy("TestCompoundComptroller", comp)
    node.send(world.comptroller, "_setPriceOracle(address)", world.oracle)
    tokens = {"USDC": world.deploy("TestToken", "USD Coin", "USDC", 6), "COMP": comp, "ETH": ""}
    tokens["DAI"] = world.deploy("TestToken", "Dai Stablecoin", "DAI", 18)
    for symbol, listing in LISTINGS.items():
        world.markets[symbol] = _market(world, symbol, listing, tokens[symbol])
    node.send(
        world.comptroller,
        "_setCompSpeeds(address[],uint256[],uint256[])",
        [m.ctoken for m in world.markets.values()],
        [listing.supply_speed for listing in LISTINGS.values()],
        [listing.borrow_speed for listing in LISTINGS.values()],
    )
    node.send(comp, "mint(address,uint256)", world.comptroller, COMP_FUNDS)
    lender, borrower, saver = (world.wallets[role] for role in ("lender", "borrower", "saver"))
    supply(node, world, "USDC", 1_000_000 * 10**6, lender)
    supply(node, world, "DAI", 100_000 * ETHER, lender)
    supply(node, world, "ETH", 10 * ETHER, borrower)
    node.send(world.comptroller, "enterMarkets(address[])", [world.markets["ETH"].ctoken], sender=borrower)
    borrow(node, world, "USDC", 5_000 * 10**6, borrower)
    borrow(node, world, "DAI", 1_000 * ETHER, borrower)
    supply(node, world, "DAI", 10_000 * ETHER, saver)
    node.mine(ELAPSED_BLOCKS)
    return world
