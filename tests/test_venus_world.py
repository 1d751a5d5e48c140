"""The Venus world (tests/venus_world.py) builds and its Diamond Comptroller answers what it
promises: the three markets, the borrower's liquidity and accrued debt, a supply that is no
collateral, XVS owed, VAI debt, v10's market layout and the oracle's prices."""

from __future__ import annotations

from eth_abi.abi import decode

from tests import venus_world as W
from tests.conftest import world_fixture
from tests.evm import MULTICALL3, calldata

MARKET = ["bool", "uint256", "bool", "uint256", "uint256", "uint96", "bool"]
"""MarketFacet.markets(vToken): isListed, collateralFactorMantissa, isVenus,
liquidationThresholdMantissa, liquidationIncentiveMantissa, marketPoolId, isBorrowAllowed."""

world = world_fixture(W.build)


def test_markets_and_oracle(world: W.VenusWorld) -> None:
    node, comptroller = world.node, world.comptroller
    listed = node.call(comptroller, "getAllMarkets()", returns=["address[]"])
    assert [a.lower() for a in listed] == [m.vtoken for m in world.markets.values()]
    btcb = W.LISTINGS["BTCB"]
    found = node.call(comptroller, "markets(address)", world.markets["BTCB"].vtoken, returns=MARKET)
    assert found == (True, btcb.collateral_factor, False, btcb.liquidation_threshold, W.LIQUIDATION_INCENTIVE, 0, True)
    price = node.call(world.oracle, "getUnderlyingPrice(address)", world.markets["ETH"].vtoken)
    assert price == 3000 * 10**18
    assert node.call(comptroller, "getXVSAddress()", returns=["address"]).lower() == world.xvs


def test_positions(world: W.VenusWorld) -> None:
    node, comptroller = world.node, world.comptroller
    borrower, saver = world.wallets["borrower"], world.wallets["saver"]
    error, liquidity, shortfall = node.call(
        comptroller, "getAccountLiquidity(address)", borrower, returns=["uint256"] * 3
    )
    assert error == 0 and liquidity > 0 and shortfall == 0
    usdt = world.markets["USDT"].vtoken
    stored = node.call(usdt, "borrowBalanceStored(address)", borrower)
    assert stored > 20_000 * W.ETHER  # the saver's later mint accrued the market's interest
    current = calldata("borrowBalanceCurrent(address)", borrower)
    owed = int(node.rpc("eth_call", {"to": usdt, "data": "0x" + current.hex()}, "latest"), 16)
    assert owed > stored  # and so would the blocks mined since
    assert node.call(comptroller, "getAssetsIn(address)", saver, returns=["address[]"]) == ()
    assert node.call(usdt, "balanceOf(address)", saver) > 0


def test_xvs_owed(world: W.VenusWorld) -> None:
    """VenusLens.pendingRewards: the accrued XVS (`venusAccrued`) and each market's not yet
    distributed; a claim (`claimVenus` inside the lens's getXVSBalanceMetadataExt) pays them."""
    node, borrower = world.node, world.wallets["borrower"]
    distributor, token, accrued, markets = node.call(
        world.lens,
        "pendingRewards(address,address)",
        borrower,
        world.comptroller,
        returns=["(address,address,uint256,(address,uint256)[])"],
    )
    assert distributor.lower() == world.comptroller and token.lower() == world.xvs
    pending = accrued + sum(amount for _, amount in markets)
    assert pending > 0
    claim = calldata("getXVSBalanceMetadataExt(address,address,address)", world.xvs, world.comptroller, borrower)
    answer = node.rpc("eth_call", {"to": world.lens, "data": "0x" + claim.hex()}, "latest")
    allocated = int(answer[2 + 3 * 64 :], 16)  # (balance, votes, delegate, allocated)
    assert allocated >= pending


def test_vai_debt(world: W.VenusWorld) -> None:
    """The borrower's VAI debt: the stored amount until an accrual, then the minted VAI plus the
    base rate's interest over the blocks since the mint; the liquidity that counts it stays positive."""
    node, comptroller, controller = world.node, world.comptroller, world.vai_controller
    borrower = world.wallets["borrower"]
    assert node.call(comptroller, "vaiController()", returns=["address"]).lower() == controller
    repay = calldata("getVAIRepayAmount(address)", borrower)
    assert int(node.rpc("eth_call", {"to": controller, "data": "0x" + repay.hex()}, "latest"), 16) == W.VAI_MINTED
    batch = [(controller, False, calldata("accrueVAIInterest()")), (controller, False, repay)]
    aggregate = calldata("aggregate3((address,bool,bytes)[])", batch)
    raw = node.rpc("eth_call", {"to": MULTICALL3, "data": "0x" + aggregate.hex()}, "latest")
    owed = int.from_bytes(decode(["(bool,bytes)[]"], bytes.fromhex(raw[2:]))[0][1][1], "big")
    per_block = node.call(controller, "getVAIRepayRatePerBlock()")
    assert per_block == W.VAI_BASE_RATE // node.call(controller, "getBlocksPerYear()")
    blocks = node.block_number() - world.vai_block
    assert blocks >= W.ELAPSED_BLOCKS
    assert owed == W.VAI_MINTED + W.VAI_MINTED * per_block * blocks // W.MANTISSA > W.VAI_MINTED
    error, liquidity, shortfall = node.call(
        comptroller, "getAccountLiquidity(address)", borrower, returns=["uint256"] * 3
    )
    assert error == 0 and liquidity > 0 and shortfall == 0
