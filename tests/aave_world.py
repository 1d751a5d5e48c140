"""Two real Aave v3 markets and one listed as SparkLend's on anvil, deployed from the bytecode Aave
publishes in `@aave/core-v3` (libraries linked, pool behind its proxy, oracle with mock Chainlink
aggregators), with suppliers and borrowers, incentives on the first market (and SparkLend's) from the
RewardsController Aave publishes in `@aave/periphery-v3`, and time advanced so that interest and
rewards accrue. Used by the tests and scripts/devnet.py.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import eth_abi

from tests.evm import TOOLS, Anvil, abi_type, function_signatures, packaged

ARTIFACTS = TOOLS / "@aave" / "core-v3" / "artifacts" / "contracts"
PERIPHERY = TOOLS / "@aave" / "periphery-v3" / "artifacts" / "contracts"
"""Aave's periphery (the RewardsController and its EmissionManager), published in `@aave/periphery-v3`."""
RAY = 10**27
ETHER = 10**18
USDC = 10**6
POOL_RESERVE_DATA = (
    "uint256",
    "uint128",
    "uint128",
    "uint128",
    "uint128",
    "uint128",
    "uint40",
    "uint16",
    "address",
    "address",
    "address",
    "address",
    "uint128",
    "uint128",
    "uint128",
)
"""The outputs of Pool.getReserveData(asset), the legacy layout every version from v3.0 to v3.7 keeps."""
INPUT = (
    "(address,address,address,uint8,address,address,address,address,string,string,string,string,string,string,bytes)"
)
ELAPSED = 30 * 24 * 3600
BORROW = "borrow(address,uint256,uint256,uint16,address)"


@functools.cache
def artifact(name: str) -> dict[str, Any]:
    """A contract of Aave's core, else of its periphery (its ABI, code and libraries' places)."""

    def read() -> dict[str, Any]:
        for folder in (ARTIFACTS, PERIPHERY):
            found = [p for p in folder.rglob(f"{name}.json") if not p.name.endswith(".dbg.json")]
            if found:
                (path,) = found
                entry = json.loads(path.read_text())
                return {key: entry[key] for key in ("abi", "bytecode", "linkReferences") if key in entry}
        raise KeyError(name)

    return dict(packaged(f"aave {name}", read))


def signature(contract: str, name: str) -> tuple[str, tuple[str, ...]]:
    """The Solidity signature and output types of a function, as the published ABI declares it."""
    matches = [
        (text, outputs)
        for text, outputs in function_signatures(artifact(contract)["abi"]).items()
        if text.startswith(f"{name}(")
    ]
    if len(matches) != 1:
        raise KeyError(f"{contract} has {len(matches)} functions named {name}")
    return matches[0]


@dataclass
class AaveMarketDeployment:
    name: str
    provider: str = ""
    pool: str = ""
    configurator: str = ""
    data_provider: str = ""
    oracle: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    incentives: Incentives | None = None


@dataclass
class Incentives:
    """A market's RewardsController, paying one reward token on some of its aTokens and debt tokens."""

    controller: str
    reward: str
    oracle: str
    emissions: dict[str, int]
    """Per token (aToken or variable debt token), reward wei per second."""
    end: int


@dataclass
class AaveWorld:
    node: Anvil
    markets: list[AaveMarketDeployment] = field(default_factory=list)
    spark: list[AaveMarketDeployment] = field(default_factory=list)
    """Markets listed as SparkLend's (the same Aave v3 contracts: SparkLend is a fork)."""
    wallets: dict[str, str] = field(default_factory=dict)
    start_block: int = 0
    """The block of the world's first deployment: its sections' `startBlock` (0: none declared,
    as for the v3.6 market of tests/aave36_world.py, whose Pools' code then decides)."""

    def addresses_override(self) -> dict[str, Any]:
        def listed(markets: list[AaveMarketDeployment]) -> list[dict[str, Any]]:
            return [
                {
                    "name": m.name,
                    "addressesProvider": m.provider,
                    "pool": m.pool,
                    "dataProvider": m.data_provider,
                    "oracle": m.oracle,
                    **({"startBlock": self.start_block} if self.start_block else {}),
                }
                for m in markets
            ]

        return {
            str(self.node.chain_id): {"name": "anvil devnet", "aave": listed(self.markets), "spark": listed(self.spark)}
        }

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path


class Deployer:
    """Deploys artifacts by name (Aave's published ones, or `artifacts`), linking the libraries deployed so far."""

    def __init__(self, node: Anvil, artifacts: Callable[[str], dict[str, Any]] = artifact) -> None:
        self.node, self.artifact = node, artifacts
        self.libraries: dict[str, str] = {}

    def deploy(self, name: str, *args: Any) -> str:
        data = self.artifact(name)
        code = data["bytecode"].removeprefix("0x")
        for references in data.get("linkReferences", {}).values():
            for library, places in references.items():
                for place in places:
                    start = place["start"] * 2
                    code = code[:start] + self.libraries[library][2:] + code[start + 40 :]
        constructor = [[abi_type(i) for i in e["inputs"]] for e in data["abi"] if e["type"] == "constructor"]
        encoded = eth_abi.encode(constructor[0], list(args)).hex() if constructor else ""
        receipt = self.node.transact({"data": "0x" + code + encoded}, None)
        return receipt["contractAddress"].lower()


def deploy_market(deployer: Deployer, name: str, assets: dict[str, tuple[int, int]]) -> AaveMarketDeployment:
    """One Aave v3 market; `assets` maps a symbol to (decimals, USD price with 8 decimals)."""
    node, owner = deployer.node, deployer.node.accounts[0]
    market = AaveMarketDeployment(name)
    market.provider = deployer.deploy("PoolAddressesProvider", name, owner)
    node.send(market.provider, "setACLAdmin(address)", owner)
    acl = deployer.deploy("ACLManager", market.provider)
    node.send(market.provider, "setACLManager(address)", acl)
    node.send(acl, "addPoolAdmin(address)", owner)
    node.send(market.provider, "setPoolImpl(address)", deployer.deploy("Pool", market.provider))
    market.pool = node.call(market.provider, "getPool()", returns=["address"]).lower()
    node.send(market.provider, "setPoolConfiguratorImpl(address)", deployer.deploy("PoolConfigurator"))
    market.configurator = node.call(market.provider, "getPoolConfigurator()", returns=["address"]).lower()
    market.oracle = deployer.deploy("AaveOracle", market.provider, [], [], "0x" + "00" * 20, "0x" + "00" * 20, 10**8)
    node.send(market.provider, "setPriceOracle(address)", market.oracle)
    market.data_provider = deployer.deploy("AaveProtocolDataProvider", market.provider)
    node.send(market.provider, "setPoolDataProvider(address)", market.data_provider)
    add_reserves(deployer, market, assets)
    return market


def add_reserves(deployer: Deployer, market: AaveMarketDeployment, assets: dict[str, tuple[int, int]]) -> None:
    """New test tokens listed as reserves (LTV 80 %, threshold 82.5 %, borrowable), priced by mock feeds."""
    node, owner = deployer.node, deployer.node.accounts[0]
    tokens = {}
    for symbol, (decimals, price) in assets.items():
        tokens[symbol] = market.tokens[symbol] = deployer.deploy("MintableERC20", f"Test {symbol}", symbol, decimals)
        market.sources[symbol] = deployer.deploy("MockAggregator", price)
    node.send(
        market.oracle,
        "setAssetSources(address[],address[])",
        list(tokens.values()),
        [market.sources[symbol] for symbol in tokens],
    )
    a_token, stable, variable = (
        deployer.deploy(n, market.pool) for n in ("AToken", "StableDebtToken", "VariableDebtToken")
    )
    strategy = deployer.deploy(
        "DefaultReserveInterestRateStrategy",
        market.provider,
        RAY * 8 // 10,
        0,
        RAY * 4 // 100,
        RAY * 60 // 100,
        RAY * 2 // 100,
        RAY * 60 // 100,
        RAY * 2 // 100,
        RAY * 5 // 100,
        RAY * 2 // 10,
    )
    node.send(
        market.configurator,
        f"initReserves({INPUT}[])",
        [
            (
                a_token,
                stable,
                variable,
                assets[symbol][0],
                strategy,
                token,
                owner,
                "0x" + "00" * 20,
                f"a{symbol}",
                f"a{symbol}",
                f"v{symbol}",
                f"v{symbol}",
                f"s{symbol}",
                f"s{symbol}",
                b"",
            )
            for symbol, token in tokens.items()
        ],
    )
    for token in tokens.values():
        node.send(
            market.configurator,
            "configureReserveAsCollateral(address,uint256,uint256,uint256)",
            token,
            8000,
            8250,
            10500,
        )
        node.send(market.configurator, "setReserveBorrowing(address,bool)", token, True)


REWARD_PRICE = 250_000_000
"""The reward token's price in its oracle: $2.50 (8 decimals)."""


def add_incentives(deployer: Deployer, market: AaveMarketDeployment, emissions: dict[tuple[str, int], int]) -> None:
    """A RewardsController (behind Aave's EmissionManager) paying a new token "RWD" for a year on
    the tokens `emissions` names by (symbol, 0 for the aToken or 2 for the variable debt token),
    in reward wei per second."""
    node, owner = deployer.node, deployer.node.accounts[0]
    manager = deployer.deploy("EmissionManager", owner)
    controller = deployer.deploy("RewardsController", manager)
    node.send(manager, "setRewardsController(address)", controller)
    reward = deployer.deploy("MintableERC20", "Test Reward", "RWD", 18)
    oracle = deployer.deploy("MockAggregator", REWARD_PRICE)
    strategy = deployer.deploy("PullRewardsTransferStrategy", controller, owner, owner)
    node.send(manager, "setEmissionAdmin(address,address)", reward, owner)
    end = int(node.rpc("eth_getBlockByNumber", "latest", False)["timestamp"], 16) + 365 * 24 * 3600
    paid = {}
    for (symbol, index), emission in emissions.items():
        tokens = node.call(
            market.data_provider,
            "getReserveTokensAddresses(address)",
            market.tokens[symbol],
            returns=["address"] * 3,
        )
        token = tokens[index].lower()
        node.send(token, "setIncentivesController(address)", controller)
        paid[token] = emission
    node.send(
        manager,
        "configureAssets((uint88,uint256,uint32,address,address,address,address)[])",
        [(emission, 0, end, token, reward, strategy, oracle) for token, emission in paid.items()],
    )
    market.incentives = Incentives(controller, reward, oracle, paid, end)


def supply(node: Anvil, market: AaveMarketDeployment, symbol: str, amount: int, wallet: str) -> None:
    token = market.tokens[symbol]
    node.send(token, "mint(uint256)", amount, sender=wallet)
    node.send(token, "approve(address,uint256)", market.pool, 2**256 - 1, sender=wallet)
    node.send(market.pool, "supply(address,uint256,address,uint16)", token, amount, wallet, 0, sender=wallet)


def build(node: Anvil, wallets: dict[str, str] | None = None) -> AaveWorld:
    """`wallets` (lender, borrower, saver, empty) default to anvil accounts 10-13."""
    world = AaveWorld(node)
    world.start_block = node.block_number() + 1
    world.wallets = wallets or dict(zip(("lender", "borrower", "saver", "empty"), node.accounts[10:14]))
    lender, borrower, saver = world.wallets["lender"], world.wallets["borrower"], world.wallets["saver"]
    deployer = Deployer(node)
    for library in (
        "BorrowLogic",
        "BridgeLogic",
        "EModeLogic",
        "LiquidationLogic",
        "PoolLogic",
        "SupplyLogic",
        "FlashLoanLogic",
        "ConfiguratorLogic",
    ):
        deployer.libraries[library] = deployer.deploy(library)
    core = deploy_market(deployer, "AaveV3TestCore", {"WETH": (18, 3000 * 10**8), "USDC": (6, 100_010_000)})
    second = deploy_market(deployer, "AaveV3TestSecond", {"DAI": (18, 99_990_000), "USDC": (6, 100_000_000)})
    world.markets = [core, second]
    add_incentives(deployer, core, {("WETH", 0): 10**13, ("USDC", 2): 2 * 10**13})
    supply(node, core, "USDC", 1_000_000 * USDC, lender)
    supply(node, core, "WETH", 10 * ETHER, borrower)
    node.send(
        core.pool,
        "borrow(address,uint256,uint256,uint16,address)",
        core.tokens["USDC"],
        12_000 * USDC,
        2,
        0,
        borrower,
        sender=borrower,
    )
    supply(node, second, "USDC", 500_000 * USDC, lender)
    supply(node, second, "DAI", 20_000 * ETHER, borrower)
    node.send(
        second.pool,
        "borrow(address,uint256,uint256,uint16,address)",
        second.tokens["USDC"],
        5_000 * USDC,
        2,
        0,
        borrower,
        sender=borrower,
    )
    supply(node, second, "USDC", 3_000 * USDC, saver)
    spark = deploy_market(deployer, "SparkLendTest", {"WETH": (18, 3000 * 10**8), "DAI": (18, 100_000_000)})
    world.spark = [spark]
    add_incentives(deployer, spark, {("WETH", 0): 4 * 10**12})
    supply(node, spark, "DAI", 200_000 * ETHER, lender)
    supply(node, spark, "WETH", 4 * ETHER, borrower)
    node.send(spark.pool, BORROW, spark.tokens["DAI"], 5_000 * ETHER, 2, 0, borrower, sender=borrower)
    node.rpc("evm_increaseTime", ELAPSED)
    node.mine()
    return world
