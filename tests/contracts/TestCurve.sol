// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

import "TestToken.sol";

/// Curve's factories, pools and gauges are Vyper and no npm package ships their bytecode, so these
/// test contracts have the views of the ABIs @curvefi/api publishes (tests/test_curve.py holds the
/// adapter's functions to them), with values the test sets.

/// A pool factory: `pool_count`, `pool_list`, `get_gauge`, (the v2 crypto factory's)
/// `get_token`, the LP token of a pool that is not its own token, and `get_coins` in the layout
/// of the factory's kind.
contract TestCurveFactory {
    address[] internal pools;
    mapping(address => address) public get_gauge;
    mapping(address => address) internal tokens;
    mapping(address => bool) internal made;
    uint256 internal coinsShape;

    function add(address pool, address token, address gauge) external {
        pools.push(pool);
        tokens[pool] = token;
        get_gauge[pool] = gauge;
        made[pool] = true;
    }

    /// The length of `get_coins`' fixed array (4 the stableswap factory's, 2 the v2 crypto and
    /// twocrypto-ng factories', 3 tricrypto-ng's, 8 the older registries'), or 0 for the
    /// stableswap-ng factory's dynamic array.
    function setCoinsShape(uint256 shape) external {
        coinsShape = shape;
    }

    /// A pool's coins as the factory's Vyper answers them: its coins, zeros (or none) for a pool
    /// it did not make. The layout is the kind's, so it is returned as encoded here.
    function get_coins(address pool) external view {
        address[] memory found = new address[](0);
        if (made[pool]) found = _coins(pool);
        bytes memory out;
        if (coinsShape == 0) {
            out = abi.encode(found);
        } else {
            out = new bytes(32 * coinsShape);
            for (uint256 i = 0; i < found.length && i < coinsShape; i++) {
                address coin = found[i];
                assembly {
                    mstore(add(add(out, 32), mul(i, 32)), coin)
                }
            }
        }
        assembly {
            return(add(out, 32), mload(out))
        }
    }

    function _coins(address pool) internal view returns (address[] memory found) {
        found = new address[](8);
        uint256 n = 0;
        for (; n < 8; n++) {
            try TestCurvePool(pool).coins(n) returns (address coin) {
                found[n] = coin;
            } catch {
                try TestCurvePool(pool).coins(int128(int256(n))) returns (address coin) {
                    found[n] = coin;
                } catch {
                    break;
                }
            }
        }
        assembly {
            mstore(found, n)
        }
    }

    function pool_count() external view returns (uint256) {
        return pools.length;
    }

    /// The `i`-th of its pools that holds both coins; zero where there is none.
    function find_pool_for_coins(address from, address to, uint256 i) external view returns (address) {
        for (uint256 p = 0; p < pools.length; p++) {
            address[] memory held = _coins(pools[p]);
            if (_index(held, from) < held.length && _index(held, to) < held.length) {
                if (i == 0) return pools[p];
                i--;
            }
        }
        return address(0);
    }

    /// The coins' indices in the pool: (int128, int128, bool underlying) on the stableswap-ng
    /// factory, (uint256, uint256) on the crypto ones.
    function get_coin_indices(address pool, address from, address to) external view {
        address[] memory held = _coins(pool);
        (uint256 i, uint256 j) = (_index(held, from), _index(held, to));
        require(i < held.length && j < held.length, "coin not found");
        bytes memory out = coinsShape == 0 ? abi.encode(int128(int256(i)), int128(int256(j)), false) : abi.encode(i, j);
        assembly {
            return(add(out, 32), mload(out))
        }
    }

    function _index(address[] memory held, address coin) internal pure returns (uint256 i) {
        while (i < held.length && held[i] != coin) i++;
    }

    function pool_list(uint256 i) external view returns (address) {
        return pools[i];
    }

    function get_token(address pool) external view returns (address) {
        require(tokens[pool] != address(0), "no token");
        return tokens[pool];
    }
}

/// A pool (stableswap or cryptoswap): its coins and balances, `get_virtual_price`, the crypto
/// pools' `lp_price`, and `calc_withdraw_one_coin` in both index types (int128 on stableswap,
/// uint256 on cryptoswap), answering amount x the rate the test sets for coin i. As a token it is
/// the LP token of the pools that are their own (stableswap factory, -ng, twocrypto/tricrypto-ng).
contract TestCurvePool is TestToken {
    address[] internal coinList;
    uint256[] internal balanceList;
    uint256[] internal withdrawRates;
    uint256 public get_virtual_price;
    uint256 internal price;
    bool internal crypto;
    bool internal legacy;
    uint256 internal tokenAmountForm;
    address internal lpToken;

    constructor(string memory name_, string memory symbol_, bool crypto_) TestToken(name_, symbol_, 18) {
        crypto = crypto_;
    }

    function setCoins(address[] calldata coins_, uint256[] calldata balances_, uint256[] calldata rates) external {
        coinList = coins_;
        balanceList = balances_;
        withdrawRates = rates;
    }

    function setPrices(uint256 virtualPrice, uint256 lpPrice) external {
        get_virtual_price = virtualPrice;
        price = lpPrice;
    }

    /// Which `calc_token_amount` the pool has (1: a fixed array and the flag, 2: a dynamic array
    /// and the flag, 3: a fixed array of 2 alone; the others revert) and its LP token (none: itself).
    function setTokenAmount(uint256 form, address token) external {
        tokenAmountForm = form;
        lpToken = token;
    }

    /// The LP burnt to withdraw `amounts` as the pool's math would have it for a balanced
    /// withdrawal: the mean over the coins of amount x totalSupply / balance (no fee).
    function _tokenAmount(uint256[] memory amounts, uint256 form) internal view returns (uint256 lp) {
        require(tokenAmountForm == form && amounts.length == balanceList.length, "no such calc_token_amount");
        uint256 supply = lpToken == address(0) ? totalSupply : TestToken(lpToken).totalSupply();
        for (uint256 i = 0; i < amounts.length; i++) {
            lp += (amounts[i] * supply) / balanceList[i];
        }
        lp /= amounts.length;
    }

    function calc_token_amount(uint256[2] calldata amounts, bool) external view returns (uint256) {
        return _tokenAmount(_list(amounts[0], amounts[1]), 1);
    }

    function calc_token_amount(uint256[3] calldata amounts, bool) external view returns (uint256) {
        uint256[] memory list = new uint256[](3);
        (list[0], list[1], list[2]) = (amounts[0], amounts[1], amounts[2]);
        return _tokenAmount(list, 1);
    }

    function calc_token_amount(uint256[] calldata amounts, bool) external view returns (uint256) {
        return _tokenAmount(amounts, 2);
    }

    function calc_token_amount(uint256[2] calldata amounts) external view returns (uint256) {
        return _tokenAmount(_list(amounts[0], amounts[1]), 3);
    }

    function _list(uint256 a, uint256 b) internal pure returns (uint256[] memory list) {
        list = new uint256[](2);
        (list[0], list[1]) = (a, b);
    }

    /// The oldest pools' (compound, usdt, y, busd, pax, susd, ren, sbtc): coins and balances
    /// by int128 index only (`coins(uint256)` reverts).
    function setLegacy() external {
        legacy = true;
    }

    function coins(uint256 i) external view returns (address) {
        require(!legacy, "int128 index on the oldest pools");
        return coinList[i];
    }

    function balances(uint256 i) external view returns (uint256) {
        require(!legacy, "int128 index on the oldest pools");
        return balanceList[i];
    }

    function coins(int128 i) external view returns (address) {
        require(legacy, "uint256 index");
        return coinList[uint256(int256(i))];
    }

    function balances(int128 i) external view returns (uint256) {
        require(legacy, "uint256 index");
        return balanceList[uint256(int256(i))];
    }

    uint256[] internal oracle;
    uint256[] internal storedRates;
    /// The EMA's time: a crypto pool's `ma_time`, a stableswap-ng pool's `ma_exp_time`.
    uint256 internal maTime;

    /// What `price_oracle` answers: the EMA price of coin k + 1 in coin 0 (1e18), one per coin
    /// after the first; and a stableswap-ng pool's `stored_rates` (1e18 an 18-decimal coin's).
    function setOracle(uint256[] calldata prices, uint256[] calldata rates, uint256 time) external {
        oracle = prices;
        storedRates = rates;
        maTime = time;
    }

    /// twocrypto-ng's (and the v2 crypto pools'): coin 1's price in coin 0.
    function price_oracle() external view returns (uint256) {
        require(crypto && oracle.length == 1, "price_oracle(k) on this pool");
        return oracle[0];
    }

    /// stableswap-ng's and tricrypto-ng's: coin k + 1's price in coin 0.
    function price_oracle(uint256 k) external view returns (uint256) {
        return oracle[k];
    }

    function stored_rates() external view returns (uint256[] memory) {
        require(!crypto, "stableswap-ng only");
        return storedRates;
    }

    function ma_exp_time() external view returns (uint256) {
        require(!crypto, "stableswap-ng only");
        return maTime;
    }

    function ma_time() external view returns (uint256) {
        require(crypto, "cryptoswap only");
        return maTime;
    }

    function lp_price() external view returns (uint256) {
        require(crypto, "no lp_price on stableswap");
        return price;
    }

    /// The swap fee, 1e10 = 100 % (a cryptoswap pool's current one).
    uint256 public fee;

    function setFee(uint256 fee_) external {
        fee = fee_;
    }

    function calc_withdraw_one_coin(uint256 amount, int128 i) external view returns (uint256) {
        require(!crypto, "int128 index on cryptoswap");
        return (amount * withdrawRates[uint256(int256(i))]) / 1e18;
    }

    function calc_withdraw_one_coin(uint256 amount, uint256 i) external view returns (uint256) {
        require(crypto, "uint256 index on stableswap");
        return (amount * withdrawRates[i]) / 1e18;
    }

    /// Liquidity through the pool's own entry points, with stableswap-ng's events (CurveStableSwapNG.vy:
    /// AddLiquidity, RemoveLiquidity, RemoveLiquidityOne, RemoveLiquidityImbalance, `provider` indexed):
    /// the coins move between the caller and the pool, the LP is minted and burnt in its token.
    event AddLiquidity(address indexed provider, uint256[] token_amounts, uint256[] fees, uint256 invariant, uint256 token_supply);
    event RemoveLiquidity(address indexed provider, uint256[] token_amounts, uint256[] fees, uint256 token_supply);
    event RemoveLiquidityOne(address indexed provider, int128 token_id, uint256 token_amount, uint256 coin_amount, uint256 token_supply);
    event RemoveLiquidityImbalance(address indexed provider, uint256[] token_amounts, uint256[] fees, uint256 invariant, uint256 token_supply);

    function _supply() internal view returns (uint256) {
        return lpToken == address(0) ? totalSupply : TestToken(lpToken).totalSupply();
    }

    function _mintLp(address to, uint256 amount) internal {
        if (lpToken == address(0)) {
            balanceOf[to] += amount;
            totalSupply += amount;
            emit Transfer(address(0), to, amount);
        } else {
            TestToken(lpToken).mint(to, amount);
        }
    }

    function _burnLp(address from, uint256 amount) internal {
        if (lpToken == address(0)) {
            balanceOf[from] -= amount;
            totalSupply -= amount;
            emit Transfer(from, address(0), amount);
        } else {
            TestCurveLpToken(lpToken).burnFrom(from, amount);
        }
    }

    /// LP minted: the mean over the coins of amount x supply / balance (the balanced deposit's).
    function add_liquidity(uint256[] calldata amounts, uint256 min_mint) external returns (uint256 lp) {
        uint256 supply = _supply();
        for (uint256 i = 0; i < amounts.length; i++) {
            lp += (amounts[i] * supply) / balanceList[i];
            TestToken(coinList[i]).transferFrom(msg.sender, address(this), amounts[i]);
            balanceList[i] += amounts[i];
        }
        lp /= amounts.length;
        require(lp >= min_mint, "slippage");
        _mintLp(msg.sender, lp);
        emit AddLiquidity(msg.sender, amounts, new uint256[](amounts.length), 0, supply + lp);
    }

    function remove_liquidity(uint256 amount, uint256[] calldata) external returns (uint256[] memory paid) {
        uint256 supply = _supply();
        paid = new uint256[](coinList.length);
        for (uint256 i = 0; i < coinList.length; i++) {
            paid[i] = (balanceList[i] * amount) / supply;
            balanceList[i] -= paid[i];
            TestToken(coinList[i]).transfer(msg.sender, paid[i]);
        }
        _burnLp(msg.sender, amount);
        emit RemoveLiquidity(msg.sender, paid, new uint256[](coinList.length), supply - amount);
    }

    /// One coin paid at the rate `calc_withdraw_one_coin` answers.
    function remove_liquidity_one_coin(uint256 amount, int128 i, uint256) external returns (uint256 paid) {
        uint256 coin = uint256(int256(i));
        paid = (amount * withdrawRates[coin]) / 1e18;
        balanceList[coin] -= paid;
        TestToken(coinList[coin]).transfer(msg.sender, paid);
        _burnLp(msg.sender, amount);
        emit RemoveLiquidityOne(msg.sender, i, amount, paid, _supply());
    }

    /// The LP burnt is the mean over the coins of amount x supply / balance.
    function remove_liquidity_imbalance(uint256[] calldata amounts, uint256 max_burn) external returns (uint256 lp) {
        uint256 supply = _supply();
        for (uint256 i = 0; i < amounts.length; i++) {
            lp += (amounts[i] * supply) / balanceList[i];
            balanceList[i] -= amounts[i];
            TestToken(coinList[i]).transfer(msg.sender, amounts[i]);
        }
        lp = lp / amounts.length + 1;
        require(lp <= max_burn, "slippage");
        _burnLp(msg.sender, lp);
        emit RemoveLiquidityImbalance(msg.sender, amounts, new uint256[](amounts.length), 0, supply - lp);
    }
}

/// A liquidity gauge (v4/v5 views): staked LP as `balanceOf`, CRV claimable through
/// `claimable_tokens`, which writes (it checkpoints on LiquidityGauge v1-v4: a staticcall of it
/// reverts, so a reader must call it as a transaction would), and extra rewards.
contract TestCurveGauge is TestToken {
    mapping(address => uint256) internal crv;
    address[] public reward_tokens;
    mapping(address => mapping(address => uint256)) public claimable_reward;
    uint256 internal checkpoints;

    constructor() TestToken("Curve gauge deposit", "gauge", 18) {}

    function setClaimable(address user, uint256 amount) external {
        crv[user] = amount;
    }

    function addReward(address token) external {
        reward_tokens.push(token);
    }

    function setReward(address token, address user, uint256 amount) external {
        claimable_reward[user][token] = amount;
    }

    function reward_count() external view returns (uint256) {
        return reward_tokens.length;
    }

    struct Reward {
        address distributor;
        uint256 periodFinish;
        uint256 rate;
    }

    mapping(address => Reward) internal rewards;

    function setRewardRate(address token, uint256 rate, uint256 periodFinish) external {
        rewards[token] = Reward(msg.sender, periodFinish, rate);
    }

    /// LiquidityGauge v4's `reward_data`: token, distributor, period_finish, rate (a second),
    /// last_update, integral.
    function reward_data(address token) external view returns (address, address, uint256, uint256, uint256, uint256) {
        Reward memory r = rewards[token];
        return (token, r.distributor, r.periodFinish, r.rate, block.timestamp, 0);
    }

    /// The LP it stakes, and staking through its own entry points with LiquidityGauge's events
    /// (`Deposit(provider indexed, value)`, `Withdraw(provider indexed, value)`; the gauge token
    /// minted and burnt), extra rewards paid by `claim_rewards` as transfers from the gauge.
    address public lp_token;

    event Deposit(address indexed provider, uint256 value);
    event Withdraw(address indexed provider, uint256 value);

    function setLpToken(address lp) external {
        lp_token = lp;
    }

    function deposit(uint256 value) external {
        TestToken(lp_token).transferFrom(msg.sender, address(this), value);
        balanceOf[msg.sender] += value;
        totalSupply += value;
        emit Deposit(msg.sender, value);
        emit Transfer(address(0), msg.sender, value);
    }

    function withdraw(uint256 value) external {
        balanceOf[msg.sender] -= value;
        totalSupply -= value;
        TestToken(lp_token).transfer(msg.sender, value);
        emit Withdraw(msg.sender, value);
        emit Transfer(msg.sender, address(0), value);
    }

    function claim_rewards() external {
        for (uint256 i = 0; i < reward_tokens.length; i++) {
            address token = reward_tokens[i];
            uint256 amount = claimable_reward[msg.sender][token];
            claimable_reward[msg.sender][token] = 0;
            TestToken(token).mint(address(this), amount);
            TestToken(token).transfer(msg.sender, amount);
        }
    }

    /// What Curve's Minter mints for the user (its `integrate_fraction` less what it minted): read and reset.
    function minted_for(address user) external returns (uint256 amount) {
        amount = crv[user];
        crv[user] = 0;
    }

    function claimable_tokens(address user) external returns (uint256) {
        checkpoints += 1;
        return crv[user];
    }
}

/// An LP token that is not its pool (CurveTokenV5, the v2 crypto factory's): its pool is `minter`.
contract TestCurveLpToken is TestToken {
    address public immutable minter;

    constructor(string memory name_, string memory symbol_, address minter_) TestToken(name_, symbol_, 18) {
        minter = minter_;
    }

    /// The pool burns what `remove_liquidity` takes (CurveTokenV5's `burnFrom`, the minter's only).
    function burnFrom(address from, uint256 amount) external {
        require(msg.sender == minter, "minter only");
        balanceOf[from] -= amount;
        totalSupply -= amount;
        emit Transfer(from, address(0), amount);
    }
}

/// Curve's Minter (curve-dao-contracts Minter.vy): `mint(gauge)` mints the CRV the gauge owes the
/// caller and logs `Minted(recipient indexed, gauge, minted)` with the total minted to it by the gauge.
contract TestCurveMinter {
    address public immutable token;
    mapping(address => mapping(address => uint256)) public minted;

    event Minted(address indexed recipient, address gauge, uint256 minted);

    constructor(address crv) {
        token = crv;
    }

    function mint(address gauge) external {
        uint256 amount = TestCurveGauge(gauge).minted_for(msg.sender);
        if (amount != 0) {
            TestToken(token).mint(msg.sender, amount);
            minted[msg.sender][gauge] += amount;
            emit Minted(msg.sender, gauge, minted[msg.sender][gauge]);
        }
    }
}

/// A child gauge factory (Curve's gauges off Ethereum): a pool's gauge by its LP token.
contract TestChildGaugeFactory {
    mapping(address => address) public get_gauge_from_lp_token;

    function set(address lp, address gauge) external {
        get_gauge_from_lp_token[lp] = gauge;
    }
}

/// Curve's older registries (the main and the crypto registry; no npm package ships their Vyper
/// bytecode, curvefi/metaregistry's MainRegistry.json and CryptoRegistry.json their ABIs): a
/// factory's pool list, each pool's LP token (`get_lp_token`) and gauges (`get_gauges`: up to
/// 10, with their types).
contract TestCurveRegistry is TestCurveFactory {
    function get_lp_token(address pool) external view returns (address) {
        return tokens[pool];
    }

    function get_gauges(address pool) external view returns (address[10] memory found, int128[10] memory types) {
        found[0] = get_gauge[pool];
        types[0] = found[0] == address(0) ? int128(0) : int128(5);
    }

    /// The pool whose LP token `lp` is; zero where it is none of its pools'.
    function get_pool_from_lp_token(address lp) external view returns (address) {
        for (uint256 i = 0; i < pools.length; i++) {
            if (tokens[pools[i]] == lp) return pools[i];
        }
        return address(0);
    }

    /// A pool's balances in its coins' order (`balances(i)`, by int128 on the oldest pools), zeros
    /// past them and for a pool it does not list.
    function get_balances(address pool) external view returns (uint256[8] memory found) {
        if (!made[pool]) return found;
        uint256 n = _coins(pool).length;
        for (uint256 i = 0; i < n; i++) {
            try TestCurvePool(pool).balances(i) returns (uint256 balance) {
                found[i] = balance;
            } catch {
                found[i] = TestCurvePool(pool).balances(int128(int256(i)));
            }
        }
    }
}

/// Curve's AddressProvider: `get_address(id)` (0 the main registry, 5 the crypto registry).
contract TestCurveAddressProvider {
    mapping(uint256 => address) public get_address;

    function set(uint256 id, address target) external {
        get_address[id] = target;
    }
}
