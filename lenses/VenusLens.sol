// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "VenusRecorder.sol";

/// @dev The core pool's Comptroller (a Diamond: MarketFacet, PolicyFacet, RewardFacet), as Venus's
/// venus-protocol package (10.3.0) publishes their ABIs.
interface IVenusComptroller {
    function getAllMarkets() external view returns (address[] memory);

    function getAssetsIn(address account) external view returns (address[] memory);

    function oracle() external view returns (address);

    function getAccountLiquidity(address account) external view returns (uint256, uint256, uint256);

    function venusAccrued(address account) external view returns (uint256);

    function getXVSAddress() external view returns (address);

    function venusInitialIndex() external view returns (uint224);

    function getEffectiveLtvFactor(address account, address vToken, uint8 weightingStrategy)
        external
        view
        returns (uint256);

    function venusSupplyState(address vToken) external view returns (uint224 index, uint32 block);

    function venusBorrowState(address vToken) external view returns (uint224 index, uint32 block);

    function venusSupplySpeeds(address vToken) external view returns (uint256);

    function venusBorrowSpeeds(address vToken) external view returns (uint256);

    function venusSupplierIndex(address vToken, address account) external view returns (uint256);

    function venusBorrowerIndex(address vToken, address account) external view returns (uint256);

    function vaiController() external view returns (address);
}

/// @dev The core pool's VAIController.
interface IVAIController {
    function getVAIRepayAmount(address account) external view returns (uint256);

    function getVAIAddress() external view returns (address);

    function getVAIRepayRatePerBlock() external view returns (uint256);

    function getBlocksPerYear() external view returns (uint256);
}

/// @dev The core pool's vToken's rate model, which says its year.
interface ICoreVToken {
    function interestRateModel() external view returns (address);
}

/// @dev The market's interest rate model (JumpRateModel, WhitePaperInterestRateModel).
interface IVenusRateModel {
    function blocksPerYear() external view returns (uint256);
}

/// @title The reads of one Venus input (adapters/venus/positions.py, markets.py, rewards.py), in one call
/// @notice The Comptroller's `getAllMarkets`, the account's markets entered, the oracle, its
/// `getAccountLiquidity`, `venusAccrued`, XVS and the initial index; every market's account
/// snapshot; per market it holds, the market's token, price, rates and rate model's year, the
/// account's effective factors and the XVS indexes and speeds; XVS's token facts and price; then,
/// last (they write: each market's accrual, kept inside the lens), the markets' accrued exchange
/// rates and the account's accrued borrows.
contract VenusLens is VenusRecorder {
    constructor(address wallet, address comptroller) {
        Tape memory tape = _tape();
        (address[] memory markets, address oracle, address xvs) = _pool(tape, comptroller, wallet);
        _vai(tape, comptroller, wallet);
        (bool[] memory held, bool[] memory borrowed) = _snapshots(tape, markets, wallet);
        for (uint256 i = 0; i < markets.length; i++) {
            if (held[i]) _market(tape, comptroller, oracle, markets[i], wallet);
        }
        _tokenInfo(tape, xvs);
        _call(tape, oracle, abi.encodeCall(IVenusOracle.getPrice, (xvs)));
        _accruals(tape, markets, held, borrowed, wallet);
        _finish(tape);
    }

    /// @dev The Comptroller's round: its markets (none where it lists too many), oracle and XVS.
    function _pool(Tape memory tape, address comptroller, address wallet)
        private
        view
        returns (address[] memory markets, address oracle, address xvs)
    {
        (bool listed, bytes memory list) =
            _call(tape, comptroller, abi.encodeCall(IVenusComptroller.getAllMarkets, ()));
        _call(tape, comptroller, abi.encodeCall(IVenusComptroller.getAssetsIn, (wallet)));
        oracle = address(uint160(_word(tape, comptroller, abi.encodeCall(IVenusComptroller.oracle, ()))));
        _call(tape, comptroller, abi.encodeCall(IVenusComptroller.getAccountLiquidity, (wallet)));
        _call(tape, comptroller, abi.encodeCall(IVenusComptroller.venusAccrued, (wallet)));
        xvs = address(uint160(_word(tape, comptroller, abi.encodeCall(IVenusComptroller.getXVSAddress, ()))));
        _call(tape, comptroller, abi.encodeCall(IVenusComptroller.venusInitialIndex, ()));
        if (listed && list.length >= 64) markets = abi.decode(list, (address[]));
        if (markets.length > MAX_ITEMS) markets = new address[](0);
    }

    /// @dev The VAI the account owes, its token and rate, where the pool has a VAIController.
    function _vai(Tape memory tape, address comptroller, address wallet) private view {
        bytes memory named = abi.encodeCall(IVenusComptroller.vaiController, ());
        address controller = address(uint160(_word(tape, comptroller, named)));
        if (controller == address(0)) return;
        bytes memory repay = abi.encodeCall(IVAIController.getVAIRepayAmount, (wallet));
        uint256 owed = _word(tape, controller, repay);
        address vai = address(uint160(_word(tape, controller, abi.encodeCall(IVAIController.getVAIAddress, ()))));
        _call(tape, controller, abi.encodeCall(IVAIController.getVAIRepayRatePerBlock, ()));
        _call(tape, controller, abi.encodeCall(IVAIController.getBlocksPerYear, ()));
        if (owed != 0) _tokenInfo(tape, vai);
    }

    /// @dev A held market's views (markets.py, positions.py, rewards.py).
    function _market(Tape memory tape, address comptroller, address oracle, address vToken, address wallet)
        private
        view
    {
        _vToken(tape, oracle, vToken);
        address model = address(uint160(_word(tape, vToken, abi.encodeCall(ICoreVToken.interestRateModel, ()))));
        if (model != address(0)) _call(tape, model, abi.encodeCall(IVenusRateModel.blocksPerYear, ()));
        for (uint8 weight = 0; weight < 2; weight++) {
            _call(tape, comptroller, abi.encodeCall(IVenusComptroller.getEffectiveLtvFactor, (wallet, vToken, weight)));
        }
        _rewards(tape, comptroller, vToken, wallet);
    }

    /// @dev The market's XVS state, speeds, the account's indexes and the market's totals (rewards.py).
    function _rewards(Tape memory tape, address comptroller, address vToken, address wallet) private view {
        _call(tape, comptroller, abi.encodeCall(IVenusComptroller.venusSupplyState, (vToken)));
        _call(tape, comptroller, abi.encodeCall(IVenusComptroller.venusBorrowState, (vToken)));
        _call(tape, comptroller, abi.encodeCall(IVenusComptroller.venusSupplySpeeds, (vToken)));
        _call(tape, comptroller, abi.encodeCall(IVenusComptroller.venusBorrowSpeeds, (vToken)));
        _call(tape, comptroller, abi.encodeCall(IVenusComptroller.venusSupplierIndex, (vToken, wallet)));
        _call(tape, comptroller, abi.encodeCall(IVenusComptroller.venusBorrowerIndex, (vToken, wallet)));
        _totals(tape, vToken);
    }
}
