"""Uniswap v3 on anvil with Uniswap's own contracts: UniswapV3Factory (and the pools it creates)
from `@uniswap/v3-core`, NonfungiblePositionManager and SwapRouter from `@uniswap/v3-periphery`,
their published bytecode as is. Two WETH/USDC pools (0.3 % and 0.05 %), USD feeds for both
tokens, and a wallet with positions of every kind: in range (wide and narrow), wholly below and
wholly above the price, one whose fees were collected, one partly withdrawn (its principal owed,
not collected), one closed but not burned and one burned. A trader moves the price across the
narrow range and back, so fees accrue on both sides and the ticks' fee growth flips; the block
after each step is kept in `steps`.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from fractions import Fraction
from math import isqrt
from pathlib import Path
from typing import Any

from adapters.uniswap import tick_math
from tests.evm import CONTRACTS, TOOLS, Anvil, Artifact, compile_contracts

CORE = TOOLS / "@uniswap" / "v3-core" / "artifacts" / "contracts"
PERIPHERY = TOOLS / "@uniswap" / "v3-periphery" / "artifacts" / "contracts"
WETH_USD, USDC_USD = 3_000 * 10**8, 10**8
FOREVER = 2**40
UINT128_MAX = 2**128 - 1
MINT = "mint((address,address,uint24,int24,int24,uint256,uint256,uint256,uint256,address,uint256))"
DECREASE = "decreaseLiquidity((uint256,uint128,uint256,uint256,uint256))"
COLLECT = "collect((uint256,address,uint128,uint128))"
SWAP = "exactInputSingle((address,address,uint24,address,uint256,uint256,uint256,uint160))"
SPACING = {500: 10, 3000: 60}
POSITION = ("uint96", "address", "address", "address", "uint24", "int24", "int24", "uint128", "uint256", "uint256")
POSITION += ("uint128", "uint128")
"""What the manager's `positions(tokenId)` answers."""
STEPS = (400, -300, 30)
"""The trader's targets, in ticks from the first price's usable tick: across the narrow range's
upper end, below its lower end, and back inside."""


def package_artifact(path: Path) -> Artifact:
    entry = json.loads(path.read_text())
    return Artifact(entry["abi"], entry["bytecode"], entry["deployedBytecode"])


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts([CONTRACTS / "TestToken.sol", CONTRACTS / "TestPriceFeed.sol"])


@dataclass
class UniswapWorld:
    node: Anvil
    wallets: dict[str, str] = field(default_factory=dict)
    factory: str = ""
    manager: str = ""
    router: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    """By symbol (WETH, USDC)."""
    token0: str = ""
    token1: str = ""
    pools: dict[int, str] = field(default_factory=dict)
    """By fee."""
    feeds: dict[str, str] = field(default_factory=dict)
    ids: dict[str, int] = field(default_factory=dict)
    """Token ids by what happened to them (wide, narrow, below, above, collected, partly, closed, burned)."""
    base: int = 0
    """The first price's usable tick (0.3 % pool)."""
    steps: list[int] = field(default_factory=list)
    """The block after minting, after each of the trader's swaps, and after the collect and withdrawals."""

    def addresses_override(self) -> dict[str, Any]:
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                "uniswap": {"v3": {"factory": self.factory, "positionManager": self.manager}},
                "priceFeeds": {
                    self.tokens[symbol]: {"pair": f"{symbol}/USD", "feed": self.feeds[symbol], "heartbeat": 10**9}
                    for symbol in ("WETH", "USDC")
                },
            }
        }

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path

    def slot0(self, fee: int, block: int | str = "latest") -> tuple[int, int]:
        """(sqrtPriceX96, tick) of the pool at `block`."""
        answer = self.node.call(
            self.pools[fee],
            "slot0()",
            returns=("uint160", "int24", "uint16", "uint16", "uint16", "uint8", "bool"),
            block=block,
        )
        return answer[0], answer[1]

    def swap_to(self, tick: int, fee: int = 3000) -> None:
        """The trader swaps in a pool until its price reaches `tick`'s (a price limit, an ample input)."""
        _, now = self.slot0(fee)
        zero_for_one = tick < now
        token_in, token_out = (self.token0, self.token1) if zero_for_one else (self.token1, self.token0)
        limit = tick_math.sqrt_ratio_at_tick(tick)
        params = (token_in, token_out, fee, self.wallets["trader"], FOREVER, 10**40, 0, limit)
        self.node.send(self.router, SWAP, params, sender=self.wallets["trader"])

    def mint(self, name: str, fee: int, lower: int, upper: int) -> None:
        owner = self.wallets["lp"]
        params = (self.token0, self.token1, fee, lower, upper, 10**24, 10**24, 0, 0, owner, FOREVER)
        self.node.send(self.manager, MINT, params, sender=owner)
        self.ids[name] = self.node.call(self.manager, "tokenOfOwnerByIndex(address,uint256)", owner, len(self.ids))

    def decrease(self, name: str, liquidity: int) -> None:
        self.node.send(self.manager, DECREASE, (self.ids[name], liquidity, 0, 0, FOREVER), sender=self.wallets["lp"])

    def collect(self, name: str) -> None:
        owner = self.wallets["lp"]
        self.node.send(self.manager, COLLECT, (self.ids[name], owner, UINT128_MAX, UINT128_MAX), sender=owner)

    def liquidity(self, name: str) -> int:
        return self.position(name)[7]

    def position(self, name: str, block: int | str = "latest") -> tuple[Any, ...]:
        return self.node.call(
            self.manager,
            "positions(uint256)",
            self.ids[name],
            returns=POSITION,
            block=block,
        )


def initial_sqrt_price(token0_is_weth: bool) -> int:
    """1 WETH = 3,000 USDC as the pool's sqrt price: sqrt(raw token1 per raw token0) x 2**96."""
    weth, usdc = Fraction(10**18), Fraction(3_000 * 10**6)
    raw = usdc / weth if token0_is_weth else weth / usdc
    return isqrt(raw.numerator * 2**192 // raw.denominator)


def build(node: Anvil, wallets: dict[str, str] | None = None) -> UniswapWorld:
    """`wallets` (lp, trader, empty) default to anvil accounts 14-16."""
    artifacts = compile_all()
    world = UniswapWorld(node)
    world.wallets = wallets or dict(zip(("lp", "trader", "empty"), node.accounts[14:17]))
    world.tokens = {
        "WETH": node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], ["Wrapped Ether", "WETH", 18]),
        "USDC": node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], ["USD Coin", "USDC", 6]),
    }
    world.token0, world.token1 = sorted(world.tokens.values())
    world.factory = node.deploy(package_artifact(CORE / "UniswapV3Factory.sol" / "UniswapV3Factory.json"))
    world.manager = node.deploy(
        package_artifact(PERIPHERY / "NonfungiblePositionManager.sol" / "NonfungiblePositionManager.json"),
        ["address", "address", "address"],
        [world.factory, world.tokens["WETH"], "0x" + "00" * 19 + "01"],
    )
    world.router = node.deploy(
        package_artifact(PERIPHERY / "SwapRouter.sol" / "SwapRouter.json"),
        ["address", "address"],
        [world.factory, world.tokens["WETH"]],
    )
    for symbol, answer in (("WETH", WETH_USD), ("USDC", USDC_USD)):
        world.feeds[symbol] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
        node.send(world.feeds[symbol], "set(int256,uint256)", answer, node.timestamp())
    for wallet in (world.wallets["lp"], world.wallets["trader"]):
        for token in world.tokens.values():
            node.send(token, "mint(address,uint256)", wallet, 10**30)
            for spender in (world.manager, world.router):
                node.send(token, "approve(address,uint256)", spender, 2**256 - 1, sender=wallet)
    sqrt_price = initial_sqrt_price(world.token0 == world.tokens["WETH"])
    for fee in SPACING:
        node.send(
            world.manager,
            "createAndInitializePoolIfNecessary(address,address,uint24,uint160)",
            world.token0,
            world.token1,
            fee,
            sqrt_price,
        )
        world.pools[fee] = node.call(
            world.factory, "getPool(address,address,uint24)", world.token0, world.token1, fee, returns=("address",)
        ).lower()
    _, tick = world.slot0(3000)
    base = world.base = tick // 60 * 60
    for name, fee, lower, upper in (
        ("wide", 3000, base - 6000, base + 6000),
        ("narrow", 3000, base - 120, base + 180),
        ("below", 3000, base - 3000, base - 1200),
        ("above", 3000, base + 1200, base + 3000),
        ("collected", 3000, base - 600, base + 600),
        ("partly", 500, base - 500, base + 500),
        ("closed", 3000, base - 1200, base + 1200),
        ("burned", 3000, base - 1800, base + 1800),
    ):
        world.mint(name, fee, lower, upper)
    world.steps.append(node.block_number())
    for offset in STEPS:
        world.swap_to(base + offset)
        world.steps.append(node.block_number())
    world.swap_to(base + 250, 500)
    world.collect("collected")
    world.decrease("partly", world.liquidity("partly") // 2)
    for name in ("closed", "burned"):
        world.decrease(name, world.liquidity(name))
        world.collect(name)
    node.send(world.manager, "burn(uint256)", world.ids.pop("burned"), sender=world.wallets["lp"])
    world.steps.append(node.block_number())
    return world
