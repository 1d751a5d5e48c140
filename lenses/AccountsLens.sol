// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "Recorder.sol";

/// @dev Maker's ProxyRegistry (and any registry of DSProxies): the proxy an owner built.
interface IProxyRegistry {
    function proxies(address owner) external view returns (address);
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
/// @notice For each DSProxy registry, `proxies(wallet)` and that proxy's `owner()`; InstaList's
/// `userLink(wallet)`, then up to `maxAccounts` of its list: `accountAddr(id)` and `userList(wallet,
/// id)` for the next id; the AccountGuard's `owners` of each DPM account the event index has seen
/// made for or given to the wallet.
contract AccountsLens is Recorder {
    constructor(
        address wallet,
        address[] memory registries,
        address instaList,
        uint256 maxAccounts,
        address guard,
        address[] memory candidates
    ) {
        Tape memory tape = _tape();
        for (uint256 i = 0; i < registries.length; i++) {
            address proxy = address(uint160(_word(tape, registries[i], abi.encodeCall(IProxyRegistry.proxies, (wallet)))));
            if (proxy != address(0)) _call(tape, proxy, abi.encodeCall(IOwned.owner, ()));
        }
        if (instaList != address(0)) _dsas(tape, IInstaList(instaList), wallet, maxAccounts);
        for (uint256 i = 0; i < candidates.length; i++) {
            _call(tape, guard, abi.encodeCall(IAccountGuard.owners, (candidates[i])));
        }
        _finish(tape);
    }

    function _dsas(Tape memory tape, IInstaList list, address wallet, uint256 maxAccounts) private view {
        uint64 id = uint64(_word(tape, address(list), abi.encodeCall(IInstaList.userLink, (wallet))));
        for (uint256 n = 0; id != 0 && n < maxAccounts; n++) {
            _call(tape, address(list), abi.encodeCall(IInstaList.accountAddr, (id)));
            id = uint64(_wordAt(tape, address(list), abi.encodeCall(IInstaList.userList, (wallet, id)), 1));
        }
    }
}
