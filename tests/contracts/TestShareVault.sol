// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// The ERC-4626 views a vault-style adapter reads, with an Ethena-style cooldown (StakedUSDeV2's
/// `cooldowns` layout); the exchange rate (`setTotalAssets`) is set by the test. `cooldownShares` is
/// StakedUSDeV2's: the shares burnt and their assets withdrawn to the silo, with OpenZeppelin's
/// ERC-4626 events (no asset moves here: the test's silo pays the unstake itself); `setCooldown`
/// writes a cooldown outright, for tests that need one no entry point makes.
interface ITestToken {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

contract TestShareVault {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Withdraw(address indexed sender, address indexed receiver, address indexed owner, uint256 assets, uint256 shares);
    event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares);

    struct UserCooldown {
        uint104 cooldownEnd;
        uint152 underlyingAmount;
    }

    string public name;
    string public symbol;
    uint8 public immutable decimals;
    address public immutable asset;
    uint256 public totalSupply;
    uint256 public totalAssets;
    mapping(address => uint256) internal shares;
    mapping(address => UserCooldown) internal _cooldowns;
    /// 1: convertToAssets reverts; 2: balanceOf reverts; 3: cooldowns reverts.
    uint8 public broken;
    /// sUSDS' savings rate, a Spark Vault V2's (per-second factors in ray) and sDAI's Pot, where
    /// the test sets them.
    uint256 public ssr;
    uint256 public vsr;
    address public pot;

    constructor(string memory name_, string memory symbol_, uint8 decimals_, address asset_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        asset = asset_;
    }

    function mint(address to, uint256 amount) external {
        shares[to] += amount;
        totalSupply += amount;
    }

    /// ERC-4626's mint, the entry point the demo's holders use: `amount` shares to `receiver` for
    /// the assets they are worth, rounded up (1:1 in an empty vault), taken from the caller, with
    /// OpenZeppelin's ERC-4626 events.
    function mint(uint256 amount, address receiver) external returns (uint256 assets) {
        assets = totalSupply == 0 ? amount : (amount * totalAssets + totalSupply - 1) / totalSupply;
        require(ITestToken(asset).transferFrom(msg.sender, address(this), assets), "transferFrom failed");
        shares[receiver] += amount;
        totalSupply += amount;
        totalAssets += assets;
        emit Transfer(address(0), receiver, amount);
        emit Deposit(msg.sender, receiver, assets, amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        shares[msg.sender] -= amount;
        shares[to] += amount;
        emit Transfer(msg.sender, to, amount);
        return true;
    }

    function setTotalAssets(uint256 assets) external {
        totalAssets = assets;
    }

    address public silo;

    function setSilo(address silo_) external {
        silo = silo_;
    }

    function cooldownShares(uint256 amount) external returns (uint256 assets) {
        assets = convertToAssets(amount);
        shares[msg.sender] -= amount;
        totalSupply -= amount;
        totalAssets -= assets;
        UserCooldown storage cooldown = _cooldowns[msg.sender];
        cooldown.cooldownEnd = uint104(block.timestamp + 7 days);
        cooldown.underlyingAmount += uint152(assets);
        emit Transfer(msg.sender, address(0), amount);
        emit Withdraw(msg.sender, silo, msg.sender, assets, amount);
    }

    function setCooldown(address user, uint104 end, uint152 amount) external {
        _cooldowns[user] = UserCooldown(end, amount);
    }

    function setBroken(uint8 mode) external {
        broken = mode;
    }

    function setSavingsRate(uint256 ssr_, address pot_) external {
        ssr = ssr_;
        pot = pot_;
    }

    function setVaultSavingsRate(uint256 vsr_) external {
        vsr = vsr_;
    }

    function balanceOf(address account) external view returns (uint256) {
        require(broken != 2, "balanceOf broken");
        return shares[account];
    }

    function convertToAssets(uint256 amount) public view returns (uint256) {
        require(broken != 1, "convertToAssets broken");
        return totalSupply == 0 ? amount : amount * totalAssets / totalSupply;
    }

    function cooldowns(address user) external view returns (uint104 cooldownEnd, uint152 underlyingAmount) {
        require(broken != 3, "cooldowns broken");
        UserCooldown memory c = _cooldowns[user];
        return (c.cooldownEnd, c.underlyingAmount);
    }
}

/// StakedUSDeV2's USDeSilo as a reader sees it: an address of the vault's own, the receiver its
/// cooldowns' `Withdraw` names (no asset reaches it here, see TestShareVault).
contract TestSilo {}

/// MakerDAO's Pot as sDAI reads it: `dsr()`, the DAI savings rate (a per-second factor in ray).
contract TestPot {
    uint256 public dsr;

    function setDsr(uint256 dsr_) external {
        dsr = dsr_;
    }
}
