"""Two real Aave v2 markets on anvil, deployed from the artifacts Aave publishes built in
`@aave/protocol-v2` 1.0.2-fat.3 (solc 0.6.12: LendingPool with its ReserveLogic, ValidationLogic and
GenericLogic libraries linked, behind the proxy its LendingPoolAddressesProvider makes, as is the
LendingPoolConfigurator; one AToken, StableDebtToken and VariableDebtToken implementation a reserve,
the launch-era tokens whose pool, asset and incentives controller are constructor immutables), and
the incentives controller Aave published for v2 in `@aave/aave-stake` 1.0.4 (solc 0.7.5), both read
from the tarballs tools/packs.json pins.

- `AaveV2TestEth`, an ETH-base market: v2's AaveOracle prices in wei per whole token (WETH is 1e18
  by the oracle's own rule) from the package's MockAggregators; WETH, USDC and DAI (USDC and DAI
  borrowable at a stable rate too) and RWD, a reserve that is no collateral (threshold 0) and is
  the token the AaveIncentivesController pays on aWETH and on USDC's variable debt for a year.
- `AaveV2TestUsd`, a USD-base market, as Aave runs v2 on some chains: no v2 package ships a USD
  oracle, so `@aave/core-v3`'s AaveOracle (base currency 0x0, unit 1e8) stands in; it reads the
  provider only in its setters (an ACL manager v2 lacks), so its sources are given at construction.
  USDC and WETH, no incentives.

Both markets use the package's mock LendingRateOracle, which the rate strategy asks for a stable
rate's base. The ETH/USD feed the service converts with is tests/contracts' TestPriceFeed: no Aave
mock answers `latestRoundData()`. The lender, borrower and saver open their positions through the
LendingPool's own entry points, then 30 days pass so that interest and rewards accrue.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.aave_world import ELAPSED, ETHER, RAY, USDC, Deployer
from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts, packaged
from tests.node_oracles import pack

PACKAGES = ("@aave/protocol-v2", "@aave/aave-stake")
"""Aave v2's contracts, then the incentives controller of its launch (`AaveIncentivesController`)."""
ZERO = "0x" + "00" * 20
DATA_PROVIDER_ID = bytes([1]) + bytes(31)
"""The id Aave's own deploy task registers AaveProtocolDataProvider under in the addresses provider."""
STABLE, VARIABLE = 1, 2
"""LendingPool's interest rate modes."""
YEAR = 365 * 24 * 3600
REWARD_FUNDS = 100_000 * ETHER
"""RWD the rewards vault holds for the controller to pay from (a year of emissions is ~950 RWD)."""
RESERVE_FACTOR = 1000
ETH_USD = 3000 * 10**8
USD_UNIT = 10**8


@dataclass(frozen=True)
class Reserve:
    decimals: int
    price: int
    """In the market's oracle's unit: wei per whole token (ETH base), or USD with 8 decimals."""
    collateral: tuple[int, int, int] = (0, 0, 0)
    """LTV, liquidation threshold and bonus, in basis points (a threshold of 0: no collateral)."""
    borrowing: bool = False
    stable: bool = False
    market_rate: int = RAY * 3 // 100
    """The LendingRateOracle's market borrow rate: the base of the reserve's stable rate."""


ETH_RESERVES = {
    "WETH": Reserve(18, ETHER, (8000, 8250, 10500), borrowing=True),
    "USDC": Reserve(6, 333_333_333_333_333, (7500, 8000, 10500), borrowing=True, stable=True),
    "DAI": Reserve(18, 333_333_333_333_333, (7500, 8000, 10500), borrowing=True, stable=True),
    "RWD": Reserve(18, 833_333_333_333_333),
}
"""The ETH market's reserves; RWD is worth $2.50 at $3000 an ether."""
USD_RESERVES = {
    "USDC": Reserve(6, 100_010_000, (7500, 8000, 10500), borrowing=True),
    "WETH": Reserve(18, 3000 * USD_UNIT, (8000, 8250, 10500), borrowing=True),
}
EMISSIONS = {("WETH", "a"): 10**13, ("USDC", "variable"): 2 * 10**13}
"""RWD wei per second the ETH market's controller pays, by (reserve, aToken or variable debt)."""


@functools.cache
def artifact(name: str) -> dict[str, Any]:
    """A contract of Aave v2 (else of aave-stake) as published built: ABI, code and libraries' places."""

    def read() -> dict[str, Any]:
        for package in PACKAGES:
            files = pack(package)
            found = [
                p for p in files if p.startswith("artifacts/contracts/") and p.endswith(f"/{name}.sol/{name}.json")
            ]
            if found:
                (path,) = found
                entry = json.loads(files[path])
                return {key: entry[key] for key in ("abi", "bytecode", "linkReferences") if key in entry}
        raise KeyError(name)

    return dict(packaged(f"aave v2 {name}", read))


@functools.cache
def feeds() -> dict[str, Artifact]:
    """TestPriceFeed (with TestToken: the compilation tests/uniswap_world.py makes, already bundled)."""
    return compile_contracts([CONTRACTS / "TestToken.sol", CONTRACTS / "TestPriceFeed.sol"])


@dataclass
class Aave2Incentives:
    """A market's AaveIncentivesController, paying one reward token from a vault that approved it."""

    controller: str
    reward: str
    vault: str
    emissions: dict[str, int]
    """Per token (aToken or variable debt token), reward wei per second."""
    end: int
    """DISTRIBUTION_END(): a year after the controller's initialize."""


@dataclass
class Aave2MarketDeployment:
    name: str
    provider: str = ""
    pool: str = ""
    configurator: str = ""
    data_provider: str = ""
    oracle: str = ""
    lending_rate_oracle: str = ""
    collateral_manager: str = ""
    strategy: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    atokens: dict[str, str] = field(default_factory=dict)
    stable_debt: dict[str, str] = field(default_factory=dict)
    variable_debt: dict[str, str] = field(default_factory=dict)
    incentives: Aave2Incentives | None = None


@dataclass
class Aave2World:
    node: Anvil
    markets: list[Aave2MarketDeployment] = field(default_factory=list)
    wallets: dict[str, str] = field(default_factory=dict)
    start_block: int = 0
    eth_usd: str = ""
    """ETH/USD (8 decimals, $3000): the currency feed that turns the ETH market's figures into USD."""

    def addresses_override(self) -> dict[str, Any]:
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                "aave": [
                    {
                        "name": m.name,
                        "addressesProvider": m.provider,
                        "pool": m.pool,
                        "dataProvider": m.data_provider,
                        "oracle": m.oracle,
                        "version": 2,
                        "startBlock": self.start_block,
                    }
                    for m in self.markets
                ],
                "currencyFeeds": {"ETH": {"pair": "ETH/USD", "feed": self.eth_usd, "heartbeat": 10**9}},
            }
        }

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path


def deploy_market(v2: Deployer, name: str) -> Aave2MarketDeployment:
    """A market without reserves or price oracle: provider, pool and configurator behind their
    proxies, collateral manager, lending rate oracle, data provider and one rate strategy (optimal
    usage 80 %, variable rate 0 + 4 % / 75 %, stable rate the market's + 2 % / 75 %)."""
    node, owner = v2.node, v2.node.accounts[0]
    market = Aave2MarketDeployment(name)
    provider = market.provider = v2.deploy("LendingPoolAddressesProvider", name)
    node.send(provider, "setPoolAdmin(address)", owner)
    node.send(provider, "setEmergencyAdmin(address)", owner)
    node.send(provider, "setLendingPoolImpl(address)", v2.deploy("LendingPool"))
    market.pool = node.call(provider, "getLendingPool()", returns=["address"]).lower()
    node.send(provider, "setLendingPoolConfiguratorImpl(address)", v2.deploy("LendingPoolConfigurator"))
    market.configurator = node.call(provider, "getLendingPoolConfigurator()", returns=["address"]).lower()
    market.collateral_manager = v2.deploy("LendingPoolCollateralManager")
    node.send(provider, "setLendingPoolCollateralManager(address)", market.collateral_manager)
    market.lending_rate_oracle = v2.deploy("LendingRateOracle")
    node.send(provider, "setLendingRateOracle(address)", market.lending_rate_oracle)
    market.data_provider = v2.deploy("AaveProtocolDataProvider", provider)
    node.send(provider, "setAddress(bytes32,address)", DATA_PROVIDER_ID, market.data_provider)
    market.strategy = v2.deploy(
        "DefaultReserveInterestRateStrategy",
        provider,
        RAY * 8 // 10,
        0,
        RAY * 4 // 100,
        RAY * 75 // 100,
        RAY * 2 // 100,
        RAY * 75 // 100,
    )
    return market


def list_tokens(
    v2: Deployer, market: Aave2MarketDeployment, reserves: dict[str, Reserve], source: Callable[[int], str]
) -> None:
    """New MintableERC20s for `reserves`, each with a price source `source(price)`."""
    for symbol, reserve in reserves.items():
        market.tokens[symbol] = v2.deploy("MintableERC20", f"Test {symbol}", symbol, reserve.decimals)
        market.sources[symbol] = source(reserve.price)


def add_reserves(
    v2: Deployer, market: Aave2MarketDeployment, reserves: dict[str, Reserve], controller: str = ZERO
) -> None:
    """Each reserve through LendingPoolConfigurator.initReserve, from token implementations made
    for it (their immutables: pool, asset, treasury, incentives controller), then configured."""
    node, owner, configurator = v2.node, v2.node.accounts[0], market.configurator
    for symbol, reserve in reserves.items():
        token = market.tokens[symbol]
        a_token = v2.deploy(
            "AToken", market.pool, token, owner, f"Aave interest bearing {symbol}", f"a{symbol}", controller
        )
        stable, variable = (
            v2.deploy(
                f"{kind}DebtToken",
                market.pool,
                token,
                f"Aave {name} debt bearing {symbol}",
                f"{name}Debt{symbol}",
                controller,
            )
            for kind, name in (("Stable", "stable"), ("Variable", "variable"))
        )
        node.send(
            configurator,
            "initReserve(address,address,address,uint8,address)",
            a_token,
            stable,
            variable,
            reserve.decimals,
            market.strategy,
        )
        proxies = node.call(market.data_provider, "getReserveTokensAddresses(address)", token, returns=["address"] * 3)
        market.atokens[symbol], market.stable_debt[symbol], market.variable_debt[symbol] = (p.lower() for p in proxies)
        node.send(
            configurator, "configureReserveAsCollateral(address,uint256,uint256,uint256)", token, *reserve.collateral
        )
        if reserve.borrowing:
            node.send(configurator, "enableBorrowingOnReserve(address,bool)", token, reserve.stable)
            node.send(configurator, "setReserveFactor(address,uint256)", token, RESERVE_FACTOR)
        node.send(market.lending_rate_oracle, "setMarketBorrowRate(address,uint256)", token, reserve.market_rate)


def incentives_controller(v2: Deployer, reward: str) -> Aave2Incentives:
    """An AaveIncentivesController paying `reward` for a year from the deployer's account (its
    vault, which approves it), the deployer its emission manager and rewards admin. No Safety
    Module exists here: the PSM is the vault's address (initialize approves the PSM, and the
    ERC20 refuses the zero address), so a claim asking to stake reverts."""
    node, owner = v2.node, v2.node.accounts[0]
    controller = v2.deploy("AaveIncentivesController", reward, owner, 0, owner)
    node.send(controller, "initialize(address,uint256,address)", owner, YEAR, owner)
    node.send(reward, "mint(uint256)", REWARD_FUNDS)
    node.send(reward, "approve(address,uint256)", controller, 2**256 - 1)
    end = int(node.call(controller, "DISTRIBUTION_END()"))
    return Aave2Incentives(controller, reward, owner, {}, end)


def configure_emissions(node: Anvil, market: Aave2MarketDeployment, emissions: dict[tuple[str, str], int]) -> None:
    """The controller's emissions on the tokens `emissions` names (after initReserve made them)."""
    assert market.incentives is not None
    sides = {"a": market.atokens, "variable": market.variable_debt}
    paid = {sides[side][symbol]: emission for (symbol, side), emission in emissions.items()}
    node.send(
        market.incentives.controller,
        "configureAssets((uint128,uint256,address)[])",
        [(emission, node.call(token, "scaledTotalSupply()"), token) for token, emission in paid.items()],
    )
    market.incentives.emissions = paid


def eth_market(v2: Deployer) -> Aave2MarketDeployment:
    """AaveV2TestEth: v2's own AaveOracle (ETH base) and incentives in RWD."""
    node = v2.node
    market = deploy_market(v2, "AaveV2TestEth")
    list_tokens(v2, market, ETH_RESERVES, lambda price: v2.deploy("MockAggregator", price))
    symbols = list(ETH_RESERVES)
    market.oracle = v2.deploy(
        "AaveOracle",
        [market.tokens[s] for s in symbols],
        [market.sources[s] for s in symbols],
        ZERO,
        market.tokens["WETH"],
    )
    node.send(market.provider, "setPriceOracle(address)", market.oracle)
    market.incentives = incentives_controller(v2, market.tokens["RWD"])
    add_reserves(v2, market, ETH_RESERVES, market.incentives.controller)
    configure_emissions(node, market, EMISSIONS)
    return market


def usd_market(v2: Deployer) -> Aave2MarketDeployment:
    """AaveV2TestUsd: core-v3's AaveOracle standing in for a USD-base oracle, with core-v3's
    MockAggregators (8 decimals) as sources; no incentives."""
    v3 = Deployer(v2.node)
    market = deploy_market(v2, "AaveV2TestUsd")
    list_tokens(v2, market, USD_RESERVES, lambda price: v3.deploy("MockAggregator", price))
    symbols = list(USD_RESERVES)
    market.oracle = v3.deploy(
        "AaveOracle",
        market.provider,
        [market.tokens[s] for s in symbols],
        [market.sources[s] for s in symbols],
        ZERO,
        ZERO,
        USD_UNIT,
    )
    v2.node.send(market.provider, "setPriceOracle(address)", market.oracle)
    add_reserves(v2, market, USD_RESERVES)
    return market


def deposit(node: Anvil, market: Aave2MarketDeployment, symbol: str, amount: int, wallet: str) -> None:
    """`wallet` mints `amount` of the test token, approves the pool and deposits it."""
    token = market.tokens[symbol]
    node.send(token, "mint(uint256)", amount, sender=wallet)
    node.send(token, "approve(address,uint256)", market.pool, 2**256 - 1, sender=wallet)
    node.send(market.pool, "deposit(address,uint256,address,uint16)", token, amount, wallet, 0, sender=wallet)


def borrow(node: Anvil, market: Aave2MarketDeployment, symbol: str, amount: int, mode: int, wallet: str) -> None:
    """`wallet` borrows for itself at rate `mode` (STABLE or VARIABLE)."""
    node.send(
        market.pool,
        "borrow(address,uint256,uint256,uint16,address)",
        market.tokens[symbol],
        amount,
        mode,
        0,
        wallet,
        sender=wallet,
    )


def open_positions(world: Aave2World) -> None:
    node, (eth, usd) = world.node, world.markets
    lender, borrower, saver = (world.wallets[role] for role in ("lender", "borrower", "saver"))
    deposit(node, eth, "USDC", 1_000_000 * USDC, lender)
    deposit(node, eth, "DAI", 500_000 * ETHER, lender)
    deposit(node, usd, "USDC", 200_000 * USDC, lender)
    deposit(node, eth, "WETH", 10 * ETHER, borrower)
    borrow(node, eth, "USDC", 6_000 * USDC, VARIABLE, borrower)
    borrow(node, eth, "DAI", 2_000 * ETHER, STABLE, borrower)
    deposit(node, eth, "RWD", 1_000 * ETHER, borrower)
    deposit(node, usd, "WETH", 5 * ETHER, borrower)
    borrow(node, usd, "USDC", 3_000 * USDC, VARIABLE, borrower)
    deposit(node, eth, "USDC", 3_000 * USDC, saver)
    deposit(node, eth, "WETH", 1 * ETHER, saver)
    node.send(eth.pool, "setUserUseReserveAsCollateral(address,bool)", eth.tokens["WETH"], False, sender=saver)


def build(node: Anvil, wallets: dict[str, str] | None = None) -> Aave2World:
    """`wallets` (lender, borrower, saver, empty) default to anvil accounts 14-17."""
    world = Aave2World(node)
    world.start_block = node.block_number() + 1
    world.wallets = wallets or dict(zip(("lender", "borrower", "saver", "empty"), node.accounts[14:18]))
    world.eth_usd = node.deploy(feeds()["TestPriceFeed"], ["uint8"], [8])
    node.send(world.eth_usd, "set(int256,uint256)", ETH_USD, node.timestamp())
    v2 = Deployer(node, artifact)
    for library in ("GenericLogic", "ValidationLogic", "ReserveLogic"):
        v2.libraries[library] = v2.deploy(library)
    world.markets = [eth_market(v2), usd_market(v2)]
    open_positions(world)
    node.rpc("evm_increaseTime", ELAPSED)
    node.mine()
    return world
