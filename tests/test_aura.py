"""Aura against test contracts with the views of Aura's published source (tests/aura_world.py),
over Balancer's own Vault and pools: the current Booster, an earlier one, and (through a second
addresses file on the same chain) a sidechain's BoosterLite and L2Coordinator."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from adapters.aura import contracts
from adapters.aura.contracts import aura_minted
from addresses import BUILT_IN
from tests import aura_world as A
from tests import balancer_world as B
from tests.conftest import query_pools, query_positions, world_api, world_fixture
from tests.evm import functions_of
from tests.rpc_proxy import RpcProxy

TOKEN = "{ address symbol name decimals }"
QUERY = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
  data {{ ... on AuraWalletPositions {{ protocol walletAddress chainId blockNumber
    warnings {{ code message target }}
    deposits {{ booster pid rewardPool rewards {{ token {TOKEN} amount amountUsd }}
      position {{ version poolType pool {TOKEN} poolId balance totalSupply valueUsd
        tokens {{ token {TOKEN} poolBalance amount amountUsd }} }} }} }} }}
  errors {{ error {{ code message }} }} }} }}"""
world = world_fixture(lambda node: A.build(node, l2=True))


@pytest.fixture
async def l2_client(aiohttp_client, keys_file, api_key, world, tmp_path):
    """The app with the world's chain as a sidechain of Aura's (BoosterLite, AuraOFT, L2Coordinator)."""
    path = tmp_path / "l2.json"
    path.write_text(json.dumps(world.l2_addresses_override()))
    return await world_api(aiohttp_client, keys_file, api_key, path, world.node)


async def answer(api, wallet: str, warned: bool = False) -> dict:
    found = await query_positions(api, QUERY, "aura", [wallet], 31337)
    assert found["errors"] == []
    (entry,) = found["data"]
    assert warned or entry["warnings"] == []
    return dict(entry)


def reward(symbol: str, address: str, amount: int, price: int) -> dict:
    name = "Aura" if symbol == "AURA" else symbol
    return {
        "token": {"address": address, "symbol": symbol, "name": name, "decimals": 18},
        "amount": str(amount),
        "amountUsd": float(Fraction(amount * price, 10**26)),
    }


def test_aura_is_minted_as_the_token_contract_says():
    """The examples of Aura.sol's own comments (aurafinance/aura-contracts contracts/core/Aura.sol,
    `mint`): 1e19 BAL at cliffs 100, 250 and 400 of 500 mints 34e18, 26.5e18 and 19e18 AURA (its
    last comment says 19e17, a slip: 1e19 x 950 / 500 is 19e18); past the last cliff none; never
    more than the emissions left."""
    init, most, cliffs, per_cliff = 5 * 10**25, 5 * 10**25, 500, 10**23

    def minted(bal: int, emitted: int) -> int:
        return aura_minted(bal, init + emitted, init, most, cliffs, per_cliff)

    assert minted(10**19, 10**25) == 34 * 10**18
    assert minted(10**19, 25 * 10**24) == 265 * 10**17
    assert minted(10**19, 40 * 10**24) == 19 * 10**18
    assert minted(10**19, most) == 0
    assert minted(10**25, most - 10**18) == 10**18


async def test_a_deposit_with_its_pool_share_bal_aura_and_an_extra_reward(world_client, world):
    depositor = world.wallets["depositor"]
    entry = await answer(world_client, depositor)
    deposit, _v3, _older = entry["deposits"]
    assert (deposit["booster"], deposit["pid"], deposit["rewardPool"]) == (world.booster, 1, world.reward_pools[1])
    stable, pool_id = world.balancer.pools["stable"]
    tokens, balances = world.balancer.pool_tokens("stable")
    supply = world.node.call(stable, "getActualSupply()")
    position = deposit["position"]
    assert (position["pool"]["address"], position["poolId"], position["balance"]) == (
        stable,
        pool_id,
        str(world.deposited),
    )
    assert position["poolType"] == "composable-stable" and position["totalSupply"] == str(supply)
    assert [share["amount"] for share in position["tokens"]] == [
        str(balance * world.deposited // supply) for token, balance in zip(tokens, balances) if token != stable
    ]
    before = world.node.call(world.aura, "balanceOf(address)", depositor)
    with_snapshot = world.node.rpc("evm_snapshot")
    passed = A.EARNED["BAL"] * A.MULTIPLIER // 10_000
    world.node.send(world.aura, "mintFor(address,uint256)", depositor, passed)
    minted = world.node.call(world.aura, "balanceOf(address)", depositor) - before
    world.node.rpc("evm_revert", with_snapshot)
    assert minted > passed, "AURA per BAL above one at cliff 123"
    assert world.node.call(world.booster, "getRewardMultipliers(address)", world.reward_pools[1]) == A.MULTIPLIER
    assert deposit["rewards"] == [
        reward("BAL", world.balancer.tokens["BAL"], A.EARNED["BAL"], B.PRICES["BAL"]),
        reward("AURA", world.aura, minted, A.AURA_USD),
        reward("RWD", world.balancer.tokens["RWD"], A.EARNED["RWD"], B.PRICES["RWD"]),
    ]


async def test_a_deposit_of_balancer_v3_bpt_is_valued_as_the_v3_vault_exits(world_client, world):
    """A v3 pool has no `getPoolId()`: its share comes from the v3 Vault's views, as Balancer's own
    positions value it (adapters/balancer/shares.py), within the same lens call."""
    _current, v3_deposit, _older = (await answer(world_client, world.wallets["depositor"]))["deposits"]
    v3 = world.balancer.v3
    assert (v3_deposit["booster"], v3_deposit["pid"], v3_deposit["rewardPool"]) == (world.booster, 2, world.v3_pool)
    position = v3_deposit["position"]
    assert (position["pool"]["address"], position["poolId"], position["balance"]) == (
        v3.pool,
        None,
        str(world.v3_deposited),
    )
    supply = world.node.call(v3.vault, "totalSupply(address)", v3.pool)
    live = world.node.call(v3.vault, "getCurrentLiveBalances(address)", v3.pool, returns=("uint256[]",))
    factors, rates = world.node.call(
        v3.vault, "getPoolTokenRates(address)", v3.pool, returns=("uint256[]", "uint256[]")
    )
    assert (position["version"], position["poolType"], position["totalSupply"]) == (3, "weighted", str(supply))
    assert [share["amount"] for share in position["tokens"]] == [
        str(balance * world.v3_deposited // supply * 10**18 // (factor * rate))
        for balance, factor, rate in zip(live, factors, rates)
    ]
    assert v3_deposit["rewards"][0] == reward("BAL", world.balancer.tokens["BAL"], A.V3_EARNED, B.PRICES["BAL"])


async def test_a_deposit_in_the_earlier_booster_earns_bal_and_no_aura(world_client, world):
    """Aura.sol's `mint` mints for its operator only (the current Booster): the earlier Booster's
    claims pay BAL alone, and that Booster has no reward multipliers (the lens's call reverts)."""
    _current, _v3, older = (await answer(world_client, world.wallets["depositor"]))["deposits"]
    assert (older["booster"], older["pid"], older["rewardPool"]) == (world.older_booster, 0, world.older_pool)
    assert older["position"]["balance"] == str(world.older_deposited)
    assert world.node.call(world.aura, "operator()", returns=("address",)).lower() == world.booster
    assert older["rewards"] == [reward("BAL", world.balancer.tokens["BAL"], A.OLDER_EARNED, B.PRICES["BAL"])]


async def test_a_booster_without_multipliers_that_is_the_operator_mints_for_the_full_bal(world_client, world):
    """Were the earlier Booster AURA's operator (as it was in 2022), its claims would mint AURA for
    all their BAL: it has no `getRewardMultipliers` (the read reverts and counts as 100%)."""
    node, depositor = world.node, world.wallets["depositor"]
    before, with_snapshot = node.call(world.aura, "balanceOf(address)", depositor), node.rpc("evm_snapshot")
    node.send(world.aura, "mintFor(address,uint256)", depositor, A.OLDER_EARNED)
    minted = node.call(world.aura, "balanceOf(address)", depositor) - before
    node.rpc("evm_revert", with_snapshot)
    node.send(world.aura, "setOperator(address)", world.older_booster)
    try:
        _current, _v3, older = (await answer(world_client, depositor))["deposits"]
    finally:
        node.send(world.aura, "setOperator(address)", world.booster)
    assert [item["amount"] for item in older["rewards"]] == [str(A.OLDER_EARNED), str(minted)]


async def test_a_sidechain_deposit_earns_bal_and_the_aura_its_l2coordinator_pays(l2_client, world):
    """The BoosterLite's deposit with the AuraOFT the L2Coordinator's `mint` pays for its BAL (asked
    of the coordinator itself, undone after)."""
    depositor = world.wallets["depositor"]
    (deposit,) = (await answer(l2_client, depositor))["deposits"]
    assert (deposit["booster"], deposit["pid"], deposit["rewardPool"]) == (world.l2_booster, 0, world.l2_pool)
    weighted = world.balancer.pools["weighted"][0]
    assert (deposit["position"]["pool"]["address"], deposit["position"]["balance"]) == (
        weighted,
        str(world.l2_deposited),
    )
    with_snapshot = world.node.rpc("evm_snapshot")
    world.node.send(world.l2_coordinator, "mint(address,uint256)", depositor, A.L2_EARNED)
    paid = world.node.call(world.aura_oft, "balanceOf(address)", depositor)
    world.node.rpc("evm_revert", with_snapshot)
    assert paid == A.L2_EARNED * (A.L2_ACCRUED["AURA"] * 10**18 // A.L2_ACCRUED["BAL"]) // 10**18 > A.L2_EARNED
    assert deposit["rewards"] == [
        reward("BAL", world.balancer.tokens["BAL"], A.L2_EARNED, B.PRICES["BAL"]),
        reward("AURA", world.aura_oft, paid, A.AURA_USD),
    ]


async def test_a_sidechain_claim_that_reverts_is_named(l2_client, world):
    """With less BAL accrued in the L2Coordinator than the wallet earned, its `mint` (and with it the
    claim) reverts: the AURA is still the rate's, with a warning saying why."""
    node, depositor = world.node, world.wallets["depositor"]
    node.send(world.l2_coordinator, "setAccrued(uint256,uint256)", A.L2_EARNED - 1, A.L2_EARNED)
    try:
        entry = await answer(l2_client, depositor, warned=True)
        assert node.call_reverts(
            world.l2_coordinator, "mint(address,uint256)", depositor, A.L2_EARNED, sender=depositor
        )
    finally:
        node.send(world.l2_coordinator, "setAccrued(uint256,uint256)", A.L2_ACCRUED["BAL"], A.L2_ACCRUED["AURA"])
    (warning,) = entry["warnings"]
    assert (warning["code"], warning["target"]) == ("FIGURE_UNAVAILABLE", world.l2_pool)
    assert f"exceeds the L2Coordinator's accBalRewards() {A.L2_EARNED - 1}" in warning["message"]
    (deposit,) = entry["deposits"]
    assert [item["amount"] for item in deposit["rewards"]] == [
        str(A.L2_EARNED),
        str(A.L2_EARNED * (10**18 * A.L2_EARNED // (A.L2_EARNED - 1)) // 10**18),
    ]


@pytest.mark.parametrize("sidechain", [False, True])
async def test_a_query_is_one_request_of_lens_calls(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path, sidechain
):
    """Warm, a new block's answer is its header and then one request: on Ethereum a lens call per
    Booster (the current and the earlier one) in one batch, on a sidechain one lens call."""
    proxy = RpcProxy(world.node.url)
    proxied = await aiohttp_server(proxy.app(), host="127.0.0.1")
    proxy.url = str(proxied.make_url("/"))
    path = tmp_path / "a.json"
    path.write_text(json.dumps(world.l2_addresses_override() if sidechain else world.addresses_override()))
    api = await world_api(aiohttp_client, keys_file, api_key, path, world.node, url=proxy.url)
    depositor = world.wallets["depositor"]
    await answer(api, depositor)
    world.node.mine()
    before = len(proxy.posts)
    entry = await answer(api, depositor)
    assert len(entry["deposits"]) == (1 if sidechain else 3)
    header, *rest = proxy.posts[before:]
    assert header["method"] == "eth_getBlockByNumber" and len(rest) == 1
    items = rest[0] if isinstance(rest[0], list) else [rest[0]]
    assert [(item["method"], "to" in item["params"][0]) for item in items] == [("eth_call", False)] * (
        1 if sidechain else 2
    )


async def test_an_earlier_booster_that_cannot_be_read_is_left_out_with_a_warning(
    aiohttp_client, keys_file, api_key, world, tmp_path
):
    data = world.addresses_override()
    data[str(world.node.chain_id)]["aura"]["olderBoosters"] = [world.aura]
    path = tmp_path / "a.json"
    path.write_text(json.dumps(data))
    api = await world_api(aiohttp_client, keys_file, api_key, path, world.node)
    entry = await answer(api, world.wallets["depositor"], warned=True)
    assert [deposit["booster"] for deposit in entry["deposits"]] == [world.booster] * 2
    (warning,) = entry["warnings"]
    assert (warning["code"], warning["target"]) == ("PART_UNREADABLE", world.aura)
    assert warning["message"].startswith(f"Aura's earlier Booster {world.aura} is left out: ")


async def test_a_wallet_with_nothing_has_no_deposits(world_client, world):
    entry = await answer(world_client, world.wallets["empty"])
    assert entry["deposits"] == []


async def test_a_block_before_the_declared_deployment_is_refused_before_any_read(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path
):
    """The data declares the block of Aura's first contract (`startBlock`): a block given by
    number before it is refused with no read (here, with no head follower, the head's header
    only); one given by hash, once its header says its number (beside the adapter's first
    round), in the same words."""
    proxy = RpcProxy(world.node.url)
    proxied = await aiohttp_server(proxy.app(), host="127.0.0.1")
    proxy.url = str(proxied.make_url("/"))
    api = await world_api(
        aiohttp_client, keys_file, api_key, world.write_addresses(tmp_path / "a.json"), world.node, url=proxy.url
    )
    depositor, early = world.wallets["depositor"], world.start_block - 1
    await answer(api, depositor)
    asked = {"protocol": "aura", "chainId": 31337, "walletAddress": depositor}
    said = f"Block {early} is before aura's deployment on chain 31337: its first contract there was deployed at block "
    before = len(proxy.posts)
    reply = await api.query(QUERY, {"inputs": [{**asked, "blockNumber": early}]})
    (error,) = reply.body["data"]["walletPositions"]["errors"]
    assert (error["error"]["code"], error["error"]["message"]) == ("VALIDATION_ERROR", f"{said}{world.start_block}.")
    sent = [item for post in proxy.posts[before:] for item in (post if isinstance(post, list) else [post])]
    assert [item for item in sent if item["params"][:1] != ["latest"]] == [], "no read but the head's"
    by_hash = world.node.rpc("eth_getBlockByNumber", hex(early), False)["hash"]
    reply = await api.query(QUERY, {"inputs": [{**asked, "blockHash": by_hash}]})
    (error,) = reply.body["data"]["walletPositions"]["errors"]
    assert (error["error"]["code"], error["error"]["message"]) == ("VALIDATION_ERROR", f"{said}{world.start_block}.")


async def test_a_block_before_the_booster_is_a_validation_error(world_client, world):
    before = world.booster_block - 1
    assert world.node.rpc("eth_getCode", world.booster, hex(before)) == "0x"
    reply = await world_client.query(
        QUERY,
        {
            "inputs": [
                {
                    "protocol": "aura",
                    "chainId": 31337,
                    "walletAddress": world.wallets["depositor"],
                    "blockNumber": before,
                }
            ]
        },
    )
    (error,) = reply.body["data"]["walletPositions"]["errors"]
    assert error["error"]["code"] == "VALIDATION_ERROR"
    assert f"its Booster {world.booster} has no code then" in error["error"]["message"]


POOL_DETAILS = f"""query($inputs: [PoolInput!]!) {{ poolDetails(inputs: $inputs) {{
  data {{ poolAddress blockNumber warnings {{ code message target }}
    details {{ ... on AuraPool {{ type chainId booster pid rewardPool lpToken {TOKEN} depositToken {TOKEN} gauge
      isShutdown totalSupply totalSupplyUsd rewards {{ rewardPool token {TOKEN} rate periodFinish priceUsd }}
      auraToken {TOKEN} auraPerBal auraPriceUsd }} }} }}
  errors {{ poolAddress error {{ code message }} }} }} }}"""


def minted_per_bal(world: A.AuraWorld, multiplier: int) -> float:
    """The AURA the token's own `mintFor` adds for one BAL passed at `multiplier` (undone after)."""
    node, someone = world.node, world.wallets["empty"]
    before, with_snapshot = node.call(world.aura, "balanceOf(address)", someone), node.rpc("evm_snapshot")
    node.send(world.aura, "mintFor(address,uint256)", someone, 10**18 * multiplier // 10_000)
    minted = node.call(world.aura, "balanceOf(address)", someone) - before
    node.rpc("evm_revert", with_snapshot)
    return minted / 10**18


async def test_each_booster_pool_by_its_reward_pool_with_its_rates_and_staked_bpt(world_client, l2_client, world):
    """Each pool of the current Booster, the earlier one (shut down) and a sidechain's BoosterLite,
    asked by its reward pool: its poolInfo, the reward pools' totalSupply, rewardToken, rewardRate
    and periodFinish (the extra reward's in its stash token's baseToken), the AURA a claim of one BAL
    mints (by AURA's own mintFor, 0 for the Booster that is not its operator, the L2Coordinator's
    mintRate on the sidechain), held to the contracts' views; the staked BPT's USD to the
    depositor's positions where it is the only staker. An extra reward pool, a BPT and the Booster
    are refused."""
    balancer, node = world.balancer, world.node
    asked = [*world.reward_pools, world.v3_pool, world.older_pool]
    multipliers = [node.call(world.booster, "getRewardMultipliers(address)", pool) for pool in asked[:3]]
    assert multipliers == [10_000, A.MULTIPLIER, 10_000]
    per_bal = [minted_per_bal(world, multiplier) for multiplier in multipliers]
    found = await query_pools(world_client, POOL_DETAILS, "aura", asked)
    assert found["errors"] == []
    (block,) = {entry["blockNumber"] for entry in found["data"]}
    entries = {entry["poolAddress"]: entry for entry in found["data"]}
    assert all(entry["warnings"] == [] for entry in entries.values())
    bal = {"address": balancer.tokens["BAL"], "symbol": "BAL", "name": "BAL", "decimals": 18}
    rwd = {"address": balancer.tokens["RWD"], "symbol": "RWD", "name": "RWD", "decimals": 18}
    names = {
        balancer.pools["weighted"][0]: ("Balancer 80 TKN 20 USDC", "B-80TKN-20USDC"),
        balancer.pools["stable"][0]: ("Balancer USDC-DAI Stable", "B-USDC-DAI"),
        balancer.v3.pool: ("Balancer v3 50 TKN 50 RTK", "B3-50TKN-50RTK"),
    }

    def rate(pool: str, token: dict) -> dict:
        return {
            "rewardPool": pool,
            "token": token,
            "rate": str(node.call(pool, "rewardRate()", block=block)),
            "periodFinish": node.call(pool, "periodFinish()", block=block),
            "priceUsd": B.PRICES[token["symbol"]] / 10**8,
        }

    def expected(booster: str, pid: int, aura: dict, per_bal: float) -> dict:
        info = node.call(booster, "poolInfo(uint256)", pid, returns=A.INFO, block=block)
        lptoken, deposit, gauge, pool, _ = (str(part).lower() for part in info[:5])
        assert str(node.call(pool, "rewardToken()", returns=("address",), block=block)).lower() == bal["address"]
        extras = [
            str(node.call(pool, "extraRewards(uint256)", i, returns=("address",), block=block)).lower()
            for i in range(node.call(pool, "extraRewardsLength()", block=block))
        ]
        name, symbol = names[lptoken]
        return {
            "type": "aura-pool",
            "chainId": 31337,
            "booster": booster,
            "pid": pid,
            "rewardPool": pool,
            "lpToken": {"address": lptoken, "symbol": symbol, "name": name, "decimals": 18},
            "depositToken": {"address": deposit, "symbol": "aura-deposit", "name": "Aura Deposit", "decimals": 18},
            "gauge": gauge,
            "isShutdown": info[5],
            "totalSupply": str(node.call(pool, "totalSupply()", block=block)),
            "rewards": [rate(pool, bal), *(rate(extra, rwd) for extra in extras)],
            "auraToken": aura,
            "auraPerBal": per_bal,
            "auraPriceUsd": A.AURA_USD / 10**8,
        }

    aura = {"address": world.aura, "symbol": "AURA", "name": "Aura", "decimals": 18}
    wanted = [
        *(expected(world.booster, pid, aura, minted) for pid, minted in enumerate(per_bal)),
        expected(world.older_booster, 0, aura, 0.0),
    ]
    for pool, want in zip(asked, wanted):
        details = dict(entries[pool]["details"])
        staked = details.pop("totalSupplyUsd")
        assert details == want, pool
        assert (staked == 0.0) == (want["totalSupply"] == "0"), pool
    stable = entries[world.reward_pools[1]]["details"]
    assert [(r["rewardPool"], r["rate"], r["periodFinish"]) for r in stable["rewards"]] == [
        (world.reward_pools[1], str(A.RATES["BAL"]), world.reward_finish),
        (world.extra, str(A.RATES["RWD"]), world.reward_finish),
    ]
    assert entries[world.older_pool]["details"]["isShutdown"] and not stable["isShutdown"]
    assert entries[world.reward_pools[0]]["details"]["totalSupply"] == "0"

    entry = await answer(world_client, world.wallets["depositor"])
    assert entry["blockNumber"] == block
    for deposit in entry["deposits"]:
        details = entries[deposit["rewardPool"]]["details"]
        assert (details["booster"], details["pid"]) == (deposit["booster"], deposit["pid"])
        assert details["totalSupply"] == deposit["position"]["balance"], "the depositor is the only staker"
        assert details["totalSupplyUsd"] == deposit["position"]["valueUsd"] > 0
        assert details["lpToken"] == deposit["position"]["pool"]

    (l2,) = (await query_pools(l2_client, POOL_DETAILS, "aura", [world.l2_pool]))["data"]
    assert l2["blockNumber"] == block and l2["warnings"] == []
    oft = {"address": world.aura_oft, "symbol": "AURA", "name": "Aura", "decimals": 18}
    mint_rate = node.call(world.l2_coordinator, "mintRate()", block=block)
    (l2_deposit,) = (await answer(l2_client, world.wallets["depositor"]))["deposits"]
    assert l2["details"] == expected(world.l2_booster, 0, oft, mint_rate / 10**18) | {
        "totalSupplyUsd": l2_deposit["position"]["valueUsd"]
    }

    refused = [world.extra, balancer.pools["stable"][0], world.booster]
    found = await query_pools(world_client, POOL_DETAILS, "aura", refused)
    assert found["data"] == []
    for error, address in zip(found["errors"], refused):
        assert (error["poolAddress"], error["error"]["code"]) == (address, "VALIDATION_ERROR")
        assert error["error"]["message"] == (
            f"{address} is not the reward pool of any pool of Aura's Boosters {world.booster}, "
            f"{world.older_booster} on chain 31337 at block {block}. Expected a reward pool's address (a "
            "BaseRewardPool: the Booster's poolInfo(pid).crvRewards)."
        )


PUBLISHED = {
    "poolLength()": ("uint256",),
    "poolInfo(uint256)": ("address", "address", "address", "address", "address", "bool"),
    "earned(address)": ("uint256",),
    "rewardToken()": ("address",),
    "extraRewardsLength()": ("uint256",),
    "extraRewards(uint256)": ("address",),
    "baseToken()": ("address",),
    "INIT_MINT_AMOUNT()": ("uint256",),
    "EMISSIONS_MAX_SUPPLY()": ("uint256",),
    "totalCliffs()": ("uint256",),
    "reductionPerCliff()": ("uint256",),
    "operator()": ("address",),
    "getRewardMultipliers(address)": ("uint256",),
    "mintRate()": ("uint256",),
    "accBalRewards()": ("uint256",),
    "rewardRate()": ("uint256",),
    "periodFinish()": ("uint256",),
}
"""Aura's published views as its source declares them (no npm package ships Aura's ABIs):
aurafinance/aura-contracts at a5d63932 (contracts/interfaces/IBooster.sol `poolLength`,
`poolInfo` -> PoolInfo {lptoken, token, gauge, crvRewards, stash, shutdown}; contracts/core/Aura.sol
`INIT_MINT_AMOUNT`, `EMISSIONS_MAX_SUPPLY`, `totalCliffs`, `reductionPerCliff` public) and its
convex-platform submodule at 6c8abb26 (BaseRewardPool.sol `earned`, `rewardToken`,
`extraRewardsLength`, `extraRewards`, `uint256 public periodFinish`, `uint256 public rewardRate`
(VirtualBalanceRewardPool.sol's alike); StashToken.sol `baseToken`; Booster.sol
`mapping(address => uint256) public getRewardMultipliers`, REWARD_MULTIPLIER_DENOMINATOR 10000).
Aura.sol `address public operator`; contracts/sidechain/L2Coordinator.sol `mintRate()` and
`uint256 public accBalRewards`."""


def test_the_adapter_reads_auras_published_views():
    functions = functions_of(contracts)
    assert {function.signature: tuple(function.output_types) for function in functions.values()} == PUBLISHED


SOURCE = "aurafinance/aura-contracts@a5d63932a5df3e08be1357a0c18978982a848a25"
RECORDED = {
    "1": {
        "booster": "0xA57b8d98dAE62B26Ec3bcC4a365338157060B234",
        "aura": "0xC0c293ce456fF0ED870ADd98a0828Dd4d2903DBF",
        "olderBoosters": ["0x7818A1DA7BD1E64c199029E86Ba244a9798eEE10"],
    },
    **{
        chain: {
            "booster": "0x98Ef32edd24e2c92525E59afc4475C1242a30184",
            "aura": "0x1509706a6c66CA549ff0cB464de88231DDBe213B",
            "l2Coordinator": coordinator,
        }
        for chain, coordinator in {
            "42161": "0xeC1c780A275438916E7CEb174D80878f29580606",
            "10": "0xeC1c780A275438916E7CEb174D80878f29580606",
            "137": "0x8b2970c237656d3895588B99a8bFe977D5618201",
            "43114": "0x8b2970c237656d3895588B99a8bFe977D5618201",
            "8453": "0x8b2970c237656d3895588B99a8bFe977D5618201",
        }.items()
    },
}
"""Aura's own deployment records at SOURCE (no npm package ships them): Ethereum's from
`deployments/1.json` (`booster`, `aura`) and `deployments/1-deprecated(v1).json` (`booster`, the
2022 one; `1-deprecated(v2).json` lists no Booster); each sidechain's from
`tasks/deploy/<arbitrum|optimism|polygon|avax|base>-config.ts` `getSidechain` (`booster`: a
BoosterLite, `auraOFT`, `l2Coordinator`). Aura's other sidechains (Gnosis, zkEVM, Fraxtal) are
not chains the `balancer` protocol serves."""


def test_every_aura_section_is_auras_own_record():
    data = json.loads(BUILT_IN.read_text())
    served = {chain: data[chain]["aura"] for chain in data if "aura" in data[chain]}
    assert served == RECORDED
    assert all("balancer" in data[chain] for chain in served), "Aura's deposits are valued by Balancer's share math"
