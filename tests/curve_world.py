"""Curve on anvil: factories, pools and gauges as test contracts with the views of the ABIs
@curvefi/api publishes (tests/contracts/TestCurve.sol; no package ships Curve's Vyper bytecode).

A stableswap-ng factory with a USDC/crvUSD pool (its own LP token) whose gauge holds CRV and an
extra reward for the wallets, and two pools no one here holds; a v2 crypto factory with a
WETH/CRV pool whose LP token is a contract of its own (`get_token`); an empty twocrypto-ng factory.
Each pool holds its coins and takes liquidity through its own entry points (add_liquidity,
remove_liquidity, ...), each gauge stakes its LP (deposit, withdraw, claim_rewards), and Curve's
Minter mints the CRV a gauge owes (tests/test_history_curve.py acts through them).
An AddressProvider naming a main registry (id 0) with a legacy pool of the oldest kind (coins by
int128 index, its LP token and gauge contracts of their own) and a crypto registry (id 5) with a
three-coin crypto pool (its own LP token, no gauge).
The `lp` wallet holds LP of all four pools and has some of the stable and the legacy pool's
staked; the `staker` holds the stable pool's LP staked only; `empty` holds nothing.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts

E18 = 10**18
PRICES = {"USDC": 1 * 10**8, "crvUSD": 99_980_000, "WETH": 3_000 * 10**8, "CRV": 45_000_000, "EXTRA": 2 * 10**8}
"""USD feeds, 8 decimals."""
DECIMALS = {"USDC": 6, "crvUSD": 18, "WETH": 18, "CRV": 18, "EXTRA": 18}
STABLE = {
    "balances": [4_000_000 * 10**6, 3_500_000 * E18],
    "supply": 7_450_000 * E18,
    "virtual": 1_006_700_000_000_000_000,
    "rates": [1_003_000, 1_004_100_000_000_000_000],
}
"""The stable pool: coin balances, LP supply, get_virtual_price, and calc_withdraw_one_coin's
coin per LP (in the coin's units per 1e18 LP). Its calc_token_amount takes a dynamic array
(stableswap-ng's plain pools'), the crypto pool's a fixed one without the deposit flag (the v2
crypto pools'), the registries' pools' a fixed one and the flag."""
CRYPTO = {
    "balances": [1_200 * E18, 8_000_000 * E18],
    "supply": 98_000 * E18,
    "virtual": 1_021_000_000_000_000_000,
    "lp_price": 73_400_000_000_000_000,
    "rates": [24_100_000_000_000_000, 160_500 * E18 // 1000],
}
LEGACY = {
    "balances": [2_500_000 * 10**6, 2_400_000 * E18],
    "supply": 4_880_000 * E18,
    "virtual": 1_024_500_000_000_000_000,
    "rates": [1_020_000, 1_021_500_000_000_000_000],
}
"""The main registry's pool, of the oldest kind (coins by int128 index), its LP token a contract
of its own and its gauge the registry's `get_gauges`."""
TRICRYPTO = {
    "balances": [9_000_000 * 10**6, 3_000 * E18, 20_000_000 * E18],
    "supply": 27_000 * E18,
    "virtual": 1_040_000_000_000_000_000,
    "lp_price": 1_000 * E18,
    "rates": [995_000_000, 331_000_000_000_000_000, 2_210 * E18],
}
"""The crypto registry's pool (tricrypto2's shape: uint256 indices, an LP token and a gauge of its own)."""
REGISTRY_HOLDINGS = {"legacy": 2_000 * E18, "legacy_staked": 1_500 * E18, "tricrypto": 40 * E18}
"""The `lp` wallet's LP in the registries' pools (held, staked in the legacy pool's gauge)."""
LEGACY_CLAIMABLE = 17 * E18
"""CRV the `lp` wallet can claim from the legacy pool's gauge."""
HOLDINGS = {
    "lp": {"stable": 12_345 * E18, "staked": 5_000 * E18, "crypto": 321 * E18},
    "staker": {"stable": 0, "staked": 777 * E18, "crypto": 0},
}
CLAIMABLE = {"lp": (1_234 * E18 // 10, 55 * E18), "staker": (9 * E18, 3 * E18)}
"""Wallet -> (CRV claimable, EXTRA claimable) in the stable pool's gauge."""
COINS_SHAPES = {
    "factory": 4,
    "crvusd_factory": 4,
    "stable_ng_factory": 0,
    "crypto_factory": 2,
    "twocrypto_factory": 2,
    "tricrypto_factory": 3,
    "main_registry": 8,
    "crypto_registry": 8,
}
"""Each factory's `get_coins` layout, as @curvefi/api's factory ABIs and Curve's registries'
declare it: a fixed array of this many coins, or (0) stableswap-ng's dynamic one."""
FEES = {"stable": 1_000_000, "crypto": 26_000_000, "legacy": 4_000_000, "tricrypto": 13_500_000}
"""Each pool's `fee()`, 1e10 = 100 %."""
EXTRA_RATE = 31_709_791_983_764
"""EXTRA a second the stable pool's gauge streams to its stakers (1,000 a year)."""


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts(
        [CONTRACTS / "TestCurve.sol", CONTRACTS / "TestToken.sol", CONTRACTS / "TestPriceFeed.sol"]
    )


@dataclass
class CurveWorld:
    node: Anvil
    wallets: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    feeds: dict[str, str] = field(default_factory=dict)
    factories: dict[str, str] = field(default_factory=dict)
    stable: str = ""
    crypto: str = ""
    crypto_lp: str = ""
    gauge: str = ""
    provider: str = ""
    minter: str = ""
    """Curve's Minter: `mint(gauge)` pays the CRV a gauge owes its caller."""
    registries: dict[str, str] = field(default_factory=dict)
    older: dict[str, str] = field(default_factory=dict)
    """The older registries' pools: legacy (its LP token legacy_lp, gauge legacy_gauge), tricrypto (tricrypto_lp)."""
    start_block: int = 0
    """The block of the world's first deployment: its sections' `startBlock`."""

    def addresses_override(self) -> dict[str, Any]:
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                "curve": {
                    "crv": self.tokens["CRV"],
                    "factories": dict(self.factories),
                    "addressProvider": self.provider,
                    "startBlock": self.start_block,
                },
                "priceFeeds": self.price_feeds(),
            }
        }

    def price_feeds(self) -> dict[str, Any]:
        return {
            self.tokens[name]: {"pair": f"{name}/USD", "feed": feed, "heartbeat": 10**9}
            for name, feed in self.feeds.items()
        }

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path


def build(node: Anvil, wallets: dict[str, str] | None = None) -> CurveWorld:
    """`wallets` (lp, staker, empty) default to anvil accounts 14-16."""
    artifacts = compile_all()
    world = CurveWorld(node)
    world.start_block = node.block_number() + 1
    world.wallets = wallets or dict(zip(("lp", "staker", "empty"), node.accounts[14:17]))
    for name, decimals in DECIMALS.items():
        world.tokens[name] = node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], [name, name, decimals])
        world.feeds[name] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
        node.send(world.feeds[name], "set(int256,uint256)", PRICES[name], node.timestamp())
    for name in ("stable_ng_factory", "crypto_factory", "twocrypto_factory"):
        world.factories[name] = node.deploy(artifacts["TestCurveFactory"])
        node.send(world.factories[name], "setCoinsShape(uint256)", COINS_SHAPES[name])
    pool_types = ["string", "string", "bool"]
    filler = [node.deploy(artifacts["TestCurvePool"], pool_types, [f"filler {i}", "F", False]) for i in range(2)]
    world.stable = node.deploy(artifacts["TestCurvePool"], pool_types, ["USDC/crvUSD", "USDCcrvUSD", False])
    world.gauge = node.deploy(artifacts["TestCurveGauge"])
    world.crypto = node.deploy(artifacts["TestCurvePool"], pool_types, ["WETH/CRV pool", "crvWETH", True])
    world.crypto_lp = node.deploy(
        artifacts["TestCurveLpToken"], ["string", "string", "address"], ["Curve WETH-CRV", "crvCRVETH", world.crypto]
    )
    zero = "0x" + "00" * 20
    ng = world.factories["stable_ng_factory"]
    node.send(ng, "add(address,address,address)", filler[0], filler[0], zero)
    node.send(ng, "add(address,address,address)", world.stable, world.stable, world.gauge)
    node.send(ng, "add(address,address,address)", filler[1], filler[1], zero)
    node.send(world.factories["crypto_factory"], "add(address,address,address)", world.crypto, world.crypto_lp, zero)
    _pool(node, world.stable, [world.tokens["USDC"], world.tokens["crvUSD"]], STABLE)
    _pool(node, world.crypto, [world.tokens["WETH"], world.tokens["CRV"]], CRYPTO)
    node.send(world.stable, "setTokenAmount(uint256,address)", 2, "0x" + "00" * 20)
    node.send(world.crypto, "setTokenAmount(uint256,address)", 3, world.crypto_lp)
    node.send(world.crypto, "setPrices(uint256,uint256)", CRYPTO["virtual"], CRYPTO["lp_price"])
    node.send(world.gauge, "setLpToken(address)", world.stable)
    world.minter = node.deploy(artifacts["TestCurveMinter"], ["address"], [world.tokens["CRV"]])
    node.send(world.gauge, "addReward(address)", world.tokens["EXTRA"])
    node.send(world.gauge, "setRewardRate(address,uint256,uint256)", world.tokens["EXTRA"], EXTRA_RATE, 2**40)
    for pool, name in ((world.stable, "stable"), (world.crypto, "crypto")):
        node.send(pool, "setFee(uint256)", FEES[name])
    for role, holding in HOLDINGS.items():
        wallet = world.wallets[role]
        node.send(world.stable, "mint(address,uint256)", wallet, holding["stable"])
        node.send(world.stable, "mint(address,uint256)", world.gauge, holding["staked"])
        node.send(world.gauge, "mint(address,uint256)", wallet, holding["staked"])
        node.send(world.crypto_lp, "mint(address,uint256)", wallet, holding["crypto"])
        crv, extra = CLAIMABLE[role]
        node.send(world.gauge, "setClaimable(address,uint256)", wallet, crv)
        node.send(world.gauge, "setReward(address,address,uint256)", world.tokens["EXTRA"], wallet, extra)
    for token, supply in ((world.stable, STABLE["supply"]), (world.crypto_lp, CRYPTO["supply"])):
        node.send(token, "mint(address,uint256)", node.accounts[0], supply - node.call(token, "totalSupply()"))
    _registries(node, world)
    return world


def _registries(node: Anvil, world: CurveWorld) -> None:
    """The AddressProvider's main registry (id 0) with the legacy pool and its crypto registry
    (id 5) with the tricrypto pool, each with an LP token and a gauge of its own."""
    artifacts = compile_all()
    world.provider = node.deploy(artifacts["TestCurveAddressProvider"])
    for i, name in ((0, "main_registry"), (5, "crypto_registry")):
        world.registries[name] = node.deploy(artifacts["TestCurveRegistry"])
        node.send(world.registries[name], "setCoinsShape(uint256)", COINS_SHAPES[name])
        node.send(world.provider, "set(uint256,address)", i, world.registries[name])
    pools, mint = world.older, "mint(address,uint256)"
    for name, crypto, lp_name, symbol in (
        ("legacy", False, "Curve.fi USDC/crvUSD", "crvLEGACY"),
        ("tricrypto", True, "Curve.fi USD-WETH-CRV", "crv3crypto"),
    ):
        pools[name] = node.deploy(artifacts["TestCurvePool"], ["string", "string", "bool"], [name, "-", crypto])
        lp_types = ["string", "string", "address"]
        pools[f"{name}_lp"] = node.deploy(artifacts["TestCurveLpToken"], lp_types, [lp_name, symbol, pools[name]])
    pools["legacy_gauge"] = node.deploy(artifacts["TestCurveGauge"])
    node.send(pools["legacy_gauge"], "setLpToken(address)", pools["legacy_lp"])
    node.send(pools["legacy"], "setLegacy()")
    add, zero = "add(address,address,address)", "0x" + "00" * 20
    node.send(world.registries["main_registry"], add, pools["legacy"], pools["legacy_lp"], pools["legacy_gauge"])
    node.send(world.registries["crypto_registry"], add, pools["tricrypto"], pools["tricrypto_lp"], zero)
    usdc, crvusd, weth, crv = (world.tokens[name] for name in ("USDC", "crvUSD", "WETH", "CRV"))
    _pool(node, pools["legacy"], [usdc, crvusd], LEGACY)
    _pool(node, pools["tricrypto"], [usdc, weth, crv], TRICRYPTO)
    for name in ("legacy", "tricrypto"):
        node.send(pools[name], "setTokenAmount(uint256,address)", 1, pools[f"{name}_lp"])
        node.send(pools[name], "setFee(uint256)", FEES[name])
    wallet, held = world.wallets["lp"], REGISTRY_HOLDINGS
    node.send(pools["legacy_lp"], mint, wallet, held["legacy"])
    node.send(pools["legacy_lp"], mint, pools["legacy_gauge"], held["legacy_staked"])
    node.send(pools["legacy_gauge"], mint, wallet, held["legacy_staked"])
    node.send(pools["legacy_gauge"], "setClaimable(address,uint256)", wallet, LEGACY_CLAIMABLE)
    node.send(pools["tricrypto_lp"], mint, wallet, held["tricrypto"])
    for token, supply in ((pools["legacy_lp"], LEGACY["supply"]), (pools["tricrypto_lp"], TRICRYPTO["supply"])):
        node.send(token, mint, node.accounts[0], supply - node.call(token, "totalSupply()"))


def _pool(node: Anvil, pool: str, coins: list[str], values: dict[str, Any]) -> None:
    """The pool's coins, which it holds (its balances), and its prices."""
    node.send(pool, "setCoins(address[],uint256[],uint256[])", coins, values["balances"], values["rates"])
    for coin, balance in zip(coins, values["balances"]):
        node.send(coin, "mint(address,uint256)", pool, balance)
    node.send(pool, "setPrices(uint256,uint256)", values["virtual"], values.get("lp_price", 0))
