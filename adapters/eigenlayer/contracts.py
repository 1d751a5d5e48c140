"""EigenLayer's views the adapter calls, with the output names its published ABI gives them
(Layr-Labs/eigenlayer-contracts, the Go bindings' ABIs of StrategyManager, DelegationManager,
EigenPodManager, EigenPod and StrategyBase; tests/eigenlayer_abi.json records the commit, and
tests/test_eigenlayer.py holds these to it), the beacon chain ETH strategy and the lens."""

from __future__ import annotations

from chain.abi import Function
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
MIN_WITHDRAWAL_DELAY_BLOCKS = Function("minWithdrawalDelayBlocks()", "c448feb8", ("uint32",))
OWNER_TO_POD = Function("ownerToPod(address)", "9ba06275", ("address",))
POD_OWNER_DEPOSIT_SHARES = Function("podOwnerDepositShares(address)", "d48e8894", ("int256 shares",))
WITHDRAWABLE_RESTAKED_GWEI = Function("withdrawableRestakedExecutionLayerGwei()", "3474aa16", ("uint64",))
UNDERLYING_TOKEN = Function("underlyingToken()", "2495a599", ("address",), immutable=True)
SHARES_TO_UNDERLYING = Function("sharesToUnderlyingView(uint256)", "7a8b2637", ("uint256",))
TOTAL_SHARES = Function("totalShares()", "3a98ef39", ("uint256",))
WHITELISTED_FOR_DEPOSIT = Function("strategyIsWhitelistedForDeposit(address)", "663c1de4", ("bool whitelisted",))

BEACON_CHAIN_ETH = "0xbeac0eeeeeeeeeeeeeeeeeeeeeeeeeeeeeebeac0"
"""The virtual strategy of native restaking's shares, one share a wei of ether
(DelegationManagerStorage.beaconChainETHStrategy; "not a real contract", EigenLayer's README)."""
GWEI = 10**9

LENS = Lens("EigenlayerLens", ("address", "address", "address", "address", "address[]", "address[]", "address"))
