"""Curve on anvil: factories, pools and gauges as test contracts with the views of the ABIs
@curvefi/api publishes (tests/contracts/TestCurve.sol; no package ships Curve's Vyper bytecode).

A stableswap-ng factory with a USDC/crvUSD pool (its own LP token) whose gauge holds CRV and an
extra reward for the wallets, and two pools no one here holds; a v2 crypto factory with a
WETH/CRV pool whose LP token is a contract of its own (`get_token`); an empty twocrypto-ng factory.
The `lp` wallet holds LP of both pools and has some of the stable pool's staked; the `staker`
holds the stable pool's LP staked only; `empty` holds nothing.
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
coin per LP (in the coin's units per 1e18 LP)."""
CRYPTO = {
    "balances": [1_200 * E18, 8_000_000 * E18],
    "supply": 98_000 * E18,
    "virtual": 1_021_000_000_000_000_000,
    "lp_price": 73_400_000_000_000_000,
    "rates": [24_100_000_000_000_000, 160_500 * E18 // 1000],
}
HOLDINGS = {
    "lp": {"stable": 12_345 * E18, "staked": 5_000 * E18, "crypto": 321 * E18},
    "staker": {"stable": 0, "staked": 777 * E18, "crypto": 0},
}
CLAIMABLE = {"lp": (1_234 * E18 // 10, 55 * E18), "staker": (9 * E18, 3 * E18)}
"""Wallet -> (CRV claimable, EXTRA claimable) in the stable pool's gauge."""


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

    def addresses_override(self) -> dict[str, Any]:
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                "curve": {"crv": self.tokens["CRV"], "factories": dict(self.factories)},
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
    world.wallets = wallets or dict(zip(("lp", "staker", "empty"), node.accounts[14:17]))
    for name, decimals in DECIMALS.items():
        world.tokens[name] = node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], [name, name, decimals])
        world.feeds[name] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
        node.send(world.feeds[name], "set(int256,uint256)", PRICES[name], node.timestamp())
    for name in ("stable_ng_factory", "crypto_factory", "twocrypto_factory"):
        world.factories[name] = node.deploy(artifacts["TestCurveFactory"])
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
    node.send(world.crypto, "setPrices(uint256,uint256)", CRYPTO["virtual"], CRYPTO["lp_price"])
    node.send(world.gauge, "addReward(address)", world.tokens["EXTRA"])
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
    return world


def _pool(node: Anvil, pool: str, coins: list[str], values: dict[str, Any]) -> None:
    node.send(pool, "setCoins(address[],uint256[],uint256[])", coins, values["balances"], values["rates"])
    node.send(pool, "setPrices(uint256,uint256)", values["virtual"], values.get("lp_price", 0))
