// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

interface IVenusClaim {
    function claimVenus(address holder) external;
}

interface IXvsBalance {
    function balanceOf(address account) external view returns (uint256);
}

/// What the Comptroller's own claim pays a holder at a block, for tests/test_venus.py: run as
/// creation code in an eth_call at that block (nothing is deployed or sent), it claims the holder's
/// XVS (anyone may claim for a holder) and returns, in place of runtime code, the one word the
/// holder's XVS balance grew by.
contract TestVenusClaim {
    constructor(address comptroller, address xvs, address holder) {
        uint256 before = IXvsBalance(xvs).balanceOf(holder);
        IVenusClaim(comptroller).claimVenus(holder);
        uint256 paid = IXvsBalance(xvs).balanceOf(holder) - before;
        assembly {
            mstore(0, paid)
            return(0, 32)
        }
    }
}
