// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

interface ILatestAnswer {
    function latestAnswer() external view returns (int256);
}

/// A stand-in for Aave's price-cap adapters (bgd-labs/aave-capo, PriceCapAdapterStable): it
/// answers `latestAnswer` only (no `latestRoundData`) and names the Chainlink feed it wraps.
contract TestCapoAdapter {
    address public immutable ASSET_TO_USD_AGGREGATOR;

    constructor(address feed) {
        ASSET_TO_USD_AGGREGATOR = feed;
    }

    function latestAnswer() external view returns (int256) {
        return ILatestAnswer(ASSET_TO_USD_AGGREGATOR).latestAnswer();
    }
}
