// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Standards.sol";

/// @title The base of the service's lenses (chain/lens.py reads what they return)
/// @notice A lens is never deployed: its creation code and constructor arguments are the data of an
/// `eth_call` without `to`, and its constructor returns, in place of runtime code, every read it made
/// at the call's block with its raw answer. It computes nothing: the service decodes each answer as if
/// it had made that call itself, by the same views an auditor reads, so one call replaces the rounds
/// of reads that depend on each other.
/// @dev The output is a tape: one flag byte (1 when records were left out), then records of
/// target (20 bytes), the first 16 bytes of the calldata's SHA-256 (the precompile's: cheaper
/// than Keccak in the service's pure Python), success (1 byte: 0 reverted, 1 returned), answer length (3), answer. A creation's returned code is held to EIP-170's 24,576 bytes, so the
/// tape stops at LIMIT; the reader asks whatever is missing itself.
abstract contract Recorder {
    uint256 internal constant LIMIT = 24_000;

    /// @dev Tokens a lens that prices what it finds (Prices.sol) has priced so far, and those it
    /// prices last.
    uint256 internal constant MEMO = 64;

    struct Tape {
        bytes data;
        uint256 used;
        bool full;
        address[] priced;
        uint256 pricedCount;
        address[] later;
        uint256 laterCount;
    }

    function _tape() internal pure returns (Tape memory tape) {
        tape.data = new bytes(LIMIT + 32);
        tape.used = 1;
        tape.priced = new address[](MEMO);
        tape.later = new address[](MEMO);
    }

    /// @dev `target.staticcall(data)`, recorded.
    function _call(Tape memory tape, address target, bytes memory data) internal view returns (bool ok, bytes memory ret) {
        uint256 before = gasleft();
        (ok, ret) = target.staticcall(data);
        _record(tape, target, data, ok, ret, before);
    }

    /// @dev `target.call(data)`, recorded: a read that is not a view (it accrues interest first),
    /// as Multicall3 makes it. Its writes stay inside the call, so a lens makes it last.
    function _mutatingCall(Tape memory tape, address target, bytes memory data)
        internal
        returns (bool ok, bytes memory ret)
    {
        uint256 before = gasleft();
        (ok, ret) = target.call(data);
        _record(tape, target, data, ok, ret, before);
    }

    /// @dev The first word of a call's answer; 0 when it reverted or answered less.
    function _word(Tape memory tape, address target, bytes memory data) internal view returns (uint256 value) {
        (bool ok, bytes memory ret) = _call(tape, target, data);
        if (ok && ret.length >= 32) value = abi.decode(ret, (uint256));
    }

    /// @dev Word `index` of a call's answer; 0 when it reverted or answered less.
    function _wordAt(Tape memory tape, address target, bytes memory data, uint256 index)
        internal
        view
        returns (uint256)
    {
        (bool ok, bytes memory ret) = _call(tape, target, data);
        return ok ? _at(ret, index) : 0;
    }

    /// @dev Word `index` of an answer; 0 when it is shorter.
    function _at(bytes memory ret, uint256 index) internal pure returns (uint256 value) {
        if (ret.length >= 32 * (index + 1)) {
            assembly {
                value := mload(add(add(ret, 32), mul(index, 32)))
            }
        }
    }

    /// @dev Name, symbol and decimals: the reads of a token's `TokenInfo` (chain/erc20.py).
    function _tokenInfo(Tape memory tape, address token) internal view returns (uint256 decimals) {
        _call(tape, token, abi.encodeCall(IERC20.name, ()));
        _call(tape, token, abi.encodeCall(IERC20.symbol, ()));
        decimals = _word(tape, token, abi.encodeCall(IERC20.decimals, ()));
    }

    /// @dev A Chainlink-style feed's `latestRoundData()` and `decimals()` (adapters/prices.py).
    function _feed(Tape memory tape, address feed) internal view {
        if (feed == address(0)) return;
        _call(tape, feed, abi.encodeCall(IAggregator.latestRoundData, ()));
        _call(tape, feed, abi.encodeCall(IAggregator.decimals, ()));
    }

    /// @dev The feed `keys[i]` maps to `feeds[i]`, or none.
    function _lookup(address key, address[] memory keys, address[] memory feeds) internal pure returns (address) {
        for (uint256 i = 0; i < keys.length; i++) {
            if (keys[i] == key) return feeds[i];
        }
        return address(0);
    }

    /// @dev The feed of each token `priced[i]` the tape has made a read of (its facts, a balance),
    /// and of each zero key (a token always priced): a lens that finds its tokens prices those
    /// alone, not every token of the chain, whose feeds would take its tape (34 on Ethereum).
    function _feedsOfRead(Tape memory tape, address[] memory priced, address[] memory feeds) internal view {
        for (uint256 i = 0; i < priced.length; i++) {
            if (priced[i] == address(0) || _onTape(tape, priced[i])) _feed(tape, feeds[i]);
        }
    }

    /// @dev Whether a record of the tape has `target` as its call's target.
    function _onTape(Tape memory tape, address target) internal pure returns (bool) {
        bytes memory out = tape.data;
        for (uint256 at = 1; at < tape.used;) {
            address found;
            uint256 size;
            assembly {
                let p := add(add(out, 32), at)
                found := shr(96, mload(p))
                size := shr(232, mload(add(p, 37)))
            }
            if (found == target) return true;
            at += 40 + size;
        }
        return false;
    }

    /// @dev A revert without data that used up the gas it was given may have been starved (a
    /// call gets 63/64 of what is left): it is not recorded, and the service makes it alone.
    function _record(Tape memory tape, address target, bytes memory data, bool ok, bytes memory ret, uint256 before)
        private
        view
    {
        if (!ok && ret.length == 0 && gasleft() < before / 32) return;
        uint256 size = 40 + ret.length;
        if (tape.full || tape.used + size > LIMIT) {
            tape.full = true;
            return;
        }
        bytes16 digest = bytes16(sha256(data));
        bytes memory out = tape.data;
        uint256 at = tape.used;
        uint256 retLength = ret.length;
        assembly {
            let p := add(add(out, 32), at)
            mstore(p, shl(96, target))
            mstore(add(p, 20), digest)
            mstore(add(p, 36), shl(248, ok))
            mstore(add(p, 37), shl(232, retLength))
        }
        _copy(out, at + 40, ret);
        tape.used = at + size;
    }

    function _copy(bytes memory out, uint256 at, bytes memory source) private pure {
        assembly {
            let to := add(add(out, 32), at)
            let from := add(source, 32)
            let n := mload(source)
            for { let i := 0 } lt(i, n) { i := add(i, 32) } { mstore(add(to, i), mload(add(from, i))) }
        }
    }

    /// @dev Ends the constructor, returning the tape in place of runtime code.
    function _finish(Tape memory tape) internal pure {
        bytes memory out = tape.data;
        uint256 used = tape.used;
        bool full = tape.full;
        assembly {
            mstore8(add(out, 32), full)
            return(add(out, 32), used)
        }
    }
}
