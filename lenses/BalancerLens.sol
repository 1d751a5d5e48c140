// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "BalancerPools.sol";

/// @dev A LiquidityGaugeV5's views (`claimable_tokens` is not a view: it checkpoints first).
interface IBalancerGauge {
    function lp_token() external view returns (address);

    function reward_count() external view returns (uint256);

    function reward_tokens(uint256 i) external view returns (address);

    function claimable_reward(address user, address token) external view returns (uint256);

    function claimable_tokens(address user) external returns (uint256);
}

/// @title The reads of one Balancer input (adapters/balancer/positions.py), in one call
/// @notice For each pool: the wallet's `balanceOf`; where it holds some, the pool's token facts,
/// the Vault's `getPoolTokens(poolId)`, the pool's supplies and type views and each token's facts.
/// For each v3 pool likewise: the v3 Vault's `getPoolTokenInfo`, `getCurrentLiveBalances`,
/// `getPoolTokenRates` and `totalSupply(pool)`, the pool's type views and each token's facts.
/// For each gauge: the wallet's `balanceOf`; where it holds some, `lp_token()`, that pool's reads
/// as above unless they are on the tape already (a pool the wallet holds BPT of too: a tape keeps
/// each read once), (its poolId by `getPoolId()`; a v3 pool's reads where it has none), `reward_count()`, each `reward_tokens(i)` (up to 8) with
/// `claimable_reward` and the token's facts. Then the USD feeds of the tokens read (`pricing`: the
/// chain's tokens with a feed, BAL's key zero, and their feeds) and the sequencer uptime feed, and
/// last each held gauge's `claimable_tokens`, whose writes stay inside the call.
contract BalancerLens is BalancerPools {
    constructor(
        address wallet,
        address vault,
        address[] memory pools,
        bytes32[] memory poolIds,
        address[] memory gauges,
        address[][2] memory pricing,
        address sequencer,
        address v3Vault,
        address[] memory v3Pools
    ) {
        Tape memory tape = _tape();
        address[] memory read = new address[](pools.length + v3Pools.length);
        for (uint256 i = 0; i < pools.length; i++) {
            if (_word(tape, pools[i], abi.encodeCall(IERC20.balanceOf, (wallet))) != 0) {
                _pool(tape, vault, pools[i], poolIds[i]);
                read[i] = pools[i];
            }
        }
        for (uint256 i = 0; i < v3Pools.length; i++) {
            if (_word(tape, v3Pools[i], abi.encodeCall(IERC20.balanceOf, (wallet))) != 0) {
                _poolV3(tape, v3Vault, v3Pools[i]);
                read[pools.length + i] = v3Pools[i];
            }
        }
        bool[] memory staked = _gauges(tape, [vault, v3Vault], gauges, wallet, read);
        _feedsOfRead(tape, pricing[0], pricing[1]);
        if (sequencer != address(0)) _call(tape, sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
        for (uint256 i = 0; i < gauges.length; i++) {
            if (staked[i]) _mutatingCall(tape, gauges[i], abi.encodeCall(IBalancerGauge.claimable_tokens, (wallet)));
        }
        _finish(tape);
    }

    /// @dev `vaults`: the v2 and v3 Vaults; `read`: the pools read already.
    function _gauges(
        Tape memory tape,
        address[2] memory vaults,
        address[] memory gauges,
        address wallet,
        address[] memory read
    ) private view returns (bool[] memory staked) {
        staked = new bool[](gauges.length);
        for (uint256 i = 0; i < gauges.length; i++) {
            staked[i] = _word(tape, gauges[i], abi.encodeCall(IERC20.balanceOf, (wallet))) != 0;
            if (staked[i]) _gauge(tape, vaults, gauges[i], wallet, read);
        }
    }

    function _gauge(Tape memory tape, address[2] memory vaults, address gauge, address wallet, address[] memory read)
        private
        view
    {
        address pool = address(uint160(_word(tape, gauge, abi.encodeCall(IBalancerGauge.lp_token, ()))));
        bool seen = false;
        for (uint256 i = 0; i < read.length && !seen; i++) {
            seen = read[i] == pool;
        }
        if (!seen) _poolByAddress(tape, vaults[0], vaults[1], pool);
        uint256 count = _word(tape, gauge, abi.encodeCall(IBalancerGauge.reward_count, ()));
        for (uint256 i = 0; i < count && i < 8; i++) {
            address token = address(uint160(_word(tape, gauge, abi.encodeCall(IBalancerGauge.reward_tokens, (i)))));
            _call(tape, gauge, abi.encodeCall(IBalancerGauge.claimable_reward, (wallet, token)));
            _tokenInfo(tape, token);
        }
    }
}
