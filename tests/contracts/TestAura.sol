// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "TestToken.sol";

interface IPull {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);

    function transfer(address to, uint256 amount) external returns (bool);
}

interface IRewardMinter {
    function mint(address to, uint256 amount) external;
}

interface IRewardClaimed {
    function rewardClaimed(uint256 pid, address account, uint256 amount) external returns (bool);

    function withdrawTo(uint256 pid, uint256 amount, address to) external returns (bool);
}

interface IExtraReward {
    function getReward(address account) external;
}

/// AURA as the adapter reads it: an ERC-20 with the views of Aura.sol's mint formula
/// (INIT_MINT_AMOUNT, EMISSIONS_MAX_SUPPLY, totalCliffs, reductionPerCliff) and its `operator`,
/// the one Booster whose claims mint: its `mint` adds what Aura.sol's `mint` adds for the operator
/// and returns without minting for any other caller (but the deployer, whose mints are plain), and
/// `mintFor` (its deployer's) the same for the tests, written here from the published contract's
/// rules (aurafinance/aura-contracts contracts/core/Aura.sol): no package ships Aura's bytecode.
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

    function mint(address to, uint256 amount) external override {
        if (msg.sender == deployer) {
            _credit(to, amount);
        } else if (msg.sender == operator) {
            _mintFor(to, amount);
        }
    }

    /// @dev What a claim of `bal` BAL mints: by the cliff the emissions so far reached.
    function mintFor(address to, uint256 bal) external {
        require(msg.sender == deployer, "deployer only");
        _mintFor(to, bal);
    }

    function _mintFor(address to, uint256 bal) private {
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

/// A stash token: Aura pays extra rewards in these, each unwrapping to its `baseToken` (its
/// `transfer` pays the base token, as StashToken.sol's).
contract TestAuraStashToken {
    address public immutable baseToken;

    constructor(address base) {
        baseToken = base;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        return IPull(baseToken).transfer(to, amount);
    }
}

/// A BaseRewardPool4626 (and, without stakes, a VirtualBalanceRewardPool) with the views the
/// adapter reads and the events a deposit, a withdrawal and a claim emit (aura's convex-platform
/// BaseRewardPool.sol and BaseRewardPool4626.sol at 6c8abb2): stakes by the Booster (`Staked`,
/// and a Transfer from zero), ERC-4626's `deposit` (`Deposit` and `Staked`), `withdrawAndUnwrap`
/// (`Withdrawn`, a Transfer to zero, the Booster's `withdrawTo` paying the BPT), `getReward`
/// paying `earned` (set by the test) with `RewardPaid` after the Booster's `rewardClaimed`, then
/// each extra reward pool's; a VirtualBalanceRewardPool's `getReward(account)` pays its stash
/// token, which pays its base token. The rate its `notifyRewardAmount` would set: `rewardRate`
/// until `periodFinish`.
contract TestAuraRewardPool {
    address public immutable rewardToken;
    address public immutable operator;
    uint256 public immutable pid;
    address public immutable asset;
    uint256 public totalSupply;
    uint256 public rewardRate;
    uint256 public periodFinish;
    mapping(address => uint256) public balanceOf;
    mapping(address => uint256) public earned;
    address[] public extraRewards;

    event Staked(address indexed user, uint256 amount);
    event Withdrawn(address indexed user, uint256 amount);
    event RewardPaid(address indexed user, uint256 reward);
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Deposit(address indexed caller, address indexed owner, uint256 assets, uint256 shares);

    constructor(address reward, address booster, uint256 pid_, address asset_) {
        rewardToken = reward;
        operator = booster;
        pid = pid_;
        asset = asset_;
    }

    function stakeFor(address account, uint256 amount) external {
        require(msg.sender == operator, "booster only");
        _processStake(amount, account);
        emit Staked(account, amount);
    }

    /// @dev ERC-4626's deposit: the BPT goes to the Booster (Aura's goes through its deposit,
    /// unstaked), then the stake is the receiver's.
    function deposit(uint256 assets, address receiver) external returns (uint256) {
        IPull(asset).transferFrom(msg.sender, operator, assets);
        _processStake(assets, receiver);
        emit Deposit(msg.sender, receiver, assets, assets);
        emit Staked(receiver, assets);
        return assets;
    }

    function withdrawAndUnwrap(uint256 amount, bool claim) external returns (bool) {
        balanceOf[msg.sender] -= amount;
        totalSupply -= amount;
        IRewardClaimed(operator).withdrawTo(pid, amount, msg.sender);
        emit Withdrawn(msg.sender, amount);
        emit Transfer(msg.sender, address(0), amount);
        if (claim) getReward(msg.sender, true);
        return true;
    }

    function getReward(address account, bool claimExtras) public returns (bool) {
        uint256 reward = earned[account];
        if (reward > 0) {
            earned[account] = 0;
            IPull(rewardToken).transfer(account, reward);
            IRewardClaimed(operator).rewardClaimed(pid, account, reward);
            emit RewardPaid(account, reward);
        }
        if (claimExtras) {
            for (uint256 i = 0; i < extraRewards.length; i++) {
                IExtraReward(extraRewards[i]).getReward(account);
            }
        }
        return true;
    }

    /// @dev A VirtualBalanceRewardPool's claim.
    function getReward(address account) external {
        uint256 reward = earned[account];
        if (reward > 0) {
            earned[account] = 0;
            IPull(rewardToken).transfer(account, reward);
            emit RewardPaid(account, reward);
        }
    }

    function _processStake(uint256 amount, address account) private {
        balanceOf[account] += amount;
        totalSupply += amount;
        emit Transfer(address(0), account, amount);
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
/// `deposit` takes BPT and stakes it for the sender (`Deposited`), `withdrawTo` pays a reward
/// pool's withdrawal (`Withdrawn`), `rewardClaimed` has its `minter` (AURA, or a sidechain's
/// L2Coordinator) pay for the BAL claimed, `shutdownPool` marks a pool shut down.
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
    address public minter;

    event Deposited(address indexed user, uint256 indexed poolid, uint256 amount);
    event Withdrawn(address indexed user, uint256 indexed poolid, uint256 amount);

    constructor(address bal_) {
        bal = bal_;
    }

    function setMinter(address minter_) external {
        minter = minter_;
    }

    function poolLength() external view returns (uint256) {
        return poolInfo.length;
    }

    function addPool(address lptoken, address gauge) external returns (address rewards) {
        rewards = address(new TestAuraRewardPool(bal, address(this), poolInfo.length, lptoken));
        address token = address(new TestToken("Aura Deposit", "aura-deposit", 18));
        poolInfo.push(PoolInfo(lptoken, token, gauge, rewards, address(0), false));
        _added(rewards);
    }

    function deposit(uint256 pid, uint256 amount, bool stake) external returns (bool) {
        require(stake, "only staked deposits");
        PoolInfo memory pool = poolInfo[pid];
        IPull(pool.lptoken).transferFrom(msg.sender, address(this), amount);
        TestAuraRewardPool(pool.crvRewards).stakeFor(msg.sender, amount);
        emit Deposited(msg.sender, pid, amount);
        return true;
    }

    function withdrawTo(uint256 pid, uint256 amount, address to) external returns (bool) {
        PoolInfo memory pool = poolInfo[pid];
        require(msg.sender == pool.crvRewards, "!auth");
        IPull(pool.lptoken).transfer(to, amount);
        emit Withdrawn(to, pid, amount);
        return true;
    }

    function rewardClaimed(uint256 pid, address account, uint256 amount) external returns (bool) {
        address rewards = poolInfo[pid].crvRewards;
        require(msg.sender == rewards, "!auth");
        uint256 minted = _toMint(rewards, amount);
        if (minted > 0 && minter != address(0)) IRewardMinter(minter).mint(account, minted);
        return true;
    }

    function _toMint(address, uint256 amount) internal view virtual returns (uint256) {
        return amount;
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

    function _toMint(address rewards, uint256 amount) internal view override returns (uint256) {
        return (amount * getRewardMultipliers[rewards]) / 10000;
    }
}
