// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Prices.sol";

/// @dev EigenLayer's StrategyManager: a staker's token deposits.
interface IEigenStrategyManager {
    function getDeposits(address staker) external view returns (address[] memory, uint256[] memory);
}

/// @dev EigenLayer's DelegationManager (the slashing release's views).
interface IEigenDelegationManager {
    struct Withdrawal {
        address staker;
        address delegatedTo;
        address withdrawer;
        uint256 nonce;
        uint32 startBlock;
        address[] strategies;
        uint256[] scaledShares;
    }

    function delegatedTo(address staker) external view returns (address);

    function getWithdrawableShares(address staker, address[] memory strategies)
        external
        view
        returns (uint256[] memory withdrawableShares, uint256[] memory depositShares);

    function getQueuedWithdrawals(address staker)
        external
        view
        returns (Withdrawal[] memory withdrawals, uint256[][] memory shares);

    function minWithdrawalDelayBlocks() external view returns (uint32);
}

/// @dev EigenLayer's EigenPodManager: pods and their beacon chain ETH shares.
interface IEigenPodManager {
    function ownerToPod(address podOwner) external view returns (address);

    function podOwnerDepositShares(address podOwner) external view returns (int256);
}

/// @dev An EigenPod's native ETH accounted for by a checkpoint.
interface IEigenPod {
    function withdrawableRestakedExecutionLayerGwei() external view returns (uint64);
}

/// @dev An EigenLayer strategy (StrategyBase and its kind).
interface IEigenStrategy {
    function underlyingToken() external view returns (address);

    function sharesToUnderlyingView(uint256 amountShares) external view returns (uint256);
}

/// @title The reads of one EigenLayer input (adapters/eigenlayer/positions.py), in one call
/// @notice The StrategyManager's `getDeposits`, the DelegationManager's `delegatedTo`, the
/// EigenPodManager's `ownerToPod` and `podOwnerDepositShares`; the DelegationManager's
/// `getWithdrawableShares` of the deposits' strategies (and the beacon chain ETH strategy where the
/// wallet has a pod); for each token strategy its `underlyingToken`, the token's facts and USD price
/// (its feed from `priced`/`feeds`, else its other sources in `market`: lenses/Prices.sol) and
/// `sharesToUnderlyingView` of the withdrawable shares; the pod's `withdrawableRestakedExecutionLayerGwei`; the DelegationManager's `getQueuedWithdrawals` and, where
/// any is queued, `minWithdrawalDelayBlocks` and each withdrawal's strategies as above with its
/// shares; ether's feed where beacon chain ETH is held or queued; the sequencer uptime feed.
contract EigenlayerLens is Prices {
    address private constant BEACON_CHAIN_ETH = 0xbeaC0eeEeeeeEEeEeEEEEeeEEeEeeeEeeEEBEaC0;
    address private constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    struct Context {
        Tape tape;
        address wallet;
        address delegation;
        address[] priced;
        address[] feeds;
        address[] market;
        bool eth;
    }

    constructor(
        address wallet,
        address strategyManager,
        address delegationManager,
        address podManager,
        address[] memory priced,
        address[] memory feeds,
        address[] memory market,
        address sequencer
    ) {
        Context memory ctx = Context(_tape(), wallet, delegationManager, priced, feeds, market, false);
        address[] memory strategies;
        (bool ok, bytes memory ret) =
            _call(ctx.tape, strategyManager, abi.encodeCall(IEigenStrategyManager.getDeposits, (wallet)));
        if (ok && ret.length >= 128) (strategies,) = abi.decode(ret, (address[], uint256[]));
        _call(ctx.tape, delegationManager, abi.encodeCall(IEigenDelegationManager.delegatedTo, (wallet)));
        address pod = address(uint160(_word(ctx.tape, podManager, abi.encodeCall(IEigenPodManager.ownerToPod, (wallet)))));
        _call(ctx.tape, podManager, abi.encodeCall(IEigenPodManager.podOwnerDepositShares, (wallet)));
        _restaked(ctx, strategies, pod);
        _queued(ctx);
        if (ctx.eth) _feed(ctx.tape, _lookup(NATIVE, priced, feeds));
        if (sequencer != address(0)) _call(ctx.tape, sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
        _finish(ctx.tape);
    }

    function _restaked(Context memory ctx, address[] memory strategies, address pod) private view {
        uint256 n = strategies.length;
        address[] memory asked = new address[](pod == address(0) ? n : n + 1);
        for (uint256 i = 0; i < n; i++) {
            asked[i] = strategies[i];
        }
        if (pod != address(0)) {
            asked[n] = BEACON_CHAIN_ETH;
            ctx.eth = true;
            _call(ctx.tape, pod, abi.encodeCall(IEigenPod.withdrawableRestakedExecutionLayerGwei, ()));
        }
        if (asked.length == 0) return;
        (bool ok, bytes memory ret) = _call(
            ctx.tape, ctx.delegation, abi.encodeCall(IEigenDelegationManager.getWithdrawableShares, (ctx.wallet, asked))
        );
        if (!ok || ret.length < 128) return;
        (uint256[] memory withdrawable,) = abi.decode(ret, (uint256[], uint256[]));
        for (uint256 i = 0; i < n && i < withdrawable.length; i++) {
            _strategy(ctx, strategies[i], withdrawable[i]);
        }
    }

    function _queued(Context memory ctx) private view {
        (bool ok, bytes memory ret) =
            _call(ctx.tape, ctx.delegation, abi.encodeCall(IEigenDelegationManager.getQueuedWithdrawals, (ctx.wallet)));
        if (!ok || _at(ret, 2) == 0) return;
        (IEigenDelegationManager.Withdrawal[] memory withdrawals, uint256[][] memory shares) =
            abi.decode(ret, (IEigenDelegationManager.Withdrawal[], uint256[][]));
        _call(ctx.tape, ctx.delegation, abi.encodeCall(IEigenDelegationManager.minWithdrawalDelayBlocks, ()));
        for (uint256 i = 0; i < withdrawals.length && i < shares.length; i++) {
            address[] memory strategies = withdrawals[i].strategies;
            for (uint256 j = 0; j < strategies.length && j < shares[i].length; j++) {
                _strategy(ctx, strategies[j], shares[i][j]);
            }
        }
    }

    /// @dev A token strategy's underlying token, its facts and feed, and what `shares` are worth in
    /// it; beacon chain ETH is ether, one share a wei.
    function _strategy(Context memory ctx, address strategy, uint256 shares) private view {
        if (strategy == BEACON_CHAIN_ETH) {
            ctx.eth = true;
            return;
        }
        address token =
            address(uint160(_word(ctx.tape, strategy, abi.encodeCall(IEigenStrategy.underlyingToken, ()))));
        _call(ctx.tape, strategy, abi.encodeCall(IEigenStrategy.sharesToUnderlyingView, (shares)));
        if (token == address(0)) return;
        _tokenInfo(ctx.tape, token);
        _price(ctx.tape, token, ctx.priced, ctx.feeds, ctx.market);
    }
}
