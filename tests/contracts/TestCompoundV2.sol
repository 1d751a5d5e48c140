// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

// Compound v2 stand-ins for tests/compound_v2_world.py: no package publishes Compound v2's
// contracts built, so these implement exactly the functions and events the adapter and the tests
// use, with the signatures and outputs of compound-js 0.6.2's ABIs (Comptroller, cErc20, cEther;
// tests/test_compound_v2.py holds them) and the integer steps the Compound v2 whitepaper and
// docs describe: simple interest per block accrued into a borrow index, an exchange rate of
// (cash + borrows - reserves) / supply, a jump rate model, the Comptroller's liquidity over the
// entered markets at the collateral factor, and COMP indexes per market and per account.

interface ICompErc20 {
    function balanceOf(address account) external view returns (uint256);

    function transfer(address to, uint256 amount) external returns (bool);

    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// The pool's oracle: USD x 10^(36 - the underlying's decimals) per whole unit, by cToken.
contract TestCompoundOracle {
    mapping(address => uint256) internal prices;

    function setUnderlyingPrice(address cToken, uint256 price) external {
        prices[cToken] = price;
    }

    function getUnderlyingPrice(address cToken) external view returns (uint256) {
        return prices[cToken];
    }
}

/// JumpRateModelV2's per-block rates from per-year parameters over its 2,102,400 blocks a year.
contract TestJumpRateModel {
    uint256 public constant blocksPerYear = 2102400;
    uint256 public immutable baseRatePerBlock;
    uint256 public immutable multiplierPerBlock;
    uint256 public immutable jumpMultiplierPerBlock;
    uint256 public immutable kink;

    constructor(uint256 baseRatePerYear, uint256 multiplierPerYear, uint256 jumpMultiplierPerYear, uint256 kink_) {
        baseRatePerBlock = baseRatePerYear / blocksPerYear;
        multiplierPerBlock = multiplierPerYear * 1e18 / (blocksPerYear * kink_);
        jumpMultiplierPerBlock = jumpMultiplierPerYear / blocksPerYear;
        kink = kink_;
    }

    function utilizationRate(uint256 cash, uint256 borrows, uint256 reserves) public pure returns (uint256) {
        return borrows == 0 ? 0 : borrows * 1e18 / (cash + borrows - reserves);
    }

    function getBorrowRate(uint256 cash, uint256 borrows, uint256 reserves) public view returns (uint256) {
        uint256 util = utilizationRate(cash, borrows, reserves);
        if (util <= kink) return util * multiplierPerBlock / 1e18 + baseRatePerBlock;
        uint256 normal = kink * multiplierPerBlock / 1e18 + baseRatePerBlock;
        return (util - kink) * jumpMultiplierPerBlock / 1e18 + normal;
    }

    function getSupplyRate(uint256 cash, uint256 borrows, uint256 reserves, uint256 reserveFactor)
        public
        view
        returns (uint256)
    {
        uint256 toPool = getBorrowRate(cash, borrows, reserves) * (1e18 - reserveFactor) / 1e18;
        return utilizationRate(cash, borrows, reserves) * toPool / 1e18;
    }
}

/// A cToken: CErc20 over an ERC-20, or CEther over the chain's coin (no `underlying()`).
contract TestCToken {
    string public name;
    string public symbol;
    uint256 public constant decimals = 8; // compound-js says uint256; the word is the same as a uint8's
    address internal immutable asset;
    TestCompoundComptroller public immutable comptroller;
    TestJumpRateModel public immutable interestRateModel;
    uint256 public immutable initialExchangeRateMantissa;
    uint256 public reserveFactorMantissa;
    uint256 public accrualBlockNumber;
    uint256 public borrowIndex = 1e18;
    uint256 public totalBorrows;
    uint256 public totalReserves;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    struct BorrowSnapshot {
        uint256 principal;
        uint256 interestIndex;
    }

    mapping(address => BorrowSnapshot) internal accountBorrows;
    uint256 internal incoming;
    /// The coin a CEther call brings in, not cash before it (Compound's getCashPrior).

    event AccrueInterest(uint256 cashPrior, uint256 interestAccumulated, uint256 borrowIndex, uint256 totalBorrows);
    event Mint(address minter, uint256 mintAmount, uint256 mintTokens);
    event Redeem(address redeemer, uint256 redeemAmount, uint256 redeemTokens);
    event Borrow(address borrower, uint256 borrowAmount, uint256 accountBorrows, uint256 totalBorrows);
    event RepayBorrow(address payer, address borrower, uint256 repayAmount, uint256 accountBorrows, uint256 totalBorrows);
    event Transfer(address indexed from, address indexed to, uint256 amount);
    event Approval(address indexed owner, address indexed spender, uint256 amount);

    constructor(
        address asset_,
        TestCompoundComptroller comptroller_,
        TestJumpRateModel model,
        uint256 initialExchangeRate,
        uint256 reserveFactor,
        string memory name_,
        string memory symbol_
    ) {
        asset = asset_;
        comptroller = comptroller_;
        interestRateModel = model;
        initialExchangeRateMantissa = initialExchangeRate;
        reserveFactorMantissa = reserveFactor;
        accrualBlockNumber = block.number;
        name = name_;
        symbol = symbol_;
    }

    receive() external payable {}

    /// The ERC-20 it holds; a CEther has none, as compound-js's cEther ABI has no such function.
    function underlying() external view returns (address) {
        require(asset != address(0), "CEther has no underlying");
        return asset;
    }

    function getCash() public view returns (uint256) {
        return asset == address(0) ? address(this).balance - incoming : ICompErc20(asset).balanceOf(address(this));
    }

    function exchangeRateStored() public view returns (uint256) {
        if (totalSupply == 0) return initialExchangeRateMantissa;
        return (getCash() + totalBorrows - totalReserves) * 1e18 / totalSupply;
    }

    function borrowBalanceStored(address account) public view returns (uint256) {
        BorrowSnapshot memory snapshot = accountBorrows[account];
        return snapshot.principal == 0 ? 0 : snapshot.principal * borrowIndex / snapshot.interestIndex;
    }

    function getAccountSnapshot(address account) external view returns (uint256, uint256, uint256, uint256) {
        return (0, balanceOf[account], borrowBalanceStored(account), exchangeRateStored());
    }

    function supplyRatePerBlock() external view returns (uint256) {
        return interestRateModel.getSupplyRate(getCash(), totalBorrows, totalReserves, reserveFactorMantissa);
    }

    function borrowRatePerBlock() external view returns (uint256) {
        return interestRateModel.getBorrowRate(getCash(), totalBorrows, totalReserves);
    }

    /// Simple interest since the last accrual, at the model's rate, into the borrow index.
    function accrueInterest() public returns (uint256) {
        if (accrualBlockNumber == block.number) return 0;
        uint256 cashPrior = getCash();
        uint256 rate = interestRateModel.getBorrowRate(cashPrior, totalBorrows, totalReserves);
        require(rate <= 0.0005e16, "borrow rate is absurdly high");
        uint256 factor = rate * (block.number - accrualBlockNumber);
        uint256 interest = factor * totalBorrows / 1e18;
        totalBorrows += interest;
        totalReserves += reserveFactorMantissa * interest / 1e18;
        borrowIndex += factor * borrowIndex / 1e18;
        accrualBlockNumber = block.number;
        emit AccrueInterest(cashPrior, interest, borrowIndex, totalBorrows);
        return 0;
    }

    function exchangeRateCurrent() external returns (uint256) {
        accrueInterest();
        return exchangeRateStored();
    }

    function borrowBalanceCurrent(address account) external returns (uint256) {
        accrueInterest();
        return borrowBalanceStored(account);
    }

    function totalBorrowsCurrent() external returns (uint256) {
        accrueInterest();
        return totalBorrows;
    }

    function balanceOfUnderlying(address owner) external returns (uint256) {
        accrueInterest();
        return exchangeRateStored() * balanceOf[owner] / 1e18;
    }

    function mint(uint256 amount) external returns (uint256) {
        _mint(amount);
        return 0;
    }

    function mint() external payable {
        require(asset == address(0), "CErc20 mints an amount");
        incoming = msg.value;
        _mint(msg.value);
        incoming = 0;
    }

    function _mint(uint256 amount) internal {
        accrueInterest();
        require(comptroller.mintAllowed(address(this), msg.sender, amount) == 0, "mint refused");
        uint256 rate = exchangeRateStored();
        _pull(msg.sender, amount);
        uint256 tokens = amount * 1e18 / rate;
        totalSupply += tokens;
        balanceOf[msg.sender] += tokens;
        emit Mint(msg.sender, amount, tokens);
        emit Transfer(address(this), msg.sender, tokens);
    }

    function redeem(uint256 tokens) external returns (uint256) {
        accrueInterest();
        _redeem(tokens, exchangeRateStored() * tokens / 1e18);
        return 0;
    }

    function redeemUnderlying(uint256 amount) external returns (uint256) {
        accrueInterest();
        _redeem(amount * 1e18 / exchangeRateStored(), amount);
        return 0;
    }

    function _redeem(uint256 tokens, uint256 amount) internal {
        require(comptroller.redeemAllowed(address(this), msg.sender, tokens) == 0, "redeem refused");
        totalSupply -= tokens;
        balanceOf[msg.sender] -= tokens;
        _push(msg.sender, amount);
        emit Transfer(msg.sender, address(this), tokens);
        emit Redeem(msg.sender, amount, tokens);
    }

    function borrow(uint256 amount) external returns (uint256) {
        accrueInterest();
        require(comptroller.borrowAllowed(address(this), msg.sender, amount) == 0, "borrow refused");
        uint256 owed = borrowBalanceStored(msg.sender) + amount;
        totalBorrows += amount;
        accountBorrows[msg.sender] = BorrowSnapshot(owed, borrowIndex);
        _push(msg.sender, amount);
        emit Borrow(msg.sender, amount, owed, totalBorrows);
        return 0;
    }

    function repayBorrow(uint256 amount) external returns (uint256) {
        _repay(msg.sender, amount);
        return 0;
    }

    function repayBorrow() external payable {
        require(asset == address(0), "CErc20 repays an amount");
        incoming = msg.value;
        _repay(msg.sender, msg.value);
        incoming = 0;
    }

    function _repay(address borrower, uint256 amount) internal {
        accrueInterest();
        require(comptroller.repayBorrowAllowed(address(this), msg.sender, borrower, amount) == 0, "repay refused");
        uint256 prior = borrowBalanceStored(borrower);
        uint256 paid = amount == type(uint256).max ? prior : amount;
        _pull(msg.sender, paid);
        totalBorrows -= paid;
        accountBorrows[borrower] = BorrowSnapshot(prior - paid, borrowIndex);
        emit RepayBorrow(msg.sender, borrower, paid, prior - paid, totalBorrows);
    }

    function transfer(address to, uint256 tokens) external returns (bool) {
        _transfer(msg.sender, to, tokens);
        return true;
    }

    function transferFrom(address from, address to, uint256 tokens) external returns (bool) {
        allowance[from][msg.sender] -= tokens;
        _transfer(from, to, tokens);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function _transfer(address from, address to, uint256 tokens) internal {
        require(comptroller.transferAllowed(address(this), from, to, tokens) == 0, "transfer refused");
        balanceOf[from] -= tokens;
        balanceOf[to] += tokens;
        emit Transfer(from, to, tokens);
    }

    function _pull(address from, uint256 amount) internal {
        if (asset != address(0)) require(ICompErc20(asset).transferFrom(from, address(this), amount), "pull failed");
        else require(msg.value == amount, "send the amount");
    }

    function _push(address to, uint256 amount) internal {
        if (asset != address(0)) {
            require(ICompErc20(asset).transfer(to, amount), "push failed");
        } else {
            (bool ok,) = to.call{value: amount}("");
            require(ok, "send failed");
        }
    }
}

/// The Comptroller: markets, membership, liquidity at the collateral factors, COMP.
contract TestCompoundComptroller {
    struct Market {
        bool isListed;
        uint256 collateralFactorMantissa;
        bool isComped;
    }

    struct CompMarketState {
        uint224 index;
        uint32 block;
    }

    uint224 public constant compInitialIndex = 1e36;
    address public oracle;
    address internal immutable comp;
    mapping(address => Market) public markets;
    TestCToken[] internal allMarkets;
    mapping(address => TestCToken[]) internal accountAssets;
    mapping(address => mapping(address => bool)) internal membership;
    mapping(address => CompMarketState) public compSupplyState;
    mapping(address => CompMarketState) public compBorrowState;
    mapping(address => uint256) public compSupplySpeeds;
    mapping(address => uint256) public compBorrowSpeeds;
    mapping(address => mapping(address => uint256)) public compSupplierIndex;
    mapping(address => mapping(address => uint256)) public compBorrowerIndex;
    mapping(address => uint256) public compAccrued;
    mapping(address => bool) public borrowGuardianPaused;
    mapping(address => uint256) public borrowCaps;

    event DistributedSupplierComp(
        address indexed cToken, address indexed supplier, uint256 compDelta, uint256 compSupplyIndex
    );
    event DistributedBorrowerComp(
        address indexed cToken, address indexed borrower, uint256 compDelta, uint256 compBorrowIndex
    );

    constructor(address comp_) {
        comp = comp_;
    }

    function getCompAddress() external view returns (address) {
        return comp;
    }

    function getAllMarkets() external view returns (TestCToken[] memory) {
        return allMarkets;
    }

    function getAssetsIn(address account) external view returns (TestCToken[] memory) {
        return accountAssets[account];
    }

    function _setPriceOracle(address oracle_) external returns (uint256) {
        oracle = oracle_;
        return 0;
    }

    function _supportMarket(TestCToken cToken) external returns (uint256) {
        markets[address(cToken)].isListed = true;
        allMarkets.push(cToken);
        compSupplyState[address(cToken)] = CompMarketState(compInitialIndex, uint32(block.number));
        compBorrowState[address(cToken)] = CompMarketState(compInitialIndex, uint32(block.number));
        return 0;
    }

    function _setCollateralFactor(TestCToken cToken, uint256 factor) external returns (uint256) {
        markets[address(cToken)].collateralFactorMantissa = factor;
        return 0;
    }

    function _setCompSpeeds(TestCToken[] memory cTokens, uint256[] memory supplySpeeds, uint256[] memory borrowSpeeds)
        external
    {
        for (uint256 i = 0; i < cTokens.length; i++) {
            address cToken = address(cTokens[i]);
            _updateSupplyIndex(cToken);
            _updateBorrowIndex(cToken, cTokens[i].borrowIndex());
            compSupplySpeeds[cToken] = supplySpeeds[i];
            compBorrowSpeeds[cToken] = borrowSpeeds[i];
            markets[cToken].isComped = supplySpeeds[i] > 0 || borrowSpeeds[i] > 0;
        }
    }

    function enterMarkets(TestCToken[] memory cTokens) external returns (uint256[] memory results) {
        results = new uint256[](cTokens.length);
        for (uint256 i = 0; i < cTokens.length; i++) {
            _join(cTokens[i], msg.sender);
        }
    }

    function _join(TestCToken cToken, address account) internal {
        require(markets[address(cToken)].isListed, "market not listed");
        if (membership[address(cToken)][account]) return;
        membership[address(cToken)][account] = true;
        accountAssets[account].push(cToken);
    }

    /// (error, liquidity, shortfall) in USD x 1e18: Σ entered supply x exchange rate x price x
    /// collateral factor against Σ borrows x price, from stored balances.
    function getAccountLiquidity(address account) external view returns (uint256, uint256, uint256) {
        (uint256 liquidity, uint256 shortfall) = _liquidity(account, address(0), 0, 0);
        return (0, liquidity, shortfall);
    }

    function _liquidity(address account, address modified, uint256 redeemTokens, uint256 borrowAmount)
        internal
        view
        returns (uint256, uint256)
    {
        uint256 collateral;
        uint256 owed;
        TestCToken[] memory assets = accountAssets[account];
        for (uint256 i = 0; i < assets.length; i++) {
            (, uint256 tokens, uint256 borrowed, uint256 rate) = assets[i].getAccountSnapshot(account);
            uint256 price = TestCompoundOracle(oracle).getUnderlyingPrice(address(assets[i]));
            require(price != 0, "price error");
            uint256 perToken = markets[address(assets[i])].collateralFactorMantissa * rate / 1e18 * price / 1e18;
            collateral += perToken * tokens / 1e18;
            owed += price * borrowed / 1e18;
            if (address(assets[i]) == modified) {
                owed += perToken * redeemTokens / 1e18;
                owed += price * borrowAmount / 1e18;
            }
        }
        if (collateral > owed) return (collateral - owed, 0);
        return (0, owed - collateral);
    }

    function mintAllowed(address cToken, address minter, uint256) external returns (uint256) {
        require(markets[cToken].isListed, "market not listed");
        _updateSupplyIndex(cToken);
        _distributeSupplier(cToken, minter);
        return 0;
    }

    function redeemAllowed(address cToken, address redeemer, uint256 tokens) external returns (uint256) {
        if (membership[cToken][redeemer]) {
            (, uint256 shortfall) = _liquidity(redeemer, cToken, tokens, 0);
            require(shortfall == 0, "insufficient liquidity");
        }
        _updateSupplyIndex(cToken);
        _distributeSupplier(cToken, redeemer);
        return 0;
    }

    function _setBorrowPaused(address cToken, bool paused) external returns (bool) {
        borrowGuardianPaused[cToken] = paused;
        return paused;
    }

    function borrowAllowed(address cToken, address borrower, uint256 amount) external returns (uint256) {
        require(markets[cToken].isListed, "market not listed");
        require(!borrowGuardianPaused[cToken], "borrow is paused");
        if (!membership[cToken][borrower]) {
            require(msg.sender == cToken, "sender must be cToken");
            _join(TestCToken(payable(cToken)), borrower);
        }
        (, uint256 shortfall) = _liquidity(borrower, cToken, 0, amount);
        require(shortfall == 0, "insufficient liquidity");
        uint256 index = TestCToken(payable(cToken)).borrowIndex();
        _updateBorrowIndex(cToken, index);
        _distributeBorrower(cToken, borrower, index);
        return 0;
    }

    function repayBorrowAllowed(address cToken, address, address borrower, uint256) external returns (uint256) {
        uint256 index = TestCToken(payable(cToken)).borrowIndex();
        _updateBorrowIndex(cToken, index);
        _distributeBorrower(cToken, borrower, index);
        return 0;
    }

    function transferAllowed(address cToken, address src, address dst, uint256 tokens) external returns (uint256) {
        if (membership[cToken][src]) {
            (, uint256 shortfall) = _liquidity(src, cToken, tokens, 0);
            require(shortfall == 0, "insufficient liquidity");
        }
        _updateSupplyIndex(cToken);
        _distributeSupplier(cToken, src);
        _distributeSupplier(cToken, dst);
        return 0;
    }

    /// Every market's COMP for `holder`, then paid where the Comptroller holds enough.
    function claimComp(address holder) external {
        for (uint256 i = 0; i < allMarkets.length; i++) {
            address cToken = address(allMarkets[i]);
            uint256 index = allMarkets[i].borrowIndex();
            _updateBorrowIndex(cToken, index);
            _distributeBorrower(cToken, holder, index);
            _updateSupplyIndex(cToken);
            _distributeSupplier(cToken, holder);
        }
        uint256 owed = compAccrued[holder];
        if (owed > 0 && owed <= ICompErc20(comp).balanceOf(address(this))) {
            ICompErc20(comp).transfer(holder, owed);
            compAccrued[holder] = 0;
        }
    }

    function _updateSupplyIndex(address cToken) internal {
        CompMarketState storage state = compSupplyState[cToken];
        uint256 blocks = block.number - state.block;
        if (blocks == 0) return;
        uint256 speed = compSupplySpeeds[cToken];
        uint256 supply = TestCToken(payable(cToken)).totalSupply();
        if (speed > 0 && supply > 0) state.index += uint224(speed * blocks * 1e36 / supply);
        state.block = uint32(block.number);
    }

    function _updateBorrowIndex(address cToken, uint256 marketBorrowIndex) internal {
        CompMarketState storage state = compBorrowState[cToken];
        uint256 blocks = block.number - state.block;
        if (blocks == 0) return;
        uint256 speed = compBorrowSpeeds[cToken];
        uint256 borrows = TestCToken(payable(cToken)).totalBorrows() * 1e18 / marketBorrowIndex;
        if (speed > 0 && borrows > 0) state.index += uint224(speed * blocks * 1e36 / borrows);
        state.block = uint32(block.number);
    }

    function _distributeSupplier(address cToken, address supplier) internal {
        uint256 index = compSupplyState[cToken].index;
        uint256 accountIndex = compSupplierIndex[cToken][supplier];
        compSupplierIndex[cToken][supplier] = index;
        if (accountIndex == 0 && index >= compInitialIndex) accountIndex = compInitialIndex;
        uint256 delta = TestCToken(payable(cToken)).balanceOf(supplier) * (index - accountIndex) / 1e36;
        compAccrued[supplier] += delta;
        emit DistributedSupplierComp(cToken, supplier, delta, index);
    }

    function _distributeBorrower(address cToken, address borrower, uint256 marketBorrowIndex) internal {
        uint256 index = compBorrowState[cToken].index;
        uint256 accountIndex = compBorrowerIndex[cToken][borrower];
        compBorrowerIndex[cToken][borrower] = index;
        if (accountIndex == 0 && index >= compInitialIndex) accountIndex = compInitialIndex;
        uint256 amount = TestCToken(payable(cToken)).borrowBalanceStored(borrower) * 1e18 / marketBorrowIndex;
        if (amount == 0) return;
        uint256 delta = amount * (index - accountIndex) / 1e36;
        compAccrued[borrower] += delta;
        emit DistributedBorrowerComp(cToken, borrower, delta, index);
    }
}
