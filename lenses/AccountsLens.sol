// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev Maker's ProxyRegistry (and any registry of DSProxies): the proxy an owner built.
interface IProxyRegistry {
    function proxies(address owner) external view returns (address);
}

/// @dev DeFi Saver's DFSProxyRegistry: Maker's proxy of an owner (or the one DeFi Saver recorded
/// after the owner changed), and the proxies it built for the owner since, an append-only list.
interface IDFSProxyRegistry {
    function getAllProxies(address user) external view returns (address mcdProxy, address[] memory additional);
}

/// @dev A DSProxy (ds-auth's DSAuth): its owner may be another than the one it was built for.
interface IOwned {
    function owner() external view returns (address);
}

/// @dev Instadapp's InstaList: each owner's DSAs as a linked list of account ids.
interface IInstaList {
    function userLink(address user) external view returns (uint64 first, uint64 last, uint64 count);

    function userList(address user, uint64 id) external view returns (uint64 prev, uint64 next);

    function accountAddr(uint64 id) external view returns (address);
}

/// @dev Summer.fi's AccountGuard: the owner of each DPM account.
interface IAccountGuard {
    function owners(address proxy) external view returns (address);
}

/// @title The reads that find the accounts a wallet controls (adapters/accounts/), in one call
/// @notice For each DSProxy registry, `proxies(wallet)` and that proxy's `owner()`; for each of
/// DeFi Saver's, `getAllProxies(wallet)` and the `owner()` of up to `maxAccounts` of them; InstaList's
/// `userLink(wallet)`, then up to `maxAccounts` of its list: `accountAddr(id)` and `userList(wallet,
/// id)` for the next id; the AccountGuard's `owners` of each DPM account the event index has seen
/// made for or given to the wallet. Then, for each account found that the wallet owns, the probes:
/// `selectors[i](account)` on `probes[i]`, the reads that say whether a protocol can show the account
/// anything (adapters/accounts/probes.py), so only the accounts that hold something are answered.
contract AccountsLens is Recorder {
    struct Probes {
        address wallet;
        address[] targets;
        bytes4[] selectors;
    }

    constructor(
        address wallet,
        address[] memory registries,
        address[] memory dfsRegistries,
        address instaList,
        uint256 maxAccounts,
        address guard,
        address[] memory candidates,
        address[] memory probes,
        bytes4[] memory selectors
    ) {
        Tape memory tape = _tape();
        Probes memory asked = Probes(wallet, probes, selectors);
        for (uint256 i = 0; i < registries.length; i++) {
            address proxy = address(uint160(_word(tape, registries[i], abi.encodeCall(IProxyRegistry.proxies, (wallet)))));
            if (proxy != address(0)) _owned(tape, proxy, asked);
        }
        for (uint256 i = 0; i < dfsRegistries.length; i++) {
            _dfsProxies(tape, dfsRegistries[i], asked, maxAccounts);
        }
        if (instaList != address(0)) _dsas(tape, IInstaList(instaList), asked, maxAccounts);
        for (uint256 i = 0; i < candidates.length; i++) {
            bytes memory owners = abi.encodeCall(IAccountGuard.owners, (candidates[i]));
            if (address(uint160(_word(tape, guard, owners))) == wallet) _probe(tape, candidates[i], asked);
        }
        _finish(tape);
    }

    function _dfsProxies(Tape memory tape, address registry, Probes memory asked, uint256 maxAccounts) private view {
        bytes memory all = abi.encodeCall(IDFSProxyRegistry.getAllProxies, (asked.wallet));
        (bool ok, bytes memory ret) = _call(tape, registry, all);
        if (!ok || ret.length < 96) return;
        (address mcdProxy, address[] memory additional) = abi.decode(ret, (address, address[]));
        if (mcdProxy != address(0)) _owned(tape, mcdProxy, asked);
        for (uint256 i = 0; i < additional.length && i < maxAccounts; i++) {
            _owned(tape, additional[i], asked);
        }
    }

    function _dsas(Tape memory tape, IInstaList list, Probes memory asked, uint256 maxAccounts) private view {
        address wallet = asked.wallet;
        uint64 id = uint64(_word(tape, address(list), abi.encodeCall(IInstaList.userLink, (wallet))));
        for (uint256 n = 0; id != 0 && n < maxAccounts; n++) {
            _probe(tape, address(uint160(_word(tape, address(list), abi.encodeCall(IInstaList.accountAddr, (id))))), asked);
            id = uint64(_wordAt(tape, address(list), abi.encodeCall(IInstaList.userList, (wallet, id)), 1));
        }
    }

    /// @dev A DSProxy's `owner()`, and its probes where the wallet owns it.
    function _owned(Tape memory tape, address proxy, Probes memory asked) private view {
        if (address(uint160(_word(tape, proxy, abi.encodeCall(IOwned.owner, ())))) == asked.wallet) {
            _probe(tape, proxy, asked);
        }
    }

    /// @dev Stops once the tape is full: the service reads the rest of the account in full.
    function _probe(Tape memory tape, address account, Probes memory asked) private view {
        if (account == address(0)) return;
        for (uint256 i = 0; i < asked.targets.length && !tape.full; i++) {
            _call(tape, asked.targets[i], abi.encodeWithSelector(asked.selectors[i], account));
        }
    }
}
