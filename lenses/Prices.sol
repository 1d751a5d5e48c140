// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev A Uniswap v3 pool's oracle, as v3-core's IUniswapV3PoolDerivedState declares it.
interface IUniswapV3PoolOracle {
    function observe(uint32[] calldata secondsAgos)
        external
        view
        returns (int56[] memory tickCumulatives, uint160[] memory secondsPerLiquidityCumulativeX128s);
}

/// @title The reads of a token's USD price, for lenses that price the tokens they find
/// @notice adapters/prices/ tries a token's sources in a fixed order: its feed, its protocol's
/// rate, Uniswap v3's 30-minute average. A lens records what each asks, so a token with no feed
/// costs its input no round more than one with a feed (where its rate's asset has a feed).
abstract contract Prices is Recorder {
    uint32 internal constant WINDOW = 1800;
    /// @dev `get_coins(address)` of Curve's factories, whatever the layout of its answer.
    bytes4 internal constant GET_COINS = 0x9ac90d3d;
    /// @dev keccak256 of UniswapV3Pool's creation code, as @uniswap/v3-sdk publishes it (adapters/prices/twap.py).
    bytes32 internal constant POOL_INIT_CODE_HASH = 0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54;

    /// @dev The token's feed where `priced` names one. Else: whether it is an ERC-4626 vault
    /// (`asset()`, `convertToAssets(1e18)`, `decimals()`) and its asset's decimals and feed;
    /// where `market` names a Uniswap v3 factory (else zero) followed by the quote tokens,
    /// `observe([WINDOW, 0])` at the address of the token's pool with each quote and fee tier, and
    /// the quote's decimals and feed where one of its pools exists; and where a zero follows them,
    /// each Curve factory after it asked `get_coins(token)` (whether the token is its pool).
    function _price(
        Tape memory tape,
        address token,
        address[] memory priced,
        address[] memory feeds,
        address[] memory market
    ) internal view {
        address feed = _lookup(token, priced, feeds);
        if (feed != address(0)) {
            _feed(tape, feed);
            return;
        }
        (bool ok, bytes memory ret) = _call(tape, token, abi.encodeCall(IERC4626.asset, ()));
        _call(tape, token, abi.encodeCall(IERC4626.convertToAssets, (1e18)));
        _call(tape, token, abi.encodeCall(IERC20.decimals, ()));
        if (ok && ret.length >= 32) {
            address asset = abi.decode(ret, (address));
            _call(tape, asset, abi.encodeCall(IERC20.decimals, ()));
            _feed(tape, _lookup(asset, priced, feeds));
        }
        uint256 i = 1;
        for (; i < market.length && market[i] != address(0); i++) {
            if (market[i] != token && _observed(tape, market[0], token, market[i])) {
                _call(tape, market[i], abi.encodeCall(IERC20.decimals, ()));
                _feed(tape, _lookup(market[i], priced, feeds));
            }
        }
        for (i++; i < market.length; i++) {
            _call(tape, market[i], abi.encodeWithSelector(GET_COINS, token));
        }
    }

    /// @dev Each fee tier's pool of `token` and `quote` observed; whether any exists.
    function _observed(Tape memory tape, address factory, address token, address quote) private view returns (bool any) {
        uint32[] memory ago = new uint32[](2);
        ago[0] = WINDOW;
        uint24[4] memory fees = [uint24(100), 500, 3000, 10000];
        (address token0, address token1) = token < quote ? (token, quote) : (quote, token);
        for (uint256 f = 0; f < fees.length; f++) {
            bytes32 salt = keccak256(abi.encode(token0, token1, fees[f]));
            address pool =
                address(uint160(uint256(keccak256(abi.encodePacked(hex"ff", factory, salt, POOL_INIT_CODE_HASH)))));
            (bool ok, bytes memory ret) = _call(tape, pool, abi.encodeCall(IUniswapV3PoolOracle.observe, (ago)));
            any = any || !ok || ret.length > 0;
        }
    }
}
