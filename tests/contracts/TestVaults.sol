// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import {IMorpho, Id, MarketParams} from "@morpho-org/morpho-blue/src/interfaces/IMorpho.sol";
import {MarketParamsLib} from "@morpho-org/morpho-blue/src/libraries/MarketParamsLib.sol";
import {MorphoBalancesLib} from "@morpho-org/morpho-blue/src/libraries/periphery/MorphoBalancesLib.sol";

interface IToken {
    function approve(address spender, uint256 amount) external returns (bool);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function balanceOf(address account) external view returns (uint256);
}

/// Share accounting shared by the test vaults: ERC-20 shares over `totalAssets()`.
abstract contract TestShares {
    address public immutable asset;
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    bool public broken;

    constructor(address asset_, string memory name_, string memory symbol_) {
        asset = asset_;
        name = name_;
        symbol = symbol_;
    }

    function totalAssets() public view virtual returns (uint256);

    function convertToAssets(uint256 shares) public view returns (uint256) {
        require(!broken, "TestVault: broken");
        return totalSupply == 0 ? shares : shares * totalAssets() / totalSupply;
    }

    function setBroken(bool broken_) external {
        broken = broken_;
    }

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares);

    /// A deposit with the events MetaMorpho's and VaultV2's emit (ERC-4626's Deposit, the shares'
    /// mint as a Transfer from zero).
    function _mintFor(uint256 assets, address receiver) internal returns (uint256 shares) {
        uint256 total = totalAssets();
        shares = totalSupply == 0 ? assets * 1e12 : assets * totalSupply / total;
        IToken(asset).transferFrom(msg.sender, address(this), assets);
        totalSupply += shares;
        balanceOf[receiver] += shares;
        emit Transfer(address(0), receiver, shares);
        emit Deposit(msg.sender, receiver, assets, shares);
    }

    function transfer(address to, uint256 shares) external returns (bool) {
        balanceOf[msg.sender] -= shares;
        balanceOf[to] += shares;
        emit Transfer(msg.sender, to, shares);
        return true;
    }
}

/// MetaMorpho's per-market configuration, with its layout (`config(id)` returns its members).
struct MarketConfig {
    uint184 cap;
    bool enabled;
    uint64 removableAt;
}

/// The MetaMorpho (V1) view interface the adapter reads, backed by real Morpho Blue supply, with
/// MetaMorpho v1.1's loss accounting: `totalAssets()` = real assets + `lostAssets`, where lost
/// assets grow whenever real assets fall below what the last interaction left.
contract TestVaultV1 is TestShares {
    using MarketParamsLib for MarketParams;
    using MorphoBalancesLib for IMorpho;

    IMorpho public immutable MORPHO;
    uint96 public fee;
    uint256 public timelock = 1 days;
    address public owner = msg.sender;
    address public curator;
    address public guardian;
    Id[] public withdrawQueue;
    mapping(Id => MarketConfig) public config;
    uint256 public lastTotalAssets;
    uint256 public lostAssets;
    mapping(Id => MarketParams) internal params;

    constructor(IMorpho morpho, address asset_, string memory name_, string memory symbol_, uint96 fee_)
        TestShares(asset_, name_, symbol_)
    {
        MORPHO = morpho;
        fee = fee_;
    }

    function setRoles(address curator_, address guardian_) external {
        curator = curator_;
        guardian = guardian_;
    }

    /// Appends a market to the withdraw queue with a supply cap (MetaMorpho's submitCap + acceptCap).
    function addMarket(MarketParams memory marketParams, uint184 cap) external {
        withdrawQueue.push(marketParams.id());
        params[marketParams.id()] = marketParams;
        config[marketParams.id()] = MarketConfig(cap, true, 0);
    }

    function withdrawQueueLength() external view returns (uint256) {
        return withdrawQueue.length;
    }

    function totalAssets() public view override returns (uint256) {
        (uint256 real, uint256 lost) = _realAndLost();
        return real + lost;
    }

    /// Deposits and supplies the assets to the market at `index` of the queue.
    function deposit(uint256 assets, address receiver, uint256 index) external returns (uint256 shares) {
        (, lostAssets) = _realAndLost();
        shares = _mintFor(assets, receiver);
        IToken(asset).approve(address(MORPHO), assets);
        MORPHO.supply(params[withdrawQueue[index]], assets, 0, address(this), "");
        lastTotalAssets = totalAssets();
    }

    /// Takes `assets` out of the market at `index` and gives them away, as realised bad debt would.
    function lose(uint256 assets, uint256 index) external {
        MORPHO.withdraw(params[withdrawQueue[index]], assets, 0, address(this), msg.sender);
    }

    function _realAndLost() internal view returns (uint256 real, uint256 lost) {
        for (uint256 i = 0; i < withdrawQueue.length; i++) {
            real += MORPHO.expectedSupplyAssets(params[withdrawQueue[i]], address(this));
        }
        lost = real < lastTotalAssets - lostAssets ? lastTotalAssets - real : lostAssets;
    }
}

/// A Vault V2 market adapter (the MorphoMarketV1AdapterV2 views): supply held in Morpho Blue.
contract TestMarketAdapter {
    using MarketParamsLib for MarketParams;
    using MorphoBalancesLib for IMorpho;

    IMorpho public immutable morpho;
    address public immutable parentVault;
    bytes32 public immutable adapterId = keccak256(abi.encode("this", address(this)));
    Id[] public marketIds;
    mapping(Id => MarketParams) internal params;

    constructor(IMorpho morpho_, address parentVault_) {
        morpho = morpho_;
        parentVault = parentVault_;
    }

    function marketIdsLength() external view returns (uint256) {
        return marketIds.length;
    }

    function realAssets() external view returns (uint256 assets) {
        for (uint256 i = 0; i < marketIds.length; i++) {
            assets += morpho.expectedSupplyAssets(params[marketIds[i]], address(this));
        }
    }

    function supply(MarketParams memory marketParams, uint256 assets) external {
        if (params[marketParams.id()].loanToken == address(0)) {
            marketIds.push(marketParams.id());
            params[marketParams.id()] = marketParams;
        }
        IToken(marketParams.loanToken).transferFrom(msg.sender, address(this), assets);
        IToken(marketParams.loanToken).approve(address(morpho), assets);
        morpho.supply(marketParams, assets, 0, address(this), "");
    }
}

/// A Vault V2 adapter holding shares of a V1 vault (the MorphoVaultV1Adapter views).
contract TestVaultV1Adapter {
    TestVaultV1 public immutable morphoVaultV1;
    bytes32 public immutable adapterId = keccak256(abi.encode("this", address(this)));

    constructor(TestVaultV1 vault) {
        morphoVaultV1 = vault;
    }

    function realAssets() external view returns (uint256) {
        return morphoVaultV1.convertToAssets(morphoVaultV1.balanceOf(address(this)));
    }

    function deposit(uint256 assets, uint256 index) external {
        IToken(morphoVaultV1.asset()).transferFrom(msg.sender, address(this), assets);
        IToken(morphoVaultV1.asset()).approve(address(morphoVaultV1), assets);
        morphoVaultV1.deposit(assets, address(this), index);
    }
}

interface IAdapterId {
    function adapterId() external view returns (bytes32);
}

/// The Vault V2 view interface the adapter reads: idle assets plus its adapters' real assets,
/// allocations and caps by id (here only adapter ids: `keccak256(abi.encode("this", adapter))`).
contract TestVaultV2 is TestShares {
    uint96 public performanceFee;
    uint96 public managementFee;
    uint64 public maxRate = 200e16 / uint64(365 days);
    address[] public adapters;
    address public owner = msg.sender;
    address public curator;
    address public liquidityAdapter;
    mapping(bytes32 => uint256) public allocation;
    mapping(bytes32 => uint256) public absoluteCap;
    mapping(bytes32 => uint256) public relativeCap;

    function setCurator(address curator_) external {
        curator = curator_;
    }

    function setLiquidityAdapter(address adapter) external {
        liquidityAdapter = adapter;
    }

    function setCaps(address adapter, uint256 absolute, uint256 relative) external {
        absoluteCap[IAdapterId(adapter).adapterId()] = absolute;
        relativeCap[IAdapterId(adapter).adapterId()] = relative;
    }

    function setMaxRate(uint64 maxRate_) external {
        maxRate = maxRate_;
    }

    constructor(address asset_, string memory name_, string memory symbol_, uint96 performanceFee_,
        uint96 managementFee_) TestShares(asset_, name_, symbol_)
    {
        performanceFee = performanceFee_;
        managementFee = managementFee_;
    }

    function addAdapter(address adapter) external {
        adapters.push(adapter);
        IToken(asset).approve(adapter, type(uint256).max);
    }

    function adaptersLength() external view returns (uint256) {
        return adapters.length;
    }

    function totalAssets() public view override returns (uint256 assets) {
        assets = IToken(asset).balanceOf(address(this));
        for (uint256 i = 0; i < adapters.length; i++) {
            (bool ok, bytes memory data) = adapters[i].staticcall(abi.encodeWithSignature("realAssets()"));
            if (ok) assets += abi.decode(data, (uint256));
        }
    }

    function deposit(uint256 assets, address receiver) external returns (uint256) {
        return _mintFor(assets, receiver);
    }

    function allocateToMarket(TestMarketAdapter adapter, MarketParams memory marketParams, uint256 assets) external {
        adapter.supply(marketParams, assets);
        allocation[adapter.adapterId()] += assets;
    }

    function allocateToVault(TestVaultV1Adapter adapter, uint256 assets, uint256 index) external {
        adapter.deposit(assets, index);
        allocation[adapter.adapterId()] += assets;
    }
}

/// Morpho's own periphery library, exposed for tests: the expected balances a test compares to.
contract TestLens {
    using MorphoBalancesLib for IMorpho;

    function expectedSupplyAssets(IMorpho morpho, MarketParams memory marketParams, address user)
        external view returns (uint256)
    {
        return morpho.expectedSupplyAssets(marketParams, user);
    }

    function expectedBorrowAssets(IMorpho morpho, MarketParams memory marketParams, address user)
        external view returns (uint256)
    {
        return morpho.expectedBorrowAssets(marketParams, user);
    }

    function expectedMarketBalances(IMorpho morpho, MarketParams memory marketParams)
        external view returns (uint256, uint256, uint256, uint256)
    {
        return morpho.expectedMarketBalances(marketParams);
    }
}
