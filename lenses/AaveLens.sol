// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev The Pool's views: those of every v3 version, and the e-mode views of v3.2 and v3.6.
interface IPool {
    struct ReserveConfigurationMap {
        uint256 data;
    }

    /// @dev getReserveData's answer, the layout every version from v3.0 keeps.
    struct ReserveData {
        ReserveConfigurationMap configuration;
        uint128 liquidityIndex;
        uint128 currentLiquidityRate;
        uint128 variableBorrowIndex;
        uint128 currentVariableBorrowRate;
        uint128 currentStableBorrowRate;
        uint40 lastUpdateTimestamp;
        uint16 id;
        address aTokenAddress;
        address stableDebtTokenAddress;
        address variableDebtTokenAddress;
        address interestRateStrategyAddress;
        uint128 accruedToTreasury;
        uint128 unbacked;
        uint128 isolationModeTotalDebt;
    }

    struct EModeCategory {
        uint16 ltv;
        uint16 liquidationThreshold;
        uint16 liquidationBonus;
        address priceSource;
        string label;
    }

    struct CollateralConfig {
        uint16 ltv;
        uint16 liquidationThreshold;
        uint16 liquidationBonus;
    }

    function getReservesList() external view returns (address[] memory);

    function getUserAccountData(address user)
        external
        view
        returns (
            uint256 totalCollateralBase,
            uint256 totalDebtBase,
            uint256 availableBorrowsBase,
            uint256 currentLiquidationThreshold,
            uint256 ltv,
            uint256 healthFactor
        );

    function getUserEMode(address user) external view returns (uint256);

    function getReserveData(address asset) external view returns (ReserveData memory);

    function getEModeCategoryData(uint8 id) external view returns (EModeCategory memory);

    function getEModeCategoryLtvzeroBitmap(uint8 id) external view returns (uint128);

    function getEModeCategoryCollateralBitmap(uint8 id) external view returns (uint128);

    function getEModeCategoryCollateralConfig(uint8 id) external view returns (CollateralConfig memory);
}

interface IPoolAddressesProvider {
    function getPoolDataProvider() external view returns (address);

    function getPriceOracle() external view returns (address);
}

/// @dev The AaveProtocolDataProvider.
interface IPoolDataProvider {
    function getReserveTokensAddresses(address asset)
        external
        view
        returns (address aTokenAddress, address stableDebtTokenAddress, address variableDebtTokenAddress);

    function getUserReserveData(address asset, address user)
        external
        view
        returns (
            uint256 currentATokenBalance,
            uint256 currentStableDebt,
            uint256 currentVariableDebt,
            uint256 principalStableDebt,
            uint256 scaledVariableDebt,
            uint256 stableBorrowRate,
            uint256 liquidityRate,
            uint40 stableRateLastUpdated,
            bool usageAsCollateralEnabled
        );

    function getReserveData(address asset)
        external
        view
        returns (
            uint256 unbacked,
            uint256 accruedToTreasuryScaled,
            uint256 totalAToken,
            uint256 totalStableDebt,
            uint256 totalVariableDebt,
            uint256 liquidityRate,
            uint256 variableBorrowRate,
            uint256 stableBorrowRate,
            uint256 averageStableBorrowRate,
            uint256 liquidityIndex,
            uint256 variableBorrowIndex,
            uint40 lastUpdateTimestamp
        );

    function getReserveConfigurationData(address asset)
        external
        view
        returns (
            uint256 decimals,
            uint256 ltv,
            uint256 liquidationThreshold,
            uint256 liquidationBonus,
            uint256 reserveFactor,
            bool usageAsCollateralEnabled,
            bool borrowingEnabled,
            bool stableBorrowRateEnabled,
            bool isActive,
            bool isFrozen
        );

    function getDebtCeiling(address asset) external view returns (uint256);
}

/// @dev The AaveOracle.
interface IAaveOracle {
    function BASE_CURRENCY() external view returns (address);

    function BASE_CURRENCY_UNIT() external view returns (uint256);

    function getAssetPrice(address asset) external view returns (uint256);

    function getSourceOfAsset(address asset) external view returns (address);
}

/// @dev An aToken or debt token (IncentivizedERC20): the controller of its incentives.
interface IIncentivizedERC20 {
    function getIncentivesController() external view returns (address);
}

/// @dev The periphery's RewardsController.
interface IRewardsController {
    function getRewardsByAsset(address asset) external view returns (address[] memory);

    function getRewardsData(address asset, address reward)
        external
        view
        returns (uint256, uint256, uint256, uint256);

    function getRewardOracle(address reward) external view returns (address);

    function getAllUserRewards(address[] memory assets, address user)
        external
        view
        returns (address[] memory, uint256[] memory);
}

/// @dev Aave v2's IncentivesController (aave/incentives-controller; `@aave/aave-stake`): one reward token.
interface IIncentivesControllerV2 {
    function assets(address asset) external view returns (uint128, uint128, uint256);

    function REWARD_TOKEN() external view returns (address);

    function DISTRIBUTION_END() external view returns (uint256);

    function getRewardsBalance(address[] memory assets, address user) external view returns (uint256);
}

/// @dev A safety module's token (stkAAVE): the token it stakes, which prices it.
interface IStakedToken {
    function STAKED_TOKEN() external view returns (address);
}

/// @dev A CAPO adapter of a stablecoin (bgd-labs/aave-capo's IPriceCapAdapterStable): the feed it caps.
interface IPriceCapAdapterStable {
    function ASSET_TO_USD_AGGREGATOR() external view returns (address);
}

/// @dev A CAPO adapter of a yield-bearing asset (bgd-labs/aave-capo's IPriceCapAdapter): its base feed.
interface IPriceCapAdapter {
    function BASE_TO_USD_AGGREGATOR() external view returns (address);
}

/// @title The reads of one Aave v3 input (adapters/aave/positions.py, collateral.py), in one call
/// @notice Per market: the Pool's `getReservesList`, the wallet's `getUserAccountData` and
/// `getUserEMode`, the data provider and oracle its PoolAddressesProvider names (else the
/// recorded ones); the wallet's `getUserReserveData` for every reserve and the oracle's base
/// currency. Where it holds reserves: the collateral rules' reads (the v3.6 ltvzero bitmap, the
/// e-mode category's bitmap and config, its v3.0/3.1 data and its price source's price, the debt
/// ceilings isolation mode needs) and, per held reserve, `getReserveData`,
/// `getReserveConfigurationData`, `getAssetPrice`, the token facts, in an e-mode the Pool's
/// `getReserveData`, for a supply its debt ceiling and, when the wallet borrows, the time of its
/// price (adapters/aave/risk.py: the oracle's source, its round, or the feed a CAPO adapter wraps).
/// A v2 market (its `versions` entry 2) makes v2's reads: no e-mode, data provider from its
/// provider, base currency, collateral rules or debt ceilings; its IncentivesController's reads
/// (adapters/aave/incentives.py) in place of the RewardsController's.
contract AaveLens is Recorder {
    uint256 private constant MAX_RESERVES = 128;
    uint256 private constant MAX_REWARDS = 32;

    struct Market {
        address pool;
        address dataProvider;
        address oracle;
        uint256 emode;
        bool borrowing;
        bool v2;
    }

    struct Holdings {
        bool[] held;
        bool[] supplied;
        bool[] variable;
        address[] flagged;
        uint256 flags;
        bool any;
        bool supplies;
    }

    /// @dev The wallet's tokens that may earn incentives, in the order the service lists them.
    struct Earning {
        address[] tokens;
        address[] controllers;
        uint256 count;
    }

    constructor(
        address wallet,
        address[] memory pools,
        address[] memory providers,
        address[] memory dataProviders,
        address[] memory oracles,
        uint256[] memory versions
    ) {
        Tape memory tape = _tape();
        for (uint256 i = 0; i < pools.length; i++) {
            Market memory market = Market(pools[i], dataProviders[i], oracles[i], 0, false, versions[i] == 2);
            _market(tape, market, providers[i], wallet);
        }
        _finish(tape);
    }

    function _market(Tape memory tape, Market memory market, address provider, address wallet) private view {
        (bool listed, bytes memory list) = _call(tape, market.pool, abi.encodeCall(IPool.getReservesList, ()));
        market.borrowing = _wordAt(tape, market.pool, abi.encodeCall(IPool.getUserAccountData, (wallet)), 1) != 0;
        if (!market.v2) {
            market.emode = _word(tape, market.pool, abi.encodeCall(IPool.getUserEMode, (wallet)));
            market.dataProvider =
                _current(tape, provider, IPoolAddressesProvider.getPoolDataProvider.selector, market.dataProvider);
        }
        market.oracle = _current(tape, provider, IPoolAddressesProvider.getPriceOracle.selector, market.oracle);
        if (!listed || list.length < 64) return;
        address[] memory reserves = abi.decode(list, (address[]));
        if (reserves.length > MAX_RESERVES) return;
        Holdings memory holdings = _holdings(tape, market, reserves, wallet);
        if (!market.v2) _call(tape, market.oracle, abi.encodeCall(IAaveOracle.BASE_CURRENCY, ()));
        _call(tape, market.oracle, abi.encodeCall(IAaveOracle.BASE_CURRENCY_UNIT, ()));
        if (!holdings.any) return;
        if (holdings.supplies && !market.v2) _rules(tape, market, holdings.flagged, holdings.flags);
        Earning memory earning = Earning(new address[](2 * reserves.length), new address[](2 * reserves.length), 0);
        for (uint256 i = 0; i < reserves.length; i++) {
            if (!holdings.held[i]) continue;
            _reserve(tape, market, reserves[i], holdings.supplied[i]);
            _incentives(tape, market, reserves[i], holdings.supplied[i], holdings.variable[i], earning);
        }
        _claims(tape, market, earning, wallet);
    }

    /// @dev The reserve's tokens, and the incentives of those the wallet holds (adapters/aave/rewards.py).
    function _incentives(
        Tape memory tape,
        Market memory market,
        address asset,
        bool supplied,
        bool variable,
        Earning memory earning
    ) private view {
        (bool ok, bytes memory tokens) =
            _call(tape, market.dataProvider, abi.encodeCall(IPoolDataProvider.getReserveTokensAddresses, (asset)));
        if (!ok || tokens.length < 96) return;
        if (supplied) _rates(tape, market, address(uint160(_at(tokens, 0))), earning);
        if (variable) _rates(tape, market, address(uint160(_at(tokens, 2))), earning);
    }

    /// @dev A token's controller, its rewards, their terms, tokens and prices, and its total supply.
    function _rates(Tape memory tape, Market memory market, address token, Earning memory earning) private view {
        address controller =
            address(uint160(_wordAt(tape, token, abi.encodeCall(IIncentivizedERC20.getIncentivesController, ()), 0)));
        earning.tokens[earning.count] = token;
        earning.controllers[earning.count++] = controller;
        if (controller == address(0)) return;
        if (market.v2) {
            _call(tape, controller, abi.encodeCall(IIncentivesControllerV2.assets, (token)));
            _call(tape, controller, abi.encodeCall(IIncentivesControllerV2.DISTRIBUTION_END, ()));
            _call(tape, token, abi.encodeCall(IERC20.totalSupply, ()));
            _v2Reward(tape, market, controller);
            return;
        }
        (bool ok, bytes memory list) =
            _call(tape, controller, abi.encodeCall(IRewardsController.getRewardsByAsset, (token)));
        _call(tape, token, abi.encodeCall(IERC20.totalSupply, ()));
        uint256 n = _at(list, 1);
        if (!ok || _at(list, 0) != 32 || n > MAX_REWARDS) return;
        for (uint256 j = 0; j < n; j++) {
            address reward = address(uint160(_at(list, 2 + j)));
            _call(tape, controller, abi.encodeCall(IRewardsController.getRewardsData, (token, reward)));
            _tokenInfo(tape, reward);
            _rewardPrice(tape, controller, reward);
        }
    }

    function _rewardPrice(Tape memory tape, address controller, address reward) private view {
        bytes memory getOracle = abi.encodeCall(IRewardsController.getRewardOracle, (reward));
        address oracle = address(uint160(_wordAt(tape, controller, getOracle, 0)));
        if (oracle == address(0)) return;
        _call(tape, oracle, abi.encodeCall(IAggregator.latestAnswer, ()));
        _call(tape, oracle, abi.encodeCall(IAggregator.decimals, ()));
    }

    /// @dev A v2 controller's reward token, its facts and its price by the market's oracle (or, at
    /// none, that of the token it stakes).
    function _v2Reward(Tape memory tape, Market memory market, address controller) private view {
        address reward = address(
            uint160(_wordAt(tape, controller, abi.encodeCall(IIncentivesControllerV2.REWARD_TOKEN, ()), 0))
        );
        if (reward == address(0)) return;
        _tokenInfo(tape, reward);
        uint256 price = _wordAt(tape, market.oracle, abi.encodeCall(IAaveOracle.getAssetPrice, (reward)), 0);
        address staked = address(uint160(_wordAt(tape, reward, abi.encodeCall(IStakedToken.STAKED_TOKEN, ()), 0)));
        if (price == 0 && staked != address(0)) {
            _call(tape, market.oracle, abi.encodeCall(IAaveOracle.getAssetPrice, (staked)));
        }
    }

    /// @dev Per controller (in the order first named), `getAllUserRewards` (v2: `getRewardsBalance`)
    /// over the wallet's tokens it pays on, then the token facts and price of each reward it owes.
    function _claims(Tape memory tape, Market memory market, Earning memory earning, address wallet) private view {
        for (uint256 i = 0; i < earning.count; i++) {
            address controller = earning.controllers[i];
            bool first = controller != address(0);
            for (uint256 k = 0; first && k < i; k++) {
                first = earning.controllers[k] != controller;
            }
            if (!first) continue;
            address[] memory tokens = _paidBy(earning, i);
            if (market.v2) {
                bytes memory balance = abi.encodeCall(IIncentivesControllerV2.getRewardsBalance, (tokens, wallet));
                if (_wordAt(tape, controller, balance, 0) != 0) _v2Reward(tape, market, controller);
            } else {
                _owed(tape, controller, tokens, wallet);
            }
        }
    }

    /// @dev The wallet's tokens the controller of token `i` pays on, from that one on.
    function _paidBy(Earning memory earning, uint256 i) private pure returns (address[] memory tokens) {
        tokens = new address[](earning.count);
        uint256 n = 0;
        for (uint256 k = i; k < earning.count; k++) {
            if (earning.controllers[k] == earning.controllers[i]) tokens[n++] = earning.tokens[k];
        }
        assembly {
            mstore(tokens, n)
        }
    }

    /// @dev A RewardsController's `getAllUserRewards`, then the facts and price of each reward owed.
    function _owed(Tape memory tape, address controller, address[] memory tokens, address wallet) private view {
        (bool ok, bytes memory owed) =
            _call(tape, controller, abi.encodeCall(IRewardsController.getAllUserRewards, (tokens, wallet)));
        if (!ok) return;
        uint256 rewards = _at(owed, 0) / 32;
        uint256 amounts = _at(owed, 1) / 32;
        uint256 count = _at(owed, rewards);
        for (uint256 j = 0; j < count && j < MAX_REWARDS; j++) {
            if (_at(owed, amounts + 1 + j) == 0) continue;
            address reward = address(uint160(_at(owed, rewards + 1 + j)));
            _tokenInfo(tape, reward);
            _rewardPrice(tape, controller, reward);
        }
    }

    /// @dev The wallet's `getUserReserveData` of every reserve: which it holds, supplies, flags.
    function _holdings(Tape memory tape, Market memory market, address[] memory reserves, address wallet)
        private
        view
        returns (Holdings memory holdings)
    {
        holdings.held = new bool[](reserves.length);
        holdings.supplied = new bool[](reserves.length);
        holdings.variable = new bool[](reserves.length);
        holdings.flagged = new address[](reserves.length);
        for (uint256 i = 0; i < reserves.length; i++) {
            (bool ok, bytes memory user) = _call(
                tape, market.dataProvider, abi.encodeCall(IPoolDataProvider.getUserReserveData, (reserves[i], wallet))
            );
            if (!ok) continue;
            holdings.supplied[i] = _at(user, 0) != 0;
            holdings.variable[i] = _at(user, 2) != 0;
            holdings.held[i] = holdings.supplied[i] || _at(user, 1) != 0 || _at(user, 2) != 0;
            if (_at(user, 8) != 0) holdings.flagged[holdings.flags++] = reserves[i];
            holdings.any = holdings.any || holdings.held[i];
            holdings.supplies = holdings.supplies || holdings.supplied[i];
        }
    }

    /// @dev The provider's current contract, or the recorded one when it cannot say.
    function _current(Tape memory tape, address provider, bytes4 selector, address recorded)
        private
        view
        returns (address)
    {
        (bool ok, bytes memory ret) = _call(tape, provider, abi.encodeWithSelector(selector));
        return ok && ret.length >= 32 ? address(uint160(_at(ret, 0))) : recorded;
    }

    function _rules(Tape memory tape, Market memory market, address[] memory flagged, uint256 flags) private view {
        uint256 category = market.emode > 255 ? 255 : market.emode;
        _call(tape, market.pool, abi.encodeCall(IPool.getEModeCategoryLtvzeroBitmap, (uint8(category))));
        if (market.emode != 0) {
            _call(tape, market.pool, abi.encodeCall(IPool.getEModeCategoryCollateralBitmap, (uint8(category))));
            _call(tape, market.pool, abi.encodeCall(IPool.getEModeCategoryCollateralConfig, (uint8(category))));
            (bool ok, bytes memory data) =
                _call(tape, market.pool, abi.encodeCall(IPool.getEModeCategoryData, (uint8(category))));
            address source = ok ? address(uint160(_at(data, 4))) : address(0);
            if (source != address(0)) _call(tape, market.oracle, abi.encodeCall(IAaveOracle.getAssetPrice, (source)));
            if (source != address(0) && market.borrowing) _priceTime(tape, market.oracle, source);
        }
        for (uint256 i = 0; flags <= 2 && i < flags; i++) {
            _call(tape, market.dataProvider, abi.encodeCall(IPoolDataProvider.getDebtCeiling, (flagged[i])));
        }
    }

    function _reserve(Tape memory tape, Market memory market, address asset, bool supplied) private view {
        _call(tape, market.dataProvider, abi.encodeCall(IPoolDataProvider.getReserveData, (asset)));
        _call(tape, market.dataProvider, abi.encodeCall(IPoolDataProvider.getReserveConfigurationData, (asset)));
        _call(tape, market.oracle, abi.encodeCall(IAaveOracle.getAssetPrice, (asset)));
        _tokenInfo(tape, asset);
        if (market.emode != 0) _call(tape, market.pool, abi.encodeCall(IPool.getReserveData, (asset)));
        if (supplied && !market.v2) {
            _call(tape, market.dataProvider, abi.encodeCall(IPoolDataProvider.getDebtCeiling, (asset)));
        }
        if (market.borrowing) _priceTime(tape, market.oracle, asset);
    }

    /// @dev The reads of the time of the oracle's price for `asset` (adapters/aave/risk.py).
    function _priceTime(Tape memory tape, address oracle, address asset) private view {
        address source =
            address(uint160(_wordAt(tape, oracle, abi.encodeCall(IAaveOracle.getSourceOfAsset, (asset)), 0)));
        if (source == address(0)) return;
        (bool ok, bytes memory round) = _call(tape, source, abi.encodeCall(IAggregator.latestRoundData, ()));
        if (ok && round.length >= 160) return;
        address inner = address(
            uint160(_wordAt(tape, source, abi.encodeCall(IPriceCapAdapterStable.ASSET_TO_USD_AGGREGATOR, ()), 0))
        );
        address base =
            address(uint160(_wordAt(tape, source, abi.encodeCall(IPriceCapAdapter.BASE_TO_USD_AGGREGATOR, ()), 0)));
        if (inner == address(0)) inner = base;
        if (inner != address(0)) _call(tape, inner, abi.encodeCall(IAggregator.latestRoundData, ()));
    }
}
