"""ether.fi and Rocket Pool against test contracts with the views of their published ABIs
(tests/liquid_staking_world.py): every figure equals what the test contracts' own views answer."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from adapters.liquid_staking import contracts
from tests import liquid_staking_world as L
from tests.conftest import query_positions, world_fixture
from tests.evm import functions_of

YEAR = 365 * 24 * 3600
ABI = json.loads((Path(__file__).parent / "liquid_staking_abi.json").read_text())
STAKED = "stakedPositions { type token { address symbol name decimals } balance shares eth ethPerToken balanceUsd apy }"
COMMON = "protocol walletAddress chainId blockNumber warnings { code message target }"
QUERIES = {
    "etherfi": f"""... on EtherfiWalletPositions {{ {COMMON} {STAKED}
      withdrawalRequests {{ requestId amountOfEEth amountOfEEthUsd shareOfEEth isValid feeGwei isFinalized
        claimableEth claimableEthUsd }} }}""",
    "rocketpool": f"""... on RocketpoolWalletPositions {{ {COMMON} {STAKED}
      burn {{ totalCollateral burnableREth burnableEth burnableEthUsd }} }}""",
    "renzo": f"""... on RenzoWalletPositions {{ {COMMON} {STAKED}
      withdrawalRequests {{ asset {{ address symbol name decimals }} withdrawRequestId ezETHLocked amountToRedeem
        amountToRedeemUsd createdAt claimableFrom isClaimable }} }}""",
    "kelp": f"""... on KelpWalletPositions {{ {COMMON} {STAKED}
      withdrawalRequests {{ asset {{ address symbol name decimals }} userNonce rsETHUnstaked expectedAssetAmount
        expectedAssetAmountUsd withdrawalStartBlock isUnlocked claimableFromBlock isClaimable }} }}""",
}

world = world_fixture(L.build)


async def answer(api, protocol: str, wallet: str) -> dict:
    query = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
      data {{ {QUERIES[protocol]} }} errors {{ error {{ code message }} }} }} }}"""
    found = await query_positions(api, query, protocol, [wallet], 31337)
    assert found["errors"] == []
    (entry,) = found["data"]
    assert entry["warnings"] == []
    return dict(entry)


def usd(amount: int) -> float:
    return float(Fraction(amount * L.ETH_USD, 10 ** (18 + 8)))


def apy(world, target: str, signature: str, args: tuple, block: int) -> float:
    """The growth of a rate view between the world's week-old block and `block`, compounded."""
    now = world.node.call(target, signature, *args, block=block)
    then = world.node.call(target, signature, *args, block=world.then)
    seconds = world.node.timestamp(block) - world.t_then
    return float(Fraction(now, then)) ** (YEAR / seconds) - 1


async def test_eeth_and_weeth_in_ether_by_the_pools_rate(world_client, world):
    entry = await answer(world_client, "etherfi", world.wallets["holder"])
    node, c, holder, block = world.node, world.contracts, world.wallets["holder"], entry["blockNumber"]
    eeth = node.call(c["eETH"], "balanceOf(address)", holder, block=block)
    wrapped = node.call(c["weETH"], "getEETHByWeETH(uint256)", world.holdings["weETH"], block=block)
    rate = node.call(c["pool"], "amountForShare(uint256)", L.ETHER, block=block)
    growth = apy(world, c["pool"], "amountForShare(uint256)", (L.ETHER,), block)
    assert growth > 0.005, "ether per share grew over the week"
    assert entry["stakedPositions"] == [
        {
            "type": "etherfi-eeth",
            "token": {"address": c["eETH"], "symbol": "eETH", "name": "ether.fi ETH", "decimals": 18},
            "balance": str(eeth),
            "shares": str(world.holdings["eETH"]),
            "eth": str(eeth),
            "ethPerToken": str(rate),
            "balanceUsd": usd(eeth),
            "apy": pytest.approx(growth, rel=1e-12),
        },
        {
            "type": "etherfi-weeth",
            "token": {"address": c["weETH"], "symbol": "weETH", "name": "Wrapped eETH", "decimals": 18},
            "balance": str(world.holdings["weETH"]),
            "shares": str(world.holdings["weETH"]),
            "eth": str(wrapped),
            "ethPerToken": str(rate),
            "balanceUsd": usd(wrapped),
            "apy": pytest.approx(growth, rel=1e-12),
        },
    ]
    assert entry["withdrawalRequests"] == []


async def test_withdraw_request_nfts_found_by_their_transfers_pay_what_the_nft_says(world_client, world):
    """The requester's NFTs: 1 finalized, 4 finalized but invalidated, 6 received, 7 pending; not 2
    (claimed, burned) nor 5 (sent away)."""
    entry = await answer(world_client, "etherfi", world.wallets["requester"])
    node, nft, block = world.node, world.contracts["nft"], entry["blockNumber"]
    assert entry["stakedPositions"] == []
    expected = []
    for request in (1, 4, 6, 7):
        amount, share, valid, fee = node.call(
            nft, "getRequest(uint256)", request, returns=["(uint96,uint96,bool,uint32)"], block=block
        )
        finalized = node.call(nft, "isFinalized(uint256)", request, returns=["bool"], block=block)
        claimable = node.call(nft, "getClaimableAmount(uint256)", request, block=block) if finalized and valid else 0
        expected.append(
            {
                "requestId": str(request),
                "amountOfEEth": str(amount),
                "amountOfEEthUsd": usd(amount),
                "shareOfEEth": str(share),
                "isValid": valid,
                "feeGwei": fee,
                "isFinalized": finalized,
                "claimableEth": str(claimable),
                "claimableEthUsd": usd(claimable),
            }
        )
    assert [(r["isFinalized"], r["isValid"]) for r in expected] == [
        (True, True),
        (True, False),
        (False, True),
        (False, True),
    ]
    assert int(expected[0]["claimableEth"]) == L.REQUESTS[1][1] * L.FROZEN_RATE // L.ETHER < L.REQUESTS[1][0]
    assert entry["withdrawalRequests"] == expected


async def test_reth_in_ether_by_its_rate_with_a_burn_the_collateral_caps(world_client, world):
    entry = await answer(world_client, "rocketpool", world.wallets["holder"])
    node, reth, block = world.node, world.contracts["rETH"], entry["blockNumber"]
    balance = world.holdings["rETH"]
    eth = node.call(reth, "getEthValue(uint256)", balance, block=block)
    collateral = node.call(reth, "getTotalCollateral()", block=block)
    assert collateral == L.RETH_BALANCE + L.RETH_EXCESS < eth, "the collateral covers part of the holder's rETH"
    growth = apy(world, reth, "getExchangeRate()", (), block)
    assert growth > 0.005
    assert entry["stakedPositions"] == [
        {
            "type": "rocketpool-reth",
            "token": {"address": reth, "symbol": "rETH", "name": "Rocket Pool ETH", "decimals": 18},
            "balance": str(balance),
            "shares": str(balance),
            "eth": str(eth),
            "ethPerToken": str(node.call(reth, "getExchangeRate()", block=block)),
            "balanceUsd": usd(eth),
            "apy": pytest.approx(growth, rel=1e-12),
        }
    ]
    assert entry["burn"] == {
        "totalCollateral": str(collateral),
        "burnableREth": str(node.call(reth, "getRethValue(uint256)", collateral, block=block)),
        "burnableEth": str(collateral),
        "burnableEthUsd": usd(collateral),
    }


async def test_a_small_reth_holder_can_burn_all_of_it(world_client, world):
    entry = await answer(world_client, "rocketpool", world.wallets["small"])
    eth = world.node.call(world.contracts["rETH"], "getEthValue(uint256)", world.holdings["rETH small"])
    assert entry["burn"] == {
        "totalCollateral": str(L.RETH_BALANCE + L.RETH_EXCESS),
        "burnableREth": str(world.holdings["rETH small"]),
        "burnableEth": str(eth),
        "burnableEthUsd": usd(eth),
    }


async def test_ezeth_in_ether_by_what_the_restake_manager_says_backs_it(world_client, world):
    entry = await answer(world_client, "renzo", world.wallets["holder"])
    node, c, block, balance = world.node, world.contracts, entry["blockNumber"], world.holdings["ezETH"]

    def per_ezeth(at: int) -> Fraction:
        *_, tvl = node.call(
            c["RestakeManager"], "calculateTVLs()", returns=["uint256[][]", "uint256[]", "uint256"], block=at
        )
        supply = node.call(c["ezETH"], "totalSupply()", block=at)
        return Fraction(tvl, supply)

    eth = int(balance * per_ezeth(block))
    rate = int(L.ETHER * per_ezeth(block))
    growth = (
        float(Fraction(rate, int(L.ETHER * per_ezeth(world.then)))) ** (YEAR / (node.timestamp(block) - world.t_then))
        - 1
    )
    assert growth > 0.0001
    assert entry["stakedPositions"] == [
        {
            "type": "renzo-ezeth",
            "token": {"address": c["ezETH"], "symbol": "ezETH", "name": "Renzo Restaked ETH", "decimals": 18},
            "balance": str(balance),
            "shares": str(balance),
            "eth": str(eth),
            "ethPerToken": str(rate),
            "balanceUsd": usd(eth),
            "apy": pytest.approx(growth, rel=1e-12),
        }
    ]


async def test_rseth_in_ether_by_kelps_oracle(world_client, world):
    entry = await answer(world_client, "kelp", world.wallets["holder"])
    node, c, block, balance = world.node, world.contracts, entry["blockNumber"], world.holdings["rsETH"]
    price = node.call(c["LRTOracle"], "rsETHPrice()", block=block)
    eth = balance * price // L.ETHER
    assert entry["stakedPositions"] == [
        {
            "type": "kelp-rseth",
            "token": {"address": c["rsETH"], "symbol": "rsETH", "name": "rsETH", "decimals": 18},
            "balance": str(balance),
            "shares": str(balance),
            "eth": str(eth),
            "ethPerToken": str(price),
            "balanceUsd": usd(eth),
            "apy": pytest.approx(apy(world, c["LRTOracle"], "rsETHPrice()", (), block), rel=1e-12),
        }
    ]


POOL_COMMON = "type token { address symbol name decimals } chainId totalSupply ethPerToken totalEth totalEthUsd apy"
POOL = f"""query($inputs: [PoolInput!]!) {{ poolDetails(inputs: $inputs) {{
  data {{ poolAddress warnings {{ code message target }} details {{
    ... on EtherfiPool {{ {POOL_COMMON} lastRequestId lastFinalizedRequestId }}
    ... on RocketpoolPool {{ {POOL_COMMON} totalCollateral }}
    ... on RenzoPool {{ {POOL_COMMON} withdrawCooldownSeconds }}
    ... on KelpPool {{ {POOL_COMMON} withdrawalDelayBlocks }} }} }}
  errors {{ protocol poolAddress error {{ code message }} }} }} }}"""


async def test_each_token_as_a_pool_is_its_supply_at_the_rate_its_positions_use(world_client, world):
    """eETH, weETH, rETH, ezETH and rsETH as pools: the supply, the rate and the ether the supply
    is worth by the views the positions read, the APY the holder's position has, and the way
    out's figures (ether.fi's request ids, rETH's collateral, Renzo's cooldown, Kelp's delay); a
    token of another protocol is refused naming the protocol's own."""
    node, c = world.node, world.contracts
    holder = world.wallets["holder"]
    asked = [("etherfi", c["eETH"]), ("etherfi", c["weETH"]), ("rocketpool", c["rETH"]), ("renzo", c["ezETH"])]
    asked += [("kelp", c["rsETH"]), ("kelp", c["ezETH"])]
    pools, errors = [], []
    for start in (0, 5):
        inputs = [{"protocol": p, "chainId": 31337, "poolAddress": a} for p, a in asked[start : start + 5]]
        reply = await world_client.query(POOL, {"inputs": inputs})
        assert reply.status == 200, reply.body
        pools += reply.body["data"]["poolDetails"]["data"]
        errors += reply.body["data"]["poolDetails"]["errors"]
    (refused,) = errors
    assert (
        refused["error"]["code"] == "VALIDATION_ERROR" and f"{c['rsETH']} (kelp-rseth)" in refused["error"]["message"]
    )
    assert all(entry["warnings"] == [] for entry in pools)
    found = {entry["poolAddress"]: entry["details"] for entry in pools}
    positions = {
        position["token"]["address"]: position
        for protocol in ("etherfi", "rocketpool", "renzo", "kelp")
        for position in (await answer(world_client, protocol, holder))["stakedPositions"]
    }

    def supply(token: str) -> int:
        return node.call(token, "totalSupply()")

    *_, tvl = node.call(c["RestakeManager"], "calculateTVLs()", returns=["uint256[][]", "uint256[]", "uint256"])
    rseth_price = node.call(c["LRTOracle"], "rsETHPrice()")
    worth = {
        c["eETH"]: supply(c["eETH"]),
        c["weETH"]: node.call(c["weETH"], "getEETHByWeETH(uint256)", supply(c["weETH"])),
        c["rETH"]: node.call(c["rETH"], "getEthValue(uint256)", supply(c["rETH"])),
        c["ezETH"]: supply(c["ezETH"]) * tvl // supply(c["ezETH"]),
        c["rsETH"]: supply(c["rsETH"]) * rseth_price // L.ETHER,
    }
    assert supply(c["eETH"]) == L.POOL[1][0] and supply(c["weETH"]) >= world.holdings["weETH"]
    for token, eth in worth.items():
        position = positions[token]
        assert {key: value for key, value in found[token].items() if key in POOL_COMMON.split()} == {
            "type": f"{position['type']}-pool",
            "token": position["token"],
            "chainId": 31337,
            "totalSupply": str(supply(token)),
            "ethPerToken": position["ethPerToken"],
            "totalEth": str(eth),
            "totalEthUsd": usd(eth),
            "apy": position["apy"],
        }, token
    last = node.call(c["nft"], "nextRequestId()", returns=["uint32"]) - 1
    assert last >= L.FINALIZED + 1
    for token in (c["eETH"], c["weETH"]):
        assert (found[token]["lastRequestId"], found[token]["lastFinalizedRequestId"]) == (str(last), str(L.FINALIZED))
    assert found[c["rETH"]]["totalCollateral"] == str(L.RETH_BALANCE + L.RETH_EXCESS)
    assert found[c["ezETH"]]["withdrawCooldownSeconds"] == max(L.RENZO_COOLDOWN, L.RENZO_RISK_COOLDOWN)
    assert found[c["rsETH"]]["withdrawalDelayBlocks"] == L.KELP_DELAY


async def test_a_wallet_with_nothing_has_nothing(world_client, world):
    etherfi = await answer(world_client, "etherfi", world.wallets["empty"])
    assert etherfi["stakedPositions"] == etherfi["withdrawalRequests"] == []
    rocketpool = await answer(world_client, "rocketpool", world.wallets["empty"])
    assert rocketpool["stakedPositions"] == [] and rocketpool["burn"] is None
    for protocol in ("renzo", "kelp"):
        nothing = await answer(world_client, protocol, world.wallets["empty"])
        assert nothing["stakedPositions"] == nothing["withdrawalRequests"] == []


async def test_kelp_withdrawal_requests_as_the_withdrawal_manager_keeps_them(world_client, world):
    """The requester's queued requests, asset by asset in the LRTConfig's order (stETH, then ETH),
    oldest first: the completed one is gone, the other user's is not theirs."""
    entry = await answer(world_client, "kelp", world.wallets["requester"])
    node, c, block, requester = world.node, world.contracts, entry["blockNumber"], world.wallets["requester"]
    manager = c["LRTWithdrawalManager"]
    assert entry["stakedPositions"] == []
    tokens = {
        c["stETH"]: (
            {"address": c["stETH"], "symbol": "stETH", "name": "Liquid staked Ether 2.0", "decimals": 18},
            L.STETH_USD,
        ),
        L.NATIVE: ({"address": L.NATIVE, "symbol": "ETH", "name": "Ether", "decimals": 18}, L.ETH_USD),
    }
    delay = node.call(manager, "withdrawalDelayBlocks()", block=block)
    expected = []
    for asset, (token, feed) in tokens.items():
        begin, end = node.call(
            manager,
            "userAssociatedNonces(address,address)",
            asset,
            requester,
            returns=["uint128", "uint128"],
            block=block,
        )
        locked = node.call(manager, "nextLockedNonce(address)", asset, block=block)
        for i in range(end - begin):
            rseth, amount, start, nonce = node.call(
                manager,
                "getUserWithdrawalRequest(address,address,uint256)",
                asset,
                requester,
                i,
                returns=["uint256"] * 4,
                block=block,
            )
            expected.append(
                {
                    "asset": token,
                    "userNonce": str(nonce),
                    "rsETHUnstaked": str(rseth),
                    "expectedAssetAmount": str(amount),
                    "expectedAssetAmountUsd": float(Fraction(amount * feed, 10**26)),
                    "withdrawalStartBlock": start,
                    "isUnlocked": nonce < locked,
                    "claimableFromBlock": start + delay,
                    "isClaimable": nonce < locked and block >= start + delay,
                }
            )
    assert [(r["asset"]["symbol"], r["userNonce"], r["isUnlocked"]) for r in expected] == [
        ("stETH", "0", True),
        ("ETH", "2", True),
        ("ETH", "3", False),
    ]
    assert expected[0]["isClaimable"]
    assert entry["withdrawalRequests"] == expected


async def test_renzo_withdrawal_requests_as_the_withdraw_queue_keeps_them(world_client, world):
    """The requester's requests in the WithdrawQueue the RestakeManager's DepositQueue names, in
    the queue's order (its claimed first request's place taken by its last), each claimable from
    createdAt + the longer of the queue's and the risk oracle's cooldowns; a whitelisted wallet's
    at once. The old ones are claimable at the block, the one made since is not."""
    node, c = world.node, world.contracts
    queue = node.call(c["DepositQueue"], "withdrawQueue()", returns=["address"])
    assert queue == c["WithdrawQueue"]
    tokens = {
        c["stETH"]: (
            {"address": c["stETH"], "symbol": "stETH", "name": "Liquid staked Ether 2.0", "decimals": 18},
            L.STETH_USD,
        ),
        L.NATIVE: ({"address": L.NATIVE, "symbol": "ETH", "name": "Ether", "decimals": 18}, L.ETH_USD),
    }

    def expected(wallet: str, block: int, cooldown: int) -> list[dict]:
        count = node.call(queue, "getOutstandingWithdrawRequests(address)", wallet, block=block)
        found = []
        for i in range(count):
            asset, nonce, amount, locked, created = node.call(
                queue,
                "withdrawRequests(address,uint256)",
                wallet,
                i,
                returns=["address", "uint256", "uint256", "uint256", "uint256"],
                block=block,
            )
            token, feed = tokens[asset.lower() if asset.lower() == L.NATIVE else asset]
            found.append(
                {
                    "asset": token,
                    "withdrawRequestId": str(nonce),
                    "ezETHLocked": str(locked),
                    "amountToRedeem": str(amount),
                    "amountToRedeemUsd": float(Fraction(amount * feed, 10**26)),
                    "createdAt": created,
                    "claimableFrom": created + cooldown,
                    "isClaimable": node.timestamp(block) >= created + cooldown,
                }
            )
        return found

    entry = await answer(world_client, "renzo", world.wallets["requester"])
    mine = expected(world.wallets["requester"], entry["blockNumber"], L.RENZO_RISK_COOLDOWN)
    assert [(r["withdrawRequestId"], r["asset"]["symbol"], r["isClaimable"]) for r in mine] == [
        ("4", "ETH", True),
        ("2", "stETH", True),
        ("5", "ETH", False),
    ]
    assert entry["stakedPositions"] == [] and entry["withdrawalRequests"] == mine
    other = await answer(world_client, "renzo", world.wallets["other"])
    assert other["withdrawalRequests"] == expected(world.wallets["other"], other["blockNumber"], 0)
    assert other["withdrawalRequests"][0]["claimableFrom"] == other["withdrawalRequests"][0]["createdAt"]


async def test_a_renzo_queue_that_cannot_be_read_leaves_out_the_requests_alone_and_names_them(world_client, world):
    """A DepositQueue that names no WithdrawQueue (its `withdrawQueue()` reverts): the holder's
    ezETH is still answered, the requests are left out with a warning naming the RestakeManager."""
    node, c = world.node, world.contracts
    holder = world.wallets["holder"]
    before = await answer(world_client, "renzo", holder)
    node.send(c["RestakeManager"], "setDepositQueue(address)", c["ezETH"])
    try:
        found = await query_positions(
            world_client,
            f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
              data {{ {QUERIES["renzo"]} }} errors {{ error {{ code message }} }} }} }}""",
            "renzo",
            [holder],
            31337,
        )
    finally:
        node.send(c["RestakeManager"], "setDepositQueue(address)", c["DepositQueue"])
    assert found["errors"] == []
    (entry,) = found["data"]
    assert [(w["code"], w["target"]) for w in entry["warnings"]] == [("PART_UNREADABLE", c["RestakeManager"])]
    assert entry["withdrawalRequests"] == []
    assert [p["balance"] for p in entry["stakedPositions"]] == [p["balance"] for p in before["stakedPositions"]]
    assert entry["stakedPositions"]


async def test_a_renzo_queue_without_a_risk_oracle_applies_its_own_cooldown_and_whitelist(world_client, world):
    """A WithdrawQueue as before Renzo's v2.1 (no risk oracle): the queue's coolDownPeriod alone,
    and nothing for a whitelisted wallet (v2.0's claim). The RestakeManager is pointed back after."""
    node, c, artifacts = world.node, world.contracts, L.compile_all()
    queue = node.deploy(artifacts["TestRenzoWithdrawQueue"])
    deposits = node.deploy(artifacts["TestRenzoDepositQueue"], ["address"], [queue])
    node.send(queue, "configure(uint256,address)", L.RENZO_COOLDOWN, "0x" + "00" * 20)
    node.send(queue, "setWhitelisted(address,bool)", world.wallets["other"], True)
    for wallet in ("requester", "other"):
        node.send(queue, "request(address,address,uint256,uint256)", world.wallets[wallet], L.NATIVE, L.ETHER, L.ETHER)
    node.send(c["RestakeManager"], "setDepositQueue(address)", deposits)
    try:
        mine = (await answer(world_client, "renzo", world.wallets["requester"]))["withdrawalRequests"]
        theirs = (await answer(world_client, "renzo", world.wallets["other"]))["withdrawalRequests"]
    finally:
        node.send(c["RestakeManager"], "setDepositQueue(address)", c["DepositQueue"])
    ((created, claimable, ready),) = [(r["createdAt"], r["claimableFrom"], r["isClaimable"]) for r in mine]
    assert (claimable, ready) == (created + L.RENZO_COOLDOWN, False)
    ((created, claimable, ready),) = [(r["createdAt"], r["claimableFrom"], r["isClaimable"]) for r in theirs]
    assert (claimable, ready) == (created, True)


def test_the_adapter_reads_the_published_abis():
    """Every function the adapter calls, signature (so selector) and output types, as recorded from
    each protocol's own source (tests/liquid_staking_abi.json names it)."""
    published = ABI["functions"]
    contracts_of = {
        "EETH_SHARES": "etherfi:eETH",
        "AMOUNT_FOR_SHARE": "etherfi:LiquidityPool",
        "EETH_BY_WEETH": "etherfi:weETH",
        "OWNER_OF": "etherfi:WithdrawRequestNFT",
        "GET_REQUEST": "etherfi:WithdrawRequestNFT",
        "IS_FINALIZED": "etherfi:WithdrawRequestNFT",
        "CLAIMABLE_AMOUNT": "etherfi:WithdrawRequestNFT",
        "NEXT_REQUEST_ID": "etherfi:WithdrawRequestNFT",
        "LAST_FINALIZED_REQUEST_ID": "etherfi:WithdrawRequestNFT",
        "RETH_EXCHANGE_RATE": "rocketpool:rETH",
        "RETH_ETH_VALUE": "rocketpool:rETH",
        "RETH_VALUE": "rocketpool:rETH",
        "RETH_TOTAL_COLLATERAL": "rocketpool:rETH",
        "CALCULATE_TVLS": "renzo:RestakeManager",
        "DEPOSIT_QUEUE": "renzo:RestakeManager",
        "WITHDRAW_QUEUE": "renzo:DepositQueue",
        "OUTSTANDING_REQUESTS": "renzo:WithdrawQueue",
        "WITHDRAW_REQUEST": "renzo:WithdrawQueue",
        "COOL_DOWN_PERIOD": "renzo:WithdrawQueue",
        "RISK_ORACLE": "renzo:WithdrawQueue",
        "WHITELISTED": "renzo:WithdrawQueue",
        "WITHDRAW_COOLDOWN": "renzo:RiskOracleMiddleware",
        "INSTANT_WITHDRAW_PAUSED": "renzo:RiskOracleMiddleware",
        "RSETH_PRICE": "kelp:LRTOracle",
        "SUPPORTED_ASSETS": "kelp:LRTConfig",
        "USER_NONCES": "kelp:LRTWithdrawalManager",
        "USER_WITHDRAWAL_REQUEST": "kelp:LRTWithdrawalManager",
        "NEXT_LOCKED_NONCE": "kelp:LRTWithdrawalManager",
        "WITHDRAWAL_DELAY_BLOCKS": "kelp:LRTWithdrawalManager",
    }
    functions = functions_of(contracts)
    assert set(functions) == set(contracts_of)
    for name, function in functions.items():
        assert published[contracts_of[name]][function.signature] == function.output_types, name
