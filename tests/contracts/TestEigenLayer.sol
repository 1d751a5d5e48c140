// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// EigenLayer's core as the adapter reads it: the views of the ABI EigenLayer publishes
/// (Layr-Labs/eigenlayer-contracts, tests/eigenlayer_abi.json names the commit), with the
/// arithmetic of its slashing release written from its sources' published formulas (no registry
/// package ships EigenLayer's contracts): StrategyBase's virtual shares, SlashingLib's
/// `calcWithdrawable` and `scaleForCompleteWithdrawal`, DelegationManager's withdrawal delay.
/// The test sets what the real contracts accumulate (deposits, scaling and slashing factors).

interface ITestShareManager {
    function stakerDepositShares(address staker, address strategy) external view returns (uint256);
}

interface ITestBalance {
    function balanceOf(address account) external view returns (uint256);
}

/// StrategyBase: shares of one ERC-20 (the tokens it holds), converted with SHARES_OFFSET and
/// BALANCE_OFFSET of 1e3.
contract TestStrategy {
    uint256 internal constant SHARES_OFFSET = 1e3;
    uint256 internal constant BALANCE_OFFSET = 1e3;
    address public underlyingToken;
    uint256 public totalShares;

    constructor(address token) {
        underlyingToken = token;
    }

    function setTotalShares(uint256 shares) external {
        totalShares = shares;
    }

    function sharesToUnderlyingView(uint256 amountShares) public view returns (uint256) {
        uint256 balance = ITestBalance(underlyingToken).balanceOf(address(this));
        return ((balance + BALANCE_OFFSET) * amountShares) / (totalShares + SHARES_OFFSET);
    }
}

/// The StrategyManager: each staker's strategies and deposit shares, and the strategies its
/// whitelister allowed deposits into.
contract TestStrategyManager is ITestShareManager {
    mapping(address => address[]) internal strategies;
    mapping(address => mapping(address => uint256)) public stakerDepositShares;
    mapping(address => bool) public strategyIsWhitelistedForDeposit;

    function addStrategiesToDepositWhitelist(address[] calldata added) external {
        for (uint256 i = 0; i < added.length; i++) {
            strategyIsWhitelistedForDeposit[added[i]] = true;
        }
    }

    function setDeposit(address staker, address strategy, uint256 shares) external {
        if (stakerDepositShares[staker][strategy] == 0) strategies[staker].push(strategy);
        stakerDepositShares[staker][strategy] = shares;
    }

    function getDeposits(address staker) external view returns (address[] memory, uint256[] memory) {
        address[] memory list = strategies[staker];
        uint256[] memory shares = new uint256[](list.length);
        for (uint256 i = 0; i < list.length; i++) {
            shares[i] = stakerDepositShares[staker][list[i]];
        }
        return (list, shares);
    }
}

/// An EigenPod: its owner and the native ETH a checkpoint has accounted for, in gwei.
contract TestEigenPod {
    address public podOwner;
    uint64 public withdrawableRestakedExecutionLayerGwei;

    constructor(address owner) {
        podOwner = owner;
    }

    function setWithdrawableGwei(uint64 amount) external {
        withdrawableRestakedExecutionLayerGwei = amount;
    }
}

/// The EigenPodManager: pods by owner and their (signed) beacon chain ETH deposit shares.
contract TestEigenPodManager is ITestShareManager {
    address public constant beaconChainETHStrategy = 0xbeaC0eeEeeeeEEeEeEEEEeeEEeEeeeEeeEEBEaC0;
    mapping(address => address) public ownerToPod;
    mapping(address => int256) public podOwnerDepositShares;

    function createPod(address owner) external returns (address pod) {
        pod = address(new TestEigenPod(owner));
        ownerToPod[owner] = pod;
    }

    function setShares(address owner, int256 shares) external {
        podOwnerDepositShares[owner] = shares;
    }

    /// A deficit (negative shares) counts as none, as EigenPodManager's does.
    function stakerDepositShares(address staker, address strategy) external view returns (uint256) {
        require(strategy == beaconChainETHStrategy, "InvalidStrategy");
        int256 shares = podOwnerDepositShares[staker];
        return shares < 0 ? 0 : uint256(shares);
    }
}

/// The DelegationManager of the slashing release: delegation, withdrawable shares (deposit shares x
/// the staker's deposit scaling factor x the slashing factor, each `mulWad`, rounded down) and the
/// withdrawal queue (scaled shares x the slashing factor; completable once `block.number` is past
/// `startBlock + MIN_WITHDRAWAL_DELAY_BLOCKS`).
contract TestDelegationManager {
    struct Withdrawal {
        address staker;
        address delegatedTo;
        address withdrawer;
        uint256 nonce;
        uint32 startBlock;
        address[] strategies;
        uint256[] scaledShares;
    }

    uint256 internal constant WAD = 1e18;
    address public constant beaconChainETHStrategy = 0xbeaC0eeEeeeeEEeEeEEEEeeEEeEeeeEeeEEBEaC0;
    ITestShareManager public immutable strategyManager;
    ITestShareManager public immutable eigenPodManager;
    uint32 internal immutable MIN_WITHDRAWAL_DELAY_BLOCKS;
    mapping(address => address) public delegatedTo;
    mapping(address => mapping(address => uint256)) internal scaling;
    mapping(address => mapping(address => uint256)) internal slashing;
    mapping(address => Withdrawal[]) internal queued;
    mapping(bytes32 => bool) public pendingWithdrawals;

    error WithdrawalDelayNotElapsed();

    constructor(ITestShareManager strategies, ITestShareManager pods, uint32 delay) {
        strategyManager = strategies;
        eigenPodManager = pods;
        MIN_WITHDRAWAL_DELAY_BLOCKS = delay;
    }

    function minWithdrawalDelayBlocks() external view returns (uint32) {
        return MIN_WITHDRAWAL_DELAY_BLOCKS;
    }

    function delegate(address staker, address operator) external {
        delegatedTo[staker] = operator;
    }

    /// The staker's deposit scaling factor and its operator's slashing factor for a strategy (WAD).
    function setFactors(address staker, address strategy, uint256 depositScaling, uint256 slashingFactor) external {
        scaling[staker][strategy] = depositScaling;
        slashing[staker][strategy] = slashingFactor;
    }

    function queue(Withdrawal calldata withdrawal) external {
        queued[withdrawal.staker].push(withdrawal);
        pendingWithdrawals[calculateWithdrawalRoot(withdrawal)] = true;
    }

    function getWithdrawableShares(address staker, address[] memory strategies)
        public
        view
        returns (uint256[] memory withdrawableShares, uint256[] memory depositShares)
    {
        withdrawableShares = new uint256[](strategies.length);
        depositShares = new uint256[](strategies.length);
        for (uint256 i = 0; i < strategies.length; ++i) {
            ITestShareManager manager = strategies[i] == beaconChainETHStrategy ? eigenPodManager : strategyManager;
            depositShares[i] = manager.stakerDepositShares(staker, strategies[i]);
            withdrawableShares[i] =
                depositShares[i] * _factor(scaling, staker, strategies[i]) / WAD * _factor(slashing, staker, strategies[i]) / WAD;
        }
    }

    function getQueuedWithdrawals(address staker)
        external
        view
        returns (Withdrawal[] memory withdrawals, uint256[][] memory shares)
    {
        withdrawals = queued[staker];
        shares = new uint256[][](withdrawals.length);
        for (uint256 i = 0; i < withdrawals.length; ++i) {
            shares[i] = new uint256[](withdrawals[i].strategies.length);
            for (uint256 j = 0; j < shares[i].length; ++j) {
                shares[i][j] = withdrawals[i].scaledShares[j] * _factor(slashing, staker, withdrawals[i].strategies[j]) / WAD;
            }
        }
    }

    function calculateWithdrawalRoot(Withdrawal memory withdrawal) public pure returns (bytes32) {
        return keccak256(abi.encode(withdrawal));
    }

    /// The check DelegationManager._completeQueuedWithdrawal makes before anything else it does.
    function completeQueuedWithdrawal(Withdrawal calldata withdrawal, address[] calldata, bool) external view {
        require(pendingWithdrawals[calculateWithdrawalRoot(withdrawal)], "WithdrawalNotQueued");
        uint32 slashableUntil = withdrawal.startBlock + MIN_WITHDRAWAL_DELAY_BLOCKS;
        if (uint32(block.number) <= slashableUntil) revert WithdrawalDelayNotElapsed();
    }

    function _factor(mapping(address => mapping(address => uint256)) storage factors, address staker, address strategy)
        private
        view
        returns (uint256 factor)
    {
        factor = factors[staker][strategy];
        if (factor == 0) factor = WAD;
    }
}
