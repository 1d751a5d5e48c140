"""The functions and events of Liquity v1 the adapter reads, as `@liquity/lib-ethers` 3.4.0's ABIs
declare them (tests/test_liquity.py holds each one to them)."""

from __future__ import annotations

from adapters.prices.feeds import oldest_update
from chain import ChainReader
from chain.abi import ZERO_ADDRESS, Event, Function
from errors import ProtocolError

WAD = 10**18
"""The scale of every Liquity figure: amounts, the price, ratios and rates."""

TROVES = Function(
    "Troves(address)",
    "6ef64338",
    ("uint256 debt", "uint256 coll", "uint256 stake", "uint8 status", "uint128 arrayIndex"),
)
ENTIRE_DEBT_AND_COLL = Function(
    "getEntireDebtAndColl(address)",
    "b91af97c",
    ("uint256 debt", "uint256 coll", "uint256 pendingLUSDDebtReward", "uint256 pendingETHReward"),
)
"""A trove's debt and collateral with the redistribution gains not yet applied to it (what its
next operation records)."""
TROVE_STATUS = Function("getTroveStatus(address)", "21e37801", ("uint256",))
MCR = Function("MCR()", "794e5724", ("uint256",), immutable=True)
CCR = Function("CCR()", "5733d58f", ("uint256",), immutable=True)
GAS_COMPENSATION = Function("LUSD_GAS_COMPENSATION()", "2e86bbd8", ("uint256",), immutable=True)
SYSTEM_COLL = Function("getEntireSystemColl()", "887105d3", ("uint256",))
SYSTEM_DEBT = Function("getEntireSystemDebt()", "795d26c3", ("uint256",))
BORROWING_RATE = Function("getBorrowingRateWithDecay()", "66ca4a21", ("uint256",))
REDEMPTION_RATE = Function("getRedemptionRateWithDecay()", "c52861f2", ("uint256",))
LUSD_TOKEN = Function("lusdToken()", "b83f91a2", ("address",), immutable=True)
LQTY_TOKEN = Function("lqtyToken()", "1f7af3c3", ("address",), immutable=True)
TROVE_OWNERS = Function("getTroveOwnersCount()", "49eefeee", ("uint256",))

SURPLUS = Function("getCollateral(address)", "9b56d6c9", ("uint256",))
"""CollSurplusPool's ether a closed trove's owner may claim (`BorrowerOperations.claimCollateral`)."""

COMPOUNDED_DEPOSIT = Function("getCompoundedLUSDDeposit(address)", "1cdc4700", ("uint256",))
DEPOSITOR_ETH_GAIN = Function("getDepositorETHGain(address)", "389e92a5", ("uint256",))
DEPOSITOR_LQTY_GAIN = Function("getDepositorLQTYGain(address)", "f5f1595d", ("uint256",))
DEPOSITS = Function("deposits(address)", "fc7e286d", ("uint256 initialValue", "address frontEndTag"))
TOTAL_DEPOSITS = Function("getTotalLUSDDeposits()", "9bf2f1ac", ("uint256",))

STAKES = Function("stakes(address)", "16934fc4", ("uint256",))
PENDING_ETH_GAIN = Function("getPendingETHGain(address)", "8b9345ad", ("uint256",))
PENDING_LUSD_GAIN = Function("getPendingLUSDGain(address)", "9beab5c0", ("uint256",))
TOTAL_STAKED = Function("totalLQTYStaked()", "077ee4c6", ("uint256",))

FETCH_PRICE = Function("fetchPrice()", "0fdb11cf", ("uint256",), writes=True)
"""The price every operation takes (Chainlink's, Tellor's where Chainlink fails, else the last
good one), as lib-ethers' `getPrice` reads it: a call with no effect, though the function writes."""
PRICE_AGGREGATOR = Function("priceAggregator()", "3078fff5", ("address",), immutable=True)

TROVE_UPDATED = Event(
    "TroveUpdated(address,uint256,uint256,uint256,uint8)",
    "0xc3770d654ed33aeea6bf11ac8ef05d02a6a04ed4686dd2f624d853bbec43cc8b",
)
"""(borrower indexed, debt, coll, stake, operation): BorrowerOperations' (0 open, 1 close, 2
adjust) and the TroveManager's (0 pending rewards applied, 1 and 2 liquidated, 3 redeemed)."""
TROVE_LIQUIDATED = Event(
    "TroveLiquidated(address,uint256,uint256,uint8)",
    "0xea67486ed7ebe3eea8ab3390efd4a3c8aae48be5bea27df104a8af786c408434",
)
BORROWING_FEE_PAID = Event(
    "LUSDBorrowingFeePaid(address,uint256)", "0xa55c5f48fd29482ad55f4b59bf070cd1ac1a7132a31f7a136ebe8877ae37e1ff"
)
DEPOSIT_CHANGED = Event(
    "UserDepositChanged(address,uint256)", "0xbce78369dccab09eec1986f4d409ab09ffbb47d65423e5148fcf98411c5111c9"
)
ETH_GAIN_WITHDRAWN = Event(
    "ETHGainWithdrawn(address,uint256,uint256)", "0x51457222ebca92c335c9c86e2baa1cc0e40ffaa9084a51452980d5ba8dec2f63"
)
"""(depositor indexed, ETH, LUSDLoss): every deposit operation pays the gain out first."""
LQTY_PAID = Event(
    "LQTYPaidToDepositor(address,uint256)", "0x2608b986a6ac0f6c629ca37018e80af5561e366252ae93602a96d3ab2e73e42d"
)
STAKE_CHANGED = Event(
    "StakeChanged(address,uint256)", "0x39df0e5286a3ef2f42a0bf52f32cfe2c58e5b0405f47fe512f2c2439e4cfe204"
)
STAKING_GAINS = Event(
    "StakingGainsWithdrawn(address,uint256,uint256)",
    "0xf744d34ca1cb25acfa4180df5f09a67306107110a9f4b6ed99bb3be259738215",
)
"""(staker indexed, LUSDGain, ETHGain)."""
SURPLUS_CHANGED = Event(
    "CollBalanceUpdated(address,uint256)", "0xf0393a34d05e6567686ad4e097f9d9d2781565957394f1f0d984e5d8e6378f20"
)


async def updated_at(reader: ChainReader, price_feed: str) -> int:
    """When the PriceFeed's Chainlink aggregator last answered."""
    (aggregator,) = await reader.call(price_feed, PRICE_AGGREGATOR, label="Liquity PriceFeed")
    if aggregator == ZERO_ADDRESS:
        raise ProtocolError("the PriceFeed names no aggregator")
    updated = await oldest_update(reader, [aggregator], "Liquity PriceFeed")
    assert updated is not None, "one feed's update"
    return updated
