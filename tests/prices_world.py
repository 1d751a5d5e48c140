"""Uniswap v3 pools that price tokens with no feed (adapters/prices/twap.py), made through
Uniswap's own contracts: the factory creates each pool, the NonfungiblePositionManager initializes
it at a set price and mints a full-range position (its virtual reserves are then its real ones,
so its depth is what the test puts in), and the pool's own `increaseObservationCardinalityNext`
keeps enough observations for a 30-minute average after trades. The SwapRouter trades.

`listed` adds such a pool to a Uniswap world (tests/uniswap_world.py: its factory, manager,
router and liquidity provider); `build` is a world of its own for the price tests: WETH and USDC
with feeds, TKN and THIN with none (a deep TKN/WETH pool, a shallower TKN/USDC one at another
price, a THIN/USDC pool under the floor), FED (a feed and a pool that disagree), an ERC-4626
vault of TKN and a token worth a named rate of WETH (priceRates); then time passes beyond the
window, and YOUNG's deep pool is created after it. And Curve's factories and pools
(tests/contracts/TestCurve.sol: the views of @curvefi/api's ABIs, with values set here), one for
each token of CURVE, whose `price_oracle` answers the average set.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from fractions import Fraction
from math import isqrt
from typing import Any

from adapters import tick_math
from tests import curve_world, uniswap_world
from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts, published_artifact
from tests.uniswap_world import CORE, FOREVER, MINT, PERIPHERY, SWAP, minted

FULL_RANGE = {500: 887270, 3000: 887220, 10000: 887200}
"""The widest usable tick of each fee tier (its tick spacing's multiple)."""
CARDINALITY = 64
"""Observations each pool keeps: 64 trades' worth at most per 30 minutes."""
WINDOW_PASSED = 1800 + 120
"""Seconds the price world lets pass after its pools: the window and a margin."""
PRICES = {"WETH": 3_000, "USDC": 1, "FED": 2}
"""USD feeds (whole dollars), 8 decimals."""
DECIMALS = {"WETH": 18, "USDC": 6, "TKN": 18, "THIN": 8, "FED": 18, "YOUNG": 18, "wTKN": 18}
DECIMALS |= {"CRVY": 18, "TRI": 18, "NGT": 18, "BUGGY": 18, "SHALLOW": 18}
E18 = 10**18
CURVE = {
    "CRVY": ("twocrypto-ng", ("USDC", "CRVY"), (1_000_000 * 10**6, 2_000_000 * E18), (E18 // 2,)),
    "TRI": ("tricrypto-ng", ("USDC", "WETH", "TRI"), (10**12, 100 * E18, 10_000 * E18), (3_000 * E18, 45 * E18)),
    "NGT": ("stableswap-ng", ("WETH", "NGT"), (200 * E18, 210 * E18), (E18 * 98 // 100,)),
    "BUGGY": ("stableswap-ng", ("USDC", "BUGGY"), (500_000 * 10**6, 500_000 * E18), (E18,)),
    "SHALLOW": ("twocrypto-ng", ("WETH", "SHALLOW"), (10 * E18, 500 * E18), (3 * E18 // 100,)),
    "TKN": ("twocrypto-ng", ("USDC", "TKN"), (1_000_000 * 10**6, 25_000 * E18), (40 * E18,)),
}
"""Each Curve pool by the token it prices: its factory's kind, its coins, their raw balances and
its `price_oracle` (coin k + 1's price in coin 0, 1e18). CRVY is 0.5 USDC (1.25 M USD deep),
TRI 45 USDC or 45 / 3,000 WETH (its USDC side the deeper), NGT 0.98 WETH (stableswap-ng, every
coin of 18 decimals), BUGGY a stableswap-ng pool with USDC (not all 18 decimals: not used),
SHALLOW 0.03 WETH, 75,000 USD deep (under the floor); TKN 40 USDC, where its Uniswap pools'
average (30 USD) comes first."""
KINDS = {"stableswap-ng": ("stable_ng_factory", 0), "twocrypto-ng": ("twocrypto_factory", 2)}
KINDS["tricrypto-ng"] = ("tricrypto_factory", 3)
"""Each kind's factory in the addresses data, and its `get_coins` shape (TestCurveFactory)."""
RATE = 1_050_000_000_000_000_000
"""What one whole wTKN is worth in WETH by its named rate view (scaled by 1e18): 1.05."""


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    """The Uniswap world's test tokens and feeds, Solmate's ERC-4626 and Multicall3 (compiled in
    the groups other tests compile them in)."""
    return {
        **uniswap_world.compile_all(),
        **curve_world.compile_all(),
        **compile_contracts([CONTRACTS / "TestErc4626.sol"]),
        **compile_contracts([CONTRACTS / "Multicall3.sol", CONTRACTS / "TestToken.sol", CONTRACTS / "TestFaults.sol"]),
    }


@dataclass
class Pools:
    """Uniswap v3's contracts on a node, and who provides liquidity and trades."""

    node: Anvil
    factory: str
    manager: str
    router: str
    lp: str
    trader: str
    pools: dict[tuple[str, str, int], str] = field(default_factory=dict)
    """By (token, quote, fee)."""

    def listed(
        self, token: str, quote: str, price: Fraction, depth: Fraction, fee: int = 3000, prices: Any = None
    ) -> str:
        """A `token`/`quote` pool at `price` (whole quote per whole token) holding full-range
        liquidity worth `depth` in the quote's whole units, half on each side; its address."""
        node = self.node
        decimals = {t: node.call(t, "decimals()", returns=("uint8",)) for t in (token, quote)}
        token0, token1 = sorted((token, quote), key=lambda t: int(t, 16))
        raw = price * 10 ** decimals[quote] / 10 ** decimals[token]
        ratio = raw if token0 == token else 1 / raw
        sqrt_price = isqrt(ratio.numerator * 2**192 // ratio.denominator)
        node.send(
            self.manager,
            "createAndInitializePoolIfNecessary(address,address,uint24,uint160)",
            token0,
            token1,
            fee,
            sqrt_price,
        )
        pool = node.call(self.factory, "getPool(address,address,uint24)", token0, token1, fee, returns=("address",))
        pool = pool.lower()
        node.send(pool, "increaseObservationCardinalityNext(uint16)", CARDINALITY)
        amounts = {
            quote: int(depth / 2 * 10 ** decimals[quote]),
            token: int(depth / 2 / price * 10 ** decimals[token]),
        }
        for t, amount in amounts.items():
            if node.call(t, "balanceOf(address)", self.lp) < amount:  # a vault's shares are deposited before
                node.send(t, "mint(address,uint256)", self.lp, amount)
            node.send(t, "approve(address,uint256)", self.manager, 2**256 - 1, sender=self.lp)
        edge = FULL_RANGE[fee]
        params = (token0, token1, fee, -edge, edge, amounts[token0], amounts[token1], 0, 0, self.lp, FOREVER)
        minted(node.send(self.manager, MINT, params, sender=self.lp), self.manager)
        self.pools[(token, quote, fee)] = pool
        return pool

    def swap(self, token_in: str, token_out: str, amount: int, fee: int = 3000) -> None:
        """The trader sells `amount` of `token_in` (minted to it first) in the pool."""
        node = self.node
        node.send(token_in, "mint(address,uint256)", self.trader, amount)
        node.send(token_in, "approve(address,uint256)", self.router, amount, sender=self.trader)
        limit = tick_math.sqrt_ratio_at_tick(
            tick_math.MIN_TICK + 1 if int(token_in, 16) < int(token_out, 16) else tick_math.MAX_TICK - 1
        )
        params = (token_in, token_out, fee, self.trader, FOREVER, amount, 0, limit)
        node.send(self.router, SWAP, params, sender=self.trader)

    def tick(self, pool: str, block: int | str = "latest") -> int:
        return int(
            self.node.call(
                pool,
                "slot0()",
                returns=("uint160", "int24", "uint16", "uint16", "uint16", "uint8", "bool"),
                block=block,
            )[1]
        )


def v3(node: Anvil, weth: str, lp: str, trader: str) -> Pools:
    """Uniswap v3's factory, position manager and router from their published builds."""
    factory = node.deploy(published_artifact(CORE / "UniswapV3Factory.sol" / "UniswapV3Factory.json"))
    manager = node.deploy(
        published_artifact(PERIPHERY / "NonfungiblePositionManager.sol" / "NonfungiblePositionManager.json"),
        ["address", "address", "address"],
        [factory, weth, "0x" + "00" * 19 + "01"],
    )
    router = node.deploy(
        published_artifact(PERIPHERY / "SwapRouter.sol" / "SwapRouter.json"), ["address", "address"], [factory, weth]
    )
    return Pools(node, factory, manager, router, lp, trader)


@dataclass
class PricesWorld:
    node: Anvil
    v3: Pools
    tokens: dict[str, str] = field(default_factory=dict)
    """By symbol (DECIMALS), and "vault" (the ERC-4626 vault of TKN)."""
    feeds: dict[str, str] = field(default_factory=dict)
    factories: dict[str, str] = field(default_factory=dict)
    """Curve's, by their name in the addresses data."""
    curve: dict[str, str] = field(default_factory=dict)
    """Each Curve pool by the token of CURVE it prices."""
    rate: str = ""
    """The contract whose `latestAnswer()` states wTKN's rate of WETH (a stand-in rate view)."""

    def addresses_override(self) -> dict[str, Any]:
        t = self.tokens
        return {
            str(self.node.chain_id): {
                "name": "anvil prices",
                "uniswap": {"v3": {"factory": self.v3.factory, "positionManager": self.v3.manager, "startBlock": 1}},
                "curve": {"factories": self.factories, "startBlock": 1},
                "priceFeeds": {
                    t[symbol]: {"pair": f"{symbol}/USD", "feed": self.feeds[symbol], "heartbeat": 10**9}
                    for symbol in PRICES
                },
                "priceRates": {t["wTKN"]: {"of": t["WETH"], "view": "latestAnswer()", "contract": self.rate}},
            }
        }

    def write_addresses(self, path: Any) -> Any:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path


def build(node: Anvil) -> PricesWorld:
    artifacts = compile_all()
    node.install_multicall(artifacts["Multicall3"])
    lp, trader = node.accounts[14:16]
    tokens = {
        symbol: node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], [f"Test {symbol}", symbol, decimals])
        for symbol, decimals in DECIMALS.items()
    }
    world = PricesWorld(node, v3(node, tokens["WETH"], lp, trader), tokens)
    for symbol, dollars in PRICES.items():
        world.feeds[symbol] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
        node.send(world.feeds[symbol], "set(int256,uint256)", dollars * 10**8, node.timestamp())
    world.rate = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [18])
    node.send(world.rate, "set(int256,uint256)", RATE, node.timestamp())
    world.tokens["vault"] = node.deploy(artifacts["TestErc4626"], ["address"], [tokens["TKN"]])
    node.send(tokens["TKN"], "mint(address,uint256)", lp, 100_000 * 10**18)
    node.send(tokens["TKN"], "approve(address,uint256)", world.tokens["vault"], 2**256 - 1, sender=lp)
    node.send(world.tokens["vault"], "deposit(uint256,address)", 100_000 * 10**18, lp, sender=lp)
    node.send(tokens["TKN"], "mint(address,uint256)", world.tokens["vault"], 10_000 * 10**18)  # yield: 1.1 TKN a share
    pools = world.v3
    pools.listed(tokens["TKN"], tokens["WETH"], Fraction(1, 100), Fraction(400))  # 30 USD, 1.2 M USD deep
    pools.listed(tokens["TKN"], tokens["USDC"], Fraction(31), Fraction(300_000), fee=500)
    pools.listed(tokens["THIN"], tokens["USDC"], Fraction(5), Fraction(20_000))
    pools.listed(tokens["FED"], tokens["USDC"], Fraction(3), Fraction(1_000_000))
    pools.listed(tokens["vault"], tokens["USDC"], Fraction(40), Fraction(1_000_000))
    curve(world, artifacts)
    node.rpc("evm_increaseTime", hex(WINDOW_PASSED))
    node.mine()
    pools.listed(tokens["YOUNG"], tokens["USDC"], Fraction(7), Fraction(1_000_000))
    node.mine()
    return world


def curve(world: PricesWorld, artifacts: dict[str, Artifact]) -> None:
    """Curve's three factories, and a pool of each token of CURVE in its kind's."""
    node = world.node
    for name, shape in KINDS.values():
        world.factories[name] = node.deploy(artifacts["TestCurveFactory"])
        node.send(world.factories[name], "setCoinsShape(uint256)", shape)
    for token, (kind, coins, balances, oracle) in CURVE.items():
        crypto = kind != "stableswap-ng"
        pool = node.deploy(artifacts["TestCurvePool"], ["string", "string", "bool"], [f"{token} pool", token, crypto])
        addresses = [world.tokens[coin] for coin in coins]
        node.send(pool, "setCoins(address[],uint256[],uint256[])", addresses, list(balances), [E18] * len(coins))
        rates = [10 ** (36 - DECIMALS[coin]) for coin in coins]
        node.send(pool, "setOracle(uint256[],uint256[],uint256)", list(oracle), rates, 866)
        node.send(world.factories[KINDS[kind][0]], "add(address,address,address)", pool, pool, "0x" + "00" * 20)
        world.curve[token] = pool


def curve_usd(token: str) -> Fraction:
    """What CURVE's pool makes of `token` in USD: its average in the deepest pool's quote, times
    that quote's feed."""
    _, coins, _, oracle = CURVE[token]
    prices = [Fraction(1), *(Fraction(value, E18) for value in oracle)]
    quote = "USDC" if "USDC" in coins else "WETH"
    return prices[coins.index(token)] / prices[coins.index(quote)] * PRICES[quote]
