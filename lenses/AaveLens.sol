// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

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
contract AaveLens is Recorder {
    uint256 private constant MAX_RESERVES = 128;
    uint256 private constant MAX_REWARDS = 32;

    struct Market {
        address pool;
        address dataProvider;
        address oracle;
        uint256 emode;
        bool borrowing;
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
        address[] memory oracles
    ) {
        Tape memory tape = _tape();
        for (uint256 i = 0; i < pools.length; i++) {
            Market memory market = Market(pools[i], dataProviders[i], oracles[i], 0, false);
            _market(tape, market, providers[i], wallet);
        }
        _finish(tape);
    }

    function _market(Tape memory tape, Market memory market, address provider, address wallet) private view {
        (bool listed, bytes memory list) = _call(tape, market.pool, abi.encodeWithSelector(0xd1946dbc));
        market.borrowing = _wordAt(tape, market.pool, abi.encodeWithSelector(0xbf92857c, wallet), 1) != 0;
        market.emode = _word(tape, market.pool, abi.encodeWithSelector(0xeddf1b79, wallet));
        market.dataProvider = _current(tape, provider, 0xe860accb, market.dataProvider);
        market.oracle = _current(tape, provider, 0xfca513a8, market.oracle);
        if (!listed || list.length < 64) return;
        address[] memory reserves = abi.decode(list, (address[]));
        if (reserves.length > MAX_RESERVES) return;
        Holdings memory holdings = _holdings(tape, market, reserves, wallet);
        _call(tape, market.oracle, abi.encodeWithSelector(0xe19f4700));
        _call(tape, market.oracle, abi.encodeWithSelector(0x8c89b64f));
        if (!holdings.any) return;
        if (holdings.supplies) _rules(tape, market, holdings.flagged, holdings.flags);
        Earning memory earning = Earning(new address[](2 * reserves.length), new address[](2 * reserves.length), 0);
        for (uint256 i = 0; i < reserves.length; i++) {
            if (!holdings.held[i]) continue;
            _reserve(tape, market, reserves[i], holdings.supplied[i]);
            _incentives(tape, market, reserves[i], holdings.supplied[i], holdings.variable[i], earning);
        }
        _claims(tape, earning, wallet);
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
            _call(tape, market.dataProvider, abi.encodeWithSelector(0xd2493b6c, asset));
        if (!ok || tokens.length < 96) return;
        if (supplied) _rates(tape, address(uint160(_at(tokens, 0))), earning);
        if (variable) _rates(tape, address(uint160(_at(tokens, 2))), earning);
    }

    /// @dev A token's controller, its rewards, their terms, tokens and prices, and its total supply.
    function _rates(Tape memory tape, address token, Earning memory earning) private view {
        address controller = address(uint160(_wordAt(tape, token, abi.encodeWithSelector(0x75d26413), 0)));
        earning.tokens[earning.count] = token;
        earning.controllers[earning.count++] = controller;
        if (controller == address(0)) return;
        (bool ok, bytes memory list) = _call(tape, controller, abi.encodeWithSelector(0x6657732f, token));
        _call(tape, token, abi.encodeWithSelector(0x18160ddd));
        uint256 n = _at(list, 1);
        if (!ok || _at(list, 0) != 32 || n > MAX_REWARDS) return;
        for (uint256 j = 0; j < n; j++) {
            address reward = address(uint160(_at(list, 2 + j)));
            _call(tape, controller, abi.encodeWithSelector(0x7eff4ba8, token, reward));
            _tokenInfo(tape, reward);
            _rewardPrice(tape, controller, reward);
        }
    }

    function _rewardPrice(Tape memory tape, address controller, address reward) private view {
        address oracle = address(uint160(_wordAt(tape, controller, abi.encodeWithSelector(0x2a17bf60, reward), 0)));
        if (oracle == address(0)) return;
        _call(tape, oracle, abi.encodeWithSelector(0x50d25bcd));
        _call(tape, oracle, abi.encodeWithSelector(0x313ce567));
    }

    /// @dev Per controller (in the order first named), `getAllUserRewards` over the wallet's tokens
    /// it pays on, then the token facts and price of each reward it owes.
    function _claims(Tape memory tape, Earning memory earning, address wallet) private view {
        for (uint256 i = 0; i < earning.count; i++) {
            address controller = earning.controllers[i];
            bool first = controller != address(0);
            for (uint256 k = 0; first && k < i; k++) {
                first = earning.controllers[k] != controller;
            }
            if (!first) continue;
            address[] memory tokens = new address[](earning.count);
            uint256 n = 0;
            for (uint256 k = i; k < earning.count; k++) {
                if (earning.controllers[k] == controller) tokens[n++] = earning.tokens[k];
            }
            assembly {
                mstore(tokens, n)
            }
            (bool ok, bytes memory owed) =
                _call(tape, controller, abi.encodeWithSelector(0x4c0369c3, tokens, wallet));
            if (!ok) continue;
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
            (bool ok, bytes memory user) =
                _call(tape, market.dataProvider, abi.encodeWithSelector(0x28dd2d01, reserves[i], wallet));
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
        _call(tape, market.pool, abi.encodeWithSelector(0xfd89dee5, uint8(category)));
        if (market.emode != 0) {
            _call(tape, market.pool, abi.encodeWithSelector(0xb0771dba, uint8(category)));
            _call(tape, market.pool, abi.encodeWithSelector(0xb286f467, uint8(category)));
            (bool ok, bytes memory data) = _call(tape, market.pool, abi.encodeWithSelector(0x6c6f6ae1, uint8(category)));
            address source = ok ? address(uint160(_at(data, 4))) : address(0);
            if (source != address(0)) _call(tape, market.oracle, abi.encodeWithSelector(0xb3596f07, source));
            if (source != address(0) && market.borrowing) _priceTime(tape, market.oracle, source);
        }
        for (uint256 i = 0; flags <= 2 && i < flags; i++) {
            _call(tape, market.dataProvider, abi.encodeWithSelector(0x3c798109, flagged[i]));
        }
    }

    function _reserve(Tape memory tape, Market memory market, address asset, bool supplied) private view {
        _call(tape, market.dataProvider, abi.encodeWithSelector(0x35ea6a75, asset));
        _call(tape, market.dataProvider, abi.encodeWithSelector(0x3e150141, asset));
        _call(tape, market.oracle, abi.encodeWithSelector(0xb3596f07, asset));
        _tokenInfo(tape, asset);
        if (market.emode != 0) _call(tape, market.pool, abi.encodeWithSelector(0x35ea6a75, asset));
        if (supplied) _call(tape, market.dataProvider, abi.encodeWithSelector(0x3c798109, asset));
        if (market.borrowing) _priceTime(tape, market.oracle, asset);
    }

    /// @dev The reads of the time of the oracle's price for `asset` (adapters/aave/risk.py).
    function _priceTime(Tape memory tape, address oracle, address asset) private view {
        address source = address(uint160(_wordAt(tape, oracle, abi.encodeWithSelector(0x92bf2be0, asset), 0)));
        if (source == address(0)) return;
        (bool ok, bytes memory round) = _call(tape, source, abi.encodeWithSelector(0xfeaf968c));
        if (ok && round.length >= 160) return;
        address inner = address(uint160(_wordAt(tape, source, abi.encodeWithSelector(0x4ebdc284), 0)));
        address base = address(uint160(_wordAt(tape, source, abi.encodeWithSelector(0xd221087c), 0)));
        if (inner == address(0)) inner = base;
        if (inner != address(0)) _call(tape, inner, abi.encodeWithSelector(0xfeaf968c));
    }
}
