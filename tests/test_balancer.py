"""Balancer v2 against Balancer's own Vault and pool factories (tests/balancer_world.py), its
published ABIs and addresses (`@balancer-labs/v2-deployments`) and its own math
(`@balancer-labs/balancer-maths`)."""

from __future__ import annotations

import asyncio
import json
import math
import re
from dataclasses import replace
from fractions import Fraction

import pytest

import server
from adapters.balancer import contracts
from adapters.balancer import pools as balancer_pools
from adapters.balancer import positions as balancer
from adapters.balancer.section import BALANCER
from adapters.position_warnings import PriceUnavailable
from adapters.prices import Kind, PriceSource, routing, usd_price
from adapters.protocol import price_routes
from addresses import BUILT_IN
from chain import erc20
from tests import balancer_world as B
from tests.balancer_v3_world import FIXED_INIT, FIXED_RATE, LBP_WEIGHTS, RECLAMM_DYNAMIC_DATA, compile_v3
from tests.conftest import proxied_api, query_pools, query_positions, until_indexed, world_fixture
from tests.evm import abi_type, function_signatures, functions_of
from tests.node_oracles import balancer_abi, balancer_proportional_exits, pack

TOKEN = "{ address symbol name decimals }"
LBP = """lbp { projectToken reserveToken startTime endTime startWeights endWeights weights isSwapEnabled
  isProjectTokenSwapInBlocked reserveTokenVirtualBalance }
  fixedPriceLbp { projectToken reserveToken startTime endTime projectTokenRate isSwapEnabled }"""
POOL = f"""version poolType pool {TOKEN} poolId balance totalSupply valueUsd
  tokens {{ token {TOKEN} poolBalance amount amountUsd }} {LBP}"""
QUERY = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
  data {{ ... on BalancerWalletPositions {{ protocol walletAddress chainId blockNumber
    warnings {{ code message target }}
    poolPositions {{ {POOL} }}
    gaugePositions {{ gauge position {{ {POOL} }} rewards {{ token {TOKEN} amount amountUsd }} }} }} }}
  errors {{ error {{ code message }} }} }} }}"""

world = world_fixture(B.build)


async def answer(api, wallet: str) -> dict:
    found = await query_positions(api, QUERY, "balancer", [wallet], 31337)
    assert found["errors"] == []
    (entry,) = found["data"]
    assert entry["warnings"] == []
    return dict(entry)


def token(world: B.BalancerWorld, address: str) -> dict:
    (name,) = [name for name, at in world.tokens.items() if at == address]
    return {"address": address, "symbol": name, "name": name, "decimals": B.DECIMALS[name]}


def expected(world: B.BalancerWorld, kind: str, bpt: int, pool_type: str, name: str, symbol: str) -> dict:
    """A pool position as Balancer's own views give it: the Vault's getPoolTokens, the pool's
    getActualSupply, its BPT left out of a composable stable pool's tokens."""
    pool, pool_id = world.pools[kind]
    tokens, balances = world.pool_tokens(kind)
    supply = world.node.call(pool, "getActualSupply()")
    amounts = [(address, balance, balance * bpt // supply) for address, balance in zip(tokens, balances)]
    found = {"version": 2, "poolType": pool_type, "poolId": pool_id, "balance": str(bpt), "totalSupply": str(supply)}
    pool_token = {"address": pool, "symbol": symbol, "name": name, "decimals": 18}
    return found | valued(world, pool_token, [share for share in amounts if share[0] != pool])


def valued(world: B.BalancerWorld, pool: dict, amounts: list[tuple[str, int, int]]) -> dict:
    """The pool token and each (token, pool balance, amount) share with its USD value at the world's prices."""
    shares = []
    for address, balance, amount in amounts:
        info = token(world, address.lower())
        usd = Fraction(amount * B.PRICES[info["symbol"]], 10 ** (info["decimals"] + 8))
        shares.append({"token": info, "poolBalance": str(balance), "amount": str(amount), "amountUsd": usd})
    return {
        "pool": pool,
        "tokens": [{**share, "amountUsd": float(share["amountUsd"])} for share in shares],
        "valueUsd": float(sum(share["amountUsd"] for share in shares)),
        "lbp": None,
        "fixedPriceLbp": None,
    }


async def test_bpt_in_a_weighted_and_a_composable_stable_pool_and_a_gauge_stake(world_client, world):
    lp = world.wallets["lp"]
    entry = await answer(world_client, lp)
    weighted, stable = world.pools["weighted"][0], world.pools["stable"][0]
    held = {kind: world.node.call(world.pools[kind][0], "balanceOf(address)", lp) for kind in world.pools}
    staked = world.node.call(world.gauge, "balanceOf(address)", lp)
    assert held["weighted"] and held["stable"] and staked
    by_pool = {position["pool"]["address"]: position for position in entry["poolPositions"]}
    assert world.v3 is not None
    assert set(by_pool) == {weighted, stable, world.v3.pool, world.v3.stable_pool, world.v3.lbp}
    assert by_pool[weighted] == expected(
        world, "weighted", held["weighted"], "weighted", "Balancer 80 TKN 20 USDC", "B-80TKN-20USDC"
    )
    assert by_pool[stable] == expected(
        world, "stable", held["stable"], "composable-stable", "Balancer USDC-DAI Stable", "B-USDC-DAI"
    )
    # The composable stable pool's shares are of getActualSupply, not of its preminted totalSupply.
    assert int(by_pool[stable]["totalSupply"]) < world.node.call(stable, "totalSupply()") // 10**9
    gauge, _ = sorted(entry["gaugePositions"], key=lambda found: found["gauge"] != world.gauge)
    assert gauge["gauge"] == world.gauge
    assert gauge["position"] == expected(
        world, "weighted", staked, "weighted", "Balancer 80 TKN 20 USDC", "B-80TKN-20USDC"
    )
    assert gauge["rewards"] == [
        {
            "token": token(world, world.tokens[name]),
            "amount": str(B.CLAIMABLE[name]),
            "amountUsd": float(Fraction(B.CLAIMABLE[name] * B.PRICES[name], 10**26)),
        }
        for name in ("RWD", "BAL")
    ]


def v3_state(world: B.BalancerWorld, pool: str) -> dict:
    """A v3 pool's rates and live balances as its Vault answers them (what its exits are computed on)."""
    assert world.v3 is not None
    vault = world.v3.vault
    _, rates = world.node.call(vault, "getPoolTokenRates(address)", pool, returns=("uint256[]", "uint256[]"))
    live = world.node.call(vault, "getCurrentLiveBalances(address)", pool, returns=("uint256[]",))
    return {"tokenRates": [str(rate) for rate in rates], "balancesLive": [str(balance) for balance in live]}


V3_POOLS = {
    "weighted": ("Balancer v3 50 TKN 50 RTK", "B3-50TKN-50RTK"),
    "stable": ("Balancer v3 USDC-DAI Stable", "B3-USDC-DAI"),
    "lbp": ("Balancer v3 LBP TKN", "LBP-TKN"),
    "fixed-price-lbp": ("Balancer v3 Fixed LBP TKN", "FLBP-TKN"),
    "eclp": ("Balancer v3 Gyro E-CLP", "B3-ECLP"),
    "2clp": ("Balancer v3 Gyro 2-CLP", "B3-2CLP"),
    "reclamm": ("Balancer v3 ReClamm", "B3-RECLAMM"),
}
"""Each v3 pool of the world by kind (STAND_INS' by theirs): its BPT's name and symbol."""
OWN_TYPES = ("weighted", "stable", "lbp", "fixed-price-lbp")
"""The v3 kinds answered as their own poolType (the stand-ins' as other)."""


def v3_pools(world: B.BalancerWorld) -> dict[str, str]:
    """The world's v3 pools by V3_POOLS' kinds."""
    assert world.v3 is not None
    v3 = world.v3
    return {
        "weighted": v3.pool,
        "stable": v3.stable_pool,
        "lbp": v3.lbp,
        "fixed-price-lbp": v3.fixed_price_lbp,
        **v3.stand_ins,
    }


def expected_v3(world: B.BalancerWorld, kind: str, bpt: int, block: int | str = "latest") -> dict:
    """A v3 pool's position as its Vault's views give it at `block`: getPoolTokenInfo's tokens and
    raw balances, totalSupply(pool), and each token's proportional exit as the Vault computes it
    (an LBP's `lbp` apart: lbp_views, fixed_price_lbp_views)."""
    assert world.v3 is not None
    vault, node = world.v3.vault, world.node
    pool = v3_pools(world)[kind]
    tokens, _, balances, _ = node.call(
        vault,
        "getPoolTokenInfo(address)",
        pool,
        returns=("address[]", "(uint8,address,bool)[]", "uint256[]", "uint256[]"),
        block=block,
    )
    factors, rates = node.call(
        vault, "getPoolTokenRates(address)", pool, returns=("uint256[]", "uint256[]"), block=block
    )
    live = node.call(vault, "getCurrentLiveBalances(address)", pool, returns=("uint256[]",), block=block)
    supply = node.call(vault, "totalSupply(address)", pool, block=block)
    assert supply == node.call(pool, "totalSupply()", block=block)
    amounts = [
        (address, balance, scaled * bpt // supply * 10**18 // (factor * rate))
        for address, balance, factor, rate, scaled in zip(tokens, balances, factors, rates, live)
    ]
    pool_type = kind if kind in OWN_TYPES else "other"
    found = {"version": 3, "poolType": pool_type, "poolId": None, "balance": str(bpt), "totalSupply": str(supply)}
    name, symbol = V3_POOLS[kind]
    return found | valued(world, {"address": pool, "symbol": symbol, "name": name, "decimals": 18}, amounts)


async def test_bpt_of_v3_weighted_and_stable_pools_held_and_staked(world_client, world):
    """Balancer v3: the pool is its own BPT, its balances in the v3 Vault; the weighted pool's
    token WITH_RATE valued at its live balance and rate as the Vault's proportional exit pays, the
    stable pool's 6-decimal token through its decimal scaling."""
    lp = world.wallets["lp"]
    entry = await answer(world_client, lp)
    assert world.v3 is not None
    pool = world.v3.pool
    held = world.node.call(pool, "balanceOf(address)", lp)
    staked = world.node.call(world.v3_gauge, "balanceOf(address)", lp)
    assert held and staked and held == world.node.call(world.v3.vault, "balanceOf(address,address)", pool, lp)
    (position,) = [found for found in entry["poolPositions"] if found["pool"]["address"] == pool]
    assert position == expected_v3(world, "weighted", held)
    (gauge,) = [found for found in entry["gaugePositions"] if found["gauge"] == world.v3_gauge]
    assert gauge["position"] == expected_v3(world, "weighted", staked)
    stable = world.v3.stable_pool
    (position_stable,) = [found for found in entry["poolPositions"] if found["pool"]["address"] == stable]
    assert position_stable == expected_v3(world, "stable", world.node.call(stable, "balanceOf(address)", lp))
    # The token with a rate is paid as the live balance (rate applied) undone, not raw x share.
    (rated,) = [share for share in position["tokens"] if share["token"]["symbol"] == "RTK"]
    supply = int(position["totalSupply"])
    assert int(rated["amount"]) <= int(rated["poolBalance"]) * held // supply


LBP_SALE = (
    "(address[],uint256[],uint256,uint256,uint256,uint256,bool,uint256[],uint256[],uint256,address,uint256,uint256,"
    "uint256,uint256)"
)
"""LBPoolImmutableData (v3-interfaces 1.0.0, pool-weighted/ILBPool.sol): tokens, decimalScalingFactors,
startTime, endTime, projectTokenIndex, reserveTokenIndex, isProjectTokenSwapInBlocked, startWeights,
endWeights, reserveTokenVirtualBalance, then the migration's five."""
LBP_NOW = "(uint256[],uint256,uint256,bool,bool,bool,bool,uint256[])"
"""LBPoolDynamicData: balancesLiveScaled18, staticSwapFeePercentage, totalSupply, isPoolInitialized,
isPoolPaused, isPoolInRecoveryMode, isSwapEnabled, normalizedWeights."""


def sale_views(world: B.BalancerWorld, pool: str, views: tuple[str, str, str, str], block: int) -> tuple:
    """An LBP's immutable and dynamic data at `block` (`views`: each view and its answer's type),
    and what every LBP type's answer shares of them (both structs lead with the same fields)."""
    assert world.v3 is not None
    node = world.node
    sale = node.call(pool, views[0], returns=(views[1],), block=block)
    now = node.call(pool, views[2], returns=(views[3],), block=block)
    tokens = [token.lower() for token in sale[0]]
    assert now[2] == node.call(world.v3.vault, "totalSupply(address)", pool, block=block)
    shared = {
        "projectToken": tokens[sale[4]],
        "reserveToken": tokens[sale[5]],
        "startTime": sale[2],
        "endTime": sale[3],
        "isSwapEnabled": now[6],
    }
    return sale, now, shared


def lbp_views(world: B.BalancerWorld, block: int) -> dict:
    """The LBP's `lbp` as its own views answer at `block`."""
    assert world.v3 is not None
    views = ("getLBPoolImmutableData()", LBP_SALE, "getLBPoolDynamicData()", LBP_NOW)
    sale, now, shared = sale_views(world, world.v3.lbp, views, block)
    return shared | {
        "startWeights": [weight / 10**18 for weight in sale[7]],
        "endWeights": [weight / 10**18 for weight in sale[8]],
        "weights": [weight / 10**18 for weight in now[7]],
        "isProjectTokenSwapInBlocked": sale[6],
        "reserveTokenVirtualBalance": str(sale[9]),
    }


async def test_an_lbp_is_read_by_its_own_views_before_and_during_its_sale(world_client, world):
    """The LBP Balancer's LBPoolFactory made (an LBPool is a WeightedPool too) is answered as `lbp`:
    the lp wallet's BPT valued as every v3 pool's (the Vault's proportional exit), and its sale as
    getLBPoolImmutableData and getLBPoolDynamicData answer at the answer's block; then, time moved
    into the sale, its weights between the start and end ones and its swaps on."""
    assert world.v3 is not None
    lp, lbp, node = world.wallets["lp"], world.v3.lbp, world.node
    for moved in (False, True):
        if moved:
            start = node.call(lbp, "getLBPoolImmutableData()", returns=(LBP_SALE,))[2]
            node.rpc("evm_setNextBlockTimestamp", hex(max(node.timestamp() + 1, start + 5 * 86_400)))
            node.mine()
        entry = await answer(world_client, lp)
        block = entry["blockNumber"]
        (position,) = [found for found in entry["poolPositions"] if found["pool"]["address"] == lbp]
        held = node.call(lbp, "balanceOf(address)", lp, block=block)
        sale = lbp_views(world, block)
        assert position == expected_v3(world, "lbp", held, block) | {"lbp": sale}
        assert (sale["projectToken"], sale["reserveToken"]) == (world.tokens["TKN"], world.tokens["DAI"])
        project = [token["token"]["address"] for token in position["tokens"]].index(world.tokens["TKN"])
        assert (sale["startWeights"][project], sale["endWeights"][project]) == (
            LBP_WEIGHTS[0] / 10**18,
            LBP_WEIGHTS[2] / 10**18,
        )
        assert sale["isSwapEnabled"] is moved
        if moved:
            assert sale["endWeights"][project] < sale["weights"][project] < sale["startWeights"][project]
        else:
            assert sale["weights"] == sale["startWeights"]


FIXED_SALE = "(address[],uint256[],uint256,uint256,uint256,uint256,uint256)"
"""FixedPriceLBPoolImmutableData (v3-interfaces 1.0.0, pool-weighted/IFixedPriceLBPool.sol): tokens,
decimalScalingFactors, startTime, endTime, projectTokenIndex, reserveTokenIndex, projectTokenRate."""
FIXED_NOW = "(uint256[],uint256,uint256,bool,bool,bool,bool)"
"""FixedPriceLBPoolDynamicData: balancesLiveScaled18, staticSwapFeePercentage, totalSupply,
isPoolInitialized, isPoolPaused, isPoolInRecoveryMode, isSwapEnabled."""


def fixed_price_lbp_views(world: B.BalancerWorld, block: int) -> dict:
    """The fixed-price LBP's `fixedPriceLbp` as its own views answer at `block`."""
    assert world.v3 is not None
    views = ("getFixedPriceLBPoolImmutableData()", FIXED_SALE, "getFixedPriceLBPoolDynamicData()", FIXED_NOW)
    sale, _, shared = sale_views(world, world.v3.fixed_price_lbp, views, block)
    return shared | {"projectTokenRate": sale[6] / 10**18}


async def test_a_fixed_price_lbp_is_read_by_its_own_views_before_and_during_its_sale(world_client, world):
    """The fixed-price LBP Balancer's FixedPriceLBPoolFactory made (no WeightedPool) is answered as
    `fixed-price-lbp`: the seller's BPT (it seeded the pool with TKN alone) valued as every v3 pool's
    (the Vault's proportional exit, and `@balancer-labs/balancer-maths`'), and its sale as
    getFixedPriceLBPoolImmutableData and getFixedPriceLBPoolDynamicData answer at the answer's
    block: at the block it was seeded (before its sale), then with time moved into the sale."""
    assert world.v3 is not None
    seller, pool, node = world.wallets["seller"], world.v3.fixed_price_lbp, world.node
    since = {"address": pool, "fromBlock": hex(world.v3.start_block), "topics": [erc20.TRANSFER.topic]}
    logs = node.rpc("eth_getLogs", since)
    (seeded,) = {int(log["blockNumber"], 16) for log in logs}
    start = node.call(pool, "getFixedPriceLBPoolImmutableData()", returns=(FIXED_SALE,))[2]
    node.rpc("evm_setNextBlockTimestamp", hex(max(node.timestamp() + 1, start + 5 * 86_400)))
    node.mine()
    for block in (seeded, node.block_number()):
        asked = {"protocol": "balancer", "chainId": 31337, "walletAddress": seller, "blockNumber": block}
        reply = (await world_client.query(QUERY, {"inputs": [asked]})).body["data"]["walletPositions"]
        assert reply["errors"] == []
        (entry,) = reply["data"]
        assert entry["warnings"] == [] and entry["gaugePositions"] == []
        (position,) = entry["poolPositions"]
        held = node.call(pool, "balanceOf(address)", seller, block=block)
        sale = fixed_price_lbp_views(world, block)
        assert held and position == expected_v3(world, "fixed-price-lbp", held, block) | {"fixedPriceLbp": sale}
        assert (sale["projectToken"], sale["reserveToken"]) == (world.tokens["TKN"], world.tokens["DAI"])
        assert sale["projectTokenRate"] == FIXED_RATE / 10**18
        assert sale["isSwapEnabled"] is (block != seeded)
        # Seeded with the project token alone: the seller's share is TKN (all of it but the
        # Vault's minimum supply's part) and no DAI.
        amounts = {share["token"]["symbol"]: int(share["amount"]) for share in position["tokens"]}
        assert amounts["DAI"] == 0 and 0 < FIXED_INIT - amounts["TKN"] < FIXED_INIT // 10**9
    (exit,) = balancer_proportional_exits([maths_case(world, position)])
    assert [int(share["amount"]) for share in position["tokens"]] == exit


STAND_IN_TYPES = {
    "eclp": ("Gyro E-CLP", "getECLPParams()"),
    "2clp": ("Gyro 2-CLP", "getGyro2CLPPoolImmutableData()"),
    "reclamm": ("ReClamm", "getReClammPoolDynamicData()"),
}
"""What each stand-in's warning names: its type and the published view that told it."""


def unsupported(kind: str, pool: str) -> dict:
    """The warning a pool of a type no published factory deploys is answered with."""
    name, view = STAND_IN_TYPES[kind]
    return {
        "code": "FIGURE_UNAVAILABLE",
        "target": pool,
        "message": f"poolType is other: the pool is a {name} pool (it answers {view}), a type whose own views are "
        "not read (unsupported); its tokens, balances and supply are the Vault's, which every v3 pool type shares, and "
        "a share of it is what the Vault's proportional exit pays",
    }


async def test_gyro_and_reclamm_pools_are_named_unsupported_and_their_bpt_valued_by_the_vault(world_client, world):
    """Stand-ins of a Gyro E-CLP, a Gyro 2-CLP and a ReClamm pool, registered in the v3 Vault (no
    published factory deploys one), each told by its own published view: `other`, a warning naming
    its type, and the holder's BPT valued as the Vault's proportional exit pays (and as
    `@balancer-labs/balancer-maths`' does)."""
    assert world.v3 is not None
    holder = world.v3.holder
    found = await query_positions(world_client, QUERY, "balancer", [holder], 31337)
    assert found["errors"] == []
    (entry,) = found["data"]
    by_pool = {position["pool"]["address"]: position for position in entry["poolPositions"]}
    assert set(by_pool) == set(world.v3.stand_ins.values()) and entry["gaugePositions"] == []
    for kind, pool in world.v3.stand_ins.items():
        held = world.node.call(pool, "balanceOf(address)", holder, block=entry["blockNumber"])
        assert held and by_pool[pool] == expected_v3(world, kind, held, entry["blockNumber"]), kind
    assert sorted(entry["warnings"], key=lambda w: w["target"]) == sorted(
        (unsupported(kind, pool) for kind, pool in world.v3.stand_ins.items()), key=lambda w: w["target"]
    )
    positions = list(by_pool.values())
    exits = balancer_proportional_exits([maths_case(world, position) for position in positions])
    assert [[int(share["amount"]) for share in position["tokens"]] for position in positions] == exits


def maths_case(world: B.BalancerWorld, position: dict) -> dict:
    """A position as `@balancer-labs/balancer-maths`' proportional remove takes it (its pool's
    type, balances and supply; a v3 pool's rates and live balances)."""
    size = len(position["tokens"])
    return {
        "poolType": "STABLE" if position["poolType"] in ("stable", "composable-stable") else "WEIGHTED",
        "balances": [share["poolBalance"] for share in position["tokens"]],
        "decimals": [share["token"]["decimals"] for share in position["tokens"]],
        "totalSupply": position["totalSupply"],
        "bpt": position["balance"],
        "weights": [str(10**18 // size)] * size,
        "amp": "200000",
        **(v3_state(world, position["pool"]["address"]) if position["version"] == 3 else {}),
    }


async def test_the_shares_are_balancer_maths_proportional_exit(world_client, world):
    """`@balancer-labs/balancer-maths`' proportional remove of the wallet's BPT from each pool's
    balances and supply pays what the answer says each token is worth."""
    entry = await answer(world_client, world.wallets["lp"])
    positions = [*entry["poolPositions"], *(gauge["position"] for gauge in entry["gaugePositions"])]
    cases = [maths_case(world, position) for position in positions]
    exits = balancer_proportional_exits(cases)
    assert len(exits) == 7
    for position, amounts in zip(positions, exits):
        assert [int(share["amount"]) for share in position["tokens"]] == amounts
        assert all(amounts)


def usd(tokens: list[dict], amounts: list[int]) -> Fraction:
    """The USD of raw amounts of the tokens at the world's prices, exactly."""
    return sum(
        (
            Fraction(amount * B.PRICES[info["symbol"]], 10 ** (info["decimals"] + 8))
            for amount, info in zip(amounts, tokens)
        ),
        Fraction(0),
    )


async def test_a_pool_token_is_priced_wherever_it_appears_by_what_balancer_maths_exit_pays(world_client, world):
    """A BPT met outside Balancer (a vault's asset) is priced by its pool, v2 and v3: what a
    proportional exit of 10^18 whole BPT pays of each token (`@balancer-labs/balancer-maths`'
    proportional remove from the pool's balances and supply), each at its feed; stated as a
    protocol rate of the Vault that rests on a market (a trade moves the balances), with the
    pool's depth. A position's value is its balance at that price. Without the routes: no price."""
    node, app = world.node, world_client.app
    node.mine(100)  # the pools settled: the route finds them in the index's stored part
    entry = await answer(world_client, world.wallets["lp"])
    registry, indexes = app[server.REGISTRY], app[server.INDEXES]
    chain = registry["balancer"].chain(node.chain_id)
    await until_indexed(indexes.store(node.chain_id), contracts.stream(BALANCER.of(chain)), node)

    async def priced(token: str, routed: bool = True):
        reader = app[server.CHAINS].request(asyncio.get_running_loop().time() + 10).reader(node.chain_id)
        with routing(price_routes(registry.values() if routed else (), indexes)):
            return await usd_price(reader, chain, token)

    held = [position for position in entry["poolPositions"] if position["valueUsd"] is not None]
    assert {position["version"] for position in held} == {2, 3} and len(held) >= 4
    whole = 10**36
    exits = balancer_proportional_exits([maths_case(world, {**found, "balance": str(whole)}) for found in held])
    for position, amounts in zip(held, exits):
        pool, tokens = position["pool"]["address"], [share["token"] for share in position["tokens"]]
        price = await priced(pool)

        assert price.per_token() == usd(tokens, amounts) / 10**18, pool
        depth = usd(tokens, [int(share["poolBalance"]) for share in position["tokens"]])
        vault = world.vault if position["version"] == 2 else world.v3.vault
        assert price.source is not None and price.source.feed in {world.feeds[info["symbol"]] for info in tokens}
        assert replace(price.source, feed="", age=0) == PriceSource(
            pool, "", 0, Kind.PROTOCOL_RATE, vault, None, None, float(depth), market=True
        ), pool
        assert price.for_checks() is None
        assert math.isclose(position["valueUsd"], price.per_token() * int(position["balance"]) / 10**18, rel_tol=1e-9)
    with pytest.raises(PriceUnavailable, match="no protocol's own"):
        await priced(held[0]["pool"]["address"], routed=False)


async def test_a_wallet_with_nothing_has_empty_lists(world_client, world):
    entry = await answer(world_client, world.wallets["empty"])
    assert entry["poolPositions"] == entry["gaugePositions"] == []


async def test_a_block_before_the_vault_is_a_validation_error(world_client, world):
    wallet = world.wallets["lp"]
    asked = {"protocol": "balancer", "chainId": 31337, "walletAddress": wallet, "blockNumber": world.start_block - 1}
    reply = await world_client.query(QUERY, {"inputs": [asked]})
    (error,) = reply.body["data"]["walletPositions"]["errors"]
    assert error["error"]["code"] == "VALIDATION_ERROR"
    assert f"its first contract there was deployed at block {world.start_block}" in error["error"]["message"]


POOL_DETAILS = f"""query($inputs: [PoolInput!]!) {{ poolDetails(inputs: $inputs) {{
  data {{ poolAddress blockNumber warnings {{ code message target }}
    details {{ ... on BalancerPool {{ type version poolType poolToken {TOKEN} poolId vault chainId totalSupply
      tokens {{ token {TOKEN} balance priceUsd balanceUsd }} tvlUsd swapFee
      gauges {{ address totalSupply isKilled balInflationRate rewards {{ token {TOKEN} rate periodFinish priceUsd }} }}
      {LBP} }} }} }}
  errors {{ poolAddress error {{ code message }} }} }} }}"""


def priced(world: B.BalancerWorld, address: str, balance: int) -> tuple[dict, Fraction]:
    """A pool token's entry at the world's prices, and its balance's exact USD."""
    info = token(world, address.lower())
    usd = Fraction(balance * B.PRICES[info["symbol"]], 10 ** (info["decimals"] + 8))
    entry = {"token": info, "balance": str(balance), "priceUsd": B.PRICES[info["symbol"]] / 10**8}
    return entry | {"balanceUsd": float(usd)}, usd


def gauge_details(world: B.BalancerWorld, gauge: str, block: int, child: bool) -> dict:
    """A gauge as its own views answer them: a LiquidityGaugeV5's Reward leads with its token, a
    ChildChainGauge's does not (and it has no inflation_rate())."""
    rwd = world.tokens["RWD"]
    layout = ("address", "uint256", "uint256", "uint256", "uint256")
    data = world.node.call(
        gauge, "reward_data(address)", rwd, returns=layout if child else ("address", *layout), block=block
    )
    finish, rate = data[1:3] if child else data[2:4]
    assert (rate, finish) == (B.REWARD_RATES["v3" if child else "weighted"], world.reward_finish)
    inflation = None if child else str(world.node.call(gauge, "inflation_rate()", block=block))
    return {
        "address": gauge,
        "totalSupply": str(world.node.call(gauge, "totalSupply()", block=block)),
        "isKilled": world.node.call(gauge, "is_killed()", returns=("bool",), block=block),
        "balInflationRate": inflation,
        "rewards": [{"token": token(world, rwd), "rate": str(rate), "periodFinish": finish, "priceUsd": 0.5}],
    }


async def test_each_pool_with_its_gauges_as_the_vaults_and_the_positions_have_it(world_client, world):
    """Each pool of the world's two Vaults: its tokens, balances, supply and swap fee held to the
    Vault's and the pool's own views at the answer's block, and to the lp wallet's positions where
    they state the same figure (supply, balances, USD prices, and the gauges' stakes: the lp wallet
    is their only staker); its gauges (a LiquidityGaugeV5 and a ChildChainGauge, whose null
    inflation_rate is named) to theirs; the pool of no type read answered as `other`, with a
    warning. A token, a gauge and the Vault itself are refused."""
    assert world.v3 is not None
    v3 = world.v3
    weighted, stable = world.pools["weighted"][0], world.pools["stable"][0]
    pools = [weighted, stable, *v3_pools(world).values(), world.other_pool]
    found = await query_pools(world_client, POOL_DETAILS, "balancer", pools[:5])
    (block,) = {entry["blockNumber"] for entry in found["data"]}
    rest = await query_pools(world_client, POOL_DETAILS, "balancer", pools[5:], blockNumber=block)
    assert found["errors"] == rest["errors"] == []
    entries = {entry["poolAddress"]: entry for entry in found["data"] + rest["data"]}
    assert {entry["blockNumber"] for entry in rest["data"]} == {block} and len(entries) == len(pools)
    node = world.node

    def expected(pool: str, version: int, kind: str, tokens: list, balances: list, supply: int, fee: int) -> dict:
        shares = [priced(world, address, balance) for address, balance in zip(tokens, balances)]
        total = sum((usd for _, usd in shares), Fraction(0))
        name, symbol = NAMES[pool]
        vault = world.vault if version == 2 else v3.vault
        return {
            "type": "balancer-pool",
            "version": version,
            "poolType": kind,
            "poolToken": {"address": pool, "symbol": symbol, "name": name, "decimals": 18},
            "poolId": next((pool_id for address, pool_id in world.pools.values() if address == pool), None),
            "vault": vault,
            "chainId": 31337,
            "totalSupply": str(supply),
            "tokens": [entry for entry, _ in shares],
            "tvlUsd": float(total),
            "swapFee": fee / 10**18,
            "lbp": None,
            "fixedPriceLbp": None,
        }

    NAMES = {
        weighted: ("Balancer 80 TKN 20 USDC", "B-80TKN-20USDC"),
        stable: ("Balancer USDC-DAI Stable", "B-USDC-DAI"),
        **{pool: V3_POOLS[kind] for kind, pool in v3_pools(world).items()},
        world.other_pool: ("Balancer Other Pool", "B-OTHER"),
    }
    for kind, pool, pool_type in (("weighted", weighted, "weighted"), ("stable", stable, "composable-stable")):
        tokens, balances, _ = node.call(
            world.vault,
            "getPoolTokens(bytes32)",
            world.pool_id(kind),
            returns=("address[]", "uint256[]", "uint256"),
            block=block,
        )
        listed = [(t.lower(), b) for t, b in zip(tokens, balances) if t.lower() != pool]
        supply = node.call(pool, "getActualSupply()", block=block)
        fee = node.call(pool, "getSwapFeePercentage()", block=block)
        gauges = [gauge_details(world, world.gauge, block, child=False)] if kind == "weighted" else []
        want = expected(pool, 2, pool_type, *zip(*listed), supply, fee) | {"gauges": gauges}
        assert entries[pool]["details"] == want, kind
        assert entries[pool]["warnings"] == [], kind
    for kind, pool in v3_pools(world).items():
        tokens, _, balances, _ = node.call(
            v3.vault,
            "getPoolTokenInfo(address)",
            pool,
            returns=("address[]", "(uint8,address,bool)[]", "uint256[]", "uint256[]"),
            block=block,
        )
        supply = node.call(v3.vault, "totalSupply(address)", pool, block=block)
        fee = node.call(v3.vault, "getStaticSwapFeePercentage(address)", pool, block=block)
        if kind not in v3.stand_ins:  # PoolInfo's (v3-pool-utils), which the published pools have
            assert fee == node.call(pool, "getStaticSwapFeePercentage()", block=block)
        gauges = [gauge_details(world, world.v3_gauge, block, child=True)] if kind == "weighted" else []
        pool_type = kind if kind in OWN_TYPES else "other"
        listed = [t.lower() for t in tokens]
        want = expected(pool, 3, pool_type, listed, list(balances), supply, fee) | {"gauges": gauges}
        sales = {
            "lbp": lbp_views(world, block) if kind == "lbp" else None,
            "fixedPriceLbp": fixed_price_lbp_views(world, block) if kind == "fixed-price-lbp" else None,
        }
        assert entries[pool]["details"] == want | sales, kind
    (warning,) = entries[v3.pool]["warnings"]
    assert (warning["code"], warning["target"]) == ("FIGURE_UNAVAILABLE", world.v3_gauge)
    assert warning["message"].startswith("balInflationRate is null: the gauge answers no inflation_rate()")
    assert all(entries[pool]["warnings"] == [] for pool in (v3.stable_pool, v3.lbp, v3.fixed_price_lbp))
    for kind, pool in v3.stand_ins.items():
        assert entries[pool]["warnings"] == [unsupported(kind, pool)], kind
    assert entries[weighted]["details"]["swapFee"] == 0.003 and entries[v3.pool]["details"]["swapFee"] == 0.01

    other = world.other_pool
    pool_id = "0x" + node.call(other, "getPoolId()", returns=("bytes32",)).hex()
    assert (
        node.call(world.vault, "getPool(bytes32)", bytes.fromhex(pool_id[2:]), returns=("address", "uint8"))[0].lower()
        == other
    )
    tokens, balances, _ = node.call(
        world.vault, "getPoolTokens(bytes32)", bytes.fromhex(pool_id[2:]), returns=("address[]", "uint256[]", "uint256")
    )
    assert entries[other]["details"] == expected(
        other, 2, "other", [t.lower() for t in tokens], list(balances), 0, B.OTHER_FEE
    ) | {"poolId": pool_id, "gauges": []}
    (warning,) = entries[other]["warnings"]
    assert (warning["code"], warning["target"]) == ("FIGURE_UNAVAILABLE", other)
    assert warning["message"] == balancer_pools.OTHER

    entry = await answer(world_client, world.wallets["lp"])
    assert entry["blockNumber"] == block
    held = [*entry["poolPositions"], *(gauge["position"] for gauge in entry["gaugePositions"])]
    for position in held:
        details = entries[position["pool"]["address"]]["details"]
        assert position["totalSupply"] == details["totalSupply"]
        assert position["poolType"] == details["poolType"] and position["poolId"] == details["poolId"]
        assert [share["poolBalance"] for share in position["tokens"]] == [t["balance"] for t in details["tokens"]]
        for share, listed_token in zip(position["tokens"], details["tokens"]):
            decimals = share["token"]["decimals"]
            assert math.isclose(share["amountUsd"], int(share["amount"]) * listed_token["priceUsd"] / 10**decimals)
    for staked in entry["gaugePositions"]:
        (gauge,) = entries[staked["position"]["pool"]["address"]]["details"]["gauges"]
        assert (gauge["address"], gauge["totalSupply"]) == (staked["gauge"], staked["position"]["balance"])

    refused = await query_pools(world_client, POOL_DETAILS, "balancer", [world.tokens["TKN"], world.gauge, world.vault])
    assert refused["data"] == []
    for error, address in zip(refused["errors"], (world.tokens["TKN"], world.gauge, world.vault)):
        assert (error["poolAddress"], error["error"]["code"]) == (address, "VALIDATION_ERROR")
        assert error["error"]["message"] == (
            f"{address} is not a pool of Balancer's v2 Vault {world.vault} nor registered in its v3 Vault "
            f"{v3.vault} on chain 31337 at block {block}. Expected a Balancer pool's address (its BPT)."
        )


CHILD_CHAIN_GAUGE = {
    "lp_token()": ("address",),
    "totalSupply()": ("uint256",),
    "is_killed()": ("bool",),
    "reward_count()": ("uint256",),
    "reward_tokens(uint256)": ("address",),
    "reward_data(address)": ("(address,uint256,uint256,uint256,uint256)",),
    "inflation_rate(uint256)": ("uint256",),
    "claimable_tokens(address)": ("uint256",),
    "claimable_reward(address,address)": ("uint256",),
}
"""The L2s' ChildChainGauge's views the adapter reads, as Balancer's deployments repository
publishes its ABI (balancer/balancer-deployments at 6826feb824e5b279a2b06b7b0d7923f7e82eef0e,
v2/tasks/20230316-child-chain-gauge-factory-v2/artifact/ChildChainGauge.json; the npm package
predates it): its Reward has no token (distributor, period_finish, rate, last_update, integral)
and its `inflation_rate` takes a week; the rest are LiquidityGaugeV5's."""


def test_the_adapter_reads_balancers_published_abis():
    """Every function the adapter calls, with its outputs, as the package's ABIs publish it; the
    events' topics are those of the published events."""
    abis = {
        "vault": balancer_abi("20210418-vault", "Vault"),
        "weighted": balancer_abi("20230206-weighted-pool-v3", "WeightedPool"),
        "stable": balancer_abi("20230206-composable-stable-pool-v3", "ComposableStablePool"),
        "gauge": balancer_abi("20220822-mainnet-gauge-factory-v2", "LiquidityGaugeV5"),
        "minter": balancer_abi("20220325-gauge-controller", "BalancerMinter"),
    }
    where = {
        "GET_POOL_TOKENS": "vault",
        "GET_POOL_ID": "weighted",
        "GET_ACTUAL_SUPPLY": "stable",
        "TOTAL_SUPPLY": "weighted",
        "GET_BPT_INDEX": "stable",
        "GET_NORMALIZED_WEIGHTS": "weighted",
        "GET_AMPLIFICATION_PARAMETER": "stable",
        "LP_TOKEN": "gauge",
        "CLAIMABLE_TOKENS": "gauge",
        "REWARD_COUNT": "gauge",
        "REWARD_TOKENS": "gauge",
        "CLAIMABLE_REWARD": "gauge",
        "GET_POOL": "vault",
        "GET_SWAP_FEE_PERCENTAGE": "weighted",
        "REWARD_DATA": "gauge",
        "CHILD_REWARD_DATA": "child gauge",
        "INFLATION_RATE": "gauge",
        "IS_KILLED": "gauge",
        "MINTED_SO_FAR": "minter",
    }
    abis["v3 vault"] = compile_v3()["VaultExtension"].abi
    abis["v3 weighted"] = compile_v3()["WeightedPool"].abi
    abis["v3 stable"] = compile_v3()["StablePool"].abi
    abis["v3 lbp"] = compile_v3()["LBPool"].abi
    abis["v3 fixed lbp"] = compile_v3()["FixedPriceLBPool"].abi
    abis["gyro e-clp"] = compile_v3()["IGyroECLPPool"].abi
    abis["gyro 2-clp"] = compile_v3()["IGyro2CLPPool"].abi
    where.update(
        {
            "LBP_IMMUTABLE_DATA": "v3 lbp",
            "LBP_DYNAMIC_DATA": "v3 lbp",
            "FIXED_LBP_IMMUTABLE_DATA": "v3 fixed lbp",
            "FIXED_LBP_DYNAMIC_DATA": "v3 fixed lbp",
            "GYRO_ECLP_PARAMS": "gyro e-clp",
            "GYRO_2CLP_IMMUTABLE_DATA": "gyro 2-clp",
            "RECLAMM_DYNAMIC_DATA": "reclamm",
            "V3_GET_POOL_TOKEN_INFO": "v3 vault",
            "V3_GET_CURRENT_LIVE_BALANCES": "v3 vault",
            "V3_GET_POOL_TOKEN_RATES": "v3 vault",
            "V3_TOTAL_SUPPLY": "v3 vault",
            "V3_IS_POOL_REGISTERED": "v3 vault",
            "V3_GET_STATIC_SWAP_FEE_PERCENTAGE": "v3 vault",
        }
    )
    signatures = {name: function_signatures(abi) for name, abi in abis.items()} | {
        "child gauge": CHILD_CHAIN_GAUGE,
        "reclamm": {"getReClammPoolDynamicData()": (RECLAMM_DYNAMIC_DATA,)},
    }
    functions = functions_of(contracts)
    assert set(functions) == set(where)
    for name, function in functions.items():
        assert signatures[where[name]][function.signature] == tuple(function.output_types), name
    shared = ("lp_token()", "totalSupply()", "is_killed()", "reward_count()", "reward_tokens(uint256)")
    assert all(signatures["gauge"][view] == CHILD_CHAIN_GAUGE[view] for view in shared)
    assert "inflation_rate()" not in CHILD_CHAIN_GAUGE
    assert function_signatures(abis["v3 weighted"])["getNormalizedWeights()"] == ("uint256[]",)
    amp = contracts.GET_AMPLIFICATION_PARAMETER
    assert function_signatures(abis["v3 stable"])[amp.signature] == tuple(amp.output_types)
    assert function_signatures(abis["weighted"])["getActualSupply()"] == ("uint256",)
    (claimable,) = [e for e in abis["gauge"] if e.get("name") == "claimable_tokens"]
    assert claimable["stateMutability"] == "nonpayable", "read by eth_call, last in the lens"

    def events(task: str, contract: str) -> set[str]:
        return {
            f"{e['name']}({','.join(i['type'] for i in e['inputs'])})"
            for e in balancer_abi(task, contract)
            if e["type"] == "event"
        }

    assert contracts.POOL_REGISTERED.signature in events("20210418-vault", "Vault")
    v3_events = {
        f"{e['name']}({','.join(abi_type(i) for i in e['inputs'])})" for e in abis["v3 vault"] if e["type"] == "event"
    }
    assert contracts.V3_POOL_REGISTERED.signature in v3_events
    assert contracts.GAUGE_CREATED.signature in events("20220822-mainnet-gauge-factory-v2", "LiquidityGaugeFactory")
    assert contracts.GAUGE_CREATED_V1.signature in events("20220325-mainnet-gauge-factory", "LiquidityGaugeFactory")
    assert balancer.LENS.name == "BalancerLens"


CHAINS = {"1": "mainnet", "42161": "arbitrum", "10": "optimism", "137": "polygon", "43114": "avalanche"}
"""The served chains `@balancer-labs/v2-deployments` 3.2.0 has deployments on, by its network names."""
RECORDED = {
    "8453": {"Vault": "0xba12222222228d8ba445958a75a0704d566bf2c8", "BAL": "0x4158734d47fc9692176b5085e0f52ee0da5d47f1"}
}
"""What Balancer's deployments repository records on served chains the package predates:
balancer/balancer-deployments at 6826feb824e5b279a2b06b7b0d7923f7e82eef0e,
v2/tasks/20210418-vault/output/base.json and v2/tasks/00000000-tokens/output/base.json."""
NEWER_BAL = {"43114": "0xe15bcb9e0ea69e6ab9fa080c4c4a5632896298c3"}
"""Where Balancer's BAL moved after the package: Avalanche's is the LayerZero BAL since 2023 (the
same repository at the same commit, v2/tasks/00000000-tokens/output/avalanche.json; the package's
0x8239... is now under v2/deprecated/00000000-avax-tokens, and the 20230811 Avalanche root gauge
factory bridges the LayerZero BAL that its gauges pay)."""
CHILD_CHAIN_GAUGE_FACTORIES = {
    "42161": "0x6817149cb753bf529565b4d023d7507ed2ff4bc0",
    "10": "0xa523f47a933d5020b23629ddf689695aa94612dc",
    "137": "0x22625eedd92c81a219a83e1dc48f88d54786b017",
    "43114": "0xf23b4db826dba14c0e857029dff076b1c0264843",
    "8453": "0xb1a4fe1c6d25a0ddab47431a92a723dd71d9021f",
}
"""The ChildChainGaugeFactory v2 of each L2, as the same repository at the same commit records it
(v2/tasks/20230316-child-chain-gauge-factory-v2/output/<network>.json); the package predates it.
Its ChildChainGauge's artifact there has the views positions read with the same signatures and
outputs as LiquidityGaugeV5 (`claimable_tokens` nonpayable too; its `reward_data` and
`inflation_rate` differ: CHILD_CHAIN_GAUGE), and the factory emits the same
`GaugeCreated(address indexed gauge)`."""
GAUGE_FACTORY_TASKS = ("20220325-mainnet-gauge-factory", "20220822-mainnet-gauge-factory-v2")


def test_every_balancer_registry_is_the_packages():
    """Against `@balancer-labs/v2-deployments` 3.2.0 (dist/tasks/<task>/output/<network>.json):
    the Vault, every gauge factory and BAL listed on a served chain are the package's (what the
    package predates, the deployments repository's, recorded above); on Ethereum every gauge
    factory the package records is listed, on an L2 its child-chain gauge factory v2."""
    files = pack("@balancer-labs/v2-deployments")
    data = json.loads(BUILT_IN.read_text())

    def output(task: str, chain: str) -> dict[str, str]:
        if chain in RECORDED:
            return RECORDED[chain]
        path = f"dist/tasks/{task}/output/{CHAINS[chain]}.json"
        found = json.loads(files[path]) if path in files else {}
        return {name: address.lower() for name, address in found.items() if isinstance(address, str)}

    served = {chain for chain in data if "balancer" in data[chain]}
    assert served == {*CHAINS, *RECORDED}
    for chain in sorted(served):
        section = data[chain]["balancer"]
        assert section["v2Vault"]["address"].lower() == output("20210418-vault", chain)["Vault"], chain
        assert section["bal"].lower() == NEWER_BAL.get(chain, output("00000000-tokens", chain)["BAL"]), chain
        factories = {factory["address"].lower() for factory in section["gaugeFactories"]}
        if chain == "1":
            published = {output(task, chain).get("LiquidityGaugeFactory") for task in GAUGE_FACTORY_TASKS} - {None}
            assert factories == published
        else:
            assert factories == {CHILD_CHAIN_GAUGE_FACTORIES[chain]}, chain


V3_CHAINS = {"1", "42161", "10", "43114", "8453"}
"""The served chains where `@balancer/sdk` 6.1.1 lists Balancer v3's Vault (not Polygon)."""
V3_START_BLOCKS = {"1": 21332121, "42161": 297810187, "10": 133969431, "43114": 59955604, "8453": 25343854}
"""The v3 Vault's start block by chain, as Balancer's own v3 subgraph records it:
balancer/balancer-subgraph-v3 at 0e85a46fe9d5fa438a704f1f8ad4f640306390ee, networks.json (`Vault`)."""


def test_every_balancer_v3_vault_is_the_sdks():
    """Against `@balancer/sdk` 6.1.1 (dist/index.js, `balancerV3Contracts.Vault` by chain id): a
    v3 Vault is listed on exactly the served chains the SDK lists one on, at the SDK's address."""
    source = pack("@balancer/sdk")["dist/index.js"].decode()
    contracts_v3 = source[source.index("var balancerV3Contracts = {") :]
    block = contracts_v3[contracts_v3.index("\n  Vault: {") :]
    block = block[: block.index("\n  }")]
    published = {
        chain: address.lower() for chain, address in re.findall(r'\[(\d+) /\* \w+ \*/\]: "(0x[0-9a-fA-F]{40})"', block)
    }
    data = json.loads(BUILT_IN.read_text())
    served = {chain for chain in data if "balancer" in data[chain]}
    listed = {chain: data[chain]["balancer"]["v3Vault"] for chain in served if "v3Vault" in data[chain]["balancer"]}
    assert set(listed) == served & set(published) == V3_CHAINS
    for chain, vault in listed.items():
        assert vault["address"].lower() == published[chain], chain
        assert vault["startBlock"] == V3_START_BLOCKS[chain], chain


FINALITY = 65
"""anvil's `finalized` tag is 64 blocks behind the head."""


async def test_a_query_is_one_lens_call_beside_the_index_tail(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path
):
    """Warm, and the world's events finalized (the index stores them: the lens is built from the
    store's keys), a new block's answer for the lp wallet (two v2 and two v3 pools' BPT, two gauge stakes) is its
    header, then one eth_call (the lens: every pool's, gauge's and feed's read) beside the event
    index's tail (eth_getLogs and the finalized block's header), and no other call."""
    proxy, api = await proxied_api(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path)
    world.node.mine(FINALITY)
    await answer(api, world.wallets["lp"])
    world.node.mine()
    before = len(proxy.posts)
    entry = await answer(api, world.wallets["lp"])
    assert len(entry["poolPositions"]) == 5 and len(entry["gaugePositions"]) == 2
    header, *rest = proxy.posts[before:]
    items = [item for post in rest for item in (post if isinstance(post, list) else [post])]
    calls = [item for item in items if item["method"] == "eth_call"]
    assert header["method"] == "eth_getBlockByNumber"
    assert len(calls) == 1 and "to" not in calls[0]["params"][0]
    assert {item["method"] for item in items} <= {"eth_call", "eth_getLogs", "eth_getBlockByNumber"}
