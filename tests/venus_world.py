"""Venus's core pool on anvil, deployed from the artifacts Venus publishes built in
`@venusprotocol/venus-protocol` 10.3.0 (solc 0.8.25, evm cancun; no library to link), read from the
tarball tools/packs.json pins.

The Comptroller is BNB Chain's Diamond: a `Unitroller` proxy whose implementation is `Diamond`,
which routes each selector to one of the facets `MarketFacet`, `PolicyFacet`, `RewardFacet`,
`SetterFacet` and `FlashLoanFacet` (every function of a facet's ABI that Diamond does not answer
itself, each to the first facet listing it: the FacetBase views all five share go to MarketFacet).
Its liquidity math is the package's `ComptrollerLens`; `VenusLens` is deployed beside it as a
cross-check. Three markets, `VBep20Delegator` proxies over one `VBep20Delegate`, each with its
underlying a `MockToken` (18 decimals, like BNB Chain's USDT, BTCB and ETH), one `JumpRateModel` at
BNB Chain's 70,080,000 blocks a year, XVS speeds paid in the package's `XVS`, funded on the
Comptroller.

Stand-ins, all from the same package:
- `SimplePriceOracle` is the Comptroller's oracle (BNB Chain's is a ResilientOracle over Chainlink,
  RedStone and Binance feeds): fixed prices at USD x 1e(36 - decimals).
- `DeviationBoundedOracle` (shipped in the package's `artifacts/@venusprotocol/oracle/`) is the
  Comptroller's `deviationBoundedOracle()`, which v10's borrow checks and CF-path liquidity require;
  it reads spot prices from SimplePriceOracle's `getPrice(asset)`. Deployed bare (its initializer is
  disabled and left so): no asset enables bounded pricing, so it answers spot both ways. It needs a
  native market; none exists here (no vBNB), so NO_NATIVE_MARKET, an address with no code, fills it.
- `AccessControlManagerMock` stands in for the AccessControlManager (which lives in
  `@venusprotocol/governance-contracts` and is not shipped built here): it allows its owner, the
  deployer, every call the setters check and no one else.
- No Prime, VAI vault, treasury or ProtocolShareReserve: the Comptroller skips them while unset,
  and each market's reduceReservesBlockDelta is set past any block so reserves stay in the market
  (an accrual would otherwise sweep them to the unset share reserve).

VAI, the core pool's own stablecoin, is live, so a wallet can owe VAI beside its vToken borrows (the
Comptroller's liquidity, through ComptrollerLens, adds `getVAIRepayAmount`): the package's `VAI`
token and a `VAIUnitroller` proxy over `VAIController`, set up as the package's deploy scripts
(014-vai-controller-*) do (`_setPendingImplementation`, `_become`, `initialize`), then wired: the
token `rely`s the controller (its only minter), the controller knows the Comptroller, the token,
AccessControlManagerMock, a receiver and treasury (the deployer, 0 mint fee), a mint cap and a
VAI_BASE_RATE stability fee; the Comptroller's `_setVAIController` and `_setVAIMintRate`. The
controller's year is its hard-coded 70,080,000 blocks (no setter) and, with no float rate, it never
asks the oracle for VAI's price. No VAIVault and no XVS for VAI minters.

The isolated pools (tests/venus_pools_world.py) join them on the same chain, paying the same XVS.

The lender, borrower and saver open their positions through the vTokens' and the Comptroller's own
entry points, and the borrower mints VAI_MINTED, then theirs in the isolated pools; then
ELAPSED_SECONDS pass and ELAPSED_BLOCKS are mined, as Venus accrues
interest and XVS per block. The VAI index accrues only when something calls the controller
(`accrueVAIInterest`, a mint, repay or liquidation), so after the mined blocks a plain
`getVAIRepayAmount` still answers the stored VAI_MINTED: reading the interest takes an accrual in
the same state (an eth_call of Multicall3's aggregate3 running `accrueVAIInterest` first).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eth_abi.abi import decode

from tests import venus_pools_world
from tests.aave_world import Deployer
from tests.compound_world import compile_all
from tests.evm import Anvil, calldata, function_signatures, packaged, selector
from tests.node_oracles import pack
from tests.venus_pools_world import Listing

PACKAGE = "@venusprotocol/venus-protocol"
ETHER = 10**18
MANTISSA = 10**18
BLOCKS_PER_YEAR = 70_080_000
"""BNB Chain's blocks a year since its 0.45 s blocks (the package's VAIController says the same)."""
ELAPSED_BLOCKS = 1_000
ELAPSED_SECONDS = 450
"""What those blocks take on BNB Chain, for the isolated pool that counts seconds."""
"""Blocks mined once the positions are open (~7.5 minutes of BNB Chain). anvil mines slower the
longer its chain: here 1,000 take 1.5 s, 10,000 a minute (past the RPC's 60 s timeout in one
`anvil_mine`); and 10,000 would push the world's first blocks out of the past states tests/evm.py's
Anvil keeps (HISTORY)."""
FACETS = ("MarketFacet", "PolicyFacet", "RewardFacet", "SetterFacet", "FlashLoanFacet")
ADD = 0
"""IDiamondCut.FacetCutAction.Add."""
CORE_POOL = 0
NO_NATIVE_MARKET = "0x" + "00" * 19 + "01"
"""DeviationBoundedOracle's constructor refuses a zero native market; no market is native here."""
CLOSE_FACTOR = MANTISSA // 2
LIQUIDATION_INCENTIVE = MANTISSA * 11 // 10
RESERVE_FACTOR = MANTISSA // 10
CAP = 10**9 * ETHER
"""Supply and borrow caps (v10 refuses a mint or borrow on a market whose cap is 0)."""
XVS_FUNDS = 100_000 * ETHER
"""XVS the Comptroller holds to pay claims (1,000 blocks of these speeds are ~40 XVS)."""
NEVER = 2**256 - 1
"""A reduceReservesBlockDelta no block reaches."""
XVS_USD = 5 * 10**18
"""XVS's price in the pool's oracle: $5 (USD x 1e18 for its 18 decimals)."""
VAI_MINT_RATE = 10_000
"""The Comptroller's vaiMintRate, in basis points of the collateral-weighted supply: all of it."""
VAI_BASE_RATE = MANTISSA * 4 // 100
"""VAIController.setBaseRate: 4% a year, over the controller's 70,080,000 blocks."""
VAI_MINT_CAP = 10**9 * ETHER
VAI_MINTED = 1_000 * ETHER
"""What the borrower mints (its liquidity allows ~40,000)."""


LISTINGS = {
    "USDT": Listing(18, 1, MANTISSA * 75 // 100, MANTISSA * 80 // 100, 10**16, 2 * 10**16),
    "BTCB": Listing(18, 60_000, MANTISSA * 80 // 100, MANTISSA * 85 // 100, 5 * 10**15, 0),
    "ETH": Listing(18, 3_000, MANTISSA * 80 // 100, MANTISSA * 85 // 100, 5 * 10**15, 0),
}


@functools.cache
def artifact(name: str) -> dict[str, Any]:
    """A contract of the package as published built (`artifacts/**/<name>.sol/<name>.json`)."""

    def read() -> dict[str, Any]:
        files = pack(PACKAGE)
        (path,) = [p for p in files if p.startswith("artifacts/") and p.endswith(f"/{name}.sol/{name}.json")]
        entry = json.loads(files[path])
        return {key: entry[key] for key in ("abi", "bytecode", "linkReferences")}

    return dict(packaged(f"venus {name}", read))


@dataclass(frozen=True)
class VenusMarket:
    vtoken: str
    underlying: str
    decimals: int


@dataclass
class VenusWorld:
    node: Anvil
    comptroller: str = ""
    """The Unitroller: the Comptroller's address, whatever its implementation."""
    diamond: str = ""
    facets: dict[str, str] = field(default_factory=dict)
    comptroller_lens: str = ""
    lens: str = ""
    """VenusLens."""
    oracle: str = ""
    bounded_oracle: str = ""
    acm: str = ""
    xvs: str = ""
    irm: str = ""
    vtoken_implementation: str = ""
    """The VBep20Delegate every market's VBep20Delegator delegates to."""
    markets: dict[str, VenusMarket] = field(default_factory=dict)
    wallets: dict[str, str] = field(default_factory=dict)
    start_block: int = 0
    vai: str = ""
    """The VAI token (18 decimals, $1 by the protocol's own reckoning)."""
    vai_controller: str = ""
    """The VAIUnitroller: the VAI controller's address, whatever its implementation."""
    vai_block: int = 0
    """The block the borrower minted its VAI at (the controller accrues from it)."""
    pools: venus_pools_world.PoolsWorld = field(default_factory=venus_pools_world.PoolsWorld)
    """The isolated pools (tests/venus_pools_world.py)."""

    def addresses_override(self) -> dict[str, Any]:
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                "venus": {
                    "comptroller": self.comptroller,
                    "poolRegistry": self.pools.registry,
                    "startBlock": self.start_block,
                },
            }
        }

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path


def succeed(
    node: Anvil, to: str, signature: str, *args: Any, sender: str | None = None, codes: str = "uint256"
) -> None:
    """Send a call that answers Compound's error codes (`codes`: a uint, or a uint[] for
    enterMarkets; 0 is success) once an eth_call shows it would succeed: a refused mint, borrow or
    setter returns a code and reverts nothing."""
    sender = sender or node.accounts[0]
    raw = node.rpc("eth_call", {"from": sender, "to": to, "data": "0x" + calldata(signature, *args).hex()}, "latest")
    (code,) = decode([codes], bytes.fromhex(raw[2:]))
    if any(code) if isinstance(code, tuple) else code:
        raise RuntimeError(f"{signature} on {to} would fail with error {code}")
    node.send(to, signature, *args, sender=sender)


def diamond_cut(facets: dict[str, str]) -> list[tuple[str, int, list[bytes]]]:
    """FacetCut structs adding every facet function Diamond lacks, each to the first facet with it."""
    routed = set(function_signatures(artifact("Diamond")["abi"]))
    cuts = []
    for name, address in facets.items():
        functions = sorted(set(function_signatures(artifact(name)["abi"])) - routed)
        routed.update(functions)
        cuts.append((address, ADD, [selector(f) for f in functions]))
    return cuts


def deploy_comptroller(venus: Deployer, world: VenusWorld) -> None:
    """Unitroller -> Diamond with the facets cut in, then its access control, oracles, lens, close
    factor and XVS."""
    node = venus.node
    world.comptroller = venus.deploy("Unitroller")
    world.diamond = venus.deploy("Diamond")
    succeed(node, world.comptroller, "_setPendingImplementation(address)", world.diamond)
    node.send(world.diamond, "_become(address)", world.comptroller)
    world.facets = {name: venus.deploy(name) for name in FACETS}
    node.send(world.comptroller, "diamondCut((address,uint8,bytes4[])[])", diamond_cut(world.facets))
    comptroller = world.comptroller
    world.acm = venus.deploy("AccessControlManagerMock", node.accounts[0])
    succeed(node, comptroller, "_setAccessControl(address)", world.acm)
    world.oracle = venus.deploy("SimplePriceOracle")
    succeed(node, comptroller, "_setPriceOracle(address)", world.oracle)
    world.bounded_oracle = venus.deploy("DeviationBoundedOracle", world.oracle, NO_NATIVE_MARKET, "0x" + "00" * 20)
    succeed(node, comptroller, "setDeviationBoundedOracle(address)", world.bounded_oracle)
    world.comptroller_lens = venus.deploy("ComptrollerLens")
    succeed(node, comptroller, "_setComptrollerLens(address)", world.comptroller_lens)
    succeed(node, comptroller, "_setCloseFactor(uint256)", CLOSE_FACTOR)
    world.xvs = venus.deploy("XVS", node.accounts[0])
    node.send(comptroller, "_setXVSToken(address)", world.xvs)
    node.send(world.xvs, "transfer(address,uint256)", comptroller, XVS_FUNDS)
    world.lens = venus.deploy("VenusLens")


def deploy_vai(venus: Deployer, world: VenusWorld) -> None:
    """VAI and its controller (VAIUnitroller -> VAIController, initialized as the package's deploy
    scripts do), wired both ways with the Comptroller so a core-pool wallet can mint VAI debt."""
    node, admin = venus.node, venus.node.accounts[0]
    world.vai = venus.deploy("VAI", node.chain_id)
    world.vai_controller = controller = venus.deploy("VAIUnitroller")
    implementation = venus.deploy("VAIController")
    succeed(node, controller, "_setPendingImplementation(address)", implementation)
    node.send(implementation, "_become(address)", controller)
    node.send(controller, "initialize()")
    succeed(node, controller, "_setComptroller(address)", world.comptroller)
    node.send(controller, "setVAIToken(address)", world.vai)
    node.send(controller, "setAccessControl(address)", world.acm)
    node.send(controller, "setReceiver(address)", admin)
    succeed(node, controller, "_setTreasuryData(address,address,uint256)", admin, admin, 0)
    node.send(controller, "setMintCap(uint256)", VAI_MINT_CAP)
    node.send(controller, "setBaseRate(uint256)", VAI_BASE_RATE)
    node.send(world.vai, "rely(address)", controller)
    succeed(node, world.comptroller, "_setVAIController(address)", controller)
    succeed(node, world.comptroller, "_setVAIMintRate(uint256)", VAI_MINT_RATE)


def add_market(venus: Deployer, world: VenusWorld, symbol: str, listing: Listing) -> VenusMarket:
    """A MockToken and its vToken (a VBep20Delegator over `implementation`), listed and configured."""
    node, comptroller = venus.node, world.comptroller
    underlying = venus.deploy("MockToken", f"Test {symbol}", symbol, listing.decimals)
    vtoken = venus.deploy(
        "VBep20Delegator",
        underlying,
        comptroller,
        world.irm,
        2 * 10 ** (16 + listing.decimals - 8),
        f"Venus {symbol}",
        f"v{symbol}",
        8,
        node.accounts[0],
        world.vtoken_implementation,
        b"",
    )
    node.send(world.oracle, "setDirectPrice(address,uint256)", underlying, listing.price)
    succeed(node, vtoken, "setAccessControlManager(address)", world.acm)
    node.send(vtoken, "setReduceReservesBlockDelta(uint256)", NEVER)
    succeed(node, vtoken, "_setReserveFactor(uint256)", RESERVE_FACTOR)
    succeed(node, comptroller, "_supportMarket(address)", vtoken)
    node.send(comptroller, "setIsBorrowAllowed(uint96,address,bool)", CORE_POOL, vtoken, True)
    succeed(
        node,
        comptroller,
        "setCollateralFactor(address,uint256,uint256)",
        vtoken,
        listing.collateral_factor,
        listing.liquidation_threshold,
    )
    succeed(node, comptroller, "setLiquidationIncentive(address,uint256)", vtoken, LIQUIDATION_INCENTIVE)
    node.send(comptroller, "_setMarketSupplyCaps(address[],uint256[])", [vtoken], [CAP])
    node.send(comptroller, "_setMarketBorrowCaps(address[],uint256[])", [vtoken], [CAP])
    node.send(
        comptroller,
        "_setVenusSpeeds(address[],uint256[],uint256[])",
        [vtoken],
        [listing.supply_speed],
        [listing.borrow_speed],
    )
    return VenusMarket(vtoken, underlying, listing.decimals)


def supply(node: Anvil, world: VenusWorld, symbol: str, amount: int, wallet: str) -> None:
    """`wallet` takes `amount` from the MockToken's faucet, approves the vToken and mints."""
    market = world.markets[symbol]
    node.send(market.underlying, "faucet(uint256)", amount, sender=wallet)
    node.send(market.underlying, "approve(address,uint256)", market.vtoken, 2**256 - 1, sender=wallet)
    succeed(node, market.vtoken, "mint(uint256)", amount, sender=wallet)


def enter(node: Anvil, world: VenusWorld, symbols: list[str], wallet: str) -> None:
    """`wallet` makes its supply of `symbols` collateral (Comptroller.enterMarkets)."""
    vtokens = [world.markets[s].vtoken for s in symbols]
    succeed(node, world.comptroller, "enterMarkets(address[])", vtokens, sender=wallet, codes="uint256[]")


def borrow(node: Anvil, world: VenusWorld, symbol: str, amount: int, wallet: str) -> None:
    succeed(node, world.markets[symbol].vtoken, "borrow(uint256)", amount, sender=wallet)


def open_positions(world: VenusWorld) -> None:
    """Each role's positions, through Venus's own entry points; the VAI mint last, so the markets'
    positions open at the blocks they did before VAI existed."""
    node = world.node
    lender, borrower, saver = (world.wallets[role] for role in ("lender", "borrower", "saver"))
    supply(node, world, "USDT", 1_000_000 * ETHER, lender)
    supply(node, world, "BTCB", 1 * ETHER, borrower)
    supply(node, world, "ETH", 5 * ETHER, borrower)
    enter(node, world, ["BTCB", "ETH"], borrower)
    borrow(node, world, "USDT", 20_000 * ETHER, borrower)
    supply(node, world, "USDT", 10_000 * ETHER, saver)
    succeed(node, world.vai_controller, "mintVAI(uint256)", VAI_MINTED, sender=borrower)
    world.vai_block = node.block_number()


def build(node: Anvil, wallets: dict[str, str] | None = None) -> VenusWorld:
    """`wallets` (lender, borrower, saver, empty) default to anvil accounts 14-17."""
    node.install_multicall(compile_all()["Multicall3"])  # a batch runs its calls in one state: as on BNB Chain
    world = VenusWorld(node)
    world.start_block = node.block_number() + 1
    world.wallets = wallets or dict(zip(("lender", "borrower", "saver", "empty"), node.accounts[14:18]))
    venus = Deployer(node, artifact)
    deploy_comptroller(venus, world)
    world.vtoken_implementation = venus.deploy("VBep20Delegate")
    world.irm = venus.deploy(
        "JumpRateModel", 2 * MANTISSA // 100, MANTISSA // 10, 3 * MANTISSA, MANTISSA * 8 // 10, BLOCKS_PER_YEAR
    )
    world.markets = {symbol: add_market(venus, world, symbol, listing) for symbol, listing in LISTINGS.items()}
    deploy_vai(venus, world)
    node.send(world.oracle, "setDirectPrice(address,uint256)", world.xvs, XVS_USD)  # as BNB Chain's oracle prices XVS
    open_positions(world)
    world.pools = venus_pools_world.build(node, world.xvs, XVS_USD)
    venus_pools_world.open_positions(node, world.pools, world.wallets)
    node.rpc("evm_increaseTime", ELAPSED_SECONDS)
    node.mine(ELAPSED_BLOCKS)
    return world
