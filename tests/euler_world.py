"""Euler v2 on anvil: the EVC, two EVK vaults (USDC with a linear-kink IRM, WETH as its
collateral), an oracle router in USD and the eVault factory's events, as test contracts with the
signatures and arithmetic of Euler's own (tests/contracts/TestEuler.sol: no package ships Euler
v2's bytecode). An owner whose sub-account 1 borrows USDC against WETH, whose sub-account 2 lends
USDC, and who lends a little USDC itself; USD feeds for both assets. Reward streams
(tests/contracts/TestEulerRewardStreams.sol) pay EUL on eUSDC from the epoch after the positions,
and the lender sub-account enabled it, its shares forwarded as EVK's balance forwarder does.
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
EPOCH = 10 * 7 * 86_400
"""The reward streams' EPOCH_DURATION: reward-streams' longest, so the stream runs past the year."""
PER_EPOCH, EPOCHS = 100 * ETHER, 25
"""EUL registered per epoch on eUSDC, for reward-streams' longest distribution."""
EUL_USD = 2 * 10**8
"""The EUL/USD feed's answer (8 decimals)."""


def sub_account(owner: str, index: int) -> str:
    return f"0x{int(owner, 16) ^ index:040x}"


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts(
        [
            CONTRACTS / "TestEuler.sol",
            CONTRACTS / "TestEulerFactory.sol",
            CONTRACTS / "TestEulerRewardStreams.sol",
            CONTRACTS / "TestToken.sol",
            CONTRACTS / "TestPriceFeed.sol",
        ]
    )


@dataclass
class EulerWorld:
    node: Anvil
    owner: str = ""
    start_block: int = 0
    rewards_start: int = 0
    """When the EUL stream began paying: the start of the epoch after its registration (unix seconds)."""
    contracts: dict[str, str] = field(default_factory=dict)
    """evc, factory, oracle, irm, streams (the reward streams), and by asset symbol its token, its vault
    ("eUSDC") and its feed ("USDC/USD"); EUL and EUL/USD."""

    def addresses_override(self) -> dict[str, Any]:
        """The `euler` section of a chain's addresses."""
        factory = {"address": self.contracts["factory"], "startBlock": self.start_block}
        return {"evc": self.contracts["evc"], "eVaultFactory": factory, "rewardStreams": self.contracts["streams"]}

    def feeds(self) -> dict[str, Any]:
        """The assets' USD feeds, a chain's `priceFeeds` entries."""
        return {
            self.contracts[symbol]: {
                "pair": f"{symbol}/USD",
                "feed": self.contracts[f"{symbol}/USD"],
                "heartbeat": 10**9,
            }
            for symbol in (*PRICES, "EUL")
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
    _rewards(world)
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


def _rewards(world: EulerWorld) -> None:
    """The reward streams: a funder registers EUL on eUSDC for EPOCHS epochs from the next; the
    lender sub-account (2) enables it through the EVC and its vault forwards its shares. The test
    vault has no balance forwarder (it would pass EIP-170's size), so its one call of EVK's
    `enableBalanceForwarder`, `balanceTrackerHook(account, balance, false)`, is made as the vault."""
    node, made, artifacts, owner = world.node, world.contracts, compile_all(), world.owner
    made["streams"] = node.deploy(artifacts["TestRewardStreams"], ["address", "uint48"], [made["evc"], EPOCH])
    made["EUL"] = node.deploy(artifacts["TestToken"], ["string", "string", "uint8"], ["Euler", "EUL", 18])
    made["EUL/USD"] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
    node.send(made["EUL/USD"], "set(int256,uint256)", EUL_USD, node.timestamp())
    funder = node.accounts[0]
    node.send(made["EUL"], "mint(address,uint256)", funder, PER_EPOCH * EPOCHS)
    node.send(made["EUL"], "approve(address,uint256)", made["streams"], PER_EPOCH * EPOCHS, sender=funder)
    register = "registerReward(address,address,uint48,uint128[])"
    node.send(made["streams"], register, made["eUSDC"], made["EUL"], 0, [PER_EPOCH] * EPOCHS, sender=funder)
    world.rewards_start = (node.call(made["streams"], "currentEpoch()") + 1) * EPOCH
    lender, vault = world.sub(2), made["eUSDC"]
    enable = _data("enableReward(address,address)", vault, made["EUL"])
    node.send(made["evc"], "call(address,address,uint256,bytes)", made["streams"], lender, 0, enable, sender=owner)
    shares = node.call(vault, "balanceOf(address)", lender)
    node.rpc("anvil_impersonateAccount", vault)
    node.rpc("anvil_setBalance", vault, hex(10**18))
    node.send(made["streams"], "balanceTrackerHook(address,uint256,bool)", lender, shares, False, sender=vault)
    node.rpc("anvil_stopImpersonatingAccount", vault)


def _data(signature: str, *args: Any) -> bytes:
    return selector(signature) + eth_abi.encode(arg_types(signature), list(args))
