// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

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
            (bool ok, bytes memory balance) = catalogSys[i].staticcall(abi.encodeWithSelector(0x70a08231, wallet));
            if (ok && _at(balance, 0) > 0) {
                _tokenInfo(ctx.tape, catalogSys[i]);
                _asset(ctx, catalogSys[i]);
                _call(ctx.tape, catalogSys[i], abi.encodeWithSelector(0x3ba0b9a9));
            }
        }
        if (sequencer != address(0)) _call(ctx.tape, sequencer, abi.encodeWithSelector(0xfeaf968c));
        for (uint256 i = 0; i < tokens.length; i++) {
            if (claims[i]) _mutatingCall(ctx.tape, tokens[i], abi.encodeWithSelector(0x7d24da4d, wallet, true, true));
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
        uint256 balance = _word(ctx.tape, token, abi.encodeWithSelector(0x70a08231, ctx.wallet));
        if (balance == 0 && isYt) {
            balance = _wordAt(ctx.tape, yt, abi.encodeWithSelector(0xd68076c3, ctx.wallet), 1);
        }
        if (balance == 0) return false;
        _call(ctx.tape, sy, abi.encodeWithSelector(0x3ba0b9a9));
        _call(ctx.tape, yt, abi.encodeWithSelector(0xd2a3584e));
        _call(ctx.tape, yt, abi.encodeWithSelector(0x516399df));
        _call(ctx.tape, yt, abi.encodeWithSelector(0x60e0a9e1));
        if (market != address(0)) {
            _call(ctx.tape, market, abi.encodeWithSelector(0xc3fb90d6));
            _call(ctx.tape, market, abi.encodeWithSelector(0x18160ddd));
        }
        _asset(ctx, sy);
        _tokenInfo(ctx.tape, token);
        if (isYt) _rewards(ctx, yt);
        return isYt;
    }

    /// @dev A YT's reward tokens, with their facts and USD feeds.
    function _rewards(Context memory ctx, address yt) private view {
        (bool ok, bytes memory rewards) = _call(ctx.tape, yt, abi.encodeWithSelector(0xc4f59f9b));
        if (!ok || rewards.length < 64 || _at(rewards, 1) > MAX_REWARD_TOKENS) return;
        address[] memory list = abi.decode(rewards, (address[]));
        for (uint256 j = 0; j < list.length; j++) {
            _tokenInfo(ctx.tape, list[j]);
            _feed(ctx.tape, _lookup(list[j], ctx.priced, ctx.feeds));
        }
    }

    /// @dev An SY's `assetInfo` and its asset's token facts and USD feed.
    function _asset(Context memory ctx, address sy) private view {
        address asset = address(uint160(_wordAt(ctx.tape, sy, abi.encodeWithSelector(0xa40bee50), 1)));
        if (asset == address(0)) return;
        _tokenInfo(ctx.tape, asset);
        _feed(ctx.tape, _lookup(asset, ctx.priced, ctx.feeds));
    }
}
