// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev stETH's views beyond its ERC-20's.
interface IStETH {
    function sharesOf(address _account) external view returns (uint256);

    function getPooledEthByShares(uint256 _sharesAmount) external view returns (uint256);
}

/// @dev wstETH's view beyond its ERC-20's.
interface IWstETH {
    function getStETHByWstETH(uint256 _wstETHAmount) external view returns (uint256);
}

/// @dev The withdrawal queue (WithdrawalQueueERC721).
interface IWithdrawalQueue {
    struct WithdrawalRequestStatus {
        uint256 amountOfStETH;
        uint256 amountOfShares;
        address owner;
        uint256 timestamp;
        bool isFinalized;
        bool isClaimed;
    }

    function getWithdrawalRequests(address _owner) external view returns (uint256[] memory requestsIds);

    function getWithdrawalStatus(uint256[] memory _requestIds)
        external
        view
        returns (WithdrawalRequestStatus[] memory statuses);

    function getLastCheckpointIndex() external view returns (uint256);

    function findCheckpointHints(uint256[] memory _requestIds, uint256 _firstIndex, uint256 _lastIndex)
        external
        view
        returns (uint256[] memory hintIds);

    function getClaimableEther(uint256[] memory _requestIds, uint256[] memory _hints)
        external
        view
        returns (uint256[] memory claimableEthValues);
}

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
            if (sequencer != address(0)) _call(tape, sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
        }
        _finish(tape);
    }

    function _staked(Tape memory tape, address steth, address wsteth, address wallet) private view returns (bool) {
        uint256 balance = _word(tape, steth, abi.encodeCall(IERC20.balanceOf, (wallet)));
        _call(tape, steth, abi.encodeCall(IStETH.sharesOf, (wallet)));
        uint256 wrapped = _word(tape, wsteth, abi.encodeCall(IERC20.balanceOf, (wallet)));
        if (balance == 0 && wrapped == 0) return false;
        _tokenInfo(tape, steth);
        _call(tape, steth, abi.encodeCall(IStETH.getPooledEthByShares, (1e18)));
        if (wrapped != 0) {
            _tokenInfo(tape, wsteth);
            _call(tape, wsteth, abi.encodeCall(IWstETH.getStETHByWstETH, (wrapped)));
        }
        return true;
    }

    function _requests(Tape memory tape, address queue, address wallet, uint256 maxRequests)
        private
        view
        returns (bool)
    {
        (bool ok, bytes memory list) =
            _call(tape, queue, abi.encodeCall(IWithdrawalQueue.getWithdrawalRequests, (wallet)));
        uint256 n = _at(list, 1);
        if (!ok || n == 0) return false;
        if (_at(list, 0) != 32 || n > maxRequests || list.length < 64 + 32 * n) return true;
        uint256[] memory ids = abi.decode(list, (uint256[]));
        _call(tape, queue, abi.encodeCall(IWithdrawalQueue.getWithdrawalStatus, (ids)));
        uint256 last = _word(tape, queue, abi.encodeCall(IWithdrawalQueue.getLastCheckpointIndex, ()));
        uint256[] memory sorted = _sorted(ids);
        (bool hinted, bytes memory hints) =
            _call(tape, queue, abi.encodeCall(IWithdrawalQueue.findCheckpointHints, (sorted, 1, last)));
        if (hinted && _at(hints, 0) == 32 && _at(hints, 1) == n && hints.length >= 64 + 32 * n) {
            uint256[] memory hintIds = abi.decode(hints, (uint256[]));
            _call(tape, queue, abi.encodeCall(IWithdrawalQueue.getClaimableEther, (sorted, hintIds)));
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
