// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "TestToken.sol";

/// A standardized-yield (SY) token for tests: an ERC-20 whose exchange rate to its asset the test
/// sets, with one reward token distributed by an index per SY unit, as Pendle's YT and market
/// expect from a real SY (exchangeRate, assetInfo, yieldToken, getRewardTokens,
/// rewardIndexesCurrent, claimRewards). Pendle's package ships no SY implementation.
contract TestSY is TestToken {
    address public immutable asset;
    uint8 public immutable assetDecimals;
    address public immutable rewardToken;
    uint256 internal rate = 1e18;
    bool public broken;
    uint256 public rewardIndex;
    mapping(address => uint256) public userIndex;
    mapping(address => uint256) public accrued;

    constructor(string memory name_, string memory symbol_, uint8 decimals_, address asset_, uint8 assetDecimals_,
                address rewardToken_) TestToken(name_, symbol_, decimals_) {
        asset = asset_;
        assetDecimals = assetDecimals_;
        rewardToken = rewardToken_;
    }

    function setExchangeRate(uint256 rate_) external {
        rate = rate_;
    }

    /// A broken SY: its exchange rate reverts (and with it whatever Pendle's contracts derive from it).
    function setBroken(bool broken_) external {
        broken = broken_;
    }

    function exchangeRate() external view returns (uint256) {
        require(!broken, "TestSY: broken");
        return rate;
    }

    /// Rewards for every SY holder pro rata: the reward token must already be minted to this contract.
    function addRewards(uint256 amount) external {
        rewardIndex += amount * 1e18 / totalSupply;
    }

    function assetInfo() external view returns (uint8, address, uint8) {
        return (0, asset, assetDecimals);
    }

    function yieldToken() external view returns (address) {
        return asset;
    }

    function getRewardTokens() external view returns (address[] memory tokens) {
        tokens = new address[](1);
        tokens[0] = rewardToken;
    }

    function rewardIndexesCurrent() external view returns (uint256[] memory indexes) {
        indexes = new uint256[](1);
        indexes[0] = rewardIndex;
    }

    function claimRewards(address user) external returns (uint256[] memory amounts) {
        _accrue(user);
        amounts = new uint256[](1);
        amounts[0] = accrued[user];
        accrued[user] = 0;
        if (amounts[0] > 0) TestToken(rewardToken).transfer(user, amounts[0]);
    }

    function _beforeTransfer(address from, address to) internal override {
        _accrue(from);
        _accrue(to);
    }

    function _accrue(address user) internal {
        accrued[user] += balanceOf[user] * (rewardIndex - userIndex[user]) / 1e18;
        userIndex[user] = rewardIndex;
    }
}

/// Pendle's yield-contract factory, market factory and gauge controller in one, for tests: it
/// deploys Pendle's own PT, YT and market from the creation code of the published artifacts
/// (PT, YT and market take their factory from msg.sender), answers what they ask of a factory
/// (treasury, fee rates, market config, PENDLE), emits Pendle's creation events and answers
/// `isValidMarket` as the market factory does.
contract TestPendleFactory {
    address public immutable treasury;
    address public immutable pendle;
    uint128 public constant interestFeeRate = 3e16;
    uint128 public constant rewardFeeRate = 3e16;
    uint8 public constant reserveFeePercent = 80;
    mapping(address => bool) public isValidMarket;

    event CreateYieldContract(address indexed SY, uint256 indexed expiry, address PT, address YT);
    event CreateNewMarket(address indexed market, address indexed PT, int256 scalarRoot, int256 initialAnchor,
                          uint256 lnFeeRateRoot);

    constructor(address treasury_, address pendle_) {
        treasury = treasury_;
        pendle = pendle_;
    }

    /// `ptCode` and `ytCode` are the artifacts' creation code; constructor arguments are added here.
    function createYieldContract(bytes memory ptCode, bytes memory ytCode, address sy, uint32 expiry, uint8 decimals)
        external returns (address pt, address yt)
    {
        pt = _deploy(abi.encodePacked(ptCode, abi.encode(sy, "PT Test", "PT-TEST", decimals, uint256(expiry))));
        yt = _deploy(abi.encodePacked(ytCode, abi.encode(sy, pt, "YT Test", "YT-TEST", decimals, uint256(expiry),
                                                         false)));
        (bool ok,) = pt.call(abi.encodeWithSignature("initialize(address)", yt));
        require(ok, "PT.initialize failed");
        emit CreateYieldContract(sy, expiry, pt, yt);
    }

    /// `marketCode` is the market artifact's creation code with OracleLib linked.
    function createNewMarket(bytes memory marketCode, address pt, int256 scalarRoot, int256 initialAnchor,
                             uint80 lnFeeRateRoot) external returns (address market) {
        market = _deploy(abi.encodePacked(marketCode, abi.encode(pt, scalarRoot, initialAnchor, lnFeeRateRoot,
                                                                  address(this))));
        isValidMarket[market] = true;
        emit CreateNewMarket(market, pt, scalarRoot, initialAnchor, lnFeeRateRoot);
    }

    function getMarketConfig(address, address) external view returns (address, uint80, uint8) {
        return (treasury, 0, reserveFeePercent);
    }

    function redeemMarketReward() external {}

    function _deploy(bytes memory code) internal returns (address created) {
        assembly {
            created := create(0, add(code, 0x20), mload(code))
        }
        require(created != address(0), "deployment failed");
    }
}
