"""Two Comet markets on anvil from test contracts that implement exactly the Comet and
CometRewards functions the adapter calls: a USDC market where a wallet supplies, a WETH market
where it borrows against two collaterals, accrued COMP rewards in both."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts

USDC, ETHER = 10**6, 10**18
PRICES = {"USDC": 100_000_000, "WETH": 3000 * 10**8, "WBTC": 90_000 * 10**8, "COMP": 45 * 10**8}
IN_ETH = {"WETH": 10**8, "WBTC": 30 * 10**8, "USDC": 33_333}
"""The WETH market quotes in ETH, as Compound's WETH markets do: a constant 1e8 base feed and
collateral feeds in ETH; its figures reach USD through the chain's ETH/USD feed."""
DECIMALS = {"USDC": 6, "WETH": 18, "WBTC": 8, "COMP": 18}


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts(
        [CONTRACTS / name for name in ("Multicall3.sol", "TestToken.sol", "TestPriceFeed.sol", "TestComet.sol")]
    )


@dataclass
class CompoundWorld:
    node: Anvil
    tokens: dict[str, str] = field(default_factory=dict)
    feeds: dict[str, str] = field(default_factory=dict)
    usdc_market: str = ""
    weth_market: str = ""
    eth_feeds: dict[str, str] = field(default_factory=dict)
    eth_usd: str = ""
    rewards: str = ""
    wallets: dict[str, str] = field(default_factory=dict)
    start_block: int = 0
    """The block of the world's first deployment: its sections' `startBlock`."""

    def addresses_override(self) -> dict[str, Any]:
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                "compound": {
                    "rewards": self.rewards,
                    "markets": [
                        {"name": "cUSDCv3", "comet": self.usdc_market, "startBlock": self.start_block},
                        {
                            "name": "cWETHv3",
                            "comet": self.weth_market,
                            "priceCurrency": "ETH",
                            "startBlock": self.start_block,
                        },
                    ],
                },
                "currencyFeeds": {"ETH": {"pair": "ETH/USD", "feed": self.eth_usd, "heartbeat": 86400}},
            }
        }

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path


def build(node: Anvil, wallets: dict[str, str] | None = None) -> CompoundWorld:
    """`wallets` (saver, borrower, empty) default to anvil accounts 14-16."""
    artifacts = compile_all()
    node.install_multicall(artifacts["Multicall3"])
    world = CompoundWorld(node)
    world.start_block = node.block_number() + 1
    world.wallets = wallets or dict(zip(("saver", "borrower", "empty"), node.accounts[14:17]))
    timestamp = int(node.rpc("eth_getBlockByNumber", "latest", False)["timestamp"], 16)
    for symbol, decimals in DECIMALS.items():
        world.tokens[symbol] = node.deploy(
            artifacts["TestToken"], ["string", "string", "uint8"], [f"Test {symbol}", symbol, decimals]
        )
        world.feeds[symbol] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
        node.send(world.feeds[symbol], "set(int256,uint256)", PRICES[symbol], timestamp)
    for symbol, answer in IN_ETH.items():
        world.eth_feeds[symbol] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
        node.send(world.eth_feeds[symbol], "set(int256,uint256)", answer, timestamp)
    world.eth_usd = world.feeds["WETH"]
    comet = artifacts["TestComet"]
    world.usdc_market = node.deploy(
        comet, ["address", "address", "uint256"], [world.tokens["USDC"], world.feeds["USDC"], USDC]
    )
    world.weth_market = node.deploy(
        comet, ["address", "address", "uint256"], [world.tokens["WETH"], world.eth_feeds["WETH"], ETHER]
    )
    add = "addAsset(address,address,uint64,uint64,uint64)"
    node.send(world.usdc_market, add, world.tokens["WETH"], world.feeds["WETH"], ETHER, 825 * 10**15, 895 * 10**15)
    node.send(world.usdc_market, add, world.tokens["COMP"], world.feeds["COMP"], ETHER, 65 * 10**16, 70 * 10**16)
    node.send(world.weth_market, add, world.tokens["WBTC"], world.eth_feeds["WBTC"], 10**8, 80 * 10**16, 85 * 10**16)
    node.send(world.weth_market, add, world.tokens["USDC"], world.eth_feeds["USDC"], USDC, 85 * 10**16, 90 * 10**16)
    node.send(world.usdc_market, "setUtilization(uint256)", 72 * 10**16)
    node.send(world.weth_market, "setUtilization(uint256)", 41 * 10**16)
    node.send(
        world.usdc_market, "setTotals(uint256,uint256,int256)", 40_000_000 * USDC, 28_800_000 * USDC, 1_250_000 * USDC
    )
    node.send(world.weth_market, "setTotals(uint256,uint256,int256)", 10_000 * ETHER, 4_100 * ETHER, -3 * ETHER)
    for market, symbol, total in (
        (world.usdc_market, "WETH", 9_000 * ETHER),
        (world.usdc_market, "COMP", 50_000 * ETHER),
        (world.weth_market, "WBTC", 120 * 10**8),
        (world.weth_market, "USDC", 700_000 * USDC),
    ):
        node.send(market, "setCollateralTotal(address,uint128)", world.tokens[symbol], total)
    saver, borrower = world.wallets["saver"], world.wallets["borrower"]
    # Through Comet's own entry points, which emit what mainnet's do (the flows follow them).
    supply, withdraw = "supplyTo(address,address,uint256)", "withdrawTo(address,address,uint256)"
    node.send(world.usdc_market, supply, saver, world.tokens["USDC"], 25_000 * USDC + 123, sender=saver)
    node.send(world.weth_market, supply, borrower, world.tokens["WBTC"], 10**7, sender=borrower)
    node.send(world.weth_market, supply, borrower, world.tokens["USDC"], 4_000 * USDC, sender=borrower)
    node.send(world.weth_market, withdraw, borrower, world.tokens["WETH"], 3 * ETHER + 7, sender=borrower)
    world.rewards = node.deploy(artifacts["TestCometRewards"], ["address"], [world.tokens["COMP"]])
    node.send(world.rewards, "setOwed(address,address,uint256)", world.usdc_market, saver, 12 * 10**17)
    node.send(world.rewards, "setOwed(address,address,uint256)", world.weth_market, borrower, 3 * 10**16)
    return world
