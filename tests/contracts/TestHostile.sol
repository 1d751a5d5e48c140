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

    event Transfer(address indexed from, address indexed to, uint256 value);

    function balanceOf(address) external pure returns (uint256) {
        return 5e18;
    }

    /// The event an honest vault would emit for the shares `holder` is claimed to hold.
    function announce(address holder) external {
        emit Transfer(address(0), holder, 5e18);
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

/// Our own implementation of the published AdaptiveCurveIrm formulas (the same as
/// adaptive_curve_irm.py): `rateAtTarget` per market, updated by Morpho's accruals, so that the
/// chain accrues what Morpho's SDK computes. `setRateAtTarget` lets a test start from any state.
contract TestAdaptiveIrm {
    int256 private constant WAD = 1e18;
    int256 private constant CURVE_STEEPNESS = 4e18;
    int256 private constant ADJUSTMENT_SPEED = 50e18 / int256(365 days);
    int256 private constant TARGET_UTILIZATION = 0.9e18;
    int256 private constant INITIAL_RATE_AT_TARGET = 0.04e18 / int256(365 days);
    int256 private constant MIN_RATE_AT_TARGET = 0.001e18 / int256(365 days);
    int256 private constant MAX_RATE_AT_TARGET = 2e18 / int256(365 days);
    int256 private constant LN_2_INT = 0.693147180559945309e18;
    int256 private constant LN_WEI_INT = -41.446531673892822312e18;
    int256 private constant WEXP_UPPER_BOUND = 93.859467695000404319e18;
    int256 private constant WEXP_UPPER_VALUE = 57716089161558943949701069502944508345128.422502756744429568e18;

    address public immutable morpho;
    mapping(bytes32 => int256) public rateAtTarget;

    constructor(address morpho_) {
        morpho = morpho_;
    }

    function setRateAtTarget(bytes32 id, int256 value) external {
        rateAtTarget[id] = value;
    }

    function borrowRateView(MarketParams memory marketParams, Market memory market) external view returns (uint256) {
        (uint256 average,) = _borrowRate(keccak256(abi.encode(marketParams)), market);
        return average;
    }

    function borrowRate(MarketParams memory marketParams, Market memory market) external returns (uint256) {
        require(msg.sender == morpho, "TestAdaptiveIrm: not Morpho");
        bytes32 id = keccak256(abi.encode(marketParams));
        (uint256 average, int256 endRateAtTarget) = _borrowRate(id, market);
        rateAtTarget[id] = endRateAtTarget;
        return average;
    }

    function _borrowRate(bytes32 id, Market memory market) private view returns (uint256, int256) {
        int256 utilization = market.totalSupplyAssets > 0
            ? int256(uint256(market.totalBorrowAssets) * uint256(WAD) / market.totalSupplyAssets)
            : int256(0);
        int256 errNormFactor = utilization > TARGET_UTILIZATION ? WAD - TARGET_UTILIZATION : TARGET_UTILIZATION;
        int256 err = (utilization - TARGET_UTILIZATION) * WAD / errNormFactor;
        int256 start = rateAtTarget[id];
        int256 average;
        int256 end;
        if (start == 0) {
            average = INITIAL_RATE_AT_TARGET;
            end = INITIAL_RATE_AT_TARGET;
        } else {
            int256 linearAdaptation = ADJUSTMENT_SPEED * err / WAD * int256(block.timestamp - market.lastUpdate);
            if (linearAdaptation == 0) {
                average = start;
                end = start;
            } else {
                end = _adapted(start, linearAdaptation);
                average = (start + end + 2 * _adapted(start, linearAdaptation / 2)) / 4;
            }
        }
        int256 coeff = err < 0 ? WAD - WAD * WAD / CURVE_STEEPNESS : CURVE_STEEPNESS - WAD;
        return (uint256((coeff * err / WAD + WAD) * average / WAD), end);
    }

    function _adapted(int256 start, int256 linearAdaptation) private pure returns (int256 rate) {
        rate = start * _wExp(linearAdaptation) / WAD;
        if (rate < MIN_RATE_AT_TARGET) rate = MIN_RATE_AT_TARGET;
        if (rate > MAX_RATE_AT_TARGET) rate = MAX_RATE_AT_TARGET;
    }

    function _wExp(int256 x) private pure returns (int256) {
        if (x < LN_WEI_INT) return 0;
        if (x >= WEXP_UPPER_BOUND) return WEXP_UPPER_VALUE;
        int256 roundingAdjustment = x < 0 ? -(LN_2_INT / 2) : LN_2_INT / 2;
        int256 q = (x + roundingAdjustment) / LN_2_INT;
        int256 r = x - q * LN_2_INT;
        int256 expR = WAD + r + r * r / WAD / 2;
        return q >= 0 ? expR << uint256(q) : expR >> uint256(-q);
    }
}

/// Logs anyone can emit: a `Transfer` naming a wallet whose data is no ERC-20 amount (spam).
contract TestSpam {
    function spam(address to) external {
        bytes32 topic = keccak256("Transfer(address,address,uint256)");
        assembly {
            log3(0, 0, topic, 0, to)
        }
    }
}
