// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// @title The standard interfaces several lenses call, by name (Recorder.sol imports them for all)
/// @dev Each declares exactly the functions the lenses call, as the standard publishes them:
/// tests/test_lenses.py holds them to OpenZeppelin's IERC20Metadata and IERC4626 and to
/// Chainlink's AggregatorV2V3Interface.

/// @dev An ERC-20 token with its metadata (also read from share tokens and ERC-4626 vaults).
interface IERC20 {
    function name() external view returns (string memory);

    function symbol() external view returns (string memory);

    function decimals() external view returns (uint8);

    function totalSupply() external view returns (uint256);

    function balanceOf(address account) external view returns (uint256);
}

/// @dev An ERC-4626 vault's views beyond its share token's.
interface IERC4626 {
    function asset() external view returns (address assetTokenAddress);

    function totalAssets() external view returns (uint256 totalManagedAssets);

    function convertToAssets(uint256 shares) external view returns (uint256 assets);
}

/// @dev A Chainlink-style price feed (a USD feed, a sequencer uptime feed, an oracle's source).
interface IAggregator {
    function decimals() external view returns (uint8);

    function latestAnswer() external view returns (int256);

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);
}
