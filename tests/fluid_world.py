"""Fluid on anvil: a LendingResolver and a VaultResolver that answer exactly the calls the adapter
makes, with return data encoded (by eth-abi) in the layouts of Fluid's deployed ABIs, recorded
in tests/fluid_abi.json from Fluid's deployment records (no registry package ships Fluid's
contracts or ABIs). The tokens and USD feeds are real test contracts.

A lender holds fUSDC (not fWETH); a borrower holds six vault NFTs: two in one standard WETH/USDC
vault (one partly liquidated: its branch, which the vault answers through `fetchLatestPosition`,
is 0.2836 of the way up its minima tick, one tick above the vault's liquidation tick), one in a
native-ETH/USDC vault (its collateral named by NATIVE, as Fluid's ETH vaults name it), one in a
smart-collateral vault that charges its suppliers, one in a smart-debt vault that pays its
borrowers, one in a vault whose both sides are smart. The vaults are canned contracts too.

The tick math is that of the vault's published source (Instadapp/fluid-contracts-public):
ratioX96 = 1.0015^tick x 2^96 (libraries/tickMath.sol, `getTickAtRatio` rounding down); a
liquidated branch's ratio and the liquidation tick as `fetchLatestPosition` and `_liquidate`
compute them (protocols/vault/vaultTypesCommon/coreModule).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import eth_abi

from tests.evm import CONTRACTS, Anvil, Artifact, arg_types, compile_contracts, selector

ABI = json.loads(Path(__file__).with_name("fluid_abi.json").read_text())["functions"]
LENDING = "getUserPositions(address)"
VAULTS = "positionsByUser(address)"
PRICES = {"USDC": 100_010_000, "WETH": 3_000 * 10**8}
DECIMALS = {"USDC": 6, "WETH": 18, "wstETH": 18, "USDT": 6}
ZERO = "0x" + "00" * 20
NATIVE = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
"""The address Fluid gives native ETH (a vault's supply token, e.g. vault 54, ETH/GHO, on mainnet)."""
T1, T2, T3, T4 = 10_000, 20_000, 30_000, 40_000
X30 = 2**30 - 1
FETCH_LATEST_POSITION = "fetchLatestPosition(int256,uint256,uint256,uint256)"


def ratio_at_tick(tick: int) -> int:
    """ratioX96 = 1.0015^tick x 2^96 (debt / collateral), TickMath's definition, rounded down."""
    return math.floor(Fraction(10_015, 10_000) ** tick * 2**96)


def tick_at_ratio(ratio: int) -> int:
    """The largest tick whose ratio is at most `ratio`: `TickMath.getTickAtRatio` rounds down."""
    tick = math.floor(math.log(ratio / 2**96, 1.0015))
    while ratio_at_tick(tick + 1) <= ratio:
        tick += 1
    while ratio_at_tick(tick) > ratio:
        tick -= 1
    return tick


def partial_ratio(tick: int, partials: int) -> int:
    """A liquidated branch's ratio, `partials` / X30 of the way from tick - 1 up to `tick`, as
    `fetchLatestPosition` computes a liquidated position's collateral with it."""
    ratio = ratio_at_tick(tick)
    one_less = ratio * 10_000 // 10_015
    return one_less + (ratio - one_less) * partials // X30


def liquidation_tick(price_liquidate: int, liquidation_threshold: int) -> int:
    """The tick `_liquidate` liquidates down to: the oracle's debt per collateral (1e27; the
    world's exchange prices are all 1e12, so raw amounts are the resolver's) x 2^96 / 1e27 x the
    threshold (the vault keeps 3 decimals, the resolver gives 4), its tick rounded down."""
    return tick_at_ratio(price_liquidate * 2**96 // 10**27 * (liquidation_threshold // 10) // 1000)


@dataclass
class Branch:
    """A liquidated NFT's branch as the vault keeps it (branchData): liquidated (status 1), its
    minima tick and the partials of it."""

    tick: int
    partials: int

    def data(self) -> int:
        return 1 | (self.tick > 0) << 2 | abs(self.tick) << 3 | self.partials << 22


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts(
        [CONTRACTS / name for name in ("Multicall3.sol", "TestToken.sol", "TestPriceFeed.sol", "TestCannedCalls.sol")]
    )


@dataclass
class Vault:
    """What the test says about one vault: enough for VaultEntireData and for the expected figures."""

    address: str
    smart_col: bool
    smart_debt: bool
    supply_tokens: tuple[str, str]
    borrow_tokens: tuple[str, str]
    collateral_factor: int
    liquidation_threshold: int
    price_operate: int
    price_liquidate: int
    supply_rate: int
    borrow_rate: int
    total_supply: int = 0
    total_borrow: int = 0

    def entire_data(self) -> tuple[Any, ...]:
        vault_type = {(False, False): T1, (True, False): T2, (False, True): T3, (True, True): T4}[
            (self.smart_col, self.smart_debt)
        ]
        constants = (ZERO,) * 8 + (self.supply_tokens, self.borrow_tokens, 7, vault_type) + (b"\0" * 32,) * 4
        configs = (
            10_000,
            10_000,
            self.collateral_factor,
            self.liquidation_threshold,
            9_500,
            0,
            100,
            0,
            ZERO,
            self.price_operate,
            self.price_liquidate,
            ZERO,
            0,
        )
        rates = (10**12,) * 8 + (300, 500, self.supply_rate, self.borrow_rate, 0, 0)
        state = (5, -10, 1, 1, 0, 0, (0, 0, 0, 0, 0, 0, 0))
        supply_data = (True,) + (0,) * 10
        totals = (self.total_supply, self.total_borrow, self.total_supply, self.total_borrow, 0, 0)
        limits = (0, 0, self.total_supply // 4, 0, 0, self.total_borrow // 5, 0, 0)
        return (
            self.address,
            self.smart_col,
            self.smart_debt,
            constants,
            configs,
            rates,
            totals,
            limits,
            state,
            supply_data,
            supply_data,
        )


@dataclass
class Position:
    nft_id: int
    owner: str
    vault: Vault
    supply: int
    borrow: int
    liquidated: bool = False
    dust: int = 3
    """The dust debt the tick's rounding adds (raw units), which the vault's own test counts."""
    branch: Branch | None = None
    """A liquidated NFT's branch: the resolver's tick is its minima tick."""
    opened_at: int = -5
    """The tick its positionData keeps, where the NFT was last operated."""

    def user_position(self) -> tuple[Any, ...]:
        return (
            self.nft_id,
            self.owner,
            self.liquidated,
            self.borrow == 0,
            self.branch.tick if self.branch else self.opened_at,
            1,
            self.supply + 1,
            self.borrow + 2,
            3,
            self.supply,
            self.borrow,
            self.dust if self.borrow else 0,
        )


@dataclass
class FToken:
    address: str
    asset: str
    name: str
    symbol: str
    decimals: int
    supply_rate: int
    rewards_rate: int

    def details(self) -> tuple[Any, ...]:
        return (
            self.address,
            True,
            False,
            self.name,
            self.symbol,
            self.decimals,
            self.asset,
            10**15,
            10**15,
            10**6,
            10**6,
            self.rewards_rate,
            self.supply_rate,
            -4,
            (True,) + (0,) * 10,
        )


@dataclass
class FluidWorld:
    node: Anvil
    tokens: dict[str, str] = field(default_factory=dict)
    feeds: dict[str, str] = field(default_factory=dict)
    lending_resolver: str = ""
    vault_resolver: str = ""
    ftokens: list[FToken] = field(default_factory=list)
    holdings: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)
    """Wallet -> fToken -> (shares, underlying amount)."""
    positions: list[Position] = field(default_factory=list)
    vaults: list[Vault] = field(default_factory=list)
    wallets: dict[str, str] = field(default_factory=dict)
    start_block: int = 0
    """The block of the world's first deployment: its sections' `startBlock`."""

    def addresses_override(self) -> dict[str, Any]:
        feeds = {self.tokens[s]: {"pair": f"{s}/USD", "feed": self.feeds[s], "heartbeat": 10**9} for s in PRICES}
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                "priceFeeds": feeds,
                "currencyFeeds": {"ETH": feeds[self.tokens["WETH"]] | {"pair": "ETH/USD"}},
                "fluid": {
                    "lendingResolver": self.lending_resolver,
                    "vaultResolver": self.vault_resolver,
                    "startBlock": self.start_block,
                },
            }
        }

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path

    def answer(
        self, contract: str, signature: str, arguments: tuple[Any, ...], values: tuple[Any, ...], at: str = ""
    ) -> None:
        """`contract` (a resolver, or the Vault `at`) answers `signature(*arguments)` with `values`
        in the deployed layout."""
        call = selector(signature) + eth_abi.encode(arg_types(signature), list(arguments))
        self.node.send(
            at or self._resolver(contract), "setAnswer(bytes,bytes)", call, self._encoded(contract, signature, values)
        )

    def refuse(self, resolver: str, signature: str, argument: str) -> None:
        """The resolver reverts on `signature(argument)`: a contract's failure."""
        self.node.send(
            self._resolver(resolver), "refuse(bytes)", selector(signature) + eth_abi.encode(["address"], [argument])
        )

    def answer_anyone(self, resolver: str, signature: str, values: tuple[Any, ...]) -> None:
        """The resolver answers `signature` with `values` for any argument it was not given."""
        self.node.send(
            self._resolver(resolver),
            "setDefault(bytes4,bytes)",
            selector(signature),
            self._encoded(resolver, signature, values),
        )

    def _resolver(self, name: str) -> str:
        return self.lending_resolver if name == "LendingResolver" else self.vault_resolver

    @staticmethod
    def _encoded(resolver: str, signature: str, values: tuple[Any, ...]) -> bytes:
        return eth_abi.encode(ABI[resolver][signature]["outputs"], list(values))

    def publish(self, wallet: str) -> None:
        """What the two resolvers answer for `wallet`: every fToken, and the wallet's NFTs."""
        held = self.holdings.get(wallet, {})
        self.answer(
            "LendingResolver",
            LENDING,
            (wallet,),
            ([(ftoken.details(), (*held.get(ftoken.address, (0, 0)), 0, 0)) for ftoken in self.ftokens],),
        )
        mine = [position for position in self.positions if position.owner == wallet]
        answer = ([p.user_position() for p in mine], [p.vault.entire_data() for p in mine])
        self.answer("VaultResolver", VAULTS, (wallet,), answer)
        for position in mine:
            if position.branch:
                self.publish_branch(position)

    def publish_branch(self, position: Position) -> None:
        """The reads of a liquidated NFT's branch: its positionData (tick sign at bit 1, |tick| at
        bits 2-20, tick id 1 at 21-44), its tick's data (liquidated, in branch 1), and the vault's
        `fetchLatestPosition` of them, whose debt argument the resolver's answer makes moot."""
        assert position.branch is not None
        vault, tick = position.vault.address, position.opened_at
        data = (tick > 0) << 1 | abs(tick) << 2 | 1 << 21
        tick_data = 1 | 1 << 1 | 1 << 26
        self.answer("VaultResolver", "getPositionDataRaw(address,uint256)", (vault, position.nft_id), (data,))
        self.answer("VaultResolver", "getTickDataRaw(address,int256)", (vault, tick), (tick_data,))
        latest = (position.branch.tick, position.borrow + position.dust, position.supply, 1, position.branch.data())
        self.answer("Vault", FETCH_LATEST_POSITION, (tick, 1, 0, tick_data), latest, at=vault)

    def publish_anyone(self) -> None:
        """What the resolvers answer for a wallet nobody set up, as Fluid's do: every fToken with
        nothing held, and no NFT."""
        self.answer_anyone("LendingResolver", LENDING, ([(f.details(), (0, 0, 0, 0)) for f in self.ftokens],))
        self.answer_anyone("VaultResolver", VAULTS, ([], []))

    def publish_pools(self, vaults: list[Vault]) -> None:
        """What the resolvers answer about the pools themselves: the lists, and each one's data."""
        self.answer("LendingResolver", "getAllFTokens()", (), ([f.address for f in self.ftokens],))
        self.answer("VaultResolver", "getAllVaultsAddresses()", (), ([v.address for v in vaults],))
        for ftoken in self.ftokens:
            self.answer("LendingResolver", "getFTokenDetails(address)", (ftoken.address,), (ftoken.details(),))
        for vault in vaults:
            self.answer("VaultResolver", "getVaultEntireData(address)", (vault.address,), (vault.entire_data(),))
        self.vaults = vaults


def build(node: Anvil, wallets: dict[str, str] | None = None) -> FluidWorld:
    """`wallets` (lender, borrower, empty) default to anvil accounts 11-13."""
    artifacts = compile_all()
    node.install_multicall(artifacts["Multicall3"])
    world = FluidWorld(node)
    world.start_block = node.block_number() + 1
    world.wallets = wallets or dict(zip(("lender", "borrower", "empty"), node.accounts[11:14]))
    now = int(node.rpc("eth_getBlockByNumber", "latest", False)["timestamp"], 16)
    for symbol, decimals in DECIMALS.items():
        world.tokens[symbol] = node.deploy(
            artifacts["TestToken"], ["string", "string", "uint8"], [f"Test {symbol}", symbol, decimals]
        )
    for symbol, answer in PRICES.items():
        world.feeds[symbol] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
        node.send(world.feeds[symbol], "set(int256,uint256)", answer, now)
    world.lending_resolver = node.deploy(artifacts["TestCannedCalls"])
    world.vault_resolver = node.deploy(artifacts["TestCannedCalls"])
    usdc, weth, wsteth, usdt = (world.tokens[s] for s in ("USDC", "WETH", "wstETH", "USDT"))
    f_usdc, f_weth = (
        node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], [f"Fluid {s}", f"f{s}", d])
        for s, d in (("USDC", 6), ("WETH", 18))
    )
    world.ftokens = [
        FToken(f_usdc, usdc, "Fluid USDC", "fUSDC", 6, 412, 5 * 10**11),
        FToken(f_weth, weth, "Fluid WETH", "fWETH", 18, 190, 0),
    ]
    lender, borrower = world.wallets["lender"], world.wallets["borrower"]
    world.holdings = {lender: {f_usdc: (950 * 10**6 + 17, 1_001 * 10**6 + 23)}}
    standard = Vault(
        node.deploy(artifacts["TestCannedCalls"]),
        False,
        False,
        (weth, ZERO),
        (usdc, ZERO),
        8_000,
        8_500,
        3 * 10**18,
        299 * 10**16,
        250,
        480,
    )
    native = Vault(
        node.deploy(artifacts["TestCannedCalls"]),
        False,
        False,
        (NATIVE, ZERO),
        (usdc, ZERO),
        8_500,
        9_000,
        3 * 10**18,
        299 * 10**16,
        230,
        450,
    )
    smart_col = Vault(
        node.deploy(artifacts["TestCannedCalls"]),
        True,
        False,
        (wsteth, weth),
        (weth, ZERO),
        9_000,
        9_300,
        21 * 10**26,
        2_095 * 10**24,
        -35,
        300,
    )
    smart_debt = Vault(
        node.deploy(artifacts["TestCannedCalls"]),
        False,
        True,
        (weth, ZERO),
        (usdc, usdt),
        8_200,
        8_700,
        2_900 * 10**27,
        2_890 * 10**27,
        200,
        -120,
    )
    smart_both = Vault(
        node.deploy(artifacts["TestCannedCalls"]),
        True,
        True,
        (wsteth, weth),
        (usdc, usdt),
        8_800,
        9_100,
        3_000 * 10**27,
        2_990 * 10**27,
        -10,
        -50,
    )
    # One tick above the vault's liquidation tick, 0.2836 of the way up it (a partial measured on
    # Fluid's real vault): its debt at that ratio (2,540 USDC with the dust) and, as
    # `fetchLatestPosition` gives it, its collateral.
    branch = Branch(liquidation_tick(standard.price_liquidate, standard.liquidation_threshold) + 1, 304_513_181)
    debt = 2_540 * 10**6
    world.positions = [
        Position(11, borrower, standard, 2 * 10**18, 3_000 * 10**6),
        Position(
            12,
            borrower,
            standard,
            debt * 2**96 // partial_ratio(branch.tick, branch.partials),
            debt - 3,
            liquidated=True,
            branch=branch,
            opened_at=branch.tick + 40,
        ),
        Position(13, borrower, native, 7 * 10**18, 9_000 * 10**6),
        Position(40, borrower, smart_col, 5 * 10**18, 10**18),
        Position(41, borrower, smart_debt, 10**18, 1_000 * 10**18),
        Position(42, borrower, smart_both, 3 * 10**18, 0),
    ]
    standard.total_supply, standard.total_borrow = 120 * 10**18, 250_000 * 10**6
    smart_col.total_supply, smart_col.total_borrow = 900 * 10**18, 400 * 10**18
    native.total_supply, native.total_borrow = 50 * 10**18, 60_000 * 10**6
    for wallet in world.wallets.values():
        world.publish(wallet)
    world.publish_anyone()
    world.publish_pools([standard, smart_col, smart_debt, smart_both, native])
    return world
