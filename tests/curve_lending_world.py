"""Curve's lending pools on the curve world (tests/curve_world.py): pools whose coins wrap other
tokens, as test contracts with the views of the ABIs @curvefi/api publishes
(tests/contracts/TestCurveLending.sol), listed by the curve world's main registry as Ethereum's are.

- `compound`: of the oldest kind (coins, `underlying_coins` and balances by int128), usdt's shape:
  cDAI and cUSDC (cTokens, `exchangeRateStored`) and USDT itself;
- `y`: of the oldest kind too: yDAI and yUSDC (yTokens, `getPricePerFullShare`);
- `aave`: by uint256: aDAI, aUSDC and aUSDT (aTokens, one for one).
Each has an LP token of its own and no gauge; the `lp` wallet holds LP of compound, the `staker`
of y and aave. DAI and USDT
get feeds here (USDC has the curve world's); no feed prices a wrapper. `broken` adds a pool whose
second coin names an underlying but answers no rate view, held by the wallet it is given.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests import curve_world
from tests.curve_world import E18, CurveWorld
from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts

PRICES = {"DAI": 99_980_000, "USDT": 100_010_000}
"""The underlyings' USD feeds the curve world has none of, 8 decimals."""
DECIMALS = {"DAI": 18, "USDC": 6, "USDT": 6}
WRAPPERS = {
    "cDAI": ("DAI", "TestCToken", 224_157_935_071_540_391_298_754_837),
    "cUSDC": ("USDC", "TestCToken", 230_214_870_113_461),
    "yDAI": ("DAI", "TestYToken", 1_134_250_000_000_000_000),
    "yUSDC": ("USDC", "TestYToken", 1_175_500_000_000_000_000),
    "aDAI": ("DAI", "TestAToken", E18),
    "aUSDC": ("USDC", "TestAToken", E18),
    "aUSDT": ("USDT", "TestAToken", E18),
}
"""Each wrapper: its underlying, its contract and its rate (exchangeRateStored, getPricePerFullShare,
or 1e18 for an aToken)."""
POOLS: dict[str, dict[str, Any]] = {
    "compound": {
        "legacy": True,
        "coins": ["cDAI", "cUSDC", "USDT"],
        "underlying": ["DAI", "USDC", "USDT"],
        "balances": [15_000_000 * 10**8, 14_000_000 * 10**8, 310_000 * 10**6],
        "supply": 1_000_000 * E18,
        "virtual": 1_101_200_000_000_000_000,
        "rates": [50 * 10**8, 46 * 10**8, 1_090_000],
    },
    "y": {
        "legacy": True,
        "coins": ["yDAI", "yUSDC"],
        "underlying": ["DAI", "USDC"],
        "balances": [2_100_000 * E18, 1_900_000 * 10**6],
        "supply": 4_500_000 * E18,
        "virtual": 1_072_000_000_000_000_000,
        "rates": [940_000_000_000_000_000, 910_000],
    },
    "aave": {
        "legacy": False,
        "coins": ["aDAI", "aUSDC", "aUSDT"],
        "underlying": ["DAI", "USDC", "USDT"],
        "balances": [5_200_000 * E18, 6_100_000 * 10**6, 4_300_000 * 10**6],
        "supply": 14_900_000 * E18,
        "virtual": 1_045_000_000_000_000_000,
        "rates": [1_040_000_000_000_000_000, 1_039_000, 1_038_000],
    },
}
"""Each lending pool: its index type, coins and what each wraps (itself: none), balances, LP supply,
get_virtual_price and calc_withdraw_one_coin's coin per 1e18 LP."""
HOLDINGS = {"compound": ("lp", 1_000 * E18), "y": ("staker", 2_500 * E18), "aave": ("staker", 700 * E18)}
"""Which curve world wallet holds LP of each, and how much. The lens's tape (24,000 bytes,
lenses/Recorder.sol) holds the `lp` wallet's four other pools in about 15,700 and a wrapped coin
in about 800 more, so the y and aave pools are the `staker`'s (its gauge stake about 4,800)."""
BROKEN = {
    "legacy": False,
    "coins": ["aDAI", "wUSDT"],
    "underlying": ["DAI", "USDT"],
    "balances": [1_000_000 * E18, 1_000_000 * 10**6],
    "supply": 2_000_000 * E18,
    "virtual": E18,
    "rates": [E18, 10**6],
}
"""`broken`'s pool: wUSDT wraps USDT (its underlying_coins) but answers no rate view."""


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts(
        [
            CONTRACTS / "TestCurveLending.sol",
            CONTRACTS / "TestCurve.sol",
            CONTRACTS / "TestToken.sol",
            CONTRACTS / "TestPriceFeed.sol",
        ]
    )


@dataclass
class LendingWorld:
    curve: CurveWorld
    tokens: dict[str, str] = field(default_factory=dict)
    """The underlyings and the wrappers by symbol."""
    pools: dict[str, str] = field(default_factory=dict)
    lp_tokens: dict[str, str] = field(default_factory=dict)

    @property
    def node(self) -> Anvil:
        return self.curve.node

    def write_addresses(self, path: Path) -> Path:
        return self.curve.write_addresses(path)


def build(node: Anvil, curve: CurveWorld) -> LendingWorld:
    """The lending pools on `curve`, its main registry listing them, its `lp` wallet holding them;
    DAI's and USDT's feeds join the curve world's (its addresses then name them)."""
    artifacts = compile_all()
    world = LendingWorld(curve)
    world.tokens["USDC"] = curve.tokens["USDC"]
    for name, price in PRICES.items():
        world.tokens[name] = curve.tokens[name] = node.deploy(
            artifacts["TestToken"], ["string", "string", "uint8"], [name, name, DECIMALS[name]]
        )
        curve.feeds[name] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
        node.send(curve.feeds[name], "set(int256,uint256)", price, node.timestamp())
    for name, (underlying, contract, rate) in WRAPPERS.items():
        types = ["string", "string", "address", "uint8"]
        args: list[Any] = [name, name, world.tokens[underlying], DECIMALS[underlying]]
        if contract == "TestCToken":  # 8 decimals, its own
            types, args = types[:3], args[:3]
        world.tokens[name] = node.deploy(artifacts[contract], types, args)
        if contract != "TestAToken":
            node.send(world.tokens[name], "setRate(uint256)", rate)
    for name, values in POOLS.items():
        holder, held = HOLDINGS[name]
        _pool(node, world, name, values, curve.wallets[holder], held)
    return world


def broken(node: Anvil, world: LendingWorld, wallet: str, amount: int) -> str:
    """A pool of aDAI and wUSDT (wrapping USDT, answering no rate view) listed by the main
    registry, `amount` of its LP held by `wallet`; returns the pool."""
    world.tokens["wUSDT"] = node.deploy(
        compile_all()["TestToken"], ["string", "string", "uint8"], ["wUSDT", "wUSDT", DECIMALS["USDT"]]
    )
    _pool(node, world, "broken", BROKEN, wallet, amount)
    return world.pools["broken"]


def _pool(node: Anvil, world: LendingWorld, name: str, values: dict[str, Any], wallet: str, held: int) -> None:
    """A lending pool of `values` listed by the curve world's main registry with no gauge, and its
    LP token, `held` of it by `wallet` and the rest of the supply by account 0."""
    artifacts = compile_all()
    pool = world.pools[name] = node.deploy(artifacts["TestCurveLendingPool"], ["string", "string"], [name, "-"])
    lp_types = ["string", "string", "address"]
    lp = world.lp_tokens[name] = node.deploy(
        artifacts["TestCurveLpToken"], lp_types, [f"Curve.fi {name}", f"{name}Crv", pool]
    )
    if values["legacy"]:
        node.send(pool, "setLegacy()")
    coins = [world.tokens[coin] for coin in values["coins"]]
    curve_world._pool(node, pool, coins, values)
    node.send(pool, "setUnderlying(address[])", [world.tokens[under] for under in values["underlying"]])
    node.send(pool, "setTokenAmount(uint256,address)", 1, lp)
    registry, zero = world.curve.registries["main_registry"], "0x" + "00" * 20
    node.send(registry, "add(address,address,address)", pool, lp, zero)
    node.send(lp, "mint(address,uint256)", wallet, held)
    node.send(lp, "mint(address,uint256)", node.accounts[0], values["supply"] - held)
