// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// Emits the creation events of the MetaMorpho and Vault V2 factories, with their exact
/// signatures, for vaults the test deployed, and answers their `isMetaMorpho` / `isVaultV2`
/// views: discovery reads the events, poolDetails the views.
contract TestVaultFactory {
    mapping(address => bool) public isMetaMorpho;
    mapping(address => bool) public isVaultV2;

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
        isMetaMorpho[vault] = true;
        emit CreateMetaMorpho(vault, msg.sender, msg.sender, 1 days, asset, name, symbol, bytes32(0));
    }

    function announceV2(address vault, address asset) external {
        isVaultV2[vault] = true;
        emit CreateVaultV2(msg.sender, asset, bytes32(0), vault);
    }
}
