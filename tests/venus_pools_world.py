"""Venus's isolated pools on anvil, beside the core pool of tests/venus_world.py: a PoolRegistry and
two pools, deployed from the contracts as Venus deployed them, the deployment records
`@venusprotocol/isolated-pools` 4.4.0 ships (`deployments/<network>/<Name>.json`: creation code and
ABI), read from the tarball tools/packs.json pins.

- "Stablecoins" counts blocks, as BNB Chain's and Ethereum's pools do: the Comptroller, VToken
  (constructed `(false, 70,080,000, max rate)`) and RewardsDistributor implementations of
  `deployments/bscmainnet` (that distributor predates time-based rewards: it has no `isTimeBased`).
- "Liquid Staked ETH" counts seconds, as the pools on Arbitrum, Base, OP Mainnet and Unichain do:
  `deployments/arbitrumone`'s VToken (`(true, 0, max rate)`) and RewardsDistributor (`(true, 0)`).

Both pools hang off one PoolRegistry (`deployments/bscmainnet`'s implementation behind the
artifacts' ERC1967Proxy) and are set up as Venus's deploy scripts do: each Comptroller and vToken
a BeaconProxy over its implementation's UpgradeableBeacon, initialized in the proxy's
construction; `addPool` (close factor, liquidation incentive, min liquidatable collateral);
`addMarket` (factors, caps, and an initial supply minted for the deployer); a RewardsDistributor
per pool paying the core world's XVS, added with `addRewardsDistributor` and funded. The rate
models are `JumpRateModelV2` (each chain's deployed record's code, constructed per clock).

Stand-ins from the same package: the artifacts' `MockPriceOracle` (fixed prices; a pool's oracle
is a ResilientOracle on every chain), and its real `AccessControlManager` (from
`@venusprotocol/governance-contracts`), granting the deployer and the registry the calls they
make. No ProtocolShareReserve or Shortfall: each vToken's reduceReservesBlockDelta is set past any
block or second, so reserves stay in the market and nothing calls either.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Any

from tests.aave_world import Deployer
from tests.evm import Anvil, calldata, packaged
from tests.node_oracles import pack

PACKAGE = "@venusprotocol/isolated-pools"
ETHER = 10**18
MANTISSA = 10**18
NEVER = 2**256 - 1
LOOPS_LIMIT = 100
CLOSE_FACTOR = MANTISSA // 2
LIQUIDATION_INCENTIVE = MANTISSA * 11 // 10
MIN_LIQUIDATABLE_COLLATERAL = 100 * ETHER
"""USD x 1e18 below which an account's collateral is only healed or liquidated whole."""
RESERVE_FACTOR = MANTISSA // 10
CAP = 10**9 * ETHER
INITIAL_SUPPLY = ETHER
"""What `addMarket` mints for the deployer, as every market's launch does."""
REWARD_FUNDS = 100_000 * ETHER
BLOCKS_PER_YEAR = 70_080_000
SECONDS_PER_YEAR = 31_536_000


@dataclass(frozen=True)
class Listing:
    """A market's configuration, in this world and the core pool's: underlying decimals, USD price,
    factors and XVS speeds a period (block or second)."""

    decimals: int
    usd: int
    collateral_factor: int
    liquidation_threshold: int
    supply_speed: int
    borrow_speed: int

    @property
    def price(self) -> int:
        """The oracles' price: USD x 1e(36 - decimals)."""
        return int(self.usd * 10 ** (36 - self.decimals))


@dataclass(frozen=True)
class PoolSpec:
    name: str
    network: str
    """The deployment records' network: its VToken, RewardsDistributor and rate model clock."""
    time_based: bool
    listings: dict[str, Listing]


POOLS = (
    PoolSpec(
        "Stablecoins",
        "bscmainnet",
        False,
        {
            "USDC": Listing(18, 1, MANTISSA * 8 // 10, MANTISSA * 85 // 100, 10**16, 2 * 10**16),
            "USDD": Listing(18, 1, MANTISSA * 7 // 10, MANTISSA * 75 // 100, 10**16, 0),
        },
    ),
    PoolSpec(
        "Liquid Staked ETH",
        "arbitrumone",
        True,
        {
            "WETH": Listing(18, 3_000, MANTISSA * 8 // 10, MANTISSA * 85 // 100, 10**15, 10**15),
            "wstETH": Listing(18, 3_500, MANTISSA * 9 // 10, MANTISSA * 93 // 100, 2 * 10**15, 0),
        },
    ),
)
RATE_MODEL = "JumpRateModelV2_base0bps_slope350bps_jump8000bps_kink8000bps_timeBased"
"""A deployed record of the rate model's code (arbitrumone); each pool constructs its own."""
MAX_BORROW_RATE = {False: 5 * 10**12, True: 16_667 * 10**8}
"""The VTokens' constructor cap on the borrow rate a period, as deployed per clock."""
CALLS = {
    "deployer": (
        "addPool(string,address,uint256,uint256,uint256)",
        "addMarket(AddMarketInput)",
        "setReduceReservesBlockDelta(uint256)",
        "setRewardTokenSpeeds(address[],uint256[],uint256[])",
    ),
    "registry": (
        "setCloseFactor(uint256)",
        "setLiquidationIncentive(uint256)",
        "setMinLiquidatableCollateral(uint256)",
        "setCollateralFactor(address,uint256,uint256)",
        "setMarketSupplyCaps(address[],uint256[])",
        "setMarketBorrowCaps(address[],uint256[])",
    ),
}
"""What the AccessControlManager lets each call (on any contract)."""


@functools.cache
def record(name: str) -> dict[str, Any]:
    """A contract as published: `<network>/<Name>` from the deployment records, else the artifact
    `<Name>` (proxies, the access control manager, mocks)."""

    def read() -> dict[str, Any]:
        files = pack(PACKAGE)
        if "/" in name:
            entry = json.loads(files[f"deployments/{name}.json"])
        else:
            (path,) = [p for p in files if p.startswith("artifacts/") and p.endswith(f"/{name}.sol/{name}.json")]
            entry = json.loads(files[path])
        return {"abi": entry["abi"], "bytecode": entry["bytecode"], "linkReferences": {}}

    return dict(packaged(f"venus pools {name}", read))


@dataclass(frozen=True)
class PoolMarket:
    vtoken: str
    underlying: str


@dataclass
class IsolatedPool:
    name: str
    comptroller: str
    distributor: str
    time_based: bool
    rate_model: str
    markets: dict[str, PoolMarket] = field(default_factory=dict)


@dataclass
class PoolsWorld:
    start_block: int = 0
    """The block the registry's deployment starts at: the core pool alone before it."""
    registry: str = ""
    acm: str = ""
    oracle: str = ""
    pools: dict[str, IsolatedPool] = field(default_factory=dict)

    def market(self, symbol: str) -> tuple[IsolatedPool, PoolMarket]:
        (found,) = [(pool, pool.markets[symbol]) for pool in self.pools.values() if symbol in pool.markets]
        return found


def _proxy(deployer: Deployer, implementation: str, initializer: str, *args: Any) -> str:
    """An ERC1967Proxy over `implementation`, initialized in its construction."""
    return deployer.deploy("ERC1967Proxy", implementation, calldata(initializer, *args))


def _pool(deployer: Deployer, world: PoolsWorld, spec: PoolSpec, xvs: str) -> IsolatedPool:
    node, admin = deployer.node, deployer.node.accounts[0]
    net = spec.network
    comptroller = deployer.deploy(
        "BeaconProxy",
        deployer.deploy("UpgradeableBeacon", deployer.deploy(f"{net}/ComptrollerImpl", world.registry)),
        calldata("initialize(uint256,address)", LOOPS_LIMIT, world.acm),
    )
    node.send(comptroller, "setPriceOracle(address)", world.oracle)
    node.send(
        world.registry,
        "addPool(string,address,uint256,uint256,uint256)",
        spec.name,
        comptroller,
        CLOSE_FACTOR,
        LIQUIDATION_INCENTIVE,
        MIN_LIQUIDATABLE_COLLATERAL,
    )
    year = 0 if spec.time_based else BLOCKS_PER_YEAR
    model = deployer.deploy(
        f"arbitrumone/{RATE_MODEL}",
        0,
        MANTISSA * 35 // 1000,
        MANTISSA * 8,
        MANTISSA * 8 // 10,
        world.acm,
        spec.time_based,
        year,
    )
    beacon = deployer.deploy(
        "UpgradeableBeacon",
        deployer.deploy(f"{net}/VTokenImpl", spec.time_based, year, MAX_BORROW_RATE[spec.time_based]),
    )
    pool = IsolatedPool(spec.name, comptroller, "", spec.time_based, model)
    for symbol, listing in spec.listings.items():
        pool.markets[symbol] = _market(deployer, world, pool, beacon, symbol, listing)
    distributor_args = () if net == "bscmainnet" else (True, 0)
    pool.distributor = _proxy(
        deployer,
        deployer.deploy(f"{net}/RewardsDistributorImpl", *distributor_args),
        "initialize(address,address,uint256,address)",
        comptroller,
        xvs,
        LOOPS_LIMIT,
        world.acm,
    )
    node.send(comptroller, "addRewardsDistributor(address)", pool.distributor)
    node.send(
        pool.distributor,
        "setRewardTokenSpeeds(address[],uint256[],uint256[])",
        [m.vtoken for m in pool.markets.values()],
        [spec.listings[s].supply_speed for s in pool.markets],
        [spec.listings[s].borrow_speed for s in pool.markets],
    )
    node.send(xvs, "transfer(address,uint256)", pool.distributor, REWARD_FUNDS, sender=admin)
    return pool


def _market(
    deployer: Deployer, world: PoolsWorld, pool: IsolatedPool, beacon: str, symbol: str, listing: Listing
) -> PoolMarket:
    """A MockToken and its vToken (a BeaconProxy), added to the pool by the registry."""
    node, admin = deployer.node, deployer.node.accounts[0]
    underlying = deployer.deploy("MockToken", f"Test {symbol}", symbol, 18)
    vtoken = deployer.deploy(
        "BeaconProxy",
        beacon,
        calldata(
            "initialize(address,address,address,uint256,string,string,uint8,address,address,(address,address),uint256)",
            underlying,
            pool.comptroller,
            pool.rate_model,
            2 * 10**28,
            f"Venus {symbol} ({pool.name})",
            f"v{symbol}_{pool.name.replace(' ', '')}",
            8,
            admin,
            world.acm,
            (admin, admin),
            RESERVE_FACTOR,
        ),
    )
    node.send(vtoken, "setReduceReservesBlockDelta(uint256)", NEVER)
    node.send(world.oracle, "setPrice(address,uint256)", underlying, listing.price)
    node.send(underlying, "faucet(uint256)", INITIAL_SUPPLY, sender=admin)
    node.send(underlying, "approve(address,uint256)", world.registry, INITIAL_SUPPLY, sender=admin)
    node.send(
        world.registry,
        "addMarket((address,uint256,uint256,uint256,address,uint256,uint256))",
        (vtoken, listing.collateral_factor, listing.liquidation_threshold, INITIAL_SUPPLY, admin, CAP, CAP),
    )
    return PoolMarket(vtoken, underlying)


def build(node: Anvil, xvs: str, xvs_price: int) -> PoolsWorld:
    """The registry, its access control and oracle, and both pools (POOLS), paying `xvs` priced
    at `xvs_price` (USD x 1e18)."""
    deployer, admin = Deployer(node, record), node.accounts[0]
    world = PoolsWorld(start_block=node.block_number() + 1)
    world.acm = deployer.deploy("AccessControlManager")
    world.oracle = deployer.deploy("MockPriceOracle")
    node.send(world.oracle, "setPrice(address,uint256)", xvs, xvs_price)
    world.registry = _proxy(
        deployer, deployer.deploy("bscmainnet/PoolRegistry_Implementation"), "initialize(address)", world.acm
    )
    for role, account in (("deployer", admin), ("registry", world.registry)):
        for call in CALLS[role]:
            node.send(world.acm, "giveCallPermission(address,string,address)", "0x" + "00" * 20, call, account)
    world.pools = {spec.name: _pool(deployer, world, spec, xvs) for spec in POOLS}
    return world


def supply(node: Anvil, world: PoolsWorld, symbol: str, amount: int, wallet: str) -> None:
    _, market = world.market(symbol)
    node.send(market.underlying, "faucet(uint256)", amount, sender=wallet)
    node.send(market.underlying, "approve(address,uint256)", market.vtoken, 2**256 - 1, sender=wallet)
    node.send(market.vtoken, "mint(uint256)", amount, sender=wallet)


def enter(node: Anvil, world: PoolsWorld, symbol: str, wallet: str) -> None:
    pool, market = world.market(symbol)
    node.send(pool.comptroller, "enterMarkets(address[])", [market.vtoken], sender=wallet)


def borrow(node: Anvil, world: PoolsWorld, symbol: str, amount: int, wallet: str) -> None:
    _, market = world.market(symbol)
    node.send(market.vtoken, "borrow(uint256)", amount, sender=wallet)


def open_positions(node: Anvil, world: PoolsWorld, wallets: dict[str, str]) -> None:
    """The lender supplies both pools' loan assets; the borrower borrows USDC against USDD in
    one pool and WETH against wstETH in the other; the saver supplies WETH without entering it."""
    lender, borrower, saver = (wallets[role] for role in ("lender", "borrower", "saver"))
    supply(node, world, "USDC", 500_000 * ETHER, lender)
    supply(node, world, "USDD", 20_000 * ETHER, borrower)
    enter(node, world, "USDD", borrower)
    borrow(node, world, "USDC", 5_000 * ETHER, borrower)
    supply(node, world, "WETH", 10 * ETHER, saver)
    supply(node, world, "wstETH", 3 * ETHER, borrower)
    enter(node, world, "wstETH", borrower)
    borrow(node, world, "WETH", 2 * ETHER, borrower)
