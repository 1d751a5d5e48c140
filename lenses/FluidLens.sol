// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @title The reads of one Fluid input (adapters/fluid/positions.py), in one call
/// @notice The wallet's `LendingResolver.getUserPositions` and `VaultResolver.positionsByUser`,
/// and every USD feed the chain's data names with the sequencer uptime feed: the prices of the
/// tokens the resolvers' answers name are among them. (Token facts are read once per token and
/// kept by the service, so they are left to a round of their own.) The service sends each
/// resolver and the feeds in calls of their own, in one round: a wallet with many vault NFTs
/// fills much of a tape (a constructor returns at most 24,576 bytes, EIP-170).
contract FluidLens is Recorder {
    constructor(
        address wallet,
        address lendingResolver,
        address vaultResolver,
        address[] memory feeds,
        address sequencer
    ) {
        Tape memory tape = _tape();
        if (lendingResolver != address(0)) _call(tape, lendingResolver, abi.encodeWithSelector(0x2a6bc2dd, wallet));
        if (vaultResolver != address(0)) _call(tape, vaultResolver, abi.encodeWithSelector(0x347ca8bb, wallet));
        for (uint256 i = 0; i < feeds.length; i++) {
            _feed(tape, feeds[i]);
        }
        if (sequencer != address(0)) _call(tape, sequencer, abi.encodeWithSelector(0xfeaf968c));
        _finish(tape);
    }
}
