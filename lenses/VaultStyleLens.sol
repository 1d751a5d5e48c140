// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @title The reads of one vault-style input (adapters/vault_style/positions.py), in one call
/// @notice For each share vault: the wallet's `balanceOf` and, where the vault has them,
/// `cooldowns`; for a vault it holds or waits on: the share token's name, symbol and decimals,
/// `asset()`, `convertToAssets` of its shares and of one whole share, `totalAssets()`,
/// `totalSupply()`, the asset's token facts and its USD feed, and its savings rate where it names
/// one (`ssr()`, `pot()` and the Pot's `dsr()`, or `vsr()`). Flags per vault: 1 cooldowns, 2 ssr,
/// 4 dsr, 8 vsr. For each priced token: `balanceOf`;
/// for a held one: its token facts, its issuer feed and its currency's USD feed. Then the
/// sequencer uptime feed, where the chain has one.
contract VaultStyleLens is Recorder {
    constructor(
        address wallet,
        address[] memory vaults,
        uint8[] memory flags,
        address[] memory tokens,
        address[] memory tokenFeeds,
        address[] memory currencyFeeds,
        address[] memory priced,
        address[] memory feeds,
        address sequencer
    ) {
        Tape memory tape = _tape();
        bool held = false;
        for (uint256 i = 0; i < vaults.length; i++) {
            held = _vault(tape, vaults[i], flags[i], wallet, priced, feeds) || held;
        }
        for (uint256 i = 0; i < tokens.length; i++) {
            if (_word(tape, tokens[i], abi.encodeWithSelector(0x70a08231, wallet)) == 0) continue;
            held = true;
            _tokenInfo(tape, tokens[i]);
            _feed(tape, tokenFeeds[i]);
            _feed(tape, currencyFeeds[i]);
        }
        if (held && sequencer != address(0)) _call(tape, sequencer, abi.encodeWithSelector(0xfeaf968c));
        _finish(tape);
    }

    function _vault(
        Tape memory tape,
        address vault,
        uint8 flags,
        address wallet,
        address[] memory priced,
        address[] memory feeds
    ) private view returns (bool) {
        uint256 shares = _word(tape, vault, abi.encodeWithSelector(0x70a08231, wallet));
        uint256 waiting = flags & 1 != 0 ? _wordAt(tape, vault, abi.encodeWithSelector(0x01320fe2, wallet), 1) : 0;
        if (shares == 0 && waiting == 0) return false;
        uint256 decimals = _tokenInfo(tape, vault);
        address asset = address(uint160(_word(tape, vault, abi.encodeWithSelector(0x38d52e0f))));
        _call(tape, vault, abi.encodeWithSelector(0x07a2d13a, shares));
        _call(tape, vault, abi.encodeWithSelector(0x01e1d114));
        _call(tape, vault, abi.encodeWithSelector(0x18160ddd));
        if (decimals < 78) _call(tape, vault, abi.encodeWithSelector(0x07a2d13a, 10 ** decimals));
        if (asset != address(0)) {
            _tokenInfo(tape, asset);
            _feed(tape, _lookup(asset, priced, feeds));
        }
        if (flags & 2 != 0) _call(tape, vault, abi.encodeWithSelector(0x03607ceb));
        if (flags & 8 != 0) _call(tape, vault, abi.encodeWithSelector(0x1e7b14d3));
        if (flags & 4 != 0) {
            address pot = address(uint160(_word(tape, vault, abi.encodeWithSelector(0x4ba2363a))));
            if (pot != address(0)) _call(tape, pot, abi.encodeWithSelector(0x487bf082));
        }
        return true;
    }
}
