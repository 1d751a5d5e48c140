// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "TestCurve.sol";

/// Curve's lending pools and the wrapped coins they hold, with the views of the ABIs @curvefi/api
/// publishes (its compound, usdt, iearn, busd and pax swap.json: `coins`, `underlying_coins`,
/// `balances` by int128; its aave, saave and ib swap.json: by uint256; its cERC20.json and
/// yERC20.json) and Aave's AToken's `UNDERLYING_ASSET_ADDRESS`, with values the test sets.

/// A lending pool: a TestCurvePool (stableswap) with the token each coin wraps, `underlying_coins(i)`
/// by the pool's index type (int128 on the oldest pools, `setLegacy`; uint256 on aave, saave and ib).
contract TestCurveLendingPool is TestCurvePool {
    address[] internal underlyingList;

    constructor(string memory name_, string memory symbol_) TestCurvePool(name_, symbol_, false) {}

    function setUnderlying(address[] calldata underlying) external {
        underlyingList = underlying;
    }

    function underlying_coins(int128 i) external view returns (address) {
        require(legacy, "uint256 index");
        return underlyingList[uint256(int256(i))];
    }

    function underlying_coins(uint256 i) external view returns (address) {
        require(!legacy, "int128 index on the oldest pools");
        return underlyingList[i];
    }
}

/// A cToken (Compound's, and Iron Bank's cyToken): 8 decimals, `underlying`, and
/// `exchangeRateStored`, the underlying per cToken scaled by 1e18 (and by the decimals' difference).
contract TestCToken is TestToken {
    address public immutable underlying;
    uint256 public exchangeRateStored;

    constructor(string memory name_, string memory symbol_, address underlying_) TestToken(name_, symbol_, 8) {
        underlying = underlying_;
    }

    function setRate(uint256 rate) external {
        exchangeRateStored = rate;
    }
}

/// A yToken (yearn's iearn tokens): the underlying's decimals, `token`, and `getPricePerFullShare`,
/// the underlying per share scaled by 1e18.
contract TestYToken is TestToken {
    address public immutable token;
    uint256 public getPricePerFullShare;

    constructor(string memory name_, string memory symbol_, address token_, uint8 decimals_)
        TestToken(name_, symbol_, decimals_)
    {
        token = token_;
    }

    function setRate(uint256 rate) external {
        getPricePerFullShare = rate;
    }
}

/// An aToken (Aave's): the underlying's decimals, worth one of `UNDERLYING_ASSET_ADDRESS` each.
contract TestAToken is TestToken {
    address public immutable UNDERLYING_ASSET_ADDRESS;

    constructor(string memory name_, string memory symbol_, address underlying_, uint8 decimals_)
        TestToken(name_, symbol_, decimals_)
    {
        UNDERLYING_ASSET_ADDRESS = underlying_;
    }
}
