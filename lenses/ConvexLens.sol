// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "CurvePools.sol";

/// @dev Convex's Booster (convex-eth/platform, contracts/contracts/Booster.sol).
interface IBooster {
    function poolLength() external view returns (uint256);

    function poolInfo(uint256 pid)
        external
        view
        returns (address lptoken, address token, address gauge, address crvRewards, address stash, bool shutdown);
}

/// @dev A pool's BaseRewardPool (`crvRewards`) and its extra rewards' VirtualBalanceRewardPools.
interface IConvexRewards {
    function earned(address account) external view returns (uint256);

    function extraRewardsLength() external view returns (uint256);

    function extraRewards(uint256 i) external view returns (address);

    function rewardToken() external view returns (address);
}

/// @dev The Cvx token's mint parameters (contracts/contracts/Cvx.sol).
interface ICvx {
    function maxSupply() external view returns (uint256);

    function totalCliffs() external view returns (uint256);

    function reductionPerCliff() external view returns (uint256);
}

/// @dev A Curve LP token that is not its pool (CurveTokenV1-V5): the pool is its `minter`.
interface ICurveLpToken {
    function minter() external view returns (address);
}

/// @title The reads of one Convex input (adapters/convex/positions.py), in one call
/// @notice Every Booster pool's `poolInfo(pid)` and its BaseRewardPool's `balanceOf(wallet)`, read
/// without recording; only a pool the wallet has a deposit in gets both recorded, then
/// `poolLength()` (its record vouches for the scan, as in CurveLens). For up to `maxHeld`
/// deposits: `earned(wallet)`, `extraRewardsLength`, each `extraRewards(i)`, its `rewardToken`,
/// `earned(wallet)`, the token's facts and feed; the LP token's `minter()` (its Curve pool, else
/// the LP token is the pool), the pool's `lp_price()` (it answers on cryptoswap pools), and the
/// pool's share of the deposit (CurvePools). Then CVX's facts, `totalSupply`, `maxSupply`,
/// `totalCliffs`, `reductionPerCliff`, CRV's facts, both feeds and the sequencer feed; last, the
/// next sources' reads of the tokens with no feed (Prices.sol `_pricesLater`).
contract ConvexLens is CurvePools {
    uint256 internal constant MAX_REWARDS = 8;

    struct Args {
        address wallet;
        address booster;
        address cvx;
        address crv;
        uint256 maxHeld;
        address[][3] pricing;
        address sequencer;
    }

    struct Held {
        address lptoken;
        address rewards;
        uint256 amount;
    }

    constructor(
        address wallet,
        address booster,
        address cvx,
        address crv,
        uint256 maxHeld,
        address[] memory priced,
        address[] memory feeds,
        address[] memory market,
        address sequencer
    ) {
        _run(Args(wallet, booster, cvx, crv, maxHeld, [priced, feeds, market], sequencer));
    }

    function _run(Args memory args) private {
        Tape memory tape = _tape();
        Held[] memory held = new Held[](args.maxHeld);
        uint256 found = _scan(tape, args, held);
        uint256 detailed = found < held.length ? found : held.length;
        for (uint256 h = 0; h < detailed; h++) {
            _deposit(tape, held[h], args);
        }
        if (detailed > 0) {
            _tokenInfo(tape, args.cvx);
            _call(tape, args.cvx, abi.encodeCall(IERC20.totalSupply, ()));
            _call(tape, args.cvx, abi.encodeCall(ICvx.maxSupply, ()));
            _call(tape, args.cvx, abi.encodeCall(ICvx.totalCliffs, ()));
            _call(tape, args.cvx, abi.encodeCall(ICvx.reductionPerCliff, ()));
            _tokenInfo(tape, args.crv);
            _priceLater(tape, args.crv, _pricing(args.pricing));
            _priceLater(tape, args.cvx, _pricing(args.pricing));
            if (args.sequencer != address(0)) {
                _call(tape, args.sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
            }
        }
        _pricesLater(tape, _pricing(args.pricing));
        _finish(tape);
    }

    function _scan(Tape memory tape, Args memory args, Held[] memory held) private view returns (uint256 found) {
        uint256 n = _peek(args.booster, IBooster.poolLength.selector, 0, false, 0);
        for (uint256 pid = 0; pid < n; pid++) {
            address rewards = address(uint160(_peek(args.booster, IBooster.poolInfo.selector, pid, true, 3)));
            if (rewards == address(0)) continue;
            uint256 balance = _peek(rewards, IERC20.balanceOf.selector, uint160(args.wallet), true, 0);
            if (balance == 0) continue;
            (, bytes memory info) = _call(tape, args.booster, abi.encodeCall(IBooster.poolInfo, (pid)));
            _call(tape, rewards, abi.encodeCall(IERC20.balanceOf, (args.wallet)));
            if (found < held.length) held[found] = Held(address(uint160(_at(info, 0))), rewards, balance);
            found++;
        }
        _call(tape, args.booster, abi.encodeCall(IBooster.poolLength, ()));
    }

    function _deposit(Tape memory tape, Held memory held, Args memory args) private view {
        _call(tape, held.rewards, abi.encodeCall(IConvexRewards.earned, (args.wallet)));
        _extras(tape, held, args);
        (bool minted, bytes memory minter) = _call(tape, held.lptoken, abi.encodeCall(ICurveLpToken.minter, ()));
        address pool = minted && minter.length >= 32 ? abi.decode(minter, (address)) : held.lptoken;
        (bool crypto,) = _call(tape, pool, abi.encodeCall(ICurvePool.lp_price, ()));
        _share(tape, pool, held.lptoken, crypto ? CRYPTOSWAP : STABLESWAP, held.amount, _pricing(args.pricing));
    }

    /// @dev The deposit's extra rewards: each `extraRewards(i)`, its `rewardToken`, `earned`, the token's facts and price.
    function _extras(Tape memory tape, Held memory held, Args memory args) private view {
        uint256 n = _word(tape, held.rewards, abi.encodeCall(IConvexRewards.extraRewardsLength, ()));
        for (uint256 i = 0; i < n && i < MAX_REWARDS; i++) {
            address extra = address(uint160(_word(tape, held.rewards, abi.encodeCall(IConvexRewards.extraRewards, (i)))));
            address token = address(uint160(_word(tape, extra, abi.encodeCall(IConvexRewards.rewardToken, ()))));
            _call(tape, extra, abi.encodeCall(IConvexRewards.earned, (args.wallet)));
            _tokenInfo(tape, token);
            _priceLater(tape, token, _pricing(args.pricing));
        }
    }
}
