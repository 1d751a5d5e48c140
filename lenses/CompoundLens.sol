// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev A Comet (Compound v3 market).
interface IComet {
    struct AssetInfo {
        uint8 offset;
        address asset;
        address priceFeed;
        uint64 scale;
        uint64 borrowCollateralFactor;
        uint64 liquidateCollateralFactor;
        uint64 liquidationFactor;
        uint128 supplyCap;
    }

    function baseToken() external view returns (address);

    function baseTokenPriceFeed() external view returns (address);

    function baseScale() external view returns (uint256);

    function numAssets() external view returns (uint8);

    function getUtilization() external view returns (uint256);

    function balanceOf(address owner) external view returns (uint256);

    function borrowBalanceOf(address account) external view returns (uint256);

    function getAssetInfo(uint8 i) external view returns (AssetInfo memory);

    function getSupplyRate(uint256 utilization) external view returns (uint64);

    function getBorrowRate(uint256 utilization) external view returns (uint64);

    function getPrice(address priceFeed) external view returns (uint256);

    function collateralBalanceOf(address account, address asset) external view returns (uint128);
}

/// @dev CometRewards: what an account may claim (not a view: it accrues the Comet first).
interface ICometRewards {
    struct RewardOwed {
        address token;
        uint256 owed;
    }

    function getRewardOwed(address comet, address account) external returns (RewardOwed memory);
}

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
        if (sequencer != address(0)) _call(tape, sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
        for (uint256 i = 0; i < comets.length && rewards != address(0); i++) {
            (bool ok, bytes memory ret) =
                _mutatingCall(tape, rewards, abi.encodeCall(ICometRewards.getRewardOwed, (comets[i], wallet)));
            if (ok && ret.length >= 64) {
                (address token, uint256 owed) = abi.decode(ret, (address, uint256));
                if (owed > 0) _tokenInfo(tape, token);
            }
        }
        _finish(tape);
    }

    function _comet(Tape memory tape, address comet, address wallet) private view {
        address base = address(uint160(_word(tape, comet, abi.encodeCall(IComet.baseToken, ()))));
        address baseFeed = address(uint160(_word(tape, comet, abi.encodeCall(IComet.baseTokenPriceFeed, ()))));
        _call(tape, comet, abi.encodeCall(IComet.baseScale, ()));
        uint256 count = _word(tape, comet, abi.encodeCall(IComet.numAssets, ()));
        uint256 utilization = _word(tape, comet, abi.encodeCall(IComet.getUtilization, ()));
        bool held = _word(tape, comet, abi.encodeCall(IComet.balanceOf, (wallet))) > 0;
        bool borrowing = _word(tape, comet, abi.encodeCall(IComet.borrowBalanceOf, (wallet))) > 0;
        held = borrowing || held;
        if (count > MAX_ASSETS) return;
        address[] memory assets = new address[](count);
        address[] memory feeds = new address[](count);
        for (uint256 i = 0; i < count; i++) {
            (bool ok, bytes memory info) = _call(tape, comet, abi.encodeCall(IComet.getAssetInfo, (uint8(i))));
            if (!ok) continue;
            assets[i] = address(uint160(_at(info, 1)));
            feeds[i] = address(uint160(_at(info, 2)));
        }
        _call(tape, comet, abi.encodeCall(IComet.getSupplyRate, (utilization)));
        _call(tape, comet, abi.encodeCall(IComet.getBorrowRate, (utilization)));
        _call(tape, comet, abi.encodeCall(IComet.getPrice, (baseFeed)));
        if (borrowing) _call(tape, baseFeed, abi.encodeCall(IAggregator.latestRoundData, ()));
        for (uint256 i = 0; i < count; i++) {
            if (_word(tape, comet, abi.encodeCall(IComet.collateralBalanceOf, (wallet, assets[i]))) > 0) {
                held = true;
                _tokenInfo(tape, assets[i]);
                if (borrowing) _call(tape, feeds[i], abi.encodeCall(IAggregator.latestRoundData, ()));
            }
            _call(tape, comet, abi.encodeCall(IComet.getPrice, (feeds[i])));
        }
        if (held) _tokenInfo(tape, base);
    }
}
