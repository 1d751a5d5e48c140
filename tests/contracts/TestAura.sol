// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "TestToken.sol";

interface IPull {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// AURA as the adapter reads it: an ERC-20 with the views of Aura.sol's mint formula
/// (INIT_MINT_AMOUNT, EMISSIONS_MAX_SUPPLY, totalCliffs, reductionPerCliff) and its `operator`,
/// the one Booster whose claims mint; `mintFor` (its deployer's) adds what Aura.sol's `mint` adds
/// for the operator, written here from the published contract's rules (aurafinance/aura-contracts
/// contracts/core/Aura.sol): no package ships Aura's bytecode.
contract TestAuraToken is TestToken {
    uint256 public constant EMISSIONS_MAX_SUPPLY = 5e25;
    uint256 public constant INIT_MINT_AMOUNT = 5e25;
    uint256 public constant totalCliffs = 500;
    uint256 public constant reductionPerCliff = EMISSIONS_MAX_SUPPLY / totalCliffs;
    address public operator;
    address private immutable deployer;

    constructor() TestToken("Aura", "AURA", 18) {
        deployer = msg.sender;
        operator = msg.sender;
        _credit(msg.sender, INIT_MINT_AMOUNT);
    }

    /// @dev Aura.sol's `updateOperator` takes the voter proxy's operator; here the deployer names it.
    function setOperator(address booster) external {
        require(msg.sender == deployer, "deployer only");
        operator = booster;
    }

    /// @dev What a claim of `bal` BAL mints: by the cliff the emissions so far reached.
    function mintFor(address to, uint256 bal) external {
        require(msg.sender == deployer, "deployer only");
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

/// A sidechain's L2Coordinator as the adapter reads it (aurafinance/aura-contracts
/// contracts/sidechain/L2Coordinator.sol): `mintRate()` from the BAL and AURA accrued, and `mint`
/// paying bal x mintRate / 1e18 of the AuraOFT it holds, reverting as the published one does.
/// `setAccrued` stands in for the Booster's `queueNewRewards` and the L1's fee callback.
contract TestL2Coordinator {
    address public immutable auraOFT;
    uint256 public accBalRewards;
    uint256 public accAuraRewards;

    constructor(address oft) {
        auraOFT = oft;
    }

    function mintRate() public view returns (uint256) {
        if (accBalRewards == 0) return 0;
        return (accAuraRewards * 1e18) / accBalRewards;
    }

    function setAccrued(uint256 bal, uint256 aura) external {
        accBalRewards = bal;
        accAuraRewards = aura;
    }

    function mint(address to, uint256 amount) external {
        uint256 rate = mintRate();
        require(rate > 0, "!mintRate");
        uint256 paid = (amount * rate) / 1e18;
        accBalRewards -= amount;
        accAuraRewards -= paid;
        TestToken(auraOFT).transfer(to, paid);
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
/// reads (convex-platform's BaseRewardPool.sol): stakes by the Booster, `earned` set by the test,
/// and the rate its `notifyRewardAmount` would set (`rewardRate` until `periodFinish`).
contract TestAuraRewardPool {
    address public immutable rewardToken;
    address public immutable operator;
    uint256 public totalSupply;
    uint256 public rewardRate;
    uint256 public periodFinish;
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

    function setRewardRate(uint256 rate, uint256 finish) external {
        rewardRate = rate;
        periodFinish = finish;
    }
}

/// A Booster without reward multipliers, as the adapter reads it (`poolLength`, `poolInfo(pid)`
/// with its published fields): Ethereum's 2022 Booster (aura's convex-platform Booster.sol before
/// c17d050) and a sidechain's BoosterLite. `addPool` makes a pool's deposit token and reward pool,
/// `deposit` takes BPT and stakes it for the sender, `shutdownPool` marks a pool shut down.
contract TestAuraBoosterLite {
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
        address token = address(new TestToken("Aura Deposit", "aura-deposit", 18));
        poolInfo.push(PoolInfo(lptoken, token, gauge, rewards, address(0), false));
        _added(rewards);
    }

    function deposit(uint256 pid, uint256 amount) external {
        PoolInfo memory pool = poolInfo[pid];
        IPull(pool.lptoken).transferFrom(msg.sender, address(this), amount);
        TestAuraRewardPool(pool.crvRewards).stakeFor(msg.sender, amount);
    }

    function shutdownPool(uint256 pid) external {
        poolInfo[pid].shutdown = true;
    }

    function _added(address rewards) internal virtual {}
}

/// Aura's current Booster on Ethereum: also `getRewardMultipliers(rewardPool)` (10000 = 100%, the
/// default `addPool` sets), what its `rewardClaimed` multiplies the BAL by before AURA's `mint`.
contract TestAuraBooster is TestAuraBoosterLite {
    mapping(address => uint256) public getRewardMultipliers;

    constructor(address bal_) TestAuraBoosterLite(bal_) {}

    function setRewardMultiplier(address rewards, uint256 multiplier) external {
        getRewardMultipliers[rewards] = multiplier;
    }

    function _added(address rewards) internal override {
        getRewardMultipliers[rewards] = 10000;
    }
}
