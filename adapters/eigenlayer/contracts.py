"""EigenLayer's views the adapter calls, with the output names its published ABI gives them, and
the events its flows read, with the fields each indexes (Layr-Labs/eigenlayer-contracts, the Go
bindings' ABIs of StrategyManager, DelegationManager, EigenPodManager, EigenPod and StrategyBase;
tests/eigenlayer_abi.json records the commit, and tests/test_eigenlayer.py holds these to it),
the beacon chain ETH strategy and the lens."""

from __future__ import annotations

from collections.abc import Mapping

from chain.abi import Event, Function
from chain.lens import Lens

WITHDRAWAL = (
    "(address staker,address delegatedTo,address withdrawer,uint256 nonce,uint32 startBlock,"
    "address[] strategies,uint256[] scaledShares)"
)
"""IDelegationManagerTypes.Withdrawal, by its field names."""

GET_DEPOSITS = Function("getDeposits(address)", "94f649dd", ("address[] strategies", "uint256[] depositShares"))
"""StrategyManager: the staker's strategies and its deposit shares in each (the ABI names neither)."""
DELEGATED_TO = Function("delegatedTo(address)", "65da1264", ("address operator",))
WITHDRAWABLE_SHARES = Function(
    "getWithdrawableShares(address,address[])",
    "c978f7ac",
    ("uint256[] withdrawableShares", "uint256[] depositShares"),
)
QUEUED_WITHDRAWALS = Function(
    "getQueuedWithdrawals(address)", "5dd68579", (f"{WITHDRAWAL}[] withdrawals", "uint256[][] shares")
)
QUEUED_WITHDRAWAL = Function(
    "getQueuedWithdrawal(bytes32)", "5d975e88", (f"{WITHDRAWAL} withdrawal", "uint256[] shares")
)
"""One withdrawal by its root and the shares it pays, every slashing up to its window's end applied
(`_getSharesByWithdrawalRoot`): what its completion pays, once that window is over."""
MIN_WITHDRAWAL_DELAY_BLOCKS = Function("minWithdrawalDelayBlocks()", "c448feb8", ("uint32",))
OWNER_TO_POD = Function("ownerToPod(address)", "9ba06275", ("address",))
POD_OWNER_DEPOSIT_SHARES = Function("podOwnerDepositShares(address)", "d48e8894", ("int256 shares",))
WITHDRAWABLE_RESTAKED_GWEI = Function("withdrawableRestakedExecutionLayerGwei()", "3474aa16", ("uint64",))
UNDERLYING_TOKEN = Function("underlyingToken()", "2495a599", ("address",), immutable=True)
SHARES_TO_UNDERLYING = Function("sharesToUnderlyingView(uint256)", "7a8b2637", ("uint256",))
TOTAL_SHARES = Function("totalShares()", "3a98ef39", ("uint256",))
WHITELISTED_FOR_DEPOSIT = Function("strategyIsWhitelistedForDeposit(address)", "663c1de4", ("bool whitelisted",))

WITHDRAWAL_TYPES = "(address,address,address,uint256,uint32,address[],uint256[])"
DEPOSIT = Event(
    "Deposit(address,address,uint256)", "0x5548c837ab068cf56a2c2479df0882a4922fd203edb7517321831d95078c5f62"
)
"""StrategyManager's Deposit(staker, strategy, shares): a deposit, or a completed withdrawal's
shares added back (`_addShares`)."""
WITHDRAWAL_QUEUED = Event(
    f"SlashingWithdrawalQueued(bytes32,{WITHDRAWAL_TYPES},uint256[])",
    "0x26b2aae26516e8719ef50ea2f6831a2efbd4e37dccdf0f6936b27bc08e793e30",
)
"""DelegationManager's SlashingWithdrawalQueued(withdrawalRoot, withdrawal, sharesToWithdraw): the
withdrawable shares each strategy of the withdrawal took out of the staker's."""
WITHDRAWAL_COMPLETED = Event(
    "SlashingWithdrawalCompleted(bytes32)", "0x1f40400889274ed07b24845e5054a87a0cab969eb1277aafe61ae352e7c32a00"
)
POD_SHARES_UPDATED = Event(
    "PodSharesUpdated(address,int256)", "0x4e2b791dedccd9fb30141b088cabf5c14a8912b52f59375c95c010700b8c6193"
)
"""EigenPodManager's PodSharesUpdated(podOwner, sharesDelta): beacon chain ETH shares added
(`_addShares`: a pod's balance that rose, or a completed withdrawal's shares added back)."""
CHECKPOINT_FINALIZED = Event(
    "CheckpointFinalized(uint64,int256)", "0x525408c201bc1576eb44116f6478f1c2a54775b19a043bcfdc708364f74f8e44"
)
"""EigenPod's CheckpointFinalized(checkpointTimestamp, totalShareDeltaWei), emitted just before the
balance update it makes (`_updateCheckpoint`)."""
INDEXED: Mapping[Event, tuple[str, ...]] = {
    DEPOSIT: (),
    WITHDRAWAL_QUEUED: (),
    WITHDRAWAL_COMPLETED: (),
    POD_SHARES_UPDATED: ("podOwner",),
    CHECKPOINT_FINALIZED: ("checkpointTimestamp",),
}
"""The fields each event indexes, as the flows decode them: the first three name no staker in a
topic, so the wallet's log stream cannot find them (adapters/eigenlayer/flows.py reads them from a
stream of their own)."""

BEACON_CHAIN_ETH = "0xbeac0eeeeeeeeeeeeeeeeeeeeeeeeeeeeeebeac0"
"""The virtual strategy of native restaking's shares, one share a wei of ether
(DelegationManagerStorage.beaconChainETHStrategy; "not a real contract", EigenLayer's README)."""
GWEI = 10**9

LENS = Lens(
    "EigenlayerLens", ("address", "address", "address", "address", "address[]", "address[]", "address[]", "address")
)
