// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

interface ITransferFrom {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);

    function transfer(address to, uint256 amount) external returns (bool);
}

interface IMintedSoFar {
    function minted(address user, address gauge) external view returns (uint256);
}

interface ITestMint {
    function mint(address to, uint256 amount) external;
}

/// What a Balancer gauge has whichever its kind, as the adapter reads it: `deposit` pulls the
/// pool's BPT and mints the gauge's token, `withdraw` burns it and returns the BPT, with
/// LiquidityGaugeV5's events (`Deposit`/`Withdraw(provider, value)` and the Transfer from or to
/// zero); `claim_rewards` pays each reward token's claimable (by a transfer, no event of its own,
/// as the published gauge); the claimables and each reward's rate are set by the test. BAL is
/// `integrate_fraction` less what the Minter minted (`claimable_tokens`, which is not a view, as
/// the real gauge's: it checkpoints, so it writes before it answers).
abstract contract TestBalancerGaugeBase {
    address public immutable lp_token;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    address[8] public reward_tokens;
    uint256 public reward_count;
    mapping(address => mapping(address => uint256)) public claimable_reward;
    mapping(address => uint256) public integrate_fraction;
    address public minter;
    uint256 public checkpoints;
    bool public is_killed;
    mapping(address => address) internal _distributor;
    mapping(address => uint256) internal _rate;
    mapping(address => uint256) internal _periodFinish;
    mapping(address => uint256) internal _lastUpdate;

    event Deposit(address indexed provider, uint256 value);
    event Withdraw(address indexed provider, uint256 value);
    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(address lpToken) {
        lp_token = lpToken;
    }

    function deposit(uint256 _value) external {
        ITransferFrom(lp_token).transferFrom(msg.sender, address(this), _value);
        balanceOf[msg.sender] += _value;
        totalSupply += _value;
        emit Deposit(msg.sender, _value);
        emit Transfer(address(0), msg.sender, _value);
    }

    function withdraw(uint256 _value) external {
        balanceOf[msg.sender] -= _value;
        totalSupply -= _value;
        ITransferFrom(lp_token).transfer(msg.sender, _value);
        emit Withdraw(msg.sender, _value);
        emit Transfer(msg.sender, address(0), _value);
    }

    function claim_rewards() external {
        for (uint256 i = 0; i < reward_count; i++) {
            address token = reward_tokens[i];
            uint256 amount = claimable_reward[msg.sender][token];
            if (amount != 0) {
                claimable_reward[msg.sender][token] = 0;
                ITransferFrom(token).transfer(msg.sender, amount);
            }
        }
    }

    function setMinter(address minter_) external {
        minter = minter_;
    }

    function add_reward(address token) external {
        reward_tokens[reward_count++] = token;
        _distributor[token] = msg.sender;
    }

    function setClaimable(address user, address token, uint256 amount) external {
        claimable_reward[user][token] = amount;
    }

    /// @dev BAL the user may claim now: integrate_fraction is that plus what the Minter minted.
    function setClaimableBal(address user, uint256 amount) external {
        integrate_fraction[user] = amount + _minted(user);
    }

    /// @dev Stands in for `deposit_reward_token`: the rate a reward is paid at, until its period's finish.
    function setRewardRate(address token, uint256 rate, uint256 periodFinish) external {
        _rate[token] = rate;
        _periodFinish[token] = periodFinish;
        _lastUpdate[token] = block.timestamp;
    }

    function killGauge() external {
        is_killed = true;
    }

    function claimable_tokens(address addr) external returns (uint256) {
        checkpoints += 1;
        return integrate_fraction[addr] - _minted(addr);
    }

    function user_checkpoint(address) external returns (bool) {
        checkpoints += 1;
        return true;
    }

    function _minted(address user) private view returns (uint256) {
        return minter == address(0) ? 0 : IMintedSoFar(minter).minted(user, address(this));
    }
}

/// Balancer's BalancerMinter as a claim of BAL meets it (the v2-deployments package:
/// 20220325-gauge-controller/abi/BalancerMinter.json; its source's `_updateGauge`): `mint(gauge)`
/// checkpoints the gauge, mints the user's `integrate_fraction` less what it minted before, and
/// emits `Minted(recipient, gauge, minted)` with the user's new TOTAL minted from the gauge.
contract TestBalancerMinter {
    address public immutable bal;
    mapping(address => mapping(address => uint256)) public minted;

    event Minted(address indexed recipient, address gauge, uint256 minted);

    constructor(address bal_) {
        bal = bal_;
    }

    function mint(address gauge) external returns (uint256 tokensToMint) {
        TestBalancerGaugeBase(gauge).user_checkpoint(msg.sender);
        uint256 totalMint = TestBalancerGaugeBase(gauge).integrate_fraction(msg.sender);
        tokensToMint = totalMint - minted[msg.sender][gauge];
        if (tokensToMint > 0) {
            minted[msg.sender][gauge] = totalMint;
            emit Minted(msg.sender, gauge, totalMint);
            ITestMint(bal).mint(msg.sender, tokensToMint);
        }
    }
}

/// A Balancer LiquidityGaugeV5 with the views of its published ABI (the v2-deployments package:
/// 20220822-mainnet-gauge-factory-v2/abi/LiquidityGaugeV5.json): `reward_data` its Reward (token
/// first) and `inflation_rate()`, set by the test as its checkpoint would from the BAL token admin.
contract TestBalancerGauge is TestBalancerGaugeBase {
    struct Reward {
        address token;
        address distributor;
        uint256 period_finish;
        uint256 rate;
        uint256 last_update;
        uint256 integral;
    }

    uint256 public inflation_rate;

    constructor(address lpToken) TestBalancerGaugeBase(lpToken) {}

    function setInflationRate(uint256 rate) external {
        inflation_rate = rate;
    }

    function reward_data(address token) external view returns (Reward memory) {
        return Reward(token, _distributor[token], _periodFinish[token], _rate[token], _lastUpdate[token], 0);
    }
}

/// An L2's ChildChainGauge with the views of its published artifact (balancer-deployments
/// v2/tasks/20230316-child-chain-gauge-factory-v2/artifact/ChildChainGauge.json): its Reward has
/// no token, and its `inflation_rate` takes a week.
contract TestBalancerChildChainGauge is TestBalancerGaugeBase {
    struct Reward {
        address distributor;
        uint256 period_finish;
        uint256 rate;
        uint256 last_update;
        uint256 integral;
    }

    mapping(uint256 => uint256) public inflation_rate;

    constructor(address lpToken) TestBalancerGaugeBase(lpToken) {}

    function reward_data(address token) external view returns (Reward memory) {
        return Reward(_distributor[token], _periodFinish[token], _rate[token], _lastUpdate[token], 0);
    }
}

/// A gauge factory that announces its gauges as Balancer's LiquidityGaugeFactory v2 does
/// (`GaugeCreated(address indexed gauge)`).
contract TestBalancerGaugeFactory {
    event GaugeCreated(address indexed gauge);

    function create(address pool) external returns (address gauge) {
        gauge = address(new TestBalancerGauge(pool));
        emit GaugeCreated(gauge);
    }

    /// @dev A gauge with a ChildChainGauge's views, as the L2s' ChildChainGaugeFactory v2 announces them.
    function createChild(address pool) external returns (address gauge) {
        gauge = address(new TestBalancerChildChainGauge(pool));
        emit GaugeCreated(gauge);
    }
}

interface IBalancerVaultRegistry {
    function registerPool(uint8 specialization) external returns (bytes32);

    function registerTokens(bytes32 poolId, address[] calldata tokens, address[] calldata assetManagers) external;
}

/// A pool of none of the types the adapter reads (no weights, amplification or BPT index, as
/// Balancer's linear, managed and Gyro pools): registered in the v2 Vault as every pool registers
/// itself (`registerPool` with the general specialization, then `registerTokens`), with the views
/// every v2 pool has (BasePool's `getPoolId`, `getSwapFeePercentage`, its BPT's ERC-20 views).
contract TestBalancerOtherPool {
    bytes32 public immutable getPoolId;
    uint256 public immutable getSwapFeePercentage;
    string public constant name = "Balancer Other Pool";
    string public constant symbol = "B-OTHER";
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    constructor(address vault, address[] memory tokens, uint256 swapFee) {
        bytes32 poolId = IBalancerVaultRegistry(vault).registerPool(0);
        getPoolId = poolId;
        getSwapFeePercentage = swapFee;
        IBalancerVaultRegistry(vault).registerTokens(poolId, tokens, new address[](tokens.length));
    }
}
