"""Euler v2: an account's EVK vault positions, read on-chain at the pinned block.

How each figure is derived (docs/protocols/euler.md has the long form):

- Vaults: those the event index has seen send the account shares or name it in the EVC's
  `CollateralStatus`/`ControllerStatus` (adapters/euler/contracts.py), and the EVC's
  `getCollaterals`/`getControllers` of it at the block. A vault is listed when the account holds
  shares or owes debt there. The owner's sub-accounts are accounts of their own
  (adapters/accounts/, `euler-subaccount`).
- `shares` = `balanceOf`, `assets` = `convertToAssets(shares)`, `borrowed` = `debtOf` (the vault
  accrues both to the block itself); USD through the asset's feed.
- Rewards (where the data names the chain's reward streams): the streams' `enabledRewards(account,
  vault)`, each one's `earnedReward(account, vault, reward, false)` (what a claim pays) as a
  REWARD leg, and its APR: the current epoch's `rewardAmount` x (a year / `EPOCH_DURATION`) in USD
  over the USD value of `convertToAssets(totalRewardedEligible)`; `balanceOf(account, vault)` is
  the shares the streams count for the account (those its vault forwarded).
- APYs: evk-periphery's `_computeAPYs` on `interestRate()`, `cash()`, `totalBorrows()` and
  `interestFee()` (contracts.apys).
- `risk`, on the controller vault's position: the vault's own liquidation check, collateral
  value (each collateral's shares priced by the vault's oracle router, x its `LTVLiquidation`)
  against the debt priced by the same router, in the vault's unit of account: the router quotes
  the balance and the debt themselves (`getQuote(balance, …)`, as EVK's LiquidityUtils does), not
  one whole unit times the amount, which rounds differently; `healthFactor` is
  `accountLiquidity(account, true)`'s collateral value / liability value, the vault's own figures.

All reads go out at once in EulerLens (lenses/, chain/lens.py).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from adapters.accounts.probes import Probe
from adapters.context import FetchContext
from adapters.deployment import before
from adapters.euler.contracts import (
    ACCOUNT_LIQUIDITY,
    CASH,
    CONFIG_SCALE,
    DEBT_OF,
    EARNED_REWARD,
    ENABLED_REWARDS,
    EPOCH_DURATION,
    GET_COLLATERALS,
    GET_CONTROLLERS,
    GET_QUOTE,
    INTEREST_FEE,
    INTEREST_RATE,
    LTV_LIQUIDATION,
    ORACLE,
    REWARD_AMOUNT,
    SECONDS_PER_YEAR,
    STREAM_BALANCE,
    TOTAL_BORROWS,
    TOTAL_REWARDED_ELIGIBLE,
    UNIT_OF_ACCOUNT,
    USD,
    VAULT,
    apy_figures,
    stream,
)
from adapters.euler.section import EulerAddresses
from adapters.legs import COLLATERAL, DEBT, LENDING, REWARD, SUPPLIED, feed_of, leg, position
from adapters.position_warnings import FIGURE_UNAVAILABLE, PART_UNREADABLE, Warnings, outcome
from adapters.prices import UsdPrice, shared_usd_price, token_feeds, warned, warned_usd_price
from adapters.risk import Collateral, Unit, borrow_risk, oracle_info, unit_usd, unknown_risk
from addresses import ChainAddresses
from chain import ChainReader, erc20, erc4626, first, no_read
from chain.lens import NONE, Lens
from errors import ProtocolError

LENS = Lens("EulerLens", ("address", "address", "address", "address[]", "address[]", "address[]", "address"))


def probes(euler: EulerAddresses) -> tuple[Probe, ...]:
    """The EVC's vaults the account enabled (a debt keeps its controller enabled); a deposit in a
    vault it never enabled is the index's (`index_probe`)."""
    return (Probe(euler.evc, GET_CONTROLLERS), Probe(euler.evc, GET_COLLATERALS))


async def index_probe(ctx: FetchContext[EulerAddresses], account: str) -> bool:
    """Whether `fetch` may show the account anything besides the vaults it enabled: unless the
    complete index names no vault's shares or status for it."""
    view = await ctx.events(stream(ctx.section))
    return not view.complete or bool(await view.keys(account))


async def fetch(ctx: FetchContext[EulerAddresses], account: str) -> dict[str, Any]:
    euler = ctx.section
    reader = ctx.reader()
    known = sorted(await (await ctx.stored_events(stream(euler))).keys(account))
    priced = token_feeds(ctx.chain)
    feeds = [feed.feed for feed in priced.values()]
    sequencer = ctx.chain.sequencer_uptime_feed or NONE
    streams = euler.reward_streams or NONE
    initcode = LENS.initcode(account, euler.evc, streams, known, list(priced), feeds, sequencer)
    reader.prefetch([initcode], [euler.evc, streams, *known, *feeds, sequencer])
    try:
        view, (controllers,), (collaterals,) = await asyncio.gather(
            ctx.events(stream(euler)),
            reader.call(euler.evc, GET_CONTROLLERS, account, label="Euler EVC"),
            reader.call(euler.evc, GET_COLLATERALS, account, label="Euler EVC"),
        )
    except ProtocolError:
        if await reader.has_code(euler.evc):
            raise
        raise before("euler", ctx.chain_id, await reader.block_number(), "its EVC has no code then") from None
    if not view.complete:
        message = (
            f"the event index has read Euler's logs up to block {view.covered_to} only: a deposit made later in a "
            "vault the account has not enabled at the EVC is not listed"
        )
        ctx.warnings.add(PART_UNREADABLE, euler.factory.address, message, retryable=True)
    enabled = [str(vault).lower() for vault in collaterals]
    controlling = [str(vault).lower() for vault in controllers]
    made = view.kind(VAULT)  # only the factory's vaults: the EVC lists any contract an account enabled
    vaults = [*sorted(await view.keys(account)), *(vault for vault in (*controlling, *enabled) if vault in made)]
    vaults = list(dict.fromkeys(vaults))
    outcomes = await asyncio.gather(*(_held(reader, vault, account) for vault in vaults), return_exceptions=True)
    held = ctx.warnings.survivors("vault", list(zip(vaults, outcomes)))
    reading = Reading(reader, ctx.chain, account, enabled, controlling, ctx.warnings, euler.reward_streams)
    positions = [position for position in held if position.shares or position.borrowed]
    figures = await asyncio.gather(*(_position(reading, position) for position in positions), return_exceptions=True)
    return {"vaultPositions": ctx.warnings.survivors("vault", [(p.vault, f) for p, f in zip(positions, figures)])}


@dataclass(frozen=True)
class Reading:
    """What each of an account's positions is read with: the reader, the chain, the account and
    its collateral and controller vaults at the EVC."""

    reader: ChainReader
    chain: ChainAddresses
    account: str
    enabled: list[str]
    controlling: list[str]
    warnings: Warnings
    streams: str | None
    """The chain's reward streams (EulerAddresses.reward_streams), where the data names them."""


@dataclass(frozen=True)
class Held:
    vault: str
    shares: int
    borrowed: int


async def _held(reader: ChainReader, vault: str, account: str) -> Held:
    label = f"Euler vault {vault}"
    (shares,), (borrowed,) = await asyncio.gather(
        reader.call(vault, erc20.BALANCE_OF, account, label=label), reader.call(vault, DEBT_OF, account, label=label)
    )
    return Held(vault, shares, borrowed)


async def _position(reading: Reading, held: Held) -> dict[str, Any]:
    reader, warnings = reading.reader, reading.warnings
    vault, label = held.vault, f"Euler vault {held.vault}"
    asset_address = await first(reader.call(vault, erc4626.ASSET, label=label))
    shares_token, asset, priced, assets, rate, fee, cash, borrows = await asyncio.gather(
        outcome(erc20.token_info(reader, vault)),
        outcome(erc20.token_info(reader, asset_address)),
        shared_usd_price(reader, reading.chain, str(asset_address)),  # in the round of the asset's facts
        first(reader.call(vault, erc4626.CONVERT_TO_ASSETS, held.shares, label=label)) if held.shares else no_read(),
        first(reader.call(vault, INTEREST_RATE, label=label)),
        first(reader.call(vault, INTEREST_FEE, label=label)),
        first(reader.call(vault, CASH, label=label)),
        first(reader.call(vault, TOTAL_BORROWS, label=label)),
    )
    assets = assets or 0
    supply_apy, borrow_apy = apy_figures(rate, cash, borrows, fee, warnings, vault)
    token = warnings.value(asset, vault, "asset and the USD figures are")
    price = warned(reader, priced, str(asset_address), warnings) if token else None
    vault_token = warnings.value(shares_token, vault, "vaultName and vaultSymbol are")
    controller = vault in reading.controlling
    usd = {
        amount: price.value(amount, token["decimals"]) if price and token else None
        for amount in (assets, held.borrowed)
    }
    risk, (rewards, reward_legs) = await asyncio.gather(
        _risk(reading, held, token) if controller and held.borrowed else no_read(),
        _rewards(reading, vault, token, price) if reading.streams and held.shares else _no_rewards(),
    )
    collateral = vault in reading.enabled
    legs = [
        leg(COLLATERAL if collateral else SUPPLIED, vault.lower(), token, assets, usd[assets], feed_of(price)),
        leg(DEBT, f"{vault.lower()}:borrow", token, held.borrowed, usd[held.borrowed], feed_of(price)),
        *reward_legs,
    ]
    label = vault_token["symbol"] if vault_token else vault
    apy = supply_apy if assets else borrow_apy
    return {
        **position("EulerVaultPosition", vault.lower(), LENDING, label, legs, apy=apy),
        "type": "euler-evault",
        "vaultAddress": vault,
        "vaultName": vault_token["name"] if vault_token else None,
        "vaultSymbol": vault_token["symbol"] if vault_token else None,
        "asset": token,
        "shares": str(held.shares),
        "assets": str(assets),
        "assetsUsd": usd[assets],
        "borrowed": str(held.borrowed),
        "borrowedUsd": usd[held.borrowed],
        "isCollateral": collateral,
        "isController": controller,
        "supplyApy": supply_apy,
        "borrowApy": borrow_apy,
        "risk": risk,
        "rewards": rewards,
    }


Rewards = tuple[list[dict[str, Any]], list[dict[str, Any]]]
"""A position's `EulerReward`s and their legs."""


async def _rewards(reading: Reading, vault: str, asset: dict[str, Any] | None, asset_usd: UsdPrice | None) -> Rewards:
    """The rewards the account enabled for the vault at the reward streams, what it has earned of
    each (`earnedReward`, forfeiting nothing: what a claim pays) and each stream's APR, with their
    legs; none, with a warning, where the streams fail."""
    reader, streams, account = reading.reader, reading.streams, reading.account
    assert streams is not None
    label = f"Euler reward streams {streams}"

    async def read() -> Rewards:
        (tokens,), (eligible,), (epoch,) = await asyncio.gather(
            reader.call(streams, ENABLED_REWARDS, account, vault, label=label),
            reader.call(streams, STREAM_BALANCE, account, vault, label=label),
            reader.call(streams, EPOCH_DURATION, label=label),
        )
        reads = await asyncio.gather(*(_stream(reading, vault, str(token)) for token in tokens))
        found, legs = [], []
        for info, earned, amount, total, price in reads:
            usd = price.value(earned, info["decimals"]) if price else None
            yearly = Fraction(amount * SECONDS_PER_YEAR, epoch) if epoch else None
            found.append(
                {
                    "token": info,
                    "claimable": str(earned),
                    "claimableUsd": usd,
                    "eligibleShares": str(eligible),
                    "apr": _apr(reading, vault, info, yearly, price, total, asset, asset_usd),
                }
            )
            legs.append(leg(REWARD, f"{vault.lower()}:{info['address']}:reward", info, earned, usd, feed_of(price)))
        return found, legs

    found = await outcome(read())
    if isinstance(found, ProtocolError):
        reading.warnings.left_out("the rewards at Euler's reward streams of vault", vault, found)
        return [], []
    return found


async def _stream(reading: Reading, vault: str, token: str) -> tuple[dict[str, Any], int, int, int, UsdPrice | None]:
    """One enabled reward: its token, what the account earned, the current epoch's amount, the
    eligible shares as assets of the vault, and the token's price."""
    reader, streams, label = reading.reader, reading.streams, f"Euler reward streams {reading.streams}"
    assert streams is not None
    info, (earned,), (amount,), (total,), price = await asyncio.gather(
        erc20.token_info(reader, token),
        reader.call(streams, EARNED_REWARD, reading.account, vault, token, False, label=label),
        reader.call(streams, REWARD_AMOUNT, vault, token, label=label),
        reader.call(streams, TOTAL_REWARDED_ELIGIBLE, vault, token, label=label),
        warned_usd_price(reader, reading.chain, token, reading.warnings),
    )
    assets = await first(reader.call(vault, erc4626.CONVERT_TO_ASSETS, total, label=f"Euler vault {vault}"))
    return info, earned, amount, assets, price


def _apr(
    reading: Reading,
    vault: str,
    info: dict[str, Any],
    yearly: Fraction | None,
    price: UsdPrice | None,
    eligible: int,
    asset: dict[str, Any] | None,
    asset_usd: UsdPrice | None,
) -> float | None:
    """The stream's APR: the current epoch's amount over a year in USD / the USD value of the
    eligible shares' assets; 0 while the stream pays nothing this epoch; null, named, where a
    price, the epoch or any eligible shares are missing."""
    if yearly == 0:
        return 0.0
    if yearly is None or price is None or asset is None or asset_usd is None or not eligible:
        why = "no shares are eligible to it" if yearly is not None and not eligible else "a figure it needs is missing"
        message = f"the {info['symbol']} reward stream's APR on vault {vault} is null: {why}"
        reading.warnings.add(FIGURE_UNAVAILABLE, vault, message)
        return None
    paid = Fraction(price.answer, 10**price.decimals) * yearly / 10 ** info["decimals"]
    return float(paid / asset_usd.exact(eligible, asset["decimals"]))


async def _no_rewards() -> Rewards:
    return [], []


async def _risk(reading: Reading, held: Held, token: dict[str, Any] | None) -> dict[str, Any]:
    """The controller vault's check: each enabled collateral's shares priced by its oracle router
    in its unit of account, x its liquidation LTV, against the debt priced likewise."""
    reader, vault, label = reading.reader, held.vault, f"Euler vault {held.vault}"
    oracle = vault  # named as the price source until the vault names its router
    try:
        found, unit = await asyncio.gather(
            first(reader.call(vault, ORACLE, label=label)), first(reader.call(vault, UNIT_OF_ACCOUNT, label=label))
        )
        oracle = str(found).lower()
        return await _checked(reading, held, token, oracle, str(unit).lower())
    except ProtocolError as exc:
        reading.warnings.figure(vault, "risk figures are", exc)
        return {**unknown_risk([token]), "oracle": oracle_info(oracle, None, await reader.block_timestamp())}


async def _checked(
    reading: Reading, held: Held, token: dict[str, Any] | None, oracle: str, unit: str
) -> dict[str, Any]:
    reader, enabled, account = reading.reader, reading.enabled, reading.account
    vault, label = held.vault, f"Euler vault {held.vault}"
    if token is None:
        raise ProtocolError(f"the asset of {vault} cannot be read")
    (collateral_value, liability_value), ltvs, balances, shares = await asyncio.gather(
        reader.call(vault, ACCOUNT_LIQUIDITY, account, True, label=label),
        asyncio.gather(*(first(reader.call(vault, LTV_LIQUIDATION, c, label=label)) for c in enabled)),
        asyncio.gather(*(first(reader.call(c, erc20.BALANCE_OF, account, label=f"Euler vault {c}")) for c in enabled)),
        asyncio.gather(*(erc20.token_info(reader, c) for c in enabled)),
    )
    counted = [
        (c, ltv, balance, info) for c, ltv, balance, info in zip(enabled, ltvs, balances, shares) if ltv and balance
    ]
    unit_decimals = 18 if unit == USD else (await erc20.token_info(reader, unit))["decimals"]
    quotes = await asyncio.gather(
        first(reader.call(oracle, GET_QUOTE, held.borrowed, token["address"], unit, label="Euler oracle")),
        *(first(reader.call(oracle, GET_QUOTE, amount, c, unit, label="Euler oracle")) for c, _, amount, _ in counted),
    )
    debt_value, *values = (Fraction(quote, 10**unit_decimals) for quote in quotes)
    debt_price = debt_value / Fraction(held.borrowed, 10 ** token["decimals"])
    collaterals = []
    for (_, ltv, balance, info), value in zip(counted, values):
        amount = Fraction(balance, 10 ** info["decimals"])
        collaterals.append(Collateral(info, amount, value / amount, Fraction(ltv, CONFIG_SCALE)))
    usd = Fraction(1) if unit == USD else await _unit_usd(reader, reading.chain, unit, reading.warnings)
    risk = borrow_risk(debt_value, collaterals, Unit(usd, debt_price), reading.warnings, vault)
    risk["healthFactor"] = float(Fraction(collateral_value, liability_value)) if liability_value else None
    return {**risk, "oracle": oracle_info(oracle, None, await reader.block_timestamp())}


async def _unit_usd(reader: ChainReader, chain: ChainAddresses, unit: str, warnings: Warnings) -> Fraction | None:
    """USD per whole unit of a token the vault accounts in (WETH, say), through its feed."""
    return unit_usd(await warned_usd_price(reader, chain, unit, warnings), warnings, unit)
