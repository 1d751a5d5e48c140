// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

// PancakeSwap v3's two contracts no package ships built, as stand-ins held to the interfaces
// the v3-core package (IPancakeV3PoolDeployer) and the masterchef-v3 package (ILMPool,
// ILMPoolDeployer) publish. Everything else of the test world is PancakeSwap's published bytecode.

/// PancakeV3PoolDeployer: the factory's `createPool` calls `deploy`, which CREATE2s the pool with
/// salt keccak256(abi.encode(token0, token1, fee)); the pool's constructor reads `parameters()`.
/// The pool's creation code is the v3-core package's PancakeV3Pool as published, kept as the
/// code of a holder contract (after a STOP byte), so each pool's address is what the position
/// manager computes with its init code hash (PoolAddress.POOL_INIT_CODE_HASH), as on mainnet.
contract TestPancakePoolDeployer {
    struct Parameters {
        address factory;
        address token0;
        address token1;
        uint24 fee;
        int24 tickSpacing;
    }

    Parameters public parameters;
    address public factoryAddress;
    address private immutable holder;

    constructor(bytes memory poolCreationCode) {
        bytes memory init = abi.encodePacked(
            hex"61", uint16(poolCreationCode.length + 1), hex"80600c6000396000f3", hex"00", poolCreationCode
        );
        address made;
        assembly {
            made := create(0, add(init, 32), mload(init))
        }
        require(made != address(0), "holder");
        holder = made;
    }

    function setFactoryAddress(address factory) external {
        require(factoryAddress == address(0), "already initialized");
        factoryAddress = factory;
    }

    function deploy(address factory, address token0, address token1, uint24 fee, int24 tickSpacing)
        external
        returns (address pool)
    {
        require(msg.sender == factoryAddress, "only factory can call deploy");
        parameters = Parameters(factory, token0, token1, fee, tickSpacing);
        bytes memory code = new bytes(holder.code.length - 1);
        address from = holder;
        bytes32 salt = keccak256(abi.encode(token0, token1, fee));
        assembly {
            extcodecopy(from, add(code, 32), 1, mload(code))
            pool := create2(0, add(code, 32), mload(code), salt)
        }
        require(pool != address(0), "create2");
        delete parameters;
    }
}

interface IMasterChefV3Periods {
    function getLatestPeriodInfo(address v3Pool) external view returns (uint256 cakePerSecond, uint256 endTime);
}

/// A farm's LM pool, simplified: every position MasterChefV3 stakes counts as in range, so the
/// reward growth inside any range is the pool's global growth. It grows by the farm's CAKE per
/// second (MasterChefV3's `getLatestPeriodInfo`, scaled by its 1e12 precision) over the liquidity
/// staked, up to the period's end, when the pool (a swap) or MasterChefV3 (a deposit, a harvest)
/// accumulates; as PancakeV3LmPool's, the view answers the growth last accumulated, so
/// MasterChefV3's own `pendingCake` lags what its `harvest` (which accumulates first) pays.
contract TestPancakeLmPool {
    uint256 private constant PRECISION = 1e12;
    uint256 private constant Q128 = 1 << 128;

    address public immutable pool;
    address public immutable masterChef;
    uint256 public rewardGrowthGlobalX128;
    uint128 public lmLiquidity;
    uint32 public lastRewardTimestamp;

    constructor(address pool_, address masterChef_) {
        pool = pool_;
        masterChef = masterChef_;
        lastRewardTimestamp = uint32(block.timestamp);
    }

    function accumulateReward(uint32 currTimestamp) external {
        require(msg.sender == pool || msg.sender == masterChef, "not pool or masterChef");
        rewardGrowthGlobalX128 = _growth(currTimestamp);
        lastRewardTimestamp = currTimestamp;
    }

    /// The pool calls it as its price crosses an initialized tick.
    function crossLmTick(int24, bool) external view {
        require(msg.sender == pool, "not pool");
    }

    function updatePosition(int24, int24, int128 liquidityDelta) external {
        require(msg.sender == masterChef, "not masterChef");
        rewardGrowthGlobalX128 = _growth(uint32(block.timestamp));
        lastRewardTimestamp = uint32(block.timestamp);
        lmLiquidity = liquidityDelta < 0
            ? lmLiquidity - uint128(uint256(-int256(liquidityDelta)))
            : lmLiquidity + uint128(liquidityDelta);
    }

    function getRewardGrowthInside(int24, int24) external view returns (uint256) {
        return rewardGrowthGlobalX128;
    }

    function _growth(uint32 time) private view returns (uint256) {
        (uint256 cakePerSecond, uint256 endTime) = IMasterChefV3Periods(masterChef).getLatestPeriodInfo(pool);
        uint256 end = time < endTime ? time : endTime;
        if (lmLiquidity == 0 || end <= lastRewardTimestamp) {
            return rewardGrowthGlobalX128;
        }
        uint256 reward = (end - lastRewardTimestamp) * cakePerSecond / PRECISION;
        return rewardGrowthGlobalX128 + reward * Q128 / lmLiquidity;
    }
}

interface IPancakeV3FactoryLm {
    function setLmPool(address pool, address lmPool) external;
}

/// MasterChefV3's LMPoolDeployer: makes a pool's LM pool and sets it on the pool through the factory.
contract TestPancakeLmPoolDeployer {
    address public immutable masterChef;
    address public immutable factory;

    constructor(address masterChef_, address factory_) {
        masterChef = masterChef_;
        factory = factory_;
    }

    function deploy(address pool) external returns (address lmPool) {
        require(msg.sender == masterChef, "not masterChef");
        lmPool = address(new TestPancakeLmPool(pool, masterChef));
        IPancakeV3FactoryLm(factory).setLmPool(pool, lmPool);
    }
}
