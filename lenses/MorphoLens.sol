// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

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

    struct Params {
        address loanToken;
        address collateralToken;
        address oracle;
        address irm;
        uint256 lltv;
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
        _call(ctx.tape, blue, abi.encodeWithSelector(0x46904840));
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
        if (sequencer != address(0)) _call(ctx.tape, sequencer, abi.encodeWithSelector(0xfeaf968c));
        _finish(ctx.tape);
    }

    function _marketPosition(Context memory ctx, bytes32 id, address wallet) private view {
        (bool ok, bytes memory position) = _call(ctx.tape, ctx.blue, abi.encodeWithSelector(0x93c52062, id, wallet));
        if (!ok || (_at(position, 0) == 0 && _at(position, 1) == 0 && _at(position, 2) == 0)) return;
        Params memory params = _marketState(ctx, id);
        _tokenInfo(ctx.tape, params.loanToken);
        if (params.collateralToken != address(0)) _tokenInfo(ctx.tape, params.collateralToken);
        _feed(ctx.tape, _lookup(params.loanToken, ctx.priced, ctx.feeds));
        if (_at(position, 1) != 0 || _at(position, 2) != 0) {
            _call(ctx.tape, params.oracle, abi.encodeWithSelector(0xa035b1fe));
        }
        if (_at(position, 1) != 0) _oracleFeeds(ctx.tape, params.oracle);
    }

    /// @dev The feeds a MorphoChainlinkOracle(V2) multiplies (BASE_FEED_1, BASE_FEED_2,
    /// QUOTE_FEED_1, QUOTE_FEED_2) and their last rounds: the oracle's last update, for a borrow.
    function _oracleFeeds(Tape memory tape, address oracle) private view {
        bytes4[4] memory getters = [bytes4(0xf50a4718), bytes4(0xdc53858c), bytes4(0x56095e11), bytes4(0xacfbd39e)];
        for (uint256 i = 0; i < 4; i++) {
            address feed = address(uint160(_word(tape, oracle, abi.encodeWithSelector(getters[i]))));
            if (feed != address(0)) _call(tape, feed, abi.encodeWithSelector(0xfeaf968c));
        }
    }

    /// @dev A market's totals and its IRM's rates, once per market; its parameters are read
    /// without a record (the service has them from its index).
    function _marketState(Context memory ctx, bytes32 id) private view returns (Params memory params) {
        (bool known, bytes memory raw) = ctx.blue.staticcall(abi.encodeWithSelector(0x2c3c9157, id));
        if (known && raw.length >= 160) params = abi.decode(raw, (Params));
        for (uint256 i = 0; i < ctx.seenCount; i++) {
            if (ctx.seen[i] == id) return params;
        }
        if (ctx.seenCount < ctx.seen.length) ctx.seen[ctx.seenCount++] = id;
        (bool ok, bytes memory totals) = _call(ctx.tape, ctx.blue, abi.encodeWithSelector(0x5c60e39a, id));
        if (!ok || totals.length != 192 || params.irm == address(0)) return params;
        if (params.irm == ctx.adaptiveIrm) _call(ctx.tape, params.irm, abi.encodeWithSelector(0x01977b57, id));
        _call(ctx.tape, params.irm, abi.encodePacked(bytes4(0x8c00bf6b), abi.encode(params), totals));
    }

    /// @dev The wallet's shares of a vault and, where it holds some, the vault's own figures.
    function _holding(Context memory ctx, address vault, address wallet) private view returns (uint256 shares) {
        shares = _word(ctx.tape, vault, abi.encodeWithSelector(0x70a08231, wallet));
        if (shares == 0) return 0;
        address asset = address(uint160(_word(ctx.tape, vault, abi.encodeWithSelector(0x38d52e0f))));
        _call(ctx.tape, vault, abi.encodeWithSelector(0x06fdde03));
        _call(ctx.tape, vault, abi.encodeWithSelector(0x95d89b41));
        _call(ctx.tape, vault, abi.encodeWithSelector(0x07a2d13a, shares));
        if (asset == address(0)) return shares;
        _tokenInfo(ctx.tape, asset);
        _feed(ctx.tape, _lookup(asset, ctx.priced, ctx.feeds));
    }

    /// @dev What a MetaMorpho vault's rate weighs: its fee, queue, total assets and supplies.
    function _vaultV1Rates(Context memory ctx, address vault) private view {
        _call(ctx.tape, vault, abi.encodeWithSelector(0xddca3f43));
        _call(ctx.tape, vault, abi.encodeWithSelector(0x01e1d114));
        uint256 length = _word(ctx.tape, vault, abi.encodeWithSelector(0x33f91ebb));
        if (length > MAX_QUEUE_LENGTH) return;
        for (uint256 i = 0; i < length; i++) {
            bytes32 id = bytes32(_word(ctx.tape, vault, abi.encodeWithSelector(0x62518ddf, i)));
            _supply(ctx, id, vault);
        }
    }

    function _supply(Context memory ctx, bytes32 id, address owner) private view {
        _call(ctx.tape, ctx.blue, abi.encodeWithSelector(0x93c52062, id, owner));
        _marketState(ctx, id);
    }

    /// @dev What a Vault V2's rate weighs: its fees, `maxRate`, idle assets and each adapter's.
    function _vaultV2Rates(Context memory ctx, address vault) private view {
        _call(ctx.tape, vault, abi.encodeWithSelector(0x87788782));
        _call(ctx.tape, vault, abi.encodeWithSelector(0xa6f7f5d6));
        _call(ctx.tape, vault, abi.encodeWithSelector(0xece1d6e5));
        address asset = address(uint160(_word(ctx.tape, vault, abi.encodeWithSelector(0x38d52e0f))));
        _call(ctx.tape, asset, abi.encodeWithSelector(0x70a08231, vault));
        uint256 length = _word(ctx.tape, vault, abi.encodeWithSelector(0x5aa22bc8));
        if (length > MAX_ADAPTERS) return;
        for (uint256 i = 0; i < length; i++) {
            _adapter(ctx, address(uint160(_word(ctx.tape, vault, abi.encodeWithSelector(0x4ef501ac, i)))));
        }
    }

    /// @dev An adapter's kind, by the first of its three probes it answers (as the service
    /// probes them), then where it puts its assets.
    function _adapter(Context memory ctx, address adapter) private view {
        (bool byId, bytes memory ids) = _call(ctx.tape, adapter, abi.encodeWithSelector(0xace48b45));
        (bool byParams, bytes memory params) = _call(ctx.tape, adapter, abi.encodeWithSelector(0xb045ff5b));
        (bool inVault, bytes memory vault) = _call(ctx.tape, adapter, abi.encodeWithSelector(0xe4baaddf));
        if (byId && ids.length >= 32) {
            uint256 length = _at(ids, 0);
            for (uint256 i = 0; length <= MAX_ADAPTER_MARKETS && i < length; i++) {
                _supply(ctx, bytes32(_word(ctx.tape, adapter, abi.encodeWithSelector(0x779a9683, i))), adapter);
            }
        } else if (byParams && params.length >= 32) {
            uint256 length = _at(params, 0);
            for (uint256 i = 0; length <= MAX_ADAPTER_MARKETS && i < length; i++) {
                (bool ok, bytes memory listed) = _call(ctx.tape, adapter, abi.encodeWithSelector(0x3e351242, i));
                if (ok && listed.length >= 160) _supply(ctx, _id(listed), adapter);
            }
        } else if (inVault && vault.length >= 32) {
            _call(ctx.tape, adapter, abi.encodeWithSelector(0x56c07573));
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
