// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev Maker's ChainLog: every core contract by name.
interface IChainLog {
    function getAddress(bytes32 key) external view returns (address);
}

/// @dev GetCdps: the CdpManager's vaults of an owner, oldest first.
interface IGetCdps {
    function getCdpsAsc(address manager, address guy)
        external
        view
        returns (uint256[] memory ids, address[] memory urns, bytes32[] memory ilks);
}

/// @dev The Vat's views of an urn and of an ilk.
interface IVat {
    function urns(bytes32 ilk, address urn) external view returns (uint256 ink, uint256 art);

    function ilks(bytes32 ilk)
        external
        view
        returns (uint256 Art, uint256 rate, uint256 spot, uint256 line, uint256 dust);
}

/// @dev The Spotter's pip and liquidation ratio of an ilk, and the target price.
interface ISpotter {
    function ilks(bytes32 ilk) external view returns (address pip, uint256 mat);

    function par() external view returns (uint256);
}

/// @dev The Jug's fee of an ilk and the base fee.
interface IJug {
    function ilks(bytes32 ilk) external view returns (uint256 duty, uint256 rho);

    function base() external view returns (uint256);
}

/// @dev The IlkRegistry: every ilk and its collateral token.
interface IIlkRegistry {
    function list() external view returns (bytes32[] memory);

    function gem(bytes32 ilk) external view returns (address);
}

/// @dev An OSM's last update.
interface IOsm {
    function zzz() external view returns (uint64);
}

/// @dev Sky's LockstakeEngine: an owner's urns, its ilk and the token it lends.
interface ILockstakeEngine {
    function ownerUrnsCount(address owner) external view returns (uint256);

    function ownerUrns(address owner, uint256 index) external view returns (address);

    function ilk() external view returns (bytes32);

    function usds() external view returns (address);

    function urnFarms(address urn) external view returns (address);
}

/// @dev A staking-engine farm (Sky's StakingRewards, a Synthetix fork): its reward token and what a
/// staker (an urn) has earned.
interface IStakingRewards {
    function rewardsToken() external view returns (address);

    function earned(address account) external view returns (uint256);
}

/// @title The reads of one Maker input (adapters/maker/positions.py), in one call
/// @notice The ChainLog's contracts; the wallet's CdpManager vaults (GetCdps) and their urns in the
/// Vat; its own urn in every ilk of the IlkRegistry; its staking-engine urns (up to `maxUrns`).
/// Each staking-engine urn that holds something: its farm (`urnFarms`), the farm's reward token,
/// what the urn has earned there, the token's info and USD feed (of `feedKeys`/`feeds`, the
/// addresses data's). Then, for each ilk where something is held: the Vat's, Spotter's and Jug's
/// figures, its token and its OSM's last update; and once: `par`, `base`, DAI's token and the
/// engine's USDS.
contract MakerLens is Recorder {
    struct Core {
        address manager;
        address getCdps;
        address vat;
        address spot;
        address jug;
        address registry;
        address dai;
        address engine;
    }

    bytes32[] private held;

    constructor(address wallet, address chainLog, uint256 maxUrns, address[] memory feedKeys, address[] memory feeds) {
        Tape memory tape = _tape();
        Core memory core = _core(tape, IChainLog(chainLog));
        _managed(tape, core, wallet);
        _direct(tape, core, wallet);
        bool staked = core.engine != address(0) && _staked(tape, core, wallet, maxUrns, feedKeys, feeds);
        for (uint256 i = 0; i < held.length; i++) {
            _ilk(tape, core, held[i]);
        }
        if (held.length != 0) {
            _call(tape, core.spot, abi.encodeCall(ISpotter.par, ()));
            _call(tape, core.jug, abi.encodeCall(IJug.base, ()));
            _tokenInfo(tape, core.dai);
            if (staked) {
                address usds = address(uint160(_word(tape, core.engine, abi.encodeCall(ILockstakeEngine.usds, ()))));
                if (usds != address(0)) _tokenInfo(tape, usds);
            }
        }
        _finish(tape);
    }

    function _core(Tape memory tape, IChainLog log) private view returns (Core memory core) {
        core.manager = _named(tape, log, "CDP_MANAGER");
        core.getCdps = _named(tape, log, "GET_CDPS");
        core.vat = _named(tape, log, "MCD_VAT");
        core.spot = _named(tape, log, "MCD_SPOT");
        core.jug = _named(tape, log, "MCD_JUG");
        core.registry = _named(tape, log, "ILK_REGISTRY");
        core.dai = _named(tape, log, "MCD_DAI");
        core.engine = _named(tape, log, "LOCKSTAKE_ENGINE");
    }

    function _named(Tape memory tape, IChainLog log, bytes32 key) private view returns (address) {
        return address(uint160(_word(tape, address(log), abi.encodeCall(IChainLog.getAddress, (key)))));
    }

    function _managed(Tape memory tape, Core memory core, address wallet) private {
        (bool ok, bytes memory ret) = _call(tape, core.getCdps, abi.encodeCall(IGetCdps.getCdpsAsc, (core.manager, wallet)));
        if (!ok || ret.length < 96) return;
        (, address[] memory urns, bytes32[] memory ilks) = abi.decode(ret, (uint256[], address[], bytes32[]));
        for (uint256 i = 0; i < urns.length && i < ilks.length; i++) {
            _urn(tape, core, ilks[i], urns[i]);
        }
    }

    function _direct(Tape memory tape, Core memory core, address wallet) private {
        (bool ok, bytes memory ret) = _call(tape, core.registry, abi.encodeCall(IIlkRegistry.list, ()));
        if (!ok || ret.length < 64) return;
        bytes32[] memory ilks = abi.decode(ret, (bytes32[]));
        for (uint256 i = 0; i < ilks.length; i++) {
            _urn(tape, core, ilks[i], wallet);
        }
    }

    function _staked(
        Tape memory tape,
        Core memory core,
        address wallet,
        uint256 maxUrns,
        address[] memory feedKeys,
        address[] memory feeds
    ) private returns (bool found) {
        ILockstakeEngine engine = ILockstakeEngine(core.engine);
        uint256 count = _word(tape, address(engine), abi.encodeCall(ILockstakeEngine.ownerUrnsCount, (wallet)));
        bytes32 ilk = bytes32(_word(tape, address(engine), abi.encodeCall(ILockstakeEngine.ilk, ())));
        for (uint256 i = 0; i < count && i < maxUrns; i++) {
            address urn = address(uint160(_word(tape, address(engine), abi.encodeCall(ILockstakeEngine.ownerUrns, (wallet, i)))));
            if (_urn(tape, core, ilk, urn)) {
                found = true;
                _farm(tape, engine, urn, feedKeys, feeds);
            }
        }
    }

    /// @dev An urn's farm, where it names one: its reward token, the urn's earned, the token's info and feed.
    function _farm(Tape memory tape, ILockstakeEngine engine, address urn, address[] memory feedKeys, address[] memory feeds)
        private
        view
    {
        address farm = address(uint160(_word(tape, address(engine), abi.encodeCall(ILockstakeEngine.urnFarms, (urn)))));
        if (farm == address(0)) return;
        address token = address(uint160(_word(tape, farm, abi.encodeCall(IStakingRewards.rewardsToken, ()))));
        _call(tape, farm, abi.encodeCall(IStakingRewards.earned, (urn)));
        if (token == address(0)) return;
        _tokenInfo(tape, token);
        _feed(tape, _lookup(token, feedKeys, feeds));
    }

    /// @dev An urn's ink and art; its ilk is kept for the figures when it holds anything.
    function _urn(Tape memory tape, Core memory core, bytes32 ilk, address urn) private returns (bool) {
        (bool ok, bytes memory ret) = _call(tape, core.vat, abi.encodeCall(IVat.urns, (ilk, urn)));
        if (!ok || (_at(ret, 0) == 0 && _at(ret, 1) == 0)) return false;
        for (uint256 i = 0; i < held.length; i++) {
            if (held[i] == ilk) return true;
        }
        held.push(ilk);
        return true;
    }

    function _ilk(Tape memory tape, Core memory core, bytes32 ilk) private view {
        _call(tape, core.vat, abi.encodeCall(IVat.ilks, (ilk)));
        address pip = address(uint160(_wordAt(tape, core.spot, abi.encodeCall(ISpotter.ilks, (ilk)), 0)));
        _call(tape, core.jug, abi.encodeCall(IJug.ilks, (ilk)));
        address gem = address(uint160(_word(tape, core.registry, abi.encodeCall(IIlkRegistry.gem, (ilk)))));
        if (gem != address(0)) _tokenInfo(tape, gem);
        if (pip != address(0)) _call(tape, pip, abi.encodeCall(IOsm.zzz, ()));
    }
}
