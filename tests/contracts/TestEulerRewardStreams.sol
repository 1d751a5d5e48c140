// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

// Euler's reward streams as a wallet reads them: euler-xyz/reward-streams' TrackingRewardStreams
// (src/BaseRewardStreams.sol and src/TrackingRewardStreams.sol at a63c358), written afresh with its
// signatures, events and integer arithmetic: amounts registered per epoch, an accumulator per
// (rewarded, reward) distribution grown by each epoch's amount x the time elapsed in it, x SCALER,
// / EPOCH_DURATION / the total eligible balance, and an account's claimable grown by its balance x
// the accumulator's growth since its own snapshot. Kept apart from the test vault (TestEuler.sol),
// which must stay under EIP-170's size: balances reach it through `balanceTrackerHook`, called by
// the rewarded vault as EVK's balance forwarder calls it.
//
// Left out: ReentrancyGuard, `updateReward`'s spillover claim, `disableReward`, and the EVC
// compatibility check of a claim's recipient (a claim pays the account itself here).

interface IRewardStreamsToken {
    function balanceOf(address) external view returns (uint256);
    function transfer(address, uint256) external returns (bool);
    function transferFrom(address, address, uint256) external returns (bool);
}

interface IRewardStreamsEVC {
    function getCurrentOnBehalfOfAccount(address controllerToCheck) external view returns (address, bool);
}

contract TestRewardStreams {
    uint256 public immutable EPOCH_DURATION;
    uint256 public constant MAX_EPOCHS_AHEAD = 5;
    uint256 public constant MAX_DISTRIBUTION_LENGTH = 25;
    uint256 public constant MAX_REWARDS_ENABLED = 5;
    uint256 internal constant EPOCHS_PER_SLOT = 2;
    uint256 internal constant SCALER = 2e19;

    struct DistributionStorage {
        uint48 lastUpdated;
        uint160 accumulator;
        uint256 totalEligible;
        uint128 totalRegistered;
        uint128 totalClaimed;
        mapping(uint256 => uint128[EPOCHS_PER_SLOT]) amounts;
    }

    struct EarnStorage {
        uint96 claimable;
        uint160 accumulator;
    }

    struct AccountStorage {
        uint256 balance;
        address[] enabledRewards;
        mapping(address => EarnStorage) earned;
    }

    address public immutable evc;
    mapping(address => mapping(address => DistributionStorage)) internal distributions;
    mapping(address => mapping(address => AccountStorage)) internal accounts;

    event RewardRegistered(
        address indexed caller, address indexed rewarded, address indexed reward, uint256 startEpoch, uint128[] amounts
    );
    event RewardEnabled(address indexed account, address indexed rewarded, address indexed reward);
    event RewardClaimed(address indexed account, address indexed rewarded, address indexed reward, uint256 amount);
    event BalanceUpdated(address indexed account, address indexed rewarded, uint256 oldBalance, uint256 newBalance);

    error InvalidEpoch();
    error InvalidAmount();
    error InvalidDistribution();
    error AccumulatorOverflow();
    error TooManyRewardsEnabled();

    constructor(address evc_, uint48 epochDuration) {
        if (epochDuration < 7 days || epochDuration > 10 * 7 days) revert InvalidEpoch();
        evc = evc_;
        EPOCH_DURATION = epochDuration;
    }

    function registerReward(address rewarded, address reward, uint48 startEpoch, uint128[] calldata rewardAmounts)
        external
    {
        uint48 epoch = currentEpoch();
        if (startEpoch == 0) startEpoch = epoch + 1;
        if (!(startEpoch > epoch && startEpoch <= epoch + MAX_EPOCHS_AHEAD)) revert InvalidEpoch();
        if (rewardAmounts.length > MAX_DISTRIBUTION_LENGTH) revert InvalidDistribution();
        uint256 totalAmount;
        for (uint256 i = 0; i < rewardAmounts.length; ++i) {
            totalAmount += rewardAmounts[i];
        }
        if (totalAmount == 0) revert InvalidAmount();
        DistributionStorage storage distribution = distributions[rewarded][reward];
        address sender = _msgSender();
        if (distribution.lastUpdated == 0) {
            distribution.lastUpdated = uint48(block.timestamp);
        } else {
            // updateReward(rewarded, reward, address(0)): the caller's own earnings brought up first
            uint256 balance = isRewardEnabled(sender, rewarded, reward) ? accounts[sender][rewarded].balance : 0;
            _update(distribution, accounts[sender][rewarded].earned[reward], rewarded, reward, balance, false);
        }
        uint256 totalRegistered = uint256(distribution.totalRegistered) + totalAmount;
        if (SCALER * totalRegistered > type(uint160).max) revert AccumulatorOverflow();
        distribution.totalRegistered = uint128(totalRegistered);
        for (uint48 i = 0; i < rewardAmounts.length; ++i) {
            uint48 at = startEpoch + i;
            distribution.amounts[at / EPOCHS_PER_SLOT][at % EPOCHS_PER_SLOT] += rewardAmounts[i];
        }
        uint256 before = IRewardStreamsToken(reward).balanceOf(address(this));
        require(IRewardStreamsToken(reward).transferFrom(sender, address(this), totalAmount));
        if (IRewardStreamsToken(reward).balanceOf(address(this)) - before != totalAmount) revert InvalidAmount();
        emit RewardRegistered(sender, rewarded, reward, startEpoch, rewardAmounts);
    }

    function enableReward(address rewarded, address reward) external returns (bool) {
        address sender = _msgSender();
        AccountStorage storage account = accounts[sender][rewarded];
        for (uint256 i = 0; i < account.enabledRewards.length; ++i) {
            if (account.enabledRewards[i] == reward) return false;
        }
        account.enabledRewards.push(reward);
        if (account.enabledRewards.length > MAX_REWARDS_ENABLED) revert TooManyRewardsEnabled();
        DistributionStorage storage distribution = distributions[rewarded][reward];
        _update(distribution, account.earned[reward], rewarded, reward, 0, false);
        distribution.totalEligible += account.balance;
        emit RewardEnabled(sender, rewarded, reward);
        return true;
    }

    function claimReward(address rewarded, address reward, address recipient, bool ignoreRecentReward)
        external
        returns (uint256 amount)
    {
        address sender = _msgSender();
        AccountStorage storage account = accounts[sender][rewarded];
        uint256 balance = isRewardEnabled(sender, rewarded, reward) ? account.balance : 0;
        DistributionStorage storage distribution = distributions[rewarded][reward];
        _update(distribution, account.earned[reward], rewarded, reward, balance, ignoreRecentReward);
        EarnStorage storage earned = account.earned[reward];
        amount = earned.claimable;
        if (amount != 0) {
            distribution.totalClaimed += uint128(amount);
            assert(distribution.totalRegistered >= distribution.totalClaimed);
            earned.claimable = 0;
            require(IRewardStreamsToken(reward).transfer(recipient, amount));
            emit RewardClaimed(sender, rewarded, reward, amount);
        }
    }

    /// TrackingRewardStreams' hook: the rewarded token (msg.sender) reports an account's new balance.
    function balanceTrackerHook(address account, uint256 newAccountBalance, bool forfeitRecentReward) external {
        address rewarded = msg.sender;
        AccountStorage storage stored = accounts[account][rewarded];
        uint256 current = stored.balance;
        if (newAccountBalance > current) forfeitRecentReward = false;
        for (uint256 i = 0; i < stored.enabledRewards.length; ++i) {
            address reward = stored.enabledRewards[i];
            DistributionStorage storage distribution = distributions[rewarded][reward];
            _update(distribution, stored.earned[reward], rewarded, reward, current, forfeitRecentReward);
            distribution.totalEligible = distribution.totalEligible + newAccountBalance - current;
        }
        stored.balance = newAccountBalance;
        emit BalanceUpdated(account, rewarded, current, newAccountBalance);
    }

    // ---- views

    function earnedReward(address account, address rewarded, address reward, bool ignoreRecentReward)
        external
        view
        returns (uint256)
    {
        AccountStorage storage stored = accounts[account][rewarded];
        uint256 balance = isRewardEnabled(account, rewarded, reward) ? stored.balance : 0;
        (,, uint96 claimable, uint96 deltaAccountZero) =
            _calculate(distributions[rewarded][reward], stored.earned[reward], balance, ignoreRecentReward);
        if (account == address(0) && deltaAccountZero != 0) return claimable + deltaAccountZero;
        return claimable;
    }

    function enabledRewards(address account, address rewarded) external view returns (address[] memory) {
        return accounts[account][rewarded].enabledRewards;
    }

    function isRewardEnabled(address account, address rewarded, address reward) public view returns (bool) {
        address[] storage enabled = accounts[account][rewarded].enabledRewards;
        for (uint256 i = 0; i < enabled.length; ++i) {
            if (enabled[i] == reward) return true;
        }
        return false;
    }

    function balanceOf(address account, address rewarded) external view returns (uint256) {
        return accounts[account][rewarded].balance;
    }

    function rewardAmount(address rewarded, address reward) external view returns (uint256) {
        return rewardAmount(rewarded, reward, currentEpoch());
    }

    function totalRewardedEligible(address rewarded, address reward) external view returns (uint256) {
        return distributions[rewarded][reward].totalEligible;
    }

    function totalRewardRegistered(address rewarded, address reward) external view returns (uint256) {
        return distributions[rewarded][reward].totalRegistered;
    }

    function totalRewardClaimed(address rewarded, address reward) external view returns (uint256) {
        return distributions[rewarded][reward].totalClaimed;
    }

    function rewardAmount(address rewarded, address reward, uint48 epoch) public view returns (uint256) {
        return distributions[rewarded][reward].amounts[epoch / EPOCHS_PER_SLOT][epoch % EPOCHS_PER_SLOT];
    }

    function currentEpoch() public view returns (uint48) {
        return getEpoch(uint48(block.timestamp));
    }

    function getEpoch(uint48 timestamp) public view returns (uint48) {
        return uint48(timestamp / EPOCH_DURATION);
    }

    function getEpochStartTimestamp(uint48 epoch) public view returns (uint48) {
        return uint48(epoch * EPOCH_DURATION);
    }

    function getEpochEndTimestamp(uint48 epoch) public view returns (uint48) {
        return uint48(getEpochStartTimestamp(epoch) + EPOCH_DURATION);
    }

    // ---- internals

    /// EVCUtil's `_msgSender`: the account the EVC acts for when it is the caller.
    function _msgSender() internal view returns (address sender) {
        sender = msg.sender;
        if (sender == evc) (sender,) = IRewardStreamsEVC(evc).getCurrentOnBehalfOfAccount(address(0));
    }

    function _update(
        DistributionStorage storage distribution,
        EarnStorage storage earned,
        address rewarded,
        address reward,
        uint256 balance,
        bool ignoreRecentReward
    ) internal {
        (uint48 lastUpdated, uint160 accumulator, uint96 claimable, uint96 deltaAccountZero) =
            _calculate(distribution, earned, balance, ignoreRecentReward);
        distribution.lastUpdated = lastUpdated;
        distribution.accumulator = accumulator;
        earned.claimable = claimable;
        earned.accumulator = accumulator;
        if (deltaAccountZero != 0) accounts[address(0)][rewarded].earned[reward].claimable += deltaAccountZero;
    }

    function _calculate(
        DistributionStorage storage distribution,
        EarnStorage storage earned,
        uint256 balance,
        bool ignoreRecentReward
    ) internal view returns (uint48 lastUpdated, uint160 accumulator, uint96 claimable, uint96 deltaAccountZero) {
        lastUpdated = distribution.lastUpdated;
        accumulator = distribution.accumulator;
        claimable = earned.claimable;
        if (lastUpdated == 0) return (lastUpdated, accumulator, claimable, 0);
        if (!ignoreRecentReward) {
            uint48 epochEnd = currentEpoch() + 1;
            uint256 delta;
            for (uint48 epoch = getEpoch(lastUpdated); epoch < epochEnd; ++epoch) {
                delta += distribution.amounts[epoch / EPOCHS_PER_SLOT][epoch % EPOCHS_PER_SLOT]
                    * _timeElapsedInEpoch(epoch, lastUpdated);
            }
            uint256 totalEligible = distribution.totalEligible;
            if (totalEligible == 0) {
                deltaAccountZero = uint96(delta / EPOCH_DURATION);
            } else {
                accumulator += uint160(delta * SCALER / EPOCH_DURATION / totalEligible);
            }
            lastUpdated = uint48(block.timestamp);
        }
        claimable += uint96(uint256(accumulator - earned.accumulator) * balance / SCALER);
    }

    function _timeElapsedInEpoch(uint48 epoch, uint48 lastUpdated) internal view returns (uint256) {
        uint256 start = getEpochStartTimestamp(epoch);
        uint256 end = getEpochEndTimestamp(epoch);
        if (block.timestamp >= end) return lastUpdated > start ? end - lastUpdated : EPOCH_DURATION;
        if (block.timestamp >= start) return lastUpdated > start ? block.timestamp - lastUpdated : block.timestamp - start;
        return 0;
    }
}
