// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

// Euler v2 as a wallet reads it: the Ethereum Vault Connector (euler-xyz/ethereum-vault-connector),
// an EVK vault (euler-xyz/euler-vault-kit's EVault and its modules), EVK's linear-kink IRM, and a
// stand-in for the EulerRouter oracle (euler-xyz/euler-price-oracle). No package ships Euler v2's
// bytecode or ABIs, so these are written afresh: the same signatures, return shapes, errors and
// events as the originals, and their integer arithmetic (debt kept exact with 31 extra bits and
// rounded up to assets, a virtual deposit of 1e6 on both sides of every share conversion, the
// interest accumulator compounded per second with Euler's half-up rpow, LTVs in 1e4, and bid, mid
// or ask quotes exactly where EVK asks for each).
//
// Left out everywhere, on purpose: EVC operators, permits, lockdown and permit-disabled modes and
// batch simulations (nothing a position needs); the vault's proxy, modules and DToken sidecar (one
// contract instead, so no DToken Transfer), its hooks (a new EVK vault starts with every operation
// hooked off until its governor configures it; this one starts open), supply and borrow caps, the
// balance forwarder, Permit2, flash loans, pullDebt and repayWithShares (the one contract must stay
// under EIP-170's 24,576 bytes), and the ProtocolConfig: interest fees outside EVK's guaranteed
// 10-100 % are refused and convertFees gives every fee share to the fee receiver (the governor when
// none is set) with no protocol part. Deferred status checks are queued in storage, not EVC's
// transient storage (0.8.19 has none), and run in the order queued when the outermost call or batch
// ends; a call that reverts takes its queue with it. Views skip EVK's read-only reentrancy guard.

uint256 constant EVK_VIRTUAL_DEPOSIT = 1e6;
uint256 constant EVK_DEBT_SHIFT = 31;
uint256 constant EVK_MAX_SANE_AMOUNT = type(uint112).max;
uint256 constant EVK_MAX_SANE_DEBT = uint256(type(uint112).max) << 31;
uint256 constant EVK_CONFIG_SCALE = 1e4;
uint256 constant EVK_MAX_INTEREST_RATE = 291867278914945094175;
// EVK's raw cap 0 ("no cap") resolved: the supply cap maxMint measures against.
uint256 constant EVK_NO_CAP = type(uint256).max;
// A debt worth less than this in the unit of account is never socialised (Liquidation's
// MIN_SOCIALIZATION_LIABILITY_VALUE); the flag that turns socialisation off (CFG_DONT_SOCIALIZE_DEBT).
uint256 constant EVK_MIN_SOCIALIZATION_LIABILITY_VALUE = 1e6;
uint32 constant EVK_CFG_DONT_SOCIALIZE_DEBT = 1;

interface IEulerAsset {
    function balanceOf(address) external view returns (uint256);
    function transfer(address, uint256) external returns (bool);
    function transferFrom(address, address, uint256) external returns (bool);
    function decimals() external view returns (uint8);
    function symbol() external view returns (string memory);
}

interface IEulerPriceOracle {
    function getQuote(uint256 inAmount, address base, address quote) external view returns (uint256);
    function getQuotes(uint256 inAmount, address base, address quote) external view returns (uint256, uint256);
}

interface IEulerIRM {
    function computeInterestRate(address vault, uint256 cash, uint256 borrows) external returns (uint256);
    function computeInterestRateView(address vault, uint256 cash, uint256 borrows) external view returns (uint256);
}

interface IEulerStatusCheck {
    function checkAccountStatus(address account, address[] calldata collaterals) external view returns (bytes4);
    function checkVaultStatus() external returns (bytes4);
}

interface IEulerERC4626 {
    function asset() external view returns (address);
    function convertToAssets(uint256 shares) external view returns (uint256);
}

/// The Ethereum Vault Connector: 256 accounts per owner (the owner's address XOR 0..255, sharing a
/// 19-byte prefix), each with ordered sets of collaterals and controllers (at most 10, removal moves
/// the last element into the gap, as EVC's Set does), and calls made on an account's behalf with
/// the account and vault status checks deferred to the end of the outermost call.
contract TestEVC {
    struct BatchItem {
        address targetContract;
        address onBehalfOfAccount;
        uint256 value;
        bytes data;
    }

    event OwnerRegistered(bytes19 indexed addressPrefix, address indexed owner);
    event CollateralStatus(address indexed account, address indexed collateral, bool enabled);
    event ControllerStatus(address indexed account, address indexed controller, bool enabled);
    event CallWithContext(
        address indexed caller,
        bytes19 indexed onBehalfOfAddressPrefix,
        address onBehalfOfAccount,
        address indexed targetContract,
        bytes4 selector
    );
    event AccountStatusCheck(address indexed account, address indexed controller);
    event VaultStatusCheck(address indexed vault);

    error EVC_NotAuthorized();
    error EVC_OnBehalfOfAccountNotAuthenticated();
    error EVC_InvalidAddress();
    error EVC_InvalidValue();
    error EVC_ChecksReentrancy();
    error EVC_ControlCollateralReentrancy();
    error EVC_ControllerViolation();
    error EVC_EmptyError();
    error TooManyElements();

    string public constant name = "Ethereum Vault Connector";
    uint256 internal constant SET_MAX_ELEMENTS = 10;

    mapping(bytes19 => address) internal ownerLookup;
    mapping(address => address[]) internal accountCollaterals;
    mapping(address => address[]) internal accountControllers;
    /// EVC keeps this in the controller set's metadata: the time of the last passing account check.
    mapping(address => uint256) internal lastAccountStatusCheck;

    // The execution context (transient in EVC).
    address internal onBehalfOfAccount;
    bool internal checksDeferred;
    bool internal checksInProgress;
    address[] internal accountStatusChecks;
    address[] internal vaultStatusChecks;
    mapping(address => bool) internal accountCheckQueued;
    mapping(address => bool) internal vaultCheckQueued;
    /// Set while a controller moves an account's collateral (controlCollateral, a liquidation's seizure).
    bool public isControlCollateralInProgress;
    /// Never set: operators are left out (see the file's header).
    bool public isOperatorAuthenticated;

    modifier nonReentrantChecks() {
        if (checksInProgress) revert EVC_ChecksReentrancy();
        _;
    }

    modifier nonReentrantChecksAndControlCollateral() {
        if (checksInProgress) revert EVC_ChecksReentrancy();
        if (isControlCollateralInProgress) revert EVC_ControlCollateralReentrancy();
        _;
    }

    modifier onlyController(address account) {
        address[] storage controllers = accountControllers[account];
        if (controllers.length != 1) revert EVC_ControllerViolation();
        if (controllers[0] != msg.sender) revert EVC_NotAuthorized();
        _;
    }

    // ---- owners

    function haveCommonOwner(address account, address otherAccount) external pure returns (bool) {
        return _haveCommonOwner(account, otherAccount);
    }

    function getAddressPrefix(address account) external pure returns (bytes19) {
        return _prefix(account);
    }

    /// address(0) until the prefix's owner authenticates once: EVC dropped its revert
    /// (EVC_AccountOwnerNotRegistered) before v1.0.0, so no deployed EVC reverts here.
    function getAccountOwner(address account) external view returns (address) {
        return ownerLookup[_prefix(account)];
    }

    // ---- collaterals and controllers

    function getCollaterals(address account) external view returns (address[] memory) {
        return accountCollaterals[account];
    }

    function isCollateralEnabled(address account, address vault) external view returns (bool) {
        return _contains(accountCollaterals[account], vault);
    }

    function getControllers(address account) external view returns (address[] memory) {
        return accountControllers[account];
    }

    function isControllerEnabled(address account, address vault) external view returns (bool) {
        return _contains(accountControllers[account], vault);
    }

    function enableCollateral(address account, address vault) public payable nonReentrantChecks {
        _authenticate(account);
        if (vault == address(this)) revert EVC_InvalidAddress();
        if (_insert(accountCollaterals[account], vault)) emit CollateralStatus(account, vault, true);
        requireAccountStatusCheck(account);
    }

    function disableCollateral(address account, address vault) public payable nonReentrantChecks {
        _authenticate(account);
        if (_remove(accountCollaterals[account], vault)) emit CollateralStatus(account, vault, false);
        requireAccountStatusCheck(account);
    }

    function enableController(address account, address vault) public payable nonReentrantChecks {
        _authenticate(account);
        if (vault == address(this)) revert EVC_InvalidAddress();
        if (_insert(accountControllers[account], vault)) emit ControllerStatus(account, vault, true);
        requireAccountStatusCheck(account);
    }

    /// Called by the controller itself: only a vault can release an account it controls.
    function disableController(address account) public payable nonReentrantChecks {
        if (_remove(accountControllers[account], msg.sender)) emit ControllerStatus(account, msg.sender, false);
        requireAccountStatusCheck(account);
    }

    // ---- calls

    /// EVC.call: authenticates msg.sender for `onBehalfOfAccount` (unless the target is the caller
    /// itself, which is how a vault called directly routes itself through the EVC), runs the call
    /// with that account in the context, then the deferred checks if this is the outermost call.
    function call(address targetContract, address onBehalfOfAccount_, uint256 value, bytes calldata data)
        public
        payable
        nonReentrantChecksAndControlCollateral
        returns (bytes memory result)
    {
        bool outer = !checksDeferred;
        checksDeferred = true;
        bool success;
        (success, result) = _callWithAuthentication(targetContract, onBehalfOfAccount_, value, data);
        if (!success) _revertBytes(result);
        _restore(outer);
    }

    /// EVC.controlCollateral: the account's only controller (msg.sender) calls one of the account's
    /// enabled collaterals on its behalf, with checks deferred: how a liquidation seizes collateral.
    function controlCollateral(
        address targetCollateral,
        address onBehalfOfAccount_,
        uint256 value,
        bytes calldata data
    )
        public
        payable
        nonReentrantChecksAndControlCollateral
        onlyController(onBehalfOfAccount_)
        returns (bytes memory result)
    {
        if (!_contains(accountCollaterals[onBehalfOfAccount_], targetCollateral)) revert EVC_NotAuthorized();
        bool outer = !checksDeferred;
        checksDeferred = true;
        isControlCollateralInProgress = true;
        bool success;
        (success, result) = _callWithContext(targetCollateral, onBehalfOfAccount_, value, data);
        if (!success) _revertBytes(result);
        isControlCollateralInProgress = false;
        _restore(outer);
    }

    function batch(BatchItem[] calldata items) public payable nonReentrantChecksAndControlCollateral {
        bool outer = !checksDeferred;
        checksDeferred = true;
        for (uint256 i; i < items.length; ++i) {
            BatchItem calldata item = items[i];
            (bool success, bytes memory result) =
                _callWithAuthentication(item.targetContract, item.onBehalfOfAccount, item.value, item.data);
            if (!success) _revertBytes(result);
        }
        _restore(outer);
    }

    /// Reverts outside a call, as EVC does, so a vault never mistakes "no account" for address(0).
    function getCurrentOnBehalfOfAccount(address controllerToCheck)
        external
        view
        returns (address onBehalfOfAccount_, bool controllerEnabled)
    {
        onBehalfOfAccount_ = onBehalfOfAccount;
        if (onBehalfOfAccount_ == address(0)) revert EVC_OnBehalfOfAccountNotAuthenticated();
        controllerEnabled = controllerToCheck != address(0)
            && _contains(accountControllers[onBehalfOfAccount_], controllerToCheck);
    }

    function areChecksDeferred() external view returns (bool) {
        return checksDeferred;
    }

    function areChecksInProgress() external view returns (bool) {
        return checksInProgress;
    }

    // ---- status checks

    function getLastAccountStatusCheckTimestamp(address account) external view nonReentrantChecks returns (uint256) {
        return lastAccountStatusCheck[account];
    }

    function isAccountStatusCheckDeferred(address account) external view nonReentrantChecks returns (bool) {
        return accountCheckQueued[account];
    }

    function isVaultStatusCheckDeferred(address vault) external view nonReentrantChecks returns (bool) {
        return vaultCheckQueued[vault];
    }

    function requireAccountStatusCheck(address account) public payable {
        if (checksDeferred) _queueAccount(account);
        else _checkNow(account, address(0));
    }

    function requireVaultStatusCheck() public payable {
        if (checksDeferred) _queueVault(msg.sender);
        else _checkNow(address(0), msg.sender);
    }

    function requireAccountAndVaultStatusCheck(address account) public payable {
        if (checksDeferred) {
            _queueAccount(account);
            _queueVault(msg.sender);
        } else {
            _checkNow(account, msg.sender);
        }
    }

    function forgiveAccountStatusCheck(address account) public payable nonReentrantChecks onlyController(account) {
        if (accountCheckQueued[account]) {
            accountCheckQueued[account] = false;
            address[] storage queue = accountStatusChecks;
            for (uint256 i; i < queue.length; ++i) {
                if (queue[i] == account) {
                    queue[i] = queue[queue.length - 1];
                    queue.pop();
                    break;
                }
            }
        }
    }

    // ---- internals

    /// The owner (first to authenticate for the prefix, which it must share) may act for any of the
    /// prefix's 256 accounts; a non-owner account that is a contract may not be acted for.
    function _authenticate(address account) internal {
        bytes19 prefix = _prefix(account);
        address owner = ownerLookup[prefix];
        bool authenticated;
        if (_haveCommonOwner(account, msg.sender)) {
            if (owner == address(0)) {
                ownerLookup[prefix] = owner = msg.sender;
                emit OwnerRegistered(prefix, msg.sender);
                authenticated = true;
            } else if (owner == msg.sender) {
                authenticated = true;
            }
        }
        if (authenticated && owner != account && account.code.length != 0) authenticated = false;
        if (!authenticated) revert EVC_NotAuthorized();
    }

    function _callWithAuthentication(address target, address account, uint256 value, bytes calldata data)
        internal
        returns (bool success, bytes memory result)
    {
        if (target == address(this)) {
            // EVC's own functions run by delegatecall so msg.sender stays the caller it authenticates.
            if (account != address(0)) revert EVC_InvalidAddress();
            if (value != 0) revert EVC_InvalidValue();
            return address(this).delegatecall(data);
        }
        if (target != msg.sender) _authenticate(account);
        return _callWithContext(target, account, value, data);
    }

    /// The call with `account` as the one acted for, as EVC's callWithContextInternal.
    function _callWithContext(address target, address account, uint256 value, bytes calldata data)
        internal
        returns (bool success, bytes memory result)
    {
        if (value == type(uint256).max) value = address(this).balance;
        else if (value > address(this).balance) revert EVC_InvalidValue();
        address previous = onBehalfOfAccount;
        onBehalfOfAccount = account;
        emit CallWithContext(msg.sender, _prefix(account), account, target, bytes4(data));
        (success, result) = target.call{value: value}(data);
        onBehalfOfAccount = previous;
    }

    /// The end of the outermost call: every queued account, then every queued vault, in the order
    /// queued, with no account in the context and checks no longer deferred, so a check that asks
    /// for another check reverts EVC_ChecksReentrancy, as EVC's restoreExecutionContext does.
    function _restore(bool outer) internal {
        if (!outer) return;
        checksDeferred = false;
        checksInProgress = true;
        address previous = onBehalfOfAccount;
        onBehalfOfAccount = address(0);
        for (uint256 i; i < accountStatusChecks.length; ++i) {
            address account = accountStatusChecks[i];
            accountCheckQueued[account] = false;
            _checkAccount(account);
        }
        delete accountStatusChecks;
        for (uint256 i; i < vaultStatusChecks.length; ++i) {
            address vault = vaultStatusChecks[i];
            vaultCheckQueued[vault] = false;
            _checkVault(vault);
        }
        delete vaultStatusChecks;
        onBehalfOfAccount = previous;
        checksInProgress = false;
    }

    function _checkNow(address account, address vault) internal nonReentrantChecks {
        checksInProgress = true;
        address previous = onBehalfOfAccount;
        onBehalfOfAccount = address(0);
        if (account != address(0)) _checkAccount(account);
        if (vault != address(0)) _checkVault(vault);
        onBehalfOfAccount = previous;
        checksInProgress = false;
    }

    /// No controller: healthy. More than one: EVC_ControllerViolation. Else the controller's
    /// checkAccountStatus must return its own selector; a pass stamps the time (liquidation cool-off).
    function _checkAccount(address account) internal {
        address[] storage controllers = accountControllers[account];
        if (controllers.length == 0) return;
        if (controllers.length > 1) revert EVC_ControllerViolation();
        address controller = controllers[0];
        (bool success, bytes memory result) = controller.staticcall(
            abi.encodeCall(IEulerStatusCheck.checkAccountStatus, (account, accountCollaterals[account]))
        );
        emit AccountStatusCheck(account, controller);
        if (!(success && result.length == 32 && bytes4(result) == IEulerStatusCheck.checkAccountStatus.selector)) {
            _revertBytes(result);
        }
        lastAccountStatusCheck[account] = block.timestamp;
    }

    function _checkVault(address vault) internal {
        (bool success, bytes memory result) = vault.call(abi.encodeCall(IEulerStatusCheck.checkVaultStatus, ()));
        emit VaultStatusCheck(vault);
        if (!(success && result.length == 32 && bytes4(result) == IEulerStatusCheck.checkVaultStatus.selector)) {
            _revertBytes(result);
        }
    }

    function _queueAccount(address account) internal {
        if (!accountCheckQueued[account]) {
            if (accountStatusChecks.length == SET_MAX_ELEMENTS) revert TooManyElements();
            accountCheckQueued[account] = true;
            accountStatusChecks.push(account);
        }
    }

    function _queueVault(address vault) internal {
        if (!vaultCheckQueued[vault]) {
            if (vaultStatusChecks.length == SET_MAX_ELEMENTS) revert TooManyElements();
            vaultCheckQueued[vault] = true;
            vaultStatusChecks.push(vault);
        }
    }

    function _contains(address[] storage set, address element) internal view returns (bool) {
        for (uint256 i; i < set.length; ++i) {
            if (set[i] == element) return true;
        }
        return false;
    }

    function _insert(address[] storage set, address element) internal returns (bool) {
        if (_contains(set, element)) return false;
        if (set.length == SET_MAX_ELEMENTS) revert TooManyElements();
        set.push(element);
        return true;
    }

    /// The last element fills the removed one's place: the order EVC's Set leaves.
    function _remove(address[] storage set, address element) internal returns (bool) {
        for (uint256 i; i < set.length; ++i) {
            if (set[i] == element) {
                set[i] = set[set.length - 1];
                set.pop();
                return true;
            }
        }
        return false;
    }

    function _haveCommonOwner(address a, address b) internal pure returns (bool) {
        return (uint160(a) ^ uint160(b)) < 0x100;
    }

    function _prefix(address account) internal pure returns (bytes19) {
        return bytes19(uint152(uint160(account) >> 8));
    }

    function _revertBytes(bytes memory reason) internal pure {
        if (reason.length != 0) {
            assembly {
                revert(add(32, reason), mload(reason))
            }
        }
        revert EVC_EmptyError();
    }
}

/// EVK's IRMLinearKink: utilization in type(uint32).max scale, rates per second in 1e27, the
/// same integer steps (utilization rounded down, then base + slope1 * min(u, kink) + slope2 * excess).
contract TestIRMLinearKink is IEulerIRM {
    error E_IRMUpdateUnauthorized();

    uint256 public immutable baseRate;
    uint256 public immutable slope1;
    uint256 public immutable slope2;
    uint256 public immutable kink;

    constructor(uint256 baseRate_, uint256 slope1_, uint256 slope2_, uint32 kink_) {
        baseRate = baseRate_;
        slope1 = slope1_;
        slope2 = slope2_;
        kink = kink_;
    }

    /// Only the vault itself may ask with the updating entry point, as in EVK.
    function computeInterestRate(address vault, uint256 cash, uint256 borrows) external view returns (uint256) {
        if (msg.sender != vault) revert E_IRMUpdateUnauthorized();
        return _rate(cash, borrows);
    }

    function computeInterestRateView(address, uint256 cash, uint256 borrows) external view returns (uint256) {
        return _rate(cash, borrows);
    }

    function _rate(uint256 cash, uint256 borrows) internal view returns (uint256 ir) {
        uint256 totalAssets = cash + borrows;
        uint32 utilization = totalAssets == 0 ? 0 : uint32(borrows * type(uint32).max / totalAssets);
        ir = baseRate;
        if (utilization <= kink) {
            ir += utilization * slope1;
        } else {
            ir += kink * slope1;
            unchecked {
                ir += slope2 * (utilization - kink);
            }
        }
    }
}

/// An EulerRouter stand-in. Prices are set per base token as the value of one whole token in the
/// unit of account, 18-decimal fixed point; a quote between two priced tokens crosses through the
/// unit of account. As the router does, base == quote answers the amount, a price set for the base
/// itself wins, a resolved ERC-4626 vault (EVK asks for the collateral *vault* with the account's
/// share balance) is converted with its convertToAssets and priced as its asset, and anything
/// else reverts PriceOracle_NotSupported. Decimals are read from the tokens, 18 for addresses in
/// Euler's reserved range (USD is address(840)). getQuotes answers (bid, ask) = mid -/+ a spread set
/// per token (none by default, as the Chainlink adapters answer (mid, mid)): a test knob, not Euler's.
contract TestEulerOracle is IEulerPriceOracle {
    error PriceOracle_NotSupported(address base, address quote);

    event ResolvedVaultSet(address indexed vault, address indexed asset);

    string public constant name = "EulerRouter";
    address public immutable unitOfAccount;
    mapping(address => uint256) public prices;
    mapping(address => uint16) public spreads;
    mapping(address => address) public resolvedVaults;

    constructor(address unitOfAccount_) {
        unitOfAccount = unitOfAccount_;
    }

    function setPrice(address base, uint256 priceWad) external {
        prices[base] = priceWad;
    }

    /// A half-spread in 1e4 around the mid price, applied by getQuotes only.
    function setSpread(address base, uint16 bps) external {
        spreads[base] = bps;
    }

    /// As EulerRouter.govSetResolvedVault: the vault's asset() recorded, or cleared.
    function govSetResolvedVault(address vault, bool set) external {
        address asset = set ? IEulerERC4626(vault).asset() : address(0);
        resolvedVaults[vault] = asset;
        emit ResolvedVaultSet(vault, asset);
    }

    function getQuote(uint256 inAmount, address base, address quote) external view returns (uint256) {
        (uint256 mid,) = _resolve(inAmount, base, quote);
        return mid;
    }

    function getQuotes(uint256 inAmount, address base, address quote) external view returns (uint256, uint256) {
        (uint256 mid, address priced) = _resolve(inAmount, base, quote);
        uint256 spread = spreads[priced];
        return (
            mid * (EVK_CONFIG_SCALE - spread) / EVK_CONFIG_SCALE, mid * (EVK_CONFIG_SCALE + spread) / EVK_CONFIG_SCALE
        );
    }

    function _resolve(uint256 inAmount, address base, address quote) internal view returns (uint256, address) {
        while (base != quote) {
            uint256 basePrice = prices[base];
            uint256 quotePrice = quote == unitOfAccount ? 1e18 : prices[quote];
            if (basePrice != 0 && quotePrice != 0) {
                return (inAmount * basePrice * 10 ** _decimals(quote) / (quotePrice * 10 ** _decimals(base)), base);
            }
            address asset = resolvedVaults[base];
            if (asset == address(0)) revert PriceOracle_NotSupported(base, quote);
            inAmount = IEulerERC4626(base).convertToAssets(inAmount);
            base = asset;
        }
        return (inAmount, base);
    }

    function _decimals(address token) internal view returns (uint256) {
        if (uint160(token) <= 0xffffffff) return 18;
        (bool success, bytes memory data) = token.staticcall(abi.encodeCall(IEulerAsset.decimals, ()));
        return success && data.length == 32 ? abi.decode(data, (uint8)) : 18;
    }
}

/// An EVK vault (EVault with its Vault, Token, Borrowing, RiskManager, Liquidation and Governance
/// modules folded into one contract). Every mutation runs inside EVC.call: called directly, the
/// vault calls EVC.call on itself with msg.sender as the account, as EVK's callThroughEVC does;
/// interest is accrued first and the vault (and where EVK does, the account) status check is
/// queued for the end of the call, where checkVaultStatus stores the IRM's new rate.
contract TestEVault {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares);
    event Withdraw(
        address indexed sender, address indexed receiver, address indexed owner, uint256 assets, uint256 shares
    );
    event VaultStatus(
        uint256 totalShares,
        uint256 totalBorrows,
        uint256 accumulatedFees,
        uint256 cash,
        uint256 interestAccumulator,
        uint256 interestRate,
        uint256 timestamp
    );
    event Borrow(address indexed account, uint256 assets);
    event Repay(address indexed account, uint256 assets);
    event InterestAccrued(address indexed account, uint256 assets);
    event Liquidate(
        address indexed liquidator,
        address indexed violator,
        address collateral,
        uint256 repayAssets,
        uint256 yieldBalance
    );
    event DebtSocialized(address indexed account, uint256 assets);
    event ConvertFees(
        address indexed sender,
        address indexed protocolReceiver,
        address indexed governorReceiver,
        uint256 protocolShares,
        uint256 governorShares
    );
    event GovSetGovernorAdmin(address indexed newGovernorAdmin);
    event GovSetFeeReceiver(address indexed newFeeReceiver);
    event GovSetLTV(
        address indexed collateral,
        uint16 borrowLTV,
        uint16 liquidationLTV,
        uint16 initialLiquidationLTV,
        uint48 targetTimestamp,
        uint32 rampDuration
    );
    event GovSetInterestRateModel(address newInterestRateModel);
    event GovSetMaxLiquidationDiscount(uint16 newDiscount);
    event GovSetLiquidationCoolOffTime(uint16 newCoolOffTime);
    event GovSetInterestFee(uint16 newFee);

    error E_SelfTransfer();
    error E_InsufficientAllowance();
    error E_InsufficientCash();
    error E_InsufficientBalance();
    error E_Reentrancy();
    error E_OutstandingDebt();
    error E_AmountTooLargeToEncode();
    error E_DebtAmountTooLargeToEncode();
    error E_RepayTooMuch();
    error E_TransientState();
    error E_SelfLiquidation();
    error E_ControllerDisabled();
    error E_CollateralDisabled();
    error E_ViolatorLiquidityDeferred();
    error E_LiquidationCoolOff();
    error E_ZeroAssets();
    error E_ZeroShares();
    error E_Unauthorized();
    error E_CheckUnauthorized();
    error E_BadCollateral();
    error E_AccountLiquidity();
    error E_NoLiability();
    error E_NotController();
    error E_BadFee();
    error E_InvalidLTVAsset();
    error E_NoPriceOracle();
    error E_ConfigAmountTooLargeToEncode();
    error E_BadAssetReceiver();
    error E_BadSharesOwner();
    error E_BadSharesReceiver();
    error E_BadMaxLiquidationDiscount();
    error E_LTVBorrow();
    error E_LTVLiquidation();
    error E_ExcessiveRepayAmount();
    error E_MinYield();
    error E_InsufficientDebt();

    /// The vault's totals as EVK's VaultCache carries them, brought up to the block.
    struct Cache {
        uint256 cash;
        uint256 totalBorrows; // exact: assets << 31
        uint256 totalShares;
        uint256 accumulatedFees;
        uint256 interestAccumulator;
        uint256 lastUpdate;
    }

    struct LTVConfig {
        uint16 borrowLTV;
        uint16 liquidationLTV;
        uint16 initialLiquidationLTV;
        uint48 targetTimestamp;
        uint32 rampDuration;
    }

    /// Liquidation's LiquidationCache, less the parties and the collateral the caller holds.
    struct Liquidation {
        address[] collaterals;
        uint256 liability;
        uint256 repay;
        uint256 yieldBalance;
        uint256 liabilityValue;
    }

    struct User {
        uint256 balance;
        uint256 owed; // exact: assets << 31, as of the user's interestAccumulator
        uint256 interestAccumulator;
    }

    TestEVC internal immutable evc;
    address public immutable asset;
    address public immutable oracle;
    address public immutable unitOfAccount;
    address public immutable creator;
    string public name;
    string public symbol;

    uint256 internal storedCash;
    uint256 internal storedTotalBorrows;
    uint256 internal storedTotalShares;
    uint256 internal storedAccumulatedFees;
    uint256 internal storedInterestAccumulator;
    uint256 internal lastInterestAccumulatorUpdate;
    uint256 internal storedInterestRate;
    uint16 public interestFee;
    address public interestRateModel;
    address public governorAdmin;
    address public feeReceiver;
    uint16 public maxLiquidationDiscount;
    uint16 public liquidationCoolOffTime;
    bool internal reentrancyLocked;
    uint16 internal supplyCap;
    uint16 internal borrowCap;
    address internal hookTarget;
    uint32 internal hookedOps;
    /// Never set: neither CFG_DONT_SOCIALIZE_DEBT nor CFG_EVC_COMPATIBLE_ASSET.
    uint32 public configFlags;
    mapping(address => LTVConfig) internal ltvLookup;
    address[] internal ltvList;
    mapping(address => User) internal users;
    mapping(address => mapping(address => uint256)) public allowance;

    /// `seqId` stands for EVK's SequenceRegistry number in the name ("EVK Vault eUSDC-1").
    /// The deployer is the creator and governor, as the factory's caller is in EVK; the interest
    /// fee starts at EVK's default 10 %.
    constructor(address evc_, address asset_, address oracle_, address unitOfAccount_, uint256 seqId) {
        evc = TestEVC(evc_);
        asset = asset_;
        oracle = oracle_;
        unitOfAccount = unitOfAccount_;
        creator = governorAdmin = msg.sender;
        symbol = string(abi.encodePacked("e", IEulerAsset(asset_).symbol(), "-", _toString(seqId)));
        name = string(abi.encodePacked("EVK Vault ", symbol));
        storedInterestAccumulator = 1e27;
        lastInterestAccumulatorUpdate = block.timestamp;
        interestFee = 0.1e4;
    }

    modifier nonReentrant() {
        if (reentrancyLocked) revert E_Reentrancy();
        reentrancyLocked = true;
        _;
        reentrancyLocked = false;
    }

    /// Called directly, the call is re-entered through EVC.call(this, msg.sender, 0, msg.data) and
    /// its answer returned as is.
    modifier callThroughEVC() {
        if (msg.sender == address(evc)) {
            _;
        } else {
            bytes memory result = evc.call(address(this), msg.sender, 0, msg.data);
            assembly {
                return(add(result, 32), mload(result))
            }
        }
    }

    modifier governorOnly() {
        if (governorAdmin != _authenticateGovernor()) revert E_Unauthorized();
        _;
    }

    modifier onlyEVCChecks() {
        if (msg.sender != address(evc) || !evc.areChecksInProgress()) revert E_CheckUnauthorized();
        _;
    }

    // ---- ERC-20 / ERC-4626 views

    function EVC() external view returns (address) {
        return address(evc);
    }

    /// The asset's decimals (18 when it has none), as EVK's Token module answers.
    function decimals() external view returns (uint8) {
        (bool success, bytes memory data) = asset.staticcall(abi.encodeCall(IEulerAsset.decimals, ()));
        return success && data.length >= 32 ? abi.decode(data, (uint8)) : 18;
    }

    /// Includes fee shares accrued up to the block (EVK mints them into the total on accrual).
    function totalSupply() external view returns (uint256) {
        return _loadVault().totalShares;
    }

    function balanceOf(address account) external view returns (uint256) {
        return users[account].balance;
    }

    function totalAssets() external view returns (uint256) {
        Cache memory c = _loadVault();
        return c.cash + _owedToAssetsUp(c.totalBorrows);
    }

    function convertToAssets(uint256 shares) public view returns (uint256) {
        return _sharesToAssetsDown(_toAmount(shares), _loadVault());
    }

    function convertToShares(uint256 assets) public view returns (uint256) {
        return _assetsToSharesDown(_toAmount(assets), _loadVault());
    }

    function previewDeposit(uint256 assets) external view returns (uint256) {
        return convertToShares(assets);
    }

    function previewMint(uint256 shares) external view returns (uint256) {
        return _sharesToAssetsUp(_toAmount(shares), _loadVault());
    }

    function previewWithdraw(uint256 assets) external view returns (uint256) {
        return _assetsToSharesUp(_toAmount(assets), _loadVault());
    }

    function previewRedeem(uint256 shares) external view returns (uint256) {
        return convertToAssets(shares);
    }

    function maxDeposit(address) external view returns (uint256) {
        Cache memory c = _loadVault();
        uint256 max = _sharesToAssetsDown(_maxMint(c), c);
        return _assetsToSharesDown(max, c) == 0 ? 0 : max;
    }

    function maxMint(address) external view returns (uint256) {
        return _maxMint(_loadVault());
    }

    /// Zero for an account with any controller enabled: EVK assumes the controller withholds it all.
    function maxWithdraw(address owner) external view returns (uint256) {
        Cache memory c = _loadVault();
        return _sharesToAssetsDown(_maxRedeem(c, owner), c);
    }

    function maxRedeem(address owner) external view returns (uint256) {
        Cache memory c = _loadVault();
        uint256 max = _maxRedeem(c, owner);
        return _sharesToAssetsDown(max, c) == 0 ? 0 : max;
    }

    function accumulatedFees() external view returns (uint256) {
        return _loadVault().accumulatedFees;
    }

    function accumulatedFeesAssets() external view returns (uint256) {
        Cache memory c = _loadVault();
        return _sharesToAssetsDown(c.accumulatedFees, c);
    }

    // ---- borrowing views

    function cash() external view returns (uint256) {
        return storedCash;
    }

    function totalBorrows() external view returns (uint256) {
        return _owedToAssetsUp(_loadVault().totalBorrows);
    }

    function totalBorrowsExact() external view returns (uint256) {
        return _loadVault().totalBorrows;
    }

    function debtOf(address account) external view returns (uint256) {
        return _owedToAssetsUp(_currentOwed(_loadVault(), account));
    }

    function debtOfExact(address account) external view returns (uint256) {
        return _currentOwed(_loadVault(), account);
    }

    /// The stored rate (set by the last vault status check), or, while this vault's status check
    /// is queued, what the IRM answers for the current cash and borrows: EVK's computeInterestRateView.
    function interestRate() external view returns (uint256) {
        Cache memory c = _loadVault();
        uint256 rate = storedInterestRate;
        if (interestRateModel != address(0) && evc.isVaultStatusCheckDeferred(address(this))) {
            (bool success, bytes memory data) = interestRateModel.staticcall(
                abi.encodeCall(
                    IEulerIRM.computeInterestRateView, (address(this), c.cash, _owedToAssetsUp(c.totalBorrows))
                )
            );
            if (success && data.length >= 32) {
                rate = abi.decode(data, (uint256));
                if (rate > EVK_MAX_INTEREST_RATE) rate = EVK_MAX_INTEREST_RATE;
            }
        }
        return rate;
    }

    function interestAccumulator() external view returns (uint256) {
        return _loadVault().interestAccumulator;
    }

    // ---- governance views

    function LTVBorrow(address collateral) external view returns (uint16) {
        return _getLTV(collateral, false);
    }

    function LTVLiquidation(address collateral) external view returns (uint16) {
        return _getLTV(collateral, true);
    }

    function LTVFull(address collateral) external view returns (uint16, uint16, uint16, uint48, uint32) {
        LTVConfig memory ltv = ltvLookup[collateral];
        return (ltv.borrowLTV, ltv.liquidationLTV, ltv.initialLiquidationLTV, ltv.targetTimestamp, ltv.rampDuration);
    }

    function LTVList() external view returns (address[] memory) {
        return ltvList;
    }

    /// Raw AmountCap encodings, never set: 0 is EVK's "no cap", the only kind this vault has.
    function caps() external view returns (uint16, uint16) {
        return (supplyCap, borrowCap);
    }

    /// Never set: no operation is hooked (see the file's header).
    function hookConfig() external view returns (address, uint32) {
        return (hookTarget, hookedOps);
    }

    // ---- risk views

    /// Reverts E_NoLiability with no controller, E_NotController when another vault controls the
    /// account, E_TransientState with more than one: EVK's validateController.
    function accountLiquidity(address account, bool liquidation)
        external
        view
        returns (uint256 collateralValue, uint256 liabilityValue)
    {
        Cache memory c = _loadVault();
        _validateController(account);
        return _calculateLiquidity(c, account, evc.getCollaterals(account), liquidation);
    }

    function accountLiquidityFull(address account, bool liquidation)
        external
        view
        returns (address[] memory collaterals, uint256[] memory collateralValues, uint256 liabilityValue)
    {
        Cache memory c = _loadVault();
        _validateController(account);
        if (oracle == address(0)) revert E_NoPriceOracle();
        collaterals = evc.getCollaterals(account);
        collateralValues = new uint256[](collaterals.length);
        for (uint256 i; i < collaterals.length; ++i) {
            collateralValues[i] = _collateralValue(account, collaterals[i], liquidation);
        }
        liabilityValue = _liabilityValue(c, account, liquidation);
    }

    /// (0, 0) while the violator's liquidation-LTV collateral value (mid prices) exceeds its
    /// liability value; else the most debt a liquidator may take and the collateral it would yield,
    /// with the discount (1 - health, capped by maxLiquidationDiscount) EVK's Liquidation applies.
    function checkLiquidation(address liquidator, address violator, address collateral)
        external
        view
        returns (uint256 maxRepay, uint256 maxYield)
    {
        Liquidation memory l = _calculateLiquidation(_loadVault(), liquidator, violator, collateral, type(uint256).max);
        return (l.repay, l.yieldBalance);
    }

    // ---- ERC-4626 and ERC-20 mutations

    function deposit(uint256 amount, address receiver) external callThroughEVC nonReentrant returns (uint256) {
        (Cache memory c, address account) = _initOperation(false, address(0));
        uint256 assets = _toAmount(amount == type(uint256).max ? IEulerAsset(asset).balanceOf(account) : amount);
        if (assets == 0) return 0;
        uint256 shares = _assetsToSharesDown(assets, c);
        if (shares == 0) revert E_ZeroShares();
        _pullAssets(c, account, assets);
        _increaseBalance(c, receiver, account, shares, assets);
        return shares;
    }

    function mint(uint256 amount, address receiver) external callThroughEVC nonReentrant returns (uint256) {
        (Cache memory c, address account) = _initOperation(false, address(0));
        uint256 shares = _toAmount(amount);
        if (shares == 0) return 0;
        uint256 assets = _sharesToAssetsUp(shares, c);
        _pullAssets(c, account, assets);
        _increaseBalance(c, receiver, account, shares, assets);
        return assets;
    }

    function withdraw(uint256 amount, address receiver, address owner)
        external
        callThroughEVC
        nonReentrant
        returns (uint256)
    {
        (Cache memory c, address account) = _initOperation(false, owner);
        uint256 assets = _toAmount(amount);
        if (assets == 0) return 0;
        uint256 shares = _assetsToSharesUp(assets, c);
        _finalizeWithdraw(c, assets, shares, account, receiver, owner);
        return shares;
    }

    function redeem(uint256 amount, address receiver, address owner)
        external
        callThroughEVC
        nonReentrant
        returns (uint256)
    {
        (Cache memory c, address account) = _initOperation(false, owner);
        uint256 shares = _toAmount(amount == type(uint256).max ? users[owner].balance : amount);
        if (shares == 0) return 0;
        uint256 assets = _sharesToAssetsDown(shares, c);
        if (assets == 0) revert E_ZeroAssets();
        _finalizeWithdraw(c, assets, shares, account, receiver, owner);
        return assets;
    }

    function transfer(address to, uint256 amount) external callThroughEVC nonReentrant returns (bool) {
        (, address account) = _initOperation(false, address(1));
        return _transferFrom(account, account, to, _toAmount(amount));
    }

    function transferFrom(address from, address to, uint256 amount)
        external
        callThroughEVC
        nonReentrant
        returns (bool)
    {
        if (from == address(0) || from == address(1)) revert E_BadSharesOwner();
        (, address account) = _initOperation(false, from);
        return _transferFrom(account, from, to, _toAmount(amount));
    }

    function approve(address spender, uint256 amount) external nonReentrant returns (bool) {
        address account = _authenticate();
        if (spender != account) {
            allowance[account][spender] = amount;
            emit Approval(account, spender, amount);
        }
        return true;
    }

    // ---- borrowing mutations

    /// Needs this vault enabled as the account's controller (E_ControllerDisabled), and leaves an
    /// account status check for the end of the call, where the borrow LTVs (bid/ask) must hold.
    function borrow(uint256 amount, address receiver) external callThroughEVC nonReentrant returns (uint256) {
        (Cache memory c, address account) = _initOperation(true, address(1));
        uint256 assets = amount == type(uint256).max ? c.cash : _toAmount(amount);
        if (assets == 0) return 0;
        if (assets > c.cash) revert E_InsufficientCash();
        _increaseBorrow(c, account, assets);
        _pushAssets(c, receiver, assets);
        return assets;
    }

    function repay(uint256 amount, address receiver) external callThroughEVC nonReentrant returns (uint256) {
        (Cache memory c, address account) = _initOperation(false, address(0));
        uint256 owed = _owedToAssetsUp(_currentOwed(c, receiver));
        uint256 assets = _toAmount(amount == type(uint256).max ? owed : amount);
        if (assets == 0) return 0;
        _pullAssets(c, account, assets);
        _decreaseBorrow(c, receiver, assets);
        return assets;
    }

    /// Liquidation's liquidate: the liquidator (this vault its controller) takes on `repayAssets` of
    /// the violator's debt (type(uint256).max: the most it may) and is sent the collateral vault's
    /// shares it yields, by the EVC's controlCollateral on the violator's behalf (whose account check
    /// that transfer asks for is forgiven). Where no recognised collateral is left and the debt was
    /// worth at least 1e6 in the unit of account, the rest of it is socialised. Events as EVK's, in
    /// its order: the debt's Repay and Borrow, the collateral's Transfer, then Withdraw(liquidator, 0,
    /// 0, rest, 0) and DebtSocialized, and Liquidate last.
    function liquidate(address violator, address collateral, uint256 repayAssets, uint256 minYieldBalance)
        external
        callThroughEVC
        nonReentrant
    {
        (Cache memory c, address liquidator) = _initOperation(true, address(1));
        Liquidation memory l = _calculateLiquidation(c, liquidator, violator, collateral, repayAssets);
        if (minYieldBalance > l.yieldBalance) revert E_MinYield();
        if (l.repay > 0) _transferBorrow(c, violator, liquidator, l.repay);
        if (l.yieldBalance > 0) {
            evc.controlCollateral(
                collateral, violator, 0, abi.encodeCall(IEulerAsset.transfer, (liquidator, l.yieldBalance))
            );
            evc.forgiveAccountStatusCheck(violator);
        }
        if (
            l.liabilityValue >= EVK_MIN_SOCIALIZATION_LIABILITY_VALUE && configFlags & EVK_CFG_DONT_SOCIALIZE_DEBT == 0
                && l.liability > l.repay && _noCollateral(violator, l.collaterals)
        ) {
            uint256 rest = l.liability - l.repay;
            _decreaseBorrow(c, violator, rest);
            emit Withdraw(liquidator, address(0), address(0), rest, 0);
            emit DebtSocialized(violator, rest);
        }
        emit Liquidate(liquidator, violator, collateral, l.repay, l.yieldBalance);
    }

    function disableController() external nonReentrant {
        address account = _authenticate();
        if (users[account].owed != 0) revert E_OutstandingDebt();
        evc.disableController(account);
    }

    function touch() external callThroughEVC nonReentrant {
        _initOperation(false, address(0));
    }

    // ---- EVC status checks

    function checkAccountStatus(address account, address[] calldata collaterals)
        external
        view
        onlyEVCChecks
        returns (bytes4)
    {
        Cache memory c = _loadVault();
        if (oracle == address(0)) revert E_NoPriceOracle();
        if (users[account].owed == 0) return this.checkAccountStatus.selector;
        uint256 liabilityValue = _liabilityValue(c, account, false);
        uint256 collateralValue;
        for (uint256 i; i < collaterals.length; ++i) {
            collateralValue += _collateralValue(account, collaterals[i], false);
            if (collateralValue > liabilityValue) return this.checkAccountStatus.selector;
        }
        revert E_AccountLiquidity();
    }

    /// Where the stored rate changes: accrue, then ask the IRM for the rate of the new cash and
    /// borrows (capped at EVK's maximum; an IRM that fails leaves the old rate).
    function checkVaultStatus() external onlyEVCChecks returns (bytes4) {
        Cache memory c = _updateVault();
        _logVaultStatus(c, _computeInterestRate(c));
        return this.checkVaultStatus.selector;
    }

    // ---- governance

    function setGovernorAdmin(address newGovernorAdmin) external nonReentrant governorOnly {
        governorAdmin = newGovernorAdmin;
        emit GovSetGovernorAdmin(newGovernorAdmin);
    }

    function setFeeReceiver(address newFeeReceiver) external nonReentrant governorOnly {
        feeReceiver = newFeeReceiver;
        emit GovSetFeeReceiver(newFeeReceiver);
    }

    /// EVK's rules: no self-collateral, borrow LTV <= liquidation LTV, a ramp only when lowering
    /// the liquidation LTV (it then falls linearly from its current value over rampDuration).
    function setLTV(address collateral, uint16 borrowLTV, uint16 liquidationLTV, uint32 rampDuration)
        external
        nonReentrant
        governorOnly
    {
        if (collateral == address(this)) revert E_InvalidLTVAsset();
        if (borrowLTV > EVK_CONFIG_SCALE || liquidationLTV > EVK_CONFIG_SCALE) revert E_ConfigAmountTooLargeToEncode();
        if (borrowLTV > liquidationLTV) revert E_LTVBorrow();
        LTVConfig memory current = ltvLookup[collateral];
        uint16 currentLiquidationLTV = _getLTV(collateral, true);
        if (liquidationLTV >= currentLiquidationLTV && rampDuration > 0) revert E_LTVLiquidation();
        LTVConfig memory next = LTVConfig({
            borrowLTV: borrowLTV,
            liquidationLTV: liquidationLTV,
            initialLiquidationLTV: currentLiquidationLTV,
            targetTimestamp: uint48(block.timestamp + rampDuration),
            rampDuration: rampDuration
        });
        ltvLookup[collateral] = next;
        if (current.targetTimestamp == 0) ltvList.push(collateral);
        emit GovSetLTV(
            collateral, borrowLTV, liquidationLTV, next.initialLiquidationLTV, next.targetTimestamp, rampDuration
        );
    }

    function setMaxLiquidationDiscount(uint16 newDiscount) external nonReentrant governorOnly {
        if (newDiscount == EVK_CONFIG_SCALE) revert E_BadMaxLiquidationDiscount();
        if (newDiscount > EVK_CONFIG_SCALE) revert E_ConfigAmountTooLargeToEncode();
        maxLiquidationDiscount = newDiscount;
        emit GovSetMaxLiquidationDiscount(newDiscount);
    }

    function setLiquidationCoolOffTime(uint16 newCoolOffTime) external nonReentrant governorOnly {
        liquidationCoolOffTime = newCoolOffTime;
        emit GovSetLiquidationCoolOffTime(newCoolOffTime);
    }

    /// The old rate is dropped (0) and the new model asked at once, as EVK does.
    function setInterestRateModel(address newModel) external nonReentrant governorOnly {
        Cache memory c = _updateVault();
        interestRateModel = newModel;
        storedInterestRate = 0;
        _logVaultStatus(c, _computeInterestRate(c));
        emit GovSetInterestRateModel(newModel);
    }

    /// Pending interest is charged at the old fee first. Only EVK's guaranteed range (10 %-100 %)
    /// is accepted: outside it EVK asks the ProtocolConfig, which is left out.
    function setInterestFee(uint16 newInterestFee) external nonReentrant governorOnly {
        Cache memory c = _updateVault();
        _logVaultStatus(c, storedInterestRate);
        if (newInterestFee < 0.1e4 || newInterestFee > 1e4) revert E_BadFee();
        interestFee = newInterestFee;
        emit GovSetInterestFee(newInterestFee);
    }

    /// All accrued fee shares go to the fee receiver, or the governor when none is set (no
    /// ProtocolConfig, so no protocol part: see the file's header).
    function convertFees() external callThroughEVC nonReentrant {
        (Cache memory c, address account) = _initOperation(false, address(0));
        if (c.accumulatedFees == 0) return;
        address receiver = feeReceiver == address(0) ? governorAdmin : feeReceiver;
        uint256 fees = c.accumulatedFees;
        storedTotalShares = c.totalShares = c.totalShares - fees;
        storedAccumulatedFees = c.accumulatedFees = 0;
        _increaseBalance(c, receiver, address(0), fees, 0);
        emit ConvertFees(account, address(0), receiver, 0, fees);
    }

    // ---- internals: accrual

    function _loadVault() internal view returns (Cache memory c) {
        _initCache(c);
    }

    function _updateVault() internal returns (Cache memory c) {
        if (_initCache(c)) {
            lastInterestAccumulatorUpdate = c.lastUpdate;
            storedAccumulatedFees = c.accumulatedFees;
            storedTotalShares = c.totalShares;
            storedTotalBorrows = c.totalBorrows;
            storedInterestAccumulator = c.interestAccumulator;
        }
    }

    /// EVK's Cache.initVaultCache: the accumulator times rpow(1e27 + rate, dt, 1e27) / 1e27, borrows
    /// scaled by new/old accumulator (both floored; an overflow keeps the old value), and the fee
    /// (interest x interestFee) minted as shares at the post-interest price without the virtual
    /// deposit: newShares = totalAssets x shares / (totalAssets - feeAssets).
    function _initCache(Cache memory c) internal view returns (bool dirty) {
        c.cash = storedCash;
        c.totalBorrows = storedTotalBorrows;
        c.totalShares = storedTotalShares;
        c.accumulatedFees = storedAccumulatedFees;
        c.interestAccumulator = storedInterestAccumulator;
        c.lastUpdate = lastInterestAccumulatorUpdate;
        uint256 deltaT = block.timestamp - c.lastUpdate;
        if (deltaT == 0) return false;
        dirty = true;
        uint256 newAccumulator = c.interestAccumulator;
        uint256 newTotalBorrows = c.totalBorrows;
        unchecked {
            (uint256 multiplier, bool overflow) = _rpow(storedInterestRate + 1e27, deltaT, 1e27);
            if (!overflow) {
                uint256 product = newAccumulator * multiplier;
                if (newAccumulator == product / multiplier) newAccumulator = product / 1e27;
            }
            uint256 scaled = newTotalBorrows * newAccumulator;
            if (newTotalBorrows == scaled / newAccumulator) newTotalBorrows = scaled / c.interestAccumulator;
        }
        uint256 newAccumulatedFees = c.accumulatedFees;
        uint256 newTotalShares = c.totalShares;
        uint256 feeAssets =
            (newTotalBorrows - c.totalBorrows) * interestFee / (EVK_CONFIG_SCALE << EVK_DEBT_SHIFT);
        if (feeAssets != 0) {
            uint256 newTotalAssets = c.cash + ((newTotalBorrows + (1 << EVK_DEBT_SHIFT) - 1) >> EVK_DEBT_SHIFT);
            newTotalShares = newTotalAssets * newTotalShares / (newTotalAssets - feeAssets);
            newAccumulatedFees += newTotalShares - c.totalShares;
        }
        if (newTotalBorrows <= EVK_MAX_SANE_DEBT) {
            c.totalBorrows = newTotalBorrows;
            c.interestAccumulator = newAccumulator;
            c.lastUpdate = block.timestamp;
            if (newTotalShares != c.totalShares && newTotalShares <= EVK_MAX_SANE_AMOUNT) {
                c.accumulatedFees = newAccumulatedFees;
                c.totalShares = newTotalShares;
            }
        }
    }

    /// Euler's RPow (solmate's rpow with an overflow flag instead of a revert): square-and-multiply
    /// with each product rounded half up to `scalar`.
    function _rpow(uint256 x, uint256 n, uint256 scalar) internal pure returns (uint256 z, bool overflow) {
        unchecked {
            if (x == 0) return (n == 0 ? scalar : 0, false);
            z = n % 2 == 0 ? scalar : x;
            uint256 half = scalar >> 1;
            for (n >>= 1; n != 0; n >>= 1) {
                if (x >> 128 != 0) return (z, true);
                uint256 xx = x * x;
                uint256 xxRound = xx + half;
                if (xxRound < xx) return (z, true);
                x = xxRound / scalar;
                if (n % 2 == 1) {
                    uint256 zx = z * x;
                    if (x != 0 && zx / x != z) return (z, true);
                    uint256 zxRound = zx + half;
                    if (zxRound < zx) return (z, true);
                    z = zxRound / scalar;
                }
            }
        }
    }

    function _computeInterestRate(Cache memory c) internal returns (uint256) {
        uint256 rate = storedInterestRate;
        if (interestRateModel != address(0)) {
            (bool success, bytes memory data) = interestRateModel.call(
                abi.encodeCall(IEulerIRM.computeInterestRate, (address(this), c.cash, _owedToAssetsUp(c.totalBorrows)))
            );
            if (success && data.length >= 32) {
                rate = abi.decode(data, (uint256));
                if (rate > EVK_MAX_INTEREST_RATE) rate = EVK_MAX_INTEREST_RATE;
                storedInterestRate = rate;
            }
        }
        return rate;
    }

    function _logVaultStatus(Cache memory c, uint256 rate) internal {
        emit VaultStatus(
            c.totalShares,
            _owedToAssetsUp(c.totalBorrows),
            c.accumulatedFees,
            c.cash,
            c.interestAccumulator,
            rate,
            block.timestamp
        );
    }

    // ---- internals: conversions (EVK's virtual deposit of 1e6 on both sides)

    function _totals(Cache memory c) internal pure returns (uint256 assets, uint256 shares) {
        assets = c.cash + _owedToAssetsUp(c.totalBorrows) + EVK_VIRTUAL_DEPOSIT;
        shares = c.totalShares + EVK_VIRTUAL_DEPOSIT;
    }

    function _sharesToAssetsDown(uint256 shares, Cache memory c) internal pure returns (uint256) {
        (uint256 assets_, uint256 shares_) = _totals(c);
        return _toAmount(shares * assets_ / shares_);
    }

    function _sharesToAssetsUp(uint256 shares, Cache memory c) internal pure returns (uint256) {
        (uint256 assets_, uint256 shares_) = _totals(c);
        return _toAmount((shares * assets_ + (shares_ - 1)) / shares_);
    }

    function _assetsToSharesDown(uint256 assets, Cache memory c) internal pure returns (uint256) {
        (uint256 assets_, uint256 shares_) = _totals(c);
        return _toAmount(assets * shares_ / assets_);
    }

    function _assetsToSharesUp(uint256 assets, Cache memory c) internal pure returns (uint256) {
        (uint256 assets_, uint256 shares_) = _totals(c);
        return _toAmount((assets * shares_ + (assets_ - 1)) / assets_);
    }

    /// Exact debt (assets << 31) to assets, rounded up.
    function _owedToAssetsUp(uint256 owed) internal pure returns (uint256) {
        return (owed + (1 << EVK_DEBT_SHIFT) - 1) >> EVK_DEBT_SHIFT;
    }

    /// EVK's Assets and Shares are uint112: larger amounts revert E_AmountTooLargeToEncode.
    function _toAmount(uint256 amount) internal pure returns (uint256) {
        if (amount > EVK_MAX_SANE_AMOUNT) revert E_AmountTooLargeToEncode();
        return amount;
    }

    function _toOwed(uint256 owed) internal pure returns (uint256) {
        if (owed > EVK_MAX_SANE_DEBT) revert E_DebtAmountTooLargeToEncode();
        return owed;
    }

    function _maxMint(Cache memory c) internal pure returns (uint256) {
        uint256 supply = c.cash + _owedToAssetsUp(c.totalBorrows);
        if (supply >= EVK_NO_CAP) return 0;
        unchecked {
            uint256 max = EVK_NO_CAP - supply;
            uint256 limit = EVK_MAX_SANE_AMOUNT - c.cash;
            max = limit < max ? limit : max;
            (uint256 assets_, uint256 shares_) = _totals(c);
            max = max * shares_ / assets_;
            limit = EVK_MAX_SANE_AMOUNT - c.totalShares;
            return limit < max ? limit : max;
        }
    }

    function _maxRedeem(Cache memory c, address owner) internal view returns (uint256) {
        uint256 max = users[owner].balance;
        if (max == 0 || evc.getControllers(owner).length > 0) return 0;
        uint256 cashShares = _assetsToSharesDown(c.cash, c);
        return max > cashShares ? cashShares : max;
    }

    // ---- internals: accounts

    /// EVK's initOperation: accrue, take the account from the EVC (requiring this vault as its
    /// controller for borrowing), queue the vault check and, for `check` (address(1) = the
    /// account itself), the account check.
    function _initOperation(bool needsController, address check) internal returns (Cache memory c, address account) {
        c = _updateVault();
        assert(msg.sender == address(evc));
        bool controllerEnabled;
        (account, controllerEnabled) = evc.getCurrentOnBehalfOfAccount(needsController ? address(this) : address(0));
        if (needsController && !controllerEnabled) revert E_ControllerDisabled();
        if (check == address(1)) check = account;
        if (check == address(0)) evc.requireVaultStatusCheck();
        else evc.requireAccountAndVaultStatusCheck(check);
    }

    function _authenticate() internal view returns (address account) {
        if (msg.sender != address(evc)) return msg.sender;
        (account,) = evc.getCurrentOnBehalfOfAccount(address(0));
    }

    /// The governor must act as itself: not through one of its sub-accounts.
    function _authenticateGovernor() internal view returns (address account) {
        account = _authenticate();
        if (msg.sender == address(evc) && _isKnownNonOwnerAccount(account)) revert E_Unauthorized();
    }

    function _isKnownNonOwnerAccount(address account) internal view returns (bool) {
        address owner = evc.getAccountOwner(account);
        return owner != address(0) && owner != account;
    }

    function _validateController(address account) internal view {
        address[] memory controllers = evc.getControllers(account);
        if (controllers.length > 1) revert E_TransientState();
        if (controllers.length == 0) revert E_NoLiability();
        if (controllers[0] != address(this)) revert E_NotController();
    }

    function _currentOwed(Cache memory c, address account) internal view returns (uint256) {
        User storage user = users[account];
        if (user.owed == 0) return 0;
        return _toOwed(user.owed * c.interestAccumulator / user.interestAccumulator);
    }

    function _increaseBalance(Cache memory c, address account, address sender, uint256 shares, uint256 assets)
        internal
    {
        if (account == address(0)) revert E_BadSharesReceiver();
        users[account].balance = _toAmount(users[account].balance + shares);
        storedTotalShares = c.totalShares = _toAmount(c.totalShares + shares);
        emit Transfer(address(0), account, shares);
        emit Deposit(sender, account, assets, shares);
    }

    function _finalizeWithdraw(
        Cache memory c,
        uint256 assets,
        uint256 shares,
        address sender,
        address receiver,
        address owner
    ) internal {
        if (c.cash < assets) revert E_InsufficientCash();
        _decreaseAllowance(owner, sender, shares);
        uint256 balance = users[owner].balance;
        if (balance < shares) revert E_InsufficientBalance();
        users[owner].balance = balance - shares;
        storedTotalShares = c.totalShares = c.totalShares - shares;
        emit Transfer(owner, address(0), shares);
        emit Withdraw(sender, receiver, owner, assets, shares);
        _pushAssets(c, receiver, assets);
    }

    function _transferFrom(address account, address from, address to, uint256 shares) internal returns (bool) {
        if (from == to) revert E_SelfTransfer();
        _decreaseAllowance(from, account, shares);
        if (to == address(0)) revert E_BadSharesReceiver();
        if (shares != 0) {
            uint256 balance = users[from].balance;
            if (balance < shares) revert E_InsufficientBalance();
            users[from].balance = balance - shares;
            users[to].balance = users[to].balance + shares;
        }
        emit Transfer(from, to, shares);
        return true;
    }

    function _decreaseAllowance(address owner, address spender, uint256 shares) internal {
        if (shares == 0 || owner == spender) return;
        uint256 allowed = allowance[owner][spender];
        if (allowed != type(uint256).max) {
            if (allowed < shares) revert E_InsufficientAllowance();
            allowance[owner][spender] = allowed - shares;
        }
    }

    function _pullAssets(Cache memory c, address from, uint256 assets) internal {
        require(IEulerAsset(asset).transferFrom(from, address(this), assets));
        storedCash = c.cash = _toAmount(c.cash + assets);
    }

    /// Refuses a receiver the EVC knows as someone's sub-account: a plain ERC-20 sent there would
    /// be stuck (EVK's default, without CFG_EVC_COMPATIBLE_ASSET).
    function _pushAssets(Cache memory c, address to, uint256 assets) internal {
        if (to == address(0) || _isKnownNonOwnerAccount(to)) revert E_BadAssetReceiver();
        storedCash = c.cash = c.cash - assets;
        require(IEulerAsset(asset).transfer(to, assets));
    }

    function _increaseBorrow(Cache memory c, address account, uint256 assets) internal {
        uint256 prevOwed = users[account].owed;
        uint256 owed = _toOwed(_currentOwed(c, account) + (assets << EVK_DEBT_SHIFT));
        users[account].owed = owed;
        users[account].interestAccumulator = c.interestAccumulator;
        storedTotalBorrows = c.totalBorrows = _toOwed(c.totalBorrows + (assets << EVK_DEBT_SHIFT));
        _logBorrow(account, assets, _owedToAssetsUp(prevOwed), _owedToAssetsUp(owed));
    }

    /// The remaining debt is rounded up to whole assets first (owed - repaid, << 31), and the
    /// account's exact debt is swapped for it in the total, as EVK's decreaseBorrow does.
    function _decreaseBorrow(Cache memory c, address account, uint256 assets) internal {
        uint256 prevOwed = users[account].owed;
        uint256 owedExact = _currentOwed(c, account);
        uint256 owed = _owedToAssetsUp(owedExact);
        if (assets > owed) revert E_RepayTooMuch();
        uint256 owedRemaining = (owed - assets) << EVK_DEBT_SHIFT;
        users[account].owed = owedRemaining;
        users[account].interestAccumulator = c.interestAccumulator;
        storedTotalBorrows = c.totalBorrows =
            c.totalBorrows > owedExact ? c.totalBorrows - owedExact + owedRemaining : owedRemaining;
        _logRepay(account, assets, _owedToAssetsUp(prevOwed), owed - assets);
    }

    /// EVK's transferBorrow: exact debt moves (all of it where the excess asked, or what would be
    /// left, is under one unit of exact debt); the Repay and the Borrow logged are the assets asked,
    /// or the change of the rounded-up debt where that is the smaller.
    function _transferBorrow(Cache memory c, address from, address to, uint256 assets) internal {
        uint256 amount = assets << EVK_DEBT_SHIFT;
        uint256 fromPrev = users[from].owed;
        uint256 fromOwed = _currentOwed(c, from);
        uint256 dust = 1 << EVK_DEBT_SHIFT;
        if ((amount > fromOwed && amount - fromOwed < dust) || (amount < fromOwed && fromOwed - amount < dust)) {
            amount = fromOwed;
        }
        if (amount > fromOwed) revert E_InsufficientDebt();
        fromOwed -= amount;
        users[from].owed = fromOwed;
        users[from].interestAccumulator = c.interestAccumulator;
        uint256 toPrev = users[to].owed;
        uint256 toOwed = _toOwed(_currentOwed(c, to) + amount);
        users[to].owed = toOwed;
        users[to].interestAccumulator = c.interestAccumulator;
        (uint256 fromPrevAssets, uint256 fromAssets) = (_owedToAssetsUp(fromPrev), _owedToAssetsUp(fromOwed));
        uint256 repaid = fromPrevAssets > assets + fromAssets ? fromPrevAssets - fromAssets : assets;
        _logRepay(from, repaid, fromPrevAssets, fromAssets);
        (uint256 toPrevAssets, uint256 toAssets) = (_owedToAssetsUp(toPrev), _owedToAssetsUp(toOwed));
        _logBorrow(to, assets + toPrevAssets > toAssets ? toAssets - toPrevAssets : assets, toPrevAssets, toAssets);
    }

    /// The interest since the account's last operation, then the borrow itself (each if not 0).
    function _logBorrow(address account, uint256 assets, uint256 prevOwed, uint256 owed) internal {
        uint256 interest;
        unchecked {
            interest = owed - prevOwed - assets;
        }
        if (interest != 0) emit InterestAccrued(account, interest);
        if (assets != 0) emit Borrow(account, assets);
    }

    function _logRepay(address account, uint256 assets, uint256 prevOwed, uint256 owed) internal {
        uint256 interest;
        unchecked {
            interest = owed + assets - prevOwed;
        }
        if (interest != 0) emit InterestAccrued(account, interest);
        if (assets != 0) emit Repay(account, assets);
    }

    // ---- internals: liquidation (EVK's Liquidation)

    /// The checks and amounts of calculateLiquidation: nothing to repay while the violator is
    /// healthy; else the most it may (the yield at the discount, capped by its collateral), or
    /// `desiredRepay` with the yield in proportion.
    function _calculateLiquidation(
        Cache memory c,
        address liquidator,
        address violator,
        address collateral,
        uint256 desiredRepay
    ) internal view returns (Liquidation memory l) {
        l.liability = _owedToAssetsUp(_currentOwed(c, violator));
        l.collaterals = evc.getCollaterals(violator);
        if (violator == liquidator) revert E_SelfLiquidation();
        if (ltvLookup[collateral].targetTimestamp == 0) revert E_BadCollateral();
        _validateController(violator);
        if (!evc.isCollateralEnabled(violator, collateral)) revert E_CollateralDisabled();
        if (evc.isAccountStatusCheckDeferred(violator)) revert E_ViolatorLiquidityDeferred();
        if (block.timestamp < evc.getLastAccountStatusCheckTimestamp(violator) + liquidationCoolOffTime) {
            revert E_LiquidationCoolOff();
        }
        if (l.liability == 0) return l;
        _maxLiquidation(c, l, violator, collateral);
        if (desiredRepay != type(uint256).max) {
            if (desiredRepay > l.repay) revert E_ExcessiveRepayAmount();
            if (l.repay > 0) {
                l.yieldBalance = desiredRepay * l.yieldBalance / l.repay;
                l.repay = _toAmount(desiredRepay);
            }
        }
    }

    function _maxLiquidation(Cache memory c, Liquidation memory l, address violator, address collateral)
        internal
        view
    {
        uint256 collateralAdjustedValue;
        (collateralAdjustedValue, l.liabilityValue) = _calculateLiquidity(c, violator, l.collaterals, true);
        if (collateralAdjustedValue > l.liabilityValue || l.liabilityValue == 0) return;
        uint256 discountFactor = collateralAdjustedValue * 1e18 / l.liabilityValue;
        uint256 minDiscountFactor = 1e18 - uint256(1e18) * maxLiquidationDiscount / EVK_CONFIG_SCALE;
        if (discountFactor < minDiscountFactor) discountFactor = minDiscountFactor;
        uint256 collateralBalance = IEulerAsset(collateral).balanceOf(violator);
        uint256 collateralValue = IEulerPriceOracle(oracle).getQuote(collateralBalance, collateral, unitOfAccount);
        if (collateralValue == 0) {
            l.yieldBalance = collateralBalance;
            return;
        }
        uint256 maxRepayValue = l.liabilityValue;
        uint256 maxYieldValue = maxRepayValue * 1e18 / discountFactor;
        if (collateralValue < maxYieldValue) {
            maxRepayValue = collateralValue * discountFactor / 1e18;
            maxYieldValue = collateralValue;
        }
        l.repay = _toAmount(maxRepayValue * l.liability / l.liabilityValue);
        l.yieldBalance = maxYieldValue * collateralBalance / collateralValue;
    }

    /// LiquidityUtils.checkNoCollateral: no recognised collateral of the account's holds a share of it.
    function _noCollateral(address account, address[] memory collaterals) internal view returns (bool) {
        for (uint256 i; i < collaterals.length; ++i) {
            if (ltvLookup[collaterals[i]].targetTimestamp == 0) continue;
            if (IEulerAsset(collaterals[i]).balanceOf(account) > 0) return false;
        }
        return true;
    }

    // ---- internals: liquidity (EVK's LiquidityUtils)

    function _calculateLiquidity(Cache memory c, address account, address[] memory collaterals, bool liquidation)
        internal
        view
        returns (uint256 collateralValue, uint256 liabilityValue)
    {
        if (oracle == address(0)) revert E_NoPriceOracle();
        for (uint256 i; i < collaterals.length; ++i) {
            collateralValue += _collateralValue(account, collaterals[i], liquidation);
        }
        liabilityValue = _liabilityValue(c, account, liquidation);
    }

    /// Debt rounded up to assets, in the unit of account: as is when the asset is the unit of
    /// account, else the oracle's mid price (getQuote) for liquidation, its ask (getQuotes) otherwise.
    function _liabilityValue(Cache memory c, address account, bool liquidation) internal view returns (uint256 value) {
        uint256 owedAssets = _owedToAssetsUp(_currentOwed(c, account));
        if (owedAssets == 0) return 0;
        if (asset == unitOfAccount) return owedAssets;
        if (liquidation) return IEulerPriceOracle(oracle).getQuote(owedAssets, asset, unitOfAccount);
        (, value) = IEulerPriceOracle(oracle).getQuotes(owedAssets, asset, unitOfAccount);
    }

    /// The account's *share* balance of the collateral vault, quoted with the collateral vault as the
    /// base (mid for liquidation, bid otherwise), times the LTV / 1e4, rounded down.
    function _collateralValue(address account, address collateral, bool liquidation)
        internal
        view
        returns (uint256 value)
    {
        uint256 ltv = _getLTV(collateral, liquidation);
        if (ltv == 0) return 0;
        uint256 balance = IEulerAsset(collateral).balanceOf(account);
        if (balance == 0) return 0;
        if (liquidation) {
            value = IEulerPriceOracle(oracle).getQuote(balance, collateral, unitOfAccount);
        } else {
            (value,) = IEulerPriceOracle(oracle).getQuotes(balance, collateral, unitOfAccount);
        }
        return value * ltv / EVK_CONFIG_SCALE;
    }

    /// EVK's LTVConfig.getLTV: the borrow LTV, or the liquidation LTV ramping down linearly from
    /// its previous value until the target time.
    function _getLTV(address collateral, bool liquidation) internal view returns (uint16) {
        LTVConfig memory ltv = ltvLookup[collateral];
        if (!liquidation) return ltv.borrowLTV;
        if (block.timestamp >= ltv.targetTimestamp || ltv.liquidationLTV >= ltv.initialLiquidationLTV) {
            return ltv.liquidationLTV;
        }
        uint256 remaining = ltv.targetTimestamp - block.timestamp;
        return uint16(
            ltv.liquidationLTV + uint256(ltv.initialLiquidationLTV - ltv.liquidationLTV) * remaining / ltv.rampDuration
        );
    }

    function _toString(uint256 n) internal pure returns (string memory) {
        if (n == 0) return "0";
        uint256 len;
        for (uint256 m = n; m != 0; m /= 10) ++len;
        bytes memory out = new bytes(len);
        for (; n != 0; n /= 10) out[--len] = bytes1(uint8(48 + n % 10));
        return string(out);
    }
}
