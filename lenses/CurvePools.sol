// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Prices.sol";

/// @dev A Curve pool's views (stableswap's `calc_withdraw_one_coin` indexes coins by int128,
/// cryptoswap's by uint256).
interface ICurvePool {
    function coins(uint256 i) external view returns (address);

    function balances(uint256 i) external view returns (uint256);

    function get_virtual_price() external view returns (uint256);

    function lp_price() external view returns (uint256);
}

/// @dev The oldest pools' (compound, usdt, y, busd, pax, susd, ren, sbtc): coins indexed by int128.
interface ICurveLegacyPool {
    function coins(int128 i) external view returns (address);

    function balances(int128 i) external view returns (uint256);

    /// @dev The lending ones' (compound, usdt, y, busd, pax): the token coin i wraps.
    function underlying_coins(int128 i) external view returns (address);
}

/// @dev The lending pools with uint256 indices (aave, saave, ib): the token coin i wraps.
interface ICurveLendingPool {
    function underlying_coins(uint256 i) external view returns (address);
}

/// @dev A lending pool's wrapped coin, by the view its kind answers (adapters/curve/wrapped.py):
/// an aToken names its underlying, a cToken (cyToken) and a yToken give their rate.
interface IAToken {
    function UNDERLYING_ASSET_ADDRESS() external view returns (address);
}

interface ICToken {
    function exchangeRateStored() external view returns (uint256);
}

interface IYToken {
    function getPricePerFullShare() external view returns (uint256);
}

/// @dev `calc_token_amount(amounts, is_deposit)` in each form: a fixed array of 2, 3 or 4 and the
/// flag (stableswap, tricrypto, twocrypto-ng), a dynamic array and the flag (stableswap-ng), a
/// fixed array of 2 alone (the v2 crypto pools).
interface ICurveTokenAmount2 {
    function calc_token_amount(uint256[2] calldata amounts, bool is_deposit) external view returns (uint256);
}

interface ICurveTokenAmount3 {
    function calc_token_amount(uint256[3] calldata amounts, bool is_deposit) external view returns (uint256);
}

interface ICurveTokenAmount4 {
    function calc_token_amount(uint256[4] calldata amounts, bool is_deposit) external view returns (uint256);
}

interface ICurveTokenAmountNG {
    function calc_token_amount(uint256[] calldata amounts, bool is_deposit) external view returns (uint256);
}

interface ICurveCryptoTokenAmount {
    function calc_token_amount(uint256[2] calldata amounts) external view returns (uint256);
}

interface ICurveStableSwap {
    function calc_withdraw_one_coin(uint256 burn_amount, int128 i) external view returns (uint256);
}

interface ICurveCryptoSwap {
    function calc_withdraw_one_coin(uint256 token_amount, uint256 i) external view returns (uint256);
}

/// @title A Curve pool's share of an LP amount, read alike by CurveLens and ConvexLens
/// @notice The reads of adapters/curve/figures.py: the LP token's facts and `totalSupply`,
/// `coins(i)` and `balances(i)` up to the first revert (at most 8; by int128 index on the oldest
/// pools, whose `coins(uint256)` of 0 reverts), each coin's facts and feed,
/// `calc_withdraw_one_coin` of the amount in each coin (int128 index on stableswap, uint256 on
/// cryptoswap), the pool's `calc_token_amount` of the share of each coin, `get_virtual_price`,
/// and `lp_price` on cryptoswap. And each coin's `underlying_coins(i)` (by the coins' index type;
/// it reverts on most pools); where it names another token, the coin wraps it: that token's
/// facts and feed, and the wrapper's `UNDERLYING_ASSET_ADDRESS`, `exchangeRateStored` and
/// `getPricePerFullShare`, whichever it answers (adapters/curve/wrapped.py).
abstract contract CurvePools is Prices {
    uint256 internal constant MAX_COINS = 8;
    /// @dev How a pool's `remove_liquidity` pays each coin's balance x LP / totalSupply
    /// (adapters/curve/figures.py `paying_lp`): on the whole LP (stableswap), on one LP unit less
    /// (the v2 crypto pools), or on one less but on all of it for the whole supply (the ng crypto pools).
    uint256 internal constant STABLESWAP = 0;
    uint256 internal constant CRYPTOSWAP = 1;
    uint256 internal constant CRYPTO_NG = 2;
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
        uint256 kind,
        uint256 amount,
        Pricing memory pricing
    ) internal view {
        _tokenInfo(tape, lp);
        uint256 supply = _word(tape, lp, abi.encodeCall(IERC20.totalSupply, ()));
        uint256[] memory held = _coins(tape, pool, kind != STABLESWAP, amount, pricing);
        uint256 paying = kind == STABLESWAP || (kind == CRYPTO_NG && amount == supply) ? amount : amount - 1;
        for (uint256 i = 0; i < held.length; i++) {
            held[i] = supply == 0 ? 0 : (held[i] * paying) / supply;
        }
        _tokenAmount(tape, pool, held);
        _call(tape, pool, abi.encodeCall(ICurvePool.get_virtual_price, ()));
        if (kind != STABLESWAP) _call(tape, pool, abi.encodeCall(ICurvePool.lp_price, ()));
    }

    /// @dev The coins' reads; returns the pool's balance of each (as many as it has coins).
    function _coins(
        Tape memory tape,
        address pool,
        bool crypto,
        uint256 amount,
        Pricing memory pricing
    ) private view returns (uint256[] memory found) {
        found = new uint256[](MAX_COINS);
        (bool ok, bytes memory ret) = _call(tape, pool, abi.encodeCall(ICurvePool.coins, (0)));
        bool legacy = !ok || ret.length < 32;
        if (legacy) (ok, ret) = _call(tape, pool, abi.encodeCall(ICurveLegacyPool.coins, (int128(0))));
        uint256 n = 0;
        while (ok && ret.length >= 32) {
            address coin = abi.decode(ret, (address));
            found[n] = _word(
                tape,
                pool,
                legacy
                    ? abi.encodeCall(ICurveLegacyPool.balances, (int128(int256(n))))
                    : abi.encodeCall(ICurvePool.balances, (n))
            );
            if (coin != NATIVE) _tokenInfo(tape, coin);
            _priceLater(tape, coin, pricing);
            _underlying(tape, pool, coin, n, legacy, pricing);
            if (crypto) {
                _call(tape, pool, abi.encodeCall(ICurveCryptoSwap.calc_withdraw_one_coin, (amount, n)));
            } else {
                _call(tape, pool, abi.encodeCall(ICurveStableSwap.calc_withdraw_one_coin, (amount, int128(int256(n)))));
            }
            if (++n == MAX_COINS) break;
            (ok, ret) = _call(
                tape,
                pool,
                legacy
                    ? abi.encodeCall(ICurveLegacyPool.coins, (int128(int256(n))))
                    : abi.encodeCall(ICurvePool.coins, (n))
            );
        }
        assembly {
            mstore(found, n)
        }
    }

    /// @dev Coin `n`'s `underlying_coins(n)` and, where it names another token, what the wrapper is of it.
    function _underlying(
        Tape memory tape,
        address pool,
        address coin,
        uint256 n,
        bool legacy,
        Pricing memory pricing
    ) private view {
        (bool ok, bytes memory ret) = _call(
            tape,
            pool,
            legacy
                ? abi.encodeCall(ICurveLegacyPool.underlying_coins, (int128(int256(n))))
                : abi.encodeCall(ICurveLendingPool.underlying_coins, (n))
        );
        if (!ok || ret.length < 32) return;
        address underlying = address(uint160(_at(ret, 0)));
        if (underlying == coin || underlying == address(0)) return;
        if (underlying != NATIVE) _tokenInfo(tape, underlying);
        _priceLater(tape, underlying, pricing);
        _call(tape, coin, abi.encodeCall(IAToken.UNDERLYING_ASSET_ADDRESS, ()));
        _call(tape, coin, abi.encodeCall(ICToken.exchangeRateStored, ()));
        _call(tape, coin, abi.encodeCall(IYToken.getPricePerFullShare, ()));
    }

    /// @dev `calc_token_amount(held, false)` by the first form the pool answers, as
    /// adapters/curve/contracts.py's token_amount_views tries them: a fixed array and the flag
    /// (2 to 4 coins), a dynamic array and the flag, a fixed array of 2 alone.
    function _tokenAmount(Tape memory tape, address pool, uint256[] memory held) private view {
        uint256 n = held.length;
        if (n == 2 && _answers(tape, pool, abi.encodeCall(ICurveTokenAmount2.calc_token_amount, ([held[0], held[1]], false)))) return;
        if (n == 3) {
            uint256[3] memory three = [held[0], held[1], held[2]];
            if (_answers(tape, pool, abi.encodeCall(ICurveTokenAmount3.calc_token_amount, (three, false)))) return;
        }
        if (n == 4) {
            uint256[4] memory four = [held[0], held[1], held[2], held[3]];
            if (_answers(tape, pool, abi.encodeCall(ICurveTokenAmount4.calc_token_amount, (four, false)))) return;
        }
        if (_answers(tape, pool, abi.encodeCall(ICurveTokenAmountNG.calc_token_amount, (held, false)))) return;
        if (n == 2) _call(tape, pool, abi.encodeCall(ICurveCryptoTokenAmount.calc_token_amount, ([held[0], held[1]])));
    }

    function _answers(Tape memory tape, address pool, bytes memory data) private view returns (bool) {
        (bool ok, bytes memory ret) = _call(tape, pool, data);
        return ok && ret.length >= 32;
    }
}
