// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// Lido's stETH as the adapter reads it (the views of the ABI Lido publishes in its Ethereum SDK):
/// balances are shares x the pooled ether per share; the totals are the test's to set (the
/// oracle's rebase), the shares are minted by `submit` and moved by transfers.
contract TestStETH {
    string public constant name = "Liquid staked Ether 2.0";
    string public constant symbol = "stETH";
    uint8 public constant decimals = 18;
    uint256 public totalPooledEther;
    uint256 public totalShares;
    mapping(address => uint256) public sharesOf;
    mapping(address => mapping(address => uint256)) public allowance;

    function setTotals(uint256 pooled, uint256 shares) external {
        totalPooledEther = pooled;
        totalShares = shares;
    }

    function getPooledEthByShares(uint256 shares) public view returns (uint256) {
        return shares * totalPooledEther / totalShares;
    }

    function getSharesByPooledEth(uint256 amount) public view returns (uint256) {
        return amount * totalShares / totalPooledEther;
    }

    /// stETH's totalSupply: the ether Lido pools (it rebases).
    function totalSupply() external view returns (uint256) {
        return totalPooledEther;
    }

    function balanceOf(address account) external view returns (uint256) {
        return getPooledEthByShares(sharesOf[account]);
    }

    event Transfer(address indexed from, address indexed to, uint256 value);
    event TransferShares(address indexed from, address indexed to, uint256 sharesValue);

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        allowance[from][msg.sender] -= amount;
        _transfer(from, to, amount);
        return true;
    }

    /// Lido's transfer: the shares `amount` is worth now move (rounded down, as Lido's
    /// getSharesByPooledEth does), and both events say so.
    function _transfer(address from, address to, uint256 amount) internal {
        uint256 moved = getSharesByPooledEth(amount);
        sharesOf[from] -= moved;
        sharesOf[to] += moved;
        emit Transfer(from, to, amount);
        emit TransferShares(from, to, moved);
    }

    /// Lido's submit: ether in, shares minted at the rate before it, announced as a transfer from
    /// zero of what the shares are worth (Lido's _emitTransferAfterMintingShares).
    function submit(address) external payable returns (uint256 moved) {
        moved = getSharesByPooledEth(msg.value);
        sharesOf[msg.sender] += moved;
        totalShares += moved;
        totalPooledEther += msg.value;
        emit Transfer(address(0), msg.sender, getPooledEthByShares(moved));
        emit TransferShares(address(0), msg.sender, moved);
    }
}

/// wstETH: one token per stETH share, converted by stETH's own rate.
contract TestWstETH {
    string public constant name = "Wrapped liquid staked Ether 2.0";
    string public constant symbol = "wstETH";
    uint8 public constant decimals = 18;
    TestStETH public immutable stETH;
    mapping(address => uint256) public balanceOf;
    uint256 public totalSupply;

    constructor(TestStETH steth) {
        stETH = steth;
    }

    event Transfer(address indexed from, address indexed to, uint256 value);

    /// wstETH's wrap: as many wstETH as the stETH's shares (rounded down) minted, then the stETH
    /// taken from the caller.
    function wrap(uint256 amount) external returns (uint256 wrapped) {
        require(amount > 0, "wstETH: can't wrap zero stETH");
        wrapped = stETH.getSharesByPooledEth(amount);
        balanceOf[msg.sender] += wrapped;
        totalSupply += wrapped;
        emit Transfer(address(0), msg.sender, wrapped);
        stETH.transferFrom(msg.sender, address(this), amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
        emit Transfer(msg.sender, to, amount);
        return true;
    }

    function getStETHByWstETH(uint256 amount) external view returns (uint256) {
        return stETH.getPooledEthByShares(amount);
    }
}

/// Lido's WithdrawalQueueERC721 as the adapter reads it: requests set by the test. Like the real
/// queue, `findCheckpointHints` needs sorted ids and `getClaimableEther` pays only a finalized,
/// unclaimed request whose hint was found. Requests made, claimed and sent emit the queue's events
/// as Lido's do (WithdrawalQueueBase's, then the unstETH NFT's Transfer); no stETH or ether moves.
contract TestWithdrawalQueue {
    event WithdrawalRequested(
        uint256 indexed requestId, address indexed requestor, address indexed owner, uint256 amountOfStETH, uint256 amountOfShares
    );
    event WithdrawalClaimed(uint256 indexed requestId, address indexed owner, address indexed receiver, uint256 amountOfETH);
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);

    struct WithdrawalRequestStatus {
        uint256 amountOfStETH;
        uint256 amountOfShares;
        address owner;
        uint256 timestamp;
        bool isFinalized;
        bool isClaimed;
    }

    mapping(uint256 => WithdrawalRequestStatus) internal statuses;
    mapping(uint256 => uint256) internal claimable;
    mapping(address => uint256[]) internal byOwner;
    uint256 public constant lastCheckpointIndex = 3;

    /// The queue's totals as WithdrawalQueueBase keeps them: the stETH of requests not yet
    /// finalized, the last id made and the last finalized.
    uint256 public unfinalizedStETH;
    uint256 public getLastRequestId;
    uint256 public getLastFinalizedRequestId;

    function setRequest(uint256 id, WithdrawalRequestStatus calldata status, uint256 claimableEther) external {
        if (statuses[id].owner == address(0)) byOwner[status.owner].push(id);
        _counted(statuses[id], false);
        statuses[id] = status;
        _counted(status, true);
        claimable[id] = claimableEther;
        if (id > getLastRequestId) getLastRequestId = id;
        if (status.isFinalized && id > getLastFinalizedRequestId) getLastFinalizedRequestId = id;
    }

    function _counted(WithdrawalRequestStatus memory status, bool added) internal {
        if (status.owner == address(0) || status.isFinalized) return;
        if (added) unfinalizedStETH += status.amountOfStETH;
        else unfinalizedStETH -= status.amountOfStETH;
    }

    uint256 public nextId = 1000;

    function requestWithdrawals(uint256[] calldata amounts, address owner) external returns (uint256[] memory ids) {
        ids = new uint256[](amounts.length);
        for (uint256 i = 0; i < amounts.length; i++) {
            uint256 id = nextId++;
            statuses[id] = WithdrawalRequestStatus(amounts[i], amounts[i], owner, block.timestamp, false, false);
            unfinalizedStETH += amounts[i];
            if (id > getLastRequestId) getLastRequestId = id;
            byOwner[owner].push(id);
            emit WithdrawalRequested(id, msg.sender, owner, amounts[i], amounts[i]);
            emit Transfer(address(0), owner, id);
            ids[i] = id;
        }
    }

    /// The oracle's finalization, as the test decides what the request pays.
    function finalize(uint256 id, uint256 claimableEther) external {
        _counted(statuses[id], false);
        if (id > getLastFinalizedRequestId) getLastFinalizedRequestId = id;
        statuses[id].isFinalized = true;
        claimable[id] = claimableEther;
    }

    function claimWithdrawal(uint256 id) external {
        WithdrawalRequestStatus storage status = statuses[id];
        require(status.owner == msg.sender && status.isFinalized && !status.isClaimed, "not claimable");
        status.isClaimed = true;
        _drop(msg.sender, id);
        emit WithdrawalClaimed(id, msg.sender, msg.sender, claimable[id]);
        emit Transfer(msg.sender, address(0), id);
    }

    function transferFrom(address from, address to, uint256 id) external {
        require(statuses[id].owner == from && msg.sender == from && !statuses[id].isClaimed, "not the owner");
        statuses[id].owner = to;
        _drop(from, id);
        byOwner[to].push(id);
        emit Transfer(from, to, id);
    }

    function _drop(address owner, uint256 id) internal {
        uint256[] storage ids = byOwner[owner];
        for (uint256 i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                ids[i] = ids[ids.length - 1];
                ids.pop();
                return;
            }
        }
    }

    function getWithdrawalRequests(address owner) external view returns (uint256[] memory) {
        return byOwner[owner];
    }

    function getWithdrawalStatus(uint256[] calldata ids) external view returns (WithdrawalRequestStatus[] memory out) {
        out = new WithdrawalRequestStatus[](ids.length);
        for (uint256 i = 0; i < ids.length; i++) {
            out[i] = statuses[ids[i]];
        }
    }

    function getLastCheckpointIndex() external pure returns (uint256) {
        return lastCheckpointIndex;
    }

    function findCheckpointHints(uint256[] calldata ids, uint256 first, uint256 last)
        external
        view
        returns (uint256[] memory hints)
    {
        require(first == 1 && last == lastCheckpointIndex, "checkpoint range");
        hints = new uint256[](ids.length);
        for (uint256 i = 0; i < ids.length; i++) {
            require(i == 0 || ids[i - 1] < ids[i], "RequestIdsNotSorted");
            hints[i] = statuses[ids[i]].isFinalized ? 2 : 0;
        }
    }

    function getClaimableEther(uint256[] calldata ids, uint256[] calldata hints)
        external
        view
        returns (uint256[] memory out)
    {
        require(ids.length == hints.length, "ArraysLengthMismatch");
        out = new uint256[](ids.length);
        for (uint256 i = 0; i < ids.length; i++) {
            WithdrawalRequestStatus memory s = statuses[ids[i]];
            out[i] = s.isFinalized && !s.isClaimed && hints[i] != 0 ? claimable[ids[i]] : 0;
        }
    }
}
