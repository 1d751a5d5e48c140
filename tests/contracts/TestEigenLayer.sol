// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// EigenLayer's core as the adapter reads it: the views of the ABI EigenLayer publishes
/// (Layr-Labs/eigenlayer-contracts, tests/eigenlayer_abi.json names the commit), with the
/// arithmetic of its slashing release written from its sources' published formulas (no registry
/// package ships EigenLayer's contracts): StrategyBase's virtual shares, SlashingLib's
/// `calcWithdrawable`, `update`, `scaleForQueueWithdrawal` and `scaleForCompleteWithdrawal`,
/// DelegationManager's withdrawal delay.
///
/// Entry points act as EigenLayer's do and emit the events its contracts emit, in the same order:
/// StrategyManager.depositIntoStrategy (`Deposit`), DelegationManager.queueWithdrawals
/// (`SlashingWithdrawalQueued`) and completeQueuedWithdrawal (`SlashingWithdrawalCompleted`, then the
/// shares paid as tokens or added back: `Deposit`, `PodSharesUpdated`), the EigenPodManager's
/// balance updates (`PodSharesUpdated`, `NewTotalShares`, `BeaconChainSlashingFactorDecreased`) from a
/// pod's restaked validator or finalized checkpoint (`ValidatorRestaked`, `CheckpointFinalized`; the
/// beacon chain proofs are taken as read), and an operator slashed (`OperatorSharesSlashed`; there is
/// no AllocationManager: the operator's max magnitude lives here). Setters stand in for what the
/// real contracts accumulated before a world starts (deposits, factors, queued withdrawals).

interface ITestShareManager {
    function stakerDepositShares(address staker, address strategy) external view returns (uint256);
    function addShares(address staker, address strategy, uint256 shares) external returns (uint256, uint256);
    function removeDepositShares(address staker, address strategy, uint256 depositSharesToRemove)
        external
        returns (uint256);
    function withdrawSharesAsTokens(address staker, address strategy, address token, uint256 shares) external;
}

interface ITestPodManager {
    function beaconChainSlashingFactor(address staker) external view returns (uint64);
    function recordBeaconChainETHBalanceUpdate(address podOwner, uint256 prevRestakedBalanceWei, int256 balanceDeltaWei)
        external;
}

interface ITestDelegation {
    function increaseDelegatedShares(address staker, address strategy, uint256 prevDepositShares, uint256 addedShares)
        external;
    function decreaseDelegatedShares(address staker, uint256 curDepositShares, uint64 beaconChainSlashingFactorDecrease)
        external;
}

interface ITestBalance {
    function balanceOf(address account) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// StrategyBase: shares of one ERC-20 (the tokens it holds), converted with SHARES_OFFSET and
/// BALANCE_OFFSET of 1e3.
contract TestStrategy {
    uint256 internal constant SHARES_OFFSET = 1e3;
    uint256 internal constant BALANCE_OFFSET = 1e3;
    address public underlyingToken;
    uint256 public totalShares;

    event ExchangeRateEmitted(uint256 rate);

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

    /// The StrategyManager sent `amount` here first: shares at the rate before it arrived.
    function deposit(address token, uint256 amount) external returns (uint256 newShares) {
        require(token == underlyingToken, "OnlyUnderlyingToken");
        uint256 priorTotalShares = totalShares;
        uint256 virtualTokenBalance = ITestBalance(token).balanceOf(address(this)) + BALANCE_OFFSET;
        newShares = (amount * (priorTotalShares + SHARES_OFFSET)) / (virtualTokenBalance - amount);
        require(newShares != 0, "NewSharesZero");
        totalShares = priorTotalShares + newShares;
        emit ExchangeRateEmitted((1e18 * virtualTokenBalance) / (totalShares + SHARES_OFFSET));
    }

    function withdraw(address recipient, address token, uint256 amountShares) external returns (uint256 amountOut) {
        require(token == underlyingToken, "OnlyUnderlyingToken");
        uint256 priorTotalShares = totalShares;
        require(amountShares <= priorTotalShares, "WithdrawalAmountExceedsTotalDeposits");
        uint256 virtualTokenBalance = ITestBalance(token).balanceOf(address(this)) + BALANCE_OFFSET;
        amountOut = (virtualTokenBalance * amountShares) / (priorTotalShares + SHARES_OFFSET);
        totalShares = priorTotalShares - amountShares;
        emit ExchangeRateEmitted((1e18 * (virtualTokenBalance - amountOut)) / (totalShares + SHARES_OFFSET));
        ITestBalance(token).transfer(recipient, amountOut);
    }
}

/// The StrategyManager: each staker's strategies and deposit shares, and the strategies its
/// whitelister allowed deposits into.
contract TestStrategyManager is ITestShareManager {
    mapping(address => address[]) internal strategies;
    mapping(address => mapping(address => uint256)) public stakerDepositShares;
    mapping(address => bool) public strategyIsWhitelistedForDeposit;
    ITestDelegation public delegation;

    event Deposit(address staker, address strategy, uint256 shares);

    modifier onlyDelegationManager() {
        require(msg.sender == address(delegation), "OnlyDelegationManager");
        _;
    }

    /// Wiring (mainnet's is an immutable of the proxy's implementation).
    function setDelegationManager(ITestDelegation manager) external {
        delegation = manager;
    }

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

    function depositIntoStrategy(address strategy, address token, uint256 amount)
        external
        returns (uint256 depositShares)
    {
        require(strategyIsWhitelistedForDeposit[strategy], "StrategyNotWhitelistedForDeposit");
        ITestBalance(token).transferFrom(msg.sender, strategy, amount);
        depositShares = TestStrategy(strategy).deposit(token, amount);
        (uint256 prevDepositShares, uint256 addedShares) = _addShares(msg.sender, strategy, depositShares);
        delegation.increaseDelegatedShares(msg.sender, strategy, prevDepositShares, addedShares);
    }

    function addShares(address staker, address strategy, uint256 shares)
        external
        onlyDelegationManager
        returns (uint256, uint256)
    {
        return _addShares(staker, strategy, shares);
    }

    function removeDepositShares(address staker, address strategy, uint256 depositSharesToRemove)
        external
        onlyDelegationManager
        returns (uint256 userDepositShares)
    {
        require(depositSharesToRemove != 0, "SharesAmountZero");
        userDepositShares = stakerDepositShares[staker][strategy] - depositSharesToRemove;
        stakerDepositShares[staker][strategy] = userDepositShares;
        if (userDepositShares == 0) {
            address[] storage list = strategies[staker];
            for (uint256 j = 0; j < list.length; j++) {
                if (list[j] == strategy) {
                    list[j] = list[list.length - 1];
                    list.pop();
                    break;
                }
            }
        }
    }

    function withdrawSharesAsTokens(address staker, address strategy, address token, uint256 shares)
        external
        onlyDelegationManager
    {
        TestStrategy(strategy).withdraw(staker, token, shares);
    }

    function _addShares(address staker, address strategy, uint256 shares) internal returns (uint256, uint256) {
        require(shares != 0, "SharesAmountZero");
        uint256 prevDepositShares = stakerDepositShares[staker][strategy];
        if (prevDepositShares == 0) strategies[staker].push(strategy);
        stakerDepositShares[staker][strategy] = prevDepositShares + shares;
        emit Deposit(staker, strategy, shares);
        return (prevDepositShares, shares);
    }
}

/// An EigenPod: its owner, its validators' restaked balance and the native ETH a checkpoint has
/// accounted for, in gwei.
contract TestEigenPod {
    address public podOwner;
    address public immutable eigenPodManager;
    uint64 public withdrawableRestakedExecutionLayerGwei;
    uint64 public lastCheckpointTimestamp;
    uint64 internal beaconBalanceGwei;

    event ValidatorRestaked(bytes32 pubkeyHash);
    event ValidatorBalanceUpdated(bytes32 pubkeyHash, uint64 balanceTimestamp, uint64 newValidatorBalanceGwei);
    event CheckpointFinalized(uint64 indexed checkpointTimestamp, int256 totalShareDeltaWei);
    event RestakedBeaconChainETHWithdrawn(address indexed recipient, uint256 amount);
    event NonBeaconChainETHReceived(uint256 amountReceived);

    constructor(address owner) {
        podOwner = owner;
        eigenPodManager = msg.sender;
    }

    receive() external payable {
        emit NonBeaconChainETHReceived(msg.value);
    }

    function setWithdrawableGwei(uint64 amount) external {
        withdrawableRestakedExecutionLayerGwei = amount;
    }

    /// verifyWithdrawalCredentials for one validator (its proofs taken as read): its balance is
    /// restaked, as EigenPod._verifyWithdrawalCredentials and the manager's balance update do.
    function verifyWithdrawalCredentials(bytes32 pubkeyHash, uint64 balanceGwei) external {
        require(msg.sender == podOwner, "OnlyOwnerOrProofSubmitter");
        beaconBalanceGwei += balanceGwei;
        emit ValidatorRestaked(pubkeyHash);
        emit ValidatorBalanceUpdated(pubkeyHash, lastCheckpointTimestamp, balanceGwei);
        ITestPodManager(eigenPodManager).recordBeaconChainETHBalanceUpdate(
            podOwner, 0, int256(uint256(balanceGwei)) * 1 gwei
        );
    }

    /// A checkpoint started and finalized at once (its proofs taken as read): the validators'
    /// balances moved by `balanceDeltaGwei` (rewards, or a penalty or slashing), credited as
    /// EigenPod._updateCheckpoint does: CheckpointFinalized, then the manager's balance update.
    function checkpoint(int64 balanceDeltaGwei) external {
        uint64 prevRestakedBalanceGwei = withdrawableRestakedExecutionLayerGwei + beaconBalanceGwei;
        beaconBalanceGwei = uint64(int64(beaconBalanceGwei) + balanceDeltaGwei);
        lastCheckpointTimestamp = uint64(block.timestamp);
        int256 balanceDeltaWei = int256(balanceDeltaGwei) * 1 gwei;
        emit CheckpointFinalized(lastCheckpointTimestamp, balanceDeltaWei);
        ITestPodManager(eigenPodManager).recordBeaconChainETHBalanceUpdate(
            podOwner, uint256(prevRestakedBalanceGwei) * 1 gwei, balanceDeltaWei
        );
    }

    function withdrawRestakedBeaconChainETH(address recipient, uint256 amountWei) external {
        require(msg.sender == eigenPodManager, "OnlyEigenPodManager");
        withdrawableRestakedExecutionLayerGwei -= uint64(amountWei / 1 gwei);
        emit RestakedBeaconChainETHWithdrawn(recipient, amountWei);
        (bool sent,) = payable(recipient).call{value: amountWei}("");
        require(sent, "ETH not sent");
    }
}

/// The EigenPodManager: pods by owner, their (signed) beacon chain ETH deposit shares and their
/// beacon chain slashing factor (a balance that fell on the beacon chain lowers it).
contract TestEigenPodManager is ITestShareManager, ITestPodManager {
    uint64 internal constant WAD = 1e18;
    address public constant beaconChainETHStrategy = 0xbeaC0eeEeeeeEEeEeEEEEeeEEeEeeeEeeEEBEaC0;
    mapping(address => address) public ownerToPod;
    mapping(address => int256) public podOwnerDepositShares;
    mapping(address => uint64) internal slashingFactors;
    ITestDelegation public delegationManager;

    event PodDeployed(address indexed eigenPod, address indexed podOwner);
    event PodSharesUpdated(address indexed podOwner, int256 sharesDelta);
    event NewTotalShares(address indexed podOwner, int256 newTotalShares);
    event BeaconChainSlashingFactorDecreased(
        address staker, uint64 prevBeaconChainSlashingFactor, uint64 newBeaconChainSlashingFactor
    );

    modifier onlyDelegationManager() {
        require(msg.sender == address(delegationManager), "OnlyDelegationManager");
        _;
    }

    /// Wiring (mainnet's is an immutable of the proxy's implementation).
    function setDelegationManager(ITestDelegation manager) external {
        delegationManager = manager;
    }

    function createPod(address owner) external returns (address pod) {
        pod = address(new TestEigenPod(owner));
        ownerToPod[owner] = pod;
        emit PodDeployed(pod, owner);
    }

    function setShares(address owner, int256 shares) external {
        podOwnerDepositShares[owner] = shares;
    }

    function beaconChainSlashingFactor(address staker) public view returns (uint64) {
        uint64 factor = slashingFactors[staker];
        return factor == 0 ? WAD : factor;
    }

    /// A deficit (negative shares) counts as none, as EigenPodManager's does.
    function stakerDepositShares(address staker, address strategy) external view returns (uint256) {
        require(strategy == beaconChainETHStrategy, "InvalidStrategy");
        int256 shares = podOwnerDepositShares[staker];
        return shares < 0 ? 0 : uint256(shares);
    }

    function recordBeaconChainETHBalanceUpdate(address podOwner, uint256 prevRestakedBalanceWei, int256 balanceDeltaWei)
        external
    {
        require(msg.sender == ownerToPod[podOwner], "UnauthorizedCaller");
        int256 currentDepositShares = podOwnerDepositShares[podOwner];
        require(currentDepositShares >= 0, "LegacyWithdrawalsNotCompleted");
        if (balanceDeltaWei > 0) {
            (uint256 prevDepositShares, uint256 addedShares) = _addShares(podOwner, uint256(balanceDeltaWei));
            delegationManager.increaseDelegatedShares(podOwner, beaconChainETHStrategy, prevDepositShares, addedShares);
        } else if (balanceDeltaWei < 0) {
            uint64 previous = beaconChainSlashingFactor(podOwner);
            uint256 remaining = prevRestakedBalanceWei - uint256(-balanceDeltaWei);
            uint64 lowered = uint64(uint256(previous) * remaining / prevRestakedBalanceWei);
            slashingFactors[podOwner] = lowered;
            emit BeaconChainSlashingFactorDecreased(podOwner, previous, lowered);
            delegationManager.decreaseDelegatedShares(podOwner, uint256(currentDepositShares), previous - lowered);
        }
    }

    function addShares(address staker, address strategy, uint256 shares)
        external
        onlyDelegationManager
        returns (uint256, uint256)
    {
        require(strategy == beaconChainETHStrategy, "InvalidStrategy");
        return _addShares(staker, shares);
    }

    function removeDepositShares(address staker, address strategy, uint256 depositSharesToRemove)
        external
        onlyDelegationManager
        returns (uint256)
    {
        require(strategy == beaconChainETHStrategy, "InvalidStrategy");
        int256 updatedShares = podOwnerDepositShares[staker] - int256(depositSharesToRemove);
        require(updatedShares >= 0, "SharesNegative");
        podOwnerDepositShares[staker] = updatedShares;
        emit NewTotalShares(staker, updatedShares);
        return uint256(updatedShares);
    }

    function withdrawSharesAsTokens(address staker, address strategy, address, uint256 shares)
        external
        onlyDelegationManager
    {
        require(strategy == beaconChainETHStrategy, "InvalidStrategy");
        TestEigenPod(payable(ownerToPod[staker])).withdrawRestakedBeaconChainETH(staker, shares);
    }

    function _addShares(address staker, uint256 shares) internal returns (uint256, uint256) {
        int256 prevDepositShares = podOwnerDepositShares[staker];
        int256 updatedDepositShares = prevDepositShares + int256(shares);
        podOwnerDepositShares[staker] = updatedDepositShares;
        emit PodSharesUpdated(staker, int256(shares));
        emit NewTotalShares(staker, updatedDepositShares);
        if (updatedDepositShares <= 0) return (0, 0);
        if (prevDepositShares < 0) return (0, uint256(updatedDepositShares));
        return (uint256(prevDepositShares), shares);
    }
}

/// The DelegationManager of the slashing release: delegation, withdrawable shares (deposit shares x
/// the staker's deposit scaling factor x its slashing factor, each `mulWad`, rounded down) and the
/// withdrawal queue (scaled shares x the slashing factor; completable once `block.number` is past
/// `startBlock + MIN_WITHDRAWAL_DELAY_BLOCKS`). A slashing factor is the world's own for the staker
/// (set) x its operator's max magnitude x, for beacon chain ETH, the pod owner's beacon chain
/// slashing factor; a queued withdrawal pays its scaled shares at the factor of its completion (not
/// of its window's end, as EigenLayer's: no test slashes a withdrawal after its window).
contract TestDelegationManager is ITestDelegation {
    struct Withdrawal {
        address staker;
        address delegatedTo;
        address withdrawer;
        uint256 nonce;
        uint32 startBlock;
        address[] strategies;
        uint256[] scaledShares;
    }

    struct QueuedWithdrawalParams {
        address[] strategies;
        uint256[] depositShares;
        address __deprecated_withdrawer;
    }

    uint256 internal constant WAD = 1e18;
    address public constant beaconChainETHStrategy = 0xbeaC0eeEeeeeEEeEeEEEEeeEEeEeeeEeeEEBEaC0;
    ITestShareManager public immutable strategyManager;
    ITestShareManager public immutable eigenPodManager;
    uint32 internal immutable MIN_WITHDRAWAL_DELAY_BLOCKS;
    mapping(address => address) public delegatedTo;
    mapping(address => mapping(address => uint256)) internal scaling;
    mapping(address => mapping(address => uint256)) internal slashing;
    mapping(address => mapping(address => uint256)) internal magnitudes;
    mapping(address => mapping(address => uint256)) public operatorShares;
    mapping(bytes32 => Withdrawal) internal queuedWithdrawals;
    mapping(address => bytes32[]) internal queuedRoots;
    mapping(bytes32 => bool) public pendingWithdrawals;
    mapping(address => uint256) public cumulativeWithdrawalsQueued;

    event OperatorSharesIncreased(address indexed operator, address staker, address strategy, uint256 shares);
    event OperatorSharesDecreased(address indexed operator, address staker, address strategy, uint256 shares);
    event DepositScalingFactorUpdated(address staker, address strategy, uint256 newDepositScalingFactor);
    event SlashingWithdrawalQueued(bytes32 withdrawalRoot, Withdrawal withdrawal, uint256[] sharesToWithdraw);
    event SlashingWithdrawalCompleted(bytes32 withdrawalRoot);
    event OperatorSharesSlashed(address indexed operator, address strategy, uint256 totalSlashedShares);

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

    /// The staker's deposit scaling factor and its own slashing factor for a strategy (WAD).
    function setFactors(address staker, address strategy, uint256 depositScaling, uint256 slashingFactor) external {
        scaling[staker][strategy] = depositScaling;
        slashing[staker][strategy] = slashingFactor;
    }

    /// A withdrawal as queued before the world started (no shares moved, no event).
    function queue(Withdrawal calldata withdrawal) external {
        _store(withdrawal, calculateWithdrawalRoot(withdrawal));
        if (cumulativeWithdrawalsQueued[withdrawal.staker] <= withdrawal.nonce) {
            cumulativeWithdrawalsQueued[withdrawal.staker] = withdrawal.nonce + 1;
        }
    }

    /// An AVS slashed the operator in `strategy` down to `newMaxMagnitude` (the AllocationManager's
    /// slashOperator, then DelegationManager.slashOperatorShares): every staker delegated to it, and
    /// every withdrawal queued while it was, is worth that much less.
    function slashOperator(address operator, address strategy, uint256 newMaxMagnitude) external {
        uint256 previous = _magnitude(operator, strategy);
        uint256 shares = operatorShares[operator][strategy];
        uint256 slashed = shares - (shares * newMaxMagnitude + previous - 1) / previous;
        magnitudes[operator][strategy] = newMaxMagnitude;
        _decreaseDelegation(operator, address(0), strategy, slashed);
        emit OperatorSharesSlashed(operator, strategy, slashed);
    }

    function increaseDelegatedShares(address staker, address strategy, uint256 prevDepositShares, uint256 addedShares)
        external
    {
        require(
            msg.sender == address(strategyManager) || msg.sender == address(eigenPodManager),
            "OnlyStrategyManagerOrEigenPodManager"
        );
        _increaseDelegation(staker, strategy, prevDepositShares, addedShares);
    }

    function decreaseDelegatedShares(address staker, uint256 curDepositShares, uint64 beaconChainSlashingFactorDecrease)
        external
    {
        require(msg.sender == address(eigenPodManager), "OnlyEigenPodManager");
        address operator = delegatedTo[staker];
        if (operator == address(0)) return;
        uint256 factor = _magnitude(operator, beaconChainETHStrategy) * beaconChainSlashingFactorDecrease / WAD;
        uint256 removed = curDepositShares * _factor(scaling, staker, beaconChainETHStrategy) / WAD * factor / WAD;
        _decreaseDelegation(operator, staker, beaconChainETHStrategy, removed);
    }

    function queueWithdrawals(QueuedWithdrawalParams[] calldata params) external returns (bytes32[] memory roots) {
        roots = new bytes32[](params.length);
        address operator = delegatedTo[msg.sender];
        for (uint256 i = 0; i < params.length; i++) {
            require(params[i].strategies.length == params[i].depositShares.length, "InputArrayLengthMismatch");
            roots[i] = _removeSharesAndQueueWithdrawal(msg.sender, operator, params[i].strategies, params[i].depositShares);
        }
    }

    function completeQueuedWithdrawal(Withdrawal calldata withdrawal, address[] calldata tokens, bool receiveAsTokens)
        external
    {
        require(tokens.length == withdrawal.strategies.length, "InputArrayLengthMismatch");
        require(msg.sender == withdrawal.withdrawer, "WithdrawerNotCaller");
        bytes32 root = calculateWithdrawalRoot(withdrawal);
        require(pendingWithdrawals[root], "WithdrawalNotQueued");
        uint32 slashableUntil = withdrawal.startBlock + MIN_WITHDRAWAL_DELAY_BLOCKS;
        if (uint32(block.number) <= slashableUntil) revert WithdrawalDelayNotElapsed();
        uint256[] memory paid = _shares(queuedWithdrawals[root]);
        _remove(withdrawal.staker, root);
        emit SlashingWithdrawalCompleted(root);
        for (uint256 i = 0; i < withdrawal.strategies.length; i++) {
            if (paid[i] != 0) _pay(withdrawal.staker, withdrawal.strategies[i], tokens[i], paid[i], receiveAsTokens);
        }
    }

    /// A completed withdrawal's shares of one strategy: as tokens, or added back to the staker
    /// (delegated to its operator now).
    function _pay(address staker, address strategy, address token, uint256 shares, bool receiveAsTokens) internal {
        ITestShareManager manager = _shareManager(strategy);
        if (receiveAsTokens) {
            manager.withdrawSharesAsTokens(staker, strategy, token, shares);
            return;
        }
        (uint256 prevDepositShares, uint256 addedShares) = manager.addShares(staker, strategy, shares);
        _increaseDelegation(staker, strategy, prevDepositShares, addedShares);
    }

    function getWithdrawableShares(address staker, address[] memory strategies)
        public
        view
        returns (uint256[] memory withdrawableShares, uint256[] memory depositShares)
    {
        withdrawableShares = new uint256[](strategies.length);
        depositShares = new uint256[](strategies.length);
        address operator = delegatedTo[staker];
        for (uint256 i = 0; i < strategies.length; ++i) {
            depositShares[i] = _shareManager(strategies[i]).stakerDepositShares(staker, strategies[i]);
            withdrawableShares[i] = depositShares[i] * _factor(scaling, staker, strategies[i]) / WAD
                * _slashingFactor(staker, operator, strategies[i]) / WAD;
        }
    }

    function getQueuedWithdrawals(address staker)
        external
        view
        returns (Withdrawal[] memory withdrawals, uint256[][] memory shares)
    {
        bytes32[] memory roots = queuedRoots[staker];
        withdrawals = new Withdrawal[](roots.length);
        shares = new uint256[][](roots.length);
        for (uint256 i = 0; i < roots.length; ++i) {
            withdrawals[i] = queuedWithdrawals[roots[i]];
            shares[i] = _shares(withdrawals[i]);
        }
    }

    function getQueuedWithdrawal(bytes32 withdrawalRoot)
        external
        view
        returns (Withdrawal memory withdrawal, uint256[] memory shares)
    {
        withdrawal = queuedWithdrawals[withdrawalRoot];
        shares = _shares(withdrawal);
    }

    function calculateWithdrawalRoot(Withdrawal memory withdrawal) public pure returns (bytes32) {
        return keccak256(abi.encode(withdrawal));
    }

    function _removeSharesAndQueueWithdrawal(
        address staker,
        address operator,
        address[] calldata strategies,
        uint256[] calldata depositSharesToWithdraw
    ) internal returns (bytes32 root) {
        uint256[] memory scaledShares = new uint256[](strategies.length);
        uint256[] memory withdrawableShares = new uint256[](strategies.length);
        for (uint256 i = 0; i < strategies.length; ++i) {
            uint256 dsf = _factor(scaling, staker, strategies[i]);
            withdrawableShares[i] =
                depositSharesToWithdraw[i] * dsf / WAD * _slashingFactor(staker, operator, strategies[i]) / WAD;
            scaledShares[i] = depositSharesToWithdraw[i] * dsf / WAD;
            if (operator != address(0)) _decreaseDelegation(operator, staker, strategies[i], withdrawableShares[i]);
            if (_shareManager(strategies[i]).removeDepositShares(staker, strategies[i], depositSharesToWithdraw[i]) == 0) {
                scaling[staker][strategies[i]] = 0;
                emit DepositScalingFactorUpdated(staker, strategies[i], WAD);
            }
        }
        Withdrawal memory withdrawal = Withdrawal({
            staker: staker,
            delegatedTo: operator,
            withdrawer: staker,
            nonce: cumulativeWithdrawalsQueued[staker]++,
            startBlock: uint32(block.number),
            strategies: strategies,
            scaledShares: scaledShares
        });
        root = calculateWithdrawalRoot(withdrawal);
        _store(withdrawal, root);
        emit SlashingWithdrawalQueued(root, withdrawal, withdrawableShares);
    }

    /// SlashingLib.update: the deposit scaling factor that keeps the withdrawable shares as they
    /// were plus `addedShares`, at the staker's slashing factor under its operator now.
    function _increaseDelegation(address staker, address strategy, uint256 prevDepositShares, uint256 addedShares)
        internal
    {
        address operator = delegatedTo[staker];
        uint256 slashingFactor = _slashingFactor(staker, operator, strategy);
        require(slashingFactor != 0, "FullySlashed");
        if (addedShares == 0) return;
        uint256 dsf = _factor(scaling, staker, strategy);
        if (prevDepositShares == 0) {
            dsf = dsf * WAD / slashingFactor;
        } else {
            uint256 current = prevDepositShares * dsf / WAD * slashingFactor / WAD;
            dsf = (current + addedShares) * WAD / (prevDepositShares + addedShares) * WAD / slashingFactor;
        }
        scaling[staker][strategy] = dsf;
        emit DepositScalingFactorUpdated(staker, strategy, dsf);
        if (operator != address(0)) {
            operatorShares[operator][strategy] += addedShares;
            emit OperatorSharesIncreased(operator, staker, strategy, addedShares);
        }
    }

    /// The operator's shares less `shares` (none below zero: a world's set deposits gave it none).
    function _decreaseDelegation(address operator, address staker, address strategy, uint256 shares) internal {
        uint256 held = operatorShares[operator][strategy];
        operatorShares[operator][strategy] = held > shares ? held - shares : 0;
        emit OperatorSharesDecreased(operator, staker, strategy, shares);
    }

    function _store(Withdrawal memory withdrawal, bytes32 root) internal {
        queuedWithdrawals[root] = withdrawal;
        queuedRoots[withdrawal.staker].push(root);
        pendingWithdrawals[root] = true;
    }

    /// EnumerableSet.remove's order: the last root takes the removed one's place.
    function _remove(address staker, bytes32 root) internal {
        bytes32[] storage roots = queuedRoots[staker];
        for (uint256 i = 0; i < roots.length; i++) {
            if (roots[i] == root) {
                roots[i] = roots[roots.length - 1];
                roots.pop();
                break;
            }
        }
        delete queuedWithdrawals[root];
        delete pendingWithdrawals[root];
    }

    function _shares(Withdrawal memory withdrawal) internal view returns (uint256[] memory shares) {
        shares = new uint256[](withdrawal.strategies.length);
        for (uint256 j = 0; j < shares.length; ++j) {
            shares[j] = withdrawal.scaledShares[j]
                * _slashingFactor(withdrawal.staker, withdrawal.delegatedTo, withdrawal.strategies[j]) / WAD;
        }
    }

    function _slashingFactor(address staker, address operator, address strategy) internal view returns (uint256 factor) {
        factor = _factor(slashing, staker, strategy) * _magnitude(operator, strategy) / WAD;
        if (strategy == beaconChainETHStrategy) {
            factor = factor * ITestPodManager(address(eigenPodManager)).beaconChainSlashingFactor(staker) / WAD;
        }
    }

    function _magnitude(address operator, address strategy) internal view returns (uint256 magnitude) {
        magnitude = magnitudes[operator][strategy];
        if (magnitude == 0) magnitude = WAD;
    }

    function _shareManager(address strategy) internal view returns (ITestShareManager) {
        return strategy == beaconChainETHStrategy ? eigenPodManager : strategyManager;
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
