"""EigenLayer on anvil: the StrategyManager, DelegationManager, EigenPodManager, an EigenPod and two
strategies as test contracts with the views of EigenLayer's published ABI
(tests/contracts/TestEigenLayer.sol; no registry package ships EigenLayer's contracts), over
test tokens and USD feeds. The starting state below is set (as the real contracts would have
accumulated it); later actions go through the entry points (`deposit`, `queue_withdrawal`,
`complete`, `restake`, `checkpoint`, `slash`), which emit EigenLayer's events as mainnet's do.

- `staker`: deposits in two strategies (the second one's operator slashed, so its withdrawable
  shares are below its deposit shares), delegated to an operator, two queued withdrawals (one
  past the withdrawal delay, one not yet).
- `restaker`: an EigenPod with native restaked ETH (beacon chain ETH shares, partly slashed) and a
  queued withdrawal of beacon chain ETH.
- `empty`: nothing.
The eLST token has a USD feed, the tEIGEN token none (its USD figures are null, with a warning).
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

ETHER = WAD = 10**18
DELAY = 50
"""minWithdrawalDelayBlocks of the test DelegationManager (mainnet's is 100,800, 14 days)."""
BEACON = "0xbeac0eeeeeeeeeeeeeeeeeeeeeeeeeeeeeebeac0"
LST_USD, ETH_USD = 3_150 * 10**8, 3_000 * 10**8
STRATEGIES = {
    "eLST": (1_000 * ETHER, 1_050 * ETHER, 10 * ETHER, (WAD, WAD)),
    "tEIGEN": (500 * ETHER, 480 * ETHER, 4 * ETHER, (102 * WAD // 100, 75 * WAD // 100)),
}
"""Token -> (strategy's total shares, its token balance, the staker's deposit shares, the staker's
(deposit scaling factor, slashing factor)); tEIGEN's operator was slashed by a quarter."""
POD_SHARES, POD_GWEI, POD_SLASHING = 64 * ETHER, 1_500_000_000, 9 * WAD // 10
"""The restaker's beacon chain ETH shares, its pod's withdrawableRestakedExecutionLayerGwei, and its
beacon chain slashing factor."""
WITHDRAWAL = "(address,address,address,uint256,uint32,address[],uint256[])"
QUEUED_TOPIC = "0x" + keccak(f"SlashingWithdrawalQueued(bytes32,{WITHDRAWAL},uint256[])".encode()).hex()


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts(
        [CONTRACTS / "TestEigenLayer.sol", CONTRACTS / "TestToken.sol", CONTRACTS / "TestPriceFeed.sol"]
    )


@dataclass
class EigenlayerWorld:
    node: Anvil
    wallets: dict[str, str] = field(default_factory=dict)
    operator: str = ""
    strategy_manager: str = ""
    delegation_manager: str = ""
    pod_manager: str = ""
    pod: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    strategies: dict[str, str] = field(default_factory=dict)
    feeds: dict[str, str] = field(default_factory=dict)
    withdrawals: list[tuple[Any, ...]] = field(default_factory=list)
    """Every queued withdrawal (Withdrawal's fields), in the order queued."""
    start_block: int = 0
    """The block of the world's first deployment: its sections' `startBlock`."""

    def addresses_override(self) -> dict[str, Any]:
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                "eigenlayer": {
                    "strategyManager": self.strategy_manager,
                    "delegationManager": self.delegation_manager,
                    "eigenPodManager": self.pod_manager,
                    "startBlock": self.start_block,
                },
                "priceFeeds": {
                    self.tokens["eLST"]: {"pair": "eLST/USD", "feed": self.feeds["eLST"], "heartbeat": 10**9}
                },
                "currencyFeeds": {"ETH": {"pair": "ETH/USD", "feed": self.feeds["ETH"], "heartbeat": 10**9}},
            }
        }

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path

    def queue(self, staker: str, start: int, strategies: list[str], scaled: list[int]) -> None:
        withdrawal = (staker, self.operator if staker == self.wallets["staker"] else "0x" + "00" * 20, staker)
        nonce = sum(1 for queued in self.withdrawals if queued[0] == staker)
        fields = (*withdrawal, nonce, start, strategies, scaled)
        self.node.send(self.delegation_manager, f"queue({WITHDRAWAL})", fields)
        self.withdrawals.append(fields)

    def deposit(self, staker: str, symbol: str, amount: int) -> dict[str, Any]:
        """StrategyManager.depositIntoStrategy: `amount` of the token (minted to the staker first)
        into its strategy; the receipt (its `Deposit` says the shares)."""
        token, manager = self.tokens[symbol], self.strategy_manager
        self.node.send(token, "mint(address,uint256)", staker, amount)
        self.node.send(token, "approve(address,uint256)", manager, amount, sender=staker)
        strategy = self.strategies[symbol]
        return self.node.send(
            manager, "depositIntoStrategy(address,address,uint256)", strategy, token, amount, sender=staker
        )

    def queue_withdrawal(self, staker: str, strategies: list[str], deposit_shares: list[int]) -> dict[str, Any]:
        """DelegationManager.queueWithdrawals of one withdrawal; its fields join `withdrawals`, and
        the receipt (its `SlashingWithdrawalQueued`) is returned."""
        params = [(strategies, deposit_shares, staker)]
        receipt = self.node.send(
            self.delegation_manager, "queueWithdrawals((address[],uint256[],address)[])", params, sender=staker
        )
        (data,) = [log["data"] for log in receipt["logs"] if log["topics"][0] == QUEUED_TOPIC]
        _, withdrawal, _ = eth_abi.decode(["bytes32", WITHDRAWAL, "uint256[]"], bytes.fromhex(data[2:]))
        self.withdrawals.append(withdrawal)
        return receipt

    def complete(self, withdrawal: tuple[Any, ...], as_tokens: bool) -> dict[str, Any]:
        """completeQueuedWithdrawal by its withdrawer: paid as the strategies' tokens, or added back as shares."""
        tokens = [self.token_of(strategy) for strategy in withdrawal[5]]
        return self.node.send(
            self.delegation_manager,
            f"completeQueuedWithdrawal({WITHDRAWAL},address[],bool)",
            withdrawal,
            tokens,
            as_tokens,
            sender=withdrawal[2],
        )

    def token_of(self, strategy: str) -> str:
        """A strategy's token; the beacon chain ETH strategy's is none (the zero address)."""
        found = [self.tokens[symbol] for symbol, address in self.strategies.items() if address == strategy.lower()]
        return found[0] if found else "0x" + "00" * 20

    def restake(self, pubkey_hash: bytes, gwei: int) -> dict[str, Any]:
        """The restaker's pod verifies a validator's withdrawal credentials: its balance restaked."""
        owner = self.wallets["restaker"]
        return self.node.send(self.pod, "verifyWithdrawalCredentials(bytes32,uint64)", pubkey_hash, gwei, sender=owner)

    def checkpoint(self, delta_gwei: int) -> dict[str, Any]:
        """The restaker's pod finalizes a checkpoint: its validators' balances moved by `delta_gwei`."""
        return self.node.send(self.pod, "checkpoint(int64)", delta_gwei)

    def slash(self, strategy: str, max_magnitude: int) -> dict[str, Any]:
        """The operator slashed in `strategy` down to `max_magnitude` (WAD: none slashed)."""
        return self.node.send(
            self.delegation_manager, "slashOperator(address,address,uint256)", self.operator, strategy, max_magnitude
        )


def build(node: Anvil, wallets: dict[str, str] | None = None) -> EigenlayerWorld:
    """`wallets` (staker, restaker, empty) default to anvil accounts 14-16; the operator is account 6."""
    artifacts = compile_all()
    world = EigenlayerWorld(node)
    world.start_block = node.block_number() + 1
    world.wallets = wallets or dict(zip(("staker", "restaker", "empty"), node.accounts[14:17]))
    staker, restaker = world.wallets["staker"], world.wallets["restaker"]
    world.operator = node.accounts[6].lower()
    world.strategy_manager = node.deploy(artifacts["TestStrategyManager"])
    world.pod_manager = node.deploy(artifacts["TestEigenPodManager"])
    world.delegation_manager = node.deploy(
        artifacts["TestDelegationManager"],
        ["address", "address", "uint32"],
        [world.strategy_manager, world.pod_manager, DELAY],
    )
    for manager in (world.strategy_manager, world.pod_manager):
        node.send(manager, "setDelegationManager(address)", world.delegation_manager)
    token = artifacts["TestToken"]
    for symbol, name in (("eLST", "EigenLayer Test LST"), ("tEIGEN", "Test EIGEN")):
        world.tokens[symbol] = node.deploy(token, ["string", "string", "uint8"], [name, symbol, 18])
    for name, answer in (("eLST", LST_USD), ("ETH", ETH_USD)):
        world.feeds[name] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
        node.send(world.feeds[name], "set(int256,uint256)", answer, node.timestamp())
    for symbol, (total, balance, deposit, (scaling, slashing)) in STRATEGIES.items():
        strategy = world.strategies[symbol] = node.deploy(
            artifacts["TestStrategy"], ["address"], [world.tokens[symbol]]
        )
        node.send(strategy, "setTotalShares(uint256)", total)
        node.send(world.strategy_manager, "addStrategiesToDepositWhitelist(address[])", [strategy])
        node.send(world.tokens[symbol], "mint(address,uint256)", strategy, balance)
        node.send(world.strategy_manager, "setDeposit(address,address,uint256)", staker, strategy, deposit)
        node.send(
            world.delegation_manager, "setFactors(address,address,uint256,uint256)", staker, strategy, scaling, slashing
        )
    node.send(world.delegation_manager, "delegate(address,address)", staker, world.operator)
    receipt = node.send(world.pod_manager, "createPod(address)", restaker)
    world.pod = node.call(world.pod_manager, "ownerToPod(address)", restaker, returns=("address",)).lower()
    assert receipt["status"] == "0x1"
    node.send(world.pod_manager, "setShares(address,int256)", restaker, POD_SHARES)
    node.send(world.pod, "setWithdrawableGwei(uint64)", POD_GWEI)
    node.send(
        world.delegation_manager, "setFactors(address,address,uint256,uint256)", restaker, BEACON, WAD, POD_SLASHING
    )
    node.mine(DELAY + 5)
    head = node.block_number()
    world.queue(staker, head - DELAY - 3, [world.strategies["eLST"]], [2 * ETHER])
    world.queue(restaker, head - DELAY - 1, [BEACON], [3 * ETHER])
    world.queue(staker, head, [world.strategies["tEIGEN"], world.strategies["eLST"]], [ETHER, ETHER // 2])
    for name, answer in (("eLST", LST_USD), ("ETH", ETH_USD)):
        node.send(world.feeds[name], "set(int256,uint256)", answer, node.timestamp())
    return world
