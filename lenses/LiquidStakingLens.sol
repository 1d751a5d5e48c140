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

/// @dev Renzo's RestakeManager (contracts/IRestakeManager.sol): the value of everything backing ezETH.
interface IRestakeManager {
    function calculateTVLs() external view returns (uint256[][] memory, uint256[] memory, uint256);
}

/// @dev Kelp's LRTOracle (contracts/interfaces/ILRTOracle.sol): ether per rsETH.
interface ILRTOracle {
    function rsETHPrice() external view returns (uint256);
}

/// @dev The USD feeds' reads and the sequencer uptime feed's, as adapters/prices.py makes them.
abstract contract PricedRecorder is Recorder {
    function _feeds(Tape memory tape, address[] memory feeds, address sequencer) internal view {
        for (uint256 i = 0; i < feeds.length; i++) {
            _feed(tape, feeds[i]);
        }
        if (sequencer != address(0)) _call(tape, sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
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

/// @title The reads of one Renzo or Kelp input (adapters/liquid_staking/renzo.py, kelp.py), in one call
/// @notice The wallet's `balanceOf` of the token; where it holds some: the token's facts, then for
/// Renzo (`kelp` false) the RestakeManager's `calculateTVLs()` and ezETH's `totalSupply()`, for Kelp
/// the LRTOracle's `rsETHPrice()`; then the USD feeds and the sequencer uptime feed.
contract RestakedTokenLens is PricedRecorder {
    constructor(
        address wallet,
        address token,
        address rate,
        bool kelp,
        address[] memory feeds,
        address sequencer
    ) {
        Tape memory tape = _tape();
        if (_word(tape, token, abi.encodeCall(IERC20.balanceOf, (wallet))) != 0) {
            _tokenInfo(tape, token);
            if (kelp) {
                _call(tape, rate, abi.encodeCall(ILRTOracle.rsETHPrice, ()));
            } else {
                _call(tape, rate, abi.encodeCall(IRestakeManager.calculateTVLs, ()));
                _call(tape, token, abi.encodeCall(IERC20.totalSupply, ()));
            }
            _feeds(tape, feeds, sequencer);
        }
        _finish(tape);
    }
}
