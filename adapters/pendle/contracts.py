"""Pendle's ground floor: the events its discovery reads (the index's stream) and the functions
both queries call, with the output names Pendle publishes (`@pendle/core-v2`; a test holds
these to its ABIs)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from adapters.pendle.section import PendleAddresses
from chain import Log, erc20
from chain.abi import Event, Function, decode, encode
from chain.event_index import Stream
from chain.index_store import Entry, Holding, Rows

WAD = 10**18

CREATE_NEW_MARKET = Event(
    "CreateNewMarket(address,address,int256,int256,uint256)",
    "0xae811fae25e2770b6bd1dcb1475657e8c3a976f91d1ebf081271db08eef920af",
)
CREATE_NEW_MARKET_V1 = Event(
    "CreateNewMarket(address,address,int256,int256)",
    "0x166ae5f55615b65bbd9a2496e98d4e4d78ca15bd6127c0fe2dc27b76f6c03143",
)
"""The first market factory's event, before markets had a fee root."""
CREATE_YIELD_CONTRACT = Event(
    "CreateYieldContract(address,uint256,address,address)",
    "0xaa79d8f17776adeaa316c5411b72e8b0057d064974fa8748f32492ecaa22ecd1",
)

STORAGE = Function(
    "_storage()",
    "c3fb90d6",
    (
        "int128 totalPt",
        "int128 totalSy",
        "uint96 lastLnImpliedRate",
        "uint16 observationIndex",
        "uint16 observationCardinality",
        "uint16 observationCardinalityNext",
    ),
)
EXCHANGE_RATE = Function("exchangeRate()", "3ba0b9a9", ("uint256",))
ASSET_INFO = Function(
    "assetInfo()", "a40bee50", ("uint8 assetType", "address assetAddress", "uint8 assetDecimals"), immutable=True
)
PY_INDEX_STORED = Function("pyIndexStored()", "d2a3584e", ("uint256",))
DO_CACHE_INDEX_SAME_BLOCK = Function("doCacheIndexSameBlock()", "516399df", ("bool",), immutable=True)
PY_INDEX_LAST_UPDATED_BLOCK = Function("pyIndexLastUpdatedBlock()", "60e0a9e1", ("uint128",))
USER_INTEREST = Function("userInterest(address)", "d68076c3", ("uint128 index", "uint128 accrued"))
REDEEM_DUE = Function(
    "redeemDueInterestAndRewards(address,bool,bool)", "7d24da4d", ("uint256 interestOut", "uint256[] rewardsOut")
)
GET_REWARD_TOKENS = Function("getRewardTokens()", "c4f59f9b", ("address[]",))
IS_VALID_MARKET = Function("isValidMarket(address)", "58e6309f", ("bool",))
READ_TOKENS = Function("readTokens()", "2c8ce6bc", ("address SY", "address PT", "address YT"), immutable=True)
EXPIRY = Function("expiry()", "e184c9be", ("uint256",), immutable=True)
ORACLE_ERRORS = ("OracleTargetTooOld(uint32,uint32)",)
"""What the oracle's rates revert with where a market's observations do not reach the window back
(its OracleLib: the target time, the oldest observation's)."""
GET_PT_TO_ASSET_RATE = Function("getPtToAssetRate(address,uint32)", "abca0eab", ("uint256",), errors=ORACLE_ERRORS)
GET_YT_TO_ASSET_RATE = Function("getYtToAssetRate(address,uint32)", "bb0856fe", ("uint256",), errors=ORACLE_ERRORS)
GET_LP_TO_ASSET_RATE = Function("getLpToAssetRate(address,uint32)", "6cda9833", ("uint256",), errors=ORACLE_ERRORS)
"""PendlePYLpOracle's time-weighted rates (rates.py)."""

YIELD_CONTRACT = ("address", "uint256", "address", "address")
"""A yield contract's index entry: its SY, expiry, PT and YT."""


@dataclass(frozen=True)
class YieldContract:
    """A PT and YT pair: what CreateYieldContract says, kept as the index entry's value."""

    sy: str
    expiry: int
    pt: str
    yt: str

    @classmethod
    def of_entry(cls, data: bytes) -> YieldContract:
        """The pair a "pt" or "yt" entry of the index holds, as `stream` encodes it."""
        return cls(*decode(YIELD_CONTRACT, data))


@functools.cache
def stream(deployment: PendleAddresses) -> Stream:
    """Pendle's events in the index: yield contracts and markets created (catalog entries), and
    who may hold a PT, YT or LP (holdings): the recipient of each of their Transfers."""
    market_factories = {factory.address.lower() for factory in deployment.market_factories}
    yield_factories = {factory.address.lower() for factory in deployment.yield_contract_factories}
    contracts = tuple(sorted(market_factories | yield_factories))
    start = min(factory.start_block for factory in (*deployment.market_factories, *deployment.yield_contract_factories))

    def rows(entry: Log) -> Rows:
        """Every event read has an event topic and two indexed arguments."""
        address = entry.address
        if len(entry.topics) != 3:
            return []
        kind, first, second = entry.topics
        if address in market_factories and kind in (CREATE_NEW_MARKET.topic, CREATE_NEW_MARKET_V1.topic):
            return [Entry("market", _topic_address(first), bytes.fromhex(second[-40:]), entry.block_number)]
        if address in yield_factories and kind == CREATE_YIELD_CONTRACT.topic:
            pt, yt = decode(["address", "address"], entry.data)
            value = encode(YIELD_CONTRACT, [_topic_address(first), int(second, 16), pt, yt])
            return [Entry("pt", pt, value, entry.block_number), Entry("yt", yt, value, entry.block_number)]
        if address not in contracts and kind == erc20.TRANSFER.topic:
            return [Holding(_topic_address(second), address, entry.block_number)]
        return []

    topics = (CREATE_NEW_MARKET.topic, CREATE_NEW_MARKET_V1.topic, CREATE_YIELD_CONTRACT.topic, erc20.TRANSFER.topic)
    return Stream(f"pendle {','.join(contracts)}", contracts, topics, start, rows, ("market", "pt", "yt"))


def _topic_address(topic: str) -> str:
    return "0x" + topic[-40:]
