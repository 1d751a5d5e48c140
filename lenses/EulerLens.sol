// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev The EVC's views of an account's collateral and controller vaults, and of its prefix's owner.
interface IEVC {
    function getAccountOwner(address account) external view returns (address);

    function getCollaterals(address account) external view returns (address[] memory);

    function getControllers(address account) external view returns (address[] memory);
}

/// @dev An EVK vault's views beyond its ERC-4626 ones.
interface IEVault {
    function debtOf(address account) external view returns (uint256);

    function interestRate() external view returns (uint256);

    function interestFee() external view returns (uint16);

    function cash() external view returns (uint256);

    function totalBorrows() external view returns (uint256);

    function oracle() external view returns (address);

    function unitOfAccount() external view returns (address);

    function LTVLiquidation(address collateral) external view returns (uint16);

    function accountLiquidity(address account, bool liquidation)
        external
        view
        returns (uint256 collateralValue, uint256 liabilityValue);
}

/// @dev Euler's reward streams (euler-xyz/reward-streams' IRewardStreams): an account's enabled
/// rewards for a rewarded vault, what it earned, the shares counted for it, and each stream's
/// current epoch amount and eligible shares.
interface IRewardStreams {
    function EPOCH_DURATION() external view returns (uint256);

    function enabledRewards(address account, address rewarded) external view returns (address[] memory);

    function earnedReward(address account, address rewarded, address reward, bool ignoreRecentReward)
        external
        view
        returns (uint256);

    function balanceOf(address account, address rewarded) external view returns (uint256);

    function rewardAmount(address rewarded, address reward) external view returns (uint256);

    function totalRewardedEligible(address rewarded, address reward) external view returns (uint256);
}

/// @dev Euler's oracle router.
interface IPriceOracle {
    function getQuote(uint256 inAmount, address base, address quote) external view returns (uint256 outAmount);
}

/// @title The reads of one Euler input (adapters/euler/positions.py), in one call
/// @notice The EVC's owner of the account's prefix (whether it has sub-accounts: adapters/accounts/),
/// its collaterals and controllers; for each vault the index names
/// and those: `balanceOf` and `debtOf`; where it holds either, the vault's and its asset's token
/// facts, `convertToAssets`, the rate, fee, cash and borrows, and the asset's USD feed (from
/// `priced`/`feeds`); for a controller it owes: the oracle, the unit of account (and its feed),
/// `accountLiquidity(account, true)`, and each enabled collateral's LTV, balance, token facts and
/// quote, with the debt's; where it holds shares and the chain has reward streams: the rewards it
/// enabled for the vault, the shares counted for it, the epoch's length and, per reward, its token
/// facts, earnings, the epoch's amount, the eligible shares (and their assets) and its feed; and the sequencer uptime feed (an L2's prices count only while it is up).
contract EulerLens is Recorder {
    address private constant USD = address(840);

    struct Context {
        Tape tape;
        address account;
        address streams;
        address[] collaterals;
        address[] priced;
        address[] feeds;
    }

    constructor(
        address account,
        address evc,
        address streams,
        address[] memory known,
        address[] memory priced,
        address[] memory feeds,
        address sequencer
    ) {
        Context memory ctx;
        ctx.tape = _tape();
        ctx.account = account;
        ctx.streams = streams;
        ctx.priced = priced;
        ctx.feeds = feeds;
        _call(ctx.tape, evc, abi.encodeCall(IEVC.getAccountOwner, (account)));
        address[] memory controllers = _list(ctx.tape, evc, abi.encodeCall(IEVC.getControllers, (account)));
        ctx.collaterals = _list(ctx.tape, evc, abi.encodeCall(IEVC.getCollaterals, (account)));
        for (uint256 i = 0; i < known.length; i++) {
            _vault(ctx, known[i], false);
        }
        for (uint256 i = 0; i < ctx.collaterals.length; i++) {
            _vault(ctx, ctx.collaterals[i], false);
        }
        for (uint256 i = 0; i < controllers.length; i++) {
            _vault(ctx, controllers[i], true);
        }
        if (sequencer != address(0)) _call(ctx.tape, sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
        _finish(ctx.tape);
    }

    function _list(Tape memory tape, address target, bytes memory data) private view returns (address[] memory list) {
        (bool ok, bytes memory ret) = _call(tape, target, data);
        if (ok && ret.length >= 64) list = abi.decode(ret, (address[]));
    }

    function _vault(Context memory ctx, address vault, bool controller) private view {
        uint256 shares = _word(ctx.tape, vault, abi.encodeCall(IERC20.balanceOf, (ctx.account)));
        uint256 borrowed = _word(ctx.tape, vault, abi.encodeCall(IEVault.debtOf, (ctx.account)));
        if (shares == 0 && borrowed == 0) return;
        address asset = address(uint160(_word(ctx.tape, vault, abi.encodeCall(IERC4626.asset, ()))));
        _tokenInfo(ctx.tape, vault);
        _tokenInfo(ctx.tape, asset);
        if (shares != 0) _call(ctx.tape, vault, abi.encodeCall(IERC4626.convertToAssets, (shares)));
        _call(ctx.tape, vault, abi.encodeCall(IEVault.interestRate, ()));
        _call(ctx.tape, vault, abi.encodeCall(IEVault.interestFee, ()));
        _call(ctx.tape, vault, abi.encodeCall(IEVault.cash, ()));
        _call(ctx.tape, vault, abi.encodeCall(IEVault.totalBorrows, ()));
        _feed(ctx.tape, _lookup(asset, ctx.priced, ctx.feeds));
        if (controller && borrowed != 0) _risk(ctx, vault, asset, borrowed);
        if (shares != 0 && ctx.streams != address(0)) _rewards(ctx, vault);
    }

    function _rewards(Context memory ctx, address vault) private view {
        address streams = ctx.streams;
        address[] memory rewards =
            _list(ctx.tape, streams, abi.encodeCall(IRewardStreams.enabledRewards, (ctx.account, vault)));
        _call(ctx.tape, streams, abi.encodeCall(IRewardStreams.balanceOf, (ctx.account, vault)));
        _call(ctx.tape, streams, abi.encodeCall(IRewardStreams.EPOCH_DURATION, ()));
        for (uint256 i = 0; i < rewards.length; i++) {
            address reward = rewards[i];
            _tokenInfo(ctx.tape, reward);
            _call(ctx.tape, streams, abi.encodeCall(IRewardStreams.earnedReward, (ctx.account, vault, reward, false)));
            _call(ctx.tape, streams, abi.encodeCall(IRewardStreams.rewardAmount, (vault, reward)));
            uint256 eligible = _word(ctx.tape, streams, abi.encodeCall(IRewardStreams.totalRewardedEligible, (vault, reward)));
            _feed(ctx.tape, _lookup(reward, ctx.priced, ctx.feeds));
            _call(ctx.tape, vault, abi.encodeCall(IERC4626.convertToAssets, (eligible)));
        }
    }

    /// The router quotes the debt and each balance themselves, as EVK's LiquidityUtils does.
    function _risk(Context memory ctx, address vault, address asset, uint256 borrowed) private view {
        IPriceOracle oracle = IPriceOracle(address(uint160(_word(ctx.tape, vault, abi.encodeCall(IEVault.oracle, ())))));
        address unit = address(uint160(_word(ctx.tape, vault, abi.encodeCall(IEVault.unitOfAccount, ()))));
        _call(ctx.tape, vault, abi.encodeCall(IEVault.accountLiquidity, (ctx.account, true)));
        if (unit != USD) {
            _tokenInfo(ctx.tape, unit);
            _feed(ctx.tape, _lookup(unit, ctx.priced, ctx.feeds));
        }
        _call(ctx.tape, address(oracle), abi.encodeCall(IPriceOracle.getQuote, (borrowed, asset, unit)));
        for (uint256 i = 0; i < ctx.collaterals.length; i++) {
            address collateral = ctx.collaterals[i];
            uint256 ltv = _word(ctx.tape, vault, abi.encodeCall(IEVault.LTVLiquidation, (collateral)));
            uint256 balance = _word(ctx.tape, collateral, abi.encodeCall(IERC20.balanceOf, (ctx.account)));
            _tokenInfo(ctx.tape, collateral);
            if (ltv != 0 && balance != 0) {
                _call(ctx.tape, address(oracle), abi.encodeCall(IPriceOracle.getQuote, (balance, collateral, unit)));
            }
        }
    }
}
