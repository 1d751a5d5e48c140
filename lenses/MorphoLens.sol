// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev Morpho Blue's views (IMorphoStaticTyping's), its types as Morpho Blue declares them.
interface IMorpho {
    struct MarketParams {
        address loanToken;
        address collateralToken;
        address oracle;
        address irm;
        uint256 lltv;
    }

    struct Market {
        uint128 totalSupplyAssets;
        uint128 totalSupplyShares;
        uint128 totalBorrowAssets;
        uint128 totalBorrowShares;
        uint128 lastUpdate;
        uint128 fee;
    }

    function feeRecipient() external view returns (address);

    function position(bytes32 id, address user)
        external
        view
        returns (uint256 supplyShares, uint128 borrowShares, uint128 collateral);

    function market(bytes32 id)
        external
        view
        returns (
            uint128 totalSupplyAssets,
            uint128 totalSupplyShares,
            uint128 totalBorrowAssets,
            uint128 totalBorrowShares,
            uint128 lastUpdate,
            uint128 fee
        );

    function idToMarketParams(bytes32 id)
        external
        view
        returns (address loanToken, address collateralToken, address oracle, address irm, uint256 lltv);
}

/// @dev A market's interest rate model.
interface IIrm {
    function borrowRateView(IMorpho.MarketParams memory marketParams, IMorpho.Market memory market)
        external
        view
        returns (uint256);
}

/// @dev The AdaptiveCurveIrm's own view.
interface IAdaptiveCurveIrm {
    function rateAtTarget(bytes32 id) external view returns (int256);
}

/// @dev A market's oracle.
interface IOracle {
    function price() external view returns (uint256);
}

/// @dev The feeds a MorphoChainlinkOracle(V2) multiplies (each an AggregatorV3Interface).
interface IMorphoChainlinkOracleV2 {
    function BASE_FEED_1() external view returns (address);

    function BASE_FEED_2() external view returns (address);

    function QUOTE_FEED_1() external view returns (address);

    function QUOTE_FEED_2() external view returns (address);
}

/// @dev A MetaMorpho (vault V1) vault's views beyond ERC-4626's.
interface IMetaMorpho {
    function fee() external view returns (uint96);

    function withdrawQueueLength() external view returns (uint256);

    function withdrawQueue(uint256 index) external view returns (bytes32);
}

/// @dev A Morpho Vault V2's views beyond ERC-4626's.
interface IVaultV2 {
    function performanceFee() external view returns (uint96);

    function managementFee() external view returns (uint96);

    function maxRate() external view returns (uint64);

    function adaptersLength() external view returns (uint256);

    function adapters(uint256 index) external view returns (address);
}

/// @dev A Vault V2 adapter that lists its Morpho Blue markets by id.
interface IMorphoMarketV1AdapterV2 {
    function marketIdsLength() external view returns (uint256);

    function marketIds(uint256 index) external view returns (bytes32);
}

/// @dev A Vault V2 adapter that lists its Morpho Blue markets by parameters.
interface IMorphoMarketV1Adapter {
    function marketParamsListLength() external view returns (uint256);

    function marketParamsList(uint256 index)
        external
        view
        returns (address loanToken, address collateralToken, address oracle, address irm, uint256 lltv);
}

/// @dev A Vault V2 adapter that supplies to a MetaMorpho vault.
interface IMorphoVaultV1Adapter {
    function morphoVaultV1() external view returns (address);

    function realAssets() external view returns (uint256);
}

/// @title The reads of one Morpho input (adapters/morpho/positions.py), in one call
/// @notice Given the markets and vaults the event index says the wallet may hold: Morpho Blue's
/// `feeRecipient`; the wallet's `position` in each market and, where it has one, the market's
/// state (`market`, the IRM's `rateAtTarget` and `borrowRateView`), its tokens' facts, the loan
/// token's USD feed and the oracle's `price` (and, for a borrow, its feeds' last rounds); the
/// wallet's `balanceOf` in each vault and, where it holds shares, the vault's asset, name,
/// symbol, `convertToAssets` and what its APY weighs:
/// a V1 vault's fee, withdraw queue, `totalAssets` and supply in each queued market; a V2
/// vault's fees, `maxRate`, idle assets and adapters (markets by id or by parameters, or a V1
/// vault). Each market's state is read once.
contract MorphoLens is Recorder {
    uint256 private constant MAX_QUEUE_LENGTH = 30;
    uint256 private constant MAX_ADAPTERS = 32;
    uint256 private constant MAX_ADAPTER_MARKETS = 64;

    struct Context {
        Tape tape;
        address blue;
        address adaptiveIrm;
        address[] priced;
        address[] feeds;
        bytes32[] seen;
        uint256 seenCount;
    }

    constructor(
        address blue,
        address adaptiveIrm,
        address wallet,
        bytes32[] memory markets,
        address[] memory vaultsV1,
        address[] memory vaultsV2,
        address[] memory priced,
        address[] memory feeds,
        address sequencer
    ) {
        Context memory ctx = Context(_tape(), blue, adaptiveIrm, priced, feeds, new bytes32[](256), 0);
        _call(ctx.tape, blue, abi.encodeCall(IMorpho.feeRecipient, ()));
        for (uint256 i = 0; i < markets.length; i++) {
            _marketPosition(ctx, markets[i], wallet);
        }
        for (uint256 i = 0; i < vaultsV1.length; i++) {
            uint256 shares = _holding(ctx, vaultsV1[i], wallet);
            if (shares > 0) _vaultV1Rates(ctx, vaultsV1[i]);
        }
        for (uint256 i = 0; i < vaultsV2.length; i++) {
            uint256 shares = _holding(ctx, vaultsV2[i], wallet);
            if (shares > 0) _vaultV2Rates(ctx, vaultsV2[i]);
        }
        if (sequencer != address(0)) _call(ctx.tape, sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
        _finish(ctx.tape);
    }

    function _marketPosition(Context memory ctx, bytes32 id, address wallet) private view {
        (bool ok, bytes memory position) = _call(ctx.tape, ctx.blue, abi.encodeCall(IMorpho.position, (id, wallet)));
        if (!ok || (_at(position, 0) == 0 && _at(position, 1) == 0 && _at(position, 2) == 0)) return;
        IMorpho.MarketParams memory params = _marketState(ctx, id);
        _tokenInfo(ctx.tape, params.loanToken);
        if (params.collateralToken != address(0)) _tokenInfo(ctx.tape, params.collateralToken);
        _feed(ctx.tape, _lookup(params.loanToken, ctx.priced, ctx.feeds));
        if (_at(position, 1) != 0 || _at(position, 2) != 0) {
            _call(ctx.tape, params.oracle, abi.encodeCall(IOracle.price, ()));
        }
        if (_at(position, 1) != 0) _oracleFeeds(ctx.tape, params.oracle);
    }

    /// @dev The feeds a MorphoChainlinkOracle(V2) multiplies (BASE_FEED_1, BASE_FEED_2,
    /// QUOTE_FEED_1, QUOTE_FEED_2) and their last rounds: the oracle's last update, for a borrow.
    function _oracleFeeds(Tape memory tape, address oracle) private view {
        bytes4[4] memory getters = [
            IMorphoChainlinkOracleV2.BASE_FEED_1.selector,
            IMorphoChainlinkOracleV2.BASE_FEED_2.selector,
            IMorphoChainlinkOracleV2.QUOTE_FEED_1.selector,
            IMorphoChainlinkOracleV2.QUOTE_FEED_2.selector
        ];
        for (uint256 i = 0; i < 4; i++) {
            address feed = address(uint160(_word(tape, oracle, abi.encodeWithSelector(getters[i]))));
            if (feed != address(0)) _call(tape, feed, abi.encodeCall(IAggregator.latestRoundData, ()));
        }
    }

    /// @dev A market's totals and its IRM's rates, once per market; its parameters are read
    /// without a record (the service has them from its index).
    function _marketState(Context memory ctx, bytes32 id) private view returns (IMorpho.MarketParams memory params) {
        (bool known, bytes memory raw) = ctx.blue.staticcall(abi.encodeCall(IMorpho.idToMarketParams, (id)));
        if (known && raw.length >= 160) params = abi.decode(raw, (IMorpho.MarketParams));
        for (uint256 i = 0; i < ctx.seenCount; i++) {
            if (ctx.seen[i] == id) return params;
        }
        if (ctx.seenCount < ctx.seen.length) ctx.seen[ctx.seenCount++] = id;
        (bool ok, bytes memory totals) = _call(ctx.tape, ctx.blue, abi.encodeCall(IMorpho.market, (id)));
        if (!ok || totals.length != 192 || params.irm == address(0)) return params;
        if (params.irm == ctx.adaptiveIrm) {
            _call(ctx.tape, params.irm, abi.encodeCall(IAdaptiveCurveIrm.rateAtTarget, (id)));
        }
        // borrowRateView(params, market) with the market's six words as Morpho answered them
        // (abi.encodeCall would need them decoded first, and a decode that fails reverts the lens).
        _call(ctx.tape, params.irm, abi.encodePacked(IIrm.borrowRateView.selector, abi.encode(params), totals));
    }

    /// @dev The wallet's shares of a vault and, where it holds some, the vault's own figures.
    function _holding(Context memory ctx, address vault, address wallet) private view returns (uint256 shares) {
        shares = _word(ctx.tape, vault, abi.encodeCall(IERC20.balanceOf, (wallet)));
        if (shares == 0) return 0;
        address asset = address(uint160(_word(ctx.tape, vault, abi.encodeCall(IERC4626.asset, ()))));
        _call(ctx.tape, vault, abi.encodeCall(IERC20.name, ()));
        _call(ctx.tape, vault, abi.encodeCall(IERC20.symbol, ()));
        _call(ctx.tape, vault, abi.encodeCall(IERC4626.convertToAssets, (shares)));
        if (asset == address(0)) return shares;
        _tokenInfo(ctx.tape, asset);
        _feed(ctx.tape, _lookup(asset, ctx.priced, ctx.feeds));
    }

    /// @dev What a MetaMorpho vault's rate weighs: its fee, queue, total assets and supplies.
    function _vaultV1Rates(Context memory ctx, address vault) private view {
        _call(ctx.tape, vault, abi.encodeCall(IMetaMorpho.fee, ()));
        _call(ctx.tape, vault, abi.encodeCall(IERC4626.totalAssets, ()));
        uint256 length = _word(ctx.tape, vault, abi.encodeCall(IMetaMorpho.withdrawQueueLength, ()));
        if (length > MAX_QUEUE_LENGTH) return;
        for (uint256 i = 0; i < length; i++) {
            bytes32 id = bytes32(_word(ctx.tape, vault, abi.encodeCall(IMetaMorpho.withdrawQueue, (i))));
            _supply(ctx, id, vault);
        }
    }

    function _supply(Context memory ctx, bytes32 id, address owner) private view {
        _call(ctx.tape, ctx.blue, abi.encodeCall(IMorpho.position, (id, owner)));
        _marketState(ctx, id);
    }

    /// @dev What a Vault V2's rate weighs: its fees, `maxRate`, idle assets and each adapter's.
    function _vaultV2Rates(Context memory ctx, address vault) private view {
        _call(ctx.tape, vault, abi.encodeCall(IVaultV2.performanceFee, ()));
        _call(ctx.tape, vault, abi.encodeCall(IVaultV2.managementFee, ()));
        _call(ctx.tape, vault, abi.encodeCall(IVaultV2.maxRate, ()));
        address asset = address(uint160(_word(ctx.tape, vault, abi.encodeCall(IERC4626.asset, ()))));
        _call(ctx.tape, asset, abi.encodeCall(IERC20.balanceOf, (vault)));
        uint256 length = _word(ctx.tape, vault, abi.encodeCall(IVaultV2.adaptersLength, ()));
        if (length > MAX_ADAPTERS) return;
        for (uint256 i = 0; i < length; i++) {
            _adapter(ctx, address(uint160(_word(ctx.tape, vault, abi.encodeCall(IVaultV2.adapters, (i))))));
        }
    }

    /// @dev An adapter's kind, by the first of its three probes it answers (as the service
    /// probes them), then where it puts its assets.
    function _adapter(Context memory ctx, address adapter) private view {
        (bool byId, bytes memory ids) =
            _call(ctx.tape, adapter, abi.encodeCall(IMorphoMarketV1AdapterV2.marketIdsLength, ()));
        (bool byParams, bytes memory params) =
            _call(ctx.tape, adapter, abi.encodeCall(IMorphoMarketV1Adapter.marketParamsListLength, ()));
        (bool inVault, bytes memory vault) =
            _call(ctx.tape, adapter, abi.encodeCall(IMorphoVaultV1Adapter.morphoVaultV1, ()));
        if (byId && ids.length >= 32) {
            uint256 length = _at(ids, 0);
            for (uint256 i = 0; length <= MAX_ADAPTER_MARKETS && i < length; i++) {
                bytes32 id = bytes32(_word(ctx.tape, adapter, abi.encodeCall(IMorphoMarketV1AdapterV2.marketIds, (i))));
                _supply(ctx, id, adapter);
            }
        } else if (byParams && params.length >= 32) {
            uint256 length = _at(params, 0);
            for (uint256 i = 0; length <= MAX_ADAPTER_MARKETS && i < length; i++) {
                (bool ok, bytes memory listed) =
                    _call(ctx.tape, adapter, abi.encodeCall(IMorphoMarketV1Adapter.marketParamsList, (i)));
                if (ok && listed.length >= 160) _supply(ctx, _id(listed), adapter);
            }
        } else if (inVault && vault.length >= 32) {
            _call(ctx.tape, adapter, abi.encodeCall(IMorphoVaultV1Adapter.realAssets, ()));
            _vaultV1Rates(ctx, address(uint160(_at(vault, 0))));
        }
    }

    /// @dev A market's id: the hash of its five parameters (Morpho Blue's MarketParamsLib).
    function _id(bytes memory params) private pure returns (bytes32 id) {
        assembly {
            id := keccak256(add(params, 32), 160)
        }
    }
}
