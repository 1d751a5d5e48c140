"""Pendle: PT, YT, LP and SY positions, read on-chain.

How each figure is derived (all at the request's pinned block; docs/protocols/pendle.md has the long form):

- Discovery through the event index (chain/event_index.py, `stream`): PT and YT pairs from every
  yield-contract factory's CreateYieldContract events (with their SY and expiry), markets from
  every market factory's CreateNewMarket events (with their PT), and who may hold a PT, YT or LP
  from their Transfer logs. Those the wallet's logs name are asked for `balanceOf`; non-zero ones
  are held. SY tokens are not Pendle's: they exist, and move, before a factory names them, so the
  wallet's balance is read in every SY of the catalog at once (adapters/sweep.py) instead.
- A PT traded in several markets is priced in the one created last.
- Implied APY = e^(lastLnImpliedRate / 1e18) - 1 (the market's `_storage()`), as RouterStatic's
  `getMarketState` and Pendle's offchain math give it; null after expiry (no rate is left to earn).
- PT price in the asset: before expiry 1 / e^(lastLnImpliedRate x timeToExpiry / 365 days)
  (MarketMathCore's exchange rate from the implied rate); after expiry SY.exchangeRate / pyIndex.
  YT price = 1 - PT price. PT discount = 1 - PT price. pyIndex is the YT's current index as
  RouterStatic reads it: max(SY.exchangeRate, pyIndexStored), or pyIndexStored where the YT caches
  the index per block and updated it in this block.
- LP price in the asset: (totalSy x pyIndex / 1e18 + totalPt x PT price) / totalLp; after expiry
  (totalSy x pyIndex / 1e18 + totalPt) / totalLp (RouterStatic's getLpToAssetRate). The LP's PT
  and SY share: balance x totalPt / totalLp and balance x totalSy / totalLp, rounded down.
- SY in the asset: balance x SY.exchangeRate / 1e18.
- YT interest and rewards due: `redeemDueInterestAndRewards(wallet, true, true)` simulated with
  eth_call (what a claim at this block pays, fees off); interest is in SY. A YT the wallet no
  longer holds is listed while its stored `userInterest` still owes interest.
- USD: the asset's amount (PT, YT and asset share the asset's raw unit) x the asset's USD feed
  (adapters/prices.py); none or stale: null. Rewards through the reward token's feed.
- All reads for the tokens the stored index names go out at once in PendleLens (lenses/,
  chain/lens.py), in the round that reads the index's tail; it makes the same calls, the claim
  simulation last, and returns their raw answers.
- Not derived: the locked APY (needs the wallet's entry trades), the LP APY (swap fees and PENDLE
  incentives need history or Pendle's API) and the underlying APY (needs a past block).
"""

from __future__ import annotations

import asyncio
import functools
import math
from collections.abc import Awaitable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from adapters.context import FetchContext
from adapters.deployment import started
from adapters.formats import ratio
from adapters.history import iso_date
from adapters.position_warnings import FIGURE_UNAVAILABLE, PART_UNREADABLE, Warnings, outcome
from adapters.prices import UsdPrice, token_feeds, usd_price
from adapters.sweep import balances, swept_balances
from addresses import ChainAddresses, PendleAddresses
from chain import ChainReader, Log, erc20, shared_future
from chain.abi import Event, Function, decode, encode
from chain.event_index import Entry, Holding, Rows, Stream, View
from chain.lens import NONE, Lens
from errors import ProtocolError

WAD = 10**18
IMPLIED_RATE_TIME = 365 * 24 * 3600
"""MarketMathCore's year for implied rates."""

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

STORAGE = Function("_storage()", "c3fb90d6", ("int128", "int128", "uint96", "uint16", "uint16", "uint16"))
EXCHANGE_RATE = Function("exchangeRate()", "3ba0b9a9", ("uint256",))
ASSET_INFO = Function("assetInfo()", "a40bee50", ("uint8", "address", "uint8"), immutable=True)
PY_INDEX_STORED = Function("pyIndexStored()", "d2a3584e", ("uint256",))
DO_CACHE_INDEX_SAME_BLOCK = Function("doCacheIndexSameBlock()", "516399df", ("bool",), immutable=True)
PY_INDEX_LAST_UPDATED_BLOCK = Function("pyIndexLastUpdatedBlock()", "60e0a9e1", ("uint128",))
USER_INTEREST = Function("userInterest(address)", "d68076c3", ("uint128", "uint128"))
REDEEM_DUE = Function("redeemDueInterestAndRewards(address,bool,bool)", "7d24da4d", ("uint256", "uint256[]"))
GET_REWARD_TOKENS = Function("getRewardTokens()", "c4f59f9b", ("address[]",))
LENS_TOKENS = 12
"""PTs, YTs and LPs per PendleLens call: a held one's records take up to about 1.5 KB of a
24,000-byte tape (more for a YT with rewards)."""
LENS = Lens(
    "PendleLens",
    ("address", "address[]", "address[]", "address[]", "address[]", "address[]", "address[]", "address[]", "address"),
)
MAX_REWARD_TOKENS = 16


@dataclass(frozen=True)
class YieldContract:
    """A PT and YT pair: what CreateYieldContract says, kept as the index entry's value."""

    sy: str
    expiry: int
    pt: str
    yt: str


@dataclass(frozen=True)
class Asset:
    """What an SY's value is counted in (`assetInfo`), with its token facts and USD price."""

    address: str
    decimals: int
    token: dict[str, Any] | None
    price: UsdPrice | None

    def usd(self, amount: Fraction | int | None) -> float | None:
        """USD of an amount in the asset's raw unit."""
        if amount is None or self.price is None:
            return None
        return float(Fraction(amount) * self.price.answer / 10 ** (self.decimals + self.price.decimals))


@dataclass(frozen=True)
class MarketState:
    """A market and its SY and YT at the block: what every price and APY is derived from."""

    market: str | None
    pair: YieldContract
    now: int
    sy_rate: int
    py_index: int
    total_pt: int = 0
    total_sy: int = 0
    total_lp: int = 0
    ln_implied_rate: int = 0

    @property
    def expired(self) -> bool:
        return self.now >= self.pair.expiry

    @property
    def implied_apy(self) -> float | None:
        if self.expired or self.market is None:
            return None
        return math.expm1(self.ln_implied_rate / WAD)

    @property
    def pt_price(self) -> Fraction | None:
        """Asset per PT (raw units of both)."""
        if self.expired:
            return Fraction(self.sy_rate, self.py_index)
        if self.market is None:
            return None
        exponent = self.ln_implied_rate * (self.pair.expiry - self.now) // IMPLIED_RATE_TIME
        return Fraction(1 / math.exp(exponent / WAD))

    @property
    def market_value(self) -> Fraction | None:
        """What the market's SY and PT are worth, in the asset's raw unit."""
        pt_price = self.pt_price
        if self.market is None or pt_price is None:
            return None
        total_asset = self.total_sy * self.py_index // WAD
        return Fraction(total_asset + (self.total_pt if self.expired else self.total_pt * pt_price))

    @property
    def lp_price(self) -> Fraction | None:
        """Asset per LP (raw units)."""
        value = self.market_value
        if value is None or not self.total_lp:
            return None
        return value / self.total_lp


class PendleReader:
    """The reads of one input, sharing the request's reader (and so its rounds and block)."""

    def __init__(self, reader: ChainReader, chain: ChainAddresses, warnings: Warnings) -> None:
        self.reader = reader
        self.chain = chain
        self.warnings = warnings

    async def state(self, market: str | None, pair: YieldContract) -> MarketState:
        return await self.reader.shared(("pendle", "state", market, pair.yt), lambda: self._state(market, pair))

    async def _state(self, market: str | None, pair: YieldContract) -> MarketState:
        reader = self.reader
        label = f"YT {pair.yt}"
        now, block, (sy_rate,), (stored,), (caches,), (updated,) = await asyncio.gather(
            reader.block_timestamp(),
            reader.block_number(),
            reader.call(pair.sy, EXCHANGE_RATE, label=f"SY {pair.sy}"),
            reader.call(pair.yt, PY_INDEX_STORED, label=label),
            reader.call(pair.yt, DO_CACHE_INDEX_SAME_BLOCK, label=label),
            reader.call(pair.yt, PY_INDEX_LAST_UPDATED_BLOCK, label=label),
        )
        py_index = stored if caches and updated == block else max(sy_rate, stored)
        if not py_index:
            raise ProtocolError(f"{label} has no interest index")
        if market is None:
            return MarketState(None, pair, now, sy_rate, py_index)
        label = f"market {market}"
        (total_pt, total_sy, ln_rate, *_), (total_lp,) = await asyncio.gather(
            reader.call(market, STORAGE, label=label), reader.call(market, erc20.TOTAL_SUPPLY, label=label)
        )
        return MarketState(market, pair, now, sy_rate, py_index, total_pt, total_sy, total_lp, ln_rate)

    async def asset(self, sy: str) -> Asset:
        return await self.reader.shared(("pendle", "asset", sy), lambda: self._asset(sy))

    async def _asset(self, sy: str) -> Asset:
        _, address, decimals = await self.reader.call(sy, ASSET_INFO, label=f"SY {sy}")
        token, price = await asyncio.gather(
            self.warnings.optional(self.token(address), address, "underlyingAsset is"), self.price(address)
        )
        return Asset(address, decimals, token, price)

    async def price(self, token: str) -> UsdPrice | None:
        read = self.reader.shared(("pendle", "price", token), lambda: usd_price(self.reader, self.chain, token))
        return await self.warnings.optional(read, token, "its USD values are")

    async def token(self, token: str) -> dict[str, Any]:
        return await self.reader.shared(("pendle", "token", token), lambda: erc20.token_info(self.reader, token))


class Catalog:
    """The index's markets and yield contracts, looked up the ways positions need them."""

    def __init__(self, view: View) -> None:
        self.pairs = {entry.key: _pair(entry.value) for entry in view.of("pt")}
        self.by_yt = {pair.yt: pair for pair in self.pairs.values()}
        self.markets = {entry.key: "0x" + entry.value.hex() for entry in view.of("market")}
        self.market_of_pt = {pt: market for market, pt in self.markets.items()}
        """Created last wins: `view.of` lists in creation order."""

    @functools.cached_property
    def sys(self) -> list[str]:
        return sorted({pair.sy for pair in self.pairs.values()})


async def fetch(ctx: FetchContext, wallet: str) -> dict[str, Any]:
    chain_id, chain = ctx.chain_id, ctx.chain
    assert chain.pendle is not None
    reader = ctx.reader()
    block = await reader.block_number()
    events = stream(chain.pendle)
    started(reader, "pendle", block, events.start_block, "its first factory")
    stored = await ctx.stored_events(events)
    catalog = Catalog(stored)
    _prefetch(reader, chain, catalog, stored.keys(wallet), wallet)
    swept = catalog.sys
    sweeping = shared_future(swept_balances(reader, swept, wallet, ctx.warnings, "SY"))
    view = await ctx.events(events)
    if view.fresh:
        catalog = Catalog(view)
    pendle = PendleReader(reader, chain, ctx.warnings)
    newer = sorted(set(catalog.sys) - set(swept))
    sy_balances = _merged(sweeping, swept_balances(reader, newer, wallet, ctx.warnings, "SY") if newer else None)
    if view.complete:
        held = view.keys(wallet)
        tokens = [key for key in held if key in catalog.pairs or key in catalog.by_yt or key in catalog.markets]
        found, sy = await asyncio.gather(balances(reader, sorted(tokens), wallet, ctx.warnings, "token"), sy_balances)
        owed_yts = [yt for yt in held if yt in catalog.by_yt and yt not in found]
    else:
        everything = [*catalog.pairs, *catalog.by_yt, *catalog.markets]
        found, sy = await asyncio.gather(swept_balances(reader, everything, wallet, ctx.warnings, "token"), sy_balances)
        owed_yts = []
        ctx.warnings.add(
            PART_UNREADABLE,
            "pendle",
            (
                f"the event index of chain {chain_id} reaches block {view.covered_to} of {block}: every market and "
                f"yield contract created up to it was checked, later ones are not listed; they are once the index has "
                f"caught up; a YT no longer held whose interest is still due is listed only then"
            ),
            retryable=True,
        )
    owed = await _owed_interest(pendle, owed_yts, wallet)
    pts = [(catalog.pairs[t], amount) for t, amount in found.items() if t in catalog.pairs]
    yts = [(catalog.by_yt[t], amount) for t, amount in {**owed, **found}.items() if t in catalog.by_yt]
    lps = [
        (market, catalog.pairs.get(catalog.markets[market]), amount)
        for market, amount in found.items()
        if market in catalog.markets
    ]
    for market, pair, _ in lps:
        if pair is None:
            ctx.warnings.add(
                PART_UNREADABLE,
                market,
                f"market {market} is left out: its PT {catalog.markets[market]} "
                "is not from a known yield-contract factory",
            )
    pt_positions, yt_positions, lp_positions, sy_positions = await asyncio.gather(
        asyncio.gather(
            *(_pt_position(pendle, catalog.market_of_pt.get(pair.pt), pair, amount, chain_id) for pair, amount in pts)
        ),
        asyncio.gather(
            *(
                _yt_position(pendle, catalog.market_of_pt.get(pair.pt), pair, amount, wallet, chain_id)
                for pair, amount in yts
            )
        ),
        asyncio.gather(
            *(_lp_position(pendle, market, pair, amount, chain_id) for market, pair, amount in lps if pair is not None)
        ),
        asyncio.gather(*(_sy_position(pendle, token, amount, chain_id) for token, amount in sy.items())),
    )
    return {
        "ptPositions": pt_positions,
        "ytPositions": yt_positions,
        "lpPositions": lp_positions,
        "syPositions": sy_positions,
    }


async def _merged(first: Awaitable[dict[str, int]], second: Awaitable[dict[str, int]] | None) -> dict[str, int]:
    """The SY balances swept with the stored catalog (started before the index's tail was read),
    and those of SYs only the tail names."""
    return {**await first, **(await second if second is not None else {})}


def _prefetch(reader: ChainReader, chain: ChainAddresses, catalog: Catalog, held: set[str], wallet: str) -> None:
    """The reads of the PTs, YTs and LPs the stored index says the wallet may hold, and of every
    SY it holds, in lens calls of LENS_TOKENS tokens each that ride with the index's tail."""
    tokens, sys, yts, markets = [], [], [], []
    for token in sorted(held):
        pair = catalog.pairs.get(token) or catalog.by_yt.get(token)
        market = catalog.market_of_pt.get(pair.pt) if pair else None
        if token in catalog.markets:
            market, pair = token, catalog.pairs.get(catalog.markets[token])
        if pair is not None:
            tokens.append(token)
            sys.append(pair.sy)
            yts.append(pair.yt)
            markets.append(market or NONE)
    priced = token_feeds(chain)
    feeds, sequencer = [feed.feed for feed in priced.values()], chain.sequencer_uptime_feed or NONE
    initcodes = [
        LENS.initcode(
            wallet,
            *(column[i : i + LENS_TOKENS] for column in (tokens, sys, yts, markets)),
            catalog.sys if i == 0 else [],
            list(priced),
            feeds,
            sequencer,
        )
        for i in range(0, max(len(tokens), 1), LENS_TOKENS)
    ]
    reader.prefetch(initcodes, [*tokens, *sys, *yts, *markets, *catalog.sys, *feeds, sequencer])


async def _owed_interest(pendle: PendleReader, yts: list[str], wallet: str) -> dict[str, int]:
    """YTs the wallet's logs name but it holds none of, whose stored interest is still due: listed
    with a zero balance."""
    answers = await asyncio.gather(
        *(pendle.reader.call(yt, USER_INTEREST, wallet, label=f"YT {yt}") for yt in yts), return_exceptions=True
    )
    pendle.warnings.survivors("YT", zip(yts, answers))
    return {yt: 0 for yt, answer in zip(yts, answers) if not isinstance(answer, BaseException) and answer[1]}


async def _common(
    pendle: PendleReader, market: str | None, pair: YieldContract, token: str, token_field: str, chain_id: int
) -> tuple[dict[str, Any], MarketState | None, Asset | None]:
    """The fields every PT, YT and LP position has, and the market state and asset behind its figures."""
    warnings = pendle.warnings
    state, asset, info = await asyncio.gather(
        warnings.optional(pendle.state(market, pair), market or pair.yt, "its prices, APY and USD values are"),
        warnings.optional(pendle.asset(pair.sy), pair.sy, "underlyingAsset and the USD values are"),
        warnings.optional(pendle.token(token), token, f"{token_field} is"),
    )
    if state is not None and state.pt_price is None:
        warnings.add(FIGURE_UNAVAILABLE, pair.pt, "its price and USD value are null: no market trades this PT")
    fields = {
        "marketAddress": market,
        "chainId": chain_id,
        token_field: info,
        "underlyingAsset": asset.token if asset else None,
        "syTokenAddress": pair.sy,
        "expiry": pair.expiry,
        "expiryDate": iso_date(pair.expiry),
        "expired": state.expired if state else None,
        "impliedApy": state.implied_apy if state else None,
    }
    return fields, state, asset


async def _pt_position(
    pendle: PendleReader, market: str | None, pair: YieldContract, balance: int, chain_id: int
) -> dict[str, Any]:
    fields, state, asset = await _common(pendle, market, pair, pair.pt, "ptToken", chain_id)
    price = state.pt_price if state else None
    return {
        "type": "pendle-pt",
        **fields,
        "balance": str(balance),
        "balanceUsd": asset.usd(balance * price) if asset and price is not None else None,
        "ptPrice": ratio(price),
        "ptDiscount": ratio(1 - price if price is not None else None),
    }


async def _yt_position(
    pendle: PendleReader, market: str | None, pair: YieldContract, balance: int, wallet: str, chain_id: int
) -> dict[str, Any]:
    (fields, state, asset), due = await asyncio.gather(
        _common(pendle, market, pair, pair.yt, "ytToken", chain_id),
        pendle.warnings.optional(_due(pendle, pair.yt, wallet), pair.yt, "accruedInterest and rewards are"),
    )
    pt_price = state.pt_price if state else None
    price = 1 - pt_price if pt_price is not None else None
    interest = rewards = None
    if due is not None:
        interest_sy, rewards = due
        interest = {
            "amount": str(interest_sy),
            "amountUsd": asset.usd(Fraction(interest_sy * state.sy_rate, WAD)) if asset and state else None,
        }
    return {
        "type": "pendle-yt",
        **fields,
        "balance": str(balance),
        "balanceUsd": asset.usd(balance * price) if asset and price is not None else None,
        "ytPrice": ratio(price),
        "accruedInterest": interest,
        "rewards": rewards,
    }


async def _due(pendle: PendleReader, yt: str, wallet: str) -> tuple[int, list[dict[str, Any]]]:
    """What claiming at this block would pay: interest in SY, and each reward token's amount."""
    label = f"YT {yt}"
    (interest, amounts), (tokens,) = await asyncio.gather(
        pendle.reader.call(yt, REDEEM_DUE, wallet, True, True, label=label),
        pendle.reader.call(yt, GET_REWARD_TOKENS, label=label),
    )
    if len(tokens) != len(amounts) or len(tokens) > MAX_REWARD_TOKENS:
        raise ProtocolError(f"{label} gives {len(amounts)} reward amounts for {len(tokens)} reward tokens")
    infos, prices = await asyncio.gather(
        asyncio.gather(
            *(pendle.warnings.optional(pendle.token(token), token, "the reward's token is") for token in tokens)
        ),
        asyncio.gather(*(pendle.price(token) for token in tokens)),
    )
    rewards = [
        {
            "token": info,
            "amount": str(amount),
            "amountUsd": price.value(amount, info["decimals"]) if price and info else None,
        }
        for info, amount, price in zip(infos, amounts, prices)
    ]
    return interest, rewards


async def _lp_position(
    pendle: PendleReader, market: str, pair: YieldContract, balance: int, chain_id: int
) -> dict[str, Any]:
    fields, state, asset = await _common(pendle, market, pair, market, "lpToken", chain_id)
    price = state.lp_price if state else None
    split = state if state is not None and state.total_lp > 0 else None
    return {
        "type": "pendle-lp",
        **fields,
        "balance": str(balance),
        "balanceUsd": asset.usd(balance * price) if asset and price is not None else None,
        "lpPrice": ratio(price),
        "ptShare": str(balance * split.total_pt // split.total_lp) if split else None,
        "syShare": str(balance * split.total_sy // split.total_lp) if split else None,
    }


async def _sy_position(pendle: PendleReader, sy: str, balance: int, chain_id: int) -> dict[str, Any]:
    warnings = pendle.warnings
    info, asset, rate = await asyncio.gather(
        warnings.optional(pendle.token(sy), sy, "syToken is"),
        warnings.optional(pendle.asset(sy), sy, "underlyingAsset and balanceUsd are"),
        outcome(pendle.reader.call(sy, EXCHANGE_RATE, label=f"SY {sy}")),
    )
    rate = warnings.value(rate, sy, "exchangeRate and balanceUsd are")
    return {
        "type": "pendle-sy",
        "syTokenAddress": sy,
        "chainId": chain_id,
        "syToken": info,
        "underlyingAsset": asset.token if asset else None,
        "balance": str(balance),
        "balanceUsd": asset.usd(Fraction(balance * rate[0], WAD)) if asset and rate else None,
        "exchangeRate": rate[0] / WAD if rate else None,
    }


def _pair(data: bytes) -> YieldContract:
    return YieldContract(*decode(["address", "uint256", "address", "address"], data))


@functools.cache
def stream(deployment: PendleAddresses) -> Stream:
    """Pendle's events in the index: yield contracts and markets created (catalog entries), and
    who may hold a PT, YT or LP (holdings): the recipient of each of their Transfers."""
    market_factories = {factory.address.lower() for factory in deployment.market_factories}
    yield_factories = {factory.address.lower() for factory in deployment.yield_contract_factories}
    contracts = tuple(sorted(market_factories | yield_factories))
    start = min(factory.start_block for factory in (*deployment.market_factories, *deployment.yield_contract_factories))

    def rows(entry: Log) -> Rows:
        topics, address = entry.topics, entry.address
        kind = topics[0] if topics else None
        if (
            address in market_factories
            and len(topics) == 3
            and kind in (CREATE_NEW_MARKET.topic, CREATE_NEW_MARKET_V1.topic)
        ):
            return [Entry("market", _topic_address(topics[1]), bytes.fromhex(topics[2][-40:]), entry.block_number)]
        if address in yield_factories and len(topics) == 3 and kind == CREATE_YIELD_CONTRACT.topic:
            pt, yt = decode(["address", "address"], entry.data)
            value = encode(
                ["address", "uint256", "address", "address"], [_topic_address(topics[1]), int(topics[2], 16), pt, yt]
            )
            return [Entry("pt", pt, value, entry.block_number), Entry("yt", yt, value, entry.block_number)]
        if address not in contracts and len(topics) == 3 and kind == erc20.TRANSFER.topic:
            return [Holding(_topic_address(topics[2]), address, entry.block_number)]
        return []

    topics = (CREATE_NEW_MARKET.topic, CREATE_NEW_MARKET_V1.topic, CREATE_YIELD_CONTRACT.topic, erc20.TRANSFER.topic)
    return Stream(f"pendle {','.join(contracts)}", contracts, topics, start, rows, ("market", "pt", "yt"))


def _topic_address(topic: str) -> str:
    return "0x" + topic[-40:]


def streams(chain: ChainAddresses) -> tuple[Stream, ...]:
    deployment = chain.pendle
    return (stream(deployment),) if deployment else ()


def chains(addresses: dict[int, ChainAddresses]) -> frozenset[int]:
    """Every chain whose addresses data has a "pendle" section."""
    return frozenset(chain_id for chain_id, chain in addresses.items() if chain.pendle)
