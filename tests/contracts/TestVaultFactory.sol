// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// Emits the creation events of the MetaMorpho and Vault V2 factories, with their exact
/// signatures, for vaults the test deployed: discovery reads nothing else from a factory.
contract TestVaultFactory {
    event CreateMetaMorpho(
        address indexed metaMorpho,
        address indexed caller,
        address initialOwner,
        uint256 initialTimelock,
        address indexed asset,
        string name,
        string symbol,
        bytes32 salt
    );
    event CreateVaultV2(address indexed owner, address indexed asset, bytes32 salt, address indexed newVaultV2);

    function announceV1(address vault, address asset, string calldata name, string calldata symbol) external {
        emit CreateMetaMorpho(vault, msg.sender, msg.sender, 1 days, asset, name, symbol, bytes32(0));
    }

    function announceV2(address vault, address asset) external {
        emit CreateVaultV2(msg.sender, asset, bytes32(0), vault);
    }
}
