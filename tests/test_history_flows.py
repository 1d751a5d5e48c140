"""Flows and earnings of `positionsHistory` (adapters/flows.py, adapters/morpho/flows.py, series.py)
on real Morpho Blue and Solmate's ERC-4626 (the reference many vaults build on): a wallet that
supplies, withdraws, posts and takes back collateral, borrows, repays, deposits into a vault,
redeems, sends and receives shares while time passes and the vault earns. For random sequences of
such actions (hypothesis), the flows are exactly the actions taken (the amounts the test sent, a
share transfer at the vault's rate at its block), and each position's earnings add up: earned =
end - start - net flows, collateral earns nothing, a supply earns and a debt costs, a vault earns
what was given to it. A repeat costs no eth_getLogs."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import auth
import server
from adapters import flows as flows_module
from tests import aave_world, lido_world, morpho_world
from tests.conftest import examples
from tests.evm import CONTRACTS, Anvil, compile_contracts
from tests.rpc_proxy import RpcProxy
from tests.test_past_blocks import Service
from tests.test_past_blocks import market_id as morpho_market_id

PARAMS = "(address,address,address,address,uint256)"
TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
USDC, ETHER = 10**6, 10**18
FLOWS = """query($inputs: [PositionInput!]!, $from: HistoryBound!, $to: HistoryBound, $points: Int!) {
  positionsHistory(inputs: $inputs, from: $from, to: $to, points: $points) {
    data { protocol warnings { code message target }
           points { blockNumber error { code message } totals { netUsd } }
           flows { position kind blockNumber logIndex transactionHash asset amount amountUsd }
           earnings { position asset debt fromBlock toBlock startAmount endAmount netFlows earned
                      startUsd endUsd flowsUsd pnlUsd earnedUsd priceEffectUsd costBasisUsd averageEntryPriceUsd } }
    errors { error { code message } } } }"""


class World:
    """Morpho Blue's test world and a Solmate vault of its USDC, listed as an `erc4626` vault."""

    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.morpho = morpho_world.build(self.node, morpho_world.compile_all())
        artifact = compile_contracts([CONTRACTS / "TestErc4626.sol"])["TestErc4626"]
        self.vault = self.node.deploy(artifact, ["address"], [self.morpho.usdc])
        self.passing = self.node.deploy(artifact, ["address"], [self.morpho.usdc])
        """A second listed vault nobody holds: one a wallet enters and leaves between two points."""
        self.wallet, self.other = self.morpho.wallets["borrower"], self.morpho.wallets["lender"]
        for wallet in (self.wallet, self.other):
            self.node.send(self.morpho.usdc, "mint(address,uint256)", wallet, 10_000_000 * USDC)
            for vault in (self.vault, self.passing):
                self.node.send(self.morpho.usdc, "approve(address,uint256)", vault, 2**256 - 1, sender=wallet)
            self.node.send(self.morpho.usdc, "approve(address,uint256)", self.morpho.morpho, 2**256 - 1, sender=wallet)
        self.node.send(self.vault, "deposit(uint256,address)", 100_000 * USDC, self.other, sender=self.other)
        self.node.send(self.vault, "deposit(uint256,address)", 1_000 * USDC, self.wallet, sender=self.wallet)
        addresses = self.morpho.addresses_override()
        vaults = [{"type": "erc4626-vault", "address": v, "cooldown": False} for v in (self.vault, self.passing)]
        addresses[str(self.node.chain_id)]["erc4626"] = {"apyPeriodDays": 7, "vaults": vaults}
        self.folder = folder
        (folder / "addresses.json").write_text(json.dumps(addresses))
        self.key = auth.create_key(folder / "keys.env", "flows")[0]

    def inputs(self) -> list[dict[str, Any]]:
        return [
            {"protocol": protocol, "chainId": self.node.chain_id, "walletAddress": self.wallet}
            for protocol in ("morpho", "erc4626")
        ]


def chain_fixture(make: Callable[[Path], Any]) -> Any:
    """A module-scoped fixture of a world on its own anvil, stopped after the module."""

    @pytest.fixture(scope="module")
    def fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
        built = make(tmp_path_factory.mktemp("flows"))
        try:
            yield built
        finally:
            built.node.stop()

    return fixture


world = chain_fixture(World)


Action = tuple[str, int]
actions = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "supply",
                "withdraw",
                "collateral-in",
                "collateral-out",
                "borrow",
                "repay",
                "deposit",
                "redeem",
                "send",
                "receive",
                "earn",
                "wait",
            ]
        ),
        st.integers(1, 1_000),
    ),
    min_size=1,
    max_size=8,
)


class Expected:
    """What the actions should show: (position, kind, amount, block) per flow, and what the vault
    was given."""

    def __init__(self) -> None:
        self.flows: list[tuple[str, str, int, int]] = []
        self.given = 0


def taken(node: Anvil, steps: list[Action], act: Callable[[Action, Expected], None]) -> tuple[int, int, Expected]:
    """Take the steps (each by `act`) and mine a block after them: the block before them, that
    last block, and the flows they must show."""
    start, expected = node.block_number(), Expected()
    for step in steps:
        act(step, expected)
    node.mine(1)
    return start, node.block_number(), expected


def earned_adds_up(row: dict[str, Any]) -> int:
    """A leg's `earned`, checked to be end - start - net flows (negated for a debt)."""
    start_amount, end_amount, net = (int(row[name]) for name in ("startAmount", "endAmount", "netFlows"))
    assert int(row["earned"]) == (-1 if row["debt"] else 1) * (end_amount - start_amount - net), row
    return int(row["earned"])


def adds_up_in_usd(entry: dict[str, Any]) -> None:
    """Over an account's legs, the PnL is the change of its net USD less what flowed in (a debt's
    flows counted against it), as the points' totals give them."""
    first, *_, last = entry["points"]
    flows_in = math.fsum((-1 if row["debt"] else 1) * row["flowsUsd"] for row in entry["earnings"])
    pnl = math.fsum(row["pnlUsd"] for row in entry["earnings"])
    change = last["totals"]["netUsd"] - first["totals"]["netUsd"]
    assert pnl == pytest.approx(change - flows_in, abs=0.01), entry["earnings"]


def act(world: World, action: Action, expected: Expected) -> None:
    """One action, if the wallet's state allows it (else nothing), and the flows it must show."""
    node, morpho, wallet, vault = world.node, world.morpho, world.wallet, world.vault
    kind, size = action
    market = morpho.market_a
    market_id = morpho_market_id(market)
    supply, borrow, collateral = node.call(
        morpho.morpho, "position(bytes32,address)", bytes.fromhex(market_id[2:]), wallet, returns=("uint256",) * 3
    )
    shares = node.call(vault, "balanceOf(address)", wallet)
    amount = size * USDC

    def blue(function: str, *args: Any) -> dict[str, Any]:
        """A call of Morpho Blue on the market, by the wallet (`{}` is MarketParams)."""
        return node.send(morpho.morpho, function.format(PARAMS), market, *args, sender=wallet)

    if kind == "supply":
        receipt = blue("supply({},uint256,uint256,address,bytes)", amount, 0, wallet, b"")
        expected.flows.append((f"{market_id}:supply", "supply", amount, _block(receipt)))
    elif kind == "withdraw" and supply:
        receipt = blue("withdraw({},uint256,uint256,address,address)", 0, supply // 2 or supply, wallet, wallet)
        expected.flows.append((f"{market_id}:supply", "withdraw", -_assets(receipt, 1), _block(receipt)))
    elif kind == "collateral-in":
        amount = size * ETHER // 100
        node.send(morpho.weth, "mint(address,uint256)", wallet, amount)
        receipt = blue("supplyCollateral({},uint256,address,bytes)", amount, wallet, b"")
        expected.flows.append((f"{market_id}:collateral", "collateral-in", amount, _block(receipt)))
    elif kind == "collateral-out" and collateral and not borrow:
        taken = collateral // 3 or collateral
        receipt = blue("withdrawCollateral({},uint256,address,address)", taken, wallet, wallet)
        expected.flows.append((f"{market_id}:collateral", "collateral-out", -taken, _block(receipt)))
    elif kind == "borrow" and collateral:
        amount = size * USDC // 10
        call = f"borrow({PARAMS},uint256,uint256,address,address)"
        if node.call_reverts(morpho.morpho, call, market, amount, 0, wallet, wallet, sender=wallet):
            return
        receipt = blue("borrow({},uint256,uint256,address,address)", amount, 0, wallet, wallet)
        expected.flows.append((f"{market_id}:borrow", "borrow", amount, _block(receipt)))
    elif kind == "repay" and borrow:
        receipt = blue("repay({},uint256,uint256,address,bytes)", 0, borrow, wallet, b"")
        expected.flows.append((f"{market_id}:borrow", "repay", -_assets(receipt, 0), _block(receipt)))
    elif kind == "deposit":
        receipt = node.send(vault, "deposit(uint256,address)", amount, wallet, sender=wallet)
        expected.flows.append((vault, "deposit", amount, _block(receipt)))
    elif kind == "redeem" and shares:
        receipt = node.send(
            vault, "redeem(uint256,address,address)", shares // 2 or shares, wallet, wallet, sender=wallet
        )
        expected.flows.append((vault, "withdraw", -_assets(receipt, 0, address=vault), _block(receipt)))
    elif kind in ("send", "receive"):
        sender, receiver = (wallet, world.other) if kind == "send" else (world.other, wallet)
        moved = node.call(vault, "balanceOf(address)", sender) // 4
        if not moved:
            return
        receipt = node.send(vault, "transfer(address,uint256)", receiver, moved, sender=sender)
        block = _block(receipt)
        value = node.call(vault, "convertToAssets(uint256)", moved, block=block)
        sign = -1 if kind == "send" else 1
        expected.flows.append((vault, "transfer-out" if kind == "send" else "transfer-in", sign * value, block))
    elif kind == "earn":
        node.send(morpho.usdc, "mint(address,uint256)", vault, amount)
        expected.given += amount
    elif kind == "wait":
        node.rpc("evm_increaseTime", size * 60)
        node.mine(1)


def _block(receipt: dict[str, Any]) -> int:
    return int(receipt["blockNumber"], 16)


def _assets(receipt: dict[str, Any], word: int, address: str | None = None) -> int:
    """The assets an action moved, from the event it emitted (its data word `word`): what the
    contract computed from the shares the test gave."""
    (entry,) = [
        log
        for log in receipt["logs"]
        if len(log["topics"]) >= 3 and (address is None or log["address"] == address) and len(log["data"]) > 66
    ]
    data = bytes.fromhex(entry["data"][2:])
    return int.from_bytes(data[32 * word : 32 * word + 32], "big")


async def ask(service: Service, inputs: list[dict[str, Any]], **arguments: Any) -> dict[str, Any]:
    body = {"query": FLOWS, "variables": {"inputs": inputs, **arguments}}
    async with service.client.post("/graphql", json=body, headers={"x-api-key": service.key}) as response:
        assert response.status == 200, await response.text()
        answer = await response.json()
    assert "errors" not in answer, answer
    result: dict[str, Any] = answer["data"]["positionsHistory"]
    assert result["errors"] == [], result["errors"]
    return result


@settings(max_examples=examples(12), deadline=None, suppress_health_check=list(HealthCheck))
@given(steps=actions)
def test_flows_are_the_actions_and_earnings_add_up(world: World, steps: list[Action]) -> None:
    node = world.node
    world.morpho.set_feed(morpho_world.USDC_USD)
    start, end, expected = taken(node, steps, lambda step, expected: act(world, step, expected))
    answer = asyncio.run(_series(world, start, end))
    morpho, vault = answer["data"]
    flows = [
        (flow["position"], flow["kind"], int(flow["amount"]), flow["blockNumber"])
        for entry in (morpho, vault)
        for flow in entry["flows"]
    ]
    assert sorted(flows, key=lambda f: f[3]) == sorted(expected.flows, key=lambda f: f[3])
    unpriced = {flow["asset"] for flow in morpho["flows"] if flow["amountUsd"] is None}
    assert unpriced <= {world.morpho.weth.lower()}, "only WETH has no feed on this chain"
    for entry in (morpho, vault):
        warned = [(w["code"], w["target"]) for w in entry["warnings"] if w["code"].startswith("FLOWS")]
        assert warned == ([("FLOWS_UNPRICED", world.morpho.weth.lower())] if entry is morpho and unpriced else [])
        for row in entry["earnings"]:
            earned_adds_up(row)
            assert (row["fromBlock"], row["toBlock"]) == (start, end)
            rounding = 2 + sum(1 for flow in entry["flows"] if flow["position"] == row["position"])
            """Shares to assets round in the protocol's favour (down for a supply, up for a debt) at
            each end and each flow."""
            if row["position"].endswith(":collateral"):
                assert int(row["earned"]) == 0, row
            elif row["position"].endswith(":supply"):
                assert int(row["earned"]) >= -rounding, row
            elif row["position"].endswith(":borrow"):
                assert int(row["earned"]) <= rounding, row
            if row["pnlUsd"] is not None and row["earnedUsd"] is not None:
                assert abs(row["earnedUsd"] + row["priceEffectUsd"] - row["pnlUsd"]) < 1e-6
    (held,) = [row for row in vault["earnings"] if row["position"] == world.vault] or [None]
    if held is not None and not expected.given:
        assert abs(int(held["earned"])) <= len(steps) + 1, "no yield: only rounding"


async def _series(world: World, start: int, end: int) -> dict[str, Any]:
    async with Service(world.folder, world.key, world.node) as service:
        return await ask(
            service, world.inputs(), **{"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 2}
        )


async def test_flows_in_usd_and_a_settled_range_costs_no_logs_the_second_time(world, aiohttp_server):
    node, morpho = world.node, world.morpho
    morpho.set_feed(morpho_world.USDC_USD)
    start = node.block_number()
    expected = Expected()
    for step in (("deposit", 50), ("supply", 70), ("collateral-in", 5), ("send", 1)):
        act(world, step, expected)
    market_b, supply = morpho.market_b, f"supply({PARAMS},uint256,uint256,address,bytes)"
    for amount in (3_000 * USDC, 1_000 * USDC):  # a position the series sees open: its cost basis
        node.send(morpho.morpho, supply, market_b, amount, 0, world.wallet, b"", sender=world.wallet)
    withdraw = f"withdraw({PARAMS},uint256,uint256,address,address)"
    node.send(morpho.morpho, withdraw, market_b, 1_000 * USDC, 0, world.wallet, world.wallet, sender=world.wallet)
    end = node.block_number()
    node.mine(200)  # the range settles: the index keeps it
    proxy = RpcProxy(node.url)
    proxied = await aiohttp_server(proxy.app(), host="127.0.0.1")
    arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 3}
    try:
        async with Service(world.folder, world.key, node, str(proxied.make_url("/"))) as service:
            first = await ask(service, world.inputs(), **arguments)
            scanned = -1
            while scanned != len(proxy.calls("eth_getLogs")):  # the background scan stores the range
                scanned = len(proxy.calls("eth_getLogs"))
                await asyncio.sleep(0.5)
            assert scanned > 0
            second = await ask(service, world.inputs(), **arguments)
            assert len(proxy.calls("eth_getLogs")) == scanned, "an indexed range is read from the index"
            before = proxy.reads()
            assert await ask(service, world.inputs(), **arguments) == first
            assert proxy.reads() == before, "a repeat, flows and earnings included, reads nothing"
            labels = [
                value
                for metric in service.app[server.METRICS].registry.collect()
                for sample in metric.samples
                for value in sample.labels.values()
            ]
            assert labels and not [value for value in labels if world.wallet[2:] in value.lower()], (
                "no wallet in a label"
            )
    finally:
        proxy.released.set()
    assert second == first
    morpho_entry = first["data"][0]
    opened = f"{morpho_market_id(market_b)}:supply"
    flows = {f["kind"]: f for entry in first["data"] for f in entry["flows"] if f["position"] != opened}
    assert set(flows) == {"deposit", "supply", "collateral-in", "transfer-out"}
    price = morpho_world.USDC_USD / 10**8
    (row,) = [row for row in morpho_entry["earnings"] if row["position"] == opened]
    assert row["startAmount"] == "0"
    assert row["costBasisUsd"] == pytest.approx(4_000 * price * (1 - 1_000 / 4_000), rel=1e-12)
    assert row["averageEntryPriceUsd"] == pytest.approx(price, rel=1e-12)
    held = next(
        row for row in morpho_entry["earnings"] if row["position"] == f"{morpho_market_id(morpho.market_a)}:collateral"
    )
    assert held["costBasisUsd"] is None, "held before the series: its whole life is not seen"
    for kind in ("deposit", "supply", "transfer-out"):
        flow = flows[kind]
        assert flow["asset"] == morpho.usdc
        assert flow["amountUsd"] == pytest.approx(int(flow["amount"]) * morpho_world.USDC_USD / 10**8 / USDC, rel=1e-12)
    # WETH has no feed on this chain: its collateral is valued, and so its flows, as the market
    # values it, by the oracle in USDC x USDC's feed.
    posted = flows["collateral-in"]
    oracle = node.call(morpho.oracle, "price()", block=posted["blockNumber"])
    per_weth = Fraction(oracle * 10**18, 10**36 * USDC) * Fraction(morpho_world.USDC_USD, 10**8)
    assert posted["amountUsd"] == pytest.approx(float(int(posted["amount"]) * per_weth / 10**18), rel=1e-12)
    assert not [w for w in morpho_entry["warnings"] if w["code"] == "FLOWS_UNPRICED"]
    collateral = next(
        row for row in morpho_entry["earnings"] if row["position"] == f"{morpho_market_id(morpho.market_a)}:collateral"
    )
    assert collateral["flowsUsd"] == posted["amountUsd"] and collateral["earned"] == "0"
    assert collateral["pnlUsd"] == pytest.approx(
        collateral["endUsd"] - collateral["startUsd"] - collateral["flowsUsd"], rel=1e-12
    )
    transaction = node.rpc("eth_getTransactionByHash", flows["supply"]["transactionHash"])
    assert int(transaction["blockNumber"], 16) == flows["supply"]["blockNumber"]


class AaveFlows:
    """Aave v3's test world (the published contracts), the borrower acting in its core market."""

    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = aave_world.build(self.node)
        self.market = self.world.markets[0]
        self.wallet, self.other = self.world.wallets["borrower"], self.world.wallets["lender"]
        self.usdc = self.market.tokens["USDC"].lower()
        self.atoken = self.node.call(
            self.market.data_provider, "getReserveTokensAddresses(address)", self.usdc, returns=("address",) * 3
        )[0].lower()
        for wallet in (self.wallet, self.other):
            self.node.send(self.usdc, "mint(uint256)", 10_000_000 * USDC, sender=wallet)
            self.node.send(self.usdc, "approve(address,uint256)", self.market.pool, 2**256 - 1, sender=wallet)
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "aave-flows")[0]


aave = chain_fixture(AaveFlows)


def aave_act(flows: AaveFlows, action: Action, expected: Expected) -> None:
    node, pool, wallet, usdc = flows.node, flows.market.pool.lower(), flows.wallet, flows.usdc
    kind, size = action
    amount = size * USDC
    supply_leg, borrow_leg = f"{pool}:{usdc}:supply", f"{pool}:{usdc}:borrow"
    supplied = node.call(flows.atoken, "balanceOf(address)", wallet)
    if kind == "supply":
        receipt = node.send(pool, "supply(address,uint256,address,uint16)", usdc, amount, wallet, 0, sender=wallet)
        expected.flows.append((supply_leg, "supply", amount, _block(receipt)))
    elif kind == "withdraw" and supplied > 1:
        receipt = node.send(pool, "withdraw(address,uint256,address)", usdc, supplied // 2, wallet, sender=wallet)
        expected.flows.append((supply_leg, "withdraw", -(supplied // 2), _block(receipt)))
    elif kind == "borrow":
        call = "borrow(address,uint256,uint256,uint16,address)"
        if node.call_reverts(pool, call, usdc, amount // 10, 2, 0, wallet, sender=wallet):
            return
        receipt = node.send(pool, call, usdc, amount // 10, 2, 0, wallet, sender=wallet)
        expected.flows.append((borrow_leg, "borrow", amount // 10, _block(receipt)))
    elif kind in ("repay", "repay-with-atokens"):
        function = (
            "repay(address,uint256,uint256,address)" if kind == "repay" else "repayWithATokens(address,uint256,uint256)"
        )
        args = (usdc, amount // 20, 2, wallet) if kind == "repay" else (usdc, amount // 20, 2)
        if node.call_reverts(pool, function, *args, sender=wallet):
            return
        receipt = node.send(pool, function, *args, sender=wallet)
        repaid = _assets(receipt, 0, address=pool)
        expected.flows.append((borrow_leg, "repay", -repaid, _block(receipt)))
        if kind == "repay-with-atokens":
            expected.flows.append((supply_leg, "repay-with-atokens", -repaid, _block(receipt)))
    elif kind in ("send", "receive"):
        sender, receiver = (wallet, flows.other) if kind == "send" else (flows.other, wallet)
        moved = node.call(flows.atoken, "balanceOf(address)", sender) // 4
        if not moved or node.call_reverts(flows.atoken, "transfer(address,uint256)", receiver, moved, sender=sender):
            return
        receipt = node.send(flows.atoken, "transfer(address,uint256)", receiver, moved, sender=sender)
        sign = -1 if kind == "send" else 1
        expected.flows.append(
            (supply_leg, "transfer-out" if kind == "send" else "transfer-in", sign * moved, _block(receipt))
        )
    elif kind == "wait":
        node.rpc("evm_increaseTime", size * 600)
        node.mine(1)


@settings(max_examples=examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    steps=st.lists(
        st.tuples(
            st.sampled_from(["supply", "withdraw", "borrow", "repay", "repay-with-atokens", "send", "receive", "wait"]),
            st.integers(1, 1_000),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_aave_flows_are_the_actions_and_earnings_add_up(aave: AaveFlows, steps: list[Action]) -> None:
    node = aave.node
    start, end, expected = taken(node, steps, lambda step, expected: aave_act(aave, step, expected))
    inputs = [{"protocol": "aave", "chainId": node.chain_id, "walletAddress": aave.wallet}]

    async def series() -> dict[str, Any]:
        async with Service(aave.folder, aave.key, node) as service:
            arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 2}
            return await ask(service, inputs, **arguments)

    (entry,) = asyncio.run(series())["data"]
    flows = [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]]
    assert flows == expected.flows
    for row in entry["earnings"]:
        earned_adds_up(row)
        rounding = 2 + sum(1 for flow in entry["flows"] if flow["position"] == row["position"])
        if row["debt"]:
            assert int(row["earned"]) <= rounding, row
        else:
            assert int(row["earned"]) >= -rounding, row


async def test_spark_flows_are_read_as_aaves_from_its_own_pool(aave: AaveFlows) -> None:
    """SparkLend's market flows (adapters/spark/flows.py) are Aave's method on Spark's own Pool: a
    supply, a borrow and a repay in its DAI market, each at the block its Pool emitted it, priced
    by Spark's oracle, and earnings that add up."""
    node, wallet, (spark,) = aave.node, aave.wallet, aave.world.spark
    pool, dai = spark.pool.lower(), spark.tokens["DAI"].lower()
    node.send(dai, "mint(uint256)", 1_000 * ETHER, sender=wallet)
    node.send(dai, "approve(address,uint256)", pool, 2**256 - 1, sender=wallet)
    start = node.block_number()
    supplied = node.send(pool, "supply(address,uint256,address,uint16)", dai, 1_000 * ETHER, wallet, 0, sender=wallet)
    borrow = "borrow(address,uint256,uint256,uint16,address)"
    borrowed = node.send(pool, borrow, dai, 100 * ETHER, 2, 0, wallet, sender=wallet)
    repaid = node.send(pool, "repay(address,uint256,uint256,address)", dai, 50 * ETHER, 2, wallet, sender=wallet)
    node.mine(1)
    inputs = [{"protocol": "spark", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(aave.folder, aave.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    assert [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]] == [
        (f"{pool}:{dai}:supply", "supply", 1_000 * ETHER, _block(supplied)),
        (f"{pool}:{dai}:borrow", "borrow", 100 * ETHER, _block(borrowed)),
        (f"{pool}:{dai}:borrow", "repay", -50 * ETHER, _block(repaid)),
    ]
    for flow in entry["flows"]:
        price = node.call(spark.oracle, "getAssetPrice(address)", dai, block=flow["blockNumber"])
        assert flow["amountUsd"] == pytest.approx(int(flow["amount"]) * price / 10**8 / ETHER, rel=1e-12), flow
    assert {row["position"] for row in entry["earnings"]} >= {f"{pool}:{dai}:supply", f"{pool}:{dai}:borrow"}
    for row in entry["earnings"]:
        earned_adds_up(row)


class LidoFlows:
    """Lido's test world: the holder submits, sends, receives and wraps while stETH rebases."""

    def __init__(self, folder: Path) -> None:
        self.node = Anvil()
        self.world = lido_world.build(self.node)
        self.wallet, self.other = self.world.wallets["holder"], self.world.wallets["requester"]
        self.folder = folder
        self.world.write_addresses(folder / "addresses.json")
        self.key = auth.create_key(folder / "keys.env", "lido-flows")[0]


lido = chain_fixture(LidoFlows)


async def test_lido_flows_are_in_steth_and_rebases_are_earned(lido: LidoFlows) -> None:
    node, world, wallet = lido.node, lido.world, lido.wallet
    steth, wsteth = world.steth.lower(), world.wsteth.lower()
    start = node.block_number()
    submit = "0xa1903eab" + "00" * 32  # submit(address referral): ether in, stETH minted
    tx = node.transact({"to": steth, "data": submit, "value": hex(2 * ETHER)}, wallet)
    (minted,) = [int(log["data"], 16) for log in tx["logs"] if log["topics"][0] == TRANSFER_TOPIC]
    node.send(steth, "transfer(address,uint256)", lido.other, ETHER // 2, sender=wallet)
    pooled, shares = node.call(steth, "totalPooledEther()"), node.call(steth, "totalShares()")
    node.send(steth, "setTotals(uint256,uint256)", pooled + pooled // 1000, shares)  # a rebase: +0.1 %
    node.send(steth, "approve(address,uint256)", wsteth, ETHER, sender=wallet)
    wrapped = node.send(wsteth, "wrap(uint256)", ETHER, sender=wallet)
    (made,) = [int(log["data"], 16) for log in wrapped["logs"] if log["address"] == wsteth]
    node.mine(1)
    end = node.block_number()
    async with Service(lido.folder, lido.key, node) as service:
        answer = await ask(
            service,
            [{"protocol": "lido", "chainId": node.chain_id, "walletAddress": wallet}],
            **{"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 2},
        )
    (entry,) = answer["data"]
    as_steth = node.call(wsteth, "getStETHByWstETH(uint256)", made, block=_block(wrapped))
    assert [(f["position"], f["kind"], int(f["amount"]), f["asset"]) for f in entry["flows"]] == [
        (steth, "mint", minted, steth),
        (steth, "transfer-out", -(ETHER // 2), steth),
        (wsteth, "mint", as_steth, steth),  # the wrap: wstETH minted, then the stETH taken
        (steth, "transfer-out", -ETHER, steth),
    ]
    rows = {row["position"]: row for row in entry["earnings"]}
    start_steth = int(rows[steth]["startAmount"])
    expected = (start_steth + minted - ETHER // 2) // 1000  # the rebase on what was held then (before the wrap)
    assert abs(int(rows[steth]["earned"]) - expected) <= 2, rows[steth]
    assert int(rows[steth]["earned"]) == int(rows[steth]["endAmount"]) - start_steth - int(rows[steth]["netFlows"])
    assert rows[steth]["asset"] == rows[wsteth]["asset"] == steth
    assert not [w for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"]


async def test_lido_withdrawal_requests_made_claimed_and_sent(lido: LidoFlows) -> None:
    """A request adds the stETH it locks, a claim takes out the ether it paid (what it earned:
    the ether less the stETH, here 5 wei of loss), an unstETH NFT sent takes out what it locks."""
    node, world, wallet = lido.node, lido.world, lido.wallet
    queue, steth = world.queue.lower(), world.steth.lower()
    start = node.block_number()
    made = []
    for amount in (ETHER, ETHER // 4):
        node.send(steth, "transfer(address,uint256)", queue, amount, sender=wallet)  # as the queue pulls it
        receipt = node.send(queue, "requestWithdrawals(uint256[],address)", [amount], wallet, sender=wallet)
        made.append((int(receipt["logs"][0]["topics"][1], 16), amount, _block(receipt)))
    (claimed, locked, _), (sent, given, _) = made
    node.send(queue, "finalize(uint256,uint256)", claimed, locked - 5)
    paid = _block(node.send(queue, "claimWithdrawal(uint256)", claimed, sender=wallet))
    call = "transferFrom(address,address,uint256)"
    gone = _block(node.send(queue, call, wallet, lido.other, sent, sender=wallet))
    node.mine(1)
    async with Service(lido.folder, lido.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        inputs = [{"protocol": "lido", "chainId": node.chain_id, "walletAddress": wallet}]
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    requests = [
        (f["position"], f["kind"], int(f["amount"]), f["blockNumber"], f["asset"])
        for f in entry["flows"]
        if f["position"].endswith(":withdrawal")
    ]
    assert requests == [
        *((f"{request}:withdrawal", "requested", amount, block, steth) for request, amount, block in made),
        (f"{claimed}:withdrawal", "claimed", -(locked - 5), paid, steth),
        (f"{sent}:withdrawal", "transfer-out", -given, gone, steth),
    ]
    rows = {row["position"]: row for row in entry["earnings"]}
    assert (rows[f"{claimed}:withdrawal"]["earned"], rows[f"{sent}:withdrawal"]["earned"]) == ("-5", "0")
    assert all(flow["amountUsd"] is not None for flow in entry["flows"]), "priced by the stETH feed, as the requests"


async def test_aave_flows_are_valued_by_the_markets_oracle(aave: AaveFlows) -> None:
    """As Aave's positions are: the market's oracle at the flow's block, over its USD unit."""
    node, wallet = aave.node, aave.wallet
    start = node.block_number()
    expected = Expected()
    for step in (("supply", 300), ("borrow", 500), ("wait", 5), ("repay", 200)):
        aave_act(aave, step, expected)
    node.mine(1)
    inputs = [{"protocol": "aave", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(aave.folder, aave.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    assert len(entry["flows"]) == len(expected.flows) >= 2
    for flow in entry["flows"]:
        price = node.call(aave.market.oracle, "getAssetPrice(address)", aave.usdc, block=flow["blockNumber"])
        assert flow["amountUsd"] == pytest.approx(int(flow["amount"]) * price / 10**8 / USDC, rel=1e-12), flow


async def test_a_malformed_transfer_naming_the_wallet_breaks_nothing(aave: AaveFlows) -> None:
    """Anyone may emit a `Transfer` naming the wallet with no amount in it: not a flow, no error."""
    node = aave.node
    spam = node.deploy(compile_contracts([CONTRACTS / "TestHostile.sol"])["TestSpam"])
    start = node.block_number()
    node.send(spam, "spam(address)", aave.wallet)
    aave_act(aave, ("supply", 5), expected := Expected())
    node.mine(1)
    inputs = [{"protocol": "aave", "chainId": node.chain_id, "walletAddress": aave.wallet}]
    async with Service(aave.folder, aave.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    assert [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]] == expected.flows


async def test_a_wallet_with_more_logs_than_a_request_reads(aave: AaveFlows, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_LOGS stored logs the flows are named unavailable; the points stand."""
    node = aave.node
    monkeypatch.setattr(flows_module, "MAX_LOGS", 1)
    start = node.block_number()
    for step in (("supply", 3), ("supply", 4)):
        aave_act(aave, step, Expected())
    node.mine(1)
    inputs = [{"protocol": "aave", "chainId": node.chain_id, "walletAddress": aave.wallet}]
    async with Service(aave.folder, aave.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    assert all(point["error"] is None for point in entry["points"]) and entry["flows"] == []
    (warning,) = [w for w in entry["warnings"] if w["code"] == "FLOWS_UNAVAILABLE"]
    assert "more logs name the wallet than the 1 one request reads" in warning["message"]


async def test_a_vault_entered_and_left_between_the_points(world: World) -> None:
    """Neither point holds it: its flows still count, and what it earned is what came out less
    what went in (here the yield given to the vault while the wallet was in it)."""
    node, vault, wallet = world.node, world.passing, world.wallet
    start = node.block_number()
    deposited = _block(node.send(vault, "deposit(uint256,address)", 500 * USDC, wallet, sender=wallet))
    node.send(world.morpho.usdc, "mint(address,uint256)", vault, 50 * USDC)  # the vault earns
    shares = node.call(vault, "balanceOf(address)", wallet)
    receipt = node.send(vault, "redeem(uint256,address,address)", shares, wallet, wallet, sender=wallet)
    out = _assets(receipt, 0, address=vault.lower())
    node.mine(1)
    async with Service(world.folder, world.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        entries = (await ask(service, world.inputs(), **arguments))["data"]
    (entry,) = [entry for entry in entries if entry["protocol"] == "erc4626"]
    mine = [(f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"] if f["position"] == vault.lower()]
    assert mine == [("deposit", 500 * USDC, deposited), ("withdraw", -out, _block(receipt))]
    (row,) = [row for row in entry["earnings"] if row["position"] == vault.lower()]
    assert (row["startAmount"], row["endAmount"]) == ("0", "0")
    assert int(row["earned"]) == out - 500 * USDC > 0
