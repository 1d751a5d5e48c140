// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// Maker's ChainLog as the service reads it (`getAddress`, reverting for a key it does not hold,
/// as dss-chain-log's does), with `setAddress` open to the tests.
contract TestChainLog {
    mapping(bytes32 => address) private addresses;

    function setAddress(bytes32 key, address value) external {
        addresses[key] = value;
    }

    function getAddress(bytes32 key) external view returns (address) {
        address value = addresses[key];
        require(value != address(0), "dss-chain-log/invalid-key");
        return value;
    }
}

/// Maker's IlkRegistry as the service reads it (`list`, `gem`: the views of the ABI dai-plugin-mcd
/// ships), with `add` taking the gem directly where the real one reads it from the ilk's join.
contract TestIlkRegistry {
    bytes32[] private ilks;
    mapping(bytes32 => address) public gem;

    function add(bytes32 ilk, address token) external {
        require(gem[ilk] == address(0), "IlkRegistry/ilk-already-added");
        ilks.push(ilk);
        gem[ilk] = token;
    }

    function list() external view returns (bytes32[] memory) {
        return ilks;
    }
}
