"""Fluid: lending (fToken) and vault positions, read through Fluid's own resolvers.

How each figure is derived (all at the request's pinned block; docs/protocols/fluid.md has the long form):

- Lending: `LendingResolver.getUserPositions(wallet)` lists every fToken with the wallet's
  shares; those with shares are held. Amount = the resolver's `underlyingAssets` (the fToken's
  `convertToAssets`). Supply APR = `supplyRate` / 1e4 (Fluid's rates are percent with two
  decimals: 100 = 1 %); rewards APR = `rewardsRate` / 1e14 (its own scale: 1e12 = 1 %); supply
  APY = (1 + APR / 31,536,000)^31,536,000 - 1 over both.
- Vaults: `VaultResolver.positionsByUser(wallet)`: one entry per position NFT with its vault's
  data. Amounts are the resolver's (liquidation applied, dust debt left out): tokens on a normal
  side, Fluid DEX shares on a smart side. Collateral factor and liquidation threshold = the
  configs / 1e4; supply and borrow rates = `supplyRateVault` / 1e4 and `borrowRateVault` / 1e4,
  APRs that may be negative (a smart side's own rate; the DEX's trading APR is not included).
- Health = supply x oraclePriceLiquidate / 1e27 x liquidationThreshold / owed: the vault's
  oracle gives debt units per collateral unit (tokens or DEX shares, decimals included, 1e27), so
  both sides are compared in the debt's unit, as the vault's liquidation does. A position is kept
  as a tick, the debt/collateral ratio rounded up to a power of 1.0015, and `liquidate` takes the
  ticks above the one of oraclePriceLiquidate x threshold (rounded down): so what it compares is
  the tick's debt. Never liquidated, that is `borrow + dustBorrow` (the resolver's net debt plus
  the dust the rounding added; up to 0.15 % off without the dust). Partly liquidated, the resolver
  gives the amounts at its branch's ratio, partials / (2^30 - 1) of the way up from tick t - 1 to
  the branch's tick t, but the vault liquidates the branch as soon as the liquidation tick is below
  t: owed is then that debt raised to tick t's ratio (to t - 1's when partials = 1, which is
  where a liquidation that reached the threshold leaves a branch, and which `liquidate` takes
  only below t - 1); see `liquidation_debt` (Instadapp/fluid-contracts-public: vaultTypesCommon
  coreModule main.sol `_liquidate`, helpers.sol `fetchLatestPosition` and `_addDebtToTickWrite`;
  resolvers/vault `positionByNftId`).
- USD: a normal side through the token's feed (adapters/prices/); a smart side through the other side's
  token and the vault's operate price; null when both sides are smart or no feed prices it.
- Both resolvers and every USD feed of the chain are read at once in FluidLens (lenses/,
  chain/lens.py), which returns their raw answers, and with them the branch of each liquidated
  NFT that still owes.
"""

from __future__ import annotations

import asyncio
from fractions import Fraction
from typing import Any

from adapters.context import FetchContext
from adapters.deployment import deployed
from adapters.fluid.contracts import (
    FETCH_LATEST_POSITION,
    GET_POSITION_DATA_RAW,
    GET_TICK_DATA_RAW,
    GET_USER_POSITIONS,
    LIQUIDATED,
    ORACLE_PRICE_SCALE,
    POSITIONS_BY_USER,
    RATE_SCALE,
    X19,
    X24,
    X30,
)
from adapters.fluid.figures import FluidReader, compounded, ftoken_fields, vault_sides
from adapters.fluid.section import FluidAddresses
from adapters.legs import COLLATERAL, DEBT, LENDING, SUPPLIED, VAULT, feed_of, leg, symbol
from adapters.legs import position as positioned
from adapters.position_warnings import FIGURE_UNAVAILABLE, PART_UNREADABLE, outcome
from adapters.prices import token_feeds
from adapters.risk import Collateral, Unit, borrow_risk, oracle_info, unit_usd, unknown_risk
from chain import ChainReader, no_read
from chain.lens import NONE, Lens
from errors import ProtocolError

LENS = Lens("FluidLens", ("address", "address", "address", "address[]", "address"))


async def fetch(ctx: FetchContext[FluidAddresses], wallet: str) -> dict[str, Any]:
    chain_id, chain = ctx.chain_id, ctx.chain
    deployment = ctx.section
    reader = ctx.reader()
    feeds, sequencer = [feed.feed for feed in token_feeds(chain).values()], chain.sequencer_uptime_feed or NONE
    lending_resolver, vault_resolver = deployment.lending_resolver, deployment.vault_resolver
    # Each resolver and the feeds in lens calls of their own (one round): the vault resolver's
    # answer alone grows with the wallet's NFTs, and a tape holds at most 24,576 bytes.
    parts = [(lending_resolver, NONE, [], NONE), (NONE, vault_resolver, [], NONE), (NONE, NONE, feeds, sequencer)]
    reader.prefetch(
        [LENS.initcode(wallet, *part) for part in parts], [lending_resolver, vault_resolver, *feeds, sequencer]
    )
    fluid = FluidReader(reader, chain, ctx.warnings)
    block, resolvers = await asyncio.gather(
        reader.block_number(),
        deployed(
            reader,
            "fluid",
            [lending_resolver, vault_resolver],
            lambda resolver: resolver,
            "resolvers it is read through (LendingResolver, VaultResolver)",
        ),
    )
    lending, vaults = await asyncio.gather(
        outcome(reader.call(lending_resolver, GET_USER_POSITIONS, wallet, label="Fluid LendingResolver"))
        if lending_resolver in resolvers
        else no_read(),
        outcome(reader.call(vault_resolver, POSITIONS_BY_USER, wallet, label="Fluid VaultResolver"))
        if vault_resolver in resolvers
        else no_read(),
    )
    for resolver, what in ((lending_resolver, "lending"), (vault_resolver, "vaults")):
        if resolver not in resolvers:
            ctx.warnings.add(
                PART_UNREADABLE,
                resolver.lower(),
                f"Fluid {what} is left out: the resolver it is read "
                f"through, {resolver.lower()}, was deployed after block {block}",
            )
    if isinstance(lending, ProtocolError) and isinstance(vaults, ProtocolError):
        raise lending
    lending_positions: list[dict[str, Any]] = []
    vault_positions: list[dict[str, Any]] = []
    if isinstance(lending, ProtocolError):
        ctx.warnings.left_out("Fluid lending, read through", lending_resolver, lending)
    elif lending is not None:
        (entries,) = lending
        lending_positions = list(
            await asyncio.gather(
                *(
                    _lending_position(fluid, details, position, chain_id)
                    for details, position in entries
                    if position.fTokenShares
                )
            )
        )
    if isinstance(vaults, ProtocolError):
        ctx.warnings.left_out("Fluid vaults, read through", vault_resolver, vaults)
    elif vaults is not None:
        positions, data = vaults
        if len(positions) != len(data):
            raise ProtocolError(f"Fluid VaultResolver gives {len(positions)} positions with {len(data)} vaults")
        vault_positions = list(
            await asyncio.gather(
                *(
                    _vault_position(fluid, vault_resolver, position, vault, chain_id)
                    for position, vault in zip(positions, data)
                )
            )
        )
    return {"lendingPositions": lending_positions, "vaultPositions": vault_positions}


async def _lending_position(fluid: FluidReader, details: Any, position: Any, chain_id: int) -> dict[str, Any]:
    """A wallet's fToken: the resolver's FTokenDetails and the wallet's UserPosition in it."""
    shares, assets = position.fTokenShares, position.underlyingAssets
    fields, underlying, price = await ftoken_fields(fluid, details)
    usd, ftoken = price.value(assets, underlying["decimals"]) if price and underlying else None, fields["fTokenAddress"]
    return {
        "type": "fluid-lending",
        **fields,
        "chainId": chain_id,
        "shares": str(shares),
        "underlyingAmount": str(assets),
        "underlyingAmountUsd": usd,
        **positioned(
            "FluidLendingPosition",
            ftoken.lower(),
            VAULT,
            fields["fToken"]["symbol"],
            [leg(SUPPLIED, ftoken.lower(), underlying, assets, usd, feed_of(price))],
            apy=fields["supplyApy"],
        ),
    }


async def _vault_position(
    fluid: FluidReader, resolver: str, position: Any, vault: Any, chain_id: int
) -> dict[str, Any]:
    """A position NFT: the resolver's UserPosition and its vault's VaultEntireData."""
    supply, borrow = position.supply, position.borrow
    threshold, liquidate = vault.configs.liquidationThreshold, vault.configs.oraclePriceLiquidate
    sides, (owed, risk) = await asyncio.gather(
        vault_sides(fluid, vault, supply, borrow), _liquidation(fluid, resolver, position, vault)
    )
    health = None
    if owed is not None and liquidate:
        health = float(Fraction(supply * liquidate, ORACLE_PRICE_SCALE) * threshold / RATE_SCALE / owed)
    tokens = vault.constantVariables.supplyToken.token0, vault.constantVariables.borrowToken.token0
    col_price, debt_price = await asyncio.gather(
        *(
            no_read() if smart else fluid.price(token)
            for token, smart in zip(tokens, (vault.isSmartCol, vault.isSmartDebt))
        )
    )
    # A smart side's DEX shares are priced through the other side's feed (x the vault's operate price).
    col_source, debt_source = feed_of(col_price) or feed_of(debt_price), feed_of(debt_price) or feed_of(col_price)
    key = f"{vault.vault.lower()}:{position.nftId}"
    legs = [
        leg(COLLATERAL, f"{key}:collateral", sides["supplyToken"], supply, sides["supplyUsd"], col_source),
        leg(DEBT, f"{key}:debt", sides["borrowToken"], borrow, sides["borrowUsd"], debt_source),
    ]
    label = f"NFT {position.nftId}: {_side(sides, 'supply')}/{_side(sides, 'borrow')}"
    return {
        "type": "fluid-vault",
        "vaultAddress": vault.vault,
        "chainId": chain_id,
        "nftId": str(position.nftId),
        "owner": position.owner,
        "isLiquidated": position.isLiquidated,
        **sides,
        "healthFactor": health,
        "risk": risk,
        **positioned(
            "FluidVaultPosition",
            key,
            LENDING,
            label,
            legs,
            apy=compounded(sides["borrowRate" if borrow else "supplyRate"]),
        ),
    }


def _side(sides: dict[str, Any], name: str) -> str:
    """A side for a label: its token's symbol, or a smart side's DEX tokens'."""
    dex = sides[f"{name}DexTokens"]
    return f"{'-'.join(symbol(token) for token in dex)} DEX" if dex else symbol(sides[f"{name}Token"])


async def _liquidation(
    fluid: FluidReader, resolver: str, position: Any, vault: Any
) -> tuple[Fraction | None, dict[str, Any] | None]:
    """The debt the vault's liquidation compares with the NFT's collateral (its tick's), and the
    NFT's risk by it: none without debt, or when the branch of a liquidated NFT cannot be read."""
    nft, borrow, debt = position.nftId, position.borrow, position.borrow + position.dustBorrow
    if not borrow:
        return None, None
    owed: Fraction | None = Fraction(debt)
    if position.isLiquidated:
        branch = await fluid.warnings.optional(
            _branch(fluid.reader, resolver, vault.vault, nft),
            vault.vault,
            f"the health factor and risk of NFT {nft} are",
        )
        owed = None if branch is None else liquidation_debt(debt, branch)
    return owed, None if owed is None else await _risk(fluid, vault, position.supply, owed, nft)


async def _branch(reader: ChainReader, resolver: str, vault: str, nft: int) -> int:
    """The data of the branch the vault liquidates a liquidated NFT with: the vault's own
    `fetchLatestPosition` of its tick and tick id (positionData bits 1-20 and 21-44) and of that
    tick's data, as the resolver's `positionByNftId` calls it (FluidLens reads the same). Its debt
    argument only scales the debt and collateral it returns, which the resolver gave: 0."""
    (data,) = await reader.call(resolver, GET_POSITION_DATA_RAW, vault, nft, label="Fluid VaultResolver")
    tick = (data >> 2) & X19 if data & 2 else -((data >> 2) & X19)
    (tick_data,) = await reader.call(resolver, GET_TICK_DATA_RAW, vault, tick, label="Fluid VaultResolver")
    *_, branch = await reader.call(
        vault, FETCH_LATEST_POSITION, tick, (data >> 21) & X24, 0, tick_data, label="Fluid vault"
    )
    return int(branch)


def liquidation_debt(debt: int, branch: int) -> Fraction:
    """The debt at which the vault liquidates a liquidated NFT whose debt is `debt` (borrow +
    dustBorrow) at its branch's ratio, from the branch's data (status bits 0-1, partials 22-51).

    The resolver gives the amounts at the branch's ratio, ratioOneLess + (ratio - ratioOneLess)
    x partials / X30 with ratio the branch's tick t's and ratioOneLess = ratio x 10000 / 10015
    (`fetchLatestPosition`). `_liquidate` takes the branch as soon as the liquidation tick is
    below t: debt x ratio / that ratio = debt x 10015 X30 / (10000 X30 + 15 partials). With
    partials = 1, where a liquidation that reached the threshold leaves a branch (at tick
    threshold + 1), it refuses the liquidation tick t - 1 and takes the branch only below it:
    debt x 10000 X30 / (10000 X30 + 15). Any other branch (not liquidated, or at partials X30,
    its tick's own ratio) leaves the debt as it is."""
    partials = (branch >> 22) & X30
    if branch & 3 != LIQUIDATED or not 0 < partials < X30:
        return Fraction(debt)
    return Fraction(debt * (10_000 if partials == 1 else 10_015) * X30, 10_000 * X30 + 15 * partials)


async def _risk(fluid: FluidReader, vault: Any, supply: int, owed: Fraction, nft: int) -> dict[str, Any]:
    """The `BorrowRisk` figures of a vault NFT (adapters/risk.py) by the vault's own test: the
    position may be liquidated once supply x oraclePriceLiquidate / 1e27 x liquidationThreshold /
    1e4 < owed (its tick's debt, `_liquidation`), the oracle quoting debt units per collateral unit
    (tokens or DEX shares) x 1e27. A smart side has no token: its prices are then stated in no
    unit but the drop, a ratio."""
    constants, configs = vault.constantVariables, vault.configs
    threshold = Fraction(configs.liquidationThreshold, RATE_SCALE)
    col, debt = constants.supplyToken.token0, constants.borrowToken.token0
    col_token, debt_token, debt_price, now = await asyncio.gather(
        fluid.token(col) if not vault.isSmartCol else no_read(),
        fluid.token(debt) if not vault.isSmartDebt else no_read(),
        fluid.price(debt) if not vault.isSmartDebt else no_read(),
        fluid.reader.block_timestamp(),
    )
    oracle = {"oracle": oracle_info(configs.oracle.lower(), None, now)}
    liquidate = configs.oraclePriceLiquidate
    if not liquidate:
        why = "the vault's liquidation price is 0"
        fluid.warnings.add(FIGURE_UNAVAILABLE, vault.vault, f"the risk figures of NFT {nft} are null: {why}")
        return {**unknown_risk([col_token], float(threshold)), **oracle}
    known = col_token is not None and debt_token is not None
    if not known and (vault.isSmartCol or vault.isSmartDebt):
        fluid.warnings.add(
            FIGURE_UNAVAILABLE,
            vault.vault,
            f"the liquidation prices of NFT {nft} are null, its dropToLiquidation given: a smart side's Fluid DEX "
            "shares have no token to state a price in",
        )
    col_scale, debt_scale = (10 ** col_token["decimals"], 10 ** debt_token["decimals"]) if known else (1, 1)
    held = Collateral(
        col_token,
        Fraction(supply, col_scale),
        Fraction(liquidate * col_scale, ORACLE_PRICE_SCALE * debt_scale),
        threshold,
    )
    unit = Unit(
        usd=unit_usd(debt_price, fluid.warnings, vault.vault) if known else None,
        per_loan_asset=Fraction(1) if known else None,
    )
    return {**borrow_risk(owed / debt_scale, [held], unit, fluid.warnings, vault.vault), **oracle}
