// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// A Morpho Blue oracle shaped as MorphoChainlinkOracleV2 (IMorphoChainlinkOracleV2's feed
/// getters): `price()` is set by the test, the feeds are only named, for their last update.
contract TestChainlinkOracle {
    address public immutable BASE_FEED_1;
    address public immutable BASE_FEED_2;
    address public immutable QUOTE_FEED_1;
    address public immutable QUOTE_FEED_2;
    uint256 public price;

    constructor(address base1, address quote1, uint256 price_) {
        BASE_FEED_1 = base1;
        BASE_FEED_2 = address(0);
        QUOTE_FEED_1 = quote1;
        QUOTE_FEED_2 = address(0);
        price = price_;
    }

    function setPrice(uint256 price_) external {
        price = price_;
    }
}
