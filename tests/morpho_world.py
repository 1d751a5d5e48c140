"""A Morpho deployment on anvil: the real Morpho Blue from its npm package, tokens, oracle, IRM,
two markets with lenders and borrowers, V1 and V2 test vaults, price feeds, and time advanced so
that interest is owed but not yet accrued in storage. Used by the tests and by scripts/devnet.py.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import eth_abi
from eth_hash.auto import keccak

from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts

WAD = 10**18
USDC = 10**6
ETHER = 10**18
LLTV_A = 860_000_000_000_000_000
LLTV_B = 945_000_000_000_000_000
MARKET_FEE = 100_000_000_000_000_000
V1_FEE = 150_000_000_000_000_000
V2_PERFORMANCE_FEE = 50_000_000_000_000_000
V2_MANAGEMENT_FEE = 10**16 // (365 * 24 * 3600)
ORACLE_PRICE = 3000 * 10**36 * USDC // ETHER
"""1 WETH = 3000 USDC in Morpho's oracle scale (1e36 x loan decimals / collateral decimals)."""
USDC_USD = 100_010_000
"""The USDC/USD feed answer: 1.0001 USD, 8 decimals."""
ELAPSED = 30 * 24 * 3600
V1_CAPS = (5_000_000 * USDC, 1_000_000 * USDC)
"""The V1 vaults' supply caps in markets A and B."""
V2_CAPS = ((30_000 * USDC, 8 * 10**17), (2**256 - 1, 10**18))
"""The V2 vault's (absolute, relative) caps on its market adapter and its V1-vault adapter."""
CURATOR = "0x00000000000000000000000000000000c0a7e200"
GUARDIAN = "0x000000000000000000000000000000009ad1a200"

PACKAGES = (
    "@morpho-org/morpho-blue/src/Morpho.sol",
    "@morpho-org/morpho-blue/src/mocks/IrmMock.sol",
    "@morpho-org/morpho-blue/src/mocks/OracleMock.sol",
)
SOURCES = (
    "Multicall3.sol",
    "TestToken.sol",
    "TestPriceFeed.sol",
    "TestVaultFactory.sol",
    "TestVaults.sol",
    "TestHostile.sol",
)


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts([CONTRACTS / name for name in SOURCES], PACKAGES, optimize_runs=999_999)


@dataclass
class MorphoWorld:
    node: Anvil
    morpho: str = ""
    irm: str = ""
    oracle: str = ""
    usdc: str = ""
    weth: str = ""
    usdc_feed: str = ""
    factory: str = ""
    lens: str = ""
    market_a: tuple[Any, ...] = ()
    market_b: tuple[Any, ...] = ()
    vault_v1: str = ""
    broken_vault: str = ""
    vault_v2: str = ""
    market_adapter: str = ""
    vault_adapter: str = ""
    wallets: dict[str, str] = field(default_factory=dict)
    start_block: int = 0
    """The block Morpho Blue was deployed at: the index scans from there."""
    hostile: dict[str, Any] = field(default_factory=dict)
    """The misbehaving contracts, once add_hostile_parts has deployed them."""

    def addresses_override(self, sequencer_feed: str | None = None) -> dict[str, Any]:
        """The ADDRESSES_FILE content that points the service at this deployment."""
        extra = {"sequencerUptimeFeed": sequencer_feed} if sequencer_feed else {}
        return {
            str(self.node.chain_id): {
                **extra,
                "name": "anvil devnet",
                "morpho": {
                    "blue": {"address": self.morpho, "startBlock": self.start_block},
                    "vaultV1Factories": [{"address": self.factory, "startBlock": self.start_block}],
                    "vaultV2Factories": [{"address": self.factory, "startBlock": self.start_block}],
                },
                "priceFeeds": {self.usdc: {"pair": "USDC/USD", "feed": self.usdc_feed, "heartbeat": 86400}},
            }
        }

    def write_addresses(self, path: Path, sequencer_feed: str | None = None) -> Path:
        path.write_text(json.dumps(self.addresses_override(sequencer_feed), indent=2))
        return path

    def timestamp(self, block: int | str = "latest") -> int:
        tag = hex(block) if isinstance(block, int) else block
        return int(self.node.rpc("eth_getBlockByNumber", tag, False)["timestamp"], 16)

    def set_feed(self, answer: int, age: int = 0) -> None:
        """Set the USDC/USD answer, updated `age` seconds before the next block."""
        self.node.send(self.usdc_feed, "set(int256,uint256)", answer, self.timestamp() - age)


def demo_wallets(node: Anvil) -> dict[str, str]:
    """The demo wallets by role: anvil accounts 1-6 (account 0 deploys)."""
    return dict(zip(("lender", "borrower", "depositor", "saver", "empty", "borrower_b"), node.accounts[1:7]))


def build(node: Anvil, artifacts: dict[str, Artifact]) -> MorphoWorld:
    world = MorphoWorld(node)
    owner = node.accounts[0]
    world.wallets = demo_wallets(node)
    lender, borrower, depositor, saver, borrower_b = (
        world.wallets[role] for role in ("lender", "borrower", "depositor", "saver", "borrower_b")
    )
    node.install_multicall(artifacts["Multicall3"])
    world.morpho = node.deploy(artifacts["Morpho"], ["address"], [owner])
    world.start_block = node.block_number()
    world.irm = node.deploy(artifacts["IrmMock"])
    world.oracle = node.deploy(artifacts["OracleMock"])
    world.usdc = node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], ["USD Coin", "USDC", 6])
    world.weth = node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], ["Wrapped Ether", "WETH", 18])
    world.usdc_feed = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
    world.factory = node.deploy(artifacts["TestVaultFactory"])
    world.lens = node.deploy(artifacts["TestLens"])
    node.send(world.oracle, "setPrice(uint256)", ORACLE_PRICE)
    node.send(world.morpho, "enableIrm(address)", world.irm)
    for lltv in (LLTV_A, LLTV_B):
        node.send(world.morpho, "enableLltv(uint256)", lltv)
    world.market_a = (world.usdc, world.weth, world.oracle, world.irm, LLTV_A)
    world.market_b = (world.usdc, world.weth, world.oracle, world.irm, LLTV_B)
    params = "(address,address,address,address,uint256)"
    for market in (world.market_a, world.market_b):
        node.send(world.morpho, f"createMarket({params})", market)
    node.send(world.morpho, "setFeeRecipient(address)", owner)
    node.send(world.morpho, f"setFee({params},uint256)", world.market_a, MARKET_FEE)

    for wallet in (lender, depositor, saver):
        _fund(world, world.usdc, wallet, 10_000_000 * USDC)
    for wallet in (borrower, borrower_b):
        _fund(world, world.weth, wallet, 1_000 * ETHER)
    supply = f"supply({params},uint256,uint256,address,bytes)"
    node.send(world.morpho, supply, world.market_a, 1_000_000 * USDC, 0, lender, b"", sender=lender)
    node.send(world.morpho, supply, world.market_b, 200_000 * USDC, 0, lender, b"", sender=lender)
    collateral = f"supplyCollateral({params},uint256,address,bytes)"
    borrow = f"borrow({params},uint256,uint256,address,address)"
    node.send(world.morpho, collateral, world.market_a, 100 * ETHER, borrower, b"", sender=borrower)
    node.send(world.morpho, borrow, world.market_a, 150_000 * USDC, 0, borrower, borrower, sender=borrower)
    node.send(world.morpho, collateral, world.market_b, 100 * ETHER, borrower_b, b"", sender=borrower_b)
    node.send(world.morpho, borrow, world.market_b, 120_000 * USDC, 0, borrower_b, borrower_b, sender=borrower_b)

    world.vault_v1 = node.deploy(
        artifacts["TestVaultV1"],
        ["address", "address", "string", "string", "uint96"],
        [world.morpho, world.usdc, "Test USDC Vault", "tvUSDC", V1_FEE],
    )
    world.broken_vault = node.deploy(
        artifacts["TestVaultV1"],
        ["address", "address", "string", "string", "uint96"],
        [world.morpho, world.usdc, "Broken Vault", "bvUSDC", 0],
    )
    for vault in (world.vault_v1, world.broken_vault):
        for market, cap in zip((world.market_a, world.market_b), V1_CAPS):
            node.send(vault, f"addMarket({params},uint184)", market, cap)
        node.send(world.usdc, "approve(address,uint256)", vault, 2**256 - 1, sender=depositor)
        node.send(world.factory, "announceV1(address,address,string,string)", vault, world.usdc, "v", "v")
    deposit = "deposit(uint256,address,uint256)"
    node.send(world.vault_v1, deposit, 50_000 * USDC, depositor, 0, sender=depositor)
    node.send(world.vault_v1, deposit, 20_000 * USDC, depositor, 1, sender=depositor)
    node.send(world.broken_vault, deposit, 1_000 * USDC, depositor, 0, sender=depositor)
    node.send(world.broken_vault, "setBroken(bool)", True)

    world.vault_v2 = node.deploy(
        artifacts["TestVaultV2"],
        ["address", "string", "string", "uint96", "uint96"],
        [world.usdc, "Test USDC Vault V2", "tv2USDC", V2_PERFORMANCE_FEE, V2_MANAGEMENT_FEE],
    )
    world.market_adapter = node.deploy(
        artifacts["TestMarketAdapter"], ["address", "address"], [world.morpho, world.vault_v2]
    )
    world.vault_adapter = node.deploy(artifacts["TestVaultV1Adapter"], ["address"], [world.vault_v1])
    for adapter, (absolute, relative) in zip((world.market_adapter, world.vault_adapter), V2_CAPS):
        node.send(world.vault_v2, "addAdapter(address)", adapter)
        node.send(world.vault_v2, "setCaps(address,uint256,uint256)", adapter, absolute, relative)
    node.send(world.vault_v1, "setRoles(address,address)", CURATOR, GUARDIAN)
    node.send(world.vault_v2, "setCurator(address)", CURATOR)
    node.send(world.vault_v2, "setLiquidityAdapter(address)", world.market_adapter)
    node.send(world.factory, "announceV2(address,address)", world.vault_v2, world.usdc)
    node.send(world.usdc, "approve(address,uint256)", world.vault_v2, 2**256 - 1, sender=saver)
    node.send(world.vault_v2, "deposit(uint256,address)", 40_000 * USDC, saver, sender=saver)
    node.send(
        world.vault_v2,
        f"allocateToMarket(address,{params},uint256)",
        world.market_adapter,
        world.market_a,
        15_000 * USDC,
    )
    node.send(
        world.vault_v2,
        f"allocateToMarket(address,{params},uint256)",
        world.market_adapter,
        world.market_b,
        5_000 * USDC,
    )
    node.send(world.vault_v2, "allocateToVault(address,uint256,uint256)", world.vault_adapter, 12_000 * USDC, 1)

    node.rpc("evm_increaseTime", ELAPSED)
    node.mine(200)
    world.set_feed(USDC_USD)
    return world


def borrow_against(world: MorphoWorld, market: tuple[Any, ...], borrower: str, collateral: int, borrowed: int) -> None:
    """`borrower` supplies `collateral` to `market` and borrows `borrowed` against it, itself."""
    params = "(address,address,address,address,uint256)"
    node = world.node
    node.send(
        world.morpho,
        f"supplyCollateral({params},uint256,address,bytes)",
        market,
        collateral,
        borrower,
        b"",
        sender=borrower,
    )
    node.send(
        world.morpho,
        f"borrow({params},uint256,uint256,address,address)",
        market,
        borrowed,
        0,
        borrower,
        borrower,
        sender=borrower,
    )


def _fund(world: MorphoWorld, token: str, wallet: str, amount: int) -> None:
    world.node.send(token, "mint(address,uint256)", wallet, amount)
    world.node.send(token, "approve(address,uint256)", world.morpho, 2**256 - 1, sender=wallet)


def add_hostile_parts(world: MorphoWorld, artifacts: dict[str, Artifact]) -> dict[str, Any]:
    """Contracts that misbehave, wired to the demo wallets: a market whose IRM view reverts, a
    market whose oracle is a return bomb (collateral supplied on the borrower's behalf, as anyone
    may), and a V2 look-alike vault claiming 2**255 adapters."""
    node = world.node
    lender, borrower = world.wallets["lender"], world.wallets["borrower"]
    params = "(address,address,address,address,uint256)"
    flaky_irm = node.deploy(artifacts["FlakyIrm"])
    bomb = node.deploy(artifacts["BombOracle"])
    node.send(world.morpho, "enableIrm(address)", flaky_irm)
    flaky = (world.usdc, world.weth, world.oracle, flaky_irm, LLTV_A)
    bombed = (world.usdc, world.weth, bomb, world.irm, LLTV_A)
    for market in (flaky, bombed):
        node.send(world.morpho, f"createMarket({params})", market)
    _fund(world, world.weth, lender, 10 * ETHER)
    node.send(
        world.morpho,
        f"supply({params},uint256,uint256,address,bytes)",
        flaky,
        10_000 * USDC,
        0,
        lender,
        b"",
        sender=lender,
    )
    node.send(
        world.morpho, f"supplyCollateral({params},uint256,address,bytes)", flaky, ETHER, lender, b"", sender=lender
    )
    node.send(
        world.morpho,
        f"borrow({params},uint256,uint256,address,address)",
        flaky,
        1_000 * USDC,
        0,
        lender,
        lender,
        sender=lender,
    )
    node.send(
        world.morpho,
        f"supplyCollateral({params},uint256,address,bytes)",
        bombed,
        1,
        borrower,
        b"",
        sender=world.wallets["borrower_b"],
    )
    hostile_vault = node.deploy(artifacts["HostileVaultV2"], ["address"], [world.usdc])
    node.send(world.factory, "announceV2(address,address)", hostile_vault, world.usdc)
    node.send(hostile_vault, "announce(address)", world.wallets["saver"])
    node.rpc("evm_increaseTime", 3600)
    node.mine()
    world.set_feed(USDC_USD)
    world.hostile = {"flaky": flaky, "bombed": bombed, "hostile_vault": hostile_vault}
    return world.hostile


def market_id(params: tuple[Any, ...]) -> str:
    """A market's id: keccak256 of its ABI-encoded MarketParams (Morpho Blue's MarketParamsLib)."""
    return "0x" + keccak(eth_abi.encode(["(address,address,address,address,uint256)"], [params])).hex()
