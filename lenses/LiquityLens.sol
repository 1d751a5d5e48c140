// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev Liquity v1's views the lens calls, as `@liquity/lib-ethers` 3.4.0 publishes their ABIs.
interface ILiquityTroveManager {
    function Troves(address borrower) external view returns (uint256, uint256, uint256, uint8, uint128);

    function getEntireDebtAndColl(address borrower) external view returns (uint256, uint256, uint256, uint256);

    function MCR() external view returns (uint256);

    function CCR() external view returns (uint256);

    function LUSD_GAS_COMPENSATION() external view returns (uint256);

    function getEntireSystemColl() external view returns (uint256);

    function getEntireSystemDebt() external view returns (uint256);

    function getBorrowingRateWithDecay() external view returns (uint256);

    function lusdToken() external view returns (address);

    function lqtyToken() external view returns (address);
}

interface ILiquityStabilityPool {
    function getCompoundedLUSDDeposit(address depositor) external view returns (uint256);

    function getDepositorETHGain(address depositor) external view returns (uint256);

    function getDepositorLQTYGain(address depositor) external view returns (uint256);
}

interface ILiquityStaking {
    function stakes(address staker) external view returns (uint256);

    function getPendingETHGain(address staker) external view returns (uint256);

    function getPendingLUSDGain(address staker) external view returns (uint256);
}

interface ILiquitySurplus {
    function getCollateral(address account) external view returns (uint256);
}

interface ILiquityPriceFeed {
    function priceAggregator() external view returns (address);

    function fetchPrice() external returns (uint256);
}

/// @title The reads of one Liquity v1 input (adapters/liquity/positions.py), in one call
/// @notice The account's trove (recorded, and with its pending redistribution gains), the
/// system's totals and ratios, its surplus, Stability Pool deposit and LQTY stake with their
/// gains, LUSD's and LQTY's token facts and LQTY's feed, the PriceFeed's Chainlink aggregator;
/// last (it writes), the PriceFeed's `fetchPrice()`.
contract LiquityLens is Recorder {
    constructor(
        address wallet,
        address troveManager,
        address stabilityPool,
        address staking,
        address surplus,
        address priceFeed,
        address[] memory priced,
        address[] memory feeds
    ) {
        Tape memory tape = _tape();
        _trove(tape, troveManager, wallet);
        _call(tape, surplus, abi.encodeCall(ILiquitySurplus.getCollateral, (wallet)));
        _call(tape, stabilityPool, abi.encodeCall(ILiquityStabilityPool.getCompoundedLUSDDeposit, (wallet)));
        _call(tape, stabilityPool, abi.encodeCall(ILiquityStabilityPool.getDepositorETHGain, (wallet)));
        _call(tape, stabilityPool, abi.encodeCall(ILiquityStabilityPool.getDepositorLQTYGain, (wallet)));
        _call(tape, staking, abi.encodeCall(ILiquityStaking.stakes, (wallet)));
        _call(tape, staking, abi.encodeCall(ILiquityStaking.getPendingETHGain, (wallet)));
        _call(tape, staking, abi.encodeCall(ILiquityStaking.getPendingLUSDGain, (wallet)));
        address lusd = address(uint160(_word(tape, troveManager, abi.encodeCall(ILiquityTroveManager.lusdToken, ()))));
        address lqty = address(uint160(_word(tape, troveManager, abi.encodeCall(ILiquityTroveManager.lqtyToken, ()))));
        _tokenInfo(tape, lusd);
        _tokenInfo(tape, lqty);
        _feed(tape, _lookup(lqty, priced, feeds));
        address aggregator =
            address(uint160(_word(tape, priceFeed, abi.encodeCall(ILiquityPriceFeed.priceAggregator, ()))));
        if (aggregator != address(0)) _call(tape, aggregator, abi.encodeCall(IAggregator.latestRoundData, ()));
        _mutatingCall(tape, priceFeed, abi.encodeCall(ILiquityPriceFeed.fetchPrice, ()));
        _finish(tape);
    }

    /// @dev The trove's own views and the system's the risk is computed from.
    function _trove(Tape memory tape, address troveManager, address wallet) private view {
        _call(tape, troveManager, abi.encodeCall(ILiquityTroveManager.Troves, (wallet)));
        _call(tape, troveManager, abi.encodeCall(ILiquityTroveManager.getEntireDebtAndColl, (wallet)));
        _call(tape, troveManager, abi.encodeCall(ILiquityTroveManager.MCR, ()));
        _call(tape, troveManager, abi.encodeCall(ILiquityTroveManager.CCR, ()));
        _call(tape, troveManager, abi.encodeCall(ILiquityTroveManager.LUSD_GAS_COMPENSATION, ()));
        _call(tape, troveManager, abi.encodeCall(ILiquityTroveManager.getEntireSystemColl, ()));
        _call(tape, troveManager, abi.encodeCall(ILiquityTroveManager.getEntireSystemDebt, ()));
        _call(tape, troveManager, abi.encodeCall(ILiquityTroveManager.getBorrowingRateWithDecay, ()));
    }
}
