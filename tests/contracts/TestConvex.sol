// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "TestToken.sol";

/// Convex's contracts with the views of convex-eth/platform's sources (Booster, BaseRewardPool,
/// VirtualBalanceRewardPool, Cvx at 4f22038; tests/test_convex.py records their signatures),
/// with values the test sets. Convex publishes no npm package of its contracts.

contract TestBooster {
    struct PoolInfo {
        address lptoken;
        address token;
        address gauge;
        address crvRewards;
        address stash;
        bool shutdown;
    }

    PoolInfo[] public poolInfo;

    function add(address lptoken, address token, address gauge, address crvRewards, bool shutdown) external {
        poolInfo.push(PoolInfo(lptoken, token, gauge, crvRewards, address(0), shutdown));
    }

    function poolLength() external view returns (uint256) {
        return poolInfo.length;
    }

    /// Deposits through its own entry points, with Booster.sol's events: `deposit` takes the LP and,
    /// staking, stakes the deposit for the caller in the pool's reward pool (staking only here);
    /// `withdrawTo` (its reward pool's) pays the LP back; a reward pool's claim mints CVX.
    event Deposited(address indexed user, uint256 indexed poolid, uint256 amount);
    event Withdrawn(address indexed user, uint256 indexed poolid, uint256 amount);

    address public minter;

    function setMinter(address cvx) external {
        minter = cvx;
    }

    function deposit(uint256 pid, uint256 amount, bool stake) external returns (bool) {
        PoolInfo storage pool = poolInfo[pid];
        require(!pool.shutdown, "pool is closed");
        require(stake, "staking deposits only");
        TestToken(pool.lptoken).transferFrom(msg.sender, address(this), amount);
        TestBaseRewardPool(pool.crvRewards).stakeFor(msg.sender, amount);
        emit Deposited(msg.sender, pid, amount);
        return true;
    }

    function withdrawTo(uint256 pid, uint256 amount, address to) external returns (bool) {
        require(msg.sender == poolInfo[pid].crvRewards, "!auth");
        TestToken(poolInfo[pid].lptoken).transfer(to, amount);
        emit Withdrawn(to, pid, amount);
        return true;
    }

    function rewardClaimed(uint256 pid, address to, uint256 amount) external returns (bool) {
        require(msg.sender == poolInfo[pid].crvRewards, "!auth");
        TestCvx(minter).mintFor(to, amount);
        return true;
    }
}

/// The reward stream of a BaseRewardPool or a VirtualBalanceRewardPool: `rewardRate` a second
/// until `periodFinish`, as `notifyRewardAmount` sets them.
abstract contract TestRewardStream {
    uint256 public rewardRate;
    uint256 public periodFinish;

    function setRate(uint256 rate, uint256 finish) external {
        rewardRate = rate;
        periodFinish = finish;
    }
}

/// A BaseRewardPool (a pool's `crvRewards`): its Booster (`operator`) and pool id, deposits as
/// `balanceOf` and their `totalSupply`, CRV `earned`, extra rewards.
contract TestBaseRewardPool is TestRewardStream {
    address public rewardToken;
    address public operator;
    uint256 public pid;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => uint256) public earned;
    address[] public extraRewards;

    constructor(address crv) {
        rewardToken = crv;
    }

    function setPool(address booster, uint256 pid_) external {
        operator = booster;
        pid = pid_;
    }

    function set(address account, uint256 balance, uint256 crv) external {
        totalSupply = totalSupply - balanceOf[account] + balance;
        balanceOf[account] = balance;
        earned[account] = crv;
    }

    function addExtraReward(address pool) external {
        extraRewards.push(pool);
    }

    function extraRewardsLength() external view returns (uint256) {
        return extraRewards.length;
    }

    /// Staking and claims through BaseRewardPool's entry points, with its events (`Staked`,
    /// `Withdrawn`, `RewardPaid`, the user indexed): the Booster's deposit stakes for the user,
    /// `stake` and `withdraw` move the deposit token (here the LP itself), `withdrawAndUnwrap`
    /// pays the LP back through the Booster, `getReward` pays CRV, has the Booster mint CVX and
    /// pays the extra rewards.
    event Staked(address indexed user, uint256 amount);
    event Withdrawn(address indexed user, uint256 amount);
    event RewardPaid(address indexed user, uint256 reward);

    address public stakingToken;

    function setStakingToken(address token) external {
        stakingToken = token;
    }

    function _staked(address account, uint256 amount) internal {
        totalSupply += amount;
        balanceOf[account] += amount;
        emit Staked(account, amount);
    }

    function stakeFor(address account, uint256 amount) external returns (bool) {
        require(msg.sender == operator, "booster only here");
        _staked(account, amount);
        return true;
    }

    function stake(uint256 amount) external returns (bool) {
        TestToken(stakingToken).transferFrom(msg.sender, address(this), amount);
        _staked(msg.sender, amount);
        return true;
    }

    function _unstaked(uint256 amount) internal {
        totalSupply -= amount;
        balanceOf[msg.sender] -= amount;
    }

    function withdraw(uint256 amount, bool claim) external returns (bool) {
        _unstaked(amount);
        TestToken(stakingToken).transfer(msg.sender, amount);
        emit Withdrawn(msg.sender, amount);
        if (claim) getReward(msg.sender, true);
        return true;
    }

    function withdrawAndUnwrap(uint256 amount, bool claim) external returns (bool) {
        _unstaked(amount);
        TestBooster(operator).withdrawTo(pid, amount, msg.sender); // the Booster holds a deposit's LP here
        emit Withdrawn(msg.sender, amount);
        if (claim) getReward(msg.sender, true);
        return true;
    }

    function getReward(address account, bool claimExtras) public returns (bool) {
        uint256 reward = earned[account];
        if (reward > 0) {
            earned[account] = 0;
            TestToken(rewardToken).mint(address(this), reward);
            TestToken(rewardToken).transfer(account, reward);
            TestBooster(operator).rewardClaimed(pid, account, reward);
            emit RewardPaid(account, reward);
        }
        if (claimExtras) {
            for (uint256 i = 0; i < extraRewards.length; i++) {
                TestVirtualBalanceRewardPool(extraRewards[i]).getReward(account);
            }
        }
        return true;
    }

    function getReward() external returns (bool) {
        return getReward(msg.sender, true);
    }
}

/// A VirtualBalanceRewardPool (an extra reward): its token and what each account has earned.
contract TestVirtualBalanceRewardPool is TestRewardStream {
    address public rewardToken;
    mapping(address => uint256) public earned;

    constructor(address token) {
        rewardToken = token;
    }

    function set(address account, uint256 amount) external {
        earned[account] = amount;
    }

    event RewardPaid(address indexed user, uint256 reward);

    /// VirtualBalanceRewardPool's `getReward(account)`: its token paid, `RewardPaid` logged.
    function getReward(address account) external {
        uint256 reward = earned[account];
        if (reward > 0) {
            earned[account] = 0;
            TestToken(rewardToken).mint(address(this), reward);
            TestToken(rewardToken).transfer(account, reward);
            emit RewardPaid(account, reward);
        }
    }
}

/// The Cvx token's public mint parameters, as Cvx.sol sets them.
contract TestCvx is TestToken {
    uint256 public maxSupply = 100 * 1000000 * 1e18;
    uint256 public totalCliffs = 1000;
    uint256 public reductionPerCliff = maxSupply / totalCliffs;

    constructor() TestToken("Convex Token", "CVX", 18) {}

    /// Cvx.sol's `mint(to, amount)` for the CRV a claim paid: reduced by the supply's cliff.
    function mintFor(address to, uint256 crv) external {
        uint256 amount = crv;
        if (totalSupply != 0) {
            uint256 cliff = totalSupply / reductionPerCliff;
            if (cliff >= totalCliffs) return;
            amount = (crv * (totalCliffs - cliff)) / totalCliffs;
            if (amount > maxSupply - totalSupply) amount = maxSupply - totalSupply;
        }
        balanceOf[to] += amount;
        totalSupply += amount;
        emit Transfer(address(0), to, amount);
    }
}
