// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// A Chainlink-style AggregatorV3 for tests: the answer and its update time are set by the test.
contract TestPriceFeed {
    uint8 public immutable decimals;
    int256 internal answer;
    uint256 internal updatedAt;
    uint80 internal round;

    constructor(uint8 decimals_) {
        decimals = decimals_;
    }

    function set(int256 answer_, uint256 updatedAt_) external {
        answer = answer_;
        updatedAt = updatedAt_;
        round += 1;
    }

    /// @dev The older view, which Aave's oracle reads.
    function latestAnswer() external view returns (int256) {
        return answer;
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return (round, answer, updatedAt, updatedAt, round);
    }
}
