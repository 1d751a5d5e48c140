// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// Instadapp's InstaList as the service reads it (the ABI dsa-connect ships): each owner's DSAs
/// as a linked list of account ids, kept by the DSAs themselves when they add or remove an
/// authority, as list.sol keeps it (Instadapp/dsa-contracts, contracts/registry/list.sol).
contract TestInstaList {
    struct UserLink {
        uint64 first;
        uint64 last;
        uint64 count;
    }

    struct UserList {
        uint64 prev;
        uint64 next;
    }

    uint64 public accounts;
    mapping(address => uint64) public accountID;
    mapping(uint64 => address) public accountAddr;
    mapping(address => UserLink) public userLink;
    mapping(address => mapping(uint64 => UserList)) public userList;

    /// A new DSA's id (InstaIndex calls it when it builds one; here the DSA itself).
    function init(address account) external {
        accounts++;
        accountID[account] = accounts;
        accountAddr[accounts] = account;
    }

    function addAuth(address owner) external {
        uint64 id = accountID[msg.sender];
        require(id != 0, "not-account");
        UserLink storage link = userLink[owner];
        if (link.last != 0) {
            userList[owner][id].prev = link.last;
            userList[owner][link.last].next = id;
        }
        if (link.first == 0) link.first = id;
        link.last = id;
        link.count++;
    }

    function removeAuth(address owner) external {
        uint64 id = accountID[msg.sender];
        require(id != 0, "not-account");
        UserList memory entry = userList[owner][id];
        UserLink storage link = userLink[owner];
        if (entry.prev != 0) userList[owner][entry.prev].next = entry.next;
        if (entry.next != 0) userList[owner][entry.next].prev = entry.prev;
        if (link.first == id) link.first = entry.next;
        if (link.last == id) link.last = entry.prev;
        link.count--;
        delete userList[owner][id];
    }
}

/// A DSA: an account its authorities act through (`cast` stands for Instadapp's connectors: a call
/// made by the DSA), registered in InstaList as it adds and removes them.
contract TestDsa {
    TestInstaList public immutable list;
    mapping(address => bool) public isAuth;

    constructor(TestInstaList list_, address owner) {
        list = list_;
        list_.init(address(this));
        isAuth[owner] = true;
        list_.addAuth(owner);
    }

    function enable(address user) external {
        require(isAuth[msg.sender] && !isAuth[user], "not-auth");
        isAuth[user] = true;
        list.addAuth(user);
    }

    function disable(address user) external {
        require(isAuth[msg.sender] && isAuth[user], "not-auth");
        isAuth[user] = false;
        list.removeAuth(user);
    }

    function cast(address target, bytes calldata data) external returns (bytes memory) {
        require(isAuth[msg.sender], "not-auth");
        (bool ok, bytes memory answer) = target.call(data);
        require(ok, "cast-failed");
        return answer;
    }
}

/// Summer.fi's AccountGuard as the service reads it (`owners`, and `ProxyOwnershipTransferred` as
/// Summer.fi's published ABI declares it).
contract TestAccountGuard {
    mapping(address => address) public owners;
    address public factory;

    event ProxyOwnershipTransferred(address indexed newOwner, address indexed oldAddress, address indexed proxy);

    function setFactory(address factory_) external {
        require(factory == address(0), "factory-set");
        factory = factory_;
    }

    function initializeFor(address proxy, address owner) external {
        require(msg.sender == factory, "only-factory");
        owners[proxy] = owner;
    }

    function changeOwner(address newOwner, address proxy) external {
        require(owners[proxy] == msg.sender, "only-owner");
        owners[proxy] = newOwner;
        emit ProxyOwnershipTransferred(newOwner, msg.sender, proxy);
    }
}

/// A DPM account: its owner (as the guard says) acts through it.
contract TestDpmAccount {
    TestAccountGuard public immutable guard;

    constructor(TestAccountGuard guard_) {
        guard = guard_;
    }

    function execute(address target, bytes calldata data) external returns (bytes memory) {
        require(guard.owners(address(this)) == msg.sender, "not-owner");
        (bool ok, bytes memory answer) = target.call(data);
        require(ok, "execute-failed");
        return answer;
    }
}

/// Summer.fi's AccountFactory: `AccountCreated(proxy, user, vaultId)`, all three indexed, as its
/// published ABI declares.
contract TestAccountFactory {
    TestAccountGuard public immutable guard;
    uint256 public accountsGlobalCounter;

    event AccountCreated(address indexed proxy, address indexed user, uint256 indexed vaultId);

    constructor(TestAccountGuard guard_) {
        guard = guard_;
        guard_.setFactory(address(this));
    }

    function createAccount(address user) external returns (address proxy) {
        proxy = address(new TestDpmAccount(guard));
        guard.initializeFor(proxy, user);
        emit AccountCreated(proxy, user, ++accountsGlobalCounter);
    }
}

/// A DSProxy's owner (ds-auth's DSAuth) and Maker's ProxyRegistry, as DeFi Saver's registry reads them.
interface IDSProxyOwner {
    function owner() external view returns (address);
}

interface IMcdProxyRegistry {
    function proxies(address owner) external view returns (address);
}

/// DeFi Saver's DFSProxyRegistry as the service reads it (`getAllProxies`, in the ABI DeFi Saver's SDK
/// ships), written from defisaver-v3-contracts' contracts/utils/proxyRegistry/DFSProxyRegistry.sol:
/// Maker's proxy of a user, unless DeFi Saver recorded another after an owner changed, and the
/// proxies DeFi Saver built for the user since, each recorded only while the user owns it and never
/// removed. The real registry takes its writes from DFSProxyRegistryController (found through
/// DeFi Saver's DFSRegistry) and reads mainnet's ProxyRegistry; this one takes them from its
/// deployer and is given the ProxyRegistry.
contract TestDFSProxyRegistry {
    IMcdProxyRegistry public mcdRegistry;
    address public controller;
    mapping(address => address) public changedOwners;
    mapping(address => address[]) public additionalProxies;

    constructor(IMcdProxyRegistry mcdRegistry_) {
        mcdRegistry = mcdRegistry_;
        controller = msg.sender;
    }

    function changeMcdOwner(address _user, address _proxy) public {
        require(msg.sender == controller);
        if (IDSProxyOwner(_proxy).owner() == _user) changedOwners[_user] = _proxy;
    }

    function getMcdProxy(address _user) public view returns (address) {
        address proxyAddr = mcdRegistry.proxies(_user);
        if (changedOwners[_user] != address(0)) return changedOwners[_user];
        return proxyAddr;
    }

    function addAdditionalProxy(address _user, address _proxy) public {
        require(msg.sender == controller);
        if (IDSProxyOwner(_proxy).owner() == _user) additionalProxies[_user].push(_proxy);
    }

    function getAllProxies(address _user) public view returns (address, address[] memory) {
        return (getMcdProxy(_user), additionalProxies[_user]);
    }
}
