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

/// @dev A pool of a Curve factory, its own LP token (@curvefi/api's pool ABIs).
interface ICurveOwnPool {
    function coins(uint256 i) external view returns (address);

    function balances(uint256 i) external view returns (uint256);
}

/// @dev Curve's older registries (curvefi/metaregistry's MainRegistry.json and
/// CryptoRegistry.json): the pool of an LP token, its coins and balances.
interface ICurveLpRegistry {
    function get_pool_from_lp_token(address lp) external view returns (address);

    function get_coins(address pool) external view returns (address[8] memory);

    function get_balances(address pool) external view returns (uint256[8] memory);
}

/// @dev Curve's AddressProvider: `get_address(id)` (0 the main registry, 5 the crypto registry).
interface ICurveRegistryProvider {
    function get_address(uint256 id) external view returns (address);
}

/// @title The reads of a token's USD price, for lenses that price the tokens they find
/// @notice adapters/prices/ tries a token's sources in a fixed order: its feed, its protocol's
/// rate, Uniswap v3's 30-minute average. A lens records what each asks, once per token, so a
/// token with no feed costs its input no round more than one with a feed (where its rate's asset
/// has a feed).
abstract contract Prices is Recorder {
    uint32 internal constant WINDOW = 1800;
    /// @dev `get_coins(address)` of Curve's factories, whatever the layout of its answer
    /// (a fixed array of 2, 3 or 4 coins, or stableswap-ng's dynamic one).
    bytes4 internal constant GET_COINS = 0x9ac90d3d;
    address private constant NATIVE_COIN = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    /// @dev What `_price` is told: the tokens with a feed and their feeds, and `market` (below).
    struct Pricing {
        address[] priced;
        address[] feeds;
        address[] market;
    }

    function _price(Tape memory tape, address token, Pricing memory pricing) internal view {
        _price(tape, token, pricing.priced, pricing.feeds, pricing.market);
    }

    /// @dev A token's feed now, where it has one; else its next sources' reads last
    /// (`_pricesLater`): a lens whose own reads must fit the tape first (Curve's, Convex's) leaves
    /// those, which may be many, to what room is left.
    function _priceLater(Tape memory tape, address token, Pricing memory pricing) internal view {
        address feed = _lookup(token, pricing.priced, pricing.feeds);
        if (feed != address(0)) {
            if (!_pricedBefore(tape, token)) _feed(tape, feed);
        } else if (tape.laterCount < MEMO) {
            tape.later[tape.laterCount++] = token;
        }
    }

    /// @dev The next sources' reads of the tokens `_priceLater` left.
    function _pricesLater(Tape memory tape, Pricing memory pricing) internal view {
        for (uint256 k = 0; k < tape.laterCount; k++) {
            _price(tape, tape.later[k], pricing);
        }
    }

    /// @dev A lens's `pricing` argument (its tokens with a feed, their feeds, the market) as `_price` takes it.
    function _pricing(address[][3] memory pricing) internal pure returns (Pricing memory) {
        return Pricing(pricing[0], pricing[1], pricing[2]);
    }
    /// @dev keccak256 of UniswapV3Pool's creation code, as @uniswap/v3-sdk publishes it (adapters/prices/twap.py).
    bytes32 internal constant POOL_INIT_CODE_HASH = 0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54;

    /// @dev The token's feed where `priced` names one. Else: whether it is an ERC-4626 vault
    /// (`asset()`, `convertToAssets(1e18)`, `decimals()`) and its asset's decimals and feed;
    /// where `market` names a Uniswap v3 factory (else zero) followed by the quote tokens,
    /// `observe([WINDOW, 0])` at the address of the token's pool with each quote and fee tier, and
    /// the quote's decimals and feed where one of its pools exists; and where a zero follows them,
    /// Curve's price route's reads (adapters/curve/rates.py): each Curve factory after it asked
    /// `get_coins(token)`, and after another zero the AddressProvider's registries; the pool's
    /// basket where a factory made the token, else where a registry's `get_pool_from_lp_token`
    /// names its pool, and its coins' prices.
    function _price(
        Tape memory tape,
        address token,
        address[] memory priced,
        address[] memory feeds,
        address[] memory market
    ) internal view {
        if (_pricedBefore(tape, token)) return;
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
        bool own;
        for (i++; i < market.length && market[i] != address(0); i++) {
            (bool ok, bytes memory ret) = _call(tape, market[i], abi.encodeWithSelector(GET_COINS, token));
            own = own || (ok && _listsCoins(ret));
        }
        address[2] memory registries;
        if (i + 1 < market.length) registries = _registries(tape, market[i + 1]);
        if (own) {
            _ownPool(tape, token, priced, feeds, market);
            return;
        }
        address[2] memory pools;
        for (uint256 k = 0; k < 2; k++) {
            if (registries[k] == address(0)) continue;
            bytes memory lookup = abi.encodeCall(ICurveLpRegistry.get_pool_from_lp_token, (token));
            pools[k] = address(uint160(_word(tape, registries[k], lookup)));
        }
        for (uint256 k = 0; k < 2; k++) {
            if (pools[k] != address(0)) {
                _registryPool(tape, registries[k], pools[k], token, priced, feeds, market);
                return;
            }
        }
    }

    /// @dev Whether the token's price reads are on the tape already (a token met twice: a
    /// strategy's deposit and its queued withdrawal, a coin of two pools), else noted as they are
    /// about to be; a price in progress counts, so a pool that holds itself does not loop.
    function _pricedBefore(Tape memory tape, address token) private pure returns (bool) {
        for (uint256 k = 0; k < tape.pricedCount; k++) {
            if (tape.priced[k] == token) return true;
        }
        if (tape.pricedCount < MEMO) tape.priced[tape.pricedCount++] = token;
        return false;
    }

    /// @dev Whether a factory's `get_coins` answer lists a coin: a fixed array's words, or a
    /// dynamic array's items (its offset and length first).
    function _listsCoins(bytes memory ret) private pure returns (bool) {
        uint256 words = ret.length / 32;
        uint256 from = words >= 2 && _at(ret, 0) == 32 && _at(ret, 1) == words - 2 ? 2 : 0;
        for (uint256 w = from; w < words; w++) {
            if (_at(ret, w) != 0) return true;
        }
        return false;
    }

    /// @dev The registries the AddressProvider names (ids 0 and 5), zero where none.
    function _registries(Tape memory tape, address provider) private view returns (address[2] memory found) {
        uint256[2] memory ids = [uint256(0), 5];
        for (uint256 k = 0; k < 2; k++) {
            bytes memory data = abi.encodeCall(ICurveRegistryProvider.get_address, (ids[k]));
            found[k] = address(uint160(_word(tape, provider, data)));
        }
    }

    /// @dev A factory's pool, its own LP token: `balances(i)` of each coin (`coins(i)`, read
    /// unrecorded up to the first that fails), then the basket's supply and prices.
    function _ownPool(Tape memory tape, address pool, address[] memory priced, address[] memory feeds, address[] memory market)
        private
        view
    {
        address[] memory coins = new address[](8);
        uint256 n = 0;
        for (; n < 8; n++) {
            (bool ok, bytes memory ret) = pool.staticcall(abi.encodeCall(ICurveOwnPool.coins, (n)));
            if (!ok || ret.length < 32 || _at(ret, 0) == 0) break;
            coins[n] = address(uint160(_at(ret, 0)));
            _call(tape, pool, abi.encodeCall(ICurveOwnPool.balances, (n)));
        }
        assembly {
            mstore(coins, n)
        }
        _basket(tape, pool, coins, priced, feeds, market);
    }

    /// @dev A registry's pool, its LP token apart: the registry's coins and balances of it, then
    /// the basket's supply and prices.
    function _registryPool(
        Tape memory tape,
        address registry,
        address pool,
        address token,
        address[] memory priced,
        address[] memory feeds,
        address[] memory market
    ) private view {
        (bool ok, bytes memory ret) = _call(tape, registry, abi.encodeCall(ICurveLpRegistry.get_coins, (pool)));
        _call(tape, registry, abi.encodeCall(ICurveLpRegistry.get_balances, (pool)));
        address[] memory coins = new address[](8);
        uint256 n = 0;
        while (ok && n < 8 && _at(ret, n) != 0) {
            coins[n] = address(uint160(_at(ret, n)));
            n++;
        }
        assembly {
            mstore(coins, n)
        }
        _basket(tape, token, coins, priced, feeds, market);
    }

    /// @dev The LP token's supply and decimals, and each coin's decimals and price.
    function _basket(
        Tape memory tape,
        address token,
        address[] memory coins,
        address[] memory priced,
        address[] memory feeds,
        address[] memory market
    ) private view {
        _call(tape, token, abi.encodeCall(IERC20.totalSupply, ()));
        _call(tape, token, abi.encodeCall(IERC20.decimals, ()));
        for (uint256 c = 0; c < coins.length; c++) {
            if (coins[c] != NATIVE_COIN) _call(tape, coins[c], abi.encodeCall(IERC20.decimals, ()));
            _price(tape, coins[c], priced, feeds, market);
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
