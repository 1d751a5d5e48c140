// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "TestToken.sol";
import "TestPriceFeed.sol";

// Liquity v1 stand-ins for tests/liquity_world.py: no package publishes Liquity v1's contracts
// built (`@liquity/lib-ethers` ships only their ABIs and addresses), so these are written here.
// Every function and event they share with lib-ethers 3.4.0's ABIs (TroveManager,
// BorrowerOperations, StabilityPool, LQTYStaking, PriceFeed, CollSurplusPool, CommunityIssuance,
// LUSDToken, LQTYToken) has its name, input and output types and indexing (tests/test_liquity.py
// holds them); test-only hooks carry names those ABIs do not use (`setPrice`, `lowestTrove`).
// The integer steps are Liquity's documented ones: troves at 110 % MCR and 150 % CCR with the
// 200 LUSD gas compensation; redistribution by L_ETH / L_LUSDDebt over stakes (with the
// totalStakes / totalCollateral snapshots); the borrowing and redemption fees over a base rate
// that decays by the minute; the Stability Pool's product-sum scheme (P, S, G by epoch and
// scale); LQTY staking's F_ETH / F_LUSD. Simplifications, none of which changes a view's formula:
// - no SortedTroves: redemptions walk the active troves by nominal ICR, lowest first
//   (`sortedTroves()` is the zero address and the hints are ignored);
// - the TroveManager is also the ActivePool, DefaultPool and GasPool: it holds the troves'
//   ether and both pools' debts, and the gas compensation LUSD is minted to it;
// - liquidation below MCR only (in recovery mode, of a trove at 100 % or more: the offset and
//   redistribution of normal mode, as Liquity's), one trove a call; front ends are not supported (tag zero,
//   kickback 100 %); no bootstrap period before redemptions; no owner;
// - the PriceFeed takes its Chainlink aggregator's answer (no Tellor fallback);
// - CommunityIssuance issues LQTY linearly, ISSUANCE_PER_SECOND from its deployment, out of
//   the LQTY it was funded with (Liquity's halves yearly).

library TestLiquityMath {
    uint256 internal constant ONE = 1e18;

    function min(uint256 a, uint256 b) internal pure returns (uint256) {
        return a < b ? a : b;
    }

    /// A product of two 18-decimal numbers, rounded half up.
    function decMul(uint256 x, uint256 y) internal pure returns (uint256) {
        return (x * y + ONE / 2) / ONE;
    }

    /// base^n in 18 decimals by repeated squaring, each product rounded half up; n capped at
    /// 525,600,000 (a thousand years of minutes), as LiquityMath bounds it.
    function decPow(uint256 base, uint256 n) internal pure returns (uint256) {
        if (n > 525600000) n = 525600000;
        if (n == 0) return ONE;
        uint256 acc = ONE;
        while (n > 1) {
            if (n & 1 == 1) acc = decMul(base, acc);
            base = decMul(base, base);
            n >>= 1;
        }
        return decMul(base, acc);
    }

    /// coll x price / debt in 18 decimals; the largest uint256 without debt.
    function cr(uint256 coll, uint256 debt, uint256 price) internal pure returns (uint256) {
        return debt > 0 ? coll * price / debt : type(uint256).max;
    }

    /// coll x 1e20 / debt: the ratio the troves are ordered by, independent of the price.
    function nominalCr(uint256 coll, uint256 debt) internal pure returns (uint256) {
        return debt > 0 ? coll * 1e20 / debt : type(uint256).max;
    }
}

/// LUSD: minted and burnt by the system only; the pools move it without allowances.
contract TestLUSDToken is TestToken {
    address public immutable troveManagerAddress;
    address public immutable stabilityPoolAddress;
    address public immutable borrowerOperationsAddress;

    constructor(address troveManager, address stabilityPool, address borrowerOperations)
        TestToken("LUSD Stablecoin", "LUSD", 18)
    {
        troveManagerAddress = troveManager;
        stabilityPoolAddress = stabilityPool;
        borrowerOperationsAddress = borrowerOperations;
    }

    function mint(address _account, uint256 _amount) external override {
        require(msg.sender == borrowerOperationsAddress, "LUSDToken: Caller is not BorrowerOperations");
        _move(address(0), _account, _amount);
    }

    function burn(address _account, uint256 _amount) external {
        require(
            msg.sender == borrowerOperationsAddress || msg.sender == troveManagerAddress
                || msg.sender == stabilityPoolAddress,
            "LUSDToken: Caller is neither BorrowerOperations nor TroveManager nor StabilityPool"
        );
        _move(_account, address(0), _amount);
    }

    function sendToPool(address _sender, address _poolAddress, uint256 _amount) external {
        require(msg.sender == stabilityPoolAddress, "LUSDToken: Caller is not the StabilityPool");
        _move(_sender, _poolAddress, _amount);
    }

    function returnFromPool(address _poolAddress, address _receiver, uint256 _amount) external {
        require(
            msg.sender == troveManagerAddress || msg.sender == stabilityPoolAddress,
            "LUSDToken: Caller is neither TroveManager nor StabilityPool"
        );
        _move(_poolAddress, _receiver, _amount);
    }

    /// A transfer, a mint (from zero) or a burn (to zero), with its Transfer event.
    function _move(address from, address to, uint256 amount) internal {
        if (from == address(0)) totalSupply += amount;
        else balanceOf[from] -= amount;
        if (to == address(0)) totalSupply -= amount;
        else balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }
}

/// LQTY: TestToken's open `mint` stands for its genesis allocations (the world funds
/// CommunityIssuance and the saver with it); LQTYStaking pulls stakes without an allowance.
contract TestLQTYToken is TestToken {
    address public immutable communityIssuanceAddress;
    address public immutable lqtyStakingAddress;

    constructor(address communityIssuance, address lqtyStaking) TestToken("LQTY", "LQTY", 18) {
        communityIssuanceAddress = communityIssuance;
        lqtyStakingAddress = lqtyStaking;
    }

    function sendToLQTYStaking(address _sender, uint256 _amount) external {
        require(msg.sender == lqtyStakingAddress, "LQTYToken: caller must be the LQTYStaking contract");
        balanceOf[_sender] -= _amount;
        balanceOf[lqtyStakingAddress] += _amount;
        emit Transfer(_sender, lqtyStakingAddress, _amount);
    }
}

/// Liquity's PriceFeed over a Chainlink-style aggregator (tests/contracts/TestPriceFeed.sol):
/// `fetchPrice()` is its answer in 18 decimals, stored as the last good price.
contract TestLiquityPriceFeed {
    string public constant NAME = "PriceFeed";
    uint256 public constant DECIMAL_PRECISION = 1e18;
    uint256 public constant TARGET_DIGITS = 18;

    enum Status {
        chainlinkWorking,
        usingTellorChainlinkUntrusted,
        bothOraclesUntrusted,
        usingTellorChainlinkFrozen,
        usingChainlinkTellorUntrusted
    }

    TestPriceFeed public priceAggregator;
    address public tellorCaller;
    uint256 public lastGoodPrice;
    Status public status;

    event LastGoodPriceUpdated(uint256 _lastGoodPrice);

    /// Once; the aggregator's answer then is the first good price, as Liquity's.
    function setAddresses(address _priceAggregatorAddress, address _tellorCallerAddress) external {
        require(address(priceAggregator) == address(0), "PriceFeed: addresses already set");
        priceAggregator = TestPriceFeed(_priceAggregatorAddress);
        tellorCaller = _tellorCallerAddress;
        _storePrice(_aggregatorPrice());
    }

    function fetchPrice() external returns (uint256) {
        uint256 price = _aggregatorPrice();
        _storePrice(price);
        return price;
    }

    /// Test hook: the aggregator's next answer (USD per ether, 18 decimals, a whole number of
    /// the aggregator's digits), updated now; `lastGoodPrice` moves at the next `fetchPrice()`.
    function setPrice(uint256 price) external {
        uint256 unit = 10 ** (TARGET_DIGITS - priceAggregator.decimals());
        require(price % unit == 0, "TestLiquityPriceFeed: more digits than the aggregator's");
        priceAggregator.set(int256(price / unit), block.timestamp);
    }

    function _aggregatorPrice() internal view returns (uint256) {
        (, int256 answer,,,) = priceAggregator.latestRoundData();
        require(answer > 0, "TestLiquityPriceFeed: no answer");
        return uint256(answer) * 10 ** (TARGET_DIGITS - priceAggregator.decimals());
    }

    function _storePrice(uint256 price) internal {
        lastGoodPrice = price;
        emit LastGoodPriceUpdated(price);
    }
}

/// The troves, their redistribution rewards and the fees' base rate; also the ActivePool,
/// DefaultPool and GasPool (it holds every trove's ether and the gas compensation LUSD).
contract TestTroveManager {
    string public constant NAME = "TroveManager";
    uint256 public constant DECIMAL_PRECISION = 1e18;
    uint256 public constant _100pct = 1e18;
    uint256 public constant MCR = 1100000000000000000;
    uint256 public constant CCR = 1500000000000000000;
    uint256 public constant LUSD_GAS_COMPENSATION = 200e18;
    uint256 public constant MIN_NET_DEBT = 1800e18;
    uint256 public constant PERCENT_DIVISOR = 200;
    uint256 public constant BORROWING_FEE_FLOOR = 5e15;
    uint256 public constant REDEMPTION_FEE_FLOOR = 5e15;
    uint256 public constant MAX_BORROWING_FEE = 5e16;
    uint256 public constant SECONDS_IN_ONE_MINUTE = 60;
    uint256 public constant MINUTE_DECAY_FACTOR = 999037758833783000;
    uint256 public constant BETA = 2;
    uint256 public constant BOOTSTRAP_PERIOD = 14 days;

    enum Status {
        nonExistent,
        active,
        closedByOwner,
        closedByLiquidation,
        closedByRedemption
    }

    uint8 internal constant APPLY_PENDING_REWARDS = 0;
    uint8 internal constant LIQUIDATE_IN_NORMAL_MODE = 1;
    uint8 internal constant LIQUIDATE_IN_RECOVERY_MODE = 2;
    uint8 internal constant REDEEM_COLLATERAL = 3;

    struct Trove {
        uint256 debt;
        uint256 coll;
        uint256 stake;
        Status status;
        uint128 arrayIndex;
    }

    struct RewardSnapshot {
        uint256 ETH;
        uint256 LUSDDebt;
    }

    mapping(address => Trove) public Troves;
    mapping(address => RewardSnapshot) public rewardSnapshots;
    address[] public TroveOwners;
    uint256 public totalStakes;
    uint256 public totalStakesSnapshot;
    uint256 public totalCollateralSnapshot;
    uint256 public L_ETH;
    uint256 public L_LUSDDebt;
    uint256 public lastETHError_Redistribution;
    uint256 public lastLUSDDebtError_Redistribution;
    uint256 public baseRate;
    uint256 public lastFeeOperationTime;

    /// The ActivePool's and the DefaultPool's ether and LUSD debt, both held here.
    uint256 internal activeETH;
    uint256 internal activeDebt;
    uint256 internal defaultETH;
    uint256 internal defaultDebt;

    address public borrowerOperationsAddress;
    address public activePool;
    address public defaultPool;
    TestStabilityPool public stabilityPool;
    address internal gasPoolAddress;
    TestCollSurplusPool internal collSurplusPool;
    TestLiquityPriceFeed public priceFeed;
    TestLUSDToken public lusdToken;
    address public sortedTroves;
    address public lqtyToken;
    TestLQTYStaking public lqtyStaking;

    event TroveUpdated(address indexed _borrower, uint256 _debt, uint256 _coll, uint256 _stake, uint8 _operation);
    event TroveLiquidated(address indexed _borrower, uint256 _debt, uint256 _coll, uint8 _operation);
    event Liquidation(
        uint256 _liquidatedDebt, uint256 _liquidatedColl, uint256 _collGasCompensation, uint256 _LUSDGasCompensation
    );
    event Redemption(uint256 _attemptedLUSDAmount, uint256 _actualLUSDAmount, uint256 _ETHSent, uint256 _ETHFee);
    event BaseRateUpdated(uint256 _baseRate);
    event LastFeeOpTimeUpdated(uint256 _lastFeeOpTime);
    event TotalStakesUpdated(uint256 _newTotalStakes);
    event SystemSnapshotsUpdated(uint256 _totalStakesSnapshot, uint256 _totalCollateralSnapshot);
    event LTermsUpdated(uint256 _L_ETH, uint256 _L_LUSDDebt);
    event TroveSnapshotsUpdated(uint256 _L_ETH, uint256 _L_LUSDDebt);
    event TroveIndexUpdated(address _borrower, uint256 _newIndex);

    modifier onlyBorrowerOperations() {
        require(msg.sender == borrowerOperationsAddress, "TroveManager: Caller is not the BorrowerOperations contract");
        _;
    }

    /// Once. This contract is the ActivePool and the DefaultPool: both must be its own address.
    function setAddresses(
        address _borrowerOperationsAddress,
        address _activePoolAddress,
        address _defaultPoolAddress,
        address _stabilityPoolAddress,
        address _gasPoolAddress,
        address _collSurplusPoolAddress,
        address _priceFeedAddress,
        address _lusdTokenAddress,
        address _sortedTrovesAddress,
        address _lqtyTokenAddress,
        address _lqtyStakingAddress
    ) external {
        require(borrowerOperationsAddress == address(0), "TroveManager: addresses already set");
        require(_activePoolAddress == address(this) && _defaultPoolAddress == address(this), "TroveManager: own pools");
        borrowerOperationsAddress = _borrowerOperationsAddress;
        activePool = _activePoolAddress;
        defaultPool = _defaultPoolAddress;
        stabilityPool = TestStabilityPool(payable(_stabilityPoolAddress));
        gasPoolAddress = _gasPoolAddress;
        collSurplusPool = TestCollSurplusPool(payable(_collSurplusPoolAddress));
        priceFeed = TestLiquityPriceFeed(_priceFeedAddress);
        lusdToken = TestLUSDToken(_lusdTokenAddress);
        sortedTroves = _sortedTrovesAddress;
        lqtyToken = _lqtyTokenAddress;
        lqtyStaking = TestLQTYStaking(payable(_lqtyStakingAddress));
    }

    // ------------------------------------------------------------------ views

    function getTroveOwnersCount() external view returns (uint256) {
        return TroveOwners.length;
    }

    function getTroveFromTroveOwnersArray(uint256 _index) external view returns (address) {
        return TroveOwners[_index];
    }

    function getTroveStatus(address _borrower) external view returns (uint256) {
        return uint256(Troves[_borrower].status);
    }

    function getTroveStake(address _borrower) external view returns (uint256) {
        return Troves[_borrower].stake;
    }

    function getTroveDebt(address _borrower) external view returns (uint256) {
        return Troves[_borrower].debt;
    }

    function getTroveColl(address _borrower) external view returns (uint256) {
        return Troves[_borrower].coll;
    }

    /// stake x (L_ETH - the trove's snapshot) / 1e18, for an active trove.
    function getPendingETHReward(address _borrower) public view returns (uint256) {
        uint256 perUnitStaked = L_ETH - rewardSnapshots[_borrower].ETH;
        if (perUnitStaked == 0 || Troves[_borrower].status != Status.active) return 0;
        return Troves[_borrower].stake * perUnitStaked / DECIMAL_PRECISION;
    }

    function getPendingLUSDDebtReward(address _borrower) public view returns (uint256) {
        uint256 perUnitStaked = L_LUSDDebt - rewardSnapshots[_borrower].LUSDDebt;
        if (perUnitStaked == 0 || Troves[_borrower].status != Status.active) return 0;
        return Troves[_borrower].stake * perUnitStaked / DECIMAL_PRECISION;
    }

    function hasPendingRewards(address _borrower) public view returns (bool) {
        return Troves[_borrower].status == Status.active && rewardSnapshots[_borrower].ETH < L_ETH;
    }

    function getEntireDebtAndColl(address _borrower)
        public
        view
        returns (uint256 debt, uint256 coll, uint256 pendingLUSDDebtReward, uint256 pendingETHReward)
    {
        pendingLUSDDebtReward = getPendingLUSDDebtReward(_borrower);
        pendingETHReward = getPendingETHReward(_borrower);
        debt = Troves[_borrower].debt + pendingLUSDDebtReward;
        coll = Troves[_borrower].coll + pendingETHReward;
    }

    function getNominalICR(address _borrower) public view returns (uint256) {
        (uint256 debt, uint256 coll,,) = getEntireDebtAndColl(_borrower);
        return TestLiquityMath.nominalCr(coll, debt);
    }

    function getCurrentICR(address _borrower, uint256 _price) public view returns (uint256) {
        (uint256 debt, uint256 coll,,) = getEntireDebtAndColl(_borrower);
        return TestLiquityMath.cr(coll, debt, _price);
    }

    function getEntireSystemColl() public view returns (uint256 entireSystemColl) {
        return activeETH + defaultETH;
    }

    function getEntireSystemDebt() public view returns (uint256 entireSystemDebt) {
        return activeDebt + defaultDebt;
    }

    function getTCR(uint256 _price) public view returns (uint256) {
        return TestLiquityMath.cr(getEntireSystemColl(), getEntireSystemDebt(), _price);
    }

    function checkRecoveryMode(uint256 _price) public view returns (bool) {
        return getTCR(_price) < CCR;
    }

    /// Test hook (SortedTroves' `getLast()`): the active trove with the lowest nominal ICR,
    /// the zero address when there is none.
    function lowestTrove() public view returns (address) {
        return _lowestTrove(0);
    }

    function getRedemptionRate() public view returns (uint256) {
        return _redemptionRate(baseRate);
    }

    function getRedemptionRateWithDecay() public view returns (uint256) {
        return _redemptionRate(_calcDecayedBaseRate());
    }

    function getRedemptionFeeWithDecay(uint256 _ETHDrawn) external view returns (uint256) {
        return _redemptionFee(getRedemptionRateWithDecay(), _ETHDrawn);
    }

    function getBorrowingRate() public view returns (uint256) {
        return _borrowingRate(baseRate);
    }

    function getBorrowingRateWithDecay() public view returns (uint256) {
        return _borrowingRate(_calcDecayedBaseRate());
    }

    function getBorrowingFee(uint256 _LUSDDebt) external view returns (uint256) {
        return getBorrowingRate() * _LUSDDebt / DECIMAL_PRECISION;
    }

    function getBorrowingFeeWithDecay(uint256 _LUSDDebt) external view returns (uint256) {
        return getBorrowingRateWithDecay() * _LUSDDebt / DECIMAL_PRECISION;
    }

    // ------------------------------------------------------------ liquidation

    /// One trove below MCR in normal mode: its debt is offset against the Stability Pool's
    /// deposits as far as they go, the rest redistributed to the other troves by their stakes;
    /// the liquidator gets 0.5 % of the collateral and the 200 LUSD gas compensation.
    function liquidate(address _borrower) external {
        require(Troves[_borrower].status == Status.active, "TroveManager: Trove does not exist or is closed");
        uint256 price = priceFeed.fetchPrice();
        uint256 icr = getCurrentICR(_borrower, price);
        require(icr < MCR, "TroveManager: nothing to liquidate");
        bool recovery = checkRecoveryMode(price);
        require(!recovery || icr >= _100pct, "TestTroveManager: recovery mode below 100 % is not supported");
        uint8 operation = recovery ? LIQUIDATE_IN_RECOVERY_MODE : LIQUIDATE_IN_NORMAL_MODE;
        uint256 inPool = stabilityPool.getTotalLUSDDeposits();
        (uint256 debt, uint256 coll, uint256 pendingDebt, uint256 pendingColl) = getEntireDebtAndColl(_borrower);
        _movePendingTroveRewardsToActivePool(pendingDebt, pendingColl);
        _removeStake(_borrower);
        uint256 collGasCompensation = coll / PERCENT_DIVISOR;
        uint256 collToLiquidate = coll - collGasCompensation;
        uint256 debtToOffset = TestLiquityMath.min(debt, inPool);
        uint256 collToSendToSP = debtToOffset == 0 ? 0 : collToLiquidate * debtToOffset / debt;
        _closeTrove(_borrower, Status.closedByLiquidation);
        emit TroveLiquidated(_borrower, debt, coll, operation);
        emit TroveUpdated(_borrower, 0, 0, 0, operation);
        stabilityPool.offset(debtToOffset, collToSendToSP);
        _redistributeDebtAndColl(debt - debtToOffset, collToLiquidate - collToSendToSP);
        _updateSystemSnapshotsExcludeCollRemainder(collGasCompensation);
        emit Liquidation(debt, collToLiquidate, collGasCompensation, LUSD_GAS_COMPENSATION);
        lusdToken.returnFromPool(gasPoolAddress, msg.sender, LUSD_GAS_COMPENSATION);
        _sendETH(msg.sender, collGasCompensation);
    }

    function _redistributeDebtAndColl(uint256 _debt, uint256 _coll) internal {
        if (_debt == 0) return;
        uint256 ethNumerator = _coll * DECIMAL_PRECISION + lastETHError_Redistribution;
        uint256 debtNumerator = _debt * DECIMAL_PRECISION + lastLUSDDebtError_Redistribution;
        uint256 ethPerUnitStaked = ethNumerator / totalStakes;
        uint256 debtPerUnitStaked = debtNumerator / totalStakes;
        lastETHError_Redistribution = ethNumerator - ethPerUnitStaked * totalStakes;
        lastLUSDDebtError_Redistribution = debtNumerator - debtPerUnitStaked * totalStakes;
        L_ETH += ethPerUnitStaked;
        L_LUSDDebt += debtPerUnitStaked;
        emit LTermsUpdated(L_ETH, L_LUSDDebt);
        activeDebt -= _debt;
        defaultDebt += _debt;
        activeETH -= _coll;
        defaultETH += _coll;
    }

    /// The stakes' and the collateral's totals a new stake is proportioned by, before the
    /// liquidation's gas compensation leaves.
    function _updateSystemSnapshotsExcludeCollRemainder(uint256 _collRemainder) internal {
        totalStakesSnapshot = totalStakes;
        totalCollateralSnapshot = activeETH - _collRemainder + defaultETH;
        emit SystemSnapshotsUpdated(totalStakesSnapshot, totalCollateralSnapshot);
    }

    // ------------------------------------------------------------- redemption

    struct RedemptionTotals {
        uint256 price;
        uint256 supplyAtStart;
        uint256 remaining;
        uint256 lusdRedeemed;
        uint256 ethDrawn;
        uint256 ethFee;
    }

    /// LUSD for ether at face value from the active troves at or above MCR, lowest nominal ICR
    /// first (the hints are ignored), less the redemption fee, which goes to LQTY stakers.
    function redeemCollateral(
        uint256 _LUSDamount,
        address,
        address,
        address,
        uint256,
        uint256 _maxIterations,
        uint256 _maxFeePercentage
    ) external {
        require(
            _maxFeePercentage >= REDEMPTION_FEE_FLOOR && _maxFeePercentage <= DECIMAL_PRECISION,
            "Max fee percentage must be between 0.5% and 100%"
        );
        RedemptionTotals memory t;
        t.price = priceFeed.fetchPrice();
        require(getTCR(t.price) >= MCR, "TroveManager: Cannot redeem when TCR < MCR");
        require(_LUSDamount > 0, "TroveManager: Amount must be greater than zero");
        require(
            lusdToken.balanceOf(msg.sender) >= _LUSDamount,
            "TroveManager: Requested redemption amount must be <= user's LUSD token balance"
        );
        t.supplyAtStart = getEntireSystemDebt();
        t.remaining = _LUSDamount;
        if (_maxIterations == 0) _maxIterations = type(uint256).max;
        while (t.remaining > 0 && _maxIterations > 0) {
            address borrower = _lowestTrove(t.price);
            if (borrower == address(0)) break;
            _maxIterations--;
            _applyPendingRewards(borrower);
            (uint256 lusdLot, uint256 ethLot, bool cancelled) = _redeemCollateralFromTrove(borrower, t.remaining, t.price);
            if (cancelled) break;
            t.lusdRedeemed += lusdLot;
            t.ethDrawn += ethLot;
            t.remaining -= lusdLot;
        }
        require(t.ethDrawn > 0, "TroveManager: Unable to redeem any amount");
        _updateBaseRateFromRedemption(t.ethDrawn, t.price, t.supplyAtStart);
        t.ethFee = _redemptionFee(getRedemptionRate(), t.ethDrawn);
        require(t.ethFee * DECIMAL_PRECISION / t.ethDrawn <= _maxFeePercentage, "Fee exceeded provided maximum");
        _sendETH(address(lqtyStaking), t.ethFee);
        lqtyStaking.increaseF_ETH(t.ethFee);
        emit Redemption(_LUSDamount, t.lusdRedeemed, t.ethDrawn, t.ethFee);
        lusdToken.burn(msg.sender, t.lusdRedeemed);
        activeDebt -= t.lusdRedeemed;
        _sendETH(msg.sender, t.ethDrawn - t.ethFee);
    }

    /// A trove redeemed down to its gas compensation is closed, its ether left over accounted to
    /// its owner in CollSurplusPool; a partial redemption that would leave less than the minimum
    /// net debt is cancelled.
    function _redeemCollateralFromTrove(address _borrower, uint256 _maxLUSD, uint256 _price)
        internal
        returns (uint256 lusdLot, uint256 ethLot, bool cancelled)
    {
        Trove storage trove = Troves[_borrower];
        lusdLot = TestLiquityMath.min(_maxLUSD, trove.debt - LUSD_GAS_COMPENSATION);
        ethLot = lusdLot * DECIMAL_PRECISION / _price;
        uint256 newDebt = trove.debt - lusdLot;
        uint256 newColl = trove.coll - ethLot;
        if (newDebt == LUSD_GAS_COMPENSATION) {
            _removeStake(_borrower);
            _closeTrove(_borrower, Status.closedByRedemption);
            lusdToken.burn(gasPoolAddress, LUSD_GAS_COMPENSATION);
            activeDebt -= LUSD_GAS_COMPENSATION;
            collSurplusPool.accountSurplus(_borrower, newColl);
            _sendETH(address(collSurplusPool), newColl);
            emit TroveUpdated(_borrower, 0, 0, 0, REDEEM_COLLATERAL);
        } else {
            if (newDebt - LUSD_GAS_COMPENSATION < MIN_NET_DEBT) return (0, 0, true);
            trove.debt = newDebt;
            trove.coll = newColl;
            _updateStakeAndTotalStakes(_borrower);
            emit TroveUpdated(_borrower, newDebt, newColl, trove.stake, REDEEM_COLLATERAL);
        }
    }

    /// The base rate grows by half the fraction of the LUSD supply redeemed.
    function _updateBaseRateFromRedemption(uint256 _ETHDrawn, uint256 _price, uint256 _totalLUSDSupply) internal {
        uint256 redeemedFraction = _ETHDrawn * _price / _totalLUSDSupply;
        uint256 newBaseRate = TestLiquityMath.min(_calcDecayedBaseRate() + redeemedFraction / BETA, DECIMAL_PRECISION);
        require(newBaseRate > 0, "TroveManager: base rate zero after redemption");
        baseRate = newBaseRate;
        emit BaseRateUpdated(newBaseRate);
        _updateLastFeeOpTime();
    }

    // ------------------------------------------------- BorrowerOperations' hooks

    function applyPendingRewards(address _borrower) external onlyBorrowerOperations {
        _applyPendingRewards(_borrower);
    }

    function updateTroveRewardSnapshots(address _borrower) external onlyBorrowerOperations {
        _updateTroveRewardSnapshots(_borrower);
    }

    function updateStakeAndTotalStakes(address _borrower) external onlyBorrowerOperations returns (uint256) {
        return _updateStakeAndTotalStakes(_borrower);
    }

    function removeStake(address _borrower) external onlyBorrowerOperations {
        _removeStake(_borrower);
    }

    function closeTrove(address _borrower) external onlyBorrowerOperations {
        _closeTrove(_borrower, Status.closedByOwner);
    }

    function addTroveOwnerToArray(address _borrower) external onlyBorrowerOperations returns (uint256 index) {
        TroveOwners.push(_borrower);
        index = TroveOwners.length - 1;
        Troves[_borrower].arrayIndex = uint128(index);
    }

    function setTroveStatus(address _borrower, uint256 _num) external onlyBorrowerOperations {
        Troves[_borrower].status = Status(_num);
    }

    function increaseTroveColl(address _borrower, uint256 _collIncrease)
        external
        onlyBorrowerOperations
        returns (uint256)
    {
        return Troves[_borrower].coll += _collIncrease;
    }

    function decreaseTroveColl(address _borrower, uint256 _collDecrease)
        external
        onlyBorrowerOperations
        returns (uint256)
    {
        return Troves[_borrower].coll -= _collDecrease;
    }

    function increaseTroveDebt(address _borrower, uint256 _debtIncrease)
        external
        onlyBorrowerOperations
        returns (uint256)
    {
        return Troves[_borrower].debt += _debtIncrease;
    }

    function decreaseTroveDebt(address _borrower, uint256 _debtDecrease)
        external
        onlyBorrowerOperations
        returns (uint256)
    {
        return Troves[_borrower].debt -= _debtDecrease;
    }

    /// Decays the base rate to now before a borrowing fee is charged.
    function decayBaseRateFromBorrowing() external onlyBorrowerOperations {
        uint256 decayed = _calcDecayedBaseRate();
        baseRate = decayed;
        emit BaseRateUpdated(decayed);
        _updateLastFeeOpTime();
    }

    // ----------------------------------------------------- the ActivePool's part

    receive() external payable {
        require(msg.sender == borrowerOperationsAddress, "ActivePool: Caller is not BorrowerOperations");
        activeETH += msg.value;
    }

    function sendETH(address _account, uint256 _amount) external {
        require(
            msg.sender == borrowerOperationsAddress || msg.sender == address(stabilityPool),
            "ActivePool: Caller is neither BorrowerOperations nor StabilityPool"
        );
        _sendETH(_account, _amount);
    }

    function increaseLUSDDebt(uint256 _amount) external onlyBorrowerOperations {
        activeDebt += _amount;
    }

    function decreaseLUSDDebt(uint256 _amount) external {
        require(
            msg.sender == borrowerOperationsAddress || msg.sender == address(stabilityPool),
            "ActivePool: Caller is neither BorrowerOperations nor StabilityPool"
        );
        activeDebt -= _amount;
    }

    // ---------------------------------------------------------------- internal

    function _sendETH(address _account, uint256 _amount) internal {
        if (_amount == 0) return;
        activeETH -= _amount;
        (bool sent,) = _account.call{value: _amount}("");
        require(sent, "ActivePool: sending ETH failed");
    }

    /// Records the trove's redistribution rewards (moving them from the DefaultPool's totals to
    /// the ActivePool's), with the TroveManager's TroveUpdated of operation applyPendingRewards.
    function _applyPendingRewards(address _borrower) internal {
        if (!hasPendingRewards(_borrower)) return;
        uint256 pendingColl = getPendingETHReward(_borrower);
        uint256 pendingDebt = getPendingLUSDDebtReward(_borrower);
        Trove storage trove = Troves[_borrower];
        trove.coll += pendingColl;
        trove.debt += pendingDebt;
        _updateTroveRewardSnapshots(_borrower);
        _movePendingTroveRewardsToActivePool(pendingDebt, pendingColl);
        emit TroveUpdated(_borrower, trove.debt, trove.coll, trove.stake, APPLY_PENDING_REWARDS);
    }

    function _movePendingTroveRewardsToActivePool(uint256 _debt, uint256 _coll) internal {
        defaultDebt -= _debt;
        activeDebt += _debt;
        defaultETH -= _coll;
        activeETH += _coll;
    }

    function _updateTroveRewardSnapshots(address _borrower) internal {
        rewardSnapshots[_borrower] = RewardSnapshot(L_ETH, L_LUSDDebt);
        emit TroveSnapshotsUpdated(L_ETH, L_LUSDDebt);
    }

    /// coll x totalStakesSnapshot / totalCollateralSnapshot (the coll itself before any liquidation).
    function _updateStakeAndTotalStakes(address _borrower) internal returns (uint256 newStake) {
        Trove storage trove = Troves[_borrower];
        newStake = totalCollateralSnapshot == 0
            ? trove.coll
            : trove.coll * totalStakesSnapshot / totalCollateralSnapshot;
        totalStakes = totalStakes - trove.stake + newStake;
        trove.stake = newStake;
        emit TotalStakesUpdated(totalStakes);
    }

    function _removeStake(address _borrower) internal {
        totalStakes -= Troves[_borrower].stake;
        Troves[_borrower].stake = 0;
    }

    function _closeTrove(address _borrower, Status _closedStatus) internal {
        uint256 length = TroveOwners.length;
        require(length > 1, "TroveManager: Only one trove in the system");
        Trove storage trove = Troves[_borrower];
        trove.status = _closedStatus;
        trove.coll = 0;
        trove.debt = 0;
        delete rewardSnapshots[_borrower];
        uint128 index = trove.arrayIndex;
        address moved = TroveOwners[length - 1];
        TroveOwners[index] = moved;
        Troves[moved].arrayIndex = index;
        emit TroveIndexUpdated(moved, index);
        TroveOwners.pop();
    }

    /// The active trove with the lowest nominal ICR whose ICR at `_price` is at least MCR (any,
    /// with `_price` 0); the zero address when there is none.
    function _lowestTrove(uint256 _price) internal view returns (address lowest) {
        uint256 lowestNicr = type(uint256).max;
        for (uint256 i = 0; i < TroveOwners.length; i++) {
            address owner = TroveOwners[i];
            uint256 nicr = getNominalICR(owner);
            if (nicr >= lowestNicr || (_price != 0 && getCurrentICR(owner, _price) < MCR)) continue;
            (lowest, lowestNicr) = (owner, nicr);
        }
    }

    function _calcDecayedBaseRate() internal view returns (uint256) {
        uint256 minutesPassed = (block.timestamp - lastFeeOperationTime) / SECONDS_IN_ONE_MINUTE;
        return baseRate * TestLiquityMath.decPow(MINUTE_DECAY_FACTOR, minutesPassed) / DECIMAL_PRECISION;
    }

    function _updateLastFeeOpTime() internal {
        if (block.timestamp - lastFeeOperationTime >= SECONDS_IN_ONE_MINUTE) {
            lastFeeOperationTime = block.timestamp;
            emit LastFeeOpTimeUpdated(block.timestamp);
        }
    }

    function _redemptionRate(uint256 _baseRate) internal pure returns (uint256) {
        return TestLiquityMath.min(REDEMPTION_FEE_FLOOR + _baseRate, DECIMAL_PRECISION);
    }

    function _redemptionFee(uint256 _rate, uint256 _ETHDrawn) internal pure returns (uint256 fee) {
        fee = _rate * _ETHDrawn / DECIMAL_PRECISION;
        require(fee < _ETHDrawn, "TroveManager: Fee would eat up all returned collateral");
    }

    function _borrowingRate(uint256 _baseRate) internal pure returns (uint256) {
        return TestLiquityMath.min(BORROWING_FEE_FLOOR + _baseRate, MAX_BORROWING_FEE);
    }
}

/// Opening, adjusting and closing troves, on the TroveManager's state; the borrowing fee is
/// minted to LQTYStaking.
contract TestBorrowerOperations {
    string public constant NAME = "BorrowerOperations";
    uint256 public constant DECIMAL_PRECISION = 1e18;
    uint256 public constant _100pct = 1e18;
    uint256 public constant MCR = 1100000000000000000;
    uint256 public constant CCR = 1500000000000000000;
    uint256 public constant LUSD_GAS_COMPENSATION = 200e18;
    uint256 public constant MIN_NET_DEBT = 1800e18;
    uint256 public constant PERCENT_DIVISOR = 200;
    uint256 public constant BORROWING_FEE_FLOOR = 5e15;

    uint8 internal constant OPEN_TROVE = 0;
    uint8 internal constant CLOSE_TROVE = 1;
    uint8 internal constant ADJUST_TROVE = 2;
    uint256 internal constant ACTIVE = 1;

    TestTroveManager public troveManager;
    address public activePool;
    address public defaultPool;
    address internal stabilityPoolAddress;
    address internal gasPoolAddress;
    TestCollSurplusPool internal collSurplusPool;
    TestLiquityPriceFeed public priceFeed;
    address public sortedTroves;
    TestLUSDToken public lusdToken;
    TestLQTYStaking public lqtyStaking;

    event TroveCreated(address indexed _borrower, uint256 arrayIndex);
    event TroveUpdated(address indexed _borrower, uint256 _debt, uint256 _coll, uint256 stake, uint8 operation);
    event LUSDBorrowingFeePaid(address indexed _borrower, uint256 _LUSDFee);

    /// Once; the active and default pools are the TroveManager (TestTroveManager.setAddresses).
    function setAddresses(
        address _troveManagerAddress,
        address _activePoolAddress,
        address _defaultPoolAddress,
        address _stabilityPoolAddress,
        address _gasPoolAddress,
        address _collSurplusPoolAddress,
        address _priceFeedAddress,
        address _sortedTrovesAddress,
        address _lusdTokenAddress,
        address _lqtyStakingAddress
    ) external {
        require(address(troveManager) == address(0), "BorrowerOps: addresses already set");
        troveManager = TestTroveManager(payable(_troveManagerAddress));
        activePool = _activePoolAddress;
        defaultPool = _defaultPoolAddress;
        stabilityPoolAddress = _stabilityPoolAddress;
        gasPoolAddress = _gasPoolAddress;
        collSurplusPool = TestCollSurplusPool(payable(_collSurplusPoolAddress));
        priceFeed = TestLiquityPriceFeed(_priceFeedAddress);
        sortedTroves = _sortedTrovesAddress;
        lusdToken = TestLUSDToken(_lusdTokenAddress);
        lqtyStaking = TestLQTYStaking(payable(_lqtyStakingAddress));
    }

    function lqtyStakingAddress() external view returns (address) {
        return address(lqtyStaking);
    }

    function getEntireSystemColl() external view returns (uint256 entireSystemColl) {
        return troveManager.getEntireSystemColl();
    }

    function getEntireSystemDebt() external view returns (uint256 entireSystemDebt) {
        return troveManager.getEntireSystemDebt();
    }

    function getCompositeDebt(uint256 _debt) external pure returns (uint256) {
        return _debt + LUSD_GAS_COMPENSATION;
    }

    /// A trove of the ether sent, owing _LUSDAmount + the borrowing fee + the gas compensation.
    function openTrove(uint256 _maxFeePercentage, uint256 _LUSDAmount, address, address) external payable {
        TestTroveManager tm = troveManager;
        uint256 price = priceFeed.fetchPrice();
        bool recoveryMode = tm.checkRecoveryMode(price);
        _requireValidMaxFeePercentage(_maxFeePercentage, recoveryMode);
        require(tm.getTroveStatus(msg.sender) != ACTIVE, "BorrowerOps: Trove is active");
        uint256 fee = recoveryMode ? 0 : _triggerBorrowingFee(_LUSDAmount, _maxFeePercentage);
        uint256 netDebt = _LUSDAmount + fee;
        require(netDebt >= MIN_NET_DEBT, "BorrowerOps: Trove's net debt must be greater than minimum");
        uint256 compositeDebt = netDebt + LUSD_GAS_COMPENSATION;
        uint256 icr = TestLiquityMath.cr(msg.value, compositeDebt, price);
        if (recoveryMode) {
            require(icr >= CCR, "BorrowerOps: Operation must leave trove with ICR >= CCR");
        } else {
            require(icr >= MCR, "BorrowerOps: An operation that would result in ICR < MCR is not permitted");
            _requireNewTCRisAboveCCR(_newTCR(msg.value, true, compositeDebt, true, price));
        }
        tm.setTroveStatus(msg.sender, ACTIVE);
        tm.increaseTroveColl(msg.sender, msg.value);
        tm.increaseTroveDebt(msg.sender, compositeDebt);
        tm.updateTroveRewardSnapshots(msg.sender);
        uint256 stake = tm.updateStakeAndTotalStakes(msg.sender);
        emit TroveCreated(msg.sender, tm.addTroveOwnerToArray(msg.sender));
        _sendToActivePool(msg.value);
        tm.increaseLUSDDebt(compositeDebt);
        lusdToken.mint(msg.sender, _LUSDAmount);
        lusdToken.mint(gasPoolAddress, LUSD_GAS_COMPENSATION);
        emit TroveUpdated(msg.sender, compositeDebt, msg.value, stake, OPEN_TROVE);
        emit LUSDBorrowingFeePaid(msg.sender, fee);
    }

    function addColl(address, address) external payable {
        _adjustTrove(msg.sender, 0, 0, false, 0);
    }

    /// The Stability Pool's ether gain, sent along, added to the depositor's trove.
    function moveETHGainToTrove(address _borrower, address, address) external payable {
        require(msg.sender == stabilityPoolAddress, "BorrowerOps: Caller is not Stability Pool");
        _adjustTrove(_borrower, 0, 0, false, 0);
    }

    function withdrawColl(uint256 _collWithdrawal, address, address) external {
        _adjustTrove(msg.sender, _collWithdrawal, 0, false, 0);
    }

    function withdrawLUSD(uint256 _maxFeePercentage, uint256 _LUSDAmount, address, address) external {
        _adjustTrove(msg.sender, 0, _LUSDAmount, true, _maxFeePercentage);
    }

    function repayLUSD(uint256 _LUSDAmount, address, address) external {
        _adjustTrove(msg.sender, 0, _LUSDAmount, false, 0);
    }

    function adjustTrove(
        uint256 _maxFeePercentage,
        uint256 _collWithdrawal,
        uint256 _LUSDChange,
        bool _isDebtIncrease,
        address,
        address
    ) external payable {
        _adjustTrove(msg.sender, _collWithdrawal, _LUSDChange, _isDebtIncrease, _maxFeePercentage);
    }

    /// Repays the debt (less the gas compensation, which the gas pool repays) and returns the ether.
    function closeTrove() external {
        TestTroveManager tm = troveManager;
        uint256 price = priceFeed.fetchPrice();
        require(tm.getTroveStatus(msg.sender) == ACTIVE, "BorrowerOps: Trove does not exist or is closed");
        require(!tm.checkRecoveryMode(price), "BorrowerOps: Operation not permitted during Recovery Mode");
        tm.applyPendingRewards(msg.sender);
        uint256 coll = tm.getTroveColl(msg.sender);
        uint256 debt = tm.getTroveDebt(msg.sender);
        require(
            lusdToken.balanceOf(msg.sender) >= debt - LUSD_GAS_COMPENSATION,
            "BorrowerOps: Caller doesnt have enough LUSD to make repayment"
        );
        _requireNewTCRisAboveCCR(_newTCR(coll, false, debt, false, price));
        tm.removeStake(msg.sender);
        tm.closeTrove(msg.sender);
        emit TroveUpdated(msg.sender, 0, 0, 0, CLOSE_TROVE);
        tm.decreaseLUSDDebt(debt);
        lusdToken.burn(msg.sender, debt - LUSD_GAS_COMPENSATION);
        lusdToken.burn(gasPoolAddress, LUSD_GAS_COMPENSATION);
        tm.sendETH(msg.sender, coll);
    }

    function claimCollateral() external {
        collSurplusPool.claimColl(msg.sender);
    }

    struct Adjustment {
        uint256 price;
        bool recoveryMode;
        uint256 collChange;
        bool isCollIncrease;
        uint256 netDebtChange;
        uint256 fee;
        uint256 debt;
        uint256 coll;
        uint256 newColl;
        uint256 newDebt;
        uint256 stake;
    }

    function _adjustTrove(
        address _borrower,
        uint256 _collWithdrawal,
        uint256 _LUSDChange,
        bool _isDebtIncrease,
        uint256 _maxFeePercentage
    ) internal {
        TestTroveManager tm = troveManager;
        Adjustment memory a;
        a.price = priceFeed.fetchPrice();
        a.recoveryMode = tm.checkRecoveryMode(a.price);
        if (_isDebtIncrease) {
            _requireValidMaxFeePercentage(_maxFeePercentage, a.recoveryMode);
            require(_LUSDChange > 0, "BorrowerOps: Debt increase requires non-zero debtChange");
        }
        require(msg.value == 0 || _collWithdrawal == 0, "BorrowerOperations: Cannot withdraw and add coll");
        require(
            msg.value != 0 || _collWithdrawal != 0 || _LUSDChange != 0,
            "BorrowerOps: There must be either a collateral change or a debt change"
        );
        require(tm.getTroveStatus(_borrower) == ACTIVE, "BorrowerOps: Trove does not exist or is closed");
        tm.applyPendingRewards(_borrower);
        (a.collChange, a.isCollIncrease) = msg.value != 0 ? (msg.value, true) : (_collWithdrawal, false);
        a.netDebtChange = _LUSDChange;
        if (_isDebtIncrease && !a.recoveryMode) {
            a.fee = _triggerBorrowingFee(_LUSDChange, _maxFeePercentage);
            a.netDebtChange += a.fee;
        }
        a.debt = tm.getTroveDebt(_borrower);
        a.coll = tm.getTroveColl(_borrower);
        require(_collWithdrawal <= a.coll, "BorrowerOps: cannot withdraw more than the trove's collateral");
        a.newColl = a.isCollIncrease ? a.coll + a.collChange : a.coll - a.collChange;
        a.newDebt = _isDebtIncrease ? a.debt + a.netDebtChange : a.debt - a.netDebtChange;
        _requireValidAdjustmentInCurrentMode(a, _collWithdrawal, _isDebtIncrease);
        if (!_isDebtIncrease && _LUSDChange > 0) {
            require(
                a.newDebt - LUSD_GAS_COMPENSATION >= MIN_NET_DEBT,
                "BorrowerOps: Trove's net debt must be greater than minimum"
            );
            require(
                lusdToken.balanceOf(_borrower) >= _LUSDChange,
                "BorrowerOps: Caller doesnt have enough LUSD to make repayment"
            );
        }
        a.newColl = a.isCollIncrease
            ? tm.increaseTroveColl(_borrower, a.collChange)
            : tm.decreaseTroveColl(_borrower, a.collChange);
        a.newDebt = _isDebtIncrease
            ? tm.increaseTroveDebt(_borrower, a.netDebtChange)
            : tm.decreaseTroveDebt(_borrower, a.netDebtChange);
        a.stake = tm.updateStakeAndTotalStakes(_borrower);
        emit TroveUpdated(_borrower, a.newDebt, a.newColl, a.stake, ADJUST_TROVE);
        emit LUSDBorrowingFeePaid(msg.sender, a.fee);
        if (_isDebtIncrease) {
            tm.increaseLUSDDebt(a.netDebtChange);
            lusdToken.mint(msg.sender, _LUSDChange);
        } else if (_LUSDChange > 0) {
            tm.decreaseLUSDDebt(_LUSDChange);
            lusdToken.burn(msg.sender, _LUSDChange);
        }
        if (a.isCollIncrease) _sendToActivePool(a.collChange);
        else tm.sendETH(msg.sender, a.collChange);
    }

    function _requireValidAdjustmentInCurrentMode(Adjustment memory a, uint256 _collWithdrawal, bool _isDebtIncrease)
        internal
        view
    {
        uint256 newICR = TestLiquityMath.cr(a.newColl, a.newDebt, a.price);
        if (a.recoveryMode) {
            require(_collWithdrawal == 0, "BorrowerOps: Collateral withdrawal not permitted Recovery Mode");
            if (_isDebtIncrease) {
                require(newICR >= CCR, "BorrowerOps: Operation must leave trove with ICR >= CCR");
                require(
                    newICR >= TestLiquityMath.cr(a.coll, a.debt, a.price),
                    "BorrowerOps: Cannot decrease your Trove's ICR in Recovery Mode"
                );
            }
        } else {
            require(newICR >= MCR, "BorrowerOps: An operation that would result in ICR < MCR is not permitted");
            _requireNewTCRisAboveCCR(_newTCR(a.collChange, a.isCollIncrease, a.netDebtChange, _isDebtIncrease, a.price));
        }
    }

    /// Decays the base rate, charges borrowingRate x amount and hands it to LQTY stakers.
    function _triggerBorrowingFee(uint256 _LUSDAmount, uint256 _maxFeePercentage) internal returns (uint256 fee) {
        troveManager.decayBaseRateFromBorrowing();
        fee = troveManager.getBorrowingFee(_LUSDAmount);
        require(fee * DECIMAL_PRECISION / _LUSDAmount <= _maxFeePercentage, "Fee exceeded provided maximum");
        lqtyStaking.increaseF_LUSD(fee);
        lusdToken.mint(address(lqtyStaking), fee);
    }

    function _newTCR(uint256 _collChange, bool _isCollIncrease, uint256 _debtChange, bool _isDebtIncrease, uint256 _price)
        internal
        view
        returns (uint256)
    {
        uint256 coll = troveManager.getEntireSystemColl();
        uint256 debt = troveManager.getEntireSystemDebt();
        coll = _isCollIncrease ? coll + _collChange : coll - _collChange;
        debt = _isDebtIncrease ? debt + _debtChange : debt - _debtChange;
        return TestLiquityMath.cr(coll, debt, _price);
    }

    function _requireNewTCRisAboveCCR(uint256 _newTCR_) internal pure {
        require(_newTCR_ >= CCR, "BorrowerOps: An operation that would result in TCR < CCR is not permitted");
    }

    function _requireValidMaxFeePercentage(uint256 _maxFeePercentage, bool _recoveryMode) internal pure {
        if (_recoveryMode) {
            require(_maxFeePercentage <= DECIMAL_PRECISION, "Max fee percentage must less than or equal to 100%");
        } else {
            require(
                _maxFeePercentage >= BORROWING_FEE_FLOOR && _maxFeePercentage <= DECIMAL_PRECISION,
                "Max fee percentage must be between 0.5% and 100%"
            );
        }
    }

    function _sendToActivePool(uint256 _amount) internal {
        (bool sent,) = address(troveManager).call{value: _amount}("");
        require(sent, "BorrowerOps: sending ETH to the ActivePool failed");
    }
}

/// LUSD deposits that absorb liquidated debt for its ether, and earn LQTY: Liquity's
/// product-sum scheme (P, and S and G by epoch and scale).
contract TestStabilityPool {
    string public constant NAME = "StabilityPool";
    uint256 public constant DECIMAL_PRECISION = 1e18;
    uint256 public constant SCALE_FACTOR = 1e9;
    uint256 public constant MCR = 1100000000000000000;

    struct Deposit {
        uint256 initialValue;
        address frontEndTag;
    }

    struct Snapshots {
        uint256 S;
        uint256 P;
        uint256 G;
        uint128 scale;
        uint128 epoch;
    }

    mapping(address => Deposit) public deposits;
    mapping(address => Snapshots) public depositSnapshots;
    uint256 public P = DECIMAL_PRECISION;
    uint128 public currentScale;
    uint128 public currentEpoch;
    mapping(uint128 => mapping(uint128 => uint256)) public epochToScaleToSum;
    mapping(uint128 => mapping(uint128 => uint256)) public epochToScaleToG;
    uint256 public lastLQTYError;
    uint256 public lastETHError_Offset;
    uint256 public lastLUSDLossError_Offset;
    uint256 internal ETH;
    uint256 internal totalLUSDDeposits;

    TestBorrowerOperations public borrowerOperations;
    TestTroveManager public troveManager;
    address public activePool;
    TestLUSDToken public lusdToken;
    address public sortedTroves;
    TestLiquityPriceFeed public priceFeed;
    TestCommunityIssuance public communityIssuance;

    event UserDepositChanged(address indexed _depositor, uint256 _newDeposit);
    event ETHGainWithdrawn(address indexed _depositor, uint256 _ETH, uint256 _LUSDLoss);
    event LQTYPaidToDepositor(address indexed _depositor, uint256 _LQTY);
    event DepositSnapshotUpdated(address indexed _depositor, uint256 _P, uint256 _S, uint256 _G);
    event StabilityPoolETHBalanceUpdated(uint256 _newBalance);
    event StabilityPoolLUSDBalanceUpdated(uint256 _newBalance);
    event EtherSent(address _to, uint256 _amount);
    event P_Updated(uint256 _P);
    event S_Updated(uint256 _S, uint128 _epoch, uint128 _scale);
    event G_Updated(uint256 _G, uint128 _epoch, uint128 _scale);
    event EpochUpdated(uint128 _currentEpoch);
    event ScaleUpdated(uint128 _currentScale);

    /// Once; the active pool is the TroveManager.
    function setAddresses(
        address _borrowerOperationsAddress,
        address _troveManagerAddress,
        address _activePoolAddress,
        address _lusdTokenAddress,
        address _sortedTrovesAddress,
        address _priceFeedAddress,
        address _communityIssuanceAddress
    ) external {
        require(address(troveManager) == address(0), "StabilityPool: addresses already set");
        borrowerOperations = TestBorrowerOperations(_borrowerOperationsAddress);
        troveManager = TestTroveManager(payable(_troveManagerAddress));
        activePool = _activePoolAddress;
        lusdToken = TestLUSDToken(_lusdTokenAddress);
        sortedTroves = _sortedTrovesAddress;
        priceFeed = TestLiquityPriceFeed(_priceFeedAddress);
        communityIssuance = TestCommunityIssuance(_communityIssuanceAddress);
    }

    function getETH() external view returns (uint256) {
        return ETH;
    }

    function getTotalLUSDDeposits() external view returns (uint256) {
        return totalLUSDDeposits;
    }

    // ------------------------------------------------------------ deposits

    /// Pays out the ether and LQTY gains, then deposits the compounded deposit plus `_amount`.
    function provideToSP(uint256 _amount, address _frontEndTag) external {
        require(_frontEndTag == address(0), "TestStabilityPool: front ends are not supported");
        require(_amount > 0, "StabilityPool: Amount must be non-zero");
        (uint256 ethGain, uint256 compounded, uint256 loss) = _settle();
        lusdToken.sendToPool(msg.sender, address(this), _amount);
        totalLUSDDeposits += _amount;
        emit StabilityPoolLUSDBalanceUpdated(totalLUSDDeposits);
        _updateDepositAndSnapshots(msg.sender, compounded + _amount);
        emit UserDepositChanged(msg.sender, compounded + _amount);
        emit ETHGainWithdrawn(msg.sender, ethGain, loss);
        _sendETHGainToDepositor(ethGain);
    }

    /// Pays out the gains and withdraws up to the compounded deposit (0: the gains alone).
    function withdrawFromSP(uint256 _amount) external {
        if (_amount != 0) _requireNoUnderCollateralizedTroves();
        require(deposits[msg.sender].initialValue > 0, "StabilityPool: User must have a non-zero deposit");
        (uint256 ethGain, uint256 compounded, uint256 loss) = _settle();
        uint256 withdrawn = TestLiquityMath.min(_amount, compounded);
        if (withdrawn > 0) {
            lusdToken.returnFromPool(address(this), msg.sender, withdrawn);
            totalLUSDDeposits -= withdrawn;
            emit StabilityPoolLUSDBalanceUpdated(totalLUSDDeposits);
        }
        _updateDepositAndSnapshots(msg.sender, compounded - withdrawn);
        emit UserDepositChanged(msg.sender, compounded - withdrawn);
        emit ETHGainWithdrawn(msg.sender, ethGain, loss);
        _sendETHGainToDepositor(ethGain);
    }

    /// Pays out the LQTY gain and moves the ether gain to the depositor's trove.
    function withdrawETHGainToTrove(address _upperHint, address _lowerHint) external {
        require(deposits[msg.sender].initialValue > 0, "StabilityPool: User must have a non-zero deposit");
        require(troveManager.getTroveStatus(msg.sender) == 1, "StabilityPool: caller must have an active trove");
        require(getDepositorETHGain(msg.sender) > 0, "StabilityPool: caller must have non-zero ETH Gain");
        (uint256 ethGain, uint256 compounded, uint256 loss) = _settle();
        _updateDepositAndSnapshots(msg.sender, compounded);
        emit ETHGainWithdrawn(msg.sender, ethGain, loss);
        emit UserDepositChanged(msg.sender, compounded);
        ETH -= ethGain;
        emit StabilityPoolETHBalanceUpdated(ETH);
        emit EtherSent(msg.sender, ethGain);
        borrowerOperations.moveETHGainToTrove{value: ethGain}(msg.sender, _upperHint, _lowerHint);
    }

    /// Every deposit operation's first steps: LQTY issued to now, the depositor's gains and
    /// compounded deposit read, the LQTY gain paid.
    function _settle() internal returns (uint256 ethGain, uint256 compounded, uint256 loss) {
        _triggerLQTYIssuance();
        ethGain = getDepositorETHGain(msg.sender);
        compounded = getCompoundedLUSDDeposit(msg.sender);
        loss = deposits[msg.sender].initialValue - compounded;
        uint256 lqtyGain = getDepositorLQTYGain(msg.sender);
        communityIssuance.sendLQTY(msg.sender, lqtyGain);
        emit LQTYPaidToDepositor(msg.sender, lqtyGain);
    }

    // ------------------------------------------------------------ liquidations

    /// The TroveManager's: cancels `_debtToOffset` of liquidated debt against the deposits and
    /// takes `_collToAdd` of its ether.
    function offset(uint256 _debtToOffset, uint256 _collToAdd) external {
        require(msg.sender == address(troveManager), "StabilityPool: Caller is not TroveManager");
        uint256 total = totalLUSDDeposits;
        if (total == 0 || _debtToOffset == 0) return;
        _triggerLQTYIssuance();
        (uint256 ethGainPerUnitStaked, uint256 lossPerUnitStaked) =
            _computeRewardsPerUnitStaked(_collToAdd, _debtToOffset, total);
        _updateRewardSumAndProduct(ethGainPerUnitStaked, lossPerUnitStaked);
        troveManager.decreaseLUSDDebt(_debtToOffset);
        totalLUSDDeposits = total - _debtToOffset;
        emit StabilityPoolLUSDBalanceUpdated(totalLUSDDeposits);
        lusdToken.burn(address(this), _debtToOffset);
        troveManager.sendETH(address(this), _collToAdd);
    }

    /// Per unit deposited: the ether gained (floored, the error carried) and the LUSD lost
    /// (rounded up, the error carried), all of it when the pool is emptied.
    function _computeRewardsPerUnitStaked(uint256 _collToAdd, uint256 _debtToOffset, uint256 _total)
        internal
        returns (uint256 ethGainPerUnitStaked, uint256 lossPerUnitStaked)
    {
        uint256 ethNumerator = _collToAdd * DECIMAL_PRECISION + lastETHError_Offset;
        if (_debtToOffset == _total) {
            lossPerUnitStaked = DECIMAL_PRECISION;
            lastLUSDLossError_Offset = 0;
        } else {
            uint256 lossNumerator = _debtToOffset * DECIMAL_PRECISION - lastLUSDLossError_Offset;
            lossPerUnitStaked = lossNumerator / _total + 1;
            lastLUSDLossError_Offset = lossPerUnitStaked * _total - lossNumerator;
        }
        ethGainPerUnitStaked = ethNumerator / _total;
        lastETHError_Offset = ethNumerator - ethGainPerUnitStaked * _total;
    }

    /// S grows by the ether gain x P; P shrinks by the loss (a new scale below 1e9, a new
    /// epoch when the pool is emptied).
    function _updateRewardSumAndProduct(uint256 _ethGainPerUnitStaked, uint256 _lossPerUnitStaked) internal {
        uint256 currentP = P;
        uint256 productFactor = DECIMAL_PRECISION - _lossPerUnitStaked;
        uint128 epoch = currentEpoch;
        uint128 scale = currentScale;
        uint256 newS = epochToScaleToSum[epoch][scale] + _ethGainPerUnitStaked * currentP;
        epochToScaleToSum[epoch][scale] = newS;
        emit S_Updated(newS, epoch, scale);
        uint256 newP;
        if (productFactor == 0) {
            currentEpoch = epoch + 1;
            emit EpochUpdated(epoch + 1);
            currentScale = 0;
            emit ScaleUpdated(0);
            newP = DECIMAL_PRECISION;
        } else if (currentP * productFactor / DECIMAL_PRECISION < SCALE_FACTOR) {
            newP = currentP * productFactor * SCALE_FACTOR / DECIMAL_PRECISION;
            currentScale = scale + 1;
            emit ScaleUpdated(scale + 1);
        } else {
            newP = currentP * productFactor / DECIMAL_PRECISION;
        }
        require(newP > 0, "StabilityPool: P is zero");
        P = newP;
        emit P_Updated(newP);
    }

    // ------------------------------------------------------------------ LQTY

    function _triggerLQTYIssuance() internal {
        uint256 issuance = communityIssuance.issueLQTY();
        uint256 total = totalLUSDDeposits;
        if (total == 0 || issuance == 0) return;
        uint256 numerator = issuance * DECIMAL_PRECISION + lastLQTYError;
        uint256 perUnitStaked = numerator / total;
        lastLQTYError = numerator - perUnitStaked * total;
        uint256 newG = epochToScaleToG[currentEpoch][currentScale] + perUnitStaked * P;
        epochToScaleToG[currentEpoch][currentScale] = newG;
        emit G_Updated(newG, currentEpoch, currentScale);
    }

    // ------------------------------------------------------------------ views

    function getDepositorETHGain(address _depositor) public view returns (uint256) {
        uint256 initial = deposits[_depositor].initialValue;
        if (initial == 0) return 0;
        Snapshots memory s = depositSnapshots[_depositor];
        return _gainFromSnapshots(initial, epochToScaleToSum[s.epoch][s.scale] - s.S, epochToScaleToSum[s.epoch][s.scale + 1], s.P);
    }

    /// Untagged deposits keep all their LQTY (a kickback rate of 100 %).
    function getDepositorLQTYGain(address _depositor) public view returns (uint256) {
        uint256 initial = deposits[_depositor].initialValue;
        if (initial == 0) return 0;
        Snapshots memory s = depositSnapshots[_depositor];
        return _gainFromSnapshots(initial, epochToScaleToG[s.epoch][s.scale] - s.G, epochToScaleToG[s.epoch][s.scale + 1], s.P);
    }

    /// initial x (the sum's growth in the snapshot's scale + the next scale's / 1e9) / P_snapshot / 1e18.
    function _gainFromSnapshots(uint256 _initial, uint256 _firstPortion, uint256 _nextScaleSum, uint256 _snapshotP)
        internal
        pure
        returns (uint256)
    {
        return _initial * (_firstPortion + _nextScaleSum / SCALE_FACTOR) / _snapshotP / DECIMAL_PRECISION;
    }

    /// initial x P / P_snapshot (/ 1e9 a scale later; 0 two scales or an epoch later, or below a
    /// billionth of the initial deposit).
    function getCompoundedLUSDDeposit(address _depositor) public view returns (uint256) {
        uint256 initial = deposits[_depositor].initialValue;
        if (initial == 0) return 0;
        Snapshots memory s = depositSnapshots[_depositor];
        if (s.epoch < currentEpoch) return 0;
        uint256 scaleDiff = currentScale - s.scale;
        uint256 compounded;
        if (scaleDiff == 0) compounded = initial * P / s.P;
        else if (scaleDiff == 1) compounded = initial * P / s.P / SCALE_FACTOR;
        return compounded < initial / 1e9 ? 0 : compounded;
    }

    // --------------------------------------------------------------- internal

    function _updateDepositAndSnapshots(address _depositor, uint256 _newValue) internal {
        deposits[_depositor].initialValue = _newValue;
        if (_newValue == 0) {
            delete deposits[_depositor].frontEndTag;
            delete depositSnapshots[_depositor];
            emit DepositSnapshotUpdated(_depositor, 0, 0, 0);
            return;
        }
        uint128 epoch = currentEpoch;
        uint128 scale = currentScale;
        Snapshots memory s = Snapshots(epochToScaleToSum[epoch][scale], P, epochToScaleToG[epoch][scale], scale, epoch);
        depositSnapshots[_depositor] = s;
        emit DepositSnapshotUpdated(_depositor, s.P, s.S, s.G);
    }

    function _sendETHGainToDepositor(uint256 _amount) internal {
        if (_amount == 0) return;
        ETH -= _amount;
        emit StabilityPoolETHBalanceUpdated(ETH);
        emit EtherSent(msg.sender, _amount);
        (bool sent,) = msg.sender.call{value: _amount}("");
        require(sent, "StabilityPool: sending ETH failed");
    }

    function _requireNoUnderCollateralizedTroves() internal {
        uint256 price = priceFeed.fetchPrice();
        address lowest = troveManager.lowestTrove();
        require(
            lowest == address(0) || troveManager.getCurrentICR(lowest, price) >= MCR,
            "StabilityPool: Cannot withdraw while there are troves with ICR < MCR"
        );
    }

    receive() external payable {
        require(msg.sender == activePool, "StabilityPool: Caller is not ActivePool");
        ETH += msg.value;
        emit StabilityPoolETHBalanceUpdated(ETH);
    }
}

/// LQTY stakes earning the borrowing fees (LUSD, F_LUSD) and the redemption fees (ether, F_ETH).
contract TestLQTYStaking {
    string public constant NAME = "LQTYStaking";
    uint256 public constant DECIMAL_PRECISION = 1e18;

    struct Snapshot {
        uint256 F_ETH_Snapshot;
        uint256 F_LUSD_Snapshot;
    }

    mapping(address => uint256) public stakes;
    mapping(address => Snapshot) public snapshots;
    uint256 public totalLQTYStaked;
    uint256 public F_ETH;
    uint256 public F_LUSD;

    TestLQTYToken public lqtyToken;
    TestLUSDToken public lusdToken;
    address public troveManagerAddress;
    address public borrowerOperationsAddress;
    address public activePoolAddress;

    event StakeChanged(address indexed staker, uint256 newStake);
    event StakingGainsWithdrawn(address indexed staker, uint256 LUSDGain, uint256 ETHGain);
    event F_ETHUpdated(uint256 _F_ETH);
    event F_LUSDUpdated(uint256 _F_LUSD);
    event TotalLQTYStakedUpdated(uint256 _totalLQTYStaked);
    event EtherSent(address _account, uint256 _amount);
    event StakerSnapshotsUpdated(address _staker, uint256 _F_ETH, uint256 _F_LUSD);

    /// Once; the active pool is the TroveManager.
    function setAddresses(
        address _lqtyTokenAddress,
        address _lusdTokenAddress,
        address _troveManagerAddress,
        address _borrowerOperationsAddress,
        address _activePoolAddress
    ) external {
        require(address(lqtyToken) == address(0), "LQTYStaking: addresses already set");
        lqtyToken = TestLQTYToken(_lqtyTokenAddress);
        lusdToken = TestLUSDToken(_lusdTokenAddress);
        troveManagerAddress = _troveManagerAddress;
        borrowerOperationsAddress = _borrowerOperationsAddress;
        activePoolAddress = _activePoolAddress;
    }

    /// Adds to the stake; the gains so far are paid out (none on a first stake).
    function stake(uint256 _LQTYamount) external {
        require(_LQTYamount > 0, "LQTYStaking: Amount must be non-zero");
        uint256 currentStake = stakes[msg.sender];
        uint256 ethGain = currentStake == 0 ? 0 : getPendingETHGain(msg.sender);
        uint256 lusdGain = currentStake == 0 ? 0 : getPendingLUSDGain(msg.sender);
        _updateUserSnapshots(msg.sender);
        stakes[msg.sender] = currentStake + _LQTYamount;
        totalLQTYStaked += _LQTYamount;
        emit TotalLQTYStakedUpdated(totalLQTYStaked);
        lqtyToken.sendToLQTYStaking(msg.sender, _LQTYamount);
        emit StakeChanged(msg.sender, currentStake + _LQTYamount);
        emit StakingGainsWithdrawn(msg.sender, lusdGain, ethGain);
        if (currentStake != 0) _payGains(lusdGain, ethGain);
    }

    /// Pays out the gains, then takes up to the stake out (0: the gains alone).
    function unstake(uint256 _LQTYamount) external {
        uint256 currentStake = stakes[msg.sender];
        require(currentStake > 0, "LQTYStaking: User must have a non-zero stake");
        uint256 ethGain = getPendingETHGain(msg.sender);
        uint256 lusdGain = getPendingLUSDGain(msg.sender);
        _updateUserSnapshots(msg.sender);
        if (_LQTYamount > 0) {
            uint256 withdrawn = _LQTYamount < currentStake ? _LQTYamount : currentStake;
            stakes[msg.sender] = currentStake - withdrawn;
            totalLQTYStaked -= withdrawn;
            emit TotalLQTYStakedUpdated(totalLQTYStaked);
            lqtyToken.transfer(msg.sender, withdrawn);
            emit StakeChanged(msg.sender, currentStake - withdrawn);
        }
        emit StakingGainsWithdrawn(msg.sender, lusdGain, ethGain);
        _payGains(lusdGain, ethGain);
    }

    /// The TroveManager's, with a redemption fee it sent: F_ETH += fee x 1e18 / totalLQTYStaked.
    function increaseF_ETH(uint256 _ETHFee) external {
        require(msg.sender == troveManagerAddress, "LQTYStaking: caller is not TroveM");
        if (totalLQTYStaked > 0) F_ETH += _ETHFee * DECIMAL_PRECISION / totalLQTYStaked;
        emit F_ETHUpdated(F_ETH);
    }

    /// BorrowerOperations', with a borrowing fee it minted here.
    function increaseF_LUSD(uint256 _LUSDFee) external {
        require(msg.sender == borrowerOperationsAddress, "LQTYStaking: caller is not BorrowerOps");
        if (totalLQTYStaked > 0) F_LUSD += _LUSDFee * DECIMAL_PRECISION / totalLQTYStaked;
        emit F_LUSDUpdated(F_LUSD);
    }

    function getPendingETHGain(address _user) public view returns (uint256) {
        return stakes[_user] * (F_ETH - snapshots[_user].F_ETH_Snapshot) / DECIMAL_PRECISION;
    }

    function getPendingLUSDGain(address _user) public view returns (uint256) {
        return stakes[_user] * (F_LUSD - snapshots[_user].F_LUSD_Snapshot) / DECIMAL_PRECISION;
    }

    function _updateUserSnapshots(address _user) internal {
        snapshots[_user] = Snapshot(F_ETH, F_LUSD);
        emit StakerSnapshotsUpdated(_user, F_ETH, F_LUSD);
    }

    function _payGains(uint256 _lusdGain, uint256 _ethGain) internal {
        lusdToken.transfer(msg.sender, _lusdGain);
        emit EtherSent(msg.sender, _ethGain);
        (bool sent,) = msg.sender.call{value: _ethGain}("");
        require(sent, "LQTYStaking: Failed to send accumulated ETHGain");
    }

    receive() external payable {
        require(msg.sender == activePoolAddress, "LQTYStaking: caller is not ActivePool");
    }
}

/// The ether a trove closed by redemption left over, until its owner claims it.
contract TestCollSurplusPool {
    string public constant NAME = "CollSurplusPool";

    address public borrowerOperationsAddress;
    address public troveManagerAddress;
    address public activePoolAddress;
    mapping(address => uint256) internal balances;
    uint256 internal ETH;

    event CollBalanceUpdated(address indexed _account, uint256 _newBalance);
    event EtherSent(address _to, uint256 _amount);

    /// Once; the active pool is the TroveManager.
    function setAddresses(address _borrowerOperationsAddress, address _troveManagerAddress, address _activePoolAddress)
        external
    {
        require(troveManagerAddress == address(0), "CollSurplusPool: addresses already set");
        borrowerOperationsAddress = _borrowerOperationsAddress;
        troveManagerAddress = _troveManagerAddress;
        activePoolAddress = _activePoolAddress;
    }

    function getETH() external view returns (uint256) {
        return ETH;
    }

    function getCollateral(address _account) external view returns (uint256) {
        return balances[_account];
    }

    function accountSurplus(address _account, uint256 _amount) external {
        require(msg.sender == troveManagerAddress, "CollSurplusPool: Caller is not TroveManager");
        balances[_account] += _amount;
        emit CollBalanceUpdated(_account, balances[_account]);
    }

    function claimColl(address _account) external {
        require(msg.sender == borrowerOperationsAddress, "CollSurplusPool: Caller is not Borrower Operations");
        uint256 claimable = balances[_account];
        require(claimable > 0, "CollSurplusPool: No collateral available to claim");
        balances[_account] = 0;
        emit CollBalanceUpdated(_account, 0);
        ETH -= claimable;
        emit EtherSent(_account, claimable);
        (bool sent,) = _account.call{value: claimable}("");
        require(sent, "CollSurplusPool: sending ETH failed");
    }

    receive() external payable {
        require(msg.sender == activePoolAddress, "CollSurplusPool: Caller is not Active Pool");
        ETH += msg.value;
    }
}

/// LQTY for Stability Pool depositors: ISSUANCE_PER_SECOND since deployment, up to the supply
/// cap, out of the LQTY it holds (the world funds it with the cap).
contract TestCommunityIssuance {
    string public constant NAME = "CommunityIssuance";
    uint256 public constant DECIMAL_PRECISION = 1e18;
    uint256 public constant LQTYSupplyCap = 32_000_000e18;
    uint256 public constant ISSUANCE_PER_SECOND = 1e18;

    uint256 public immutable deploymentTime;
    uint256 public totalLQTYIssued;
    TestLQTYToken public lqtyToken;
    address public stabilityPoolAddress;

    event TotalLQTYIssuedUpdated(uint256 _totalLQTYIssued);

    constructor() {
        deploymentTime = block.timestamp;
    }

    /// Once.
    function setAddresses(address _lqtyTokenAddress, address _stabilityPoolAddress) external {
        require(stabilityPoolAddress == address(0), "CommunityIssuance: addresses already set");
        lqtyToken = TestLQTYToken(_lqtyTokenAddress);
        stabilityPoolAddress = _stabilityPoolAddress;
    }

    /// The LQTY issued since the last call.
    function issueLQTY() external returns (uint256 issuance) {
        require(msg.sender == stabilityPoolAddress, "CommunityIssuance: caller is not SP");
        uint256 latest = TestLiquityMath.min((block.timestamp - deploymentTime) * ISSUANCE_PER_SECOND, LQTYSupplyCap);
        issuance = latest - totalLQTYIssued;
        totalLQTYIssued = latest;
        emit TotalLQTYIssuedUpdated(latest);
    }

    function sendLQTY(address _account, uint256 _LQTYamount) external {
        require(msg.sender == stabilityPoolAddress, "CommunityIssuance: caller is not SP");
        lqtyToken.transfer(_account, _LQTYamount);
    }
}
