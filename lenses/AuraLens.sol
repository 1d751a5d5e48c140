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

    function operator() external view returns (address);
}

/// @dev The Booster's multiplier of a reward pool's BAL before AURA is minted (Booster.sol from
/// Aura's 2023 migration on; the 2022 Booster and BoosterLite revert).
interface IAuraRewardMultipliers {
    function getRewardMultipliers(address rewardPool) external view returns (uint256);
}

/// @dev A sidechain's L2Coordinator (contracts/sidechain/L2Coordinator.sol): what it pays AURA at.
interface IAuraL2Coordinator {
    function mintRate() external view returns (uint256);

    function accBalRewards() external view returns (uint256);
}

/// @title The reads of one Aura input (adapters/aura/positions.py), in one call
/// @notice The Booster's `poolLength()`; for each reward pool given (those the service has seen the
/// Booster list, by pid), the wallet's `balanceOf`; where it holds some: the Booster's `poolInfo(pid)`,
/// the Balancer pool's reads of its `lptoken` (its `getPoolId()`, then the Vault's; a v3 pool's v3 Vault reads where it has none), `earned`,
/// `rewardToken()`, `extraRewardsLength()` and each extra reward pool's `earned`, `rewardToken()`,
/// `baseToken()` and token facts, and what AURA a claim pays: on Ethereum (no `coordinator`) the
/// Booster's `getRewardMultipliers(rewardPool)` and the AURA token's operator, supply and mint
/// constants; on a sidechain the L2Coordinator's `mintRate()`, `accBalRewards()` and its AuraOFT
/// balance. Then the USD feeds of the tokens read (`pricing`: the chain's tokens with a feed and
/// their feeds).
contract AuraLens is BalancerPools {
    /// @param aura The Booster, the AURA token (an AuraOFT on a sidechain), the sidechain's
    /// L2Coordinator (none on Ethereum), Balancer's Vault and its v3 Vault (none where the chain has none).
    constructor(
        address wallet,
        address[5] memory aura,
        uint256[] memory pids,
        address[] memory rewardPools,
        address[][2] memory pricing,
        address sequencer
    ) {
        Tape memory tape = _tape();
        _call(tape, aura[0], abi.encodeCall(IAuraBooster.poolLength, ()));
        if (_deposits(tape, aura, pids, rewardPools, wallet)) {
            _auraToken(tape, aura[1], aura[2]);
            _feedsOfRead(tape, pricing[0], pricing[1]);
            if (sequencer != address(0)) _call(tape, sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
        }
        _finish(tape);
    }

    function _deposits(
        Tape memory tape,
        address[5] memory aura,
        uint256[] memory pids,
        address[] memory rewardPools,
        address wallet
    ) private view returns (bool held) {
        for (uint256 i = 0; i < rewardPools.length; i++) {
            if (_word(tape, rewardPools[i], abi.encodeCall(IERC20.balanceOf, (wallet))) != 0) {
                _deposit(tape, aura[0], aura[3], aura[4], pids[i], rewardPools[i], wallet);
                if (aura[2] == address(0)) {
                    _call(tape, aura[0], abi.encodeCall(IAuraRewardMultipliers.getRewardMultipliers, (rewardPools[i])));
                }
                held = true;
            }
        }
    }

    function _auraToken(Tape memory tape, address aura, address coordinator) private view {
        _tokenInfo(tape, aura);
        if (coordinator != address(0)) {
            _call(tape, coordinator, abi.encodeCall(IAuraL2Coordinator.mintRate, ()));
            _call(tape, coordinator, abi.encodeCall(IAuraL2Coordinator.accBalRewards, ()));
            _call(tape, aura, abi.encodeCall(IERC20.balanceOf, (coordinator)));
            return;
        }
        _call(tape, aura, abi.encodeCall(IAuraToken.operator, ()));
        _call(tape, aura, abi.encodeCall(IERC20.totalSupply, ()));
        _call(tape, aura, abi.encodeCall(IAuraToken.INIT_MINT_AMOUNT, ()));
        _call(tape, aura, abi.encodeCall(IAuraToken.EMISSIONS_MAX_SUPPLY, ()));
        _call(tape, aura, abi.encodeCall(IAuraToken.totalCliffs, ()));
        _call(tape, aura, abi.encodeCall(IAuraToken.reductionPerCliff, ()));
    }

    function _deposit(
        Tape memory tape,
        address booster,
        address vault,
        address v3Vault,
        uint256 pid,
        address rewardPool,
        address wallet
    ) private view {
        address lptoken = address(uint160(_word(tape, booster, abi.encodeCall(IAuraBooster.poolInfo, (pid)))));
        if (lptoken != address(0)) _poolByAddress(tape, vault, v3Vault, lptoken);
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
