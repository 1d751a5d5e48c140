"""Uniswap v3 and v4 on anvil with Uniswap's own contracts, their published bytecode as is.

v3: UniswapV3Factory (and the pools it creates) from `@uniswap/v3-core`, NonfungiblePositionManager
and SwapRouter from `@uniswap/v3-periphery`. Two WETH/USDC pools (0.3 % and 0.05 %), USD feeds
for both tokens, and a wallet with positions of every kind: in range (wide and narrow), wholly
below and wholly above the price, one whose fees were collected, one partly withdrawn (its
principal owed, not collected), one closed but not burned and one burned. A trader moves the
price across the narrow range and back, so fees accrue on both sides and the ticks' fee growth
flips; the block after each step is kept in `steps`.

v4, after it: PoolManager, PositionManager, StateView and the PoolSwapTest router from
`@uniswap/v4-periphery`'s build (its `foundry-out`), Permit2 from the runtime code it ships
(`lib/permit2`), placed at Permit2's canonical address. A WETH/USDC pool and a native-ETH/USDC
pool; the same wallet mints positions of the same kinds through `modifyLiquidities` (and one it
gives to the trader), the trader swaps across the narrow range and back; blocks in `v4_steps`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from math import isqrt
from pathlib import Path
from typing import Any

import eth_abi
from eth_hash.auto import keccak

from adapters import tick_math
from tests.evm import CONTRACTS, TOOLS, Anvil, Artifact, compile_contracts, packaged, published_artifact, selector

CORE = TOOLS / "@uniswap" / "v3-core" / "artifacts" / "contracts"
PERIPHERY = TOOLS / "@uniswap" / "v3-periphery" / "artifacts" / "contracts"
V4 = TOOLS / "@uniswap" / "v4-periphery"
V4_OUT = V4 / "foundry-out"
PERMIT2 = "0x000000000022d473030f116ddee9f6b43ac78ba3"
"""Permit2's canonical address, where the v4 PositionManager expects it."""
ZERO = "0x" + "00" * 20
HOOK = "0x000000000000000000000000000000000000c000"
"""A hooks address with no permission flags (its low 14 bits clear): the dynamic-fee pool's hook,
which only ever sets the LP fee (impersonated; no code is called)."""
DYNAMIC_FEE = 0x800000
SINK = "0x" + "51" * 20
"""Where the payouts the tests measure are sent."""
POOL_KEY = "(address,address,uint24,int24,address)"
MINT_POSITION, DECREASE_LIQUIDITY, BURN_POSITION, SETTLE_PAIR, TAKE_PAIR, SWEEP = 0x02, 0x01, 0x03, 0x0D, 0x11, 0x14
"""v4-periphery's Actions."""
WETH_USD, USDC_USD = 3_000 * 10**8, 10**8
FOREVER = 2**40
UINT128_MAX = 2**128 - 1
MINT = "mint((address,address,uint24,int24,int24,uint256,uint256,uint256,uint256,address,uint256))"
DECREASE = "decreaseLiquidity((uint256,uint128,uint256,uint256,uint256))"
COLLECT = "collect((uint256,address,uint128,uint128))"
SWAP = "exactInputSingle((address,address,uint24,address,uint256,uint256,uint256,uint160))"
SPACING = {500: 10, 3000: 60}
SLOT0 = ("uint160", "int24", "uint16", "uint16", "uint16", "uint8", "bool")
"""What v3-core's `slot0()` answers (feeProtocol a uint8)."""
POSITION = ("uint96", "address", "address", "address", "uint24", "int24", "int24", "uint128", "uint256", "uint256")
POSITION += ("uint128", "uint128")
"""What the manager's `positions(tokenId)` answers."""
DESIRED = {"WETH": 10**24, "USDC": 10**24}
"""What a v3 mint may take of each token: the tests' own world mints at the extremes (a million
WETH, 10^18 USDC), which exercise the math's edges."""
DEMO_DESIRED = {"WETH": 5 * 10**18, "USDC": 15_000 * 10**6}
DEMO_LIQUIDITY = 1_000
"""The devnet's wallets hold positions a person would: v3 mints of at most 5 WETH and 15,000 USDC,
v4 liquidity a thousandth of the tests' (a WETH/USDC range of some tens of thousands of dollars;
the native-ETH pool's is that already)."""
STEPS = (400, -300, 30)
"""The trader's targets, in ticks from the first price's usable tick: across the narrow range's
upper end, below its lower end, and back inside."""


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
    pool_manager: str = ""
    posm: str = ""
    posm_block: int = 0
    state_view: str = ""
    swapper: str = ""
    keys: dict[str, tuple[str, str, int, int, str]] = field(default_factory=dict)
    """v4 PoolKeys: "erc20" (WETH/USDC, 0.3 %), "native" (ETH/USDC, 0.05 %), "dynamic" (WETH/USDC,
    a dynamic fee its hook set to 0.25 %)."""
    v4_pools: dict[str, str] = field(default_factory=dict)
    """The pool of each v4 position, by its name."""
    v4_ids: dict[str, int] = field(default_factory=dict)
    """v4 token ids by what happened to them (wide, narrow, below, above, native, dynamic, closed,
    given, burned)."""
    v4_burned: int = 0
    v4_base: dict[str, int] = field(default_factory=dict)
    """Each v4 pool's first usable tick."""
    v4_steps: list[int] = field(default_factory=list)
    demo: bool = False
    """Positions of a person's size (the devnet's), not the tests' extremes."""
    v4_payouts: list[dict[str, tuple[tuple[int, int], tuple[int, int]]]] = field(default_factory=list)
    """At each of `v4_steps`, what the PositionManager itself pays for each position the wallet
    holds: (fees, fees + the whole liquidity), taken in a snapshot that is then reverted."""
    start_block: int = 0
    """The block of the world's first deployment: its sections' `startBlock`."""
    spacing: dict[int, int] = field(default_factory=lambda: dict(SPACING))
    """The fee tiers of the world's two v3 pools, and their tick spacings."""
    main_fee: int = 3000
    """The pool most positions are in (the other holds the partly withdrawn one)."""
    slot0_types: tuple[str, ...] = SLOT0

    def addresses_override(self) -> dict[str, Any]:
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                "uniswap": {
                    "v3": {"factory": self.factory, "positionManager": self.manager, "startBlock": self.start_block},
                    "v4": {
                        "poolManager": self.pool_manager,
                        "positionManager": {"address": self.posm, "startBlock": self.posm_block},
                        "stateView": self.state_view,
                    },
                },
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
            returns=self.slot0_types,
            block=block,
        )
        return answer[0], answer[1]

    def swap_to(self, tick: int, fee: int | None = None) -> None:
        """The trader swaps in a pool (the main one by default) until its price reaches `tick`'s (a
        price limit, an ample input)."""
        fee = fee or self.main_fee
        _, now = self.slot0(fee)
        zero_for_one = tick < now
        token_in, token_out = (self.token0, self.token1) if zero_for_one else (self.token1, self.token0)
        limit = tick_math.sqrt_ratio_at_tick(tick)
        params = (token_in, token_out, fee, self.wallets["trader"], FOREVER, 10**40, 0, limit)
        self.node.send(self.router, SWAP, params, sender=self.wallets["trader"])

    def mint(self, name: str, fee: int, lower: int, upper: int) -> None:
        owner = self.wallets["lp"]
        desired = {self.tokens[symbol]: amount for symbol, amount in (DEMO_DESIRED if self.demo else DESIRED).items()}
        params = (self.token0, self.token1, fee, lower, upper, desired[self.token0], desired[self.token1], 0, 0, owner)
        params += (FOREVER,)
        self.ids[name] = minted(self.node.send(self.manager, MINT, params, sender=owner), self.manager)

    def decrease(self, name: str, liquidity: int) -> None:
        self.node.send(self.manager, DECREASE, (self.ids[name], liquidity, 0, 0, FOREVER), sender=self.wallets["lp"])

    def collect(self, name: str) -> None:
        owner = self.wallets["lp"]
        self.node.send(self.manager, COLLECT, (self.ids[name], owner, UINT128_MAX, UINT128_MAX), sender=owner)

    def modify(self, sender: str, actions: list[tuple[int, bytes]], value: int = 0) -> dict[str, Any]:
        """The v4 PositionManager's `modifyLiquidities` with these actions and their parameters;
        its receipt."""
        unlock = eth_abi.encode(["bytes", "bytes[]"], [bytes(a for a, _ in actions), [p for _, p in actions]])
        data = selector("modifyLiquidities(bytes,uint256)") + eth_abi.encode(["bytes", "uint256"], [unlock, FOREVER])
        return self.node.transact({"to": self.posm, "data": "0x" + data.hex(), "value": hex(value)}, sender)

    def v4_mint(self, name: str, pool: str, lower: int, upper: int, liquidity: int) -> None:
        owner, key = self.wallets["lp"], self.keys[pool]
        if self.demo and pool != "native":
            liquidity //= DEMO_LIQUIDITY
        mint = eth_abi.encode(
            [POOL_KEY, "int24", "int24", "uint256", "uint128", "uint128", "address", "bytes"],
            [key, lower, upper, liquidity, UINT128_MAX, UINT128_MAX, owner, b""],
        )
        settle = eth_abi.encode(["address", "address"], key[:2])
        native = key[0] == ZERO
        sweep = [(SWEEP, eth_abi.encode(["address", "address"], [ZERO, owner]))] if native else []
        receipt = self.modify(
            owner, [(MINT_POSITION, mint), (SETTLE_PAIR, settle), *sweep], value=10**20 if native else 0
        )
        self.v4_ids[name] = minted(receipt, self.posm)
        self.v4_pools[name] = pool

    def v4_take(self, name: str, pool: str, burn: bool = False) -> None:
        """Withdraw all the position's liquidity and take what is owed (fees too) to the wallet;
        then burn the NFT."""
        owner, key, token_id = self.wallets["lp"], self.keys[pool], self.v4_ids[name]
        liquidity = self.node.call(self.posm, "getPositionLiquidity(uint256)", token_id)
        decrease = eth_abi.encode(
            ["uint256", "uint256", "uint128", "uint128", "bytes"], [token_id, liquidity, 0, 0, b""]
        )
        take = eth_abi.encode(["address", "address", "address"], [*key[:2], owner])
        burned = [(BURN_POSITION, eth_abi.encode(["uint256", "uint128", "uint128", "bytes"], [token_id, 0, 0, b""]))]
        self.modify(owner, [(DECREASE_LIQUIDITY, decrease), *(burned if burn else []), (TAKE_PAIR, take)])

    def v4_payout(self, name: str, pool: str, liquidity: int) -> tuple[int, int]:
        """What DECREASE_LIQUIDITY of `liquidity` (0: fees alone) and TAKE_PAIR pay now, measured at
        a recipient that pays no gas, in a snapshot reverted after."""
        node, key, token_id = self.node, self.keys[pool], self.v4_ids[name]
        snapshot = node.rpc("evm_snapshot")
        try:
            before = [self.balance(c, SINK) for c in key[:2]]
            decrease = eth_abi.encode(
                ["uint256", "uint256", "uint128", "uint128", "bytes"], [token_id, liquidity, 0, 0, b""]
            )
            take = eth_abi.encode(["address", "address", "address"], [*key[:2], SINK])
            self.modify(self.wallets["lp"], [(DECREASE_LIQUIDITY, decrease), (TAKE_PAIR, take)])
            after = [self.balance(c, SINK) for c in key[:2]]
        finally:
            node.rpc("evm_revert", snapshot)
        return after[0] - before[0], after[1] - before[1]

    def balance(self, currency: str, holder: str) -> int:
        if currency == ZERO:
            return int(self.node.rpc("eth_getBalance", holder, "latest"), 16)
        return int(self.node.call(currency, "balanceOf(address)", holder))

    def v4_swap_to(self, pool: str, tick: int) -> None:
        """The trader swaps in a v4 pool until its price reaches `tick`'s."""
        key, (_, now) = self.keys[pool], self.v4_slot0(pool)
        zero_for_one = tick < now
        params = (zero_for_one, -(10**29), tick_math.sqrt_ratio_at_tick(tick))
        signature = f"swap({POOL_KEY},(bool,int256,uint160),(bool,bool),bytes)"
        value = 10**21 if zero_for_one and key[0] == ZERO else 0
        data = selector(signature) + eth_abi.encode(
            [POOL_KEY, "(bool,int256,uint160)", "(bool,bool)", "bytes"], [key, params, (False, False), b""]
        )
        self.node.transact({"to": self.swapper, "data": "0x" + data.hex(), "value": hex(value)}, self.wallets["trader"])

    def v4_slot0(self, pool: str, block: int | str = "latest") -> tuple[int, int]:
        return self.v4_state(pool, block)[:2]

    def v4_state(self, pool: str, block: int | str = "latest") -> tuple[int, int, int]:
        """(sqrtPriceX96, tick, lpFee) of a v4 pool, by the StateView."""
        from adapters.uniswap.contracts import pool_id

        answer = self.node.call(
            self.state_view,
            "getSlot0(bytes32)",
            pool_id(self.keys[pool]),
            returns=("uint160", "int24", "uint24", "uint24"),
            block=block,
        )
        return answer[0], answer[1], answer[3]

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


def minted(receipt: dict[str, Any], manager: str) -> int:
    """The token id that `manager` minted in this transaction (its Transfer from the zero address):
    read from the receipt, not from the chain's state afterwards."""
    transfer = "0x" + keccak(b"Transfer(address,address,uint256)").hex()
    (token_id,) = (
        int(entry["topics"][3], 16)
        for entry in receipt["logs"]
        if entry["address"].lower() == manager
        and entry["topics"][:2] == [transfer, "0x" + "00" * 32]
        and len(entry["topics"]) == 4
    )
    return token_id


def initial_sqrt_price(token0_is_weth: bool) -> int:
    """1 WETH = 3,000 USDC as the pool's sqrt price: sqrt(raw token1 per raw token0) x 2**96."""
    weth, usdc = Fraction(10**18), Fraction(3_000 * 10**6)
    raw = usdc / weth if token0_is_weth else weth / usdc
    return isqrt(raw.numerator * 2**192 // raw.denominator)


def build(node: Anvil, wallets: dict[str, str] | None = None, demo: bool = False) -> UniswapWorld:
    """`wallets` (lp, trader, empty) default to anvil accounts 14-16; `demo`: positions of a
    person's size."""
    world = UniswapWorld(node, demo=demo)
    build_v3(world, wallets, _uniswap_v3)
    build_v4(world)
    return world


def _uniswap_v3(world: UniswapWorld) -> None:
    """UniswapV3Factory, NonfungiblePositionManager and SwapRouter as Uniswap publishes them."""
    node, weth = world.node, world.tokens["WETH"]
    world.factory = node.deploy(published_artifact(CORE / "UniswapV3Factory.sol" / "UniswapV3Factory.json"))
    world.manager = node.deploy(
        published_artifact(PERIPHERY / "NonfungiblePositionManager.sol" / "NonfungiblePositionManager.json"),
        ["address", "address", "address"],
        [world.factory, weth, "0x" + "00" * 19 + "01"],
    )
    world.router = node.deploy(
        published_artifact(PERIPHERY / "SwapRouter.sol" / "SwapRouter.json"),
        ["address", "address"],
        [world.factory, weth],
    )


def build_v3(
    world: UniswapWorld,
    wallets: dict[str, str] | None,
    deploy: Callable[[UniswapWorld], None],
    of: UniswapWorld | None = None,
) -> None:
    """A Uniswap v3 codebase's world: `deploy` sets the world's factory, manager and router; then
    two pools of the world's fee tiers and the wallet's positions of every kind, in ticks of the
    main pool's spacing, and the trader's swaps. Its WETH and USDC, with their feeds, are new, or
    `of`'s (the devnet's exchanges share their tokens, as a chain's do)."""
    node, artifacts = world.node, compile_all()
    world.start_block = node.block_number() + 1
    world.wallets = wallets or dict(zip(("lp", "trader", "empty"), node.accounts[14:17]))
    world.tokens = (
        {symbol: of.tokens[symbol] for symbol in ("WETH", "USDC")}
        if of
        else {
            "WETH": node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], ["Wrapped Ether", "WETH", 18]),
            "USDC": node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], ["USD Coin", "USDC", 6]),
        }
    )
    world.token0, world.token1 = sorted(world.tokens.values())
    deploy(world)
    for symbol, answer in () if of else (("WETH", WETH_USD), ("USDC", USDC_USD)):
        world.feeds[symbol] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
        node.send(world.feeds[symbol], "set(int256,uint256)", answer, node.timestamp())
    world.feeds |= {symbol: of.feeds[symbol] for symbol in ("WETH", "USDC")} if of else {}
    for wallet in (world.wallets["lp"], world.wallets["trader"]):
        for token in world.tokens.values():
            node.send(token, "mint(address,uint256)", wallet, 10**30)
            for spender in (world.manager, world.router):
                node.send(token, "approve(address,uint256)", spender, 2**256 - 1, sender=wallet)
    sqrt_price = initial_sqrt_price(world.token0 == world.tokens["WETH"])
    for fee in world.spacing:
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
    main = world.main_fee
    (other,) = set(world.spacing) - {main}
    s = world.spacing[main]
    _, tick = world.slot0(main)
    base = world.base = tick // s * s
    for name, fee, lower, upper in (
        ("wide", main, base - 100 * s, base + 100 * s),
        ("narrow", main, base - 2 * s, base + 3 * s),
        ("below", main, base - 50 * s, base - 20 * s),
        ("above", main, base + 20 * s, base + 50 * s),
        ("collected", main, base - 10 * s, base + 10 * s),
        ("partly", other, base - 500, base + 500),
        ("closed", main, base - 20 * s, base + 20 * s),
        ("burned", main, base - 30 * s, base + 30 * s),
    ):
        world.mint(name, fee, lower, upper)
    world.steps.append(node.block_number())
    for offset in STEPS:
        world.swap_to(base + offset)
        world.steps.append(node.block_number())
    world.swap_to(base + 250, other)
    world.collect("collected")
    world.decrease("partly", world.liquidity("partly") // 2)
    for name in ("closed", "burned"):
        world.decrease(name, world.liquidity(name))
        world.collect(name)
    node.send(world.manager, "burn(uint256)", world.ids.pop("burned"), sender=world.wallets["lp"])
    world.steps.append(node.block_number())


def permit2_runtime() -> str:
    """Permit2's runtime code as v4-periphery ships it for tests (lib/permit2's DeployPermit2)."""

    def read() -> str:
        source = (V4 / "lib" / "permit2" / "test" / "utils" / "DeployPermit2.sol").read_text()
        return "0x" + source.split('hex"', 1)[1].split('"', 1)[0]

    return str(packaged("permit2 runtime", read))


def build_v4(world: UniswapWorld) -> None:
    node, (lp, trader) = world.node, (world.wallets["lp"], world.wallets["trader"])
    node.rpc("anvil_setCode", PERMIT2, permit2_runtime())
    world.pool_manager = node.deploy(
        published_artifact(V4_OUT / "PoolManager.sol/PoolManager.default.json"),
        ["address"],
        [node.accounts[0]],
    )
    world.posm = node.deploy(
        published_artifact(V4_OUT / "PositionManager.sol/PositionManager.json"),
        ["address", "address", "uint256", "address", "address"],
        [world.pool_manager, PERMIT2, 100_000, "0x" + "00" * 19 + "01", world.tokens["WETH"]],
    )
    world.posm_block = node.block_number()
    world.state_view = node.deploy(
        published_artifact(V4_OUT / "StateView.sol/StateView.json"), ["address"], [world.pool_manager]
    )
    world.swapper = node.deploy(
        published_artifact(V4_OUT / "PoolSwapTest.sol/PoolSwapTest.default.json"),
        ["address"],
        [world.pool_manager],
    )
    for wallet in (lp, trader):
        for token in world.tokens.values():
            node.send(token, "approve(address,uint256)", PERMIT2, 2**256 - 1, sender=wallet)
            node.send(token, "approve(address,uint256)", world.swapper, 2**256 - 1, sender=wallet)
            node.send(
                PERMIT2,
                "approve(address,address,uint160,uint48)",
                token,
                world.posm,
                2**160 - 1,
                2**48 - 1,
                sender=wallet,
            )
        node.rpc("anvil_setBalance", wallet, hex(10**24))
    world.keys = {
        "erc20": (world.token0, world.token1, 3000, 60, ZERO),
        "native": (ZERO, world.tokens["USDC"], 500, 10, ZERO),
        "dynamic": (world.token0, world.token1, DYNAMIC_FEE, 60, HOOK),
    }
    for pool, key in world.keys.items():
        token0_is_eth = key[0] in (ZERO, world.tokens["WETH"])
        node.send(world.pool_manager, f"initialize({POOL_KEY},uint160)", key, initial_sqrt_price(token0_is_eth))
        _, tick = world.v4_slot0(pool)
        world.v4_base[pool] = tick // key[3] * key[3]
    node.rpc("anvil_impersonateAccount", HOOK)
    node.rpc("anvil_setBalance", HOOK, hex(10**18))
    node.send(world.pool_manager, f"updateDynamicLPFee({POOL_KEY},uint24)", world.keys["dynamic"], 2500, sender=HOOK)
    base, native = world.v4_base["erc20"], world.v4_base["native"]
    for name, pool, lower, upper, liquidity in (
        ("wide", "erc20", base - 6000, base + 6000, 10**18),
        ("narrow", "erc20", base - 120, base + 180, 10**19),
        ("below", "erc20", base - 3000, base - 1200, 10**18),
        ("above", "erc20", base + 1200, base + 3000, 10**18),
        ("native", "native", native - 500, native + 500, 10**15),
        ("dynamic", "dynamic", base - 600, base + 600, 10**18),
        ("closed", "erc20", base - 1200, base + 1200, 10**18),
        ("given", "erc20", base - 600, base + 600, 10**18),
        ("burned", "erc20", base - 1800, base + 1800, 10**18),
    ):
        world.v4_mint(name, pool, lower, upper, liquidity)
    node.send(world.posm, "transferFrom(address,address,uint256)", lp, trader, world.v4_ids["given"], sender=lp)
    step(world)
    for offset in STEPS:
        world.v4_swap_to("erc20", base + offset)
        step(world)
    world.v4_swap_to("native", native + 200)
    world.v4_swap_to("dynamic", base + 100)
    world.v4_take("closed", "erc20")
    world.v4_take("burned", "erc20", burn=True)
    world.v4_burned = world.v4_ids.pop("burned")
    step(world)


def step(world: UniswapWorld) -> None:
    """Keep the block, and what the manager pays at it for each position the wallet holds."""
    world.v4_steps.append(world.node.block_number())
    payouts = {}
    for name, token_id in world.v4_ids.items():
        pool = world.v4_pools[name]
        owner = world.node.call(world.posm, "ownerOf(uint256)", token_id, returns=("address",))
        if owner.lower() != world.wallets["lp"].lower():
            continue
        liquidity = world.node.call(world.posm, "getPositionLiquidity(uint256)", token_id)
        if not liquidity:
            continue  # withdrawn: the manager has nothing to pay (it refuses to poke an empty position)
        payouts[name] = (world.v4_payout(name, pool, 0), world.v4_payout(name, pool, liquidity))
    world.v4_payouts.append(payouts)
