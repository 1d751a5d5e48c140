// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "TestToken.sol";

interface IPull {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// AURA as the adapter reads it: an ERC-20 with the views of Aura.sol's mint formula
/// (INIT_MINT_AMOUNT, EMISSIONS_MAX_SUPPLY, totalCliffs, reductionPerCliff) and a `mint` by its
/// operator that adds what that formula gives, written here from the published contract's rules
/// (aurafinance/aura-contracts contracts/core/Aura.sol): no package ships Aura's bytecode.
contract TestAuraToken is TestToken {
    uint256 public constant EMISSIONS_MAX_SUPPLY = 5e25;
    uint256 public constant INIT_MINT_AMOUNT = 5e25;
    uint256 public constant totalCliffs = 500;
    uint256 public constant reductionPerCliff = EMISSIONS_MAX_SUPPLY / totalCliffs;
    address public operator;

    constructor() TestToken("Aura", "AURA", 18) {
        operator = msg.sender;
        _credit(msg.sender, INIT_MINT_AMOUNT);
    }

    /// @dev What a claim of `bal` BAL mints: by the cliff the emissions so far reached.
    function mintFor(address to, uint256 bal) external {
        require(msg.sender == operator, "operator only");
        uint256 emitted = totalSupply - INIT_MINT_AMOUNT;
        uint256 cliff = emitted / reductionPerCliff;
        if (cliff >= totalCliffs) return;
        uint256 amount = (bal * ((totalCliffs - cliff) * 5 / 2 + 700)) / totalCliffs;
        uint256 left = EMISSIONS_MAX_SUPPLY - emitted;
        _credit(to, amount > left ? left : amount);
    }

    function _credit(address to, uint256 amount) private {
        balanceOf[to] += amount;
        totalSupply += amount;
        emit Transfer(address(0), to, amount);
    }
}

/// A stash token: Aura pays extra rewards in these, each unwrapping to its `baseToken`.
contract TestAuraStashToken {
    address public immutable baseToken;

    constructor(address base) {
        baseToken = base;
    }
}

/// A BaseRewardPool (and, without stakes, a VirtualBalanceRewardPool) with the views the adapter
/// reads (convex-platform's BaseRewardPool.sol): stakes by the Booster, `earned` set by the test.
contract TestAuraRewardPool {
    address public immutable rewardToken;
    address public immutable operator;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => uint256) public earned;
    address[] public extraRewards;

    constructor(address reward, address booster) {
        rewardToken = reward;
        operator = booster;
    }

    function stakeFor(address account, uint256 amount) external {
        require(msg.sender == operator, "booster only");
        balanceOf[account] += amount;
        totalSupply += amount;
    }

    function extraRewardsLength() external view returns (uint256) {
        return extraRewards.length;
    }

    function addExtraReward(address pool) external {
        extraRewards.push(pool);
    }

    function setEarned(address account, uint256 amount) external {
        earned[account] = amount;
    }
}

/// Aura's Booster as the adapter reads it (`poolLength`, `poolInfo(pid)` with its published
/// fields): `addPool` makes a pool's reward pool, `deposit` takes BPT and stakes it for the sender.
contract TestAuraBooster {
    struct PoolInfo {
        address lptoken;
        address token;
        address gauge;
        address crvRewards;
        address stash;
        bool shutdown;
    }

    PoolInfo[] public poolInfo;
    address public immutable bal;

    constructor(address bal_) {
        bal = bal_;
    }

    function poolLength() external view returns (uint256) {
        return poolInfo.length;
    }

    function addPool(address lptoken, address gauge) external returns (address rewards) {
        rewards = address(new TestAuraRewardPool(bal, address(this)));
        poolInfo.push(PoolInfo(lptoken, address(0), gauge, rewards, address(0), false));
    }

    function deposit(uint256 pid, uint256 amount) external {
        PoolInfo memory pool = poolInfo[pid];
        IPull(pool.lptoken).transferFrom(msg.sender, address(this), amount);
        TestAuraRewardPool(pool.crvRewards).stakeFor(msg.sender, amount);
    }
}
