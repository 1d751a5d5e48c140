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

    /// @dev A v3 pool's reads: its token facts, the v3 Vault's views of it, its type views and
    /// each token's facts.
    function _poolV3(Tape memory tape, address v3Vault, address pool) internal view {
        _tokenInfo(tape, pool);
        (bool ok, bytes memory ret) = _call(tape, v3Vault, abi.encodeCall(IBalancerV3Vault.getPoolTokenInfo, (pool)));
        _call(tape, v3Vault, abi.encodeCall(IBalancerV3Vault.getCurrentLiveBalances, (pool)));
        _call(tape, v3Vault, abi.encodeCall(IBalancerV3Vault.getPoolTokenRates, (pool)));
        _call(tape, v3Vault, abi.encodeCall(IBalancerV3Vault.totalSupply, (pool)));
        _call(tape, pool, abi.encodeCall(IBalancerPool.getNormalizedWeights, ()));
        _call(tape, pool, abi.encodeCall(IBalancerPool.getAmplificationParameter, ()));
        if (!ok || ret.length < 128) return;
        (address[] memory tokens,,,) =
            abi.decode(ret, (address[], IBalancerV3Vault.TokenInfo[], uint256[], uint256[]));
        for (uint256 i = 0; i < tokens.length; i++) {
            _tokenInfo(tape, tokens[i]);
        }
    }
}
