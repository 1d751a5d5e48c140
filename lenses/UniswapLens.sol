// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @title The reads of one Uniswap v3 input (adapters/uniswap/positions.py), in one call
/// @notice The position manager's `balanceOf(wallet)`; for up to `maxPositions` of the wallet's
/// NFTs, `tokenOfOwnerByIndex` and `positions(tokenId)`. For each that holds something: the
/// factory's `getPool`, the pool's `slot0`, `feeGrowthGlobal0X128`, `feeGrowthGlobal1X128`
/// (once per pool), `ticks` at both ends of the range, the tokens' facts and USD feeds (once per
/// token), then the sequencer uptime feed.
contract UniswapLens is Recorder {
    struct Seen {
        address[] items;
        uint256 count;
    }

    constructor(
        address wallet,
        address manager,
        address factory,
        uint256 maxPositions,
        address[] memory feedTokens,
        address[] memory feeds,
        address sequencer
    ) {
        Tape memory tape = _tape();
        Seen memory tokens = _positions(tape, wallet, manager, factory, maxPositions);
        for (uint256 i = 0; i < tokens.count; i++) {
            _feed(tape, _lookup(tokens.items[i], feedTokens, feeds));
        }
        if (tokens.count > 0 && sequencer != address(0)) {
            _call(tape, sequencer, abi.encodeWithSelector(0xfeaf968c));
        }
        _finish(tape);
    }

    /// @dev The wallet's first `maxPositions` NFTs; the tokens of those that hold something.
    function _positions(Tape memory tape, address wallet, address manager, address factory, uint256 maxPositions)
        private
        view
        returns (Seen memory tokens)
    {
        uint256 n = _word(tape, manager, abi.encodeWithSelector(0x70a08231, wallet));
        if (n > maxPositions) n = maxPositions;
        Seen memory pools = Seen(new address[](n), 0);
        tokens = Seen(new address[](2 * n), 0);
        for (uint256 i = 0; i < n; i++) {
            _position(tape, manager, factory, abi.encodeWithSelector(0x2f745c59, wallet, i), pools, tokens);
        }
    }

    /// @dev One NFT (`byIndex` asks its id): its position, and its pool and tokens where it holds something.
    function _position(
        Tape memory tape,
        address manager,
        address factory,
        bytes memory byIndex,
        Seen memory pools,
        Seen memory tokens
    ) private view {
        uint256 id = _word(tape, manager, byIndex);
        (bool ok, bytes memory p) = _call(tape, manager, abi.encodeWithSelector(0x99fbab88, id));
        if (!ok || (_at(p, 7) == 0 && _at(p, 10) == 0 && _at(p, 11) == 0)) return;
        address token0 = address(uint160(_at(p, 2)));
        address token1 = address(uint160(_at(p, 3)));
        address pool =
            address(uint160(_word(tape, factory, abi.encodeWithSelector(0x1698ee82, token0, token1, _at(p, 4)))));
        if (pool == address(0)) return;
        if (_first(pools, pool)) {
            _call(tape, pool, abi.encodeWithSelector(0x3850c7bd));
            _call(tape, pool, abi.encodeWithSelector(0xf3058399));
            _call(tape, pool, abi.encodeWithSelector(0x46141319));
        }
        // The ticks as the answer's words: int24 sign-extended, as the service encodes them.
        _call(tape, pool, abi.encodeWithSelector(0xf30dba93, _at(p, 5)));
        _call(tape, pool, abi.encodeWithSelector(0xf30dba93, _at(p, 6)));
        if (_first(tokens, token0)) _tokenInfo(tape, token0);
        if (_first(tokens, token1)) _tokenInfo(tape, token1);
    }

    /// @dev Whether `item` is new to `seen`, which then holds it.
    function _first(Seen memory seen, address item) private pure returns (bool) {
        for (uint256 i = 0; i < seen.count; i++) {
            if (seen.items[i] == item) return false;
        }
        seen.items[seen.count++] = item;
        return true;
    }
}
