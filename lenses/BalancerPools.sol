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

/// @title A Balancer v2 pool's reads (adapters/balancer/shares.py), shared by BalancerLens and AuraLens
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
    /// `getPoolId()`, then its reads as above.
    function _poolByAddress(Tape memory tape, address vault, address pool) internal view {
        (bool ok, bytes memory id) = _call(tape, pool, abi.encodeCall(IBalancerPool.getPoolId, ()));
        if (ok && id.length >= 32) _pool(tape, vault, pool, abi.decode(id, (bytes32)));
    }
}
