// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

interface IRewardBalance {
    function balanceOf(address account) external view returns (uint256);
}

/// What a Venus pool's own claim pays a holder at a block, for tests/test_venus.py and
/// tests/test_venus_pools.py: run as creation code in an eth_call at that block (nothing is
/// deployed or sent), it sends `claim` to the payer (the core pool's `claimVenus(holder)`, a
/// RewardsDistributor's `claimRewardToken(holder)`: anyone may claim for a holder) and returns, in
/// place of runtime code, the one word the holder's balance of the reward token grew by.
contract TestVenusClaim {
    constructor(address payer, address token, address holder, bytes memory claim) {
        uint256 before = IRewardBalance(token).balanceOf(holder);
        (bool ok,) = payer.call(claim);
        require(ok, "the claim failed");
        uint256 paid = IRewardBalance(token).balanceOf(holder) - before;
        assembly {
            mstore(0, paid)
            return(0, 32)
        }
    }
}
