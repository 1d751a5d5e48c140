"""Liquidations in `positionsHistory` on the real Morpho Blue and Aave (adapters/morpho/flows.py,
adapters/aave/flows.py): a Morpho borrower liquidated twice, the second time of all its
collateral, so the rest of its debt is written off; an Aave borrower liquidated once. The flows
are what the liquidator paid and received (its own balances, read another way than the events),
collateral earns nothing, and a debt's earned is only the interest of the seconds between."""

from __future__ import annotations

from typing import Any

from tests import aave_world, morpho_world
from tests.test_history_flows import PARAMS, USDC, AaveFlows, World, _block, ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service
from tests.test_past_blocks import market_id as morpho_market_id

ETHER = 10**18
liquidations = chain_fixture(World)


async def test_a_borrower_liquidated_then_written_off(liquidations: World) -> None:
    world, node = liquidations, liquidations.node
    morpho, wallet, liquidator = world.morpho, world.wallet, world.other
    market = morpho.market_b  # a market of its own here: nothing else of the wallet's in it
    key = morpho_market_id(market)
    node.send(morpho.weth, "mint(address,uint256)", wallet, 2 * ETHER)
    node.send(morpho.weth, "approve(address,uint256)", morpho.morpho, 2**256 - 1, sender=wallet)
    start = node.block_number()
    blue = morpho.morpho
    call = f"supplyCollateral({PARAMS},uint256,address,bytes)"
    posted = _block(node.send(blue, call, market, 2 * ETHER, wallet, b"", sender=wallet))
    borrowed = 4_000 * USDC
    call = f"borrow({PARAMS},uint256,uint256,address,address)"
    borrow = _block(node.send(blue, call, market, borrowed, 0, wallet, wallet, sender=wallet))
    node.send(morpho.oracle, "setPrice(uint256)", morpho_world.ORACLE_PRICE // 2)  # 1 WETH = 1,500 USDC
    moves = []
    for seized in (ETHER // 2, 3 * ETHER // 2):  # then all that is left: the rest of the debt is bad
        before = [node.call(token, "balanceOf(address)", liquidator) for token in (morpho.usdc, morpho.weth)]
        call = f"liquidate({PARAMS},address,uint256,uint256,bytes)"
        block = _block(node.send(blue, call, market, wallet, seized, 0, b"", sender=liquidator))
        after = [node.call(token, "balanceOf(address)", liquidator) for token in (morpho.usdc, morpho.weth)]
        moves.append((before[0] - after[0], after[1] - before[1], block))
    node.send(morpho.oracle, "setPrice(uint256)", morpho_world.ORACLE_PRICE)
    node.mine(1)
    inputs = [{"protocol": "morpho", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(world.folder, world.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        (entry, *_) = (await ask(service, inputs, **arguments))["data"]
    flows = [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]]
    mine = [flow for flow in flows if flow[0].startswith(key)]
    expected: list[Any] = [
        (f"{key}:collateral", "collateral-in", 2 * ETHER, posted),
        (f"{key}:borrow", "borrow", borrowed, borrow),
    ]
    for repaid, received, block in moves:
        expected += [(f"{key}:borrow", "liquidation-repaid", -repaid, block)]
        expected += [(f"{key}:collateral", "liquidation-seized", -received, block)]
    (bad,) = [flow for flow in mine if flow[1] == "bad-debt"]
    assert [flow for flow in mine if flow[1] != "bad-debt"] == expected
    assert bad[2] < 0 and bad[3] == moves[-1][2]
    rows = {row["position"]: row for row in entry["earnings"]}
    assert earned_adds_up(rows[f"{key}:collateral"]) == 0 and rows[f"{key}:collateral"]["endAmount"] == "0"
    interest = earned_adds_up(rows[f"{key}:borrow"])
    assert rows[f"{key}:borrow"]["endAmount"] == "0" and -1_000 <= interest <= 0, "the seconds' interest only"


aave_liquidations = chain_fixture(AaveFlows)


async def test_an_aave_borrower_liquidated(aave_liquidations: AaveFlows) -> None:
    """On Aave's own Pool: WETH falls until the borrower can be liquidated; the liquidator repays
    USDC and takes WETH. The debt falls by what the liquidator paid, the supply by what it took,
    and by the protocol's fee where the treasury got one (a transfer out of aTokens)."""
    node, market, wallet, liquidator = (
        aave_liquidations.node,
        aave_liquidations.market,
        aave_liquidations.wallet,
        aave_liquidations.other,
    )
    weth, usdc, pool = market.tokens["WETH"].lower(), aave_liquidations.usdc, market.pool.lower()
    (a_weth,) = node.call(market.data_provider, "getReserveTokensAddresses(address)", weth, returns=("address",) * 3)[
        :1
    ]
    treasury = node.call(a_weth, "RESERVE_TREASURY_ADDRESS()", returns=("address",))
    start = node.block_number()
    cheaper = aave_world.Deployer(node).deploy("MockAggregator", 1_200 * 10**8)
    node.send(market.oracle, "setAssetSources(address[],address[])", [weth], [cheaper])
    before = [
        node.call(token, "balanceOf(address)", holder)
        for token, holder in ((usdc, liquidator), (weth, liquidator), (a_weth, treasury))
    ]
    call = "liquidationCall(address,address,address,uint256,bool)"
    block = _block(node.send(pool, call, weth, usdc, wallet, 5_000 * USDC, False, sender=liquidator))
    after = [
        node.call(token, "balanceOf(address)", holder)
        for token, holder in ((usdc, liquidator), (weth, liquidator), (a_weth, treasury))
    ]
    node.mine(1)
    inputs = [{"protocol": "aave", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(aave_liquidations.folder, aave_liquidations.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": node.block_number()}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    repaid, taken, fee = before[0] - after[0], after[1] - before[1], after[2] - before[2]
    expected = [
        (f"{pool}:{usdc}:borrow", "liquidation-repaid", -repaid, block),
        (f"{pool}:{weth}:supply", "liquidation-seized", -taken, block),
        *([(f"{pool}:{weth}:supply", "transfer-out", -fee, block)] if fee else []),
    ]
    flows = [(f["position"], f["kind"], int(f["amount"]), f["blockNumber"]) for f in entry["flows"]]
    assert sorted(flows) == sorted(expected) and repaid == 5_000 * USDC and taken > 0
    rows = {row["position"]: row for row in entry["earnings"]}
    assert -2 <= earned_adds_up(rows[f"{pool}:{weth}:supply"]) <= 2 * 10**12, "a block's interest on the WETH, if any"
    # Interest paid; the Pool burns a repayment's scaled debt rounded half up, so the debt left may
    # read a wei less than the repayment implies (seen once, at some indexes).
    assert earned_adds_up(rows[f"{pool}:{usdc}:borrow"]) <= 1, "interest paid"
