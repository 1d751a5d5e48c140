"""Uniswap v3 and v4 against Uniswap's own contracts (tests/uniswap_world.py): every position at
every step of the trader's swaps equals Uniswap's SDKs (@uniswap/v3-sdk, @uniswap/v4-sdk) and the
position managers' own answers: v3's `collect` and `decreaseLiquidity` asked as static calls at
the same block, v4's payouts of `modifyLiquidities` measured at each step."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import eth_abi
import pytest
from eth_hash.auto import keccak

import protocols
import server
from adapters import tick_math
from adapters.uniswap import contracts
from adapters.uniswap import positions as uniswap
from adapters.uniswap.section import UNISWAP
from chain.erc20 import NATIVE
from tests import uniswap_world as U
from tests.conftest import until_indexed, world_api, world_fixture
from tests.evm import abi_type, calldata, functions_of, published_artifact
from tests.node_oracles import ask
from tests.null_figures import failed
from tests.rpc_proxy import RpcProxy

TOKEN = "{ address symbol name decimals }"
QUERY = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
  data {{ ... on UniswapWalletPositions {{ protocol walletAddress chainId blockNumber warnings {{ code message target }}
    positions {{ type tokenId positionManager pool hooks token0 {TOKEN} token1 {TOKEN} feeTier tickSpacing tickLower
      tickUpper tickCurrent
      sqrtPriceX96 priceLower priceUpper priceCurrent inRange liquidity amount0 amount1 uncollectedFees0
      uncollectedFees1 principalOwed0 principalOwed1 valueUsd uncollectedFeesUsd principalOwedUsd amount0Usd
      amount1Usd uncollectedFees0Usd uncollectedFees1Usd principalOwed0Usd principalOwed1Usd }} }} }}
  errors {{ error {{ code message }} }} }} }}"""
POOL_QUERY = f"""query($inputs: [PoolInput!]!) {{ poolDetails(inputs: $inputs) {{
  data {{ blockNumber warnings {{ code }} details {{ ... on UniswapPool {{ type poolAddress poolId hooks chainId
    token0 {TOKEN} token1 {TOKEN} feeTier tickSpacing tickCurrent sqrtPriceX96 price activeLiquidity balance0 balance1
    tvlUsd }} }} }}
  errors {{ poolAddress error {{ code message }} }} }} }}"""
TICKS = ("uint128", "int128", "uint256", "uint256", "int56", "uint160", "uint32", "bool")
DECREASED, COLLECTED = (
    "0x" + keccak(event.encode()).hex()
    for event in ("DecreaseLiquidity(uint256,uint128,uint256,uint256)", "Collect(uint256,address,uint256,uint256)")
)

world = world_fixture(U.build)


async def answer(
    api: Any, wallet: str, block: int | None = None, protocol: str = "uniswap", query: str = QUERY
) -> dict[str, Any]:
    """The one input's entry (`protocol` on the test chain, asked with `query`); no error."""
    at = {} if block is None else {"blockNumber": block}
    inputs = [{"protocol": protocol, "chainId": 31337, "walletAddress": wallet, **at}]
    reply = await api.query(query, {"inputs": inputs})
    assert reply.status == 200, reply.body
    found = reply.body["data"]["walletPositions"]
    assert found["errors"] == [], found["errors"]
    (entry,) = found["data"]
    return dict(entry)


def static_call(world: U.UniswapWorld, signature: str, args: tuple[Any, ...], returns: list[str], block: int) -> Any:
    """The manager's answer to a call the wallet could send at `block`, asked with eth_call."""
    data = "0x" + calldata(signature, *args).hex()
    call = {"from": world.wallets["lp"], "to": world.manager, "data": data}
    return eth_abi.decode(returns, bytes.fromhex(world.node.rpc("eth_call", call, hex(block))[2:]))


def withdrawn_uncollected(world: U.UniswapWorld, token_id: int, block: int) -> tuple[int, int]:
    """What the manager's DecreaseLiquidity events moved to the NFT's tokens owed since its last
    Collect, up to `block` (the world's collects take everything owed)."""
    logs = world.node.rpc(
        "eth_getLogs",
        {"address": world.manager, "fromBlock": "0x0", "toBlock": hex(block), "topics": [[DECREASED, COLLECTED]]},
    )
    owed = (0, 0)
    for log in logs:
        if int(log["topics"][1], 16) != token_id:
            continue
        amounts = eth_abi.decode(["uint256", "uint256"], bytes.fromhex(log["data"][2 + 64 :]))  # after the first word
        owed = (0, 0) if log["topics"][0] == COLLECTED else (owed[0] + amounts[0], owed[1] + amounts[1])
    return owed


def oracle_request(world: U.UniswapWorld, token_id: int, block: int) -> dict[str, Any]:
    """What the SDK needs of a position, read from the chain at `block` by the test's own ABI code."""
    node = world.node
    position = node.call(
        world.manager,
        "positions(uint256)",
        token_id,
        returns=U.POSITION,
        block=block,
    )
    fee, lower, upper = position[4], position[5], position[6]
    pool = world.pools[fee]
    sqrt_price, tick = world.slot0(fee, block)
    ends = [node.call(pool, "ticks(int24)", t, returns=TICKS, block=block) for t in (lower, upper)]
    decimals = {world.tokens["WETH"]: 18, world.tokens["USDC"]: 6}
    return {
        "chainId": 31337,
        "token0": {"address": world.token0, "decimals": decimals[world.token0]},
        "token1": {"address": world.token1, "decimals": decimals[world.token1]},
        "fee": fee,
        "sqrtPriceX96": str(sqrt_price),
        "tick": tick,
        "poolLiquidity": str(node.call(pool, "liquidity()", block=block)),
        "liquidity": str(position[7]),
        "tickLower": lower,
        "tickUpper": upper,
        "lower": [str(ends[0][2]), str(ends[0][3])],
        "upper": [str(ends[1][2]), str(ends[1][3])],
        "feeGrowthGlobal": [str(node.call(pool, f"feeGrowthGlobal{i}X128()", block=block)) for i in (0, 1)],
        "feeGrowthInsideLast": [str(position[8]), str(position[9])],
        "tokensOwed": [str(position[10]), str(position[11])],
    }


def figures(
    request: dict[str, Any],
    sdk: dict[str, Any],
    amounts: tuple[int, int],
    fees: tuple[int, int],
    owed: tuple[int, int] = (0, 0),
) -> dict[str, Any]:
    """The fields both versions' positions share, as the chain, the SDK and the manager give them."""
    return {
        "tickLower": request["tickLower"],
        "tickUpper": request["tickUpper"],
        "tickCurrent": request["tick"],
        "sqrtPriceX96": request["sqrtPriceX96"],
        "priceLower": exact(sdk["priceLower"]),
        "priceUpper": exact(sdk["priceUpper"]),
        "priceCurrent": exact(sdk["priceCurrent"]),
        "inRange": request["tickLower"] <= request["tick"] < request["tickUpper"],
        "liquidity": request["liquidity"],
        "amount0": str(amounts[0]),
        "amount1": str(amounts[1]),
        "uncollectedFees0": str(fees[0]),
        "uncollectedFees1": str(fees[1]),
        "principalOwed0": str(owed[0]),
        "principalOwed1": str(owed[1]),
    }


def token(world: U.UniswapWorld, address: str) -> dict[str, Any]:
    """The TokenInfo a position names, as the test world made the token."""
    if address in (U.ZERO, NATIVE):
        return {"address": NATIVE, "symbol": "ETH", "name": "Ether", "decimals": 18}
    symbol = next(symbol for symbol, a in world.tokens.items() if a == address)
    name, decimals = {"WETH": ("Wrapped Ether", 18), "USDC": ("USD Coin", 6)}[symbol]
    return {"address": address, "symbol": symbol, "name": name, "decimals": decimals}


def exact(price: dict[str, str]) -> float:
    return float(Fraction(int(price["numerator"]), int(price["denominator"])))


def usd(world: U.UniswapWorld, amount0: int, amount1: int) -> float:
    answers = {world.tokens["WETH"]: (U.WETH_USD, 18), world.tokens["USDC"]: (U.USDC_USD, 6)}
    return float(
        sum(
            Fraction(amount * answers[token][0], 10 ** (answers[token][1] + 8))
            for token, amount in ((world.token0, amount0), (world.token1, amount1))
        )
    )


def parts(
    world: U.UniswapWorld,
    amounts: tuple[int, int],
    fees: tuple[int, int],
    native: bool = False,
    owed: tuple[int, int] = (0, 0),
) -> dict[str, float | None]:
    """Each token's part of valueUsd, uncollectedFeesUsd and principalOwedUsd; none for the
    native coin (token0), which has no feed here."""
    return {
        f"{name}{side}Usd": None if native and side == 0 else usd(world, *(pair[0], 0) if side == 0 else (0, pair[1]))
        for name, pair in (("amount", amounts), ("uncollectedFees", fees), ("principalOwed", owed))
        for side in (0, 1)
    }


async def test_every_position_at_every_step_equals_the_sdk_and_the_managers_own_answers(world_client, world):
    """Amounts and prices as the SDK computes them; what collecting pays as the SDK computes it and
    as `collect` pays it, less the principal withdrawn and not collected (the manager's
    DecreaseLiquidity events since its last Collect), which is principalOwed; amounts as
    `decreaseLiquidity` of the whole liquidity pays them."""
    wallet = world.wallets["lp"]
    for step, block in enumerate(world.steps):
        entry = await answer(world_client, wallet, block)
        assert failed(entry["warnings"]) == [] and entry["blockNumber"] == block
        final = step == len(world.steps) - 1
        held = sorted(v for k, v in world.ids.items() if k != "closed") if final else list(range(1, 9))
        listed = entry["positions"]
        assert [p["type"] for p in listed] == ["uniswap-v3-position"] * len(held), "v4 comes later"
        assert [int(p["tokenId"]) for p in listed] == held, step
        requests = [oracle_request(world, token_id, block) for token_id in held]
        for position, request, sdk in zip(listed, requests, ask("uniswap_sdk.cjs", requests)):
            token_id = int(position["tokenId"])
            paid_out = static_call(
                world, U.COLLECT, ((token_id, wallet, U.UINT128_MAX, U.UINT128_MAX),), ["uint256"] * 2, block
            )
            owed = withdrawn_uncollected(world, token_id, block)
            fees = (paid_out[0] - owed[0], paid_out[1] - owed[1])
            liquidity = int(request["liquidity"])
            paid = (
                static_call(world, U.DECREASE, ((token_id, liquidity, 0, 0, U.FOREVER),), ["uint256"] * 2, block)
                if liquidity
                else (0, 0)
            )
            amounts = (int(sdk["amount0"]), int(sdk["amount1"]))
            assert amounts == paid, (step, token_id)
            assert (int(sdk["fees0"]), int(sdk["fees1"])) == paid_out, (step, token_id)
            assert position == {
                "type": "uniswap-v3-position",
                "tokenId": str(token_id),
                "positionManager": world.manager,
                "pool": world.pools[request["fee"]],
                "hooks": None,
                "token0": token(world, world.token0),
                "token1": token(world, world.token1),
                "feeTier": request["fee"],
                "tickSpacing": U.SPACING[request["fee"]],
                **figures(request, sdk, amounts, fees, owed),
                "valueUsd": usd(world, *amounts),
                "uncollectedFeesUsd": usd(world, *fees),
                "principalOwedUsd": usd(world, *owed),
                **parts(world, amounts, fees, owed=owed),
            }


async def test_principal_withdrawn_and_not_collected_is_not_fees(world_client, world):
    """The NFT partly withdrawn and not collected: its principal owed is what `decreaseLiquidity`
    paid (asked just before it, and its event), its uncollected fees what `collect` paid just
    before it (no swap in its pool since), and the two are what `collect` pays now."""
    wallet, token_id, final = world.wallets["lp"], world.ids["partly"], world.steps[-1]
    (log,) = [
        log
        for log in world.node.rpc("eth_getLogs", {"address": world.manager, "fromBlock": "0x0", "topics": [DECREASED]})
        if int(log["topics"][1], 16) == token_id
    ]
    before = int(log["blockNumber"], 16) - 1
    liquidity, *withdrawn = eth_abi.decode(["uint128", "uint256", "uint256"], bytes.fromhex(log["data"][2:]))
    collect = ((token_id, wallet, U.UINT128_MAX, U.UINT128_MAX),)
    principal = static_call(world, U.DECREASE, ((token_id, liquidity, 0, 0, U.FOREVER),), ["uint256"] * 2, before)
    fees = static_call(world, U.COLLECT, collect, ["uint256"] * 2, before)
    assert principal == tuple(withdrawn) and min(principal) > 0 and max(fees) > 0
    assert static_call(world, U.COLLECT, collect, ["uint256"] * 2, final) == (
        fees[0] + principal[0],
        fees[1] + principal[1],
    )
    (position,) = [p for p in (await answer(world_client, wallet, final))["positions"] if p["tokenId"] == str(token_id)]
    assert (position["principalOwed0"], position["principalOwed1"]) == tuple(map(str, principal))
    assert (position["uncollectedFees0"], position["uncollectedFees1"]) == tuple(map(str, fees))
    assert position["uncollectedFeesUsd"] == usd(world, *fees)
    assert position["principalOwedUsd"] == usd(world, *principal)


async def test_a_partial_collect_pays_the_principal_first(world_client, world):
    """A collect of less than the principal owed: what it paid is principal, the fees stay."""
    node, wallet, token_id = world.node, world.wallets["lp"], world.ids["partly"]
    snapshot = node.rpc("evm_snapshot")
    try:

        async def partly() -> dict[str, Any]:
            node.mine()  # a new block: answers are kept per input and block
            (found,) = [
                p
                for p in (await answer(world_client, wallet))["positions"]
                if p["tokenId"] == str(token_id) and p["type"] == "uniswap-v3-position"
            ]
            return found

        held = await partly()
        taken = (int(held["principalOwed0"]) // 3, int(held["principalOwed1"]) // 3)
        node.send(world.manager, U.COLLECT, (token_id, wallet, *taken), sender=wallet)
        after = await partly()
        left = tuple(str(int(held[f"principalOwed{side}"]) - taken[side]) for side in (0, 1))
        assert (after["principalOwed0"], after["principalOwed1"]) == left and min(taken) > 0
        fees = ("uncollectedFees0", "uncollectedFees1")
        assert [after[name] for name in fees] == [held[name] for name in fees], "no swap since: the same fees"
    finally:
        node.rpc("evm_revert", snapshot)


async def test_the_world_covers_each_side_of_a_range_and_fees_in_both_tokens(world_client, world):
    """The checks above are not vacuous: the narrow range is left on each side and re-entered,
    fees accrue in both tokens, and a collect or a withdrawal shows in what is owed."""
    wallet = world.wallets["lp"]
    narrow, collected, partly = (str(world.ids[name]) for name in ("narrow", "collected", "partly"))
    states = []
    for block in world.steps:
        by_id = {p["tokenId"]: p for p in (await answer(world_client, wallet, block))["positions"]}
        states.append(by_id)
    sides = [(s[narrow]["inRange"], s[narrow]["amount0"] == "0", s[narrow]["amount1"] == "0") for s in states[:4]]
    assert sides == [(True, False, False), (False, True, False), (False, False, True), (True, False, False)]
    last = states[-1]
    assert int(states[-2][collected]["uncollectedFees0"]) > 0 and int(states[-2][collected]["uncollectedFees1"]) > 0
    assert last[collected]["uncollectedFees0"] == last[collected]["uncollectedFees1"] == "0"
    assert int(last[partly]["principalOwed0"]) > 0 and states[-2][partly]["principalOwed0"] == "0"
    below, above = last[str(world.ids["below"])], last[str(world.ids["above"])]
    assert below["amount0"] == "0" and int(below["amount1"]) > 0 and not below["inRange"]
    assert above["amount1"] == "0" and int(above["amount0"]) > 0 and not above["inRange"]
    assert str(world.ids["closed"]) not in last, "closed and not burned: it holds nothing"


async def test_a_wallet_without_positions_has_none(world_client, world):
    entry = await answer(world_client, world.wallets["empty"])
    assert entry["positions"] == [] and entry["warnings"] == []


async def test_more_positions_than_read_are_named(world_client, world, monkeypatch):
    """Past MAX_POSITIONS the answer says how many NFTs it leaves out; past the lens's share the
    rest are read in rounds, with the same figures."""
    whole = await answer(world_client, world.wallets["lp"])
    monkeypatch.setattr(uniswap, "LENS_POSITIONS", 2)
    world.node.mine()  # a new block: answers are kept per input and block
    assert (await answer(world_client, world.wallets["lp"]))["positions"] == whole["positions"]
    monkeypatch.setattr(uniswap, "MAX_POSITIONS", 3)
    world.node.mine()
    capped = await answer(world_client, world.wallets["lp"])
    first = [p for p in whole["positions"] if p["type"] == "uniswap-v3-position"][:3]
    first += [p for p in whole["positions"] if p["type"] == "uniswap-v4-position"][:3]
    assert capped["positions"] == first
    expected = [
        {
            "code": "PART_UNREADABLE",
            "target": world.manager,
            "message": "the wallet owns 7 position NFTs; 4 after the first 3 are left out",
        },
        {
            "code": "PART_UNREADABLE",
            "target": world.posm,
            "message": "the wallet owns 7 v4 position NFTs; 4 after the first 3 are left out",
        },
    ]
    assert capped["warnings"] == sorted(expected, key=lambda warning: warning["target"]), "listed by target"


async def test_a_failed_feed_is_named_in_every_input_that_needs_it(world_client, world):
    """Two inputs of one request whose positions need the same broken feed: each names it, and
    both keep every figure but the USD ones."""
    node, lp, trader = world.node, world.wallets["lp"], world.wallets["trader"]
    snapshot = node.rpc("evm_snapshot")
    try:
        node.send(world.feeds["WETH"], "set(int256,uint256)", 0, node.timestamp())
        transfer = "transferFrom(address,address,uint256)"
        node.send(world.manager, transfer, lp, trader, world.ids["above"], sender=lp)
        inputs = [{"protocol": "uniswap", "chainId": 31337, "walletAddress": w} for w in (lp, trader)]
        reply = await world_client.query(QUERY, {"inputs": inputs})
        entries = reply.body["data"]["walletPositions"]["data"]
        assert [len(e["positions"]) for e in entries] == [5 + 6, 1 + 1], "v3 and v4 (the trader was given one)"
        for entry in entries:
            assert [(w["code"], w["target"]) for w in failed(entry["warnings"])] == [
                ("PRICE_UNAVAILABLE", world.tokens["WETH"])
            ]
            assert all(p["valueUsd"] is None and p["uncollectedFeesUsd"] is None for p in entry["positions"])
            assert all(int(p["liquidity"]) > 0 for p in entry["positions"])
    finally:
        node.rpc("evm_revert", snapshot)


def v4_oracle_request(world: U.UniswapWorld, token_id: int, block: int) -> dict[str, Any]:
    """What the v4 SDK needs of a position, read at `block` through the StateView by the test's ABI code."""
    node = world.node
    key, info = node.call(
        world.posm,
        "getPoolAndPositionInfo(uint256)",
        token_id,
        returns=(U.POOL_KEY, "uint256"),
        block=block,
    )
    pool = next(
        name for name, k in world.keys.items() if k == tuple(x.lower() if isinstance(x, str) else x for x in key)
    )
    pool_id = contracts.pool_id(world.keys[pool])
    lower, upper = contracts.ticks(info)
    sqrt_price, tick, lp_fee = world.v4_state(pool, block)
    liquidity = node.call(world.posm, "getPositionLiquidity(uint256)", token_id, block=block)
    decimals = {world.tokens["WETH"]: 18, world.tokens["USDC"]: 6, U.ZERO: 18}
    return {
        "chainId": 31337,
        "pool": pool,
        "token0": {"address": key[0].lower(), "decimals": decimals[key[0].lower()]},
        "token1": {"address": key[1].lower(), "decimals": decimals[key[1].lower()]},
        "fee": key[2],
        "lpFee": lp_fee,
        "tickSpacing": key[3],
        "hooks": key[4].lower(),
        "sqrtPriceX96": str(sqrt_price),
        "tick": tick,
        "poolLiquidity": str(node.call(world.state_view, "getLiquidity(bytes32)", pool_id, block=block)),
        "liquidity": str(liquidity),
        "tickLower": lower,
        "tickUpper": upper,
    }


async def test_every_v4_position_at_every_step_equals_the_v4_sdk_and_the_managers_own_payouts(world_client, world):
    """PoolId, amounts and prices as the v4 SDK computes them; uncollected fees as the
    PositionManager pays them (DECREASE_LIQUIDITY of 0, TAKE_PAIR) and amounts as it pays the
    whole liquidity, less those fees, at each step."""
    wallet = world.wallets["lp"]
    for block, payouts in zip(world.v4_steps, world.v4_payouts):
        entry = await answer(world_client, wallet, block)
        assert failed(entry["warnings"]) == [] and entry["blockNumber"] == block
        listed = [p for p in entry["positions"] if p["type"] == "uniswap-v4-position"]
        names = {token_id: name for name, token_id in world.v4_ids.items()} | {world.v4_burned: "burned"}
        assert [names[int(p["tokenId"])] for p in listed] == list(payouts), "the wallet's, with liquidity"
        requests = [v4_oracle_request(world, int(p["tokenId"]), block) for p in listed]
        for position, request, sdk in zip(listed, requests, ask("uniswap_sdk.cjs", requests)):
            fees, whole = payouts[names[int(position["tokenId"])]]
            amounts = (int(sdk["amount0"]), int(sdk["amount1"]))
            assert amounts == (whole[0] - fees[0], whole[1] - fees[1]), (block, position["tokenId"])
            native = request["token0"]["address"] == U.ZERO
            assert position == {
                "type": "uniswap-v4-position",
                "tokenId": position["tokenId"],
                "positionManager": world.posm,
                "pool": sdk["poolId"],
                "hooks": request["hooks"],
                "token0": token(world, request["token0"]["address"]),
                "token1": token(world, request["token1"]["address"]),
                "feeTier": request["lpFee"],
                "tickSpacing": request["tickSpacing"],
                **figures(request, sdk, amounts, fees),
                "valueUsd": None if native else usd(world, *amounts),
                "uncollectedFeesUsd": None if native else usd(world, *fees),
                "principalOwedUsd": None if native else 0.0,
                **parts(world, amounts, fees, native),
            }
            if request["pool"] == "dynamic":
                assert (request["fee"], request["lpFee"], request["hooks"]) == (U.DYNAMIC_FEE, 2500, U.HOOK)


async def test_v4_positions_are_the_wallets_by_the_index_and_ownerof(world_client, world):
    """A position given away is the receiver's, a burned one and a withdrawn one are no one's;
    the v4 payouts moved fees in both tokens and the narrow range was left on each side."""
    lp = await answer(world_client, world.wallets["lp"])
    trader = await answer(world_client, world.wallets["trader"])
    ids = {name: str(token_id) for name, token_id in world.v4_ids.items()}
    listed = [p["tokenId"] for p in lp["positions"] if p["type"] == "uniswap-v4-position"]
    assert listed == [ids[name] for name in ("wide", "narrow", "below", "above", "native", "dynamic")]
    assert [p["tokenId"] for p in trader["positions"]] == [ids["given"]]
    narrow = [(whole[0] - fees[0], whole[1] - fees[1]) for fees, whole in (p["narrow"] for p in world.v4_payouts[:4])]
    assert [(a > 0, b > 0) for a, b in narrow] == [(True, True), (False, True), (True, False), (True, True)]
    assert all(fee > 0 for fee in world.v4_payouts[-1]["wide"][0])


async def test_v4_nfts_the_index_has_not_seen_are_named(aiohttp_client, keys_file, api_key, world, tmp_path):
    """With the index started after the mints, none of the wallet's v4 NFTs is a candidate:
    balanceOf tells, and the answer says how many it leaves out (a retry may find them)."""
    data = world.addresses_override()
    data["31337"]["uniswap"]["v4"]["positionManager"]["startBlock"] = world.node.block_number()
    path = tmp_path / "late.json"
    path.write_text(json.dumps(data))
    api = await world_api(aiohttp_client, keys_file, api_key, path, world.node)
    entry = await answer(api, world.wallets["lp"])
    assert [p["type"] for p in entry["positions"]] == ["uniswap-v3-position"] * 6
    assert entry["warnings"] == [
        {
            "code": "PART_UNREADABLE",
            "target": world.posm,
            "message": "the wallet owns 7 v4 position NFTs; 7 not among those the event index has seen sent to it "
            "(or beyond those checked) are left out",
        }
    ]


async def test_v4_pool_details_by_pool_id(world_client, world):
    pool_id = "0x" + contracts.pool_id(world.keys["native"]).hex()
    inputs = [{"protocol": "uniswap", "chainId": 31337, "poolAddress": pool_id.upper().replace("X", "x")}]
    inputs.append({"protocol": "uniswap", "chainId": 31337, "poolAddress": "0x" + "ab" * 32})
    reply = await world_client.query(POOL_QUERY, {"inputs": inputs})
    (found,) = reply.body["data"]["poolDetails"]["data"]
    block = found["blockNumber"]
    sqrt_price, tick = world.v4_slot0("native", block)
    liquidity = world.node.call(
        world.state_view, "getLiquidity(bytes32)", contracts.pool_id(world.keys["native"]), block=block
    )
    assert found["details"] == {
        "type": "uniswap-v4-pool",
        "poolAddress": None,
        "poolId": pool_id,
        "hooks": U.ZERO,
        "chainId": 31337,
        "token0": {"address": NATIVE, "symbol": "ETH", "name": "Ether", "decimals": 18},
        "token1": {"address": world.tokens["USDC"], "symbol": "USDC", "name": "USD Coin", "decimals": 6},
        "feeTier": 500,
        "tickSpacing": 10,
        "tickCurrent": tick,
        "sqrtPriceX96": str(sqrt_price),
        "price": float(tick_math.price(sqrt_price, 18, 6)),
        "activeLiquidity": str(liquidity),
        "balance0": None,
        "balance1": None,
        "tvlUsd": None,
    }
    (error,) = reply.body["data"]["poolDetails"]["errors"]
    assert error["error"]["code"] == "VALIDATION_ERROR"
    assert "is not a Uniswap v4 pool on chain 31337" in error["error"]["message"]


async def test_blocks_before_deployment_are_refused(world_client, world):
    """A wallet at a block before either manager existed (before the world's declared first
    block), a v3 pool before it was created (after that block: its code says) and a v4 pool
    before the PositionManager's block are the client's mistake, said so."""
    early = world.start_block - 1
    wallet = [{"protocol": "uniswap", "chainId": 31337, "walletAddress": world.wallets["lp"], "blockNumber": early}]
    reply = await world_client.query(QUERY, {"inputs": wallet})
    (error,) = reply.body["data"]["walletPositions"]["errors"]
    assert error["error"]["code"] == "VALIDATION_ERROR"
    assert error["error"]["message"] == (
        f"Block {early} is before uniswap's deployment on chain 31337: its first contract there was deployed at block "
        f"{world.start_block}."
    )
    pool_id = "0x" + contracts.pool_id(world.keys["erc20"]).hex()
    pools = [
        {"protocol": "uniswap", "chainId": 31337, "poolAddress": world.pools[3000], "blockNumber": world.start_block},
        {"protocol": "uniswap", "chainId": 31337, "poolAddress": pool_id, "blockNumber": world.posm_block - 1},
    ]
    reply = await world_client.query(POOL_QUERY, {"inputs": pools})
    errors = reply.body["data"]["poolDetails"]["errors"]
    assert [e["error"]["code"] for e in errors] == ["VALIDATION_ERROR"] * 2
    assert f"its pool {world.pools[3000]} has no code then" in errors[0]["error"]["message"]
    assert f"its v4 position manager was deployed at block {world.posm_block}" in errors[1]["error"]["message"]


def test_the_v4_pool_id_is_keccak_of_the_pool_key():
    """PoolIdLibrary.toId, against eth-hash over the same encoding."""
    key = ("0x" + "00" * 20, "0x" + "a0" * 20, 3000, 60, "0x" + "00" * 20)
    encoded = eth_abi.encode(["address", "address", "uint24", "int24", "address"], list(key))
    assert contracts.pool_id(key) == keccak(encoded)


async def test_the_lens_calls_answer_every_read(aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path):
    """Once the index has stored the wallet's v4 NFTs, its answer (6 v3 and 6 v4 positions, native
    ETH and a hook among them) is read by the two lens calls alone: not one call of its own."""
    node = world.node
    snapshot = node.rpc("evm_snapshot")
    try:
        node.mine(100)
        proxy = RpcProxy(node.url)
        proxied = await aiohttp_server(proxy.app(), host="127.0.0.1")
        path = world.write_addresses(tmp_path / "a.json")
        api = await world_api(aiohttp_client, keys_file, api_key, path, node, url=str(proxied.make_url("/")))
        await answer(api, world.wallets["lp"])
        uniswap = UNISWAP.of(protocols.load_addresses(str(path))[node.chain_id])
        assert uniswap is not None and uniswap.v4 is not None
        stream = contracts.stream(uniswap.v4)
        await until_indexed(api.app[server.INDEXES].store(node.chain_id), stream, node)
        node.mine()
        proxy.posts.clear()
        entry = await answer(api, world.wallets["lp"])
        assert [p["type"][:10] for p in entry["positions"]] == ["uniswap-v3"] * 6 + ["uniswap-v4"] * 6
        calls = proxy.calls("eth_call")
        assert [call for call in calls if "to" in call["params"][0]] == [], "every read came from a tape"
        assert len(calls) == 2, "one lens call for each version"
    finally:
        node.rpc("evm_revert", snapshot)


async def test_pool_details_are_the_pools_own_state(world_client, world):
    pool = world.pools[3000]
    reply = await world_client.query(
        POOL_QUERY,
        {"inputs": [{"protocol": "uniswap", "chainId": 31337, "poolAddress": pool.upper().replace("X", "x")}]},
    )
    (found,) = reply.body["data"]["poolDetails"]["data"]
    block = found["blockNumber"]
    sqrt_price, tick = world.slot0(3000, block)
    balances = [
        world.node.call(token, "balanceOf(address)", pool, block=block) for token in (world.token0, world.token1)
    ]
    details = found["details"]
    assert details == details | {
        "type": "uniswap-v3-pool",
        "poolAddress": pool,
        "chainId": 31337,
        "feeTier": 3000,
        "tickSpacing": 60,
        "tickCurrent": tick,
        "sqrtPriceX96": str(sqrt_price),
        "price": float(tick_math.price(sqrt_price, 18, 6)),
        "activeLiquidity": str(world.node.call(pool, "liquidity()", block=block)),
        "balance0": str(balances[0]),
        "balance1": str(balances[1]),
        "tvlUsd": usd(world, *balances),
    }
    assert details["token0"]["symbol"] == "WETH" and found["warnings"] == []


async def test_pool_details_refuse_what_the_factory_did_not_create(world_client, world):
    inputs = [
        {"protocol": "uniswap", "chainId": 31337, "poolAddress": address}
        for address in (world.token0, world.manager, "0x" + "12" * 20)
    ]
    reply = await world_client.query(POOL_QUERY, {"inputs": inputs})
    errors = reply.body["data"]["poolDetails"]["errors"]
    assert [e["error"]["code"] for e in errors] == ["VALIDATION_ERROR"] * 3
    assert errors[0]["error"]["message"].startswith(f"{world.token0} is not a Uniswap v3 pool on chain 31337 at block ")


def test_tick_math_equals_the_sdk_on_random_positions():
    """Amounts of random ranges (any tick: the 0.01 % tier's spacing is 1, so every bit of
    getSqrtRatioAtTick is used), prices and liquidities, and fees of random fee growths (wrapping
    past 2**256 included) and stored tokensOwed, against the SDK; far more cases than the world's."""
    rng = random.Random(38)
    requests, cases = [], []
    for _ in range(400):
        lower, upper = sorted(rng.sample(range(tick_math.MIN_TICK, tick_math.MAX_TICK + 1), 2))
        tick = rng.choice([lower - 1, lower, upper - 1, upper, rng.randint(lower - 5000, upper + 5000)])
        tick = max(tick_math.MIN_TICK, min(tick_math.MAX_TICK - 1, tick))
        low, high = tick_math.sqrt_ratio_at_tick(tick), tick_math.sqrt_ratio_at_tick(tick + 1)
        sqrt_price = rng.randint(low, high - 1)
        liquidity = rng.randint(0, 2**128 - 1)
        words = [rng.randint(0, 2**256 - 1) for _ in range(8)]
        owed = [rng.randint(0, 2**128 - 1) for _ in range(2)]
        decimals = (rng.randint(0, 30), rng.randint(0, 30))
        requests.append(
            {
                "chainId": 1,
                "token0": {"address": "0x" + "11" * 20, "decimals": decimals[0]},
                "token1": {"address": "0x" + "22" * 20, "decimals": decimals[1]},
                "fee": 100,
                "sqrtPriceX96": str(sqrt_price),
                "tick": tick,
                "poolLiquidity": "0",
                "liquidity": str(liquidity),
                "tickLower": lower,
                "tickUpper": upper,
                "lower": [str(w) for w in words[0:2]],
                "upper": [str(w) for w in words[2:4]],
                "feeGrowthGlobal": [str(w) for w in words[4:6]],
                "feeGrowthInsideLast": [str(w) for w in words[6:8]],
                "tokensOwed": [str(o) for o in owed],
            }
        )
        cases.append((sqrt_price, tick, lower, upper, liquidity, words, owed, decimals))
    answers = ask("uniswap_sdk.cjs", requests)
    for (sqrt_price, tick, lower, upper, liquidity, words, owed, decimals), sdk in zip(cases, answers):
        amounts = tick_math.amounts(sqrt_price, tick, lower, upper, liquidity)
        assert amounts == (int(sdk["amount0"]), int(sdk["amount1"]))
        for i in (0, 1):
            inside = tick_math.fee_growth_inside(tick, lower, upper, words[4 + i], words[i], words[2 + i])
            assert tick_math.fees_accrued(liquidity, inside, words[6 + i]) == int(sdk[f"fees{i}"]) - owed[i]
            # The SDK keeps every bit; the v3 manager keeps the low 128 of each sum, as the service does.
            assert tick_math.fees_owed(owed[i], liquidity, inside, words[6 + i]) == int(sdk[f"fees{i}"]) % 2**128
        assert float(tick_math.price(sqrt_price, *decimals)) == exact(sdk["priceCurrent"])
        for end, name in ((lower, "priceLower"), (upper, "priceUpper")):
            assert float(tick_math.price(tick_math.sqrt_ratio_at_tick(end), *decimals)) == exact(sdk[name])


def published_outputs(path: Path) -> dict[str, tuple[str, ...]]:
    """Signature -> outputs of every function of a published artifact, spelled as the adapter
    spells them: each type with the name the ABI gives it, tuples' components too."""

    def spelled(entry: dict[str, Any]) -> str:
        kind = entry["type"]
        if kind.startswith("tuple"):
            kind = "(" + ",".join(spelled(part) for part in entry["components"]) + ")" + kind[5:]
        return f"{kind} {entry['name']}" if entry["name"] else kind

    return {
        f"{entry['name']}({','.join(abi_type(arg) for arg in entry['inputs'])})": tuple(map(spelled, entry["outputs"]))
        for entry in published_artifact(path).abi
        if entry.get("type") == "function"
    }


def test_the_adapter_reads_uniswaps_published_abi():
    """Every function the adapter calls, as in the ABI of the contract it calls (the artifacts of
    @uniswap/v3-core and v3-periphery, and v4-periphery's build), its outputs by the names there."""
    manager = published_outputs(U.PERIPHERY / "NonfungiblePositionManager.sol" / "NonfungiblePositionManager.json")
    factory = published_outputs(U.CORE / "UniswapV3Factory.sol" / "UniswapV3Factory.json")
    pool = published_outputs(U.CORE / "UniswapV3Pool.sol" / "UniswapV3Pool.json")
    posm = published_outputs(U.V4_OUT / "PositionManager.sol" / "PositionManager.json")
    state_view = published_outputs(U.V4_OUT / "StateView.sol" / "StateView.json")
    called = {
        **dict.fromkeys(["TOKEN_OF_OWNER_BY_INDEX", "POSITIONS"], manager),
        "GET_POOL": factory,
        **dict.fromkeys(["SLOT0", "TICKS", "TOKEN0", "TOKEN1", "FEE", "TICK_SPACING", "LIQUIDITY"], pool),
        **dict.fromkeys(["FEE_GROWTH_GLOBAL0", "FEE_GROWTH_GLOBAL1"], pool),
        **dict.fromkeys(["OWNER_OF", "POOL_AND_POSITION_INFO", "POOL_KEYS"], posm),
        **dict.fromkeys(["GET_SLOT0", "GET_POSITION_INFO", "GET_FEE_GROWTH_INSIDE", "GET_LIQUIDITY"], state_view),
    }
    functions = functions_of(contracts)
    functions |= {f"FEE_GROWTH_GLOBAL{i}": f for i, f in enumerate(contracts.FEE_GROWTH_GLOBAL)}
    del functions["PANCAKESWAP_SLOT0"]  # PancakeSwap's pool's (tests/test_pancakeswap.py)
    assert set(functions) == set(called)
    for name, function in functions.items():
        assert called[name][function.signature] == function.outputs, name


@pytest.mark.parametrize("tick", [tick_math.MIN_TICK - 1, tick_math.MAX_TICK + 1])
def test_ticks_outside_the_range_are_refused(tick):
    with pytest.raises(ValueError, match="outside"):
        tick_math.sqrt_ratio_at_tick(tick)
