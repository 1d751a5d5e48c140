// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @title The reads of one Fluid input (adapters/fluid/positions.py), in one call
/// @notice The wallet's `LendingResolver.getUserPositions` and `VaultResolver.positionsByUser`,
/// and every USD feed the chain's data names with the sequencer uptime feed: the prices of the
/// tokens the resolvers' answers name are among them. (Token facts are read once per token and
/// kept by the service, so they are left to a round of their own.) For each NFT the vault
/// resolver calls liquidated that still owes, the branch the vault now liquidates it with:
/// `getPositionDataRaw` and `getTickDataRaw` through the resolver, then the vault's own
/// `fetchLatestPosition` of them. The service sends each resolver and the feeds in calls of their
/// own, in one round: a wallet with many vault NFTs fills much of a tape (a constructor returns at
/// most 24,576 bytes, EIP-170).
contract FluidLens is Recorder {
    uint256 private constant POSITION_WORDS = 12;
    /// @dev A VaultEntireData's static words, its vault's address first.
    uint256 private constant VAULT_WORDS = 97;
    uint256 private constant X19 = 0x7ffff;
    uint256 private constant X24 = 0xffffff;

    constructor(
        address wallet,
        address lendingResolver,
        address vaultResolver,
        address[] memory feeds,
        address sequencer
    ) {
        Tape memory tape = _tape();
        if (lendingResolver != address(0)) _call(tape, lendingResolver, abi.encodeWithSelector(0x2a6bc2dd, wallet));
        if (vaultResolver != address(0)) {
            (bool ok, bytes memory positions) = _call(tape, vaultResolver, abi.encodeWithSelector(0x347ca8bb, wallet));
            if (ok) _branches(tape, vaultResolver, positions);
        }
        for (uint256 i = 0; i < feeds.length; i++) {
            _feed(tape, feeds[i]);
        }
        if (sequencer != address(0)) _call(tape, sequencer, abi.encodeWithSelector(0xfeaf968c));
        _finish(tape);
    }

    /// @dev `answer` is (UserPosition[], VaultEntireData[]), both arrays of static structs: per
    /// UserPosition whose isLiquidated (word 2) and borrow (word 10) are set, its raw position
    /// data (tick sign at bit 1, tick at bits 2-20, tick id at 21-44) and its tick's data, then
    /// `fetchLatestPosition(tick, tickId, 0, tickData)` on its vault (its debt argument only
    /// scales the debt and collateral returned, which the resolver gave already).
    function _branches(Tape memory tape, address resolver, bytes memory answer) private view {
        uint256 positions = _at(answer, 0) / 32;
        uint256 vaults = _at(answer, 1) / 32;
        uint256 n = _at(answer, positions);
        if (n > answer.length / (32 * (POSITION_WORDS + VAULT_WORDS))) return;
        for (uint256 i = 0; i < n; i++) {
            uint256 at = positions + 1 + POSITION_WORDS * i;
            if (_at(answer, at + 2) == 0 || _at(answer, at + 10) == 0) continue;
            address vault = address(uint160(_at(answer, vaults + 1 + VAULT_WORDS * i)));
            uint256 data = _word(tape, resolver, abi.encodeWithSelector(0xcbc7be65, vault, _at(answer, at)));
            int256 tick = data & 2 == 2 ? int256((data >> 2) & X19) : -int256((data >> 2) & X19);
            uint256 tickData = _word(tape, resolver, abi.encodeWithSelector(0x168a11c2, vault, tick));
            _call(tape, vault, abi.encodeWithSelector(0x22348cc7, tick, (data >> 21) & X24, 0, tickData));
        }
    }
}
