"""Pendle: PT, YT, LP and SY positions, read on-chain.

How each figure is derived (all at the request's pinned block; docs/protocols/pendle.md has the long form):

- Discovery through the event index (chain/event_index.py; the stream: contracts.py): PT and YT
  pairs from every yield-contract factory's CreateYieldContract events (with their SY and
  expiry), markets from every market factory's CreateNewMarket events (with their PT), and who
  may hold a PT, YT or LP from their Transfer logs. Those the wallet's logs name are asked for
  `balanceOf`; non-zero ones are held. SY tokens are not Pendle's: they exist, and move, before a
  factory names them, so the wallet's balance is read in every SY of the catalog at once
  (adapters/sweep.py) instead.
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
  (adapters/prices/); none or stale: null. Rewards through the reward token's feed.
- All reads for the tokens the stored index names go out at once in PendleLens (lenses/,
  chain/lens.py), in the round that reads the index's tail; it makes the same calls, the claim
  simulation last, and returns their raw answers.
- Not derived: the locked APY (needs the wallet's entry trades), the LP APY (swap fees and PENDLE
  incentives need history or Pendle's API) and the underlying APY (needs a past block).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable
from fractions import Fraction
from typing import Any

from adapters.context import FetchContext
from adapters.formats import ratio
from adapters.history import iso_date
from adapters.legs import LIQUIDITY_POSITION, REWARD, SUPPLIED, YIELD, feed_of, leg, position
from adapters.pendle.contracts import (
    EXCHANGE_RATE,
    GET_REWARD_TOKENS,
    REDEEM_DUE,
    USER_INTEREST,
    WAD,
    YieldContract,
    stream,
)
from adapters.pendle.market import Asset, MarketState, PendleReader
from adapters.pendle.section import PendleAddresses
from adapters.position_warnings import FIGURE_UNAVAILABLE, PART_UNREADABLE, outcome
from adapters.prices import token_feeds
from adapters.sweep import balances, swept_balances
from addresses import ChainAddresses
from chain import ChainReader, first, shared_future
from chain.event_index import View
from chain.lens import NONE, Lens
from errors import ProtocolError

LENS_TOKENS = 12
"""PTs, YTs and LPs per PendleLens call: a held one's records take up to about 1.5 KB of a
24,000-byte tape (more for a YT with rewards)."""
LENS = Lens(
    "PendleLens",
    ("address", "address[]", "address[]", "address[]", "address[]", "address[]", "address[]", "address[]", "address"),
)
MAX_REWARD_TOKENS = 16


class Catalog:
    """The index's markets and yield contracts, looked up the ways positions need them; each
    table is built when first used (a chain's thousands of entries), a single token's lookup
    builds none but the markets' where the token is Pendle's."""

    def __init__(self, view: View) -> None:
        self.view = view

    @functools.cached_property
    def pairs(self) -> dict[str, YieldContract]:
        return {entry.key: YieldContract.of_entry(entry.value) for entry in self.view.of("pt")}

    @functools.cached_property
    def by_yt(self) -> dict[str, YieldContract]:
        return {pair.yt: pair for pair in self.pairs.values()}

    @functools.cached_property
    def markets(self) -> dict[str, str]:
        return {entry.key: "0x" + entry.value.hex() for entry in self.view.of("market")}

    @functools.cached_property
    def market_of_pt(self) -> dict[str, str]:
        """Created last wins: `view.of` lists in creation order."""
        return {pt: market for market, pt in self.markets.items()}

    @functools.cached_property
    def sys(self) -> list[str]:
        return sorted({pair.sy for pair in self.pairs.values()})

    def pair_of(self, token: str) -> tuple[str | None, YieldContract] | None:
        """The market (if any) and yield contract behind a PT, YT or LP token; None for another."""
        pts = self.view.kind("pt")
        if (entry := pts.get(token) or self.view.kind("yt").get(token)) is not None:
            pair = YieldContract.of_entry(entry.value)
            return self.market_of_pt.get(pair.pt), pair
        if (market := self.view.kind("market").get(token)) is not None:
            pt = pts.get("0x" + market.value.hex())
            return None if pt is None else (token, YieldContract.of_entry(pt.value))
        return None


async def fetch(ctx: FetchContext[PendleAddresses], wallet: str) -> dict[str, Any]:
    chain_id, chain = ctx.chain_id, ctx.chain
    reader = ctx.reader()
    events = stream(ctx.section)
    stored = await ctx.stored_events(events)
    catalog = Catalog(stored)
    _prefetch(reader, chain, catalog, await stored.keys(wallet), wallet)
    swept = catalog.sys
    sweeping = shared_future(swept_balances(reader, swept, wallet, ctx.warnings, "SY"))
    view = await ctx.events(events)
    if view.fresh or (view.store is not None and view.progress != stored.progress):
        # The view's stored part is not the one the prefetch read (the store could not be read
        # then, or a scan stored more since): the catalog is the view's, or positions are missed.
        catalog = Catalog(view)
    pendle = PendleReader(reader, chain, ctx.warnings)
    newer = sorted(set(catalog.sys) - set(swept))
    sy_balances = _merged(sweeping, swept_balances(reader, newer, wallet, ctx.warnings, "SY") if newer else None)
    if view.complete:
        held = await view.keys(wallet)
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
                f"{view.shortfall(chain_id, 'market and yield contract')}; a YT no longer held whose interest is "
                f"still due is listed only then"
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
    answers = await asyncio.gather(*(_accrued(pendle, yt, wallet) for yt in yts), return_exceptions=True)
    pendle.warnings.survivors("YT", zip(yts, answers))
    return {yt: 0 for yt, accrued in zip(yts, answers) if not isinstance(accrued, BaseException) and accrued}


async def _accrued(pendle: PendleReader, yt: str, wallet: str) -> int:
    """The interest a YT keeps for the wallet until claimed (its stored `userInterest`)."""
    _, accrued = await pendle.reader.call(yt, USER_INTEREST, wallet, label=f"YT {yt}")
    return int(accrued)


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
    if state is not None and state.expired:
        warnings.add(FIGURE_UNAVAILABLE, market or token, f"impliedApy is null: it matured on {iso_date(pair.expiry)}")
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


def _held(
    typename: str,
    token: str,
    info: dict[str, Any] | None,
    balance: int,
    usd: float | None,
    asset: Asset | None,
    category: str = YIELD,
    **figures: Any,
) -> dict[str, Any]:
    """The Position of a PT, YT, LP or SY balance: one leg in the token's own units, priced through
    the SY's asset (its feed)."""
    source = feed_of(asset.price if asset else None)
    label = info["symbol"] if info else token
    return position(
        typename, token.lower(), category, label, [leg(SUPPLIED, token.lower(), info, balance, usd, source)], **figures
    )


async def _pt_position(
    pendle: PendleReader, market: str | None, pair: YieldContract, balance: int, chain_id: int
) -> dict[str, Any]:
    fields, state, asset = await _common(pendle, market, pair, pair.pt, "ptToken", chain_id)
    price = state.pt_price if state else None
    usd = asset.usd(balance * price) if asset and price is not None else None
    return {
        "type": "pendle-pt",
        **fields,
        "balance": str(balance),
        "balanceUsd": usd,
        "ptPrice": ratio(price),
        "ptDiscount": ratio(1 - price if price is not None else None),
        **_held("PendlePtPosition", pair.pt, fields["ptToken"], balance, usd, asset, apy=fields["impliedApy"]),
    }


async def _yt_position(
    pendle: PendleReader, market: str | None, pair: YieldContract, balance: int, wallet: str, chain_id: int
) -> dict[str, Any]:
    (fields, state, asset), due, sy = await asyncio.gather(
        _common(pendle, market, pair, pair.yt, "ytToken", chain_id),
        pendle.warnings.optional(_due(pendle, pair.yt, wallet), pair.yt, "accruedInterest and rewards are"),
        pendle.warnings.optional(pendle.token(pair.sy), pair.sy, "the accrued interest's token is"),
    )
    pt_price = state.pt_price if state else None
    price = 1 - pt_price if pt_price is not None else None
    usd = asset.usd(balance * price) if asset and price is not None else None
    held = _held("PendleYtPosition", pair.yt, fields["ytToken"], balance, usd, asset)
    interest = rewards = None
    if due is not None:
        interest_sy, rewards = due
        interest_usd = asset.usd(Fraction(interest_sy * state.sy_rate, WAD)) if asset and state else None
        interest = {"amount": str(interest_sy), "amountUsd": interest_usd}
        source = feed_of(asset.price if asset else None)
        held["legs"] += [
            leg(REWARD, f"{pair.yt.lower()}:interest", sy, interest_sy, interest_usd, source),
            *(reward.pop("leg") for reward in rewards),
        ]
    return {
        "type": "pendle-yt",
        **fields,
        "balance": str(balance),
        "balanceUsd": usd,
        "ytPrice": ratio(price),
        "accruedInterest": interest,
        "rewards": rewards,
        **held,
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
    rewards = []
    for token, info, amount, price in zip(tokens, infos, amounts, prices):
        usd = price.value(amount, info["decimals"]) if price and info else None
        key = f"{yt.lower()}:{token.lower()}:reward"
        rewards.append(
            {
                "token": info,
                "amount": str(amount),
                "amountUsd": usd,
                "leg": leg(REWARD, key, info, amount, usd, feed_of(price)),
            }
        )
    return interest, rewards


async def _lp_position(
    pendle: PendleReader, market: str, pair: YieldContract, balance: int, chain_id: int
) -> dict[str, Any]:
    fields, state, asset = await _common(pendle, market, pair, market, "lpToken", chain_id)
    price = state.lp_price if state else None
    split = state if state is not None and state.total_lp > 0 else None
    usd = asset.usd(balance * price) if asset and price is not None else None
    return {
        "type": "pendle-lp",
        **fields,
        "balance": str(balance),
        "balanceUsd": usd,
        **_held("PendleLpPosition", market, fields["lpToken"], balance, usd, asset, category=LIQUIDITY_POSITION),
        "lpPrice": ratio(price),
        "ptShare": str(balance * split.total_pt // split.total_lp) if split else None,
        "syShare": str(balance * split.total_sy // split.total_lp) if split else None,
    }


async def _sy_position(pendle: PendleReader, sy: str, balance: int, chain_id: int) -> dict[str, Any]:
    warnings = pendle.warnings
    info, asset, rate = await asyncio.gather(
        warnings.optional(pendle.token(sy), sy, "syToken is"),
        warnings.optional(pendle.asset(sy), sy, "underlyingAsset and balanceUsd are"),
        outcome(first(pendle.reader.call(sy, EXCHANGE_RATE, label=f"SY {sy}"))),
    )
    rate = warnings.value(rate, sy, "exchangeRate and balanceUsd are")
    usd = asset.usd(Fraction(balance * rate, WAD)) if asset and rate is not None else None
    return {
        "type": "pendle-sy",
        "syTokenAddress": sy,
        "chainId": chain_id,
        "syToken": info,
        "underlyingAsset": asset.token if asset else None,
        "balance": str(balance),
        "balanceUsd": usd,
        **_held("PendleSyPosition", sy, info, balance, usd, asset),
        "exchangeRate": rate / WAD if rate is not None else None,
    }
