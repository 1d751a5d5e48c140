// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// ether.fi's LiquidityPool as the adapter reads it (etherfi-protocol/smart-contracts at b4a0968,
/// src/core/LiquidityPool.sol): ether per eETH share is the pooled ether over the total shares,
/// rounded down, which the test sets.
contract TestEtherfiPool {
    uint256 public totalPooledEther;
    uint256 public totalShares;

    function setTotals(uint256 pooled, uint256 shares) external {
        totalPooledEther = pooled;
        totalShares = shares;
    }

    function amountForShare(uint256 share) public view returns (uint256) {
        if (totalShares == 0) return 0;
        return share * totalPooledEther / totalShares;
    }

    function sharesForAmount(uint256 amount) public view returns (uint256) {
        if (totalPooledEther == 0) return 0;
        return amount * totalShares / totalPooledEther;
    }
}

/// An ERC-20's balances as the tests move them: minted by the test, sent by their holder, each
/// move a Transfer in the token's own units; the supply is what was minted.
abstract contract TestBalances {
    event Transfer(address indexed from, address indexed to, uint256 value);

    mapping(address => uint256) public balanceOf;
    uint256 public totalSupply;

    function mint(address account, uint256 amount) public virtual {
        balanceOf[account] += amount;
        totalSupply += amount;
        emit Transfer(address(0), account, amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
        emit Transfer(msg.sender, to, amount);
        return true;
    }
}

/// ether.fi's eETH (src/core/EETH.sol): `shares` per account; `balanceOf` is the pool's
/// `amountForShare` of them (it rebases); `transfer` moves the pool's `sharesForAmount` and emits
/// the amount in ether, as EETH._transfer does.
contract TestEETH {
    event Transfer(address indexed from, address indexed to, uint256 value);

    string public constant name = "ether.fi ETH";
    string public constant symbol = "eETH";
    uint8 public constant decimals = 18;
    TestEtherfiPool public immutable pool;
    mapping(address => uint256) public shares;

    constructor(TestEtherfiPool pool_) {
        pool = pool_;
    }

    function setShares(address account, uint256 amount) external {
        shares[account] = amount;
    }

    /// EETH.mintShares, which LiquidityPool.deposit calls: the shares credited and announced as a
    /// transfer from zero of what they are worth.
    function mintShares(address account, uint256 share) external {
        shares[account] += share;
        emit Transfer(address(0), account, pool.amountForShare(share));
    }

    function balanceOf(address account) external view returns (uint256) {
        return pool.amountForShare(shares[account]);
    }

    /// EETH.totalSupply: the pool's ether (it rebases).
    function totalSupply() external view returns (uint256) {
        return pool.totalPooledEther();
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        uint256 moved = pool.sharesForAmount(amount);
        shares[msg.sender] -= moved;
        shares[to] += moved;
        emit Transfer(msg.sender, to, amount);
        return true;
    }
}

/// ether.fi's weETH (src/core/WeETH.sol): one eETH share per token, `getEETHByWeETH` the pool's
/// `amountForShare`.
contract TestWeETH is TestBalances {
    string public constant name = "Wrapped eETH";
    string public constant symbol = "weETH";
    uint8 public constant decimals = 18;
    TestEtherfiPool public immutable pool;

    constructor(TestEtherfiPool pool_) {
        pool = pool_;
    }

    function getEETHByWeETH(uint256 amount) external view returns (uint256) {
        return pool.amountForShare(amount);
    }
}

/// ether.fi's WithdrawRequestNFT (src/withdrawals/WithdrawRequestNFT.sol): an ERC-721 without
/// enumeration, a request per token; finalized up to `lastFinalizedRequestId`; what a finalized
/// request pays is the lesser of its eETH and its shares at the rate frozen when it was finalized;
/// claimed requests are burned. `ownerOf` reverts for a token that does not exist, as
/// OpenZeppelin's ERC721 does.
contract TestWithdrawRequestNFT {
    struct WithdrawRequest {
        uint96 amountOfEEth;
        uint96 shareOfEEth;
        bool isValid;
        uint32 feeGwei;
    }

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event WithdrawRequestClaimed(uint32 indexed requestId, uint256 amountOfEEth, uint256 shareOfEEth, address owner);

    mapping(uint256 => WithdrawRequest) private _requests;
    mapping(uint256 => address) private _owners;
    mapping(uint256 => uint256) public frozenRateFor;
    mapping(address => uint256) public balanceOf;
    uint32 public lastFinalizedRequestId;
    uint32 public nextRequestId = 1;

    function request(address owner, uint256 id, uint96 amount, uint96 share) external {
        if (id >= nextRequestId) nextRequestId = uint32(id + 1);
        _requests[id] = WithdrawRequest(amount, share, true, 0);
        _owners[id] = owner;
        balanceOf[owner] += 1;
        emit Transfer(address(0), owner, id);
    }

    function transferFrom(address from, address to, uint256 id) external {
        require(_owners[id] == from, "not the owner");
        _owners[id] = to;
        balanceOf[from] -= 1;
        balanceOf[to] += 1;
        emit Transfer(from, to, id);
    }

    function finalize(uint32 upTo, uint256 rate) external {
        for (uint256 id = lastFinalizedRequestId + 1; id <= upTo; id++) {
            frozenRateFor[id] = rate;
        }
        lastFinalizedRequestId = upTo;
    }

    function invalidateRequest(uint256 id) external {
        _requests[id].isValid = false;
    }

    /// Pays (in the event only: the test holds no ether) what `getClaimableAmount` says, as
    /// `_claimWithdraw` does, and deletes the request.
    function claim(uint256 id) external {
        address owner = _owners[id];
        uint256 paid = getClaimableAmount(id);
        uint96 share = _requests[id].shareOfEEth;
        delete _owners[id];
        delete _requests[id];
        balanceOf[owner] -= 1;
        emit Transfer(owner, address(0), id);
        emit WithdrawRequestClaimed(uint32(id), paid, share, owner);
    }

    function ownerOf(uint256 id) external view returns (address owner) {
        owner = _owners[id];
        require(owner != address(0), "ERC721: invalid token ID");
    }

    function getRequest(uint256 id) external view returns (WithdrawRequest memory) {
        return _requests[id];
    }

    function isFinalized(uint256 id) public view returns (bool) {
        return id <= lastFinalizedRequestId;
    }

    function getClaimableAmount(uint256 id) public view returns (uint256) {
        require(isFinalized(id), "RequestNotFinalized");
        WithdrawRequest memory r = _requests[id];
        uint256 forShares = uint256(r.shareOfEEth) * frozenRateFor[id] / 1e18;
        return forShares < r.amountOfEEth ? forShares : r.amountOfEEth;
    }
}

/// Rocket Pool's rETH (rocket-pool/rocketpool at fef41a4, contracts/contract/token/RocketTokenRETH.sol):
/// its ether value is the network's total ETH balance over the rETH supply the oracle DAO reports
/// (set by the test); `getTotalCollateral` the contract's ether and the deposit pool's excess.
contract TestRETH is TestBalances {
    string public constant name = "Rocket Pool ETH";
    string public constant symbol = "rETH";
    uint8 public constant decimals = 18;
    uint256 public totalEthBalance;
    uint256 public totalRethSupply;
    uint256 public depositPoolExcess;

    function setBalances(uint256 eth, uint256 reth) external {
        totalEthBalance = eth;
        totalRethSupply = reth;
    }

    function setDepositPoolExcess(uint256 excess) external {
        depositPoolExcess = excess;
    }

    receive() external payable {}

    function getEthValue(uint256 reth) public view returns (uint256) {
        if (totalRethSupply == 0) return reth;
        return reth * totalEthBalance / totalRethSupply;
    }

    function getRethValue(uint256 eth) public view returns (uint256) {
        if (totalRethSupply == 0) return eth;
        return eth * totalRethSupply / totalEthBalance;
    }

    function getExchangeRate() external view returns (uint256) {
        return getEthValue(1 ether);
    }

    function getTotalCollateral() external view returns (uint256) {
        return depositPoolExcess + address(this).balance;
    }
}

/// A token the test mints and whose supply it sets: Renzo's ezETH (contracts/token/EzEthToken.sol)
/// and Kelp's rsETH, as the adapter reads them (ERC-20 views).
contract TestRestakedToken is TestBalances {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
    }

    function setTotalSupply(uint256 supply) external {
        totalSupply = supply;
    }
}

/// Renzo's RestakeManager (Renzo-Protocol/contracts-public at 572bae1, its deployment's ABI):
/// `calculateTVLs()` answers each operator delegator's token TVLs, their totals and the total TVL
/// in ether, which the test sets.
contract TestRestakeManager {
    uint256[] private _delegatorTVLs;
    address public depositQueue;

    function setDepositQueue(address queue) external {
        depositQueue = queue;
    }

    function setTVLs(uint256[] calldata delegatorTVLs) external {
        _delegatorTVLs = delegatorTVLs;
    }

    function calculateTVLs() external view returns (uint256[][] memory tokenTVLs, uint256[] memory, uint256 total) {
        tokenTVLs = new uint256[][](_delegatorTVLs.length);
        for (uint256 i = 0; i < _delegatorTVLs.length; i++) {
            tokenTVLs[i] = new uint256[](1);
            tokenTVLs[i][0] = _delegatorTVLs[i];
            total += _delegatorTVLs[i];
        }
        return (tokenTVLs, _delegatorTVLs, total);
    }
}

/// Renzo's DepositQueue (contracts/Deposits/DepositQueueStorage.sol at fc8c8e0): the public
/// `withdrawQueue` the RestakeManager finds its WithdrawQueue by.
contract TestRenzoDepositQueue {
    address public withdrawQueue;

    constructor(address queue) {
        withdrawQueue = queue;
    }
}

/// Renzo's RiskOracleMiddleware (contracts/Oracle/RiskOracle/RiskOracleMiddleware.sol at fc8c8e0):
/// the cooldown it may lengthen claims to and whether instant withdrawals are paused, set here.
contract TestRenzoRiskOracle {
    uint256 public withdrawCooldownPeriod;
    bool public instantWithdrawPaused;

    function set(uint256 cooldown, bool paused) external {
        withdrawCooldownPeriod = cooldown;
        instantWithdrawPaused = paused;
    }
}

/// Renzo's WithdrawQueue (contracts/Withdraw/WithdrawQueue.sol and WithdrawQueueStorage.sol at
/// fc8c8e0): each user's requests in an array of WithdrawRequest structs (the public getter answers
/// one's fields), made with the queue's nonce and the block's time; claim moves the last request
/// into the claimed one's place. The test makes and claims requests and sets the cooldown, the
/// risk oracle and the whitelist.
contract TestRenzoWithdrawQueue {
    struct WithdrawRequest {
        address collateralToken;
        uint256 withdrawRequestID;
        uint256 amountToRedeem;
        uint256 ezETHLocked;
        uint256 createdAt;
    }

    /// The queue's events as v1.8 to v2.1 emit them (neither indexes the user).
    event WithdrawRequestCreated(
        uint256 indexed withdrawRequestID,
        address user,
        address claimToken,
        uint256 amountToRedeem,
        uint256 ezETHAmountLocked,
        uint256 withdrawRequestIndex,
        bool queued,
        uint256 queueFilled
    );
    event WithdrawRequestClaimed(WithdrawRequest withdrawRequest);

    uint256 public coolDownPeriod;
    uint256 public withdrawRequestNonce;
    uint256 internal valueAtClaim;
    address public riskOracleMiddleware;
    mapping(address => WithdrawRequest[]) public withdrawRequests;
    mapping(address => bool) public whitelisted;

    function configure(uint256 cooldown, address oracle) external {
        coolDownPeriod = cooldown;
        riskOracleMiddleware = oracle;
    }

    function setWhitelisted(address user, bool status) external {
        whitelisted[user] = status;
    }

    function request(address user, address collateral, uint256 amountToRedeem, uint256 ezETHLocked) external {
        withdrawRequestNonce++;
        withdrawRequests[user].push(
            WithdrawRequest(collateral, withdrawRequestNonce, amountToRedeem, ezETHLocked, block.timestamp)
        );
        uint256 index = withdrawRequests[user].length - 1;
        emit WithdrawRequestCreated(
            withdrawRequestNonce, user, collateral, amountToRedeem, ezETHLocked, index, false, 0
        );
    }

    /// What the next claim's ezETH is worth (0: what it was to redeem), as `calculateAmountToRedeem`
    /// gives it at the claim: the claim pays the lesser.
    function setValueAtClaim(uint256 value) external {
        valueAtClaim = value;
    }

    function claim(address user, uint256 index) external {
        WithdrawRequest[] storage requests = withdrawRequests[user];
        WithdrawRequest memory claimed = requests[index];
        if (valueAtClaim != 0 && valueAtClaim < claimed.amountToRedeem) claimed.amountToRedeem = valueAtClaim;
        valueAtClaim = 0;
        requests[index] = requests[requests.length - 1];
        requests.pop();
        emit WithdrawRequestClaimed(claimed);
    }

    function getOutstandingWithdrawRequests(address user) external view returns (uint256) {
        return withdrawRequests[user].length;
    }
}

/// Kelp's LRTOracle (Kelp-DAO/LRT-rsETH at c289b81, contracts/LRTOracle.sol): `rsETHPrice`, ether per
/// rsETH, which Kelp's updateRSETHPrice sets and the test sets here.
contract TestLRTOracle {
    uint256 public rsETHPrice;

    function setPrice(uint256 price) external {
        rsETHPrice = price;
    }
}

/// Kelp's LRTConfig (contracts/interfaces/ILRTConfig.sol): the assets rsETH is withdrawn to, as the
/// test lists them.
contract TestLRTConfig {
    address[] private _assets;

    function setSupportedAssets(address[] calldata assets) external {
        _assets = assets;
    }

    function getSupportedAssetList() external view returns (address[] memory) {
        return _assets;
    }
}

/// Kelp's LRTWithdrawalManager (contracts/LRTWithdrawalManager.sol): per asset a queue of request
/// nonces, each user's nonces in a double-ended queue (`userAssociatedNonces`' public getter answers
/// its bounds); requests below `nextLockedNonce` are unlocked; `completeWithdrawal` pops the user's
/// oldest. Requests are made and unlocked by the test.
contract TestLRTWithdrawalManager {
    struct WithdrawalRequest {
        uint256 rsETHUnstaked;
        uint256 expectedAssetAmount;
        uint256 withdrawalStartBlock;
    }

    struct Uint256Deque {
        uint128 _begin;
        uint128 _end;
        mapping(uint128 index => uint256) _data;
    }

    event AssetWithdrawalQueued(
        address indexed withdrawer, address indexed asset, uint256 rsETHUnstaked, uint256 indexed userNonce
    );
    event AssetWithdrawalFinalized(
        address indexed withdrawer, address indexed asset, uint256 amountBurned, uint256 amountReceived
    );

    mapping(address asset => uint256) public nextUnusedNonce;
    mapping(address asset => uint256) public nextLockedNonce;
    mapping(bytes32 requestId => WithdrawalRequest) public withdrawalRequests;
    mapping(address asset => mapping(address user => Uint256Deque)) public userAssociatedNonces;
    uint256 public withdrawalDelayBlocks;

    function setWithdrawalDelayBlocks(uint256 blocks) external {
        withdrawalDelayBlocks = blocks;
    }

    function getRequestId(address asset, uint256 requestIndex) public pure returns (bytes32) {
        return keccak256(abi.encodePacked(asset, requestIndex));
    }

    function request(address asset, address user, uint256 rsETHUnstaked, uint256 expectedAssetAmount) external {
        uint256 nonce = nextUnusedNonce[asset]++;
        withdrawalRequests[getRequestId(asset, nonce)] = WithdrawalRequest(rsETHUnstaked, expectedAssetAmount, block.number);
        Uint256Deque storage queue = userAssociatedNonces[asset][user];
        queue._data[queue._end++] = nonce;
        emit AssetWithdrawalQueued(user, asset, rsETHUnstaked, nonce);
    }

    function unlock(address asset, uint256 firstLocked) external {
        nextLockedNonce[asset] = firstLocked;
    }

    /// What unlocking a request sets its expected amount to (Kelp's unlockQueue reprices it).
    function setExpected(address asset, uint256 nonce, uint256 amount) external {
        withdrawalRequests[getRequestId(asset, nonce)].expectedAssetAmount = amount;
    }

    function completeWithdrawal(address asset, address user) external {
        Uint256Deque storage queue = userAssociatedNonces[asset][user];
        uint256 nonce = queue._data[queue._begin];
        delete queue._data[queue._begin++];
        WithdrawalRequest memory r = withdrawalRequests[getRequestId(asset, nonce)];
        delete withdrawalRequests[getRequestId(asset, nonce)];
        emit AssetWithdrawalFinalized(user, asset, r.rsETHUnstaked, r.expectedAssetAmount);
    }

    function getUserWithdrawalRequest(address asset, address user, uint256 userIndex)
        external
        view
        returns (uint256 rsETHAmount, uint256 expectedAssetAmount, uint256 withdrawalStartBlock, uint256 userNonce)
    {
        Uint256Deque storage queue = userAssociatedNonces[asset][user];
        require(userIndex < queue._end - queue._begin, "QueueOutOfBounds");
        userNonce = queue._data[queue._begin + uint128(userIndex)];
        WithdrawalRequest memory r = withdrawalRequests[getRequestId(asset, userNonce)];
        return (r.rsETHUnstaked, r.expectedAssetAmount, r.withdrawalStartBlock, userNonce);
    }
}
