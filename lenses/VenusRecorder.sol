// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev A Venus vToken, the core pool's (VBep20Delegate) and an isolated pool's alike;
/// `exchangeRateCurrent` and `borrowBalanceCurrent` accrue first.
interface IVToken {
    function getAccountSnapshot(address account) external view returns (uint256, uint256, uint256, uint256);

    function underlying() external view returns (address);

    function supplyRatePerBlock() external view returns (uint256);

    function borrowRatePerBlock() external view returns (uint256);

    function totalSupply() external view returns (uint256);

    function totalBorrows() external view returns (uint256);

    function borrowIndex() external view returns (uint256);

    function exchangeRateCurrent() external returns (uint256);

    function borrowBalanceCurrent(address account) external returns (uint256);
}

/// @dev A pool's oracle (PriceOracle: the ResilientOracle on every chain).
interface IVenusOracle {
    function getUnderlyingPrice(address vToken) external view returns (uint256);

    function getPrice(address asset) external view returns (uint256);
}

/// @title The reads VenusLens (the core pool) and VenusPoolsLens (the isolated pools) share
abstract contract VenusRecorder is Recorder {
    uint256 internal constant MAX_ITEMS = 256;

    /// @dev Every market's account snapshot: the markets it holds, and those where it borrows.
    function _snapshots(Tape memory tape, address[] memory markets, address wallet)
        internal
        view
        returns (bool[] memory held, bool[] memory borrowed)
    {
        held = new bool[](markets.length);
        borrowed = new bool[](markets.length);
        for (uint256 i = 0; i < markets.length; i++) {
            (bool ok, bytes memory snapshot) =
                _call(tape, markets[i], abi.encodeCall(IVToken.getAccountSnapshot, (wallet)));
            held[i] = ok && _at(snapshot, 0) == 0 && (_at(snapshot, 1) != 0 || _at(snapshot, 2) != 0);
            borrowed[i] = held[i] && _at(snapshot, 2) != 0;
        }
    }

    /// @dev A held market's token, its price by the pool's oracle and its rates (markets.py).
    function _vToken(Tape memory tape, address oracle, address vToken) internal view {
        (bool native, bytes memory token) = _call(tape, vToken, abi.encodeCall(IVToken.underlying, ()));
        _call(tape, oracle, abi.encodeCall(IVenusOracle.getUnderlyingPrice, (vToken)));
        _call(tape, vToken, abi.encodeCall(IVToken.supplyRatePerBlock, ()));
        _call(tape, vToken, abi.encodeCall(IVToken.borrowRatePerBlock, ()));
        if (native && token.length >= 32) _tokenInfo(tape, address(uint160(_at(token, 0))));
    }

    /// @dev A held market's totals the rewards need (rewards.py).
    function _totals(Tape memory tape, address vToken) internal view {
        _call(tape, vToken, abi.encodeCall(IVToken.totalSupply, ()));
        _call(tape, vToken, abi.encodeCall(IVToken.totalBorrows, ()));
        _call(tape, vToken, abi.encodeCall(IVToken.borrowIndex, ()));
    }

    /// @dev Last, as they write: the held markets' accrued exchange rates and the account's accrued borrows.
    function _accruals(Tape memory tape, address[] memory markets, bool[] memory held, bool[] memory borrowed, address wallet)
        internal
    {
        for (uint256 i = 0; i < markets.length; i++) {
            if (!held[i]) continue;
            _mutatingCall(tape, markets[i], abi.encodeCall(IVToken.exchangeRateCurrent, ()));
            if (borrowed[i]) _mutatingCall(tape, markets[i], abi.encodeCall(IVToken.borrowBalanceCurrent, (wallet)));
        }
    }
}
