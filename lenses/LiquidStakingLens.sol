// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev ether.fi's eETH view beyond its ERC-20's (src/core/EETH.sol).
interface IEETH {
    function shares(address user) external view returns (uint256);
}

/// @dev ether.fi's LiquidityPool: ether per eETH share (src/core/LiquidityPool.sol).
interface ILiquidityPool {
    function amountForShare(uint256 _share) external view returns (uint256);
}

/// @dev ether.fi's weETH view beyond its ERC-20's (src/core/WeETH.sol).
interface IWeETH {
    function getEETHByWeETH(uint256 _weETHAmount) external view returns (uint256);
}

/// @dev ether.fi's WithdrawRequestNFT (src/withdrawals/WithdrawRequestNFT.sol): an ERC-721 without
/// enumeration, one token per request.
interface IWithdrawRequestNFT {
    struct WithdrawRequest {
        uint96 amountOfEEth;
        uint96 shareOfEEth;
        bool isValid;
        uint32 feeGwei;
    }

    function ownerOf(uint256 tokenId) external view returns (address);

    function getRequest(uint256 requestId) external view returns (WithdrawRequest memory);

    function isFinalized(uint256 requestId) external view returns (bool);

    function getClaimableAmount(uint256 tokenId) external view returns (uint256);
}

/// @dev Rocket Pool's rETH (RocketTokenRETHInterface): its rate and what backs its burn.
interface IRocketTokenRETH {
    function getEthValue(uint256 _rethAmount) external view returns (uint256);

    function getRethValue(uint256 _ethAmount) external view returns (uint256);

    function getExchangeRate() external view returns (uint256);

    function getTotalCollateral() external view returns (uint256);
}

/// @dev Renzo's RestakeManager (contracts/IRestakeManager.sol): the value of everything backing ezETH,
/// and its DepositQueue (the public `depositQueue` of contracts/RestakeManagerStorage.sol).
interface IRestakeManager {
    function calculateTVLs() external view returns (uint256[][] memory, uint256[] memory, uint256);

    function depositQueue() external view returns (address);
}

/// @dev Renzo's DepositQueue: its WithdrawQueue (the public `withdrawQueue` of
/// contracts/Deposits/DepositQueueStorage.sol), the one calculateTVLs counts.
interface IRenzoDepositQueue {
    function withdrawQueue() external view returns (address);
}

/// @dev Renzo's WithdrawQueue (contracts/Withdraw/WithdrawQueue.sol and WithdrawQueueStorage.sol):
/// each user's requests in an array (the public `withdrawRequests` getter answers one struct's
/// fields), the cooldown, the risk oracle that may lengthen it and the whitelist it exempts.
interface IRenzoWithdrawQueue {
    function getOutstandingWithdrawRequests(address user) external view returns (uint256);

    function withdrawRequests(address user, uint256 index)
        external
        view
        returns (
            address collateralToken,
            uint256 withdrawRequestID,
            uint256 amountToRedeem,
            uint256 ezETHLocked,
            uint256 createdAt
        );

    function coolDownPeriod() external view returns (uint256);

    function riskOracleMiddleware() external view returns (address);

    function whitelisted(address user) external view returns (bool);
}

/// @dev Renzo's RiskOracleMiddleware (contracts/Oracle/RiskOracle/RiskOracleMiddleware.sol).
interface IRenzoRiskOracle {
    function withdrawCooldownPeriod() external view returns (uint256);

    function instantWithdrawPaused() external view returns (bool);
}

/// @dev Kelp's LRTOracle (contracts/interfaces/ILRTOracle.sol): ether per rsETH.
interface ILRTOracle {
    function rsETHPrice() external view returns (uint256);
}

/// @dev Kelp's LRTConfig (contracts/interfaces/ILRTConfig.sol): the assets rsETH can be withdrawn to.
interface ILRTConfig {
    function getSupportedAssetList() external view returns (address[] memory);
}

/// @dev Kelp's LRTWithdrawalManager (contracts/LRTWithdrawalManager.sol and its interface): a
/// queue per asset, each user's request nonces in a double-ended queue (its public getter answers
/// the queue's bounds).
interface ILRTWithdrawalManager {
    function userAssociatedNonces(address asset, address user) external view returns (uint128 _begin, uint128 _end);

    function getUserWithdrawalRequest(address asset, address user, uint256 userIndex)
        external
        view
        returns (uint256 rsETHAmount, uint256 expectedAssetAmount, uint256 withdrawalStartBlock, uint256 userNonce);

    function nextLockedNonce(address asset) external view returns (uint256);

    function withdrawalDelayBlocks() external view returns (uint256);
}

/// @dev The USD feeds' reads and the sequencer uptime feed's, as adapters/prices.py makes them.
abstract contract PricedRecorder is Recorder {
    function _feeds(Tape memory tape, address[] memory feeds, address sequencer) internal view {
        for (uint256 i = 0; i < feeds.length; i++) {
            _feed(tape, feeds[i]);
        }
        if (sequencer != address(0)) _call(tape, sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
    }

    /// @dev Ether's feed and the feed of each asset requests pay (`feeds[i]` of `keys[i]`), then the
    /// sequencer uptime feed.
    function _assetFeeds(
        Tape memory tape,
        address[] memory priced,
        address[] memory keys,
        address[] memory feeds,
        address sequencer
    ) internal view {
        _feed(tape, _lookup(address(0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE), keys, feeds));
        for (uint256 i = 0; i < priced.length; i++) {
            _feed(tape, _lookup(priced[i], keys, feeds));
        }
        _feeds(tape, new address[](0), sequencer);
    }
}

/// @title The reads of one ether.fi input (adapters/liquid_staking/etherfi.py), in one call
/// @notice The wallet's eETH `balanceOf` and `shares`, its weETH `balanceOf`; where it holds either:
/// eETH's token facts and the LiquidityPool's `amountForShare(1e18)`, and for weETH its token facts
/// and `getEETHByWeETH` of its balance. Then the WithdrawRequestNFT's `balanceOf(wallet)` and, for
/// each candidate id (the event index's), `ownerOf`; for those the wallet owns `getRequest` and
/// `isFinalized`, and for a finalized one `getClaimableAmount`. Then the USD feeds and the
/// sequencer uptime feed, where anything is held.
contract EtherfiLens is PricedRecorder {
    constructor(
        address wallet,
        address eeth,
        address weeth,
        address pool,
        address nft,
        uint256[] memory ids,
        address[] memory feeds,
        address sequencer
    ) {
        Tape memory tape = _tape();
        bool held = _staked(tape, wallet, eeth, weeth, pool);
        held = _requests(tape, wallet, nft, ids) || held;
        if (held) _feeds(tape, feeds, sequencer);
        _finish(tape);
    }

    function _staked(Tape memory tape, address wallet, address eeth, address weeth, address pool)
        private
        view
        returns (bool)
    {
        uint256 balance = _word(tape, eeth, abi.encodeCall(IERC20.balanceOf, (wallet)));
        _call(tape, eeth, abi.encodeCall(IEETH.shares, (wallet)));
        uint256 wrapped = _word(tape, weeth, abi.encodeCall(IERC20.balanceOf, (wallet)));
        if (balance == 0 && wrapped == 0) return false;
        _tokenInfo(tape, eeth);
        _call(tape, pool, abi.encodeCall(ILiquidityPool.amountForShare, (1e18)));
        if (wrapped != 0) {
            _tokenInfo(tape, weeth);
            _call(tape, weeth, abi.encodeCall(IWeETH.getEETHByWeETH, (wrapped)));
        }
        return true;
    }

    function _requests(Tape memory tape, address wallet, address nft, uint256[] memory ids) private view returns (bool) {
        bool owned = _word(tape, nft, abi.encodeCall(IERC20.balanceOf, (wallet))) != 0;
        for (uint256 i = 0; i < ids.length; i++) {
            address owner = address(uint160(_word(tape, nft, abi.encodeCall(IWithdrawRequestNFT.ownerOf, (ids[i])))));
            if (owner != wallet) continue;
            owned = true;
            _call(tape, nft, abi.encodeCall(IWithdrawRequestNFT.getRequest, (ids[i])));
            if (_word(tape, nft, abi.encodeCall(IWithdrawRequestNFT.isFinalized, (ids[i]))) != 0) {
                _call(tape, nft, abi.encodeCall(IWithdrawRequestNFT.getClaimableAmount, (ids[i])));
            }
        }
        return owned;
    }
}

/// @title The reads of one Rocket Pool input (adapters/liquid_staking/rocketpool.py), in one call
/// @notice The wallet's rETH `balanceOf`; where it holds some: rETH's token facts,
/// `getExchangeRate()`, `getEthValue` of the balance and `getTotalCollateral()` (what a burn can
/// pay now), and where that is less than the balance's ether, `getRethValue` of it; then the USD
/// feeds and the sequencer uptime feed.
contract RocketPoolLens is PricedRecorder {
    constructor(address wallet, address reth, address[] memory feeds, address sequencer) {
        Tape memory tape = _tape();
        uint256 balance = _word(tape, reth, abi.encodeCall(IERC20.balanceOf, (wallet)));
        if (balance != 0) {
            _tokenInfo(tape, reth);
            _call(tape, reth, abi.encodeCall(IRocketTokenRETH.getExchangeRate, ()));
            uint256 eth = _word(tape, reth, abi.encodeCall(IRocketTokenRETH.getEthValue, (balance)));
            uint256 collateral = _word(tape, reth, abi.encodeCall(IRocketTokenRETH.getTotalCollateral, ()));
            if (collateral < eth) _call(tape, reth, abi.encodeCall(IRocketTokenRETH.getRethValue, (collateral)));
            _feeds(tape, feeds, sequencer);
        }
        _finish(tape);
    }
}

/// @title The reads of one Renzo input (adapters/liquid_staking/renzo.py), in one call
/// @notice The wallet's ezETH `balanceOf`; where it holds some: ezETH's token facts, the
/// RestakeManager's `calculateTVLs()` and ezETH's `totalSupply()`. Then the WithdrawQueue the
/// RestakeManager's `depositQueue()` names by its `withdrawQueue()`, its
/// `getOutstandingWithdrawRequests(wallet)`; where the wallet has requests, `coolDownPeriod()`,
/// `riskOracleMiddleware()` (that oracle's `withdrawCooldownPeriod()` and `instantWithdrawPaused()`),
/// `whitelisted(wallet)` and up to `maxRequests` `withdrawRequests(wallet, i)` with each
/// collateral's token facts. Then the USD feeds (`feeds[i]` of `keys[i]`: ether's, and each
/// collateral's) and the sequencer uptime feed, where anything is held.
contract RenzoLens is PricedRecorder {
    constructor(
        address wallet,
        address ezeth,
        address manager,
        uint256 maxRequests,
        address[] memory keys,
        address[] memory feeds,
        address sequencer
    ) {
        Tape memory tape = _tape();
        bool held = _word(tape, ezeth, abi.encodeCall(IERC20.balanceOf, (wallet))) != 0;
        if (held) {
            _tokenInfo(tape, ezeth);
            _call(tape, manager, abi.encodeCall(IRestakeManager.calculateTVLs, ()));
            _call(tape, ezeth, abi.encodeCall(IERC20.totalSupply, ()));
        }
        address[] memory priced = _requests(tape, wallet, manager, maxRequests);
        if (held || priced.length != 0) _assetFeeds(tape, priced, keys, feeds, sequencer);
        _finish(tape);
    }

    /// @dev The wallet's requests in the WithdrawQueue, each read; the collaterals they pay.
    function _requests(Tape memory tape, address wallet, address manager, uint256 maxRequests)
        private
        view
        returns (address[] memory priced)
    {
        address deposits = address(uint160(_word(tape, manager, abi.encodeCall(IRestakeManager.depositQueue, ()))));
        if (deposits == address(0)) return priced;
        address queue = address(uint160(_word(tape, deposits, abi.encodeCall(IRenzoDepositQueue.withdrawQueue, ()))));
        if (queue == address(0)) return priced;
        uint256 count =
            _word(tape, queue, abi.encodeCall(IRenzoWithdrawQueue.getOutstandingWithdrawRequests, (wallet)));
        if (count == 0) return priced;
        _call(tape, queue, abi.encodeCall(IRenzoWithdrawQueue.coolDownPeriod, ()));
        address oracle = address(uint160(_word(tape, queue, abi.encodeCall(IRenzoWithdrawQueue.riskOracleMiddleware, ()))));
        if (oracle != address(0)) {
            _call(tape, oracle, abi.encodeCall(IRenzoRiskOracle.withdrawCooldownPeriod, ()));
            _call(tape, oracle, abi.encodeCall(IRenzoRiskOracle.instantWithdrawPaused, ()));
        }
        _call(tape, queue, abi.encodeCall(IRenzoWithdrawQueue.whitelisted, (wallet)));
        priced = new address[](count < maxRequests ? count : maxRequests);
        uint256 found = 0;
        for (uint256 i = 0; i < priced.length; i++) {
            address asset = address(uint160(_word(tape, queue, abi.encodeCall(IRenzoWithdrawQueue.withdrawRequests, (wallet, i)))));
            if (_seen(priced, found, asset)) continue;
            priced[found++] = asset;
            if (asset != address(0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE)) _tokenInfo(tape, asset);
        }
        assembly {
            mstore(priced, found)
        }
    }

    function _seen(address[] memory assets, uint256 count, address asset) private pure returns (bool) {
        for (uint256 i = 0; i < count; i++) {
            if (assets[i] == asset) return true;
        }
        return false;
    }
}

/// @title The reads of one Kelp input (adapters/liquid_staking/kelp.py), in one call
/// @notice The wallet's rsETH `balanceOf`; where it holds some: rsETH's token facts and the
/// LRTOracle's `rsETHPrice()`. Then the LRTConfig's `getSupportedAssetList()` and for each asset the
/// LRTWithdrawalManager's `userAssociatedNonces(asset, wallet)`; where the wallet has requests,
/// `nextLockedNonce(asset)`, `withdrawalDelayBlocks()`, the asset's token facts and up to
/// `maxRequests` `getUserWithdrawalRequest(asset, wallet, i)`. Then the USD feeds (`feeds[i]` of
/// `keys[i]`: ether's, and each asset's with requests) and the sequencer uptime feed, where anything
/// is held.
contract KelpLens is PricedRecorder {
    struct Kelp {
        address rseth;
        address oracle;
        address config;
        address manager;
    }

    constructor(
        address wallet,
        Kelp memory kelp,
        uint256 maxRequests,
        address[] memory keys,
        address[] memory feeds,
        address sequencer
    ) {
        Tape memory tape = _tape();
        bool held = _word(tape, kelp.rseth, abi.encodeCall(IERC20.balanceOf, (wallet))) != 0;
        if (held) {
            _tokenInfo(tape, kelp.rseth);
            _call(tape, kelp.oracle, abi.encodeCall(ILRTOracle.rsETHPrice, ()));
        }
        address[] memory priced = _requests(tape, wallet, kelp, maxRequests);
        if (held || priced.length != 0) _assetFeeds(tape, priced, keys, feeds, sequencer);
        _finish(tape);
    }

    /// @dev The assets the wallet has requests in, each request read.
    function _requests(Tape memory tape, address wallet, Kelp memory kelp, uint256 maxRequests)
        private
        view
        returns (address[] memory priced)
    {
        (bool ok, bytes memory ret) = _call(tape, kelp.config, abi.encodeCall(ILRTConfig.getSupportedAssetList, ()));
        if (!ok || _at(ret, 0) != 32 || ret.length < 64 + 32 * _at(ret, 1)) return priced;
        address[] memory assets = abi.decode(ret, (address[]));
        priced = new address[](assets.length);
        uint256 found = 0;
        for (uint256 a = 0; a < assets.length; a++) {
            if (_asset(tape, wallet, kelp.manager, assets[a], maxRequests)) priced[found++] = assets[a];
        }
        assembly {
            mstore(priced, found)
        }
    }

    /// @dev One asset's queue: whether the wallet has requests in it, each read.
    function _asset(Tape memory tape, address wallet, address manager, address asset, uint256 maxRequests)
        private
        view
        returns (bool)
    {
        (, bytes memory bounds) =
            _call(tape, manager, abi.encodeCall(ILRTWithdrawalManager.userAssociatedNonces, (asset, wallet)));
        uint256 count = _at(bounds, 1) > _at(bounds, 0) ? _at(bounds, 1) - _at(bounds, 0) : 0;
        if (count == 0) return false;
        _call(tape, manager, abi.encodeCall(ILRTWithdrawalManager.nextLockedNonce, (asset)));
        _call(tape, manager, abi.encodeCall(ILRTWithdrawalManager.withdrawalDelayBlocks, ()));
        if (asset != address(0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE)) _tokenInfo(tape, asset);
        for (uint256 i = 0; i < count && i < maxRequests; i++) {
            _call(tape, manager, abi.encodeCall(ILRTWithdrawalManager.getUserWithdrawalRequest, (asset, wallet, i)));
        }
        return true;
    }
}
