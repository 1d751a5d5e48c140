"""Morpho's wallet positions: vaults V1 (MetaMorpho), vaults V2 and Morpho Blue markets, read
on-chain at the request's block (docs/protocols/morpho.md has the long form).

- Discovery through the persisted event index (contracts.stream): the markets and vaults the
  wallet's own events name are asked, in one round, for its `position` and `balanceOf`;
  non-zero ones are held. Morpho Blue's fee recipient gains shares without events, so for it
  every market is asked. While the index is too far behind (a cold start), every market and
  vault of the catalog it has is checked in bulk instead (`_swept_positions`, adapters/sweep.py)
  and a warning names the block the index reaches.
- Markets: totals and APYs accrued to the block (market.py). Health factor = collateral x oracle
  price / 1e36 x LLTV / borrowed assets; collateral USD is collateral priced by the market oracle
  in loan-asset units, times the loan asset's USD price.
- Vaults: assets `convertToAssets(balanceOf)`; APYs the vaults' net rates (vaults.py).
- USD: the asset's Chainlink-style USD feed (adapters/prices/); none or stale: null.
- Failures: a vault whose `balanceOf` fails is left out, and a held position whose figures
  cannot be read is listed with those figures null, each with a warning (position_warnings).
- All reads for the markets and vaults the stored index names go out at once in MorphoLens
  (lenses/, chain/lens.py), in the round that reads the index's tail; it makes the same calls in
  the same dependent order and returns their raw answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from fractions import Fraction
from typing import Any, cast

from adapters.context import FetchContext
from adapters.legs import COLLATERAL, DEBT, LENDING, SUPPLIED, VAULT, feed_of, leg, position, symbol
from adapters.morpho.adaptive_curve_irm import WAD
from adapters.morpho.contracts import (
    FEE_RECIPIENT,
    LENS,
    POSITION,
    VAULT_NAME,
    VAULT_SYMBOL,
    MarketParams,
    Markets,
    stream,
)
from adapters.morpho.market import ORACLE_PRICE_SCALE, MarketState, MorphoReader, money, rate_to_apy
from adapters.morpho.section import MorphoAddresses
from adapters.morpho.vaults import Rates, vault_asset, vault_v1_rates, vault_v2_rates
from adapters.position_warnings import PART_UNREADABLE
from adapters.prices import UsdPrice, token_feeds
from adapters.risk import Collateral, Unit, borrow_risk, oracle_info, unit_usd, unknown_risk
from adapters.sweep import balances, sweep, swept_balances
from addresses import ChainAddresses
from chain import ChainReader, first, no_read
from chain.erc4626 import CONVERT_TO_ASSETS
from chain.event_index import View
from chain.lens import NONE

LENS_MARKETS = 32
"""Markets per MorphoLens call: a held market's records take about 1.3 KB of a 24,000-byte tape."""


async def fetch(ctx: FetchContext[MorphoAddresses], wallet: str) -> dict[str, Any]:
    chain_id, chain = ctx.chain_id, ctx.chain
    deployment = ctx.section
    reader = ctx.reader()
    blue = deployment.blue.address
    stored = await ctx.stored_events(stream(deployment))
    _prefetch(reader, deployment, chain, stored, await stored.keys(wallet), wallet)
    view = await ctx.events(stream(deployment))
    morpho = MorphoReader(reader, deployment, chain, Markets(view.kind("market")), ctx.warnings)
    if view.complete:
        held = await view.keys(wallet)
        discovery = asyncio.gather(
            balances(reader, _of(view, "vault-v1", held), wallet, ctx.warnings, "vault"),
            balances(reader, _of(view, "vault-v2", held), wallet, ctx.warnings, "vault"),
            _positions(morpho, _of(view, "market", held), wallet),
        )
    else:
        v1_catalog, v2_catalog = ([entry.key for entry in view.of(kind)] for kind in ("vault-v1", "vault-v2"))
        discovery = asyncio.gather(
            swept_balances(reader, v1_catalog, wallet, ctx.warnings, "vault"),
            swept_balances(reader, v2_catalog, wallet, ctx.warnings, "vault"),
            _swept_positions(morpho, wallet),
        )
        ctx.warnings.add(
            PART_UNREADABLE,
            blue,
            view.shortfall(chain_id, "market and vault"),
            retryable=True,
        )
    (v1_shares, v2_shares, positions), (fee_recipient,) = await asyncio.gather(
        discovery, reader.call(blue, FEE_RECIPIENT, label="Morpho Blue")
    )
    v1, v2, market_positions = await asyncio.gather(
        asyncio.gather(
            *(
                _vault_position(morpho, vault, amount, "morpho-vault-v1", vault_v1_rates)
                for vault, amount in v1_shares.items()
            )
        ),
        asyncio.gather(
            *(
                _vault_position(morpho, vault, amount, "morpho-vault-v2", vault_v2_rates)
                for vault, amount in v2_shares.items()
            )
        ),
        _market_positions(morpho, positions, wallet if wallet == fee_recipient else None),
    )
    return {"vaultV1Positions": v1, "vaultV2Positions": v2, "marketPositions": market_positions}


async def index_probe(ctx: FetchContext[MorphoAddresses], account: str) -> bool:
    """Whether `fetch` may show the account anything: unless the complete index links it to no
    market and no vault, and it is not Morpho Blue's fee recipient (the reads `fetch` shares)."""
    view, (fee_recipient,) = await asyncio.gather(
        ctx.events(stream(ctx.section)),
        ctx.reader().call(ctx.section.blue.address, FEE_RECIPIENT, label="Morpho Blue"),
    )
    held = await view.keys(account)
    kinds = ("market", "vault-v1", "vault-v2")
    return not view.complete or account == fee_recipient or any(_of(view, kind, held) for kind in kinds)


def _prefetch(
    reader: ChainReader, deployment: MorphoAddresses, chain: ChainAddresses, stored: View, held: set[str], wallet: str
) -> None:
    """The reads of the markets and vaults the stored index says the wallet may hold, in lens
    calls that ride with the index's tail (which names any newer ones, read after it): one per
    vault (a held vault's queue or adapters fill much of a tape) and one per LENS_MARKETS markets."""
    markets = [bytes.fromhex(market[2:]) for market in _of(stored, "market", held)]
    v1, v2 = (_of(stored, kind, held) for kind in ("vault-v1", "vault-v2"))
    parts: list[tuple[list[bytes], list[str], list[str]]] = [
        (markets[i : i + LENS_MARKETS], [], []) for i in range(0, max(len(markets), 1), LENS_MARKETS)
    ]
    parts += [([], [vault], []) for vault in v1] + [([], [], [vault]) for vault in v2]
    priced = token_feeds(chain)
    feeds = [feed.feed for feed in priced.values()]
    sequencer, blue = chain.sequencer_uptime_feed or NONE, deployment.blue.address
    irm = deployment.adaptive_curve_irm or NONE
    initcodes = [LENS.initcode(blue, irm, wallet, *part, list(priced), feeds, sequencer) for part in parts]
    reader.prefetch(initcodes, [blue, *v1, *v2, *feeds, sequencer])


async def _swept_positions(morpho: MorphoReader, wallet: str) -> dict[str, tuple[int, int, int]]:
    """The wallet's non-zero `position`s over every market of the catalog, in bulk (adapters/sweep.py),
    once per request: while the index is too far behind to say where to look, and for the fee
    recipient. Markets whose sub-call failed are named in a warning."""
    return await morpho.reader.shared(("morpho swept positions", wallet), lambda: _sweep_positions(morpho, wallet))


async def _sweep_positions(morpho: MorphoReader, wallet: str) -> dict[str, tuple[int, int, int]]:
    market_ids = list(morpho.markets)
    if not morpho.reader.has_multicall:
        return {m: p for m, p in (await _positions(morpho, market_ids, wallet)).items() if any(p)}
    call = bytes.fromhex(POSITION.selector)
    owner = bytes(12) + bytes.fromhex(wallet[2:])
    answers = await sweep(
        morpho.reader, [(morpho.blue, call + bytes.fromhex(market_id[2:]) + owner) for market_id in market_ids]
    )
    positions = {}
    for market_id, data in zip(market_ids, answers):
        if data is None or len(data) != 96:
            morpho.warnings.add(
                PART_UNREADABLE,
                market_id,
                f"market {market_id} is left out: its position could not be read in the bulk read",
            )
        elif any(data):
            positions[market_id] = (
                int.from_bytes(data[:32], "big"),
                int.from_bytes(data[32:64], "big"),
                int.from_bytes(data[64:], "big"),
            )
    return positions


async def _positions(morpho: MorphoReader, market_ids: list[str], wallet: str) -> dict[str, tuple[int, int, int]]:
    answers = await asyncio.gather(*(morpho.position(market_id, wallet) for market_id in market_ids))
    return dict(zip(market_ids, answers))


async def _market_positions(
    morpho: MorphoReader, positions: dict[str, tuple[int, int, int]], fee_recipient: str | None
) -> list[dict[str, Any]]:
    """The wallet's market positions. Morpho Blue's fee recipient gets supply shares without an
    event (minted by every accrual), so for that one wallet every market is read: its position
    and the accrual's pending fee shares, also where its `position()` is still zero."""
    if fee_recipient:
        positions = {**positions, **await _swept_positions(morpho, fee_recipient)}
    held = [market_id for market_id, position in positions.items() if any(position)]
    if fee_recipient:
        others = [market_id for market_id in morpho.markets if market_id not in held]
        states = await asyncio.gather(*(morpho.market(market_id) for market_id in others), return_exceptions=True)
        morpho.warnings.survivors("market", zip(others, states))
        held += [
            market_id
            for market_id, state in zip(others, states)
            if isinstance(state, MarketState) and state.pending_fee_shares
        ]
    return list(
        await asyncio.gather(
            *(
                _market_position(morpho, market_id, *positions.get(market_id, (0, 0, 0)), fee_recipient is not None)
                for market_id in held
            )
        )
    )


def _of(view: View, kind: str, held: set[str]) -> list[str]:
    """The keys of one kind among those the wallet's events name, in creation order."""
    entries = view.kind(kind)
    return [
        entry.key
        for entry in sorted(
            (entries[key] for key in held if key in entries), key=lambda entry: (entry.block, entry.key)
        )
    ]


async def _vault_position(
    morpho: MorphoReader, vault: str, shares: int, kind: str, rates: Callable[[MorphoReader, str], Awaitable[Rates]]
) -> dict[str, Any]:
    """A vault the wallet holds shares of: listed whatever fails, each failing figure null with a warning."""
    reader, label, optional = morpho.reader, f"vault {vault}", morpho.warnings.optional
    (token, price), name, symbol, assets, rate = await asyncio.gather(
        vault_asset(morpho, vault, "asset, assets and assetsUsd are", "assetsUsd is"),
        optional(first(reader.call(vault, VAULT_NAME, label=label)), vault, "vaultName is"),
        optional(first(reader.call(vault, VAULT_SYMBOL, label=label)), vault, "vaultSymbol is"),
        optional(first(reader.call(vault, CONVERT_TO_ASSETS, shares, label=label)), vault, "assets and assetsUsd are"),
        optional(_net_apy(rates(morpho, vault)), vault, "apy is"),
    )
    usd = money(token, price)(assets)
    typename = "MorphoVaultV1Position" if kind == "morpho-vault-v1" else "MorphoVaultV2Position"
    return {
        "type": kind,
        "vaultAddress": vault,
        "vaultName": name,
        "vaultSymbol": symbol,
        "asset": token,
        "shares": str(shares),
        "assets": None if assets is None else str(assets),
        "assetsUsd": usd,
        "apy": rate,
        **position(
            typename,
            vault,
            VAULT,
            name or symbol or vault,
            [leg(SUPPLIED, vault, token, assets, usd, feed_of(price))],
        ),
    }


async def _net_apy(rates: Awaitable[Rates]) -> float:
    return rate_to_apy((await rates).net)


async def _market_position(
    morpho: MorphoReader, market_id: str, supply_shares: int, borrow_shares: int, collateral: int, fee_recipient: bool
) -> dict[str, Any]:
    """A market the wallet has a position in: listed whatever fails, each failing figure null with a warning."""
    optional = morpho.warnings.optional
    params = morpho.markets[market_id]
    (state, loan, collateral_token, loan_price, oracle_price), (updated_at, now) = await asyncio.gather(
        asyncio.gather(
            morpho.quoted_market(market_id, "supplyAssets, borrowAssets and their USD values are"),
            optional(morpho.token(params.loan_token), params.loan_token, "the market's loanAsset is"),
            optional(morpho.token(params.collateral_token), params.collateral_token, "the market's collateralAsset is")
            if params.has_collateral
            else no_read(),
            optional(morpho.price(params.loan_token), params.loan_token, "the market's USD values are"),
            optional(morpho.oracle_price(params.oracle), market_id, "collateralUsd and healthFactor are")
            if collateral or borrow_shares
            else no_read(),
        ),
        asyncio.gather(
            optional(morpho.oracle_updated_at(params.oracle), params.oracle, "the oracle's last update is")
            if borrow_shares
            else no_read(),
            morpho.reader.block_timestamp() if borrow_shares else no_read(),
        ),
    )
    if state is not None and fee_recipient:
        supply_shares += state.pending_fee_shares
    supply = state.supply_assets(supply_shares) if state else None
    borrow = state.borrow_assets(borrow_shares) if state else None
    collateral_in_loan = (
        Fraction(collateral * oracle_price, ORACLE_PRICE_SCALE)
        if oracle_price is not None
        else Fraction(0)
        if collateral == 0
        else None
    )
    health = None
    if borrow and collateral_in_loan is not None:
        health = float(collateral_in_loan * params.lltv / WAD / borrow)
    usd = loan_price if loan_price and loan else None
    value, feed = money(loan, loan_price), feed_of(loan_price)
    collateral_usd = (
        float(collateral_in_loan * usd.answer / 10 ** (loan["decimals"] + usd.decimals))
        if usd and collateral_in_loan is not None
        else None
    )
    supply_apy, borrow_apy = (state.supply_apy, state.borrow_apy) if state else (None, None)
    return {
        "type": "morpho-market",
        "marketId": market_id,
        "loanAsset": loan,
        "collateralAsset": collateral_token,
        "lltv": params.lltv / WAD,
        "supplyShares": str(supply_shares),
        "supplyAssets": None if supply is None else str(supply),
        "supplyAssetsUsd": value(supply),
        "borrowShares": str(borrow_shares),
        "borrowAssets": None if borrow is None else str(borrow),
        "borrowAssetsUsd": value(borrow),
        "collateral": str(collateral),
        "collateralUsd": collateral_usd,
        "supplyApy": supply_apy,
        "borrowApy": borrow_apy,
        **_market_legs(
            market_id,
            params,
            (loan, collateral_token),
            (supply, borrow, collateral),
            (value(supply), value(borrow), collateral_usd, feed),
            supply_apy if supply_shares else borrow_apy if borrow_shares else 0.0,
        ),
        "healthFactor": health,
        "risk": {
            **_risk(morpho, market_id, params, borrow, collateral, oracle_price, (loan, collateral_token), loan_price),
            "oracle": oracle_info(params.oracle, updated_at, cast(int, now)),
        }
        if borrow_shares
        else None,
    }


def _market_legs(
    market_id: str,
    params: MarketParams,
    tokens: tuple[dict[str, Any] | None, dict[str, Any] | None],
    amounts: tuple[int | None, int | None, int],
    priced: tuple[float | None, float | None, float | None, str | None],
    apy: float | None,
) -> dict[str, Any]:
    """The Position of a market position: its supply and borrow in the loan asset, priced by its
    feed (`priced`' last), and its collateral, priced through the market's oracle."""
    (loan, collateral_token), (supply, borrow, collateral) = tokens, amounts
    supply_usd, borrow_usd, collateral_usd, feed = priced
    shown = (collateral_token, loan) if params.has_collateral else (loan,)
    legs = [
        leg(SUPPLIED, f"{market_id}:supply", loan, supply, supply_usd, feed),
        leg(COLLATERAL, f"{market_id}:collateral", collateral_token, collateral, collateral_usd, params.oracle.lower()),
        leg(DEBT, f"{market_id}:borrow", loan, borrow, borrow_usd, feed),
    ]
    return position(
        "MorphoMarketPosition", market_id, LENDING, "/".join(symbol(token) for token in shown), legs, apy=apy
    )


def _risk(
    morpho: MorphoReader,
    market_id: str,
    params: MarketParams,
    borrow: int | None,
    collateral: int,
    oracle_price: int | None,
    tokens: tuple[dict[str, Any] | None, dict[str, Any] | None],
    loan_price: UsdPrice | None,
) -> dict[str, Any]:
    """The `BorrowRisk` figures of a market position (adapters/risk.py) by Morpho Blue's check
    (`_isHealthy`, made by `liquidate` after accruing interest): liquidatable once
    collateral x oracle price / 1e36 x LLTV < borrowed assets, all in the loan asset's units.
    Whole units where both tokens' decimals are known; raw units otherwise (then only the drop,
    a ratio, is stated)."""
    loan, collateral_token = tokens
    threshold = Fraction(params.lltv, WAD)
    if borrow is None or oracle_price is None:
        return unknown_risk([collateral_token], float(threshold))
    loan_scale, collateral_scale = (
        (10 ** loan["decimals"], 10 ** collateral_token["decimals"]) if loan and collateral_token else (1, 1)
    )
    unit = Unit(
        usd=unit_usd(loan_price, morpho.warnings, market_id) if loan and collateral_token else None,
        per_loan_asset=Fraction(1) if loan and collateral_token else None,
    )
    held = Collateral(
        collateral_token,
        Fraction(collateral, collateral_scale),
        Fraction(oracle_price * collateral_scale, ORACLE_PRICE_SCALE * loan_scale),
        threshold,
    )
    return borrow_risk(Fraction(borrow, loan_scale), [held], unit, morpho.warnings, market_id)
