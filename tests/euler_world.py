"""Euler v2 on anvil: the EVC, two EVK vaults (USDC with a linear-kink IRM, WETH as its
collateral), an oracle router in USD and the eVault factory's events, as test contracts with the
signatures and arithmetic of Euler's own (tests/contracts/TestEuler.sol: no package ships Euler
v2's bytecode). An owner whose sub-account 1 borrows USDC against WETH, whose sub-account 2 lends
USDC, and who lends a little USDC itself; USD feeds for both assets.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import eth_abi

from tests.evm import CONTRACTS, Anvil, Artifact, arg_types, compile_contracts, selector

USD = "0x" + (840).to_bytes(20, "big").hex()
YEAR = 31_556_952
USDC, ETHER = 10**6, 10**18
KINK = int(Decimal("0.8") * (2**32 - 1))
PRICES = {"USDC": 10**18, "WETH": 3_000 * 10**18}
"""The oracle router's prices, USD (18 decimals) per whole token."""
LTV = (8_000, 8_500)
"""WETH as collateral of the USDC vault: borrow and liquidation LTV."""
SUPPLIED = {"owner": 1_000 * USDC, "lender": 50_000 * USDC}
COLLATERAL, BORROWED = 10 * ETHER, 20_000 * USDC


def sub_account(owner: str, index: int) -> str:
    return f"0x{int(owner, 16) ^ index:040x}"


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts(
        [
            CONTRACTS / "TestEuler.sol",
            CONTRACTS / "TestEulerFactory.sol",
            CONTRACTS / "TestToken.sol",
            CONTRACTS / "TestPriceFeed.sol",
        ]
    )


@dataclass
class EulerWorld:
    node: Anvil
    owner: str = ""
    start_block: int = 0
    contracts: dict[str, str] = field(default_factory=dict)
    """evc, factory, oracle, irm, and by asset symbol its token, its vault ("eUSDC") and its feed ("USDC/USD")."""

    def addresses_override(self) -> dict[str, Any]:
        """The `euler` section of a chain's addresses."""
        factory = {"address": self.contracts["factory"], "startBlock": self.start_block}
        return {"evc": self.contracts["evc"], "eVaultFactory": factory}

    def feeds(self) -> dict[str, Any]:
        """The assets' USD feeds, a chain's `priceFeeds` entries."""
        return {
            self.contracts[symbol]: {
                "pair": f"{symbol}/USD",
                "feed": self.contracts[f"{symbol}/USD"],
                "heartbeat": 10**9,
            }
            for symbol in PRICES
        }

    def write_addresses(self, path: Path) -> Path:
        chain = {"name": "anvil devnet", "euler": self.addresses_override(), "priceFeeds": self.feeds()}
        path.write_text(json.dumps({str(self.node.chain_id): chain}))
        return path

    def sub(self, index: int) -> str:
        return sub_account(self.owner, index)


def build(node: Anvil, owner: str | None = None, elapse: int = YEAR) -> EulerWorld:
    """`owner` defaults to anvil account 18; `elapse` seconds pass after the borrow (none among
    the other worlds, whose feeds and maturities keep their own time)."""
    artifacts = compile_all()
    world = EulerWorld(node, (owner or node.accounts[18]).lower())
    made = world.contracts
    world.start_block = node.block_number()
    made["factory"] = node.deploy(artifacts["TestEulerFactory"])
    made["evc"] = node.deploy(artifacts["TestEVC"])
    made["oracle"] = node.deploy(artifacts["TestEulerOracle"], ["address"], [USD])
    one, rate_at_kink = 10**27, int(((1 + Decimal("0.04")) ** (Decimal(1) / YEAR) - 1) * 10**27)
    slope1 = rate_at_kink // KINK
    slope2 = (int(((1 + Decimal(1)) ** (Decimal(1) / YEAR) - 1) * one) - slope1 * KINK) // (2**32 - 1 - KINK)
    made["irm"] = node.deploy(
        artifacts["TestIRMLinearKink"], ["uint256", "uint256", "uint256", "uint32"], [0, slope1, slope2, KINK]
    )
    for symbol, decimals in (("USDC", 6), ("WETH", 18)):
        made[symbol] = node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], [symbol, symbol, decimals])
        made[f"{symbol}/USD"] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
        node.send(made[f"{symbol}/USD"], "set(int256,uint256)", PRICES[symbol] // 10**10, node.timestamp())
        node.send(made["oracle"], "setPrice(address,uint256)", made[symbol], PRICES[symbol])
        vault = node.deploy(
            artifacts["TestEVault"],
            ["address", "address", "address", "address", "uint256"],
            [made["evc"], made[symbol], made["oracle"], USD, 1],
        )
        made[f"e{symbol}"] = vault
        node.send(made["factory"], "record(address,bytes)", vault, b"")
    node.send(made["eUSDC"], "setInterestRateModel(address)", made["irm"])
    node.send(made["eUSDC"], "setLTV(address,uint16,uint16,uint32)", made["eWETH"], *LTV, 0)
    node.send(made["oracle"], "govSetResolvedVault(address,bool)", made["eWETH"], True)
    _positions(world)
    if elapse:
        node.rpc("evm_increaseTime", elapse)
        node.mine()
    return world


def _positions(world: EulerWorld) -> None:
    """Through the EVC, as Euler's app acts: the owner pays, its sub-accounts hold."""
    node, made, owner = world.node, world.contracts, world.owner
    for symbol, amount in (("USDC", SUPPLIED["owner"] + SUPPLIED["lender"]), ("WETH", COLLATERAL)):
        node.send(made[symbol], "mint(address,uint256)", owner, amount)
        node.send(made[symbol], "approve(address,uint256)", made[f"e{symbol}"], 2**256 - 1, sender=owner)
    call = "call(address,address,uint256,bytes)"
    deposit = "deposit(uint256,address)"
    node.send(made["eUSDC"], deposit, SUPPLIED["owner"], owner, sender=owner)
    node.send(
        made["evc"], call, made["eUSDC"], owner, 0, _data(deposit, SUPPLIED["lender"], world.sub(2)), sender=owner
    )
    node.send(made["evc"], call, made["eWETH"], owner, 0, _data(deposit, COLLATERAL, world.sub(1)), sender=owner)
    zero = "0x" + "0" * 40
    items = [
        (made["evc"], zero, 0, _data("enableCollateral(address,address)", world.sub(1), made["eWETH"])),
        (made["evc"], zero, 0, _data("enableController(address,address)", world.sub(1), made["eUSDC"])),
        (made["eUSDC"], world.sub(1), 0, _data("borrow(uint256,address)", BORROWED, owner)),
    ]
    node.send(made["evc"], "batch((address,address,uint256,bytes)[])", items, sender=owner)


def _data(signature: str, *args: Any) -> bytes:
    return selector(signature) + eth_abi.encode(arg_types(signature), list(args))
