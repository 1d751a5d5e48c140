"""ether.fi, Rocket Pool, Renzo and Kelp on anvil: eETH, weETH, the LiquidityPool, the
WithdrawRequestNFT, rETH, ezETH with Renzo's RestakeManager and rsETH with Kelp's LRTOracle as test
contracts with the views of the published ABIs (tests/contracts/TestLiquidStaking.sol),
an ETH/USD feed, a holder of eETH, weETH, rETH, ezETH and rsETH, a wallet with withdraw requests (pending,
finalized, finalized but invalidated, claimed, sent away and received) and a small rETH holder.
Every rate grows between two blocks a week apart, so the APYs follow from the two states.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.evm import CONTRACTS, Anvil, Artifact, compile_contracts

WEEK = 7 * 24 * 3600
ETHER = 10**18
POOL = ((2_600_000 * ETHER, 2_500_000 * ETHER), (2_600_480 * ETHER, 2_500_000 * ETHER))
"""ether.fi's (pooled ether, eETH shares) a week back and now."""
RETH = ((1_160_000 * ETHER, 1_040_000 * ETHER), (1_160_250 * ETHER, 1_040_000 * ETHER))
"""Rocket Pool's (total ETH balance, rETH supply) a week back and now."""
RENZO_TVLS = ((300_000 * ETHER, 120_000 * ETHER + 17), (300_050 * ETHER, 120_020 * ETHER + 17))
"""Renzo's operator delegators' TVLs a week back and now (ezETH's supply stays)."""
EZETH_SUPPLY = 410_000 * ETHER
RSETH_PRICE = (1_041_200_000_000_000_000, 1_041_400_000_000_000_000)
"""Kelp's rsETHPrice a week back and now."""
KELP_REQUESTS = (
    ("ETH", "requester", 2 * ETHER, 2_082 * 10**15),
    ("ETH", "other", ETHER, 1_041 * 10**15),
    ("stETH", "requester", 3 * ETHER, 3_120 * 10**15),
    ("ETH", "requester", 5 * ETHER, 5_206 * 10**15),
    ("ETH", "requester", ETHER // 10, 104 * 10**15),
)
"""Kelp withdrawal requests in the order made: (asset, by, rsETH unstaked, asset amount). ETH's
first three nonces and stETH's first are then unlocked; the requester's oldest ETH request is
completed (popped), so its ETH requests left are nonces 2 (unlocked) and 3 (locked)."""
KELP_DELAY = 2
RENZO_REQUESTS = (
    ("ETH", "requester", 2_004 * 10**15, 2 * ETHER),
    ("stETH", "requester", 3_005 * 10**15, 3 * ETHER),
    ("ETH", "other", ETHER, ETHER),
    ("ETH", "requester", 501 * 10**15, ETHER // 2),
)
"""Renzo WithdrawQueue requests made a week back, in order: (collateral, by, amountToRedeem, ezETH
locked). The requester then claims its first (index 0), which claim fills with its last; `grow`
adds one more of the requester's, too recent to claim. The other wallet is whitelisted."""
RENZO_RECENT = ("ETH", "requester", 1_002 * 10**15, ETHER)
RENZO_COOLDOWN, RENZO_RISK_COOLDOWN = 3 * 24 * 3600, 7 * 24 * 3600
"""The WithdrawQueue's coolDownPeriod and its risk oracle's (longer: the one claim applies)."""
STETH_USD = 2_990 * 10**8
NATIVE = "0x" + "ee" * 20
RETH_BALANCE, RETH_EXCESS = 7 * ETHER, 25 * ETHER
"""The rETH contract's own ether and the deposit pool's excess: 32 ETH of collateral for burns."""
ETH_USD = 3_000 * 10**8
FROZEN_RATE = 1_039 * 10**15
"""Ether per share frozen when the first requests were finalized."""
REQUESTS = {
    1: (3 * ETHER, 2_850 * 10**15),
    2: (ETHER, 960 * 10**15),
    4: (2 * ETHER, 1_925 * 10**15),
    5: (5 * ETHER, 4_800 * 10**15),
    6: (ETHER // 2, 480 * 10**15),
    7: (4 * ETHER, 3_850 * 10**15),
}
"""Request id -> (amountOfEEth, shareOfEEth). The requester made 1, 2, 4, 5 and 7; 6 the holder made
and sent to the requester; the requester sent 5 away and claimed 2. 1, 2 and 4 are finalized, 4
then invalidated; 6 and 7 are pending."""
FINALIZED = 4


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts([CONTRACTS / "TestLiquidStaking.sol", CONTRACTS / "TestPriceFeed.sol"])


@dataclass
class LiquidStakingWorld:
    node: Anvil
    wallets: dict[str, str] = field(default_factory=dict)
    contracts: dict[str, str] = field(default_factory=dict)
    """By name: pool, eETH, weETH, nft, rETH, ezETH, RestakeManager, rsETH, LRTOracle, LRTConfig,
    LRTWithdrawalManager, stETH, ETH/USD, stETH/USD, Renzo's DepositQueue, WithdrawQueue and
    RiskOracle."""
    holdings: dict[str, int] = field(default_factory=dict)
    """The holder's eETH shares, weETH, rETH, ezETH, rsETH; the small holder's rETH ("rETH small")."""
    start: int = 0
    then: int = 0
    t_then: int = 0
    start_block: int = 0
    """The block of the world's first deployment: its sections' `startBlock`."""

    def addresses_override(self) -> dict[str, Any]:
        c = self.contracts
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                "etherfi": {
                    "eETH": c["eETH"],
                    "weETH": c["weETH"],
                    "liquidityPool": c["pool"],
                    "withdrawRequestNFT": {"address": c["nft"], "startBlock": self.start},
                    "startBlock": self.start_block,
                },
                "rocketpool": {"rETH": c["rETH"], "startBlock": self.start_block},
                "renzo": {"ezETH": c["ezETH"], "restakeManager": c["RestakeManager"], "startBlock": self.start_block},
                "kelp": {
                    "rsETH": c["rsETH"],
                    "lrtOracle": c["LRTOracle"],
                    "lrtConfig": c["LRTConfig"],
                    "withdrawalManager": c["LRTWithdrawalManager"],
                    "startBlock": self.start_block,
                },
                "priceFeeds": {c["stETH"]: {"pair": "stETH/USD", "feed": c["stETH/USD"], "heartbeat": 10**9}},
                "currencyFeeds": {"ETH": {"pair": "ETH/USD", "feed": c["ETH/USD"], "heartbeat": 10**9}},
            }
        }

    def grow(self) -> None:
        """Both rates as they are now (ether per share and rETH's rate up), the feed updated."""
        c = self.contracts
        self.node.send(c["pool"], "setTotals(uint256,uint256)", *POOL[1])
        self.node.send(c["rETH"], "setBalances(uint256,uint256)", *RETH[1])
        self.node.send(c["RestakeManager"], "setTVLs(uint256[])", list(RENZO_TVLS[1]))
        _renzo_request(self, *RENZO_RECENT)
        self.node.send(c["LRTOracle"], "setPrice(uint256)", RSETH_PRICE[1])
        self.node.send(c["ETH/USD"], "set(int256,uint256)", ETH_USD, self.node.timestamp())
        self.node.send(c["stETH/USD"], "set(int256,uint256)", STETH_USD, self.node.timestamp())

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path


def _kelp_requests(world: LiquidStakingWorld) -> None:
    node, c = world.node, world.contracts
    manager, assets = c["LRTWithdrawalManager"], {"ETH": NATIVE, "stETH": c["stETH"]}
    node.send(c["LRTConfig"], "setSupportedAssets(address[])", [c["stETH"], NATIVE])
    node.send(manager, "setWithdrawalDelayBlocks(uint256)", KELP_DELAY)
    for asset, by, rseth, amount in KELP_REQUESTS:
        call = "request(address,address,uint256,uint256)"
        node.send(manager, call, assets[asset], world.wallets[by], rseth, amount)
    node.send(manager, "unlock(address,uint256)", NATIVE, 3)
    node.send(manager, "unlock(address,uint256)", c["stETH"], 1)
    node.send(manager, "completeWithdrawal(address,address)", NATIVE, world.wallets["requester"])


def _renzo_request(world: LiquidStakingWorld, asset: str, by: str, amount: int, ezeth: int) -> None:
    collateral = NATIVE if asset == "ETH" else world.contracts[asset]
    call = "request(address,address,uint256,uint256)"
    world.node.send(world.contracts["WithdrawQueue"], call, world.wallets[by], collateral, amount, ezeth)


def _renzo_queue(world: LiquidStakingWorld) -> None:
    """The DepositQueue the RestakeManager names, its WithdrawQueue with the requests made a week
    back (RENZO_REQUESTS), the requester's first claimed."""
    node, c, artifacts = world.node, world.contracts, compile_all()
    c["WithdrawQueue"] = node.deploy(artifacts["TestRenzoWithdrawQueue"])
    c["DepositQueue"] = node.deploy(artifacts["TestRenzoDepositQueue"], ["address"], [c["WithdrawQueue"]])
    c["RiskOracle"] = node.deploy(artifacts["TestRenzoRiskOracle"])
    node.send(c["RestakeManager"], "setDepositQueue(address)", c["DepositQueue"])
    node.send(c["RiskOracle"], "set(uint256,bool)", RENZO_RISK_COOLDOWN, False)
    node.send(c["WithdrawQueue"], "configure(uint256,address)", RENZO_COOLDOWN, c["RiskOracle"])
    node.send(c["WithdrawQueue"], "setWhitelisted(address,bool)", world.wallets["other"], True)
    for request in RENZO_REQUESTS:
        _renzo_request(world, *request)
    node.send(c["WithdrawQueue"], "claim(address,uint256)", world.wallets["requester"], 0)


def build(node: Anvil, wallets: dict[str, str] | None = None, elapse: bool = True) -> LiquidStakingWorld:
    """`wallets` (holder, requester, small, empty, other) default to anvil accounts 14-18. Without
    `elapse`, the week does not pass here and the rates stay as they were: the caller lets time
    pass and calls `grow` (all the worlds on one chain, where another world moves the clock)."""
    artifacts = compile_all()
    world = LiquidStakingWorld(node)
    world.start_block = node.block_number() + 1
    world.wallets = wallets or dict(zip(("holder", "requester", "small", "empty", "other"), node.accounts[14:19]))
    holder, requester, other = world.wallets["holder"], world.wallets["requester"], world.wallets["other"]
    c = world.contracts
    world.start = node.block_number()
    c["pool"] = node.deploy(artifacts["TestEtherfiPool"])
    c["eETH"] = node.deploy(artifacts["TestEETH"], ["address"], [c["pool"]])
    c["weETH"] = node.deploy(artifacts["TestWeETH"], ["address"], [c["pool"]])
    c["nft"] = node.deploy(artifacts["TestWithdrawRequestNFT"])
    c["rETH"] = node.deploy(artifacts["TestRETH"])
    c["ezETH"] = node.deploy(artifacts["TestRestakedToken"], ["string", "string"], ["Renzo Restaked ETH", "ezETH"])
    c["RestakeManager"] = node.deploy(artifacts["TestRestakeManager"])
    c["rsETH"] = node.deploy(artifacts["TestRestakedToken"], ["string", "string"], ["rsETH", "rsETH"])
    c["LRTOracle"] = node.deploy(artifacts["TestLRTOracle"])
    c["LRTConfig"] = node.deploy(artifacts["TestLRTConfig"])
    c["LRTWithdrawalManager"] = node.deploy(artifacts["TestLRTWithdrawalManager"])
    c["stETH"] = node.deploy(artifacts["TestRestakedToken"], ["string", "string"], ["Liquid staked Ether 2.0", "stETH"])
    c["ETH/USD"] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
    c["stETH/USD"] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
    node.send(c["stETH/USD"], "set(int256,uint256)", STETH_USD, node.timestamp())
    _kelp_requests(world)
    _renzo_queue(world)
    node.send(c["RestakeManager"], "setTVLs(uint256[])", list(RENZO_TVLS[0]))
    node.send(c["LRTOracle"], "setPrice(uint256)", RSETH_PRICE[0])
    node.send(c["ETH/USD"], "set(int256,uint256)", ETH_USD, node.timestamp())
    node.send(c["pool"], "setTotals(uint256,uint256)", *POOL[0])
    node.send(c["rETH"], "setBalances(uint256,uint256)", *RETH[0])
    node.send(c["rETH"], "setDepositPoolExcess(uint256)", RETH_EXCESS)
    node.rpc("anvil_setBalance", c["rETH"], hex(RETH_BALANCE))
    world.holdings = {
        "eETH": 11 * ETHER + 789,
        "weETH": 4 * ETHER,
        "rETH": 30 * ETHER,
        "rETH small": 2 * ETHER,
        "ezETH": 6 * ETHER + 5,
        "rsETH": 9 * ETHER + 3,
    }
    for token in ("ezETH", "rsETH"):
        node.send(c[token], "mint(address,uint256)", holder, world.holdings[token])
    node.send(c["ezETH"], "setTotalSupply(uint256)", EZETH_SUPPLY)
    node.send(c["eETH"], "mintShares(address,uint256)", holder, world.holdings["eETH"])
    node.send(c["weETH"], "mint(address,uint256)", holder, world.holdings["weETH"])
    node.send(c["rETH"], "mint(address,uint256)", holder, world.holdings["rETH"])
    node.send(c["rETH"], "mint(address,uint256)", world.wallets["small"], world.holdings["rETH small"])
    for request, (amount, share) in REQUESTS.items():
        owner = holder if request == 6 else requester
        node.send(c["nft"], "request(address,uint256,uint96,uint96)", owner, request, amount, share)
    node.send(c["nft"], "transferFrom(address,address,uint256)", holder, requester, 6, sender=holder)
    node.send(c["nft"], "transferFrom(address,address,uint256)", requester, other, 5, sender=requester)
    node.send(c["nft"], "finalize(uint32,uint256)", FINALIZED, FROZEN_RATE)
    node.send(c["nft"], "invalidateRequest(uint256)", 4)
    node.send(c["nft"], "claim(uint256)", 2)
    world.then = node.block_number()
    world.t_then = node.timestamp(world.then)
    if elapse:
        node.rpc("evm_setNextBlockTimestamp", hex(world.t_then + WEEK + 600))
        world.grow()
    return world
