"""PancakeSwap v3 against PancakeSwap's own contracts (tests/pancakeswap_world.py): every position,
held or staked in MasterChefV3, at every step equals PancakeSwap's SDK (`@pancakeswap/v3-sdk`) and
the position manager's own answers (`collect` and `decreaseLiquidity` asked as static calls at the
same block, by the NFT's owner), and each staked NFT's CAKE is MasterChefV3's own `pendingCake`."""

from __future__ import annotations

from typing import Any

import eth_abi
import pytest

from adapters import tick_math
from adapters.pancakeswap import contracts as pancake_contracts
from adapters.uniswap import contracts
from chain.keccak import keccak256
from tests import pancakeswap_world as P
from tests import uniswap_world as U
from tests.conftest import world_api, world_fixture
from tests.evm import abi_type, calldata, functions_of
from tests.node_oracles import ask
from tests.null_figures import failed
from tests.rpc_proxy import RpcProxy
from tests.test_uniswap import TOKEN, figures, oracle_request, token, usd, withdrawn_uncollected
from tests.test_uniswap import answer as uniswap_answer

POSITION = f"""type tokenId positionManager farm pool hooks token0 {TOKEN} token1 {TOKEN} feeTier tickSpacing
  tickLower tickUpper tickCurrent sqrtPriceX96 priceLower priceUpper priceCurrent inRange liquidity amount0 amount1
  uncollectedFees0 uncollectedFees1 principalOwed0 principalOwed1 valueUsd"""
QUERY = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
  data {{ ... on PancakeswapWalletPositions {{ protocol blockNumber warnings {{ code message target }}
    positions {{ {POSITION} }}
    farmRewards {{ tokenId farm rewardToken {TOKEN} pending pendingUsd category legs {{ role key amount usd }} }}
  }} }}
  errors {{ error {{ code message }} }} }} }}"""

world = world_fixture(P.build)


async def answer(api: Any, wallet: str, block: int | None = None) -> dict[str, Any]:
    return await uniswap_answer(api, wallet, block, "pancakeswap", QUERY)


def static_call(
    world: P.PancakeWorld, sender: str, to: str, signature: str, args: tuple[Any, ...], block: int
) -> tuple[int, int]:
    call = {"from": sender, "to": to, "data": "0x" + calldata(signature, *args).hex()}
    return eth_abi.decode(["uint256", "uint256"], bytes.fromhex(world.node.rpc("eth_call", call, hex(block))[2:]))


async def test_every_position_held_or_staked_equals_the_sdk_and_the_managers_own_answers(world_client, world):
    """At every step: the NFTs the wallet owns, then those the farm holds for it; each one's
    figures as PancakeSwap's SDK computes them, its amounts as `decreaseLiquidity` of its whole
    liquidity pays them and its fees as `collect` pays them less the principal owed, both asked of
    the manager by the NFT's owner (the farm's too)."""
    wallet, chef = world.wallets["lp"], world.master_chef
    for block in world.steps + world.farm_steps:
        entry = await answer(world_client, wallet, block)
        assert failed(entry["warnings"]) == [] and entry["blockNumber"] == block
        staked = sorted(world.staked.values()) if block >= world.farm_steps[0] else []
        listed = entry["positions"]
        assert [int(p["tokenId"]) for p in listed if p["farm"] == chef] == staked, block
        held = [int(p["tokenId"]) for p in listed if p["farm"] is None]
        assert held and all(i not in staked for i in held)
        requests = [oracle_request(world, int(position["tokenId"]), block) for position in listed]
        for position, request, sdk in zip(
            listed, requests, ask("uniswap_sdk.cjs", [{**request, "sdk": "pancakeswap"} for request in requests])
        ):
            token_id, owner = int(position["tokenId"]), chef if position["farm"] else wallet
            liquidity = int(position["liquidity"])
            paid = (
                static_call(world, owner, world.manager, U.DECREASE, ((token_id, liquidity, 0, 0, U.FOREVER),), block)
                if liquidity
                else (0, 0)
            )
            collect = ((token_id, owner, U.UINT128_MAX, U.UINT128_MAX),)
            paid_out = static_call(world, owner, world.manager, U.COLLECT, collect, block)
            owed = withdrawn_uncollected(world, token_id, block)
            fees = (paid_out[0] - owed[0], paid_out[1] - owed[1])
            assert (int(sdk["amount0"]), int(sdk["amount1"])) == paid, (block, token_id)
            assert (int(sdk["fees0"]), int(sdk["fees1"])) == paid_out, (block, token_id)
            assert {key: position[key] for key in figures(request, sdk, paid, fees, owed)} == figures(
                request, sdk, paid, fees, owed
            ), (block, token_id)
            assert position["type"] == "pancakeswap-v3-position"
            assert position["pool"] == world.pools[position["feeTier"]]
            assert position["tickSpacing"] == P.SPACING[position["feeTier"]]
            assert position["token0"] == token(world, world.token0)
            assert position["valueUsd"] == usd(world, *paid)


async def test_each_staked_nft_earns_the_farms_own_pending_cake(world_client, world):
    """farmRewards is MasterChefV3's `pendingCake` of each staked NFT at the block, in USD by
    CAKE's feed: what the LM pool last accumulated, which its `harvest` pays with what accrued
    since (asked as a static call there); every staked NFT is listed, with 0 where nothing is
    accumulated for it (an hour with no swap) or right after its harvest."""
    wallet, chef = world.wallets["lp"], world.master_chef
    seen = {}
    for block in world.farm_steps[1:]:
        entry = await answer(world_client, wallet, block)
        for reward in entry["farmRewards"]:
            token_id = int(reward["tokenId"])
            pending = world.pending(token_id, block)
            call = {
                "from": wallet,
                "to": chef,
                "data": "0x" + calldata("harvest(uint256,address)", token_id, wallet).hex(),
            }
            harvested = int(world.node.rpc("eth_call", call, hex(block)), 16)
            assert int(reward["pending"]) == pending and harvested >= pending
            cake = pending * P.CAKE_USD / 10**26
            assert reward["pendingUsd"] == pytest.approx(cake, rel=1e-12)
            assert reward["farm"] == chef and reward["rewardToken"]["symbol"] == "Cake"
            assert reward["category"] == "REWARDS" and [leg["role"] for leg in reward["legs"]] == ["REWARD"]
            seen.setdefault(block, {})[token_id] = pending
    idle, swapped, harvested_at = world.farm_steps[1:]
    staked = set(world.staked.values())
    assert seen[idle] == dict.fromkeys(staked, 0), "an hour with nothing accumulated: the farm's view owes nothing yet"
    assert set(seen[swapped]) == staked and all(seen[swapped].values()), "the swap accumulated the hour"
    assert seen[harvested_at][world.staked["harvested"]] == 0 < seen[harvested_at][world.staked["ranged"]]


async def test_a_farm_view_that_reverts_leaves_its_rewards_out_named(world_client, world):
    """MasterChefV3's `pendingCake` calls the pool's LM pool: where that reverts (here an LM pool
    with no such view), each staked NFT's CAKE is left out with a PART_UNREADABLE warning naming
    it, and every position, held or staked, is still answered."""
    node, pool = world.node, world.pools[world.main_fee]
    snapshot = node.rpc("evm_snapshot")
    try:
        node.send(world.factory, "setLmPool(address,address)", pool, world.factory)
        entry = await answer(world_client, world.wallets["lp"])
    finally:
        node.rpc("evm_revert", snapshot)
    assert entry["farmRewards"] == []
    assert {int(p["tokenId"]) for p in entry["positions"] if p["farm"]} == set(world.staked.values())
    named = sorted(w["target"] for w in entry["warnings"] if w["code"] == "PART_UNREADABLE")
    assert named == sorted(f"{world.master_chef} #{token_id}" for token_id in world.staked.values()), entry["warnings"]


def test_the_pools_are_where_pancakeswaps_init_code_hash_puts_them(world):
    """The stand-in deployer CREATE2s the published pool bytecode with PancakeSwap's salt: each
    pool is at the address the manager and the SDK compute with the init code hash, the bytecode's
    keccak (tests/test_addresses.py holds the SDK's hash to it)."""
    code = P.published(P.CORE, "PancakeV3Pool.sol/PancakeV3Pool.json").bytecode
    for fee, pool in world.pools.items():
        salt = keccak256(eth_abi.encode(["address", "address", "uint24"], [world.token0, world.token1, fee]))
        packed = b"\xff" + bytes.fromhex(world.pool_deployer[2:]) + salt + keccak256(bytes.fromhex(code[2:]))
        assert "0x" + keccak256(packed)[12:].hex() == pool


def test_the_adapter_reads_pancakeswaps_published_abi():
    """Every function the adapter calls of PancakeSwap's contracts, as in their published ABIs
    (`@pancakeswap/v3-core`, v3-periphery, masterchef-v3): Uniswap v3's reads hold for PancakeSwap's
    manager, factory and pool but `slot0`, which PancakeSwap's own reads."""
    import json

    from tests.node_oracles import pack

    def outputs(package: str, path: str) -> dict[str, tuple[str, ...]]:
        abi = json.loads(pack(package)[f"artifacts/contracts/{path}"])["abi"]

        def spelled(entry: dict[str, Any]) -> str:
            return f"{entry['type']} {entry['name']}" if entry["name"] else entry["type"]

        return {
            f"{e['name']}({','.join(abi_type(arg) for arg in e['inputs'])})": tuple(map(spelled, e["outputs"]))
            for e in abi
            if e.get("type") == "function"
        }

    manager = outputs(P.PERIPHERY, "NonfungiblePositionManager.sol/NonfungiblePositionManager.json")
    factory = outputs(P.CORE, "PancakeV3Factory.sol/PancakeV3Factory.json")
    pool = outputs(P.CORE, "PancakeV3Pool.sol/PancakeV3Pool.json")
    chef = outputs(P.MASTERCHEF, "MasterChefV3.sol/MasterChefV3.json")
    v3 = {
        **dict.fromkeys(["TOKEN_OF_OWNER_BY_INDEX", "POSITIONS"], manager),
        "GET_POOL": factory,
        **dict.fromkeys(["PANCAKESWAP_SLOT0", "TICKS", "TOKEN0", "TOKEN1", "FEE", "TICK_SPACING", "LIQUIDITY"], pool),
    }
    functions = functions_of(contracts)
    for name, abi in v3.items():
        assert abi[functions[name].signature] == functions[name].outputs, name
    for i, function in enumerate(contracts.FEE_GROWTH_GLOBAL):
        assert pool[function.signature] == function.outputs, i
    for name, function in functions_of(pancake_contracts).items():
        assert chef[function.signature] == function.outputs, name
    assert chef["tokenOfOwnerByIndex(address,uint256)"] == ("uint256",)


async def test_held_and_staked_nfts_are_read_in_one_round_of_two_lens_calls(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path
):
    """The NFTs the wallet owns and those the farm holds for it, with their pools, tokens, CAKE
    and feeds: two UniswapLens calls in one request, and no read outside them."""
    proxy = RpcProxy(world.node.url)
    proxied = await aiohttp_server(proxy.app(), host="127.0.0.1")
    path = world.write_addresses(tmp_path / "a.json")
    api = await world_api(aiohttp_client, keys_file, api_key, path, world.node, url=str(proxied.make_url("/")))
    await answer(api, world.wallets["lp"])
    world.node.mine()
    proxy.posts.clear()
    entry = await answer(api, world.wallets["lp"])
    assert {p["farm"] for p in entry["positions"]} == {None, world.master_chef} and entry["farmRewards"]
    calls = proxy.calls("eth_call")
    assert [call for call in calls if "to" in call["params"][0]] == [], "every read came from a tape"
    assert len(calls) == 2, "one lens call for the wallet's NFTs, one for the farm's"
    (batch,) = [post for post in proxy.posts if isinstance(post, list) and calls[0] in post]
    assert calls[1] in batch, "in one round"


async def test_pool_details_are_the_pools_own_state(world_client, world):
    """A PancakeSwap pool by its address, as a Uniswap v3 pool with PancakeSwap's slot0; an
    address its factory did not create is refused, saying what was expected."""
    pool = world.pools[world.main_fee]
    query = f"""query($inputs: [PoolInput!]!) {{ poolDetails(inputs: $inputs) {{
      data {{ blockNumber warnings {{ code }} details {{ ... on UniswapPool {{ type poolAddress feeTier tickSpacing
        tickCurrent sqrtPriceX96 price activeLiquidity balance0 balance1 tvlUsd token0 {TOKEN} }} }} }}
      errors {{ error {{ code message }} }} }} }}"""
    asked = {"protocol": "pancakeswap", "chainId": 31337}
    reply = await world_client.query(query, {"inputs": [{**asked, "poolAddress": pool}]})
    (found,) = reply.body["data"]["poolDetails"]["data"]
    block, node = found["blockNumber"], world.node
    sqrt_price, tick = world.slot0(world.main_fee, block)
    balances = [node.call(token, "balanceOf(address)", pool, block=block) for token in (world.token0, world.token1)]
    decimals = [token(world, address)["decimals"] for address in (world.token0, world.token1)]
    assert found["details"] == {
        "type": "pancakeswap-v3-pool",
        "poolAddress": pool,
        "feeTier": world.main_fee,
        "tickSpacing": P.SPACING[world.main_fee],
        "tickCurrent": tick,
        "sqrtPriceX96": str(sqrt_price),
        "price": float(tick_math.price(sqrt_price, *decimals)),
        "activeLiquidity": str(node.call(pool, "liquidity()", block=block)),
        "balance0": str(balances[0]),
        "balance1": str(balances[1]),
        "tvlUsd": usd(world, *balances),
        "token0": token(world, world.token0),
    }
    assert found["warnings"] == []
    reply = await world_client.query(query, {"inputs": [{**asked, "poolAddress": world.manager}]})
    (error,) = reply.body["data"]["poolDetails"]["errors"]
    assert error["error"]["code"] == "VALIDATION_ERROR"
    assert "is not a PancakeSwap v3 pool" in error["error"]["message"], error
