"""Maker's flows and earnings in `positionsHistory` (adapters/maker/flows.py) on the test contracts
(tests/maker_world.py: the Vat's and the CdpManager's LogNotes as mainnet's emit them): the demo
vaults, then over a range, each through the protocol's own entry points with time passing between
them: DssProxyActions' lockGemAndDraw through the owner's DSProxy, the CdpManager's frob (lock and
draw, wipe) and the Vat's own on the wallet's urn, the staking engine's lock, draw, wipe, free and
getReward, a vault given (the DSProxy's to another wallet, which draws on it), and the Dog's bark
of a vault. Each holder's flows are those actions (the amounts sent; a debt's as the Vat's rate
made them), each leg's earned is end - start - net flows (collateral earns nothing, a debt costs
interest), and at every point each leg is the previous point's plus the flows between them plus
what it earned (nothing for collateral, interest for a debt)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import auth
from tests import maker_world as W
from tests.evm import Anvil
from tests.test_history_flows import _block, adds_up_in_usd, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service

QUERY = """query($inputs: [PositionInput!]!, $from: HistoryBound!, $to: HistoryBound, $points: Int!) {
  positionsHistory(inputs: $inputs, from: $from, to: $to, points: $points) {
    data { walletAddress warnings { code message target }
           points { blockNumber error { code message } totals { netUsd }
             positions { ... on MakerWalletPositions { vaults { legs { key role amount } } } } }
           flows { position kind blockNumber logIndex asset amount amountUsd }
           earnings { position asset debt startAmount endAmount netFlows earned startUsd endUsd flowsUsd pnlUsd } }
    errors { error { code message } } } }"""
MONTH = 30 * 24 * 3600
BTC = 10**8
EXECUTE = "execute(address,bytes)"


class MakerFlows:
    """The Maker world on its own chain (no time elapsed after its vaults), and `other`, who is
    given the DSProxy's vault."""

    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = W.build(self.node, elapse=0)
        self.other = self.node.accounts[18].lower()
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "maker-flows")[0]


maker = chain_fixture(MakerFlows)


def _rate(node: Anvil, vat: str, ilk: str, block: int) -> int:
    _, rate, *_ = node.call(vat, "ilks(bytes32)", W.ilk_key(ilk), returns=("uint256",) * 5, block=block)
    return int(rate)


def _urn(node: Anvil, vat: str, ilk: str, urn: str, block: int) -> tuple[int, int]:
    ink, art = node.call(vat, "urns(bytes32,address)", W.ilk_key(ilk), urn, returns=("uint256", "uint256"), block=block)
    return int(ink), int(art)


async def test_each_vaults_flows_are_its_actions_and_each_point_adds_up(maker: MakerFlows) -> None:
    node, world, made = maker.node, maker.world, maker.world.contracts
    vat, manager, engine = made["MCD_VAT"], made["CDP_MANAGER"], made["LOCKSTAKE_ENGINE"]
    owner, direct, staker, other, proxy = (
        *(world.wallets[r] for r in ("owner", "direct", "staker")),
        maker.other,
        world.proxy,
    )
    proxy_urn = node.call(manager, "urns(uint256)", world.cdps["proxy"], returns=("address",)).lower()
    direct_urn = node.call(manager, "urns(uint256)", world.cdps["direct"], returns=("address",)).lower()
    staked_urn = world.staked_urn
    usds, dai = made["USDS"], made["MCD_DAI"]
    expected: dict[str, list[tuple[str, str, int, int]]] = {proxy: [], direct: [], staker: [], other: []}
    near: set[tuple[str, int]] = set()
    """(holder, index in its expected flows) of debt flows the test knows to a wei (a draw of an
    exact amount: the art rounded up, so the Vat credits it or a wei more)."""

    def debt(holder: str, leg: str, kind: str, dart: int, ilk: str, block: int) -> None:
        """A debt flow: dart at the Vat's rate of its block (a frob's, a grab's), or at the rate
        Jug.drip would set then (a give's: the legs' rate')."""
        rate = _rate(node, vat, ilk, block)
        if kind.startswith("transfer"):
            rate = node.call(made["MCD_JUG"], drip, W.ilk_key(ilk), block=block)
        amount = dart * rate // W.RAY if dart > 0 else -(-dart * rate // W.RAY)
        expected[holder].append((leg, kind, amount, block))

    def elapse() -> None:
        node.rpc("evm_increaseTime", MONTH)
        node.mine()

    drip = "drip(bytes32)"
    start = node.block_number()
    elapse()
    # DssProxyActions through the DSProxy: 5 WETH more locked, 3,000 DAI drawn (after a drip).
    W._hold(world, "ETH-A", owner, 5 * W.WAD, proxy)
    lock = W._calldata(
        "lockGemAndDraw(address,address,address,address,uint256,uint256,uint256,bool)",
        manager, made["MCD_JUG"], made[W.join_key("ETH-A")], made["MCD_JOIN_DAI"], world.cdps["proxy"],
        5 * W.WAD, 3_000 * W.WAD, True,
    )  # fmt: skip
    block = _block(node.send(proxy, EXECUTE, made["PROXY_ACTIONS"], lock, sender=owner))
    expected[proxy].append((f"{proxy_urn}:ETH-A:collateral", "lock", 5 * W.WAD, block))
    near.add((proxy, len(expected[proxy])))
    expected[proxy].append((f"{proxy_urn}:ETH-A:debt", "draw", 3_000 * W.WAD, block))
    elapse()
    # The CdpManager's frob on the wallet's WBTC vault: 1 WBTC joined, locked with 5,000 art; 2,000 art wiped.
    node.send(made["MCD_JUG"], drip, W.ilk_key("WBTC-A"))  # a keeper's: the frobs below draw at a fresh rate
    W._hold(world, "WBTC-A", direct, BTC, made[W.join_key("WBTC-A")])
    node.send(made[W.join_key("WBTC-A")], "join(address,uint256)", direct_urn, BTC, sender=direct)
    block = _block(
        node.send(manager, "frob(uint256,int256,int256)", world.cdps["direct"], W.WAD, 5_000 * W.WAD, sender=direct)
    )
    expected[direct].append((f"{direct_urn}:WBTC-A:collateral", "lock", BTC, block))
    debt(direct, f"{direct_urn}:WBTC-A:debt", "draw", 5_000 * W.WAD, "WBTC-A", block)
    elapse()
    node.send(made["MCD_JUG"], drip, W.ilk_key("WBTC-A"))
    block = _block(
        node.send(manager, "frob(uint256,int256,int256)", world.cdps["direct"], 0, -2_000 * W.WAD, sender=direct)
    )
    debt(direct, f"{direct_urn}:WBTC-A:debt", "wipe", -2_000 * W.WAD, "WBTC-A", block)
    # The Vat's own frob on the wallet's urn: 1 WETH freed.
    frob = "frob(bytes32,address,address,address,int256,int256)"
    block = _block(node.send(vat, frob, W.ilk_key("ETH-A"), direct, direct, direct, -W.WAD, 0, sender=direct))
    expected[direct].append((f"{direct}:ETH-A:collateral", "free", -W.WAD, block))
    elapse()
    # The staking engine: lock, draw, wipe (its Vat dai, the engine hoped), free, and its farm's reward claimed.
    sky = f"{staked_urn}:{W.SKY_ILK}"
    block = _block(
        node.send(engine, "lock(address,uint256,uint256,uint16)", staker, 0, 100_000 * W.WAD, 0, sender=staker)
    )
    expected[staker].append((f"{sky}:collateral", "lock", 100_000 * W.WAD, block))
    block = _block(
        node.send(engine, "draw(address,uint256,address,uint256)", staker, 0, staker, 1_000 * W.WAD, sender=staker)
    )
    near.add((staker, len(expected[staker])))
    expected[staker].append((f"{sky}:debt", "draw", 1_000 * W.WAD, block))
    node.send(vat, "hope(address)", engine, sender=staker)
    elapse()
    node.send(made["MCD_JUG"], drip, W.ilk_key(W.SKY_ILK))  # the engine's wipe drips not
    block = _block(node.send(engine, "wipe(address,uint256,uint256)", staker, 0, 500 * W.WAD, sender=staker))
    near.add((staker, len(expected[staker])))
    expected[staker].append((f"{sky}:debt", "wipe", -500 * W.WAD, block))
    block = _block(
        node.send(engine, "free(address,uint256,address,uint256)", staker, 0, staker, 50_000 * W.WAD, sender=staker)
    )
    expected[staker].append((f"{sky}:collateral", "free", -50_000 * W.WAD, block))
    earned = node.call(world.farm, "earned(address)", staked_urn)
    receipt = node.send(
        engine, "getReward(address,uint256,address,address)", staker, 0, world.farm, staker, sender=staker
    )
    block = _block(receipt)
    paid = node.call(usds, "balanceOf(address)", staker, block=block)
    assert paid >= earned > 0
    expected[staker].append((f"{sky}:{usds}:reward", "claim", -paid, block))
    elapse()
    # The DSProxy gives its vault to `other` (DssProxyActions' give), who draws 100 art on it.
    ink, art = _urn(node, vat, "ETH-A", proxy_urn, node.block_number())
    give = W._calldata("give(address,uint256,address)", manager, world.cdps["proxy"], other)
    block = _block(node.send(proxy, EXECUTE, made["PROXY_ACTIONS"], give, sender=owner))
    assert _urn(node, vat, "ETH-A", proxy_urn, block) == (ink, art)
    expected[proxy].append((f"{proxy_urn}:ETH-A:collateral", "transfer-out", -ink, block))
    debt(proxy, f"{proxy_urn}:ETH-A:debt", "transfer-out", -art, "ETH-A", block)
    expected[other].append((f"{proxy_urn}:ETH-A:collateral", "transfer-in", ink, block))
    debt(other, f"{proxy_urn}:ETH-A:debt", "transfer-in", art, "ETH-A", block)
    elapse()
    block = _block(node.send(manager, "frob(uint256,int256,int256)", world.cdps["proxy"], 0, 100 * W.WAD, sender=other))
    debt(other, f"{proxy_urn}:ETH-A:debt", "draw", 100 * W.WAD, "ETH-A", block)
    # WBTC falls below the wallet's vault's line: the Dog barks it (the Vat's grab).
    node.send(made["MCD_JUG"], drip, W.ilk_key("WBTC-A"))
    world.set_price("WBTC-A", 20_000 * W.WAD)
    before = _urn(node, vat, "WBTC-A", direct_urn, node.block_number())
    keeper = node.accounts[0]
    block = _block(
        node.send(
            made["MCD_DOG"], "bark(bytes32,address,address)", W.ilk_key("WBTC-A"), direct_urn, keeper, sender=keeper
        )
    )
    after = _urn(node, vat, "WBTC-A", direct_urn, block)
    seized, taken = before[0] - after[0], before[1] - after[1]
    assert seized > 0 and taken > 0
    expected[direct].append((f"{direct_urn}:WBTC-A:collateral", "liquidation-seized", -(seized // 10**10), block))
    debt(direct, f"{direct_urn}:WBTC-A:debt", "liquidation-repaid", -taken, "WBTC-A", block)
    elapse()
    end = node.block_number()

    holders = [proxy, direct, staker, other]
    inputs = [{"protocol": "maker", "chainId": node.chain_id, "walletAddress": holder} for holder in holders]
    body = {
        "query": QUERY,
        "variables": {"inputs": inputs, "from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 5},
    }
    async with (
        Service(maker.folder, maker.key, node) as service,
        service.client.post("/graphql", json=body, headers={"x-api-key": service.key}) as response,
    ):
        answer = await response.json()
    assert "errors" not in answer, answer
    result = answer["data"]["positionsHistory"]
    assert result["errors"] == []
    for holder, entry in zip(holders, result["data"]):
        assert [w for w in entry["warnings"] if w["code"].startswith("FLOWS")] == [], entry["warnings"]
        flows = [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]]
        assert [flow[:2] + flow[3:] for flow in flows] == [flow[:2] + flow[3:] for flow in expected[holder]], holder
        for index, (got, wanted) in enumerate(zip(flows, expected[holder])):
            assert abs(got[2] - wanted[2]) <= (1 if (holder, index) in near else 0), (holder, got, wanted)
        assets = {f["position"]: f["asset"] for f in entry["flows"]}
        for position, asset in assets.items():
            leg = position.rsplit(":", 1)[1]
            assert asset == {"debt": usds if position.startswith(staked_urn) else dai}.get(leg, asset)
        assert all(f["amountUsd"] is not None for f in entry["flows"]), "collateral at the Spotter's price, debt at par"
        rows = {row["position"]: row for row in entry["earnings"]}
        for position, row in rows.items():
            earned = earned_adds_up(row)
            if position.endswith(":collateral"):
                assert earned == 0, "collateral earns nothing"
            if position.endswith(":debt"):
                owed = int(row["startAmount"]) or int(row["endAmount"]) or int(row["netFlows"])
                assert earned < 0 if owed else earned == 0, ("a debt's interest", holder, row)
        adds_up_in_usd(entry)
        _each_point_adds_up(entry)
    _each_point_adds_up(result["data"][0])
    staked = {row["position"]: row for row in result["data"][2]["earnings"]}[f"{sky}:{usds}:reward"]
    assert int(staked["earned"]) > 0 and int(staked["netFlows"]) == -paid, "the farm's reward, claimed"
    proxied = {row["position"]: row for row in result["data"][0]["earnings"]}
    assert proxied[f"{proxy_urn}:ETH-A:collateral"]["endAmount"] == "0", "given away"


def _each_point_adds_up(entry: dict[str, Any]) -> None:
    """At every point, each collateral leg is the previous point's plus the flows between them;
    each debt is that plus the interest accrued, never less."""
    points = [(p["blockNumber"], _legs(p["positions"])) for p in entry["points"]]
    for (was, held), (now, holds) in itertools.pairwise(points):
        for key in held.keys() | holds.keys():
            moved = sum(
                int(f["amount"]) for f in entry["flows"] if f["position"] == key and was < f["blockNumber"] <= now
            )
            change = holds.get(key, 0) - held.get(key, 0) - moved
            if key.endswith(":collateral"):
                assert change == 0, (key, was, now)
            elif key.endswith(":debt"):
                assert change >= -1, (key, was, now, change)  # a wei of rounding per flow, else interest


def _legs(positions: dict[str, Any]) -> dict[str, int]:
    return {
        leg["key"]: int(leg["amount"])
        for vault in positions["vaults"]
        for leg in vault["legs"]
        if leg["amount"] is not None
    }
