// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev Fluid's LendingResolver: the wallet's fToken positions.
interface IFluidLendingResolver {
    struct UserSupplyData {
        bool modeWithInterest;
        uint256 supply;
        uint256 withdrawalLimit;
        uint256 lastUpdateTimestamp;
        uint256 expandPercent;
        uint256 expandDuration;
        uint256 baseWithdrawalLimit;
        uint256 withdrawableUntilLimit;
        uint256 withdrawable;
        uint256 decayEndTimestamp;
        uint256 decayAmount;
    }

    struct FTokenDetails {
        address tokenAddress;
        bool eip2612Deposits;
        bool isNativeUnderlying;
        string name;
        string symbol;
        uint256 decimals;
        address asset;
        uint256 totalAssets;
        uint256 totalSupply;
        uint256 convertToShares;
        uint256 convertToAssets;
        uint256 rewardsRate;
        uint256 supplyRate;
        int256 rebalanceDifference;
        UserSupplyData liquidityUserSupplyData;
    }

    struct UserPosition {
        uint256 fTokenShares;
        uint256 underlyingAssets;
        uint256 underlyingBalance;
        uint256 allowance;
    }

    struct FTokenDetailsUserPosition {
        FTokenDetails fTokenDetails;
        UserPosition userPosition;
    }

    function getUserPositions(address user_) external view returns (FTokenDetailsUserPosition[] memory);
}

/// @dev Fluid's VaultResolver: the wallet's vault NFTs, and a position's and a tick's raw data.
interface IFluidVaultResolver {
    struct UserPosition {
        uint256 nftId;
        address owner;
        bool isLiquidated;
        bool isSupplyPosition;
        int256 tick;
        uint256 tickId;
        uint256 beforeSupply;
        uint256 beforeBorrow;
        uint256 beforeDustBorrow;
        uint256 supply;
        uint256 borrow;
        uint256 dustBorrow;
    }

    struct Tokens {
        address token0;
        address token1;
    }

    struct ConstantViews {
        address liquidity;
        address factory;
        address operateImplementation;
        address adminImplementation;
        address secondaryImplementation;
        address deployer;
        address supply;
        address borrow;
        Tokens supplyToken;
        Tokens borrowToken;
        uint256 vaultId;
        uint256 vaultType;
        bytes32 supplyExchangePriceSlot;
        bytes32 borrowExchangePriceSlot;
        bytes32 userSupplySlot;
        bytes32 userBorrowSlot;
    }

    struct Configs {
        uint16 supplyRateMagnifier;
        uint16 borrowRateMagnifier;
        uint16 collateralFactor;
        uint16 liquidationThreshold;
        uint16 liquidationMaxLimit;
        uint16 withdrawalGap;
        uint16 liquidationPenalty;
        uint16 borrowFee;
        address oracle;
        uint256 oraclePriceOperate;
        uint256 oraclePriceLiquidate;
        address rebalancer;
        uint256 lastUpdateTimestamp;
    }

    struct ExchangePricesAndRates {
        uint256 lastStoredLiquiditySupplyExchangePrice;
        uint256 lastStoredLiquidityBorrowExchangePrice;
        uint256 lastStoredVaultSupplyExchangePrice;
        uint256 lastStoredVaultBorrowExchangePrice;
        uint256 liquiditySupplyExchangePrice;
        uint256 liquidityBorrowExchangePrice;
        uint256 vaultSupplyExchangePrice;
        uint256 vaultBorrowExchangePrice;
        uint256 supplyRateLiquidity;
        uint256 borrowRateLiquidity;
        int256 supplyRateVault;
        int256 borrowRateVault;
        int256 rewardsOrFeeRateSupply;
        int256 rewardsOrFeeRateBorrow;
    }

    struct TotalSupplyAndBorrow {
        uint256 totalSupplyVault;
        uint256 totalBorrowVault;
        uint256 totalSupplyLiquidityOrDex;
        uint256 totalBorrowLiquidityOrDex;
        uint256 absorbedSupply;
        uint256 absorbedBorrow;
    }

    struct LimitsAndAvailability {
        uint256 withdrawLimit;
        uint256 withdrawableUntilLimit;
        uint256 withdrawable;
        uint256 borrowLimit;
        uint256 borrowableUntilLimit;
        uint256 borrowable;
        uint256 borrowLimitUtilization;
        uint256 minimumBorrowing;
    }

    struct CurrentBranchState {
        uint256 status;
        int256 minimaTick;
        uint256 debtFactor;
        uint256 partials;
        uint256 debtLiquidity;
        uint256 baseBranchId;
        int256 baseBranchMinima;
    }

    struct VaultState {
        uint256 totalPositions;
        int256 topTick;
        uint256 currentBranch;
        uint256 totalBranch;
        uint256 totalBorrow;
        uint256 totalSupply;
        CurrentBranchState currentBranchState;
    }

    struct UserBorrowData {
        bool modeWithInterest;
        uint256 borrow;
        uint256 borrowLimit;
        uint256 lastUpdateTimestamp;
        uint256 expandPercent;
        uint256 expandDuration;
        uint256 baseBorrowLimit;
        uint256 maxBorrowLimit;
        uint256 borrowableUntilLimit;
        uint256 borrowable;
        uint256 borrowLimitUtilization;
    }

    struct VaultEntireData {
        address vault;
        bool isSmartCol;
        bool isSmartDebt;
        ConstantViews constantVariables;
        Configs configs;
        ExchangePricesAndRates exchangePricesAndRates;
        TotalSupplyAndBorrow totalSupplyAndBorrow;
        LimitsAndAvailability limitsAndAvailability;
        VaultState vaultState;
        IFluidLendingResolver.UserSupplyData liquidityUserSupplyData;
        UserBorrowData liquidityUserBorrowData;
    }

    function positionsByUser(address user_)
        external
        view
        returns (UserPosition[] memory userPositions_, VaultEntireData[] memory vaultsData_);

    function getPositionDataRaw(address vault_, uint256 positionId_) external view returns (uint256);

    function getTickDataRaw(address vault_, int256 tick_) external view returns (uint256);
}

/// @dev A Fluid vault: where a liquidated position now stands.
interface IFluidVault {
    function fetchLatestPosition(
        int256 positionTick_,
        uint256 positionTickId_,
        uint256 positionRawDebt_,
        uint256 tickData_
    )
        external
        view
        returns (int256, uint256, uint256, uint256, uint256);
}

/// @title The reads of one Fluid input (adapters/fluid/positions.py), in one call
/// @notice The wallet's `LendingResolver.getUserPositions` and `VaultResolver.positionsByUser`,
/// and every USD feed the chain's data names with the sequencer uptime feed: the prices of the
/// tokens the resolvers' answers name are among them. (Token facts are read once per token and
/// kept by the service, so they are left to a round of their own.) For each NFT the vault
/// resolver calls liquidated that still owes, the branch the vault now liquidates it with:
/// `getPositionDataRaw` and `getTickDataRaw` through the resolver, then the vault's own
/// `fetchLatestPosition` of them. The service sends each resolver and the feeds in calls of their
/// own, in one round: a wallet with many vault NFTs fills much of a tape (a constructor returns at
/// most 24,576 bytes, EIP-170).
contract FluidLens is Recorder {
    uint256 private constant POSITION_WORDS = 12;
    /// @dev A VaultEntireData's static words, its vault's address first.
    uint256 private constant VAULT_WORDS = 97;
    uint256 private constant X19 = 0x7ffff;
    uint256 private constant X24 = 0xffffff;

    constructor(
        address wallet,
        address lendingResolver,
        address vaultResolver,
        address[] memory feeds,
        address sequencer
    ) {
        Tape memory tape = _tape();
        if (lendingResolver != address(0)) {
            _call(tape, lendingResolver, abi.encodeCall(IFluidLendingResolver.getUserPositions, (wallet)));
        }
        if (vaultResolver != address(0)) {
            (bool ok, bytes memory positions) =
                _call(tape, vaultResolver, abi.encodeCall(IFluidVaultResolver.positionsByUser, (wallet)));
            if (ok) _branches(tape, vaultResolver, positions);
        }
        for (uint256 i = 0; i < feeds.length; i++) {
            _feed(tape, feeds[i]);
        }
        if (sequencer != address(0)) _call(tape, sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
        _finish(tape);
    }

    /// @dev `answer` is (UserPosition[], VaultEntireData[]), both arrays of static structs: per
    /// UserPosition whose isLiquidated (word 2) and borrow (word 10) are set, its raw position
    /// data (tick sign at bit 1, tick at bits 2-20, tick id at 21-44) and its tick's data, then
    /// `fetchLatestPosition(tick, tickId, 0, tickData)` on its vault (its debt argument only
    /// scales the debt and collateral returned, which the resolver gave already).
    function _branches(Tape memory tape, address resolver, bytes memory answer) private view {
        uint256 positions = _at(answer, 0) / 32;
        uint256 vaults = _at(answer, 1) / 32;
        uint256 n = _at(answer, positions);
        if (n > answer.length / (32 * (POSITION_WORDS + VAULT_WORDS))) return;
        for (uint256 i = 0; i < n; i++) {
            uint256 at = positions + 1 + POSITION_WORDS * i;
            if (_at(answer, at + 2) == 0 || _at(answer, at + 10) == 0) continue;
            address vault = address(uint160(_at(answer, vaults + 1 + VAULT_WORDS * i)));
            uint256 data =
                _word(tape, resolver, abi.encodeCall(IFluidVaultResolver.getPositionDataRaw, (vault, _at(answer, at))));
            int256 tick = data & 2 == 2 ? int256((data >> 2) & X19) : -int256((data >> 2) & X19);
            uint256 tickData = _word(tape, resolver, abi.encodeCall(IFluidVaultResolver.getTickDataRaw, (vault, tick)));
            _call(
                tape, vault, abi.encodeCall(IFluidVault.fetchLatestPosition, (tick, (data >> 21) & X24, 0, tickData))
            );
        }
    }
}
