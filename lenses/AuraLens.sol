// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "BalancerPools.sol";

/// @dev Aura's Booster (convex-platform's Booster.sol).
interface IAuraBooster {
    function poolLength() external view returns (uint256);

    function poolInfo(uint256 pid)
        external
        view
        returns (address lptoken, address token, address gauge, address crvRewards, address stash, bool shutdown);
}

/// @dev A BaseRewardPool's and a VirtualBalanceRewardPool's views.
interface IAuraRewards {
    function earned(address account) external view returns (uint256);

    function rewardToken() external view returns (address);

    function extraRewardsLength() external view returns (uint256);

    function extraRewards(uint256 index) external view returns (address);
}

/// @dev A StashToken's token.
interface IAuraStashToken {
    function baseToken() external view returns (address);
}

/// @dev The AURA token's views of its mint formula.
interface IAuraToken {
    function INIT_MINT_AMOUNT() external view returns (uint256);

    function EMISSIONS_MAX_SUPPLY() external view returns (uint256);

    function totalCliffs() external view returns (uint256);

    function reductionPerCliff() external view returns (uint256);
}

/// @title The reads of one Aura input (adapters/aura/positions.py), in one call
/// @notice The Booster's `poolLength()`; for each reward pool given (those the service has seen the
/// Booster list, by pid), the wallet's `balanceOf`; where it holds some: the Booster's `poolInfo(pid)`,
/// the Balancer pool's reads of its `lptoken` (its `getPoolId()`, then the Vault's), `earned`,
/// `rewardToken()`, `extraRewardsLength()` and each extra reward pool's `earned`, `rewardToken()`,
/// `baseToken()` and token facts, and the AURA token's supply and mint constants. Then the USD feeds.
contract AuraLens is BalancerPools {
    constructor(
        address wallet,
        address booster,
        address aura,
        address vault,
        uint256[] memory pids,
        address[] memory rewardPools,
        address[] memory feeds,
        address sequencer
    ) {
        Tape memory tape = _tape();
        _call(tape, booster, abi.encodeCall(IAuraBooster.poolLength, ()));
        if (_deposits(tape, booster, vault, pids, rewardPools, wallet)) {
            _auraToken(tape, aura);
            for (uint256 i = 0; i < feeds.length; i++) {
                _feed(tape, feeds[i]);
            }
            if (sequencer != address(0)) _call(tape, sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
        }
        _finish(tape);
    }

    function _deposits(
        Tape memory tape,
        address booster,
        address vault,
        uint256[] memory pids,
        address[] memory rewardPools,
        address wallet
    ) private view returns (bool held) {
        for (uint256 i = 0; i < rewardPools.length; i++) {
            if (_word(tape, rewardPools[i], abi.encodeCall(IERC20.balanceOf, (wallet))) != 0) {
                _deposit(tape, booster, vault, pids[i], rewardPools[i], wallet);
                held = true;
            }
        }
    }

    function _auraToken(Tape memory tape, address aura) private view {
        _tokenInfo(tape, aura);
        _call(tape, aura, abi.encodeCall(IERC20.totalSupply, ()));
        _call(tape, aura, abi.encodeCall(IAuraToken.INIT_MINT_AMOUNT, ()));
        _call(tape, aura, abi.encodeCall(IAuraToken.EMISSIONS_MAX_SUPPLY, ()));
        _call(tape, aura, abi.encodeCall(IAuraToken.totalCliffs, ()));
        _call(tape, aura, abi.encodeCall(IAuraToken.reductionPerCliff, ()));
    }

    function _deposit(Tape memory tape, address booster, address vault, uint256 pid, address rewardPool, address wallet)
        private
        view
    {
        address lptoken = address(uint160(_word(tape, booster, abi.encodeCall(IAuraBooster.poolInfo, (pid)))));
        if (lptoken != address(0)) _poolByAddress(tape, vault, lptoken);
        _call(tape, rewardPool, abi.encodeCall(IAuraRewards.earned, (wallet)));
        address bal = address(uint160(_word(tape, rewardPool, abi.encodeCall(IAuraRewards.rewardToken, ()))));
        _tokenInfo(tape, bal);
        uint256 count = _word(tape, rewardPool, abi.encodeCall(IAuraRewards.extraRewardsLength, ()));
        for (uint256 i = 0; i < count && i < 8; i++) {
            address extra =
                address(uint160(_word(tape, rewardPool, abi.encodeCall(IAuraRewards.extraRewards, (i)))));
            _call(tape, extra, abi.encodeCall(IAuraRewards.earned, (wallet)));
            address token = address(uint160(_word(tape, extra, abi.encodeCall(IAuraRewards.rewardToken, ()))));
            (bool stashed, bytes memory base) = _call(tape, token, abi.encodeCall(IAuraStashToken.baseToken, ()));
            _tokenInfo(tape, stashed && base.length >= 32 ? abi.decode(base, (address)) : token);
        }
    }
}
