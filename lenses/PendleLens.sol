// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev A standardized yield token (SY).
interface IStandardizedYield {
    function exchangeRate() external view returns (uint256 res);

    /// @dev assetType is the enum AssetType (TOKEN, LIQUIDITY), a uint8 in the ABI.
    function assetInfo() external view returns (uint8 assetType, address assetAddress, uint8 assetDecimals);
}

/// @dev A yield token (YT): its interest and reward views, and the claim.
interface IPYieldToken {
    function userInterest(address user) external view returns (uint128 index, uint128 accrued);

    function pyIndexStored() external view returns (uint256);

    function doCacheIndexSameBlock() external view returns (bool);

    function pyIndexLastUpdatedBlock() external view returns (uint128);

    function getRewardTokens() external view returns (address[] memory);

    function redeemDueInterestAndRewards(address user, bool redeemInterest, bool redeemRewards)
        external
        returns (uint256 interestOut, uint256[] memory rewardsOut);
}

/// @dev A market's state (its LP token's supply is an ERC-20's).
interface IPMarket {
    function _storage()
        external
        view
        returns (
            int128 totalPt,
            int128 totalSy,
            uint96 lastLnImpliedRate,
            uint16 observationIndex,
            uint16 observationCardinality,
            uint16 observationCardinalityNext
        );
}

/// @title The reads of one Pendle input (adapters/pendle/positions.py), in one call
/// @notice Given the PTs, YTs and LPs the event index says the wallet may hold (each with its
/// SY, YT and the market that prices it) and every SY of the catalog: the wallet's `balanceOf`
/// in each (and a YT's `userInterest` where it holds none); for each position its market state
/// (the SY's `exchangeRate`, the YT's index views, the market's `_storage` and `totalSupply`),
/// the SY's asset with its token facts and USD feed, and the token's own facts; for a YT its
/// reward tokens (facts and feeds). Last, since it changes state, each YT's
/// `redeemDueInterestAndRewards` as a claim would run it. An SY's balance is swept by the
/// service itself, so the lens checks it without recording it.
contract PendleLens is Recorder {
    uint256 private constant MAX_REWARD_TOKENS = 16;

    struct Context {
        Tape tape;
        address wallet;
        address[] priced;
        address[] feeds;
    }

    constructor(
        address wallet,
        address[] memory tokens,
        address[] memory sys,
        address[] memory yts,
        address[] memory markets,
        address[] memory catalogSys,
        address[] memory priced,
        address[] memory feeds,
        address sequencer
    ) {
        Context memory ctx = Context(_tape(), wallet, priced, feeds);
        bool[] memory claims = new bool[](tokens.length);
        for (uint256 i = 0; i < tokens.length; i++) {
            claims[i] = _position(ctx, tokens[i], sys[i], yts[i], markets[i]);
        }
        for (uint256 i = 0; i < catalogSys.length; i++) {
            (bool ok, bytes memory balance) = catalogSys[i].staticcall(abi.encodeCall(IERC20.balanceOf, (wallet)));
            if (ok && _at(balance, 0) > 0) {
                _tokenInfo(ctx.tape, catalogSys[i]);
                _asset(ctx, catalogSys[i]);
                _call(ctx.tape, catalogSys[i], abi.encodeCall(IStandardizedYield.exchangeRate, ()));
            }
        }
        if (sequencer != address(0)) _call(ctx.tape, sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
        for (uint256 i = 0; i < tokens.length; i++) {
            if (!claims[i]) continue;
            bytes memory claim = abi.encodeCall(IPYieldToken.redeemDueInterestAndRewards, (wallet, true, true));
            _mutatingCall(ctx.tape, tokens[i], claim);
        }
        _finish(ctx.tape);
    }

    /// @dev A PT, YT or LP: whether the wallet has a position, and then its reads; true for a
    /// YT, whose due interest is claimed last.
    function _position(Context memory ctx, address token, address sy, address yt, address market)
        private
        view
        returns (bool)
    {
        bool isYt = token == yt;
        uint256 balance = _word(ctx.tape, token, abi.encodeCall(IERC20.balanceOf, (ctx.wallet)));
        if (balance == 0 && isYt) {
            balance = _wordAt(ctx.tape, yt, abi.encodeCall(IPYieldToken.userInterest, (ctx.wallet)), 1);
        }
        if (balance == 0) return false;
        _call(ctx.tape, sy, abi.encodeCall(IStandardizedYield.exchangeRate, ()));
        _call(ctx.tape, yt, abi.encodeCall(IPYieldToken.pyIndexStored, ()));
        _call(ctx.tape, yt, abi.encodeCall(IPYieldToken.doCacheIndexSameBlock, ()));
        _call(ctx.tape, yt, abi.encodeCall(IPYieldToken.pyIndexLastUpdatedBlock, ()));
        if (market != address(0)) {
            _call(ctx.tape, market, abi.encodeCall(IPMarket._storage, ()));
            _call(ctx.tape, market, abi.encodeCall(IERC20.totalSupply, ()));
        }
        _asset(ctx, sy);
        _tokenInfo(ctx.tape, token);
        if (isYt) _rewards(ctx, yt);
        return isYt;
    }

    /// @dev A YT's reward tokens, with their facts and USD feeds.
    function _rewards(Context memory ctx, address yt) private view {
        (bool ok, bytes memory rewards) = _call(ctx.tape, yt, abi.encodeCall(IPYieldToken.getRewardTokens, ()));
        if (!ok || rewards.length < 64 || _at(rewards, 1) > MAX_REWARD_TOKENS) return;
        address[] memory list = abi.decode(rewards, (address[]));
        for (uint256 j = 0; j < list.length; j++) {
            _tokenInfo(ctx.tape, list[j]);
            _feed(ctx.tape, _lookup(list[j], ctx.priced, ctx.feeds));
        }
    }

    /// @dev An SY's `assetInfo` and its asset's token facts and USD feed.
    function _asset(Context memory ctx, address sy) private view {
        address asset = address(uint160(_wordAt(ctx.tape, sy, abi.encodeCall(IStandardizedYield.assetInfo, ()), 1)));
        if (asset == address(0)) return;
        _tokenInfo(ctx.tape, asset);
        _feed(ctx.tape, _lookup(asset, ctx.priced, ctx.feeds));
    }
}
