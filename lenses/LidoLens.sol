// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @title The reads of one Lido input (adapters/lido/positions.py), in one call
/// @notice The wallet's stETH `balanceOf` and `sharesOf`, its wstETH `balanceOf`; where it holds
/// either: stETH's token facts and `getPooledEthByShares(1e18)`, and for wstETH its token facts
/// and `getStETHByWstETH` of its balance. Then the withdrawal queue's `getWithdrawalRequests`
/// and, for up to `maxRequests` of them, `getWithdrawalStatus`, `getLastCheckpointIndex`,
/// `findCheckpointHints` of the ids sorted and `getClaimableEther`. Then the USD feeds and the
/// sequencer uptime feed, where anything is held.
contract LidoLens is Recorder {
    constructor(
        address wallet,
        address steth,
        address wsteth,
        address queue,
        uint256 maxRequests,
        address[] memory feeds,
        address sequencer
    ) {
        Tape memory tape = _tape();
        bool held = _staked(tape, steth, wsteth, wallet);
        held = _requests(tape, queue, wallet, maxRequests) || held;
        if (held) {
            for (uint256 i = 0; i < feeds.length; i++) {
                _feed(tape, feeds[i]);
            }
            if (sequencer != address(0)) _call(tape, sequencer, abi.encodeWithSelector(0xfeaf968c));
        }
        _finish(tape);
    }

    function _staked(Tape memory tape, address steth, address wsteth, address wallet) private view returns (bool) {
        uint256 balance = _word(tape, steth, abi.encodeWithSelector(0x70a08231, wallet));
        _call(tape, steth, abi.encodeWithSelector(0xf5eb42dc, wallet));
        uint256 wrapped = _word(tape, wsteth, abi.encodeWithSelector(0x70a08231, wallet));
        if (balance == 0 && wrapped == 0) return false;
        _tokenInfo(tape, steth);
        _call(tape, steth, abi.encodeWithSelector(0x7a28fb88, uint256(1e18)));
        if (wrapped != 0) {
            _tokenInfo(tape, wsteth);
            _call(tape, wsteth, abi.encodeWithSelector(0xbb2952fc, wrapped));
        }
        return true;
    }

    function _requests(Tape memory tape, address queue, address wallet, uint256 maxRequests)
        private
        view
        returns (bool)
    {
        (bool ok, bytes memory list) = _call(tape, queue, abi.encodeWithSelector(0x7d031b65, wallet));
        uint256 n = _at(list, 1);
        if (!ok || n == 0) return false;
        if (_at(list, 0) != 32 || n > maxRequests || list.length < 64 + 32 * n) return true;
        uint256[] memory ids = abi.decode(list, (uint256[]));
        _call(tape, queue, abi.encodeWithSelector(0xb8c4b85a, ids));
        uint256 last = _word(tape, queue, abi.encodeWithSelector(0x526eae3e));
        uint256[] memory sorted = _sorted(ids);
        (bool hinted, bytes memory hints) =
            _call(tape, queue, abi.encodeWithSelector(0x62abe3fa, sorted, uint256(1), last));
        if (hinted && _at(hints, 0) == 32 && _at(hints, 1) == n && hints.length >= 64 + 32 * n) {
            _call(tape, queue, abi.encodeWithSelector(0xc97912d8, sorted, abi.decode(hints, (uint256[]))));
        }
        return true;
    }

    /// @dev A sorted copy (insertion sort: a wallet holds few requests).
    function _sorted(uint256[] memory ids) private pure returns (uint256[] memory sorted) {
        sorted = new uint256[](ids.length);
        for (uint256 i = 0; i < ids.length; i++) {
            uint256 j = i;
            for (; j > 0 && sorted[j - 1] > ids[i]; j--) {
                sorted[j] = sorted[j - 1];
            }
            sorted[j] = ids[i];
        }
    }
}
