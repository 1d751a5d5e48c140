// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import {ERC4626} from "@uniswap/v4-periphery/lib/v4-core/lib/solmate/src/mixins/ERC4626.sol";
import {ERC20} from "@uniswap/v4-periphery/lib/v4-core/lib/solmate/src/tokens/ERC20.sol";

/// Solmate's ERC-4626, the reference many vaults build on, unchanged: its assets are what it holds,
/// so a transfer of the asset to it is yield for its holders.
contract TestErc4626 is ERC4626 {
    constructor(ERC20 asset_) ERC4626(asset_, "Test 4626 USDC", "t4626") {}

    function totalAssets() public view override returns (uint256) {
        return asset.balanceOf(address(this));
    }
}
