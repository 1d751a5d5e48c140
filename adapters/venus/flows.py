"""A wallet's flows in Venus's pools (docs/protocols/venus.md).

The core pool's vTokens and VAIController name the account in their events' data, not in a
topic, so the wallet's own stream does not hold them: the events of the markets the points' legs
name come from a stream of their own (`WalletLogs.more`), kept where they name the wallet, with
the underlying amounts the contracts moved. An isolated pool's vTokens emit the same events with
the accounts indexed (its Mint and Redeem the same four fields, the fourth the account's balance):
they come from the same stream, read in declaration order whichever layout they have.

- supply (`<vToken>:supply`, raw units of the underlying): `Mint` (minter) and `MintBehalf`
  (receiver) add `mintAmount`; `Redeem` (redeemer) takes out `redeemAmount` and the `RedeemFee`
  of the same redemption (what its vTokens were worth: the treasury's share);
- borrow (`<vToken>:borrow`): `Borrow` (borrower) adds `borrowAmount`; `RepayBorrow` (borrower, by
  whoever pays) and `LiquidateBorrow` (borrower) take out `repayAmount`;
- VAI (`<VAIController>:borrow`): `MintVAI` (minter) adds, `RepayVAI` and `LiquidateVAI`
  (borrower) take out;
- vTokens moved between holders, from the wallet's stream (the vToken's `Transfer`, its mints and
  redemptions left to the events above): the tokens x `exchangeRateStored()` at their block; in a
  liquidation of the wallet's borrow, what was seized (to the liquidator, and the protocol's share
  to the vToken itself) is `liquidation-seized`;
- rewards (`<comptroller>:<XVS>:rewards` in the core pool, `<comptroller>:<distributor>:<token>:rewards`
  in an isolated pool): a `Transfer` of the token from its payer (the core pool's Comptroller, a
  RewardsDistributor) to the wallet (a claim).

A stream that holds more logs than one request reads leaves the legs it serves out, named in
FLOWS_UNAVAILABLE.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from adapters.context import FetchContext
from adapters.flows import Flow, WalletLogs, address_of, log_rows, topic, transferred
from adapters.position_warnings import outcome
from adapters.venus.contracts import (
    ALL_MARKETS,
    ASSET_PRICE,
    MANTISSA,
    ORACLE,
    PRICE_SCALE,
    UNDERLYING_PRICE,
    VAI_CONTROLLER,
    VTOKEN_COMPTROLLER,
)
from adapters.venus.markets import holding
from adapters.venus.section import VenusAddresses
from chain import ChainReader, Log, erc20, first
from chain.abi import Event, Function, decode
from chain.event_index import Stream
from chain.index_store import WALLET_STREAMS
from errors import ProtocolError

MINT = Event(
    "Mint(address,uint256,uint256,uint256)", "0xb4c03061fb5b7fed76389d5af8f2e0ddb09f8c70d1333abbb62582835e10accb"
)
MINT_BEHALF = Event(
    "MintBehalf(address,address,uint256,uint256,uint256)",
    "0xa24ddbdf0865ba440d364725c062eac72a908faeedffc33fe64d4640c82e3ab8",
)
REDEEM = Event(
    "Redeem(address,uint256,uint256,uint256)", "0xbd5034ffbd47e4e72a94baa2cdb74c6fad73cb3bcdc13036b72ec8306f5a7646"
)
REDEEM_FEE = Event(
    "RedeemFee(address,uint256,uint256)", "0xccf8e53b86a99b7e9ecf796342c165764d66154780f638c08e6241d711fba6d4"
)
BORROW = Event(
    "Borrow(address,uint256,uint256,uint256)", "0x13ed6866d4e1ee6da46f845c46d7e54120883d75c5ea9a2dacc1c4ca8984ab80"
)
REPAY_BORROW = Event(
    "RepayBorrow(address,address,uint256,uint256,uint256)",
    "0x1a2a22cb034d26d1854bdc6666a5b91fe25efbbb5dcad3b0355478d6f5c362a1",
)
LIQUIDATE_BORROW = Event(
    "LiquidateBorrow(address,address,uint256,address,uint256)",
    "0x298637f684da70674f26509b10f07ec2fbc77a335ab1e7d6215a4b2484d8bb52",
)
"""A core-pool vToken's events (Venus v10's VTokenInterfaces; none indexed); an isolated pool's
vToken emits Mint, Redeem, Borrow, RepayBorrow and LiquidateBorrow with the fields INDEXED names
as topics."""
INDEXED = {
    MINT.topic: (0,),
    REDEEM.topic: (0,),
    BORROW.topic: (0,),
    REPAY_BORROW.topic: (0, 1),
    LIQUIDATE_BORROW.topic: (0, 1, 3),
}
"""Which fields an isolated pool's vToken indexes (isolated-pools' VTokenInterfaces)."""
MINT_VAI = Event("MintVAI(address,uint256)", "0x002e68ab1600fc5e7290e2ceaa79e2f86b4dbaca84a48421e167e0b40409218a")
REPAY_VAI = Event(
    "RepayVAI(address,address,uint256)", "0x1db858e6f7e1a0d5e92c10c6507d42b3dabfe0a4867fe90c5a14d9963662ef7e"
)
LIQUIDATE_VAI = Event(
    "LiquidateVAI(address,address,uint256,address,uint256)",
    "0x42d401f96718a0c42e5cea8108973f0022677b7e2e5f4ee19851b2de7a0394e7",
)
"""The VAIController's (none indexed)."""
COMPOUND_MINT = Event(
    "Mint(address,uint256,uint256)", "0x4c209b5fc8ad50758f13e2e1088ba56a560dff690a1c6fef26394f4c03821c4f"
)
COMPOUND_REDEEM = Event(
    "Redeem(address,uint256,uint256)", "0xe5b754fb1abb7f01b499791d0b820ae3b6af3424ac1c59768edb53f4ec31a929"
)
"""Compound v2's cTokens' (and BNB Chain's first vBNB's) three-field Mint and Redeem; their other
events are the core pool's."""
MARKET_EVENTS = (
    MINT,
    MINT_BEHALF,
    REDEEM,
    REDEEM_FEE,
    BORROW,
    REPAY_BORROW,
    LIQUIDATE_BORROW,
    COMPOUND_MINT,
    COMPOUND_REDEEM,
)
VAI_EVENTS = (MINT_VAI, REPAY_VAI, LIQUIDATE_VAI)
EXCHANGE_RATE_STORED = Function("exchangeRateStored()", "182df0f5", ("uint256",))
LABEL = "Venus"
"""How the flows' reads name themselves in errors."""


async def flows(ctx: FetchContext[Any], wallet: str, logs: WalletLogs, legs: Mapping[str, str]) -> list[Flow]:
    """The legs' flows (Compound v2's too: adapters/compound/flows.py)."""
    named = wallet.lower()
    contracts = sorted({_contract(key) for key in legs if key.endswith((":supply", ":borrow"))})
    events = await _events(ctx, logs, contracts, legs)
    found: list[Flow] = []
    liquidated: set[str] = set()
    for log in events:
        found += _decoded(log, named, legs)
        if log.signature == LIQUIDATE_BORROW.topic and _address(_fields(log), 1) == named:
            liquidated.add(log.transaction_hash)
    found += await _moved(ctx, logs, topic(wallet), legs, liquidated)
    rewards = {_payer(key): key for key in legs if key.endswith(":rewards")}
    for log in logs:
        moved = transferred(log, topic(wallet))
        key = rewards.get((address_of(moved.other), log.address)) if moved and moved.kind == "transfer-in" else None
        if moved and key:
            at = (log.block_number, log.log_index, log.transaction_hash)
            found.append(Flow(key, "claim", *at, log.address, -moved.amount))
    return sorted(found, key=lambda flow: flow[2:4])


async def _events(ctx: FetchContext[Any], logs: WalletLogs, contracts: list[str], legs: Mapping[str, str]) -> list[Log]:
    """The vTokens' and the VAIController's events over the range (a stream of their own); none,
    with their legs named unavailable, where it holds more than one request reads."""
    if not contracts:
        return []
    digest = hashlib.sha256(",".join(contracts).encode()).hexdigest()[:16]
    prefix = f"{WALLET_STREAMS}positions-venus-{digest}-"
    topics = tuple(event.topic for event in (*MARKET_EVENTS, *VAI_EVENTS))

    def stream(start: int) -> Stream:
        return Stream(f"{prefix}{start}", tuple(contracts), topics, start, log_rows)

    found = await logs.more(ctx, prefix, stream)
    if found is None:
        for key in legs:
            if _contract(key) in contracts:
                logs.unavailable[key] = "its market has more events over the range than one request reads"
        return []
    return found


def _contract(key: str) -> str:
    """The contract a leg's key starts with (a vToken, the VAIController, the Comptroller)."""
    contract, _, _ = key.partition(":")
    return contract


def _payer(key: str) -> tuple[str, str]:
    """The payer and token of a rewards key (see the module)."""
    *_, payer, token, _ = key.split(":")
    return payer, token


def _fields(log: Log) -> bytes:
    """The event's fields in declaration order, one word each: its data where nothing is indexed
    (the core pool's), else its topics and data merged by INDEXED (an isolated pool's)."""
    if len(log.topics) == 1 or log.signature not in INDEXED:
        return log.data
    topics = iter(bytes.fromhex(t.removeprefix("0x")) for t in log.topics[1:])
    words = iter(log.data[start : start + 32] for start in range(0, len(log.data), 32))
    count = len(log.topics) - 1 + len(log.data) // 32
    return b"".join(next(topics) if i in INDEXED[log.signature] else next(words) for i in range(count))


def _address(data: bytes, word: int) -> str:
    """The address in word `word` of an event's data."""
    return "0x" + data[32 * word + 12 : 32 * word + 32].hex()


def _decoded(log: Log, named: str, legs: Mapping[str, str]) -> list[Flow]:
    """The flows one market or VAI event gives the wallet's legs (see the module)."""
    at, event, data = (log.block_number, log.log_index, log.transaction_hash), log.signature, _fields(log)
    supply, borrow = f"{log.address}:supply", f"{log.address}:borrow"
    changes: list[tuple[str, str, int]] = []
    if event in (MINT.topic, COMPOUND_MINT.topic) and _address(data, 0) == named:
        _, amount = decode(("address", "uint256"), data[:64])
        changes.append((supply, "supply", amount))
    elif event == MINT_BEHALF.topic and _address(data, 1) == named:
        _, _, amount, _, _ = decode(("address", "address", "uint256", "uint256", "uint256"), data)
        changes.append((supply, "supply", amount))
    elif event in (REDEEM.topic, REDEEM_FEE.topic, COMPOUND_REDEEM.topic) and _address(data, 0) == named:
        _, amount, *_ = decode(("address", "uint256", "uint256"), data[:96])
        changes.append((supply, "redeem-fee" if event == REDEEM_FEE.topic else "withdraw", -amount))
    elif event in (BORROW.topic, MINT_VAI.topic) and _address(data, 0) == named:
        _, amount = decode(("address", "uint256"), data[:64])
        changes.append((borrow, "borrow", amount))
    elif event in (REPAY_BORROW.topic, REPAY_VAI.topic) and _address(data, 1) == named:
        _, _, amount = decode(("address", "address", "uint256"), data[:96])
        changes.append((borrow, "repay", -amount))
    elif event in (LIQUIDATE_BORROW.topic, LIQUIDATE_VAI.topic) and _address(data, 1) == named:
        _, _, amount = decode(("address", "address", "uint256"), data[:96])
        changes.append((borrow, "liquidation-repaid", -amount))
    return [Flow(leg, kind, *at, legs[leg], amount) for leg, kind, amount in changes if leg in legs]


async def _moved(
    ctx: FetchContext[Any], logs: WalletLogs, named: str, legs: Mapping[str, str], liquidated: set[str]
) -> list[Flow]:
    """vTokens of the wallet's supply legs moved to or from another holder (not the vToken itself:
    its mints and redemptions), valued at the market's stored exchange rate at their block."""
    supplies = {_contract(key): key for key in legs if key.endswith(":supply")}
    moved = []
    for log in logs:
        change = transferred(log, named) if log.address in supplies else None
        to_itself = change is not None and address_of(change.other) == log.address
        if change is None or change.kind in ("mint", "burn") or (to_itself and log.transaction_hash not in liquidated):
            continue  # its own mints and redemptions are the market's events; a liquidation's protocol share is not
        moved.append((log, change.amount, change.kind))

    async def rate(log: Log) -> int:
        reader = ctx.chains.reader(ctx.chain_id, log.block_number)
        return int(await first(reader.call(log.address, EXCHANGE_RATE_STORED, label=f"{LABEL} vToken")))

    rates = await asyncio.gather(*(rate(log) for log, _, _ in moved))
    found = []
    for (log, tokens, kind), stored in zip(moved, rates):
        seized = kind == "transfer-out" and log.transaction_hash in liquidated
        at = (log.block_number, log.log_index, log.transaction_hash)
        key = supplies[log.address]
        amount = tokens * stored // MANTISSA if tokens > 0 else -(-tokens * stored // MANTISSA)
        found.append(Flow(key, "liquidation-seized" if seized else kind, *at, legs[key], amount))
    return found


async def prices(
    ctx: FetchContext[VenusAddresses], reader: ChainReader, moved: list[Flow]
) -> dict[int, Fraction | None]:
    """The flows valued as their positions are, by their pool's oracle at the flow's block: a
    market's (`<vToken>:...`) by `getUnderlyingPrice(vToken)` of its Comptroller's (`comptroller()`)
    oracle, a reward claimed (`<comptroller>:...:rewards`) by `getPrice(token)`, each x
    10^decimals / 1e36 per whole token; VAI at 1 USD, as the Comptroller counts it."""
    core = ctx.section.comptroller
    vai = await outcome(first(reader.call(core, VAI_CONTROLLER, label=LABEL))) if core else None
    return await priced(reader, moved, vai if isinstance(vai, str) else None, compound=False)


async def priced(reader: ChainReader, moved: list[Flow], vai: str | None, compound: bool) -> dict[int, Fraction | None]:
    """`prices`, for Compound v2 too (`compound`), whose oracle prices cTokens only: a reward is
    priced as the market whose underlying it is."""

    async def price(flow: Flow) -> Fraction:
        contract = _contract(flow.position)
        if contract == vai:
            return Fraction(1)
        reward = flow.position.endswith(":rewards")
        pool = contract if reward else await first(reader.call(contract, VTOKEN_COMPTROLLER, label=LABEL))
        oracle = str(await first(reader.call(str(pool), ORACLE, label=LABEL)))
        if reward and not compound:
            read = reader.call(oracle, ASSET_PRICE, flow.asset, label=f"{LABEL} oracle")
        else:
            market = await _holding(reader, str(pool), flow.asset) if reward else contract
            read = reader.call(oracle, UNDERLYING_PRICE, market, label=f"{LABEL} oracle")
        (answer,), token = await asyncio.gather(read, erc20.token_info(reader, flow.asset))
        return Fraction(answer * 10 ** token["decimals"], PRICE_SCALE)

    found = await asyncio.gather(*(outcome(price(flow)) for flow in moved))
    return {index: None if isinstance(value, ProtocolError) else value for index, value in enumerate(found)}


async def _holding(reader: ChainReader, comptroller: str, token: str) -> str:
    """The Comptroller's market whose underlying `token` is."""
    (markets,) = await reader.call(comptroller, ALL_MARKETS, label=LABEL)
    return await holding(reader, [str(m).lower() for m in markets], token, f"Comptroller {comptroller}")
