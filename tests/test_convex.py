"""Convex against test contracts with the views of convex-eth/platform's sources
(tests/convex_world.py), on the Curve world's pools."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import addresses
from adapters.convex import contracts, figures
from tests import convex_world as X
from tests import curve_world as C
from tests.conftest import proxied_api, query_positions, world_fixture
from tests.evm import functions_of
from tests.node_oracles import curve_abi
from tests.test_curve import TOKEN, expected, missing, one_lens_call, token, usd

QUERY = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
  data {{ ... on ConvexWalletPositions {{ protocol walletAddress chainId blockNumber warnings {{ code message target }}
    deposits {{ pid pool rewardPool shutdown balance lpToken {TOKEN} totalSupply share
      coins {{ token {TOKEN} poolBalance amount amountUsd withdrawOneCoin }}
      valueUsd virtualPrice lpPrice claimableCrv claimableCrvUsd claimableCvx claimableCvxUsd
      rewards {{ token {TOKEN} claimable claimableUsd }} }} }} }}
  errors {{ error {{ code message }} }} }} }}"""

world = world_fixture(X.build)


async def answer(api, wallet: str) -> dict:
    found = await query_positions(api, QUERY, "convex", [wallet], 31337)
    assert found["errors"] == []
    (entry,) = found["data"]
    assert missing(entry, "deposits") == []
    return dict(entry)


def cvx(crv: int) -> int:
    """Cvx.sol's mint, written out for the world's supply (cliff 641 of 1,000)."""
    cliff = X.CVX_SUPPLY // (100_000_000 * X.E18 // 1000)
    assert cliff == 641
    return crv * (1000 - cliff) // 1000


async def test_deposits_with_their_coins_crv_cvx_and_extra_reward(world_client, world):
    entry = await answer(world_client, world.wallets["depositor"])
    curve = world.curve
    stable_coins, stable_usd = expected(curve, C.STABLE, ["USDC", "crvUSD"], X.DEPOSITS[1], "stableswap-ng")
    crypto_coins, crypto_usd = expected(curve, C.CRYPTO, ["WETH", "CRV"], X.DEPOSITS[2], "cryptoswap")

    def claims(pid: int) -> dict:
        crv, minted = X.EARNED[pid], cvx(X.EARNED[pid])
        return {
            "claimableCrv": str(crv),
            "claimableCrvUsd": float(usd("CRV", crv)),
            "claimableCvx": str(minted),
            "claimableCvxUsd": float(Fraction(minted * X.CVX_USD, 10**26)),
        }

    extra = {"token": token(curve, "EXTRA"), "claimable": str(X.EXTRA), "claimableUsd": float(usd("EXTRA", X.EXTRA))}
    assert entry["deposits"] == [
        {
            "pid": 1,
            "pool": curve.stable,
            "rewardPool": world.rewards[1],
            "shutdown": False,
            "balance": str(X.DEPOSITS[1]),
            "lpToken": {"address": curve.stable, "symbol": "USDCcrvUSD", "name": "USDC/crvUSD", "decimals": 18},
            "totalSupply": str(C.STABLE["supply"]),
            "share": float(Fraction(X.DEPOSITS[1], C.STABLE["supply"])),
            "coins": stable_coins,
            "valueUsd": stable_usd,
            "virtualPrice": str(C.STABLE["virtual"]),
            "lpPrice": None,
            **claims(1),
            "rewards": [extra],
        },
        {
            "pid": 2,
            "pool": curve.crypto,
            "rewardPool": world.rewards[2],
            "shutdown": False,
            "balance": str(X.DEPOSITS[2]),
            "lpToken": {"address": curve.crypto_lp, "symbol": "crvCRVETH", "name": "Curve WETH-CRV", "decimals": 18},
            "totalSupply": str(C.CRYPTO["supply"]),
            "share": float(Fraction(X.DEPOSITS[2], C.CRYPTO["supply"])),
            "coins": crypto_coins,
            "valueUsd": crypto_usd,
            "virtualPrice": str(C.CRYPTO["virtual"]),
            "lpPrice": str(C.CRYPTO["lp_price"]),
            **claims(2),
            "rewards": [],
        },
    ]


async def test_a_query_is_one_request_the_lens(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path):
    """Warm, a new block's answer is its header and then one lens call: the Booster's scan, the
    deposits' reward pools, their Curve pools' shares, CVX's parameters and the feeds."""
    proxy, api = await proxied_api(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path)
    await answer(api, world.wallets["depositor"])
    world.node.mine()
    before = len(proxy.posts)
    await answer(api, world.wallets["depositor"])
    assert one_lens_call(proxy.posts[before:])


async def test_a_wallet_without_deposits_has_none(world_client, world):
    entry = await answer(world_client, world.wallets["empty"])
    assert entry["deposits"] == []


@pytest.mark.parametrize(
    ("supply", "crv", "minted"),
    [
        (0, 5 * X.E18, 5 * X.E18),
        (99_999 * X.E18, 1000, 1000),
        (100_000 * X.E18, 1000, 999),
        (99_999_999 * X.E18, 10**30, X.E18),
        (100_000_000 * X.E18, 10**24, 0),
    ],
)
def test_cvx_minted_follows_cvx_sols_cliffs(supply, crv, minted):
    """Premine, the first cliff (all of it), the second (999/1000), capped at maxSupply - supply,
    none past the last cliff."""
    assert contracts.cvx_minted(crv, supply, 100_000_000 * X.E18, 1000, 100_000 * X.E18) == minted


PUBLISHED = {
    "POOL_LENGTH": ("Booster.sol", "poolLength()", ["uint256"]),
    "POOL_INFO": ("Booster.sol", "poolInfo(uint256)", ["address", "address", "address", "address", "address", "bool"]),
    "EARNED": ("BaseRewardPool.sol, VirtualBalanceRewardPool.sol", "earned(address)", ["uint256"]),
    "EXTRA_REWARDS_LENGTH": ("BaseRewardPool.sol", "extraRewardsLength()", ["uint256"]),
    "EXTRA_REWARDS": ("BaseRewardPool.sol", "extraRewards(uint256)", ["address"]),
    "REWARD_TOKEN": ("BaseRewardPool.sol, VirtualBalanceRewardPool.sol", "rewardToken()", ["address"]),
    "OPERATOR": ("BaseRewardPool.sol", "operator()", ["address"]),
    "PID": ("BaseRewardPool.sol", "pid()", ["uint256"]),
    "REWARD_RATE": ("BaseRewardPool.sol, VirtualBalanceRewardPool.sol", "rewardRate()", ["uint256"]),
    "PERIOD_FINISH": ("BaseRewardPool.sol, VirtualBalanceRewardPool.sol", "periodFinish()", ["uint256"]),
    "MAX_SUPPLY": ("Cvx.sol", "maxSupply()", ["uint256"]),
    "TOTAL_CLIFFS": ("Cvx.sol", "totalCliffs()", ["uint256"]),
    "REDUCTION_PER_CLIFF": ("Cvx.sol", "reductionPerCliff()", ["uint256"]),
}
"""Each Convex function the adapter calls as convex-eth/platform declares it at
4f22038387ca4ce014dec3d7f5781a8e28051c13 (contracts/contracts/<file>: `PoolInfo[] public
poolInfo`, `address[] public extraRewards`, `IERC20 public rewardToken`, `uint256 public
maxSupply`, ...), recorded here: Convex publishes no package of its ABIs."""
ADDRESSES = {
    "booster": "0xF403C135812408BFbE8713b5A23a04b3D48AAE31",
    "cvx": "0x4e3FBD56CD56c3e72c1403e103b45Db9da5B9D2B",
    "crv": "0xD533a949740bb3306d119CC777fa900bA034cd52",
}
"""convex-eth/platform at 4f22038: contracts/contracts.json `system.booster` and `system.cvx`;
Booster.sol's `crv` constant."""


def test_the_adapter_reads_convexs_published_sources():
    functions = functions_of(contracts)
    assert set(functions) == set(PUBLISHED) | {"MINTER"}
    for name, (_, signature, outputs) in PUBLISHED.items():
        assert (functions[name].signature, list(functions[name].output_types)) == (signature, outputs), name
    assert set(functions_of(figures)) - set(functions) == {"LP_PRICE"}, "Curve's, held in tests/test_curve.py"
    assert curve_abi("curve_lp_token_v5.json")["minter()"] == list(contracts.MINTER.output_types)


def test_the_addresses_are_convexs():
    (section,) = [value["convex"] for value in json.loads(addresses.BUILT_IN.read_text()).values() if "convex" in value]
    assert {name: section[name].lower() for name in ADDRESSES} == {k: v.lower() for k, v in ADDRESSES.items()}


POOL_QUERY = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) {
  data { poolAddress warnings { code message } details { ... on ConvexPool {
    type rewardPool chainId pid pool lpToken { address symbol } depositToken { address } curveGauge shutdown totalSupply
    depositedUsd crv { token { symbol } rate periodFinish ratePerYearUsd } cvxPerYear cvxPerYearUsd
    extraRewards { token { symbol } rate periodFinish ratePerYearUsd } } } }
  errors { poolAddress error { code message } } } }"""


async def test_a_booster_pool_by_its_reward_pool_with_its_deposits_and_rates(world_client, world):
    """Pools 1 and 2 by their reward pools: the LP deposited and its share of the Curve pool's
    TVL, CRV's stream and the CVX a year of it mints, the ended extra stream; a Curve pool, a
    reward pool the Booster does not name and an EOA are refused."""
    curve, year = world.curve, 365 * 24 * 3600
    stray = world.node.deploy(X.compile_all()["TestBaseRewardPool"], ["address"], [curve.tokens["CRV"]])
    world.node.send(stray, "setPool(address,uint256)", world.booster, 1)
    asked = [world.rewards[1], world.rewards[2], curve.stable, stray, world.wallets["empty"]]
    inputs = [{"protocol": "convex", "chainId": 31337, "poolAddress": pool} for pool in asked]
    found = (await world_client.query(POOL_QUERY, {"inputs": inputs})).body["data"]["poolDetails"]
    assert [e["poolAddress"] for e in found["errors"]] == asked[2:]
    assert all("not the reward pool of a Convex Booster pool" in e["error"]["message"] for e in found["errors"])
    one, two = (entry["details"] for entry in found["data"])
    rate, finish = X.CRV_RATE
    tvl = {1: sum(usd(s, b) for s, b in zip(["USDC", "crvUSD"], C.STABLE["balances"]))}
    assert one == {
        "type": "convex-pool",
        "rewardPool": world.rewards[1],
        "chainId": 31337,
        "pid": 1,
        "pool": curve.stable,
        "lpToken": {"address": curve.stable, "symbol": "USDCcrvUSD"},
        "depositToken": {"address": curve.stable},
        "curveGauge": "0x" + "00" * 20,
        "shutdown": False,
        "totalSupply": str(X.DEPOSITS[1]),
        "depositedUsd": pytest.approx(float(tvl[1] * X.DEPOSITS[1] / C.STABLE["supply"]), rel=1e-12),
        "crv": {
            "token": {"symbol": "CRV"},
            "rate": str(rate),
            "periodFinish": str(finish),
            "ratePerYearUsd": float(usd("CRV", rate * year)),
        },
        "cvxPerYear": str(cvx(rate * year)),
        "cvxPerYearUsd": float(Fraction(cvx(rate * year) * X.CVX_USD, 10**26)),
        "extraRewards": [
            {
                "token": {"symbol": "EXTRA"},
                "rate": str(X.EXTRA_RATE[0]),
                "periodFinish": str(X.EXTRA_RATE[1]),
                "ratePerYearUsd": 0.0,
            }
        ],
    }
    assert (two["pool"], two["lpToken"]["address"], two["totalSupply"]) == (
        curve.crypto,
        curve.crypto_lp,
        str(X.DEPOSITS[2]),
    )
    assert two["crv"]["rate"] == "0" and two["cvxPerYear"] == "0" and two["extraRewards"] == []
