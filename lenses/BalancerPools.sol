// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev The v2 Vault's view of a pool's tokens.
interface IBalancerVault {
    function getPoolTokens(bytes32 poolId)
        external
        view
        returns (address[] memory tokens, uint256[] memory balances, uint256 lastChangeBlock);
}

/// @dev A v2 pool's views beyond its ERC-20's (each answered by some pool types only).
interface IBalancerPool {
    function getPoolId() external view returns (bytes32);

    function getActualSupply() external view returns (uint256);

    function getBptIndex() external view returns (uint256);

    function getNormalizedWeights() external view returns (uint256[] memory);

    function getAmplificationParameter() external view returns (uint256 value, bool isUpdating, uint256 precision);
}

/// @dev The v3 Vault's views of a pool (its VaultExtension's, answered through the Vault's fallback).
interface IBalancerV3Vault {
    struct TokenInfo {
        uint8 tokenType;
        address rateProvider;
        bool paysYieldFees;
    }

    function getPoolTokenInfo(address pool)
        external
        view
        returns (
            address[] memory tokens,
            TokenInfo[] memory tokenInfo,
            uint256[] memory balancesRaw,
            uint256[] memory lastBalancesLiveScaled18
        );

    function getCurrentLiveBalances(address pool) external view returns (uint256[] memory balancesLiveScaled18);

    function getPoolTokenRates(address pool)
        external
        view
        returns (uint256[] memory decimalScalingFactors, uint256[] memory tokenRates);

    function totalSupply(address token) external view returns (uint256);
}

/// @dev A v3 liquidity bootstrapping pool's own views (v3-interfaces 1.0.0, pool-weighted/ILBPool.sol).
interface IBalancerLBPool {
    struct LBPoolImmutableData {
        address[] tokens;
        uint256[] decimalScalingFactors;
        uint256 startTime;
        uint256 endTime;
        uint256 projectTokenIndex;
        uint256 reserveTokenIndex;
        bool isProjectTokenSwapInBlocked;
        uint256[] startWeights;
        uint256[] endWeights;
        uint256 reserveTokenVirtualBalance;
        address migrationRouter;
        uint256 lockDurationAfterMigration;
        uint256 bptPercentageToMigrate;
        uint256 migrationWeightProjectToken;
        uint256 migrationWeightReserveToken;
    }

    struct LBPoolDynamicData {
        uint256[] balancesLiveScaled18;
        uint256 staticSwapFeePercentage;
        uint256 totalSupply;
        bool isPoolInitialized;
        bool isPoolPaused;
        bool isPoolInRecoveryMode;
        bool isSwapEnabled;
        uint256[] normalizedWeights;
    }

    function getLBPoolImmutableData() external view returns (LBPoolImmutableData memory data);

    function getLBPoolDynamicData() external view returns (LBPoolDynamicData memory data);
}

/// @dev A v3 fixed-price liquidity bootstrapping pool's own views (v3-interfaces 1.0.0,
/// pool-weighted/IFixedPriceLBPool.sol); it is no WeightedPool.
interface IBalancerFixedPriceLBPool {
    struct FixedPriceLBPoolImmutableData {
        address[] tokens;
        uint256[] decimalScalingFactors;
        uint256 startTime;
        uint256 endTime;
        uint256 projectTokenIndex;
        uint256 reserveTokenIndex;
        uint256 projectTokenRate;
    }

    struct FixedPriceLBPoolDynamicData {
        uint256[] balancesLiveScaled18;
        uint256 staticSwapFeePercentage;
        uint256 totalSupply;
        bool isPoolInitialized;
        bool isPoolPaused;
        bool isPoolInRecoveryMode;
        bool isSwapEnabled;
    }

    function getFixedPriceLBPoolImmutableData() external view returns (FixedPriceLBPoolImmutableData memory data);

    function getFixedPriceLBPoolDynamicData() external view returns (FixedPriceLBPoolDynamicData memory data);
}

/// @dev A Gyro E-CLP pool's parameters (v3-interfaces 1.0.0, pool-gyro/IGyroECLPPool.sol): what
/// tells the pool's type, its answer not read.
interface IBalancerGyroECLPPool {
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

    function getECLPParams() external view returns (EclpParams memory params, DerivedEclpParams memory d);
}

/// @dev A Gyro 2-CLP pool's immutable data (v3-interfaces 1.0.0, pool-gyro/IGyro2CLPPool.sol): what
/// tells the pool's type, its answer not read.
interface IBalancerGyro2CLPPool {
    struct Gyro2CLPPoolImmutableData {
        address[] tokens;
        uint256[] decimalScalingFactors;
        uint256 sqrtAlpha;
        uint256 sqrtBeta;
    }

    function getGyro2CLPPoolImmutableData() external view returns (Gyro2CLPPoolImmutableData memory data);
}

/// @dev A ReClamm pool's dynamic data (balancer/reclamm's contracts/interfaces/IReClammPoolExtension.sol;
/// no package publishes it): what tells the pool's type, its answer not read.
interface IBalancerReClammPool {
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

    function getReClammPoolDynamicData() external view returns (ReClammPoolDynamicData memory data);
}

/// @title A Balancer v2 or v3 pool's reads (adapters/balancer/shares.py), shared by BalancerLens and AuraLens
abstract contract BalancerPools is Recorder {
    /// @dev The pool's token facts, the Vault's `getPoolTokens(poolId)`, the pool's supplies and
    /// type views, and each token's facts (the pool's own BPT left out).
    function _pool(Tape memory tape, address vault, address pool, bytes32 poolId) internal view {
        _tokenInfo(tape, pool);
        (bool ok, bytes memory ret) = _call(tape, vault, abi.encodeCall(IBalancerVault.getPoolTokens, (poolId)));
        _call(tape, pool, abi.encodeCall(IBalancerPool.getActualSupply, ()));
        _call(tape, pool, abi.encodeCall(IERC20.totalSupply, ()));
        _call(tape, pool, abi.encodeCall(IBalancerPool.getBptIndex, ()));
        _call(tape, pool, abi.encodeCall(IBalancerPool.getNormalizedWeights, ()));
        _call(tape, pool, abi.encodeCall(IBalancerPool.getAmplificationParameter, ()));
        if (!ok || ret.length < 96) return;
        (address[] memory tokens,,) = abi.decode(ret, (address[], uint256[], uint256));
        for (uint256 i = 0; i < tokens.length; i++) {
            if (tokens[i] != pool) _tokenInfo(tape, tokens[i]);
        }
    }

    /// @dev A pool known by its address alone (a gauge's `lp_token`, an Aura pool's `lptoken`): its
    /// `getPoolId()`, then its v2 reads as above; a v3 pool's reads where it has none and the chain
    /// has the v3 Vault.
    function _poolByAddress(Tape memory tape, address vault, address v3Vault, address pool) internal view {
        (bool ok, bytes memory id) = _call(tape, pool, abi.encodeCall(IBalancerPool.getPoolId, ()));
        if (ok && id.length >= 32) _pool(tape, vault, pool, abi.decode(id, (bytes32)));
        else if (v3Vault != address(0)) _poolV3(tape, v3Vault, pool);
    }

    /// @dev A v3 pool's reads: its token facts, the v3 Vault's views of it, its type views
    /// (`_types`) and each token's facts.
    function _poolV3(Tape memory tape, address v3Vault, address pool) internal view {
        _tokenInfo(tape, pool);
        (bool ok, bytes memory ret) = _call(tape, v3Vault, abi.encodeCall(IBalancerV3Vault.getPoolTokenInfo, (pool)));
        _call(tape, v3Vault, abi.encodeCall(IBalancerV3Vault.getCurrentLiveBalances, (pool)));
        _call(tape, v3Vault, abi.encodeCall(IBalancerV3Vault.getPoolTokenRates, (pool)));
        _call(tape, v3Vault, abi.encodeCall(IBalancerV3Vault.totalSupply, (pool)));
        _types(tape, pool);
        if (!ok || ret.length < 128) return;
        (address[] memory tokens,,,) =
            abi.decode(ret, (address[], IBalancerV3Vault.TokenInfo[], uint256[], uint256[]));
        for (uint256 i = 0; i < tokens.length; i++) {
            _tokenInfo(tape, tokens[i]);
        }
    }

    /// @dev A v3 pool's type views, as shares.py `v3_pool` asks them: the weighted and stable pools'
    /// and an LBP's immutable data; its dynamic data where it is an LBP; where it is none of these,
    /// a fixed-price LBP's immutable data and the one view each of Gyro's E-CLP and 2-CLP and
    /// ReClamm's pools answers, by which the adapter names a type it does not read; then a
    /// fixed-price LBP's dynamic data where it is one.
    function _types(Tape memory tape, address pool) private view {
        (bool weighted,) = _call(tape, pool, abi.encodeCall(IBalancerPool.getNormalizedWeights, ()));
        (bool stable,) = _call(tape, pool, abi.encodeCall(IBalancerPool.getAmplificationParameter, ()));
        (bool lbp,) = _call(tape, pool, abi.encodeCall(IBalancerLBPool.getLBPoolImmutableData, ()));
        if (lbp) {
            _call(tape, pool, abi.encodeCall(IBalancerLBPool.getLBPoolDynamicData, ()));
        } else if (!weighted && !stable) {
            (bool fixedPrice,) =
                _call(tape, pool, abi.encodeCall(IBalancerFixedPriceLBPool.getFixedPriceLBPoolImmutableData, ()));
            _call(tape, pool, abi.encodeCall(IBalancerGyroECLPPool.getECLPParams, ()));
            _call(tape, pool, abi.encodeCall(IBalancerGyro2CLPPool.getGyro2CLPPoolImmutableData, ()));
            _call(tape, pool, abi.encodeCall(IBalancerReClammPool.getReClammPoolDynamicData, ()));
            if (fixedPrice) {
                _call(tape, pool, abi.encodeCall(IBalancerFixedPriceLBPool.getFixedPriceLBPoolDynamicData, ()));
            }
        }
    }
}
