// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// A contract that answers exactly the calls it was given, each with the bytes it was given, and
/// reverts on any other: for periphery contracts (Fluid's resolvers) whose sources no registry
/// package ships, the test encodes each answer with eth-abi from the layout of the deployed ABI.
contract TestCannedCalls {
    mapping(bytes32 => bytes) internal answers;
    mapping(bytes32 => bool) internal known;

    function setAnswer(bytes calldata call, bytes calldata answer) external {
        answers[keccak256(call)] = answer;
        known[keccak256(call)] = true;
    }

    fallback(bytes calldata call) external returns (bytes memory) {
        require(known[keccak256(call)], "TestCannedCalls: not a call this contract answers");
        return answers[keccak256(call)];
    }
}
