// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// Euler's eVault factory (GenericFactory) as the service reads it: its `ProxyCreated` event, the
/// vault indexed, as the factory emits it for each vault it makes, and `isProxy`. The test vaults
/// are deployed whole (tests/contracts/TestEuler.sol has no proxies), so `record` announces one.
contract TestEulerFactory {
    mapping(address => bool) public isProxy;

    event ProxyCreated(address indexed proxy, bool upgradeable, address implementation, bytes trailingData);

    function record(address proxy, bytes calldata trailingData) external {
        isProxy[proxy] = true;
        emit ProxyCreated(proxy, false, address(0), trailingData);
    }
}
