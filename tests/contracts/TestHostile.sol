// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import {MarketParams, Market} from "@morpho-org/morpho-blue/src/interfaces/IMorpho.sol";

/// An IRM that Morpho Blue can use (borrowRate works) but whose view reverts.
contract FlakyIrm {
    function borrowRate(MarketParams memory, Market memory) external pure returns (uint256) {
        return 1e9;
    }

    function borrowRateView(MarketParams memory, Market memory) external pure returns (uint256) {
        revert("FlakyIrm: no view");
    }
}

/// An oracle whose price() returns 2 MB: a "return bomb" that runs any caller copying it out of gas.
contract BombOracle {
    function price() external pure returns (uint256) {
        assembly {
            return(0, 2000000)
        }
    }
}

/// A Vault V2 look-alike that claims 2**255 adapters, to check the service refuses to enumerate them.
contract HostileVaultV2 {
    address public immutable asset;
    string public name = "Hostile Vault";
    string public symbol = "HOST";
    uint96 public performanceFee;
    uint96 public managementFee;
    uint64 public maxRate = 1e12;

    constructor(address asset_) {
        asset = asset_;
    }

    function balanceOf(address) external pure returns (uint256) {
        return 5e18;
    }

    function convertToAssets(uint256 shares) external pure returns (uint256) {
        return shares / 1e12;
    }

    function adaptersLength() external pure returns (uint256) {
        return 2 ** 255;
    }
}

/// An early-ERC-20-style token (like MKR) whose name and symbol are bytes32.
contract Bytes32Token {
    bytes32 public constant name = "Maker";
    bytes32 public constant symbol = "MKR";
    uint8 public constant decimals = 18;
}

/// An IRM with AdaptiveCurveIrm's `rateAtTarget` view, set by the test: Morpho's SDK quotes a
/// market's APYs from it. Accruals here charge a fixed rate (the differential tests feed the SDK
/// the state read at the same block, whatever rate made it).
contract TestAdaptiveIrm {
    mapping(bytes32 => int256) public rateAtTarget;
    uint256 public constant RATE = 2e9;

    function setRateAtTarget(bytes32 id, int256 value) external {
        rateAtTarget[id] = value;
    }

    function borrowRate(MarketParams memory, Market memory) external pure returns (uint256) {
        return RATE;
    }

    function borrowRateView(MarketParams memory, Market memory) external pure returns (uint256) {
        return RATE;
    }
}
