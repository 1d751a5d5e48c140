// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "VenusRecorder.sol";

/// @dev The isolated pools' PoolRegistry, as `@venusprotocol/isolated-pools` 4.4.0 publishes its ABI.
interface IVenusPoolRegistry {
    struct VenusPool {
        string name;
        address creator;
        address comptroller;
        uint256 blockPosted;
        uint256 timestampPosted;
    }

    function getAllPools() external view returns (VenusPool[] memory);
}

/// @dev An isolated pool's Comptroller.
interface IPoolComptroller {
    function getAllMarkets() external view returns (address[] memory);

    function getAssetsIn(address account) external view returns (address[] memory);

    function oracle() external view returns (address);

    function getAccountLiquidity(address account) external view returns (uint256, uint256, uint256);

    function getRewardDistributors() external view returns (address[] memory);

    function markets(address vToken) external view returns (bool, uint256, uint256);
}

/// @dev A RewardsDistributor; the `...TimeBased` states where it counts seconds.
interface IRewardsDistributor {
    function rewardToken() external view returns (address);

    function isTimeBased() external view returns (bool);

    function rewardTokenAccrued(address account) external view returns (uint256);

    function INITIAL_INDEX() external view returns (uint224);

    function rewardTokenSupplyState(address vToken) external view returns (uint224, uint32, uint32);

    function rewardTokenBorrowState(address vToken) external view returns (uint224, uint32, uint32);

    function rewardTokenSupplyStateTimeBased(address vToken) external view returns (uint224, uint256, uint256);

    function rewardTokenBorrowStateTimeBased(address vToken) external view returns (uint224, uint256, uint256);

    function rewardTokenSupplySpeeds(address vToken) external view returns (uint256);

    function rewardTokenBorrowSpeeds(address vToken) external view returns (uint256);

    function rewardTokenSupplierIndex(address vToken, address account) external view returns (uint256);

    function rewardTokenBorrowerIndex(address vToken, address account) external view returns (uint256);
}

/// @dev An isolated pool's vToken's year.
interface IPoolVToken {
    function blocksOrSecondsPerYear() external view returns (uint256);
}

/// @title The reads of one Venus input in the isolated pools (adapters/venus/positions.py,
/// markets.py, rewards.py), in one call
/// @notice The registry's pools; per pool, its Comptroller's markets, the account's markets
/// entered, the oracle, `getAccountLiquidity` and its RewardsDistributors with their tokens,
/// clocks, what they stored for the account and initial indexes; every market's account snapshot;
/// per market it holds, the market's token, price, rates and year, its terms and each
/// distributor's state, speeds and account indexes; each reward token's facts and price; then,
/// last (they write: each market's accrual, kept inside the lens), the markets' accrued exchange
/// rates and the account's accrued borrows.
contract VenusPoolsLens is VenusRecorder {
    constructor(address wallet, address registry) {
        Tape memory tape = _tape();
        address[] memory comptrollers = _pools(tape, registry);
        for (uint256 p = 0; p < comptrollers.length; p++) {
            _pool(tape, comptrollers[p], wallet);
        }
        _finish(tape);
    }

    /// @dev The registry's pools' Comptrollers (none where it lists too many).
    function _pools(Tape memory tape, address registry) private view returns (address[] memory comptrollers) {
        (bool ok, bytes memory data) = _call(tape, registry, abi.encodeCall(IVenusPoolRegistry.getAllPools, ()));
        if (!ok || data.length < 64) return comptrollers;
        IVenusPoolRegistry.VenusPool[] memory pools = abi.decode(data, (IVenusPoolRegistry.VenusPool[]));
        if (pools.length > MAX_ITEMS) return comptrollers;
        comptrollers = new address[](pools.length);
        for (uint256 i = 0; i < pools.length; i++) {
            comptrollers[i] = pools[i].comptroller;
        }
    }

    /// @dev One pool: its round, its snapshots, the held markets' views, the reward tokens, then the accruals.
    function _pool(Tape memory tape, address comptroller, address wallet) private {
        (address[] memory markets, address oracle, address[] memory distributors, bool[] memory timed) =
            _round(tape, comptroller, wallet);
        (bool[] memory held, bool[] memory borrowed) = _snapshots(tape, markets, wallet);
        for (uint256 i = 0; i < markets.length; i++) {
            if (!held[i]) continue;
            _market(tape, comptroller, oracle, markets[i]);
            for (uint256 d = 0; d < distributors.length; d++) {
                _rewards(tape, distributors[d], timed[d], markets[i], wallet);
            }
            _totals(tape, markets[i]);
        }
        for (uint256 d = 0; d < distributors.length; d++) {
            address token = address(
                uint160(_word(tape, distributors[d], abi.encodeCall(IRewardsDistributor.rewardToken, ())))
            );
            _tokenInfo(tape, token);
            _call(tape, oracle, abi.encodeCall(IVenusOracle.getPrice, (token)));
        }
        _accruals(tape, markets, held, borrowed, wallet);
    }

    /// @dev The Comptroller's round and its distributors' (none of either where it lists too many).
    function _round(Tape memory tape, address comptroller, address wallet)
        private
        view
        returns (address[] memory markets, address oracle, address[] memory distributors, bool[] memory timed)
    {
        (bool listed, bytes memory list) = _call(tape, comptroller, abi.encodeCall(IPoolComptroller.getAllMarkets, ()));
        _call(tape, comptroller, abi.encodeCall(IPoolComptroller.getAssetsIn, (wallet)));
        oracle = address(uint160(_word(tape, comptroller, abi.encodeCall(IPoolComptroller.oracle, ()))));
        _call(tape, comptroller, abi.encodeCall(IPoolComptroller.getAccountLiquidity, (wallet)));
        (bool paying, bytes memory payers) =
            _call(tape, comptroller, abi.encodeCall(IPoolComptroller.getRewardDistributors, ()));
        if (listed && list.length >= 64) markets = abi.decode(list, (address[]));
        if (markets.length > MAX_ITEMS) markets = new address[](0);
        if (paying && payers.length >= 64) distributors = abi.decode(payers, (address[]));
        if (distributors.length > MAX_ITEMS) distributors = new address[](0);
        timed = new bool[](distributors.length);
        for (uint256 d = 0; d < distributors.length; d++) {
            address distributor = distributors[d];
            _call(tape, distributor, abi.encodeCall(IRewardsDistributor.rewardToken, ()));
            (bool ok, bytes memory clock) =
                _call(tape, distributor, abi.encodeCall(IRewardsDistributor.isTimeBased, ()));
            timed[d] = ok && clock.length >= 32 && _at(clock, 0) != 0;
            _call(tape, distributor, abi.encodeCall(IRewardsDistributor.rewardTokenAccrued, (wallet)));
            _call(tape, distributor, abi.encodeCall(IRewardsDistributor.INITIAL_INDEX, ()));
        }
    }

    /// @dev A held market's views (markets.py, positions.py).
    function _market(Tape memory tape, address comptroller, address oracle, address vToken) private view {
        _vToken(tape, oracle, vToken);
        _call(tape, vToken, abi.encodeCall(IPoolVToken.blocksOrSecondsPerYear, ()));
        _call(tape, comptroller, abi.encodeCall(IPoolComptroller.markets, (vToken)));
    }

    /// @dev A distributor's state (by its clock), speeds and the account's indexes on one market.
    function _rewards(Tape memory tape, address distributor, bool timed, address vToken, address wallet)
        private
        view
    {
        if (timed) {
            _call(tape, distributor, abi.encodeCall(IRewardsDistributor.rewardTokenSupplyStateTimeBased, (vToken)));
            _call(tape, distributor, abi.encodeCall(IRewardsDistributor.rewardTokenBorrowStateTimeBased, (vToken)));
        } else {
            _call(tape, distributor, abi.encodeCall(IRewardsDistributor.rewardTokenSupplyState, (vToken)));
            _call(tape, distributor, abi.encodeCall(IRewardsDistributor.rewardTokenBorrowState, (vToken)));
        }
        _call(tape, distributor, abi.encodeCall(IRewardsDistributor.rewardTokenSupplySpeeds, (vToken)));
        _call(tape, distributor, abi.encodeCall(IRewardsDistributor.rewardTokenBorrowSpeeds, (vToken)));
        _call(tape, distributor, abi.encodeCall(IRewardsDistributor.rewardTokenSupplierIndex, (vToken, wallet)));
        _call(tape, distributor, abi.encodeCall(IRewardsDistributor.rewardTokenBorrowerIndex, (vToken, wallet)));
    }
}
