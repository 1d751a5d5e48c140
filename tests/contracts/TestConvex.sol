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
}

/// The Cvx token's public mint parameters, as Cvx.sol sets them.
contract TestCvx is TestToken {
    uint256 public maxSupply = 100 * 1000000 * 1e18;
    uint256 public totalCliffs = 1000;
    uint256 public reductionPerCliff = maxSupply / totalCliffs;

    constructor() TestToken("Convex Token", "CVX", 18) {}
}
