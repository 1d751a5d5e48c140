// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

interface ITransferFrom {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// A Balancer LiquidityGaugeV5 as the adapter reads it, with the views of its published ABI
/// (the v2-deployments package: 20220822-mainnet-gauge-factory-v2/abi/LiquidityGaugeV5.json):
/// `deposit` pulls the pool's BPT and mints the gauge's token (a Transfer from zero), the
/// claimables are set by the test. `claimable_tokens` is not a view, as the real gauge's (it
/// checkpoints): it writes before it answers.
contract TestBalancerGauge {
    address public immutable lp_token;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    address[8] public reward_tokens;
    uint256 public reward_count;
    mapping(address => mapping(address => uint256)) public claimable_reward;
    mapping(address => uint256) private _claimableBal;
    uint256 public checkpoints;

    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(address lpToken) {
        lp_token = lpToken;
    }

    function deposit(uint256 _value) external {
        ITransferFrom(lp_token).transferFrom(msg.sender, address(this), _value);
        balanceOf[msg.sender] += _value;
        totalSupply += _value;
        emit Transfer(address(0), msg.sender, _value);
    }

    function add_reward(address token) external {
        reward_tokens[reward_count++] = token;
    }

    function setClaimable(address user, address token, uint256 amount) external {
        claimable_reward[user][token] = amount;
    }

    function setClaimableBal(address user, uint256 amount) external {
        _claimableBal[user] = amount;
    }

    function claimable_tokens(address addr) external returns (uint256) {
        checkpoints += 1;
        return _claimableBal[addr];
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
}
