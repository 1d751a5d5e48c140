// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

interface IPriceFeed {
    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80);
}

/// Exactly the Comet views the adapter reads, with state the test sets: balances, collateral,
/// asset list, a linear rate model, and prices read from Chainlink-style feeds as Comet does.
/// Its account changes (supplyTo, withdrawTo, transferAsset, absorb) keep Comet's signed
/// principal and emit Comet's events exactly as Comet.sol does (its `supplyBase`, `withdrawBase`,
/// `transferBase`, `absorbInternal` and their collateral twins), with Comet's rounding; they move
/// no token and skip Comet's collateralization checks, which the flows never read.
contract TestComet {
    event Supply(address indexed from, address indexed dst, uint256 amount);
    event Transfer(address indexed from, address indexed to, uint256 amount);
    event Withdraw(address indexed src, address indexed to, uint256 amount);
    event SupplyCollateral(address indexed from, address indexed dst, address indexed asset, uint256 amount);
    event TransferCollateral(address indexed from, address indexed to, address indexed asset, uint256 amount);
    event WithdrawCollateral(address indexed src, address indexed to, address indexed asset, uint256 amount);
    event AbsorbDebt(address indexed absorber, address indexed borrower, uint256 basePaidOut, uint256 usdValue);
    event AbsorbCollateral(
        address indexed absorber, address indexed borrower, address indexed asset, uint256 collateralAbsorbed, uint256 usdValue
    );

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
    uint64 public baseSupplyIndex = 1e15;
    uint64 public baseBorrowIndex = 1e15;
    mapping(address => int104) public principals;
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

    /// An account's balance as it stands (no event: a test's shortcut, as interest accrues).
    function setAccount(address account, uint256 supplied, uint256 borrowed) external {
        principals[account] = principalValue(int256(supplied) - int256(borrowed));
    }

    /// Comet's indexes, as its accrual moves them: every balance's present value moves with them.
    function setIndexes(uint64 supplyIndex, uint64 borrowIndex) external {
        baseSupplyIndex = supplyIndex;
        baseBorrowIndex = borrowIndex;
    }

    /// Comet's `userBasic`: the principal, and `assetsIn`, a bit per asset the account holds as
    /// collateral (Comet sets and clears them with the balance); no tracking (the rewards' owed
    /// amounts are a test's, set on TestCometRewards).
    function userBasic(address account) external view returns (int104, uint64, uint64, uint16, uint8) {
        uint16 assetsIn;
        for (uint256 i = 0; i < assets.length; i++) {
            if (collateralBalanceOf[account][assets[i].asset] > 0) assetsIn |= uint16(1 << i);
        }
        return (principals[account], 0, 0, assetsIn, 0);
    }

    function balanceOf(address account) public view returns (uint256) {
        int104 principal = principals[account];
        return principal > 0 ? presentValueSupply(uint104(principal)) : 0;
    }

    function borrowBalanceOf(address account) public view returns (uint256) {
        int104 principal = principals[account];
        return principal < 0 ? presentValueBorrow(uint104(-principal)) : 0;
    }

    function supplyTo(address dst, address asset, uint256 amount) external {
        if (asset != baseToken) {
            collateralBalanceOf[dst][asset] += uint128(amount);
            emit SupplyCollateral(msg.sender, dst, asset, amount);
            return;
        }
        int104 old = principals[dst];
        int104 updated = principalValue(presentValue(old) + int256(amount));
        (, uint104 supplied) = repayAndSupplyAmount(old, updated);
        principals[dst] = updated;
        emit Supply(msg.sender, dst, amount);
        if (supplied > 0) emit Transfer(address(0), dst, presentValueSupply(supplied));
    }

    function withdrawTo(address to, address asset, uint256 amount) external {
        if (asset != baseToken) {
            collateralBalanceOf[msg.sender][asset] -= uint128(amount);
            emit WithdrawCollateral(msg.sender, to, asset, amount);
            return;
        }
        int104 old = principals[msg.sender];
        int104 updated = principalValue(presentValue(old) - int256(amount));
        (uint104 withdrawn,) = withdrawAndBorrowAmount(old, updated);
        principals[msg.sender] = updated;
        emit Withdraw(msg.sender, to, amount);
        if (withdrawn > 0) emit Transfer(msg.sender, address(0), presentValueSupply(withdrawn));
    }

    function transferAsset(address dst, address asset, uint256 amount) external {
        if (asset != baseToken) {
            collateralBalanceOf[msg.sender][asset] -= uint128(amount);
            collateralBalanceOf[dst][asset] += uint128(amount);
            emit TransferCollateral(msg.sender, dst, asset, amount);
            return;
        }
        int104 src = principals[msg.sender];
        int104 dstOld = principals[dst];
        int104 srcNew = principalValue(presentValue(src) - int256(amount));
        int104 dstNew = principalValue(presentValue(dstOld) + int256(amount));
        (uint104 withdrawn,) = withdrawAndBorrowAmount(src, srcNew);
        (, uint104 supplied) = repayAndSupplyAmount(dstOld, dstNew);
        principals[msg.sender] = srcNew;
        principals[dst] = dstNew;
        if (withdrawn > 0) emit Transfer(msg.sender, address(0), presentValueSupply(withdrawn));
        if (supplied > 0) emit Transfer(address(0), dst, presentValueSupply(supplied));
    }

    /// Comet's `absorb`: each account's collateral seized at its price times its liquidation
    /// factor, its debt written off against it, any excess credited as a supply.
    function absorb(address absorber, address[] calldata accounts) external {
        for (uint256 a = 0; a < accounts.length; a++) {
            address account = accounts[a];
            require(this.isLiquidatable(account), "TestComet: not liquidatable");
            int104 old = principals[account];
            int256 oldBalance = presentValue(old);
            uint256 basePrice = getPrice(baseTokenPriceFeed);
            uint256 deltaValue = 0;
            for (uint256 i = 0; i < assets.length; i++) {
                AssetInfo memory info = assets[i];
                uint128 seized = collateralBalanceOf[account][info.asset];
                if (seized == 0) continue;
                collateralBalanceOf[account][info.asset] = 0;
                uint256 value = uint256(seized) * getPrice(info.priceFeed) / info.scale;
                deltaValue += value * info.liquidationFactor / 1e18;
                emit AbsorbCollateral(absorber, account, info.asset, seized, value);
            }
            int256 newBalance = oldBalance + int256(deltaValue * baseScale / basePrice);
            if (newBalance < 0) newBalance = 0;
            int104 updated = principalValue(newBalance);
            principals[account] = updated;
            uint256 paidOut = uint256(newBalance - oldBalance);
            emit AbsorbDebt(absorber, account, paidOut, paidOut * basePrice / baseScale);
            if (updated > 0) emit Transfer(address(0), account, presentValueSupply(uint104(updated)));
        }
    }

    // CometCore's present and principal values, rounding as Comet does (a borrow's principal up).
    function presentValue(int104 principal) internal view returns (int256) {
        return principal >= 0 ? int256(presentValueSupply(uint104(principal))) : -int256(presentValueBorrow(uint104(-principal)));
    }

    function presentValueSupply(uint104 principal) internal view returns (uint256) {
        return uint256(principal) * baseSupplyIndex / 1e15;
    }

    function presentValueBorrow(uint104 principal) internal view returns (uint256) {
        return uint256(principal) * baseBorrowIndex / 1e15;
    }

    function principalValue(int256 value) internal view returns (int104) {
        if (value >= 0) return int104(int256(uint256(value) * 1e15 / baseSupplyIndex));
        return -int104(int256((uint256(-value) * 1e15 + baseBorrowIndex - 1) / baseBorrowIndex));
    }

    // Comet.sol's split of a principal's change.
    function repayAndSupplyAmount(int104 oldPrincipal, int104 newPrincipal) internal pure returns (uint104, uint104) {
        if (newPrincipal < oldPrincipal) return (0, 0);
        if (newPrincipal <= 0) return (uint104(newPrincipal - oldPrincipal), 0);
        if (oldPrincipal >= 0) return (0, uint104(newPrincipal - oldPrincipal));
        return (uint104(-oldPrincipal), uint104(newPrincipal));
    }

    function withdrawAndBorrowAmount(int104 oldPrincipal, int104 newPrincipal) internal pure returns (uint104, uint104) {
        if (newPrincipal > oldPrincipal) return (0, 0);
        if (newPrincipal >= 0) return (uint104(oldPrincipal - newPrincipal), 0);
        if (oldPrincipal <= 0) return (0, uint104(oldPrincipal - newPrincipal));
        return (uint104(oldPrincipal), uint104(-newPrincipal));
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

    function getAssetInfoByAddress(address asset) external view returns (AssetInfo memory) {
        for (uint256 i = 0; i < assets.length; i++) {
            if (assets[i].asset == asset) return assets[i];
        }
        revert("TestComet: bad asset");
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
        int256 liquidity = -int256(borrowBalanceOf(account) * getPrice(baseTokenPriceFeed) / baseScale);
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

    event RewardClaimed(address indexed src, address indexed recipient, address indexed token, uint256 amount);

    mapping(address => mapping(address => uint256)) public rewardsClaimed;

    /// CometRewards' `claim`: what is owed paid out (no token moves here), counted as claimed.
    function claim(address comet, address src, bool) external {
        require(configured[comet], "NotSupported");
        uint256 owed = owedTo[comet][src];
        if (owed > 0) {
            owedTo[comet][src] = 0;
            rewardsClaimed[comet][src] += owed;
            emit RewardClaimed(src, src, rewardToken, owed);
        }
    }

    function getRewardOwed(address comet, address account) external returns (RewardOwed memory) {
        require(configured[comet], "NotSupported");
        calls += 1;
        return RewardOwed(rewardToken, owedTo[comet][account]);
    }
}
