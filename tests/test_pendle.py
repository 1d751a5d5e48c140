"""The Pendle adapter against Pendle's own PT, YT and market contracts on anvil (tests/pendle_world.py).

Every figure is compared with what Pendle's software says at the same block: RouterStatic's
rates and its simulated user views (deployed from the same package), and Pendle's offchain math
for the implied yield and the PT's exchange rate.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from datetime import UTC, datetime
from fractions import Fraction

import pytest

import protocols
import server
from adapters.history import iso_date
from adapters.pendle import contracts
from adapters.pendle.market import PendleReader
from adapters.pendle.section import PENDLE
from adapters.position_warnings import PriceUnavailable, Warnings
from adapters.prices import Kind, PriceSource, UsdPrice, noting_prices, routing, usd_price
from adapters.protocol import price_routes
from chain.abi import Function, parse_type
from errors import IndexUnavailable
from tests import pendle_world as P
from tests.conftest import covered_to, query_positions, until_indexed, world_api, world_fixture
from tests.evm import abi_type
from tests.node_oracles import ask
from tests.rpc_proxy import RpcProxy

WAD = 10**18
TOKEN = "{ address symbol name decimals }"
COMMON = (
    f"marketAddress chainId underlyingAsset {TOKEN} syTokenAddress balance balanceUsd impliedApy expiry "
    "expiryDate expired"
)
QUERY = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
  data {{ ... on PendleWalletPositions {{ protocol walletAddress chainId blockNumber warnings {{ code message target }}
    ptPositions {{ type {COMMON} ptToken {TOKEN} ptPrice ptDiscount }}
    ytPositions {{ type {COMMON} ytToken {TOKEN} ytPrice accruedInterest {{ amount amountUsd }}
                  rewards {{ token {TOKEN} amount amountUsd }} }}
    lpPositions {{ type {COMMON} lpToken {TOKEN} lpPrice ptShare syShare }}
    syPositions {{ type syTokenAddress chainId syToken {TOKEN} underlyingAsset {TOKEN} balance balanceUsd
                  exchangeRate }} }} }}
  errors {{ protocol chainId walletAddress error {{ code message retryable }} }} }} }}"""
MARKET_STATE = (
    "address",
    "address",
    "address",
    "int256",
    "uint256",
    "(int256,int256,int256,address,int256,uint256,uint256,uint256,uint256)",
)
USER_INFO = "((address,uint256),(address,uint256),(address,uint256),(address,uint256)[])"
"""RouterStatic's UserPYInfo (PT, YT, interest, rewards) and UserMarketInfo (LP, PT, SY, rewards)."""


world = world_fixture(P.build)


async def positions(api, *wallets):
    return await query_positions(api, QUERY, "pendle", wallets)


def offchain_math(items: list[dict[str, int]]) -> list[dict[str, int]]:
    answers = ask("pendle_math.cjs", [{k: str(v) for k, v in item.items()} for item in items])
    return [{k: int(v) for k, v in answer.items()} for answer in answers]


def usd(amount_in_asset: Fraction, feed_answer: int = P.USDE_USD) -> float:
    return float(amount_in_asset * feed_answer / 10 ** (18 + 8))


def close(value: float | None, expected: float, relative: float = 1e-12) -> bool:
    return value is not None and abs(value - expected) <= relative * abs(expected)


def token(world, address: str, symbol: str) -> dict:
    name = world.node.call(address, "name()", returns=["string"])
    return {"address": address, "symbol": symbol, "name": name, "decimals": 18}


async def test_pt_yt_lp_and_sy_positions_equal_pendles_own_views(world_client, world):
    (answer,) = (await positions(world_client, world.wallets["pendler"]))["data"]
    block = answer["blockNumber"]
    assert answer["protocol"] == "pendle" and answer["chainId"] == 31337
    now = int(world.node.rpc("eth_getBlockByNumber", hex(block), False)["timestamp"], 16)
    active, expired = world.active, world.expired
    matured = iso_date(expired.expiry)
    assert answer["warnings"] == [
        {
            "code": "FIGURE_UNAVAILABLE",
            "message": f"impliedApy is null: it matured on {matured}",
            "target": expired.market,
        }
    ], "the matured market's APY, named; nothing else"
    usde = token(world, world.tokens["USDE"], "USDE")

    def static(signature, *args, returns=("uint256",)):
        return world.static(signature, *args, returns=returns, block=block)

    _, _, _, implied_yield, _, state = static("getMarketState(address)", active.market, returns=MARKET_STATE)
    total_pt, total_sy, total_lp, *_, ln_rate = state
    (oracle,) = offchain_math([{"lnImpliedRate": ln_rate, "timeToExpiry": active.expiry - now}])
    assert oracle["impliedYield"] == implied_yield, "Pendle's offchain math and RouterStatic agree"
    implied_apy = implied_yield / WAD - 1
    pt_price = static("getPtToAssetRate(address)", active.market) / WAD
    assert close(pt_price, WAD / oracle["assetToPtRate"])
    expired_pt_price = static("getPtToAssetRate(address)", expired.market) / WAD

    pts = {pt["ptToken"]["address"]: pt for pt in answer["ptPositions"]}
    assert set(pts) == {active.pt, expired.pt}
    live, done = pts[active.pt], pts[expired.pt]
    assert live["type"] == "pendle-pt" and live["marketAddress"] == active.market and live["chainId"] == 31337
    assert live["underlyingAsset"] == usde and live["syTokenAddress"] == world.sy
    assert live["ptToken"] == token(world, active.pt, "PT-TEST")
    assert live["balance"] == str(150 * WAD + 7)
    assert close(live["impliedApy"], implied_apy) and close(live["ptPrice"], pt_price)
    assert close(live["ptDiscount"], 1 - pt_price, 1e-10)
    assert close(live["balanceUsd"], usd(Fraction(150 * WAD + 7) * Fraction(pt_price)))
    assert live["expiry"] == active.expiry and live["expired"] is False
    assert live["expiryDate"] == datetime.fromtimestamp(active.expiry, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert done["expired"] is True and done["impliedApy"] is None and done["marketAddress"] == expired.market
    assert close(done["ptPrice"], expired_pt_price) and done["balance"] == str(40 * WAD)

    pendler = world.wallets["pendler"]
    yts = {yt["ytToken"]["address"]: yt for yt in answer["ytPositions"]}
    assert set(yts) == {active.yt, expired.yt}
    for maturity, balance in ((active, 120 * WAD + 3), (expired, 30 * WAD + 1)):
        yt = yts[maturity.yt]
        info = world.static("getUserPYInfo(address,address)", maturity.yt, pendler, returns=(USER_INFO,), block=block)
        (_, _pt_balance), (_, yt_balance), (sy, interest), rewards = info
        assert yt["balance"] == str(yt_balance) == str(balance)
        assert yt["accruedInterest"]["amount"] == str(interest) and interest > 0
        assert close(yt["accruedInterest"]["amountUsd"], usd(Fraction(interest * 118, 100)))
        assert [(r["token"]["address"], r["amount"]) for r in yt["rewards"]] == [(t, str(a)) for t, a in rewards]
        assert rewards[0][1] > 0 and close(yt["rewards"][0]["amountUsd"], float(Fraction(rewards[0][1] * 2, WAD)))
        yt_price = static("getYtToAssetRate(address)", maturity.market) / WAD
        assert close(yt["ytPrice"], yt_price, 1e-9)
        assert close(yt["balanceUsd"], usd(Fraction(balance) * Fraction(yt["ytPrice"])))
    assert close(yts[active.yt]["impliedApy"], implied_apy) and yts[expired.yt]["impliedApy"] is None

    (lp,) = answer["lpPositions"]
    lp_balance = 50 * WAD + 11
    (_, lp_held), (_, pt_share), (_, sy_share), _ = world.static(
        "getUserMarketInfo(address,address)", active.market, pendler, returns=(USER_INFO,), block=block
    )
    assert lp["type"] == "pendle-lp" and lp["marketAddress"] == active.market
    assert lp["lpToken"]["address"] == active.market and lp["balance"] == str(lp_held) == str(lp_balance)
    assert (lp["ptShare"], lp["syShare"]) == (str(pt_share), str(sy_share))
    assert (pt_share, sy_share) == (lp_balance * total_pt // total_lp, lp_balance * total_sy // total_lp)
    lp_price = static("getLpToAssetRate(address)", active.market) / WAD
    assert close(lp["lpPrice"], lp_price) and close(lp["impliedApy"], implied_apy)
    assert close(lp["balanceUsd"], usd(Fraction(lp_balance) * Fraction(lp["lpPrice"])))

    (sy,) = answer["syPositions"]
    assert sy == {
        "type": "pendle-sy",
        "syTokenAddress": world.sy,
        "chainId": 31337,
        "syToken": token(world, world.sy, "SY-USDE"),
        "underlyingAsset": usde,
        "balance": str(77 * WAD + 5),
        "balanceUsd": usd(Fraction((77 * WAD + 5) * 118, 100)),
        "exchangeRate": 1.18,
    }


async def test_a_yt_sold_after_interest_accrued_is_listed_with_the_interest_due(world_client, world):
    (answer,) = (await positions(world_client, world.wallets["former"]))["data"]
    (yt,) = answer["ytPositions"]
    _, _, (_, interest), _ = world.static(
        "getUserPYInfo(address,address)",
        world.active.yt,
        world.wallets["former"],
        returns=(USER_INFO,),
        block=answer["blockNumber"],
    )
    assert yt["balance"] == "0" and yt["balanceUsd"] == 0.0
    assert yt["accruedInterest"]["amount"] == str(interest) and interest > 0
    assert answer["ptPositions"] == answer["lpPositions"] == answer["syPositions"] == []


async def test_inputs_that_share_an_sys_asset_each_note_its_price(world, open_chains, tmp_path):
    """Inputs of one request share a reader, and the SY's asset is read once for them all; each
    input still notes its price (its `usdPrices`) and would get its own warning, whichever input
    read it first."""
    chain = protocols.load_addresses(world.write_addresses(tmp_path / "a.json"))[world.node.chain_id]
    chains = await open_chains({world.node.chain_id: world.node.url})
    reader = chains.request(asyncio.get_running_loop().time() + 10).reader(world.node.chain_id)

    async def one_input() -> set[str]:
        with noting_prices(reader) as prices:
            asset = await PendleReader(reader, chain, Warnings()).asset(world.sy)
        assert asset.price is not None
        return {asset_address for asset_address, _feed in prices}

    first, second = await asyncio.gather(one_input(), one_input())
    assert first == second and len(first) == 1


async def test_pt_yt_and_lp_are_priced_wherever_they_appear_by_pendles_own_oracle(world_client, world):
    """A PT, YT or LP token met outside Pendle (a lending market's collateral) is priced by
    Pendle's PendlePYLpOracle: its rate of the market over 900 s in the SY's asset (raw per raw,
    1e18), times the asset's feed; stated as a protocol rate that rests on a market, so no
    liquidation check uses it. A market traded within the window has no such rate: named."""
    node, chain_id = world.node, world.node.chain_id
    node.mine(100)  # Pendle's tokens settled: the route finds them in the index's stored part
    await positions(world_client, world.wallets["pendler"])
    app = world_client.app
    registry, indexes = app[server.REGISTRY], app[server.INDEXES]
    chain = registry["pendle"].chain(chain_id)
    await until_indexed(indexes.store(chain_id), contracts.stream(PENDLE.of(chain)), node)
    active, expired = world.active, world.expired
    asked = {
        active.pt: ("getPtToAssetRate(address,uint32)", active.market),
        active.yt: ("getYtToAssetRate(address,uint32)", active.market),
        active.market: ("getLpToAssetRate(address,uint32)", active.market),
        expired.pt: ("getPtToAssetRate(address,uint32)", expired.market),
    }

    async def priced(token: str) -> UsdPrice:
        reader = app[server.CHAINS].request(asyncio.get_running_loop().time() + 10).reader(chain_id)
        with routing(price_routes(registry.values(), indexes)):
            return await usd_price(reader, chain, token)

    block = node.block_number()
    for token, (view, market) in asked.items():
        price = await priced(token)
        rate = node.call(world.oracle, view, market, 900, block=block)
        assert rate > 0 and price.per_token() == Fraction(rate, WAD) * Fraction(P.USDE_USD, 10**8), token
        assert price.source == PriceSource(
            token,
            world.feeds["USDE"],
            price.source.age,
            Kind.PROTOCOL_RATE,
            world.oracle,
            world.tokens["USDE"],
            window=900,
            market=True,
        ), token
        assert price.for_checks() is None
    reader = app[server.CHAINS].request(asyncio.get_running_loop().time() + 10).reader(chain_id)
    with pytest.raises(PriceUnavailable, match="no protocol's own"):
        await usd_price(reader, chain, active.pt)  # no routes: not Pendle's to price

    snapshot = node.rpc("evm_snapshot")
    try:
        node.send(active.pt, "transfer(address,uint256)", active.market, WAD)
        node.send(active.market, "swapExactPtForSy(address,uint256,bytes)", node.accounts[0], WAD, b"")
        with pytest.raises(
            PriceUnavailable, match=f"oracle's 900 s rate of market {active.market}.*reverted.*OracleTargetTooOld"
        ):
            await priced(active.pt)
    finally:
        node.rpc("evm_revert", snapshot)


async def test_a_wallet_without_pendle_positions_gets_empty_lists(world_client, world):
    (answer,) = (await positions(world_client, world.wallets["empty"]))["data"]
    assert answer["warnings"] == []
    assert answer["ptPositions"] == answer["ytPositions"] == answer["lpPositions"] == answer["syPositions"] == []


async def test_a_broken_sy_leaves_positions_listed_with_its_figures_null_and_named(world_client, world):
    world.node.send(world.sy, "setBroken(bool)", True)
    try:
        (answer,) = (await positions(world_client, world.wallets["pendler"]))["data"]
    finally:
        world.node.send(world.sy, "setBroken(bool)", False)
    assert [len(answer[kind]) for kind in ("ptPositions", "ytPositions", "lpPositions", "syPositions")] == [2, 2, 1, 1]
    for position in answer["ptPositions"] + answer["ytPositions"] + answer["lpPositions"]:
        assert position["balanceUsd"] is None and position["impliedApy"] is None and position["expired"] is None
    assert all(yt["accruedInterest"] is None and yt["rewards"] is None for yt in answer["ytPositions"])
    assert answer["syPositions"][0]["exchangeRate"] is None and answer["syPositions"][0]["balanceUsd"] is None
    named = {(w["code"], w["target"]) for w in answer["warnings"]}
    assert ("FIGURE_UNAVAILABLE", world.sy) in named and ("FIGURE_UNAVAILABLE", world.active.market) in named
    assert ("FIGURE_UNAVAILABLE", world.active.yt) in named


async def test_a_cold_index_checks_every_known_token_and_says_how_far_it_reaches(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path
):
    """While the stored index is too far behind and its scan is slow, every PT, YT and LP of the
    catalog it has is checked in bulk, and a warning says how far the index reaches."""
    node, newcomer = world.node, world.node.accounts[16]
    proxy = RpcProxy(node.url)
    proxy.url = str((await aiohttp_server(proxy.app(), host="127.0.0.1")).make_url("/"))
    path = world.write_addresses(tmp_path / "a.json")
    api = await world_api(
        aiohttp_client, keys_file, api_key, path, node, url=proxy.url, logs_block_range=4, input_timeout=8
    )  # the scan's logs take 10 s, past the budget; half of it waits for the scan, the rest reads
    stream = contracts.stream(PENDLE.of(protocols.load_addresses(str(path))[node.chain_id]))
    index = api.app[server.INDEXES].store(node.chain_id)
    snapshot = node.rpc("evm_snapshot")
    try:
        node.mine(100)
        await positions(api, newcomer)
        await until_indexed(index, stream, node)
        node.send(world.active.pt, "transfer(address,uint256)", newcomer, 5 * WAD)
        node.mine(120)
        proxy.method_delays = {"eth_getLogs": 10.0}
        (entry,) = (await positions(api, newcomer))["data"]
    finally:
        proxy.method_delays = {}
        node.rpc("evm_revert", snapshot)
    found = [(pt["ptToken"]["address"], pt["balance"]) for pt in entry["ptPositions"]]
    assert found == [(world.active.pt, str(5 * WAD))]
    (warning,) = entry["warnings"]
    assert warning["code"] == "PART_UNREADABLE" and warning["target"] == "pendle"
    assert f"reaches block {await covered_to(index, stream)} of {entry['blockNumber']}" in warning["message"]


async def test_a_store_unreadable_for_the_prefetch_but_read_for_the_view_costs_no_position(
    world_client, world, tmp_path, monkeypatch
):
    """The stored part is read twice: for the prefetch, then with the tail. Where the first read
    fails (a shared database back in between, as after an outage) or a scan stores more in
    between, the catalog is the second read's: the first one's, kept whenever the tail named no
    new market, once left every position out, without a warning, in an answer kept as complete."""
    node, pendler = world.node, world.wallets["pendler"]
    stream = contracts.stream(
        PENDLE.of(protocols.load_addresses(world.write_addresses(tmp_path / "b.json"))[node.chain_id])
    )
    store = world_client.app[server.INDEXES].store(node.chain_id)
    snapshot, failures = store.snapshot, [IndexUnavailable("the event index database cannot be reached")]

    async def once_unreadable(name: str, start_block: int, stale: bool = False):
        if name == stream.name and failures and unreadable:
            raise failures.pop()
        return await snapshot(name, start_block, stale)

    unreadable = False
    monkeypatch.setattr(store, "snapshot", once_unreadable)
    saved = node.rpc("evm_snapshot")
    try:
        node.mine(100)  # every market settled: the stored part names them all, the tail none
        (before,) = (await positions(world_client, pendler))["data"]
        await until_indexed(store, stream, node)
        node.mine()
        unreadable = True
        (after,) = (await positions(world_client, pendler))["data"]
    finally:
        node.rpc("evm_revert", saved)
    assert not failures and after["blockNumber"] > before["blockNumber"]

    def held(entry):
        lists = ("ptPositions", "ytPositions", "lpPositions", "syPositions")
        return [(p["type"], p["balance"], p["syTokenAddress"], p.get("marketAddress")) for k in lists for p in entry[k]]

    assert held(after) == held(before) and len(held(before)) == 6
    assert after["warnings"] == before["warnings"]


async def test_an_lp_of_a_market_whose_pt_no_listed_factory_made_is_left_out_and_named(
    aiohttp_client, keys_file, api_key, world, tmp_path
):
    node, holder = world.node, world.node.accounts[15]
    snapshot = node.rpc("evm_snapshot")
    try:
        other = node.deploy(
            P.compile_all()["TestPendleFactory"], ["address", "address"], [node.accounts[1], world.tokens["PENDLE"]]
        )
        now = int(node.rpc("eth_getBlockByNumber", "latest", False)["timestamp"], 16)
        stranger = P.maturity(node, dataclasses.replace(world, factory=other), now + 90 * P.DAY)
        node.send(stranger.market, "transfer(address,uint256)", holder, 3 * WAD)
        data = world.addresses_override()
        data[str(node.chain_id)]["pendle"]["marketFactories"].append({"address": other, "startBlock": 0})
        path = tmp_path / "a.json"
        path.write_text(json.dumps(data))
        api = await world_api(aiohttp_client, keys_file, api_key, path, node)
        (entry,) = (await positions(api, holder))["data"]
    finally:
        node.rpc("evm_revert", snapshot)
    assert entry["lpPositions"] == []
    (warning,) = entry["warnings"]
    assert warning["code"] == "PART_UNREADABLE" and warning["target"] == stranger.market
    assert stranger.pt in warning["message"] and "not from a known yield-contract factory" in warning["message"]


POOL_QUERY = f"""query($inputs: [PoolInput!]!) {{ poolDetails(inputs: $inputs) {{
  data {{ poolAddress blockNumber data warnings {{ code message target }}
    details {{ ... on PendleMarketPool {{ type marketAddress chainId sy {TOKEN} pt {TOKEN} yt {TOKEN}
      underlyingAsset {TOKEN} expiry expiryDate isExpired impliedApy ptPrice ytPrice lpPrice ptDiscount syExchangeRate
      pyIndex totalPt totalSy totalLp liquidityUsd }} }} }}
  errors {{ poolAddress error {{ code message }} }} }} }}"""


async def test_pool_details_of_a_live_and_an_expired_market_equal_router_static(world_client, world):
    active, expired = world.active, world.expired
    reply = await world_client.query(
        POOL_QUERY,
        {
            "inputs": [
                {"protocol": "pendle", "chainId": 31337, "poolAddress": address}
                for address in (active.market, expired.market, active.pt)
            ]
        },
    )
    live, done = reply.body["data"]["poolDetails"]["data"]
    (error,) = reply.body["data"]["poolDetails"]["errors"]
    assert (error["poolAddress"], error["error"]["code"]) == (active.pt, "VALIDATION_ERROR")
    assert error["error"]["message"].endswith(
        "no configured market factory created it. Expected a Pendle market address."
    )
    block = live["blockNumber"]
    assert live["warnings"] == []
    assert done["warnings"] == [
        {
            "code": "FIGURE_UNAVAILABLE",
            "message": f"impliedApy is null: the market matured on {iso_date(expired.expiry)}",
            "target": expired.market,
        }
    ]

    def static(signature, *args, returns=("uint256",)):
        return world.static(signature, *args, returns=returns, block=block)

    _, _, _, implied_yield, _, state = static("getMarketState(address)", active.market, returns=MARKET_STATE)
    total_pt, total_sy, total_lp, *_ = state
    details = live["details"]
    pt_price = static("getPtToAssetRate(address)", active.market) / WAD
    assert close(details.pop("impliedApy"), implied_yield / WAD - 1)
    assert close(details.pop("ptPrice"), pt_price) and close(details.pop("ptDiscount"), 1 - pt_price, 1e-10)
    assert close(details.pop("ytPrice"), static("getYtToAssetRate(address)", active.market) / WAD, 1e-9)
    lp_price = static("getLpToAssetRate(address)", active.market) / WAD
    assert close(details.pop("lpPrice"), lp_price)
    assert close(details.pop("liquidityUsd"), usd(Fraction(total_lp) * Fraction(lp_price)), 1e-9)
    sy_rate = world.node.call(world.sy, "exchangeRate()", block=block)
    assert details == {
        "type": "pendle-market-pool",
        "marketAddress": active.market,
        "chainId": 31337,
        "sy": token(world, world.sy, "SY-USDE"),
        "pt": token(world, active.pt, "PT-TEST"),
        "yt": token(world, active.yt, "YT-TEST"),
        "underlyingAsset": token(world, world.tokens["USDE"], "USDE"),
        "expiry": active.expiry,
        "expiryDate": datetime.fromtimestamp(active.expiry, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "isExpired": False,
        "syExchangeRate": str(sy_rate),
        "pyIndex": str(max(sy_rate, world.node.call(active.yt, "pyIndexStored()", block=block))),
        "totalPt": str(total_pt),
        "totalSy": str(total_sy),
        "totalLp": str(total_lp),
    }
    assert json.loads(live["data"])["totalLp"] == str(total_lp)
    finished = done["details"]
    assert finished["isExpired"] is True and finished["impliedApy"] is None
    assert close(finished["ptPrice"], static("getPtToAssetRate(address)", expired.market) / WAD)


def test_the_functions_called_are_as_pendle_publishes_them():
    """Every function's output types, and the names we give outputs (a leading underscore off),
    against the ABIs of the contracts the world deploys (the SY's interface: the package ships none)."""
    published = {
        f"{entry['name']}({','.join(abi_type(i) for i in entry['inputs'])})": entry["outputs"]
        for path in (
            "core/YieldContracts/PendleYieldToken.sol/PendleYieldToken",
            "core/Market/PendleMarketV7.sol/PendleMarketV7",
            "interfaces/IStandardizedYield.sol/IStandardizedYield",
            "interfaces/IPMarketFactory.sol/IPMarketFactory",
            "oracles/PtYtLpOracle/PendlePYLpOracle.sol/PendlePYLpOracle",
        )
        for entry in P.package_artifact(path).abi
        if entry.get("type") == "function"
    }
    functions = [value for value in vars(contracts).values() if isinstance(value, Function)]
    assert len(functions) == 15
    for function in functions:
        outputs = published[function.signature]
        assert function.output_types == [abi_type(output) for output in outputs], function.signature
        names = parse_type(f"({','.join(function.outputs)})").names
        assert all(ours == theirs["name"].lstrip("_") for ours, theirs in zip(names, outputs)), function.signature
