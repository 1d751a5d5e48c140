// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "VenusRecorder.sol";

/// @dev Compound v2's Comptroller, as compound-js 0.6.2 publishes its ABI.
interface ICompoundV2Comptroller {
    function getAllMarkets() external view returns (address[] memory);

    function getAssetsIn(address account) external view returns (address[] memory);

    function oracle() external view returns (address);

    function getAccountLiquidity(address account) external view returns (uint256, uint256, uint256);

    function markets(address cToken) external view returns (bool, uint256, bool);

    function compAccrued(address account) external view returns (uint256);

    function getCompAddress() external view returns (address);

    function compInitialIndex() external view returns (uint224);

    function compSupplyState(address cToken) external view returns (uint224, uint32);

    function compBorrowState(address cToken) external view returns (uint224, uint32);

    function compSupplySpeeds(address cToken) external view returns (uint256);

    function compBorrowSpeeds(address cToken) external view returns (uint256);

    function compSupplierIndex(address cToken, address account) external view returns (uint256);

    function compBorrowerIndex(address cToken, address account) external view returns (uint256);
}

/// @title The reads of one Compound v2 input (adapters/compound/v2.py through adapters/venus), in one call
/// @notice The Comptroller's markets, the account's markets entered, the oracle, its
/// `getAccountLiquidity`, `compAccrued`, COMP and the initial index; every market's account
/// snapshot; per market it holds, its token, price, rates, collateral factor, COMP indexes and
/// speeds and totals; COMP's token facts and the price of the market whose underlying it is;
/// then, last (they write), the held markets' accrued exchange rates and the account's borrows.
contract CompoundV2Lens is VenusRecorder {
    constructor(address wallet, address comptroller) {
        Tape memory tape = _tape();
        (address[] memory markets, address oracle, address comp) = _pool(tape, comptroller, wallet);
        (bool[] memory held, bool[] memory borrowed) = _snapshots(tape, markets, wallet);
        for (uint256 i = 0; i < markets.length; i++) {
            if (held[i]) _market(tape, comptroller, oracle, markets[i], wallet);
        }
        _tokenInfo(tape, comp);
        for (uint256 i = 0; i < markets.length; i++) {
            (bool ok, bytes memory asset) = _call(tape, markets[i], abi.encodeCall(IVToken.underlying, ()));
            if (ok && asset.length >= 32 && address(uint160(_at(asset, 0))) == comp) {
                _call(tape, oracle, abi.encodeCall(IVenusOracle.getUnderlyingPrice, (markets[i])));
            }
        }
        _accruals(tape, markets, held, borrowed, wallet);
        _finish(tape);
    }

    /// @dev The Comptroller's round: its markets (none where it lists too many), oracle and COMP.
    function _pool(Tape memory tape, address comptroller, address wallet)
        private
        view
        returns (address[] memory markets, address oracle, address comp)
    {
        (bool listed, bytes memory list) =
            _call(tape, comptroller, abi.encodeCall(ICompoundV2Comptroller.getAllMarkets, ()));
        _call(tape, comptroller, abi.encodeCall(ICompoundV2Comptroller.getAssetsIn, (wallet)));
        oracle = address(uint160(_word(tape, comptroller, abi.encodeCall(ICompoundV2Comptroller.oracle, ()))));
        _call(tape, comptroller, abi.encodeCall(ICompoundV2Comptroller.getAccountLiquidity, (wallet)));
        _call(tape, comptroller, abi.encodeCall(ICompoundV2Comptroller.compAccrued, (wallet)));
        comp = address(uint160(_word(tape, comptroller, abi.encodeCall(ICompoundV2Comptroller.getCompAddress, ()))));
        _call(tape, comptroller, abi.encodeCall(ICompoundV2Comptroller.compInitialIndex, ()));
        if (listed && list.length >= 64) markets = abi.decode(list, (address[]));
        if (markets.length > MAX_ITEMS) markets = new address[](0);
    }

    /// @dev A held market's views and its COMP state, speeds, the account's indexes and totals.
    function _market(Tape memory tape, address comptroller, address oracle, address cToken, address wallet)
        private
        view
    {
        _vToken(tape, oracle, cToken);
        _call(tape, comptroller, abi.encodeCall(ICompoundV2Comptroller.markets, (cToken)));
        _call(tape, comptroller, abi.encodeCall(ICompoundV2Comptroller.compSupplyState, (cToken)));
        _call(tape, comptroller, abi.encodeCall(ICompoundV2Comptroller.compBorrowState, (cToken)));
        _call(tape, comptroller, abi.encodeCall(ICompoundV2Comptroller.compSupplySpeeds, (cToken)));
        _call(tape, comptroller, abi.encodeCall(ICompoundV2Comptroller.compBorrowSpeeds, (cToken)));
        _call(tape, comptroller, abi.encodeCall(ICompoundV2Comptroller.compSupplierIndex, (cToken, wallet)));
        _call(tape, comptroller, abi.encodeCall(ICompoundV2Comptroller.compBorrowerIndex, (cToken, wallet)));
        _totals(tape, cToken);
    }
}
