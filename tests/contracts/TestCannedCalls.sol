// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// A contract that answers exactly the calls it was given, each with the bytes it was given, and
/// reverts on those it was told to refuse; a call it was not given gets its function's default
/// answer where one was set (what the real contract says of an address nobody set up: an empty
/// list), and reverts otherwise. For
/// periphery contracts (Fluid's resolvers) whose sources no registry package ships, the test
/// encodes each answer with eth-abi from the layout of the deployed ABI.
contract TestCannedCalls {
    mapping(bytes32 => bytes) internal answers;
    mapping(bytes32 => bool) internal known;
    mapping(bytes4 => bytes) internal defaults;
    mapping(bytes4 => bool) internal defaulted;
    mapping(bytes32 => bool) internal refused;

    function setAnswer(bytes calldata call, bytes calldata answer) external {
        answers[keccak256(call)] = answer;
        known[keccak256(call)] = true;
    }

    function refuse(bytes calldata call) external {
        refused[keccak256(call)] = true;
    }

    function setDefault(bytes4 selector, bytes calldata answer) external {
        defaults[selector] = answer;
        defaulted[selector] = true;
    }

    /// A log from this contract's address, as the contract it stands for emits it (Fluid's
    /// vaults' LogOperate, which indexes nothing).
    function emitLog(bytes32 topic, bytes calldata data) external {
        bytes memory copy = data;
        assembly {
            log1(add(copy, 32), mload(copy), topic)
        }
    }

    fallback(bytes calldata call) external returns (bytes memory) {
        require(!refused[keccak256(call)], "TestCannedCalls: refused");
        if (known[keccak256(call)]) {
            return answers[keccak256(call)];
        }
        require(call.length >= 4 && defaulted[bytes4(call[:4])], "TestCannedCalls: not a call this contract answers");
        return defaults[bytes4(call[:4])];
    }
}
