// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

interface IV3TransferFrom {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @dev The Balancer v3 Vault's functions a pool's INIT uses (IVaultMain's `unlock` and `settle`,
/// IVaultExtension's `initialize`, as the npm package balancer-labs/v3-interfaces 1.0.0 declares them).
interface IV3Vault {
    function unlock(bytes calldata data) external returns (bytes memory result);

    function settle(address token, uint256 amountHint) external returns (uint256 credit);

    function initialize(
        address pool,
        address to,
        address[] memory tokens,
        uint256[] memory exactAmountsIn,
        uint256 minBptAmountOut,
        bytes memory userData
    ) external returns (uint256 bptAmountOut);

    function totalSupply(address token) external view returns (uint256);

    function balanceOf(address token, address account) external view returns (uint256);

    function getCurrentLiveBalances(address pool) external view returns (uint256[] memory balancesLiveScaled18);

    function getPoolTokenRates(address pool)
        external
        view
        returns (uint256[] memory decimalScalingFactors, uint256[] memory tokenRates);

    function getStaticSwapFeePercentage(address pool) external view returns (uint256);
}

/// A stand-in for Balancer v3's Router, whose published source needs Permit2 (not on npm): it
/// initializes a pool for its caller inside the Vault's `unlock`, as the Router's `initialize`
/// does (the Vault mints the BPT to the caller; the router pays the tokens in and settles them),
/// and names that caller meanwhile as the Router's SenderGuard does (`getSender()`, which an LBP
/// asks its trusted router so that only its owner seeds it).
contract TestBalancerV3Router {
    IV3Vault public immutable vault;
    address public getSender;

    constructor(address vault_) {
        vault = IV3Vault(vault_);
    }

    function initialize(address pool, address[] calldata tokens, uint256[] calldata amounts)
        external
        returns (uint256)
    {
        getSender = msg.sender;
        bytes memory result = vault.unlock(abi.encodeCall(this.initializeHook, (msg.sender, pool, tokens, amounts)));
        getSender = address(0);
        return abi.decode(result, (uint256));
    }

    function initializeHook(address sender, address pool, address[] calldata tokens, uint256[] calldata amounts)
        external
        returns (uint256 bpt)
    {
        require(msg.sender == address(vault), "only the Vault");
        bpt = vault.initialize(pool, sender, tokens, amounts, 0, "");
        for (uint256 i = 0; i < tokens.length; i++) {
            IV3TransferFrom(tokens[i]).transferFrom(sender, address(vault), amounts[i]);
            vault.settle(tokens[i], amounts[i]);
        }
    }
}

/// An IRateProvider (v3-interfaces solidity-utils/helpers/IRateProvider.sol): a token's rate the
/// test sets, so that a pool token WITH_RATE is valued as the Vault values it.
contract TestBalancerV3RateProvider {
    uint256 public getRate = 1e18;

    function set(uint256 rate) external {
        getRate = rate;
    }
}

/// What every v3 pool has, as Balancer's BalancerPoolToken and IBasePool (v3-vault, v3-interfaces
/// 1.0.0) have it, for pool types no published package deploys (Gyro's, ReClamm's): its BPT an
/// ERC-20 whose balances and supply the Vault keeps and whose events the Vault has it emit
/// (`emitTransfer`, `emitApproval`), its swap fee bounds, and an invariant (the sum of the live
/// balances: only the Vault's `initialize` computes it; no swap is made). The world registers it
/// in the Vault as a factory registers its pools (`registerPool`). Each type below answers only
/// its type's own published view, which the adapter recognizes it by; none of its pool math.
abstract contract TestBalancerV3StandInPool {
    IV3Vault internal immutable _vault;
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(address vault_, string memory name_, string memory symbol_) {
        _vault = IV3Vault(vault_);
        name = name_;
        symbol = symbol_;
    }

    function totalSupply() external view returns (uint256) {
        return _vault.totalSupply(address(this));
    }

    function balanceOf(address account) external view returns (uint256) {
        return _vault.balanceOf(address(this), account);
    }

    function emitTransfer(address from, address to, uint256 amount) external {
        require(msg.sender == address(_vault), "only the Vault");
        emit Transfer(from, to, amount);
    }

    function emitApproval(address owner, address spender, uint256 amount) external {
        require(msg.sender == address(_vault), "only the Vault");
        emit Approval(owner, spender, amount);
    }

    /// @dev IBasePool's, its Rounding an enum (a uint8 in the ABI).
    function computeInvariant(uint256[] memory balancesLiveScaled18, uint8) external pure returns (uint256 sum) {
        for (uint256 i = 0; i < balancesLiveScaled18.length; i++) {
            sum += balancesLiveScaled18[i];
        }
    }

    function getMinimumSwapFeePercentage() external pure returns (uint256) {
        return 0;
    }

    function getMaximumSwapFeePercentage() external pure returns (uint256) {
        return 1e17;
    }
}

/// A Gyro E-CLP pool's stand-in: IGyroECLPPool's `getECLPParams()` (v3-interfaces 1.0.0,
/// pool-gyro/IGyroECLPPool.sol), a curve's parameters with no derived ones computed.
contract TestBalancerV3GyroECLPPool is TestBalancerV3StandInPool {
    struct EclpParams {
        int256 alpha;
        int256 beta;
        int256 c;
        int256 s;
        int256 lambda;
    }

    struct Vector2 {
        int256 x;
        int256 y;
    }

    struct DerivedEclpParams {
        Vector2 tauAlpha;
        Vector2 tauBeta;
        int256 u;
        int256 v;
        int256 w;
        int256 z;
        int256 dSq;
    }

    constructor(address vault_) TestBalancerV3StandInPool(vault_, "Balancer v3 Gyro E-CLP", "B3-ECLP") {}

    function getECLPParams() external pure returns (EclpParams memory params, DerivedEclpParams memory d) {
        params = EclpParams(998e15, 1002e15, 707106781186547524, 707106781186547524, 4000e18);
        d.dSq = 1e38;
    }
}

/// A Gyro 2-CLP pool's stand-in: IGyro2CLPPool's `getGyro2CLPPoolImmutableData()` (v3-interfaces
/// 1.0.0, pool-gyro/IGyro2CLPPool.sol).
contract TestBalancerV3Gyro2CLPPool is TestBalancerV3StandInPool {
    struct Gyro2CLPPoolImmutableData {
        address[] tokens;
        uint256[] decimalScalingFactors;
        uint256 sqrtAlpha;
        uint256 sqrtBeta;
    }

    address[] private _tokens;

    constructor(address vault_, address[] memory tokens)
        TestBalancerV3StandInPool(vault_, "Balancer v3 Gyro 2-CLP", "B3-2CLP")
    {
        _tokens = tokens;
    }

    function getGyro2CLPPoolImmutableData() external view returns (Gyro2CLPPoolImmutableData memory data) {
        (uint256[] memory factors,) = _vault.getPoolTokenRates(address(this));
        data = Gyro2CLPPoolImmutableData(_tokens, factors, 997e15, 1003e15);
    }
}

/// A ReClamm pool's stand-in: `getReClammPoolDynamicData()` as balancer/reclamm declares it
/// (contracts/interfaces/IReClammPoolExtension.sol at 952d3884bf27f492f7ef9cee3fe11c25c82ad145; no
/// package publishes it), its Vault figures the Vault's and its ReClamm ones constants.
contract TestBalancerV3ReClammPool is TestBalancerV3StandInPool {
    struct ReClammPoolDynamicData {
        uint256[] balancesLiveScaled18;
        uint256[] tokenRates;
        uint256 staticSwapFeePercentage;
        uint256 totalSupply;
        uint256 lastTimestamp;
        uint256[] lastVirtualBalances;
        uint256 dailyPriceShiftExponent;
        uint256 dailyPriceShiftBase;
        uint256 centerednessMargin;
        uint256 currentPriceRatio;
        uint256 currentFourthRootPriceRatio;
        uint256 startFourthRootPriceRatio;
        uint256 endFourthRootPriceRatio;
        uint32 priceRatioUpdateStartTime;
        uint32 priceRatioUpdateEndTime;
        bool isPoolInitialized;
        bool isPoolPaused;
        bool isPoolInRecoveryMode;
    }

    constructor(address vault_) TestBalancerV3StandInPool(vault_, "Balancer v3 ReClamm", "B3-RECLAMM") {}

    function getReClammPoolDynamicData() external view returns (ReClammPoolDynamicData memory data) {
        data.balancesLiveScaled18 = _vault.getCurrentLiveBalances(address(this));
        (, data.tokenRates) = _vault.getPoolTokenRates(address(this));
        data.staticSwapFeePercentage = _vault.getStaticSwapFeePercentage(address(this));
        data.totalSupply = _vault.totalSupply(address(this));
        data.lastVirtualBalances = new uint256[](2);
        data.currentPriceRatio = 4e18;
        data.currentFourthRootPriceRatio = 1414213562373095048;
        data.startFourthRootPriceRatio = data.endFourthRootPriceRatio = data.currentFourthRootPriceRatio;
        data.isPoolInitialized = data.totalSupply != 0;
    }
}
