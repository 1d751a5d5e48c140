"""Maker (Sky) vaults against test contracts with Maker's signatures and arithmetic
(tests/maker_world.py): every figure from the Vat, Spotter and Jug at the block, and the
liquidation price checked by the Dog's own `bark`."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import eth_abi
import pytest

from adapters.maker import contracts as C
from tests import maker_world as W
from tests.conftest import input_entries, world_fixture
from tests.evm import selector
from tests.node_oracles import abi_functions, maker_abi, maker_abi_entries

QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on MakerWalletPositions { walletAddress holder via blockNumber blockTimestamp
    warnings { code target message }
    vaults { type cdpId urn ilk collateralAsset { address symbol decimals } collateral collateralUsd
      debtAsset { symbol } normalizedDebt debt debtUsd priceUsd stabilityFeeApy liquidationRatio
      risk { healthFactor loanToValue liquidationLoanToValue
        liquidationPrices { asset { symbol } priceUsd priceInLoanAsset dropToLiquidation }
        oracle { address updatedAt ageSeconds } } } } }
  errors { error { code message } } } }"""

world = world_fixture(W.build)


async def entries(api: Any, wallet: str, **more: Any) -> list[dict[str, Any]]:
    return await input_entries(api, QUERY, "maker", wallet, **more)


def expected(world: W.MakerWorld, ilk: str, urn: str, block: int, now: int) -> dict[str, Any]:
    """What the contracts say the vault is at `block`: its ink and art, and the debt Jug.drip
    would make of them at the block's time (the formulas of docs/protocols/maker.md)."""
    node, key = world.node, W.ilk_key(ilk)
    ink, art = node.call(
        world.contracts["MCD_VAT"], "urns(bytes32,address)", key, urn, returns=("uint256", "uint256"), block=block
    )
    _, rate, spot, _, _ = node.call(
        world.contracts["MCD_VAT"], "ilks(bytes32)", key, returns=("uint256",) * 5, block=block
    )
    _, mat = node.call(world.contracts["MCD_SPOT"], "ilks(bytes32)", key, returns=("address", "uint256"), block=block)
    duty, rho = node.call(world.contracts["MCD_JUG"], "ilks(bytes32)", key, returns=("uint256", "uint256"), block=block)
    dripped = C.dripped(rate, duty, 0, rho, now)
    assert dripped == node.call(world.contracts["MCD_JUG"], "drip(bytes32)", key, block=block), "Jug.drip's own rate"
    debt = -(-art * dripped // W.RAY)
    return {
        "ink": ink,
        "art": art,
        "debt": debt,
        "mat": mat,
        "spot": spot,
        "owed": Fraction(art * dripped, W.RAY * W.WAD),
    }


async def test_a_vault_through_a_dsproxy_is_the_proxys_entry_with_every_figure_from_the_contracts(world_client, world):
    owner = world.wallets["owner"]
    own, proxied = await entries(world_client, owner)
    assert own["vaults"] == [] and own["warnings"] == []
    assert (proxied["walletAddress"], proxied["holder"], proxied["via"]) == (owner, world.proxy, "dsproxy")
    (vault,) = proxied["vaults"]
    urn = world.node.call(
        world.contracts["CDP_MANAGER"], "urns(uint256)", world.cdps["proxy"], returns=("address",)
    ).lower()
    figures = expected(world, "ETH-A", urn, proxied["blockNumber"], proxied["blockTimestamp"])
    price = Fraction(W.ILKS["ETH-A"][2], W.WAD)
    assert vault["type"] == "maker-vault" and vault["cdpId"] == str(world.cdps["proxy"]) and vault["urn"] == urn
    assert vault["ilk"] == "ETH-A" and vault["collateralAsset"]["symbol"] == "WETH"
    assert vault["collateral"] == str(figures["ink"]) == str(10 * W.WAD)
    assert vault["normalizedDebt"] == str(figures["art"])
    assert vault["debt"] == str(figures["debt"])
    assert int(vault["debt"]) == pytest.approx(12_000 * W.WAD * 1.05, rel=1e-3), "a year at 5 %"
    assert vault["debtAsset"]["symbol"] == "DAI"
    assert vault["priceUsd"] == pytest.approx(float(price), rel=1e-15)
    assert vault["collateralUsd"] == pytest.approx(10 * float(price), rel=1e-15)
    assert vault["liquidationRatio"] == 1.45
    assert vault["stabilityFeeApy"] == pytest.approx(0.05, rel=1e-9)
    risk = vault["risk"]
    assert risk["liquidationLoanToValue"] == pytest.approx(1 / 1.45)
    assert risk["healthFactor"] == pytest.approx(float(10 * price / Fraction(145, 100) / figures["owed"]), rel=1e-12)
    (liquidation,) = risk["liquidationPrices"]
    assert liquidation["priceUsd"] == pytest.approx(float(figures["owed"] * Fraction(145, 100) / 10), rel=1e-12)
    assert risk["oracle"]["address"] == world.pips["ETH-A"]
    dai = world.node.call(world.contracts["MCD_DAI"], "balanceOf(address)", owner, block=proxied["blockNumber"])
    assert dai == 12_000 * W.WAD, "lockGemAndDraw's draw, out through the DaiJoin"


@pytest.mark.parametrize(("cdp", "ilk"), [("proxy", "ETH-A"), ("direct", "WBTC-A")])
async def test_the_liquidation_price_is_where_the_dogs_bark_starts_to_succeed(world_client, world, cdp, ilk):
    """The answer's liquidation price is the vault's debt x mat x par / ink, and it is the Dog's own
    line: with the Jug dripped (keepers drip before they bark; the answer's rate' is then the Vat's
    rate), the ilk's OSM set a hair above it leaves `bark` refused as not unsafe, a hair below lets
    it through. Both CdpManager vaults: ETH-A's through the DSProxy (mat 1.45) and the wallet's
    own WBTC-A (mat 1.75, a gem of 8 decimals). Done in a snapshot, reverted after."""
    node, made = world.node, world.contracts
    vat, spotter, jug, dog = made["MCD_VAT"], made["MCD_SPOT"], made["MCD_JUG"], made["MCD_DOG"]
    key, keeper, bark = W.ilk_key(ilk), node.accounts[0], "bark(bytes32,address,address)"
    wallet = world.wallets["owner" if cdp == "proxy" else "direct"]
    urn = node.call(made["CDP_MANAGER"], "urns(uint256)", world.cdps[cdp], returns=("address",)).lower()
    before = [
        node.call(vat, "ilks(bytes32)", key, returns=("uint256",) * 5),
        node.call(jug, "ilks(bytes32)", key, returns=("uint256",) * 2),
    ]
    snapshot = node.rpc("evm_snapshot")
    try:
        node.send(jug, "drip(bytes32)", key)
        (entry, vault), *others = [
            (entry, vault)
            for entry in await entries(world_client, wallet)
            for vault in entry["vaults"]
            if vault["cdpId"] == str(world.cdps[cdp])
        ]
        assert others == [] and vault["ilk"] == ilk and vault["urn"] == urn
        block = entry["blockNumber"]
        assert block == node.block_number(), "the answer is the dripped block's"
        ink, art = node.call(vat, "urns(bytes32,address)", key, urn, returns=("uint256", "uint256"), block=block)
        _, rate, _, _, _ = node.call(vat, "ilks(bytes32)", key, returns=("uint256",) * 5, block=block)
        _, mat = node.call(spotter, "ilks(bytes32)", key, returns=("address", "uint256"), block=block)
        par = node.call(spotter, "par()", block=block)
        _, rho = node.call(jug, "ilks(bytes32)", key, returns=("uint256", "uint256"), block=block)
        assert rho == entry["blockTimestamp"], "nothing left to drip: rate' is the Vat's rate, which bark reads"
        assert ink > 0 and art > 0 and mat == W.ILKS[ilk][3] and par == W.RAY
        # The Dog's line: ink x spot < art x rate with spot = price / par / mat (Spotter.poke), so
        # the price at which bark starts to succeed is (art x rate) x mat x par / ink, in USD.
        line = Fraction(art * rate, W.WAD * W.RAY) * Fraction(mat, W.RAY) * Fraction(par, W.RAY) / Fraction(ink, W.WAD)
        (liquidation,) = vault["risk"]["liquidationPrices"]
        answered = liquidation["priceUsd"]
        assert answered == float(line), "the exact figure (debt at the ilk's mat over the collateral), rounded once"
        # "A hair": the answer's neighbouring doubles, the smallest margin its precision allows. The
        # answer is the exact line rounded once to a double (adapters/risk.py), so the line lies
        # within half a step of it, strictly between its neighbours; rounded outwards to the OSM's
        # wads they still bracket it, a wad (1e-18 USD) being over 10^5 times finer than a double's
        # step here (2^-52 relative: ~2e-13 USD at ETH-A's ~1,800, ~7e-12 at WBTC-A's ~36,000), and
        # the Spotter's rounding of spot down finer still. A relative 1e-6 would let an answer a
        # millionth off pass; this one fails an answer 1e-12 off either way.
        above = math.ceil(Fraction(math.nextafter(answered, math.inf)) * W.WAD)
        below = math.floor(Fraction(math.nextafter(answered, 0)) * W.WAD)
        assert below < line * W.WAD < above and (above - below) / (line * W.WAD) < 1e-15
        world.set_price(ilk, above)
        assert node.call_reverts(dog, bark, key, urn, keeper, sender=keeper), "just above the line: still safe"
        with pytest.raises(RuntimeError, match="Dog/not-unsafe"):
            node.call(dog, bark, key, urn, keeper)
        world.set_price(ilk, below)
        assert not node.call_reverts(dog, bark, key, urn, keeper, sender=keeper), "just below: bark takes it"
    finally:
        node.rpc("evm_revert", snapshot)
    after = [
        node.call(vat, "ilks(bytes32)", key, returns=("uint256",) * 5),
        node.call(jug, "ilks(bytes32)", key, returns=("uint256",) * 2),
    ]
    assert after == before, "the Vat's rate and spot and the Jug's rho as they were"
    assert node.call(world.pips[ilk], "peek()", returns=("uint256", "bool")) == (world.price(ilk), True)


async def test_vaults_and_urns_the_wallet_owns_itself_and_a_staking_engine_urn(world_client, world):
    (own,) = await entries(world_client, world.wallets["direct"])
    kinds = [(vault["type"], vault["ilk"], vault["cdpId"]) for vault in own["vaults"]]
    assert kinds == [("maker-vault", "WBTC-A", str(world.cdps["direct"])), ("maker-urn", "ETH-A", None)]
    urn_vault = own["vaults"][1]
    assert urn_vault["urn"] == world.wallets["direct"] and urn_vault["risk"] is None and urn_vault["debt"] == "0"
    (staked,) = await entries(world_client, world.wallets["staker"])
    (vault,) = staked["vaults"]
    assert (vault["type"], vault["urn"], vault["ilk"]) == ("sky-lockstake", world.staked_urn, W.SKY_ILK)
    assert vault["debtAsset"]["symbol"] == "USDS" and vault["collateralAsset"]["symbol"] == "lsSKY"
    assert vault["risk"]["healthFactor"] > 1


def test_the_urns_collateral_came_in_through_the_ilks_joins(world):
    """As on mainnet, every wad of ETH-A and WBTC-A the demo's urns hold (ink and free gem) was
    joined: the joins' LogNotes (LibNote's topics and 224 bytes of calldata) name each urn as often
    and as much as the Vat credits it, the DSProxy's vault joined by the proxy (lockGemAndDraw), the
    others by the wallet, and each join holds as much of its token as it credited."""
    node, made, direct = world.node, world.contracts, world.wallets["direct"]
    urn_of = {
        kind: node.call(made["CDP_MANAGER"], "urns(uint256)", cdp, returns=("address",)).lower()
        for kind, cdp in world.cdps.items()
    }
    callers = {urn_of["proxy"]: world.proxy, urn_of["direct"]: direct, direct: direct}
    found: dict[str, dict[str, int]] = {}
    for ilk in W.JOINS:
        join, (_, decimals, *_) = made[W.join_key(ilk)], W.ILKS[ilk]
        logs = node.rpc("eth_getLogs", {"address": join, "fromBlock": hex(world.start_block), "toBlock": "latest"})
        joined = found.setdefault(ilk, {})
        for log in logs:
            sig, caller, arg1, arg2 = (bytes.fromhex(topic[2:]) for topic in log["topics"])
            (data,) = eth_abi.decode(["bytes"], bytes.fromhex(log["data"][2:]))
            assert sig == selector("join(address,uint256)").ljust(32, b"\0")
            assert data == (sig[:4] + arg1 + arg2).ljust(224, b"\0")
            usr, amount = "0x" + arg1[12:].hex(), int.from_bytes(arg2, "big")
            assert "0x" + caller[12:].hex() == callers[usr], (ilk, usr)
            joined[usr] = joined.get(usr, 0) + amount * 10 ** (18 - decimals)
        for usr, wad in joined.items():
            ink, _ = node.call(
                made["MCD_VAT"], "urns(bytes32,address)", W.ilk_key(ilk), usr, returns=("uint256", "uint256")
            )
            gem = node.call(made["MCD_VAT"], "gem(bytes32,address)", W.ilk_key(ilk), usr)
            assert ink + gem == wad, (ilk, usr)
        held = node.call(world.gems[ilk], "balanceOf(address)", join)
        assert held * 10 ** (18 - decimals) == sum(joined.values()), ilk
    assert found == {"ETH-A": {urn_of["proxy"]: 10 * W.WAD, direct: 5 * W.WAD}, "WBTC-A": {urn_of["direct"]: 2 * W.WAD}}


POOL = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) {
  data { poolAddress blockNumber warnings { code message target } details { ... on MakerIlkPool {
    type ilk ilkId chainId collateralAsset { address symbol decimals } debtAsset { symbol } totalNormalizedDebt rate
    totalDebt totalDebtUsd debtCeiling dust stabilityFeeApy liquidationRatio priceUsd
    priceOracle { address updatedAt ageSeconds } } } }
  errors { poolAddress error { code message } } } }"""


async def test_each_ilk_as_a_pool_by_its_bytes32_name_with_what_its_vaults_show(world_client, world):
    """Every ilk of the world by its bytes32 name: the Vat's debt at the rate Jug.drip gives at the
    block, its ceiling and dust, and the fee, ratio, price and oracle its vaults show; an address
    and a name the Vat does not know are refused."""
    vaults = {}
    for wallet in ("direct", "staker"):
        (entry,) = await entries(world_client, world.wallets[wallet])
        vaults |= {vault["ilk"]: vault for vault in entry["vaults"]}
    vaults["ETH-A"] = (await entries(world_client, world.proxy))[0]["vaults"][0]
    names = [*W.ILKS, "NOPE-A"]
    asked = ["0x" + W.ilk_key(name).hex() for name in names] + [world.contracts["MCD_VAT"]]
    inputs = [{"protocol": "maker", "chainId": 31337, "poolAddress": pool} for pool in asked]
    reply = await world_client.query(POOL, {"inputs": inputs[:5]})
    found = reply.body["data"]["poolDetails"]
    unknown, address = found["errors"]
    assert unknown["error"]["code"] == address["error"]["code"] == "VALIDATION_ERROR"
    assert "'NOPE-A'" in unknown["error"]["message"] and "bytes32 name" in address["error"]["message"]
    node, made = world.node, world.contracts
    for entry, name in zip(found["data"], W.ILKS):
        pool, block, key = entry["details"], entry["blockNumber"], W.ilk_key(name)
        art, rate, _, line, dust = node.call(
            made["MCD_VAT"], "ilks(bytes32)", key, returns=("uint256",) * 5, block=block
        )
        _, mat = node.call(made["MCD_SPOT"], "ilks(bytes32)", key, returns=("address", "uint256"), block=block)
        drip = node.call(made["MCD_JUG"], "drip(bytes32)", key, block=block)
        vault = vaults[name]
        assert entry["warnings"] == []
        assert pool == {
            "type": "maker-ilk-pool",
            "ilk": name,
            "ilkId": "0x" + key.hex(),
            "chainId": 31337,
            "collateralAsset": vault["collateralAsset"],
            "debtAsset": {"symbol": "USDS" if name == W.SKY_ILK else "DAI"},
            "totalNormalizedDebt": str(art),
            "rate": str(drip),
            "totalDebt": str(-(-art * drip // W.RAY)),
            "totalDebtUsd": float(Fraction(-(-art * drip // W.RAY), W.WAD)),
            "debtCeiling": str(line // W.RAY),
            "dust": str(dust // W.RAY),
            "stabilityFeeApy": vault["stabilityFeeApy"],
            "liquidationRatio": vault["liquidationRatio"],
            "priceUsd": vault["priceUsd"],
            "priceOracle": {
                "address": world.pips[name],
                "updatedAt": pool["priceOracle"]["updatedAt"],
                "ageSeconds": pool["priceOracle"]["ageSeconds"],
            },
        }, name
        assert pool["debtAsset"] == {"symbol": vault["debtAsset"]["symbol"]}
        assert rate < drip and mat == W.ILKS[name][3] and line == 10**8 * W.RAD and art > 0
        assert pool["liquidationRatio"] == float(Fraction(mat, W.RAY))
        assert pool["priceOracle"] == vault["risk"]["oracle"], "the oracle its borrowers' risk names"


FARM = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on MakerWalletPositions { blockNumber warnings { code message }
    vaults { type urn farm { farm rewardToken { address symbol } claimable claimableUsd }
      legs { role key amount usd } } } }
  errors { error { code message } } } }"""
WEEK = 7 * 24 * 3600


async def test_a_staking_engine_urns_farm_and_what_it_has_earned(world_client, world):
    """The staking-engine urn staked its ink in a farm through the engine's selectFarm, and the
    farm paid out its week: the vault shows the farm, its reward token and earned(urn) at the
    block as a REWARD leg priced by USDS' feed; the other vaults farm nothing."""
    wallets = (world.wallets["staker"], world.wallets["direct"])
    inputs = [{"protocol": "maker", "chainId": 31337, "walletAddress": wallet} for wallet in wallets]
    reply = await world_client.query(FARM, {"inputs": inputs})
    staked, direct = reply.body["data"]["walletPositions"]["data"]
    (vault,) = staked["vaults"]
    node, usds, engine, block = (
        world.node,
        world.contracts["USDS"],
        world.contracts["LOCKSTAKE_ENGINE"],
        staked["blockNumber"],
    )
    assert node.call(engine, "urnFarms(address)", vault["urn"], returns=("address",)).lower() == world.farm
    earned = node.call(world.farm, "earned(address)", vault["urn"], block=block)
    rate = node.call(world.farm, "rewardRate()")
    assert 0 < rate * WEEK - earned < 60 * rate, "the urn, its only staker, earned all but the seconds before it staked"
    assert vault["farm"] == {
        "farm": world.farm,
        "rewardToken": {"address": usds, "symbol": "USDS"},
        "claimable": str(earned),
        "claimableUsd": pytest.approx(earned * W.USDS_USD / 10**8 / W.WAD, rel=1e-12),
    }
    (reward,) = [leg for leg in vault["legs"] if leg["role"] == "REWARD"]
    key = f"{vault['urn']}:{W.SKY_ILK}:{usds}:reward"
    assert reward == {"role": "REWARD", "key": key, "amount": str(earned), "usd": vault["farm"]["claimableUsd"]}
    assert staked["warnings"] == []
    assert direct["vaults"] and all(v["farm"] is None for v in direct["vaults"])


def test_the_test_farm_is_skys_staking_rewards():
    """The test farm's views and events are those of Sky's StakingRewards (makerdao/endgame-toolkit
    src/synthetix/StakingRewards.sol at ba4bb4d, recorded here: Sky publishes no package of its
    ABI), and the adapter reads it by them."""
    views = {
        "rewardsToken()": ["address"],
        "stakingToken()": ["address"],
        "earned(address)": ["uint256"],
        "rewardRate()": ["uint256"],
        "periodFinish()": ["uint256"],
        "rewardsDuration()": ["uint256"],
        "rewardPerToken()": ["uint256"],
        "totalSupply()": ["uint256"],
        "balanceOf(address)": ["uint256"],
    }
    events = {
        "RewardAdded(uint256)": [False],
        "Staked(address,uint256)": [True, False],
        "Referral(uint16,address,uint256)": [True, True, False],
        "Withdrawn(address,uint256)": [True, False],
        "RewardPaid(address,uint256)": [True, False],
    }
    abi = W.compile_all()["TestStakingRewards"].abi
    declared = abi_functions(abi)
    assert {name: declared.get(name) for name in views} == views
    found = {
        f"{e['name']}({','.join(i['type'] for i in e['inputs'])})": [i["indexed"] for i in e["inputs"]]
        for e in abi
        if e["type"] == "event"
    }
    assert found == events
    for function in (C.FARM_REWARDS_TOKEN, C.FARM_EARNED):
        assert list(function.output_types) == views[function.signature]


async def test_a_wallet_with_nothing_has_an_empty_answer(world_client, world):
    (own,) = await entries(world_client, world.wallets["empty"])
    assert own["vaults"] == [] and own["warnings"] == []


def test_the_adapter_reads_makers_published_abis():
    """Every view the adapter calls is declared so in dai-plugin-mcd's ABIs; the ChainLog's and the
    staking engine's (which it does not ship) as the test contracts, written from Maker's and Sky's
    sources, declare them."""
    published = {
        "Vat": [C.VAT_URNS, C.VAT_ILKS],
        "Spotter": [C.SPOT_ILKS, C.PAR],
        "Jug": [C.JUG_ILKS, C.BASE],
        "GetCdps": [C.GET_CDPS_ASC],
        "IlkRegistry": [C.ILK_LIST, C.ILK_GEM],
        "OSM": [C.ZZZ],
    }
    for contract, functions in published.items():
        declared = maker_abi(contract)
        for function in functions:
            assert declared[function.signature] == function.output_types, (contract, function.signature)
    artifacts = W.compile_all()
    for contract, functions in (
        ("TestChainLog", [C.GET_ADDRESS]),
        ("TestLockstakeEngine", [C.OWNER_URNS_COUNT, C.OWNER_URNS, C.ENGINE_ILK, C.ENGINE_USDS]),
    ):
        declared = abi_functions(artifacts[contract].abi)
        for function in functions:
            assert declared[function.signature] == function.output_types, (contract, function.signature)


def abi_shapes(abi: list[dict[str, Any]]) -> set[tuple[Any, ...]]:
    """An ABI's entries as comparable values: kind, name, inputs (name, type, indexed), output types,
    mutability and anonymity (internal type names left out: ours name test contracts)."""
    return {
        (
            entry["type"],
            entry.get("name", ""),
            tuple((put["name"], put["type"], put.get("indexed", False)) for put in entry.get("inputs", [])),
            tuple(put["type"] for put in entry.get("outputs", [])),
            entry.get("stateMutability", ""),
            entry.get("anonymous", False),
        )
        for entry in abi
    }


def test_the_joins_and_proxy_actions_are_makers_published_abis():
    """The joins the vaults' collateral enters by are dai-plugin-mcd's GemJoin (WETH) and GemJoin5
    (WBTC) entry for entry, names, constructor and LogNote included; the DaiJoin is its DaiJoin
    less `join` (left out: no demo pays back); every proxy action is DssProxyActions' but the test's
    own `open(manager, ilk)`."""
    artifacts = W.compile_all()
    for ours in W.JOINS.values():
        assert abi_shapes(artifacts[ours].abi) == abi_shapes(maker_abi_entries(ours.removeprefix("Test"))), ours
    dai_join = abi_shapes(maker_abi_entries("DaiJoin")) - abi_shapes(artifacts["TestDaiJoin"].abi)
    assert {(kind, name) for kind, name, *_ in dai_join} == {("function", "join")}
    assert abi_shapes(artifacts["TestDaiJoin"].abi) < abi_shapes(maker_abi_entries("DaiJoin"))
    extra = abi_shapes(artifacts["TestProxyActions"].abi) - abi_shapes(maker_abi_entries("DssProxyActions"))
    assert [(name, [put for put, *_ in inputs]) for _, name, inputs, *_ in extra] == [("open", ["manager", "ilk"])]
