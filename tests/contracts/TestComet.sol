// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

interface IPriceFeed {
    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80);
}

/// Exactly the Comet views the adapter reads, with state the test sets: balances, collateral,
/// asset list, a linear rate model, and prices read from Chainlink-style feeds as Comet does.
contract TestComet {
    struct AssetInfo {
        uint8 offset;
        address asset;
        address priceFeed;
        uint64 scale;
        uint64 borrowCollateralFactor;
        uint64 liquidateCollateralFactor;
        uint64 liquidationFactor;
        uint128 supplyCap;
    }

    address public immutable baseToken;
    address public immutable baseTokenPriceFeed;
    uint256 public immutable baseScale;
    uint256 public utilization;
    bool public broken;
    AssetInfo[] internal assets;
    mapping(address => uint256) public balanceOf;
    mapping(address => uint256) public borrowBalanceOf;
    mapping(address => mapping(address => uint128)) public collateralBalanceOf;
    uint256 public totalSupply;
    uint256 public totalBorrow;
    int256 public getReserves;
    uint256 public baseBorrowMin = 100e6;
    mapping(address => uint128) internal collateralTotals;

    constructor(address baseToken_, address baseTokenPriceFeed_, uint256 baseScale_) {
        baseToken = baseToken_;
        baseTokenPriceFeed = baseTokenPriceFeed_;
        baseScale = baseScale_;
    }

    modifier working() {
        require(!broken, "TestComet: broken");
        _;
    }

    function addAsset(address asset, address priceFeed, uint64 scale, uint64 borrowCF, uint64 liquidateCF) external {
        assets.push(AssetInfo(uint8(assets.length), asset, priceFeed, scale, borrowCF, liquidateCF, 0.95e18, 1e30));
    }

    function setAccount(address account, uint256 supplied, uint256 borrowed) external {
        balanceOf[account] = supplied;
        borrowBalanceOf[account] = borrowed;
    }

    function setCollateral(address account, address asset, uint128 amount) external {
        collateralBalanceOf[account][asset] = amount;
    }

    function setTotals(uint256 supplied, uint256 borrowed, int256 reserves) external {
        totalSupply = supplied;
        totalBorrow = borrowed;
        getReserves = reserves;
    }

    function setCollateralTotal(address asset, uint128 total) external {
        collateralTotals[asset] = total;
    }

    /// (totalSupplyAsset, _reserved), as Comet's public `totalsCollateral` mapping answers.
    function totalsCollateral(address asset) external view returns (uint128, uint128) {
        return (collateralTotals[asset], 0);
    }

    function setUtilization(uint256 utilization_) external {
        utilization = utilization_;
    }

    function setBroken(bool broken_) external {
        broken = broken_;
    }

    function numAssets() external view working returns (uint8) {
        return uint8(assets.length);
    }

    function getAssetInfo(uint8 i) external view returns (AssetInfo memory) {
        return assets[i];
    }

    function getUtilization() external view returns (uint256) {
        return utilization;
    }

    function getSupplyRate(uint256 utilization_) external pure returns (uint64) {
        return uint64(317097919 + utilization_ * 1585489599 / 1e18);
    }

    function getBorrowRate(uint256 utilization_) external pure returns (uint64) {
        return uint64(475646879 + utilization_ * 2378234398 / 1e18);
    }

    function getPrice(address priceFeed) public view returns (uint256) {
        (, int256 price,,,) = IPriceFeed(priceFeed).latestRoundData();
        require(price > 0, "TestComet: bad price");
        return uint256(price);
    }

    /// Comet's `isLiquidatable` (Comet.sol, v2) in its integer steps, over this contract's state:
    /// the debt at the base price against Σ collateral x price / scale x liquidateCollateralFactor.
    function isLiquidatable(address account) external view returns (bool) {
        int256 liquidity = -int256(borrowBalanceOf[account] * getPrice(baseTokenPriceFeed) / baseScale);
        for (uint256 i = 0; i < assets.length; i++) {
            AssetInfo memory asset = assets[i];
            uint256 balance = collateralBalanceOf[account][asset.asset];
            if (balance == 0) continue;
            uint256 value = balance * getPrice(asset.priceFeed) / asset.scale;
            liquidity += int256(value * asset.liquidateCollateralFactor / 1e18);
        }
        return liquidity < 0;
    }
}

/// The CometRewards function the adapter calls: not a view, as in Compound's contract.
contract TestCometRewards {
    struct RewardOwed {
        address token;
        uint256 owed;
    }

    address public immutable rewardToken;
    mapping(address => mapping(address => uint256)) internal owedTo;
    mapping(address => bool) public configured;
    uint256 public calls;

    constructor(address rewardToken_) {
        rewardToken = rewardToken_;
    }

    function setOwed(address comet, address account, uint256 owed) external {
        configured[comet] = true;
        owedTo[comet][account] = owed;
    }

    function getRewardOwed(address comet, address account) external returns (RewardOwed memory) {
        require(configured[comet], "NotSupported");
        calls += 1;
        return RewardOwed(rewardToken, owedTo[comet][account]);
    }
}
