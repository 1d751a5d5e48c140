// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @title The reads of one Compound v3 input (adapters/compound/positions.py), in one call
/// @notice For each Comet: `baseToken`, `baseTokenPriceFeed`, `baseScale`, `numAssets`,
/// `getUtilization`, the wallet's `balanceOf` and `borrowBalanceOf`; every `getAssetInfo(i)`, the
/// supply and borrow rates at that utilization, the base price; the wallet's
/// `collateralBalanceOf` and `getPrice` of every asset; the market currency's USD feed; token facts
/// where the wallet has a position; for a borrow, the last round of the base feed and of each
/// held collateral's feed (when Comet's prices were last updated). Then, last since it accrues the market, each Comet's
/// `CometRewards.getRewardOwed` and the reward token's facts.
contract CompoundLens is Recorder {
    uint256 private constant MAX_ASSETS = 32;

    constructor(
        address wallet,
        address[] memory comets,
        address[] memory currencyFeeds,
        address rewards,
        address sequencer
    ) {
        Tape memory tape = _tape();
        for (uint256 i = 0; i < comets.length; i++) {
            _comet(tape, comets[i], wallet);
            _feed(tape, currencyFeeds[i]);
        }
        if (sequencer != address(0)) _call(tape, sequencer, abi.encodeWithSelector(0xfeaf968c));
        for (uint256 i = 0; i < comets.length && rewards != address(0); i++) {
            (bool ok, bytes memory ret) =
                _mutatingCall(tape, rewards, abi.encodeWithSelector(0x41e0cad6, comets[i], wallet));
            if (ok && ret.length >= 64) {
                (address token, uint256 owed) = abi.decode(ret, (address, uint256));
                if (owed > 0) _tokenInfo(tape, token);
            }
        }
        _finish(tape);
    }

    function _comet(Tape memory tape, address comet, address wallet) private view {
        address base = address(uint160(_word(tape, comet, abi.encodeWithSelector(0xc55dae63))));
        address baseFeed = address(uint160(_word(tape, comet, abi.encodeWithSelector(0xe7dad6bd))));
        _call(tape, comet, abi.encodeWithSelector(0x44c1e5eb));
        uint256 count = _word(tape, comet, abi.encodeWithSelector(0xa46fe83b));
        uint256 utilization = _word(tape, comet, abi.encodeWithSelector(0x7eb71131));
        bool held = _word(tape, comet, abi.encodeWithSelector(0x70a08231, wallet)) > 0;
        bool borrowing = _word(tape, comet, abi.encodeWithSelector(0x374c49b4, wallet)) > 0;
        held = borrowing || held;
        if (count > MAX_ASSETS) return;
        address[] memory assets = new address[](count);
        address[] memory feeds = new address[](count);
        for (uint256 i = 0; i < count; i++) {
            (bool ok, bytes memory info) = _call(tape, comet, abi.encodeWithSelector(0xc8c7fe6b, uint8(i)));
            if (!ok) continue;
            assets[i] = address(uint160(_at(info, 1)));
            feeds[i] = address(uint160(_at(info, 2)));
        }
        _call(tape, comet, abi.encodeWithSelector(0xd955759d, utilization));
        _call(tape, comet, abi.encodeWithSelector(0x9fa83b5a, utilization));
        _call(tape, comet, abi.encodeWithSelector(0x41976e09, baseFeed));
        if (borrowing) _call(tape, baseFeed, abi.encodeWithSelector(0xfeaf968c));
        for (uint256 i = 0; i < count; i++) {
            if (_word(tape, comet, abi.encodeWithSelector(0x5c2549ee, wallet, assets[i])) > 0) {
                held = true;
                _tokenInfo(tape, assets[i]);
                if (borrowing) _call(tape, feeds[i], abi.encodeWithSelector(0xfeaf968c));
            }
            _call(tape, comet, abi.encodeWithSelector(0x41976e09, feeds[i]));
        }
        if (held) _tokenInfo(tape, base);
    }
}
