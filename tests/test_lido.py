"""Lido against test contracts with the views of Lido's published ABI (tests/lido_world.py)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from adapters.lido import pools as lido_pools
from adapters.lido import positions as lido
from adapters.lido import shares as lido_shares
from tests import lido_world as L
from tests.conftest import query_positions, world_fixture
from tests.evm import functions_of
from tests.node_oracles import registries

YEAR = 365 * 24 * 3600
QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on LidoWalletPositions { protocol walletAddress chainId blockNumber warnings { code message target }
    stakedPositions { type token { address symbol name decimals } balance shares stEth balanceUsd apy }
    withdrawalRequests { requestId amountOfStETH amountOfStETHUsd amountOfShares requestedAt isFinalized isClaimed
      claimableEth claimableEthUsd } } }
  errors { error { code message } } } }"""

world = world_fixture(L.build)


async def answer(api, wallet: str) -> dict:
    found = await query_positions(api, QUERY, "lido", [wallet], 31337)
    assert found["errors"] == []
    (entry,) = found["data"]
    assert entry["warnings"] == []
    return dict(entry)


async def test_steth_and_wsteth_with_their_steth_usd_and_apy(world_client, world):
    entry = await answer(world_client, world.wallets["holder"])
    pooled, shares = L.TOTALS[1]
    steth = world.shares["stETH"] * pooled // shares
    wrapped = world.shares["wstETH"] * pooled // shares
    t_now = world.node.timestamp(entry["blockNumber"])
    apy = float(world.per_share(1) / world.per_share(0)) ** (YEAR / (t_now - world.t_then)) - 1
    assert apy > 0.005, "stETH per share grew over the week"

    def usd(amount: int) -> float:
        return float(Fraction(amount * L.STETH_USD, 10 ** (18 + 8)))

    assert entry["stakedPositions"] == [
        {
            "type": "lido-steth",
            "token": {"address": world.steth, "symbol": "stETH", "name": "Liquid staked Ether 2.0", "decimals": 18},
            "balance": str(steth),
            "shares": str(world.shares["stETH"]),
            "stEth": str(steth),
            "balanceUsd": usd(steth),
            "apy": pytest.approx(apy, rel=1e-12),
        },
        {
            "type": "lido-wsteth",
            "token": {
                "address": world.wsteth,
                "symbol": "wstETH",
                "name": "Wrapped liquid staked Ether 2.0",
                "decimals": 18,
            },
            "balance": str(world.shares["wstETH"]),
            "shares": str(world.shares["wstETH"]),
            "stEth": str(wrapped),
            "balanceUsd": usd(wrapped),
            "apy": pytest.approx(apy, rel=1e-12),
        },
    ]
    assert entry["withdrawalRequests"] == []


async def test_withdrawal_requests_pay_what_the_queue_says(world_client, world):
    """Pending, finalized and claimable, finalized and claimed: in the queue's order; what each
    pays is getClaimableEther with the hints of the ids sorted (the queue refuses them unsorted)."""
    entry = await answer(world_client, world.wallets["requester"])
    assert entry["stakedPositions"] == []
    assert entry["withdrawalRequests"] == [
        {
            "requestId": str(request),
            "amountOfStETH": str(steth),
            "amountOfStETHUsd": float(Fraction(steth * L.STETH_USD, 10**26)),
            "amountOfShares": str(shares),
            "requestedAt": world.requested_at,
            "isFinalized": finalized,
            "isClaimed": claimed,
            "claimableEth": str(payable),
            "claimableEthUsd": float(Fraction(payable * L.ETH_USD, 10**26)),
        }
        for request, (steth, shares, finalized, claimed, payable) in L.REQUESTS.items()
    ]


POOL = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) {
  data { poolAddress warnings { code message target } details { ... on LidoPool {
    type token { address symbol name decimals } chainId totalSupply ethPerToken totalEth totalEthUsd apy
    unfinalizedStETH lastRequestId lastFinalizedRequestId } } }
  errors { poolAddress error { code message } } } }"""


async def test_steth_and_wsteth_as_pools_with_the_queues_totals(world_client, world):
    """stETH's supply is the pooled ether, wstETH's the shares it wraps, worth their stETH; the
    rate and APY are the positions'; the queue's unfinalized stETH is the pending request's, its
    last ids the newest made and finalized; the queue's own address is refused naming the tokens."""
    inputs = [
        {"protocol": "lido", "chainId": 31337, "poolAddress": a} for a in (world.steth, world.wsteth, world.queue)
    ]
    reply = await world_client.query(POOL, {"inputs": inputs})
    found = reply.body["data"]["poolDetails"]
    (refused,) = found["errors"]
    assert (
        refused["error"]["code"] == "VALIDATION_ERROR"
        and f"{world.wsteth} (lido-wsteth)" in refused["error"]["message"]
    )
    steth, wsteth = (entry["details"] for entry in found["data"])
    assert all(entry["warnings"] == [] for entry in found["data"])
    positions = {p["type"]: p for p in (await answer(world_client, world.wallets["holder"]))["stakedPositions"]}
    pooled, shares = L.TOTALS[1]
    wrapped = world.shares["wstETH"] * pooled // shares
    queue = {
        "unfinalizedStETH": str(sum(r[0] for r in L.REQUESTS.values() if not r[2])),
        "lastRequestId": str(max(L.REQUESTS)),
        "lastFinalizedRequestId": str(max(request for request, r in L.REQUESTS.items() if r[2])),
    }
    for pool, kind, supply, eth in (
        (steth, "lido-steth", pooled, pooled),
        (wsteth, "lido-wsteth", world.shares["wstETH"], wrapped),
    ):
        assert pool == {
            "type": f"{kind}-pool",
            "token": positions[kind]["token"],
            "chainId": 31337,
            "totalSupply": str(supply),
            "ethPerToken": str(ether_per_share(pooled, shares)),
            "totalEth": str(eth),
            "totalEthUsd": float(Fraction(eth * L.STETH_USD, 10 ** (18 + 8))),
            "apy": positions[kind]["apy"],
            **queue,
        }, kind
    assert queue["unfinalizedStETH"] == str(L.ETHER) and queue["lastFinalizedRequestId"] == "7"


def ether_per_share(pooled: int, shares: int) -> int:
    return L.ETHER * pooled // shares


async def test_a_wallet_with_nothing_has_empty_lists(world_client, world):
    entry = await answer(world_client, world.wallets["empty"])
    assert entry["stakedPositions"] == entry["withdrawalRequests"] == []


def test_the_adapter_reads_lidos_published_abi():
    (published,) = registries(["lido"])
    contracts = {
        "SHARES_OF": "stETH",
        "POOLED_ETH_BY_SHARES": "stETH",
        "STETH_BY_WSTETH": "wstETH",
        "WITHDRAWAL_REQUESTS": "withdrawalQueue",
        "WITHDRAWAL_STATUS": "withdrawalQueue",
        "LAST_CHECKPOINT_INDEX": "withdrawalQueue",
        "CHECKPOINT_HINTS": "withdrawalQueue",
        "CLAIMABLE_ETHER": "withdrawalQueue",
        "UNFINALIZED_STETH": "withdrawalQueue",
        "LAST_REQUEST_ID": "withdrawalQueue",
        "LAST_FINALIZED_REQUEST_ID": "withdrawalQueue",
    }
    functions = functions_of(lido) | functions_of(lido_pools) | functions_of(lido_shares)
    assert set(functions) == set(contracts)
    for name, function in functions.items():
        assert published[contracts[name]][function.signature] == function.output_types, name
