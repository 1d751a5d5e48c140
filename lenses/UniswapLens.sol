// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev Uniswap v3's NonfungiblePositionManager (an ERC-721 Enumerable).
interface INonfungiblePositionManager {
    function balanceOf(address owner) external view returns (uint256);

    function tokenOfOwnerByIndex(address owner, uint256 index) external view returns (uint256);

    function positions(uint256 tokenId)
        external
        view
        returns (
            uint96 nonce,
            address operator,
            address token0,
            address token1,
            uint24 fee,
            int24 tickLower,
            int24 tickUpper,
            uint128 liquidity,
            uint256 feeGrowthInside0LastX128,
            uint256 feeGrowthInside1LastX128,
            uint128 tokensOwed0,
            uint128 tokensOwed1
        );
}

/// @dev PancakeSwap's MasterChefV3: it holds staked v3 NFTs and lists them for their stakers.
interface IMasterChefV3 {
    function balanceOf(address owner) external view returns (uint256);

    function tokenOfOwnerByIndex(address owner, uint256 index) external view returns (uint256);

    function pendingCake(uint256 _tokenId) external view returns (uint256 reward);

    function CAKE() external view returns (address);
}

interface IUniswapV3Factory {
    function getPool(address tokenA, address tokenB, uint24 fee) external view returns (address pool);
}

interface IUniswapV3Pool {
    function slot0()
        external
        view
        returns (
            uint160 sqrtPriceX96,
            int24 tick,
            uint16 observationIndex,
            uint16 observationCardinality,
            uint16 observationCardinalityNext,
            uint8 feeProtocol,
            bool unlocked
        );

    function tickSpacing() external view returns (int24);

    function feeGrowthGlobal0X128() external view returns (uint256);

    function feeGrowthGlobal1X128() external view returns (uint256);

    function ticks(int24 tick)
        external
        view
        returns (
            uint128 liquidityGross,
            int128 liquidityNet,
            uint256 feeGrowthOutside0X128,
            uint256 feeGrowthOutside1X128,
            int56 tickCumulativeOutside,
            uint160 secondsPerLiquidityOutsideX128,
            uint32 secondsOutside,
            bool initialized
        );
}

/// @dev Uniswap v4's PositionManager (an ERC-721); a PoolKey's currencies and hooks are addresses,
/// a PositionInfo a uint256.
interface IPositionManager {
    struct PoolKey {
        address currency0;
        address currency1;
        uint24 fee;
        int24 tickSpacing;
        address hooks;
    }

    function balanceOf(address owner) external view returns (uint256);

    function ownerOf(uint256 id) external view returns (address owner);

    function getPoolAndPositionInfo(uint256 tokenId) external view returns (PoolKey memory poolKey, uint256 info);
}

/// @dev Uniswap v4's StateView (a PoolId is a bytes32).
interface IStateView {
    function getPositionInfo(bytes32 poolId, address owner, int24 tickLower, int24 tickUpper, bytes32 salt)
        external
        view
        returns (uint128 liquidity, uint256 feeGrowthInside0LastX128, uint256 feeGrowthInside1LastX128);

    function getSlot0(bytes32 poolId)
        external
        view
        returns (uint160 sqrtPriceX96, int24 tick, uint24 protocolFee, uint24 lpFee);

    function getFeeGrowthInside(bytes32 poolId, int24 tickLower, int24 tickUpper)
        external
        view
        returns (uint256 feeGrowthInside0X128, uint256 feeGrowthInside1X128);
}

/// @title The reads of one Uniswap input (adapters/uniswap/positions.py and v4.py), in one call
/// @notice v3: the position manager's `balanceOf(wallet)`; for up to `maxPositions` of the
/// wallet's NFTs, `tokenOfOwnerByIndex` and `positions(tokenId)` (a v3 fork's farm given, the NFTs
/// the farm holds for the wallet: its `balanceOf` and `tokenOfOwnerByIndex`, the manager's
/// `positions`, the farm's `pendingCake` of each and its `CAKE()`, whose facts and feed follow); for each that holds something,
/// the factory's `getPool`, the pool's `slot0`, `tickSpacing`, `feeGrowthGlobal0X128`,
/// `feeGrowthGlobal1X128` (once per pool) and `ticks` at both ends of the range. v4: the
/// PositionManager's `balanceOf(wallet)`; for each candidate id (the event index's), `ownerOf`;
/// for each the wallet owns, `getPoolAndPositionInfo`, and the StateView's `getPositionInfo`,
/// `getSlot0` and `getFeeGrowthInside` at its PoolId. Then the tokens' facts and USD feeds (once
/// per token) and the sequencer uptime feed. A version whose manager is the zero address is
/// skipped: the service calls the lens once for each version, in one round.
contract UniswapLens is Recorder {
    address private constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    struct Seen {
        address[] items;
        uint256 count;
    }

    struct V3 {
        address manager;
        address factory;
        address farm;
    }

    struct V4 {
        address manager;
        address stateView;
        uint256[] ids;
    }

    constructor(
        address wallet,
        V3 memory v3,
        uint256 maxPositions,
        address v4Manager,
        address stateView,
        uint256[] memory v4Ids,
        address[] memory feedTokens,
        address[] memory feeds,
        address sequencer
    ) {
        Tape memory tape = _tape();
        Seen memory tokens = Seen(new address[](2 * (maxPositions + v4Ids.length) + 1), 0);
        if (v3.manager != address(0)) _positions(tape, wallet, v3, maxPositions, tokens);
        if (v4Manager != address(0)) _v4Positions(tape, wallet, V4(v4Manager, stateView, v4Ids), tokens);
        for (uint256 i = 0; i < tokens.count; i++) {
            _feed(tape, _lookup(tokens.items[i], feedTokens, feeds));
        }
        if (tokens.count > 0 && sequencer != address(0)) {
            _call(tape, sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
        }
        _finish(tape);
    }

    /// @dev The wallet's first `maxPositions` v3 NFTs (those the farm holds for it, where one is
    /// given); `tokens` gains those of the ones that hold something, and the farm's CAKE.
    function _positions(Tape memory tape, address wallet, V3 memory v3, uint256 maxPositions, Seen memory tokens)
        private
        view
    {
        bool farmed = v3.farm != address(0);
        address lister = farmed ? v3.farm : v3.manager;
        uint256 n = _word(
            tape,
            lister,
            farmed
                ? abi.encodeCall(IMasterChefV3.balanceOf, (wallet))
                : abi.encodeCall(INonfungiblePositionManager.balanceOf, (wallet))
        );
        if (n > maxPositions) n = maxPositions;
        Seen memory pools = Seen(new address[](n), 0);
        for (uint256 i = 0; i < n; i++) {
            bytes memory byIndex = farmed
                ? abi.encodeCall(IMasterChefV3.tokenOfOwnerByIndex, (wallet, i))
                : abi.encodeCall(INonfungiblePositionManager.tokenOfOwnerByIndex, (wallet, i));
            uint256 id = _word(tape, lister, byIndex);
            _position(tape, v3.manager, v3.factory, id, pools, tokens);
            if (farmed) _call(tape, v3.farm, abi.encodeCall(IMasterChefV3.pendingCake, (id)));
        }
        if (farmed && n > 0) {
            address cake = address(uint160(_word(tape, v3.farm, abi.encodeCall(IMasterChefV3.CAKE, ()))));
            if (_first(tokens, cake)) _tokenInfo(tape, cake);
        }
    }

    /// @dev One NFT: its position, and its pool and tokens where it holds something.
    function _position(
        Tape memory tape,
        address manager,
        address factory,
        uint256 id,
        Seen memory pools,
        Seen memory tokens
    ) private view {
        (bool ok, bytes memory p) = _call(tape, manager, abi.encodeCall(INonfungiblePositionManager.positions, (id)));
        if (!ok || (_at(p, 7) == 0 && _at(p, 10) == 0 && _at(p, 11) == 0)) return;
        address token0 = address(uint160(_at(p, 2)));
        address token1 = address(uint160(_at(p, 3)));
        bytes memory getPool = abi.encodeCall(IUniswapV3Factory.getPool, (token0, token1, uint24(_at(p, 4))));
        address pool = address(uint160(_word(tape, factory, getPool)));
        if (pool == address(0)) return;
        if (_first(pools, pool)) {
            _call(tape, pool, abi.encodeCall(IUniswapV3Pool.slot0, ()));
            _call(tape, pool, abi.encodeCall(IUniswapV3Pool.tickSpacing, ()));
            _call(tape, pool, abi.encodeCall(IUniswapV3Pool.feeGrowthGlobal0X128, ()));
            _call(tape, pool, abi.encodeCall(IUniswapV3Pool.feeGrowthGlobal1X128, ()));
        }
        // The ticks as the answer's words: int24 sign-extended, as the service encodes them.
        _call(tape, pool, abi.encodeCall(IUniswapV3Pool.ticks, (int24(int256(_at(p, 5))))));
        _call(tape, pool, abi.encodeCall(IUniswapV3Pool.ticks, (int24(int256(_at(p, 6))))));
        if (_first(tokens, token0)) _tokenInfo(tape, token0);
        if (_first(tokens, token1)) _tokenInfo(tape, token1);
    }

    /// @dev The v4 candidates the wallet owns: their positions at their pools, and their tokens.
    function _v4Positions(Tape memory tape, address wallet, V4 memory v4, Seen memory tokens) private view {
        _call(tape, v4.manager, abi.encodeCall(IPositionManager.balanceOf, (wallet)));
        for (uint256 i = 0; i < v4.ids.length; i++) {
            uint256 id = v4.ids[i];
            address owner = address(uint160(_word(tape, v4.manager, abi.encodeCall(IPositionManager.ownerOf, (id)))));
            if (owner != wallet) continue;
            (bool ok, bytes memory p) =
                _call(tape, v4.manager, abi.encodeCall(IPositionManager.getPoolAndPositionInfo, (id)));
            if (!ok || p.length < 192) continue;
            // The PoolKey's five words, then the packed info: ticks at bits 8 and 32.
            bytes32 poolId = keccak256(abi.encode(_at(p, 0), _at(p, 1), _at(p, 2), _at(p, 3), _at(p, 4)));
            uint256 info = _at(p, 5);
            int24 lower = int24(uint24(info >> 8));
            int24 upper = int24(uint24(info >> 32));
            _call(
                tape,
                v4.stateView,
                abi.encodeCall(IStateView.getPositionInfo, (poolId, v4.manager, lower, upper, bytes32(id)))
            );
            _call(tape, v4.stateView, abi.encodeCall(IStateView.getSlot0, (poolId)));
            _call(tape, v4.stateView, abi.encodeCall(IStateView.getFeeGrowthInside, (poolId, lower, upper)));
            _v4Token(tape, tokens, address(uint160(_at(p, 0))));
            _v4Token(tape, tokens, address(uint160(_at(p, 1))));
        }
    }

    /// @dev A currency's facts, once. The native coin (0x0) has none to read; it is priced under
    /// the address the service names it by (chain/erc20.py's NATIVE).
    function _v4Token(Tape memory tape, Seen memory tokens, address token) private view {
        if (token == address(0)) _first(tokens, NATIVE);
        else if (_first(tokens, token)) _tokenInfo(tape, token);
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
