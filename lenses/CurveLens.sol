// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "CurvePools.sol";

/// @dev A Curve pool factory (@curvefi/api's factory ABIs: stableswap, crvUSD, stableswap-ng,
/// v2 crypto, twocrypto-ng, tricrypto-ng).
interface ICurveFactory {
    function pool_count() external view returns (uint256);

    function pool_list(uint256 i) external view returns (address);

    function get_gauge(address pool) external view returns (address);

    /// @dev The v2 crypto factory's alone: the LP token of a pool that is not its own token.
    function get_token(address pool) external view returns (address);
}

/// @dev Curve's older registries (the main and the crypto registry; curvefi/metaregistry's
/// MainRegistry.json and CryptoRegistry.json): a pool's LP token and its gauges.
interface ICurveRegistry {
    function get_lp_token(address pool) external view returns (address);

    function get_gauges(address pool) external view returns (address[10] memory, int128[10] memory);
}

/// @dev Curve's AddressProvider: `get_address(id)` (0 the main registry, 5 the crypto registry).
interface ICurveAddressProvider {
    function get_address(uint256 id) external view returns (address);
}

/// @dev A child gauge factory (chains other than Ethereum): a pool's gauge by its LP token.
interface IChildGaugeFactory {
    function get_gauge_from_lp_token(address lp_token) external view returns (address);
}

/// @dev A liquidity gauge (v4/v5 views; `claimable_tokens` writes on v1-v4).
interface ICurveGauge {
    function claimable_tokens(address addr) external returns (uint256);

    function reward_count() external view returns (uint256);

    function reward_tokens(uint256 i) external view returns (address);

    function claimable_reward(address user, address reward_token) external view returns (uint256);
}

/// @title The reads of one Curve input (adapters/curve/positions.py), in one call
/// @notice For each registry (a factory): every pool's LP token balance and gauge stake of the
/// wallet, read without recording; only a pool the wallet holds in (LP or gauge) gets its reads
/// recorded: `pool_list(i)`, `get_token` (crypto factory), `get_gauge` (on chains other than
/// Ethereum the child gauge factories' `get_gauge_from_lp_token(lp)`), both `balanceOf`s. Each
/// registry's `pool_count()` is recorded after its scan, so its record on the tape means every
/// held pool of it was recorded before (the tape is cut whole from some record on). Then, for up
/// to `maxHeld` held pools: the LP token's facts and `totalSupply`, `coins(i)` and `balances(i)`
/// up to the first revert (at most 8), each coin's facts and feed (`pricing`: the tokens with a
/// feed, their feeds, the market; a token with no feed has its next sources' reads recorded
/// last, Prices.sol `_pricesLater`, in what room the tape has left), `get_virtual_price`,
/// `lp_price` (crypto), `calc_withdraw_one_coin` of the wallet's LP (LP + staked) in each coin,
/// the gauge's `reward_count`, `reward_tokens(i)`, `claimable_reward`, each reward's facts and
/// feed, CRV's facts and feed; last, each gauge's `claimable_tokens` by a call that may write
/// (it checkpoints on LiquidityGauge v1-v4), and the sequencer feed; then the tokens with no feed.
/// Then the same scan of each older registry the AddressProvider's `get_address(id)` names
/// (recorded), for each of `providerIds`: the id (0 the main registry, 5 the crypto registry) in
/// its low 128 bits, the registry's flags above them.
/// @dev flags[r]: bit 0 = the pool's LP token is `get_token(pool)` (else the pool itself), bit 1 =
/// cryptoswap (uint256 coin index, `lp_price`), bit 2 = an older registry: the LP token is
/// `get_lp_token(pool)`, the gauge (on Ethereum) the first of `get_gauges(pool)`, bit 3 = an ng
/// crypto pool (twocrypto-ng, tricrypto-ng: `remove_liquidity` pays all for the whole supply).
contract CurveLens is CurvePools {
    uint256 internal constant MAX_REWARDS = 8;

    struct Held {
        address pool;
        address lp;
        address gauge;
        uint256 flags;
        uint256 amount;
    }

    struct Args {
        address wallet;
        address[] registries;
        uint256[] flags;
        uint256 maxHeld;
        address crv;
        address[][3] pricing;
        address sequencer;
        address[] childGauges;
        address provider;
        uint256[] providerIds;
    }

    constructor(
        address wallet,
        address[] memory registries,
        uint256[] memory flags,
        uint256 maxHeld,
        address crv,
        address[][3] memory pricing,
        address sequencer,
        address[] memory childGauges,
        address provider,
        uint256[] memory providerIds
    ) {
        _run(
            Args(
                wallet,
                registries,
                flags,
                maxHeld,
                crv,
                pricing,
                sequencer,
                childGauges,
                provider,
                providerIds
            )
        );
    }

    function _run(Args memory args) private {
        Tape memory tape = _tape();
        Held[] memory held = new Held[](args.maxHeld);
        uint256 found = 0;
        for (uint256 r = 0; r < args.registries.length; r++) {
            found = _scan(tape, args.registries[r], args.flags[r], args, held, found);
        }
        for (uint256 p = 0; p < args.providerIds.length && args.provider != address(0); p++) {
            uint256 id = args.providerIds[p] & type(uint128).max;
            bytes memory data = abi.encodeCall(ICurveAddressProvider.get_address, (id));
            address registry = address(uint160(_word(tape, args.provider, data)));
            if (registry != address(0)) found = _scan(tape, registry, args.providerIds[p] >> 128, args, held, found);
        }
        uint256 detailed = found < held.length ? found : held.length;
        for (uint256 h = 0; h < detailed; h++) {
            _pool(tape, held[h], args);
        }
        if (detailed > 0) {
            if (args.crv != address(0)) {
                _tokenInfo(tape, args.crv);
                _priceLater(tape, args.crv, _pricing(args.pricing));
            }
            if (args.sequencer != address(0)) {
                _call(tape, args.sequencer, abi.encodeCall(IAggregator.latestRoundData, ()));
            }
        }
        for (uint256 h = 0; h < detailed; h++) {
            if (held[h].gauge != address(0) && args.crv != address(0)) {
                _mutatingCall(tape, held[h].gauge, abi.encodeCall(ICurveGauge.claimable_tokens, (args.wallet)));
            }
        }
        _pricesLater(tape, _pricing(args.pricing));
        _finish(tape);
    }

    /// @dev One registry's pools: the held ones recorded (and kept in `held` while it has room).
    function _scan(Tape memory tape, address registry, uint256 flags, Args memory args, Held[] memory held, uint256 found)
        private
        view
        returns (uint256)
    {
        uint256 n = _peek(registry, ICurveFactory.pool_count.selector, 0, false, 0);
        for (uint256 i = 0; i < n; i++) {
            (address pool, address lp, address gauge, uint256 amount) = _peekPool(registry, flags, i, args);
            if (amount == 0) continue;
            _call(tape, registry, abi.encodeCall(ICurveFactory.pool_list, (i)));
            if (flags & 1 == 1) _call(tape, registry, _lpCall(flags, pool));
            _recordGauge(tape, registry, flags, pool, lp, args.childGauges);
            _call(tape, lp, abi.encodeCall(IERC20.balanceOf, (args.wallet)));
            if (gauge != address(0)) _call(tape, gauge, abi.encodeCall(IERC20.balanceOf, (args.wallet)));
            if (found < held.length) held[found] = Held(pool, lp, gauge, flags, amount);
            found++;
        }
        _call(tape, registry, abi.encodeCall(ICurveFactory.pool_count, ()));
        return found;
    }

    /// @dev Pool `i` of a registry, its LP token, its gauge and the wallet's LP held plus staked, unrecorded.
    function _peekPool(address registry, uint256 flags, uint256 i, Args memory args)
        private
        view
        returns (address pool, address lp, address gauge, uint256 amount)
    {
        pool = address(uint160(_peek(registry, ICurveFactory.pool_list.selector, i, true, 0)));
        bytes4 lpView = flags & 4 == 4 ? ICurveRegistry.get_lp_token.selector : ICurveFactory.get_token.selector;
        lp = flags & 1 == 1 ? address(uint160(_peek(registry, lpView, uint160(pool), true, 0))) : pool;
        gauge = _gauge(registry, flags, pool, lp, args.childGauges);
        amount = _peek(lp, IERC20.balanceOf.selector, uint160(args.wallet), true, 0);
        if (gauge != address(0)) amount += _peek(gauge, IERC20.balanceOf.selector, uint160(args.wallet), true, 0);
    }

    /// @dev The LP token's view of a registry with `flags` bit 0: `get_lp_token` (older registry) or `get_token`.
    function _lpCall(uint256 flags, address pool) private pure returns (bytes memory) {
        return flags & 4 == 4
            ? abi.encodeCall(ICurveRegistry.get_lp_token, (pool))
            : abi.encodeCall(ICurveFactory.get_token, (pool));
    }

    /// @dev A pool's gauge as @curvefi/api finds it: the factory's `get_gauge(pool)` (an older
    /// registry's first `get_gauges(pool)`) on Ethereum; elsewhere the child gauge factories'
    /// `get_gauge_from_lp_token(lp)`, the first that names one.
    function _gauge(address registry, uint256 flags, address pool, address lp, address[] memory childGauges)
        private
        view
        returns (address gauge)
    {
        if (childGauges.length == 0) {
            bytes4 view_ = flags & 4 == 4 ? ICurveRegistry.get_gauges.selector : ICurveFactory.get_gauge.selector;
            return address(uint160(_peek(registry, view_, uint160(pool), true, 0)));
        }
        for (uint256 c = 0; c < childGauges.length && gauge == address(0); c++) {
            gauge = address(
                uint160(_peek(childGauges[c], IChildGaugeFactory.get_gauge_from_lp_token.selector, uint160(lp), true, 0))
            );
        }
    }

    /// @dev The reads of `_gauge`, recorded.
    function _recordGauge(
        Tape memory tape,
        address registry,
        uint256 flags,
        address pool,
        address lp,
        address[] memory childGauges
    ) private view {
        if (childGauges.length == 0) {
            bool older = flags & 4 == 4;
            _call(
                tape,
                registry,
                older ? abi.encodeCall(ICurveRegistry.get_gauges, (pool)) : abi.encodeCall(ICurveFactory.get_gauge, (pool))
            );
            return;
        }
        for (uint256 c = 0; c < childGauges.length; c++) {
            if (_word(tape, childGauges[c], abi.encodeCall(IChildGaugeFactory.get_gauge_from_lp_token, (lp))) != 0) return;
        }
    }

    function _pool(Tape memory tape, Held memory held, Args memory args) private view {
        uint256 kind = held.flags & 8 == 8 ? CRYPTO_NG : held.flags & 2 == 2 ? CRYPTOSWAP : STABLESWAP;
        _share(tape, held.pool, held.lp, kind, held.amount, _pricing(args.pricing));
        if (held.gauge != address(0)) _rewards(tape, held.gauge, args);
    }

    function _rewards(Tape memory tape, address gauge, Args memory args) private view {
        uint256 n = _word(tape, gauge, abi.encodeCall(ICurveGauge.reward_count, ()));
        for (uint256 i = 0; i < n && i < MAX_REWARDS; i++) {
            address token = address(uint160(_word(tape, gauge, abi.encodeCall(ICurveGauge.reward_tokens, (i)))));
            _call(tape, gauge, abi.encodeCall(ICurveGauge.claimable_reward, (args.wallet, token)));
            _tokenInfo(tape, token);
            _priceLater(tape, token, _pricing(args.pricing));
        }
    }
}
