// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev A Curve pool's views (stableswap's `calc_withdraw_one_coin` indexes coins by int128,
/// cryptoswap's by uint256).
interface ICurvePool {
    function coins(uint256 i) external view returns (address);

    function balances(uint256 i) external view returns (uint256);

    function get_virtual_price() external view returns (uint256);

    function lp_price() external view returns (uint256);
}

interface ICurveStableSwap {
    function calc_withdraw_one_coin(uint256 burn_amount, int128 i) external view returns (uint256);
}

interface ICurveCryptoSwap {
    function calc_withdraw_one_coin(uint256 token_amount, uint256 i) external view returns (uint256);
}

/// @title A Curve pool's share of an LP amount, read alike by CurveLens and ConvexLens
/// @notice The reads of adapters/curve/figures.py: the LP token's facts and `totalSupply`,
/// `coins(i)` and `balances(i)` up to the first revert (at most 8), each coin's facts and feed,
/// `calc_withdraw_one_coin` of the amount in each coin (int128 index on stableswap, uint256 on
/// cryptoswap), `get_virtual_price`, and `lp_price` on cryptoswap.
abstract contract CurvePools is Recorder {
    uint256 internal constant MAX_COINS = 8;
    /// @dev The address Curve's ether pools give ether as a coin (no contract: no token facts).
    address internal constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    /// @dev Word `index` of a view's answer without recording it or growing memory (a scan makes
    /// several per pool); 0 when it reverts or answers less.
    function _peek(address target, bytes4 selector, uint256 arg, bool hasArg, uint256 index)
        internal
        view
        returns (uint256 value)
    {
        assembly {
            let p := mload(0x40)
            mstore(p, selector)
            mstore(add(p, 4), arg)
            let ok := staticcall(gas(), target, p, add(4, mul(32, hasArg)), 0, 0)
            if and(ok, gt(returndatasize(), add(31, mul(32, index)))) {
                returndatacopy(p, mul(32, index), 32)
                value := mload(p)
            }
        }
    }

    function _share(
        Tape memory tape,
        address pool,
        address lp,
        bool crypto,
        uint256 amount,
        address[] memory feedKeys,
        address[] memory feeds
    ) internal view {
        _tokenInfo(tape, lp);
        _call(tape, lp, abi.encodeCall(IERC20.totalSupply, ()));
        for (uint256 i = 0; i < MAX_COINS; i++) {
            (bool ok, bytes memory ret) = _call(tape, pool, abi.encodeCall(ICurvePool.coins, (i)));
            if (!ok || ret.length < 32) break;
            address coin = abi.decode(ret, (address));
            _call(tape, pool, abi.encodeCall(ICurvePool.balances, (i)));
            if (coin != NATIVE) _tokenInfo(tape, coin);
            _feed(tape, _lookup(coin, feedKeys, feeds));
            if (crypto) {
                _call(tape, pool, abi.encodeCall(ICurveCryptoSwap.calc_withdraw_one_coin, (amount, i)));
            } else {
                _call(tape, pool, abi.encodeCall(ICurveStableSwap.calc_withdraw_one_coin, (amount, int128(int256(i)))));
            }
        }
        _call(tape, pool, abi.encodeCall(ICurvePool.get_virtual_price, ()));
        if (crypto) _call(tape, pool, abi.encodeCall(ICurvePool.lp_price, ()));
    }
}
