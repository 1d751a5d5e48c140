"""Neutrl, Midas, Avantis, Avant, Ethena, Sky, a Spark savings vault and an operator-listed ERC-4626
vault on anvil: ERC-4626 test vaults (three with Ethena-style cooldowns and a silo each, three with a
savings rate) and Midas-style tokens with Chainlink-style feeds, whose exchange rates and prices
change between two blocks a week apart.

The timeline is set block by block: every first state is written by block `then`, at `t_then`;
the next block is a week and a bit later and starts the second state. So for as long as a test
runs, the block a week before the newest is `then`, and the expected APY follows from the two
states and the two blocks' timestamps. A cooldown (StakedUSDeV2's `cooldownShares`: a week) started
in the first state is over when the second starts; one started in the second is still running.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts

WEEK = 7 * 24 * 3600
DECIMALS = {"NUSD": 18, "USDC": 6, "avUSD": 18, "USDe": 18, "USDS": 18, "DAI": 18, "mTBILL": 18, "mBTC": 18}
FEED_DECIMALS = 8
USD_FEEDS = {"USDC": 99_990_000, "USDe": 100_020_000, "USDS": 99_995_000, "DAI": 100_005_000}
"""USD feeds of the test's assets (8 decimals); NUSD and avUSD have none, as on mainnet."""
BTC_USD = 9_000_000_000_000


@dataclass(frozen=True)
class VaultSpec:
    protocol: str
    kind: str
    symbol: str
    decimals: int
    asset: str
    cooldown: bool
    supply: int
    """Shares in existence."""
    assets: tuple[int, int]
    """totalAssets at `then` and now: the exchange rate's growth."""
    rate: tuple[str, int] | None = None
    """Sky: the savings rate the vault names ("ssr" on itself, "dsr" on its Pot) and its value."""


VAULTS = (
    VaultSpec(
        "neutrl",
        "neutrl-snusd",
        "sNUSD",
        18,
        "NUSD",
        True,
        1_000_000 * 10**18,
        (1_050_000 * 10**18, 1_051_000 * 10**18),
    ),
    VaultSpec(
        "avantis",
        "avantis-vault",
        "avUSDC",
        6,
        "USDC",
        False,
        2_000_000 * 10**6,
        (2_560_000 * 10**6, 2_566_100 * 10**6),
    ),
    VaultSpec(
        "avant", "avant-savusd", "savUSD", 18, "avUSD", True, 500_000 * 10**18, (560_000 * 10**18, 560_600 * 10**18)
    ),
    VaultSpec(
        "ethena", "ethena-susde", "sUSDe", 18, "USDe", True, 300_000 * 10**18, (360_000 * 10**18, 360_500 * 10**18)
    ),
    VaultSpec(
        "sky",
        "sky-susds",
        "sUSDS",
        18,
        "USDS",
        False,
        2_000_000 * 10**18,
        (2_100_000 * 10**18, 2_102_000 * 10**18),
        ("ssr", 1_000_000_001_547_125_957_863_212_449),
    ),
    VaultSpec(
        "sky",
        "sky-sdai",
        "sDAI",
        18,
        "DAI",
        False,
        1_000_000 * 10**18,
        (1_150_000 * 10**18, 1_151_000 * 10**18),
        ("dsr", 1_000_000_001_395_766_281_313_196_627),
    ),
    VaultSpec(
        "sparkVaults",
        "spark-vault",
        "spUSDC",
        18,
        "USDC",
        False,
        4_000_000 * 10**18,
        (4_100_000 * 10**6, 4_101_000 * 10**6),
        ("vsr", 1_000_000_001_243_680_656_318_820_312),
    ),
    VaultSpec(
        "erc4626",
        "erc4626-vault",
        "tvUSDC",
        6,
        "USDC",
        False,
        1_000_000 * 10**6,
        (1_020_000 * 10**6, 1_021_000 * 10**6),
    ),
)
COOLDOWNS = (
    ("holder", "neutrl-snusd", 1_234 * 10**18, 1),
    ("holder", "ethena-susde", 250 * 10**18, 2),
    ("cooler", "avant-savusd", 777 * 10**18 + 5, 2),
)
"""(wallet, vault kind, shares the wallet mints and cools down, the state that starts the cooldown)."""
MIDAS = {"mTBILL": ("USD", (103_500_000, 103_580_000)), "mBTC": ("BTC", (100_200_000, 100_230_000))}
"""Symbol -> (feed currency, answers at `then` and now, 8 decimals)."""


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts(
        [CONTRACTS / name for name in ("Multicall3.sol", "TestToken.sol", "TestPriceFeed.sol", "TestShareVault.sol")]
    )


@dataclass
class VaultStyleWorld:
    node: Anvil
    wallets: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    feeds: dict[str, str] = field(default_factory=dict)
    """By symbol: USD feeds of assets, Midas feeds, and "BTC" (BTC/USD)."""
    vaults: dict[str, str] = field(default_factory=dict)
    """By kind."""
    shares: dict[str, dict[str, int]] = field(default_factory=dict)
    """Wallet -> vault kind -> shares."""
    cooldowns: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)
    """Wallet -> vault kind -> (cooldownEnd, underlyingAmount)."""
    midas: dict[str, dict[str, int]] = field(default_factory=dict)
    """Wallet -> Midas symbol -> balance."""
    then: int = 0
    t_then: int = 0
    start_block: int = 0
    """The block of the world's first deployment: its sections' `startBlock`."""

    def addresses_override(self) -> dict[str, Any]:
        sections: dict[str, Any] = {
            spec.protocol: {"apyPeriodDays": 7, "vaults": [], "startBlock": self.start_block} for spec in VAULTS
        }
        for spec in VAULTS:
            sections[spec.protocol]["vaults"].append(
                {"type": spec.kind, "address": self.vaults[spec.kind], "cooldown": spec.cooldown}
                | ({"rate": spec.rate[0]} if spec.rate else {})
            )
        sections["midas"] = {
            "apyPeriodDays": 7,
            "startBlock": self.start_block,
            "tokens": [
                {
                    "type": "midas-token",
                    "symbol": symbol,
                    "token": self.tokens[symbol],
                    "feed": self.feeds[symbol],
                    "currency": currency,
                    "heartbeat": 30 * 24 * 3600,
                }
                for symbol, (currency, _) in MIDAS.items()
            ],
        }
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                **sections,
                "priceFeeds": {
                    self.tokens[s]: {"pair": f"{s}/USD", "feed": self.feeds[s], "heartbeat": 10**9} for s in USD_FEEDS
                },
                "currencyFeeds": {"BTC": {"pair": "BTC/USD", "feed": self.feeds["BTC"], "heartbeat": 10**9}},
            }
        }

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path

    def timestamp(self, block: int | str = "latest") -> int:
        tag = block if isinstance(block, str) else hex(block)
        return int(self.node.rpc("eth_getBlockByNumber", tag, False)["timestamp"], 16)

    def apy(self, then: int | Fraction, now: int | Fraction, block: int) -> float:
        """The growth from `then` to `now` between block `then` and `block`, compounded to a year."""
        return float(Fraction(now) / Fraction(then)) ** (365 * 24 * 3600 / (self.timestamp(block) - self.t_then)) - 1


def build(
    node: Anvil, wallets: dict[str, str] | None = None, listed: Callable[[VaultStyleWorld], None] | None = None
) -> VaultStyleWorld:
    """`wallets` (holder, cooler: a cooldown only, empty) default to anvil accounts 14-16;
    `listed` is called once the tokens are deployed, before the week passes (to pair them in
    pools whose average the week's end can read)."""
    artifacts = compile_all()
    node.install_multicall(artifacts["Multicall3"])
    world = VaultStyleWorld(node)
    world.start_block = node.block_number() + 1
    world.wallets = wallets or dict(zip(("holder", "cooler", "empty"), node.accounts[14:17]))
    for symbol, decimals in DECIMALS.items():
        world.tokens[symbol] = node.deploy(
            artifacts["TestToken"], ["string", "string", "uint8"], [f"Test {symbol}", symbol, decimals]
        )
    if listed is not None:
        listed(world)
    for symbol in (*USD_FEEDS, *MIDAS, "BTC"):
        world.feeds[symbol] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [FEED_DECIMALS])
    for spec in VAULTS:
        world.vaults[spec.kind] = node.deploy(
            artifacts["TestShareVault"],
            ["string", "string", "uint8", "address"],
            [f"Staked {spec.asset}", spec.symbol, spec.decimals, world.tokens[spec.asset]],
        )
        if spec.cooldown:  # StakedUSDeV2 deploys its USDeSilo, where its cooldowns wait
            node.send(world.vaults[spec.kind], "setSilo(address)", node.deploy(artifacts["TestSilo"]))
    pot = node.deploy(artifacts["TestPot"])
    for spec in VAULTS:
        if spec.rate and spec.rate[0] == "vsr":
            node.send(world.vaults[spec.kind], "setVaultSavingsRate(uint256)", spec.rate[1])
        elif spec.rate and spec.rate[0] == "ssr":
            node.send(world.vaults[spec.kind], "setSavingsRate(uint256,address)", spec.rate[1], "0x" + "00" * 20)
        elif spec.rate:
            node.send(pot, "setDsr(uint256)", spec.rate[1])
            node.send(world.vaults[spec.kind], "setSavingsRate(uint256,address)", 0, pot)
    _first_state(world)
    world.then = node.block_number()
    world.t_then = world.timestamp(world.then)
    node.rpc("evm_setNextBlockTimestamp", hex(world.t_then + WEEK + 600))
    _second_state(world)
    for role, kind, _, _ in COOLDOWNS:
        wallet = world.wallets[role]
        end, amount = node.call(world.vaults[kind], "cooldowns(address)", wallet, returns=("uint104", "uint152"))
        world.cooldowns.setdefault(wallet, {})[kind] = (end, amount)
    return world


def _cool_down(world: VaultStyleWorld, state: int) -> None:
    """The state's cooldowns, as a wallet starts one: shares got by ERC-4626's mint, then cooled
    down by StakedUSDeV2's cooldownShares (its balance is as it was; the cooldown holds what they
    were worth)."""
    node = world.node
    for role, kind, shares, started in COOLDOWNS:
        if started != state:
            continue
        wallet, vault = world.wallets[role], world.vaults[kind]
        token = world.tokens[next(spec.asset for spec in VAULTS if spec.kind == kind)]
        supply, held = node.call(vault, "totalSupply()"), node.call(vault, "totalAssets()")
        assets = -(-shares * held // supply)  # what the mint takes: rounded up
        node.send(token, "mint(address,uint256)", wallet, assets)
        node.send(token, "approve(address,uint256)", vault, assets, sender=wallet)
        node.send(vault, "mint(uint256,address)", shares, wallet, sender=wallet)
        node.send(vault, "cooldownShares(uint256)", shares, sender=wallet)


def _first_state(world: VaultStyleWorld) -> None:
    node, holder = world.node, world.wallets["holder"]
    world.shares = {
        holder: {
            "neutrl-snusd": 3_210 * 10**18 + 7,
            "avantis-vault": 15_000 * 10**6 + 3,
            "avant-savusd": 42 * 10**18,
            "ethena-susde": 1_000 * 10**18 + 9,
            "sky-susds": 10_000 * 10**18 + 5,
            "sky-sdai": 3_000 * 10**18,
            "spark-vault": 7_000 * 10**18,
            "erc4626-vault": 5_000 * 10**6 + 1,
        }
    }
    world.midas = {holder: {"mTBILL": 25_000 * 10**18 + 11, "mBTC": 2 * 10**18}}
    for spec in VAULTS:  # ERC-4626's mint into the empty vault (1:1), which emits what mainnet's does
        vault, token = world.vaults[spec.kind], world.tokens[spec.asset]
        for minter, amount in (
            (node.accounts[0], spec.supply - world.shares[holder][spec.kind]),
            (holder, world.shares[holder][spec.kind]),
        ):
            node.send(token, "mint(address,uint256)", minter, amount)
            node.send(token, "approve(address,uint256)", vault, amount, sender=minter)
            node.send(vault, "mint(uint256,address)", amount, minter, sender=minter)
    _cool_down(world, 1)  # at 1:1: each cooldown holds its shares' count
    for spec in VAULTS:
        node.send(world.vaults[spec.kind], "setTotalAssets(uint256)", spec.assets[0])
    for symbol, amount in world.midas[holder].items():
        node.send(world.tokens[symbol], "mint(address,uint256)", holder, amount)
    now = world.timestamp()
    for symbol, (_, answers) in MIDAS.items():
        node.send(world.feeds[symbol], "set(int256,uint256)", answers[0], now)
    for symbol, answer in (*USD_FEEDS.items(), ("BTC", BTC_USD)):
        node.send(world.feeds[symbol], "set(int256,uint256)", answer, now)


def _second_state(world: VaultStyleWorld) -> None:
    node = world.node
    _cool_down(world, 2)  # at the first state's rate, which the totals below then move on from
    for spec in VAULTS:
        node.send(world.vaults[spec.kind], "setTotalAssets(uint256)", spec.assets[1])
    now = world.timestamp()
    for symbol, (_, answers) in MIDAS.items():
        node.send(world.feeds[symbol], "set(int256,uint256)", answers[1], now)
    for symbol, answer in (*USD_FEEDS.items(), ("BTC", BTC_USD)):
        node.send(world.feeds[symbol], "set(int256,uint256)", answer, now)
