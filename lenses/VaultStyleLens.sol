// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Prices.sol";

/// @dev Ethena's sUSDe (StakedUSDeV2): what a wallet unstaked, and when it may claim it.
interface IStakedUSDeV2 {
    function cooldowns(address owner) external view returns (uint104 cooldownEnd, uint152 underlyingAmount);
}

/// @dev Sky's sUSDS: its savings rate, per second in ray.
interface ISUsds {
    function ssr() external view returns (uint256);
}

/// @dev Spark Vaults V2: its savings rate, per second in ray.
interface ISparkVaultV2 {
    function vsr() external view returns (uint256);
}

/// @dev Sky's sDAI (SavingsDai): the Pot whose rate it earns.
interface ISavingsDai {
    function pot() external view returns (address);
}

/// @dev Maker's Pot: the DAI savings rate, per second in ray.
interface IPot {
    function dsr() external view returns (uint256);
}

/// @title The reads of one vault-style input (adapters/vault_style/positions.py), in one call
/// @notice For each share vault: the wallet's `balanceOf` and, where the vault has them,
/// `cooldowns`; for a vault it holds or waits on: the share token's name, symbol and decimals,
/// `asset()`, `convertToAssets` of its shares and of one whole share, `totalAssets()`,
/// `totalSupply()`, the asset's token facts and its USD price (its feed, else its other sources in
/// `market`: lenses/Prices.sol), and its savings rate where it names
/// one (`ssr()`, `pot()` and the Pot's `dsr()`, or `vsr()`). Flags per vault: 1 cooldowns, 2 ssr,
/// 4 dsr, 8 vsr. For each priced token: `balanceOf`;
/// for a held one: its token facts, its issuer feed and its currency's USD feed. Then the
/// sequencer uptime feed, where the chain has one.
contract VaultStyleLens is Prices {
    constructor(
        address wallet,
        address[] memory vaults,
        uint8[] memory flags,
        address[] memory tokens,
        address[] memory tokenFeeds,
        address[] memory currencyFeeds,
        address[] memory priced,
        address[] memory feeds,
        address[] memory market,
        address sequencer
    ) {
        Tape memory tape = _tape();
        bool held = _vaults(tape, wallet, vaults, flags, [priced, feeds, market]);
        for (uint256 i = 0; i < tokens.length; i++) {
            if (_word(tape, tokens[i], abi.encodeCall(IERC20.balanceOf, (wallet))) == 0) continue;
            held = true;
            _tokenInfo(tape, tokens[i]);
            _feed(tape, tokenFeeds[i]);
            _feed(tape, currencyFeeds[i]);
        }
        if (held && sequencer != address(0)) _call(tape, sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
        _finish(tape);
    }

    function _vaults(
        Tape memory tape,
        address wallet,
        address[] memory vaults,
        uint8[] memory flags,
        address[][3] memory pricing
    ) private view returns (bool held) {
        for (uint256 i = 0; i < vaults.length; i++) {
            held = _vault(tape, vaults[i], flags[i], wallet, pricing) || held;
        }
    }

    function _vault(
        Tape memory tape,
        address vault,
        uint8 flags,
        address wallet,
        address[][3] memory pricing
    ) private view returns (bool) {
        uint256 shares = _word(tape, vault, abi.encodeCall(IERC20.balanceOf, (wallet)));
        uint256 waiting =
            flags & 1 != 0 ? _wordAt(tape, vault, abi.encodeCall(IStakedUSDeV2.cooldowns, (wallet)), 1) : 0;
        if (shares == 0 && waiting == 0) return false;
        uint256 decimals = _tokenInfo(tape, vault);
        address asset = address(uint160(_word(tape, vault, abi.encodeCall(IERC4626.asset, ()))));
        _call(tape, vault, abi.encodeCall(IERC4626.convertToAssets, (shares)));
        _call(tape, vault, abi.encodeCall(IERC4626.totalAssets, ()));
        _call(tape, vault, abi.encodeCall(IERC20.totalSupply, ()));
        if (decimals < 78) _call(tape, vault, abi.encodeCall(IERC4626.convertToAssets, (10 ** decimals)));
        if (asset != address(0)) {
            _tokenInfo(tape, asset);
            _price(tape, asset, pricing[0], pricing[1], pricing[2]);
        }
        if (flags & 2 != 0) _call(tape, vault, abi.encodeCall(ISUsds.ssr, ()));
        if (flags & 8 != 0) _call(tape, vault, abi.encodeCall(ISparkVaultV2.vsr, ()));
        if (flags & 4 != 0) {
            address pot = address(uint160(_word(tape, vault, abi.encodeCall(ISavingsDai.pot, ()))));
            if (pot != address(0)) _call(tape, pot, abi.encodeCall(IPot.dsr, ()));
        }
        return true;
    }
}
