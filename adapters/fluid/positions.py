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
- USD: a normal side through the token's feed (adapters/prices.py); a smart side through the other side's
  token and the vault's operate price; null when both sides are smart or no feed prices it.
- Both resolvers and every USD feed of the chain are read at once in FluidLens (lenses/,
  chain/lens.py), which returns their raw answers, and with them the branch of each liquidated
  NFT that still owes.
"""

from __future__ import annotations

import asyncio
import math
from fractions import Fraction
from typing import Any

from adapters.context import FetchContext
from adapters.deployment import deployed
from adapters.position_warnings import PART_UNREADABLE, Warnings, outcome
from adapters.prices import UsdPrice, token_feeds, usd_price
from adapters.risk import Collateral, Unit, borrow_risk, oracle_info, unknown_risk
from addresses import ChainAddresses
from chain import ChainReader, erc20, no_read
from chain.abi import Function
from chain.lens import NONE, Lens
from errors import ProtocolError

LENS = Lens("FluidLens", ("address", "address", "address", "address[]", "address"))
RATE_SCALE = 10**4
"""Fluid's percent with two decimals: 10,000 = 100 %."""
REWARDS_RATE_SCALE = 10**14
"""The lending rewards model's scale: 1e12 = 1 %."""
ORACLE_PRICE_SCALE = 10**27
SECONDS_PER_YEAR = 365 * 24 * 3600

USER_SUPPLY_DATA = "(bool,uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256)"
LENDING_DETAILS = (
    "(address,bool,bool,string,string,uint256,address,uint256,uint256,uint256,uint256,uint256,uint256,"
    f"int256,{USER_SUPPLY_DATA})"
)
"""FTokenDetails: fToken, eip2612Deposits, isNativeUnderlying, name, symbol, decimals, asset,
totalAssets, totalSupply, convertToShares, convertToAssets, rewardsRate, supplyRate, ..."""
GET_USER_POSITIONS = Function(
    "getUserPositions(address)", "2a6bc2dd", (f"({LENDING_DETAILS},(uint256,uint256,uint256,uint256))[]",)
)
VAULT_ENTIRE_DATA = (
    "(address,bool,bool,"
    "(address,address,address,address,address,address,address,address,(address,address),(address,address),"
    "uint256,uint256,bytes32,bytes32,bytes32,bytes32),"
    "(uint16,uint16,uint16,uint16,uint16,uint16,uint16,uint16,address,uint256,uint256,address,uint256),"
    "(uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256,int256,int256,int256,int256),"
    "(uint256,uint256,uint256,uint256,uint256,uint256),"
    "(uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256),"
    "(uint256,int256,uint256,uint256,uint256,uint256,(uint256,int256,uint256,uint256,uint256,uint256,int256)),"
    f"{USER_SUPPLY_DATA},"
    "(bool,uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256))"
)
POSITIONS_BY_USER = Function(
    "positionsByUser(address)",
    "347ca8bb",
    (
        "(uint256,address,bool,bool,int256,uint256,uint256,uint256,uint256,uint256,uint256,uint256)[]",
        f"{VAULT_ENTIRE_DATA}[]",
    ),
)
"""Fields by position: UserPosition (nftId, owner, isLiquidated, isSupplyPosition, tick, tickId,
beforeSupply, beforeBorrow, beforeDustBorrow, supply, borrow, dustBorrow) and VaultEntireData
(vault, isSmartCol, isSmartDebt, constantVariables, configs, exchangePricesAndRates, ...); the
indices below name the ones read."""
CONSTANTS, CONFIGS, RATES = 3, 4, 5
SUPPLY_TOKEN, BORROW_TOKEN = 8, 9
COLLATERAL_FACTOR, LIQUIDATION_THRESHOLD, ORACLE, ORACLE_PRICE_OPERATE, ORACLE_PRICE_LIQUIDATE = 2, 3, 8, 9, 10
SUPPLY_RATE_VAULT, BORROW_RATE_VAULT = 10, 11
GET_POSITION_DATA_RAW = Function("getPositionDataRaw(address,uint256)", "cbc7be65", ("uint256",))
GET_TICK_DATA_RAW = Function("getTickDataRaw(address,int256)", "168a11c2", ("uint256",))
FETCH_LATEST_POSITION = Function(
    "fetchLatestPosition(int256,uint256,uint256,uint256)",
    "22348cc7",
    ("int256", "uint256", "uint256", "uint256", "uint256"),
)
"""The vault's own view of a position after liquidations: (tick, raw debt, raw collateral,
branch id, branch data); the resolver's `positionByNftId` calls it."""
X19, X24, X30 = 2**19 - 1, 2**24 - 1, 2**30 - 1
LIQUIDATED = 1
"""A branch's status (branchData bits 0-1): 1 liquidated (2 merged, 3 closed)."""
VAULT_TYPES = {
    (False, False): "standard",
    (True, False): "smart-collateral",
    (False, True): "smart-debt",
    (True, True): "smart-collateral-and-debt",
}


class FluidReader:
    """Token facts and prices of one input, shared through the request's reader."""

    def __init__(self, reader: ChainReader, chain: ChainAddresses, warnings: Warnings) -> None:
        self.reader = reader
        self.chain = chain
        self.warnings = warnings

    async def token(self, token: str) -> dict[str, Any] | None:
        read = self.reader.shared(("fluid", "token", token), lambda: erc20.token_info(self.reader, token))
        return await self.warnings.optional(read, token, "the token's facts are")

    async def price(self, token: str) -> UsdPrice | None:
        read = self.reader.shared(("fluid", "price", token), lambda: usd_price(self.reader, self.chain, token))
        return await self.warnings.optional(read, token, "its USD values are")


async def fetch(ctx: FetchContext, wallet: str) -> dict[str, Any]:
    chain_id, chain = ctx.chain_id, ctx.chain
    deployment = chain.fluid
    assert deployment is not None
    reader = ctx.reader()
    feeds, sequencer = [feed.feed for feed in token_feeds(chain).values()], chain.sequencer_uptime_feed or NONE
    pair = [deployment.lending_resolver, deployment.vault_resolver]
    # Each resolver and the feeds in lens calls of their own (one round): the vault resolver's
    # answer alone grows with the wallet's NFTs, and a tape holds at most 24,576 bytes.
    parts = [(pair[0], NONE, [], NONE), (NONE, pair[1], [], NONE), (NONE, NONE, feeds, sequencer)]
    reader.prefetch([LENS.initcode(wallet, *part) for part in parts], [*pair, *feeds, sequencer])
    fluid = FluidReader(reader, chain, ctx.warnings)
    block, resolvers = await asyncio.gather(
        reader.block_number(),
        deployed(
            reader,
            "fluid",
            [deployment.lending_resolver, deployment.vault_resolver],
            lambda resolver: resolver,
            "resolvers it is read through (LendingResolver, VaultResolver)",
        ),
    )
    lending, vaults = await asyncio.gather(
        outcome(reader.call(deployment.lending_resolver, GET_USER_POSITIONS, wallet, label="Fluid LendingResolver"))
        if deployment.lending_resolver in resolvers
        else no_read(),
        outcome(reader.call(deployment.vault_resolver, POSITIONS_BY_USER, wallet, label="Fluid VaultResolver"))
        if deployment.vault_resolver in resolvers
        else no_read(),
    )
    for resolver, what in ((deployment.lending_resolver, "lending"), (deployment.vault_resolver, "vaults")):
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
        ctx.warnings.left_out("Fluid lending, read through", deployment.lending_resolver, lending)
    elif lending is not None:
        (entries,) = lending
        lending_positions = list(
            await asyncio.gather(
                *(_lending_position(fluid, details, position, chain_id) for details, position in entries if position[0])
            )
        )
    if isinstance(vaults, ProtocolError):
        ctx.warnings.left_out("Fluid vaults, read through", deployment.vault_resolver, vaults)
    elif vaults is not None:
        positions, data = vaults
        if len(positions) != len(data):
            raise ProtocolError(f"Fluid VaultResolver gives {len(positions)} positions with {len(data)} vaults")
        vault_positions = list(
            await asyncio.gather(
                *(
                    _vault_position(fluid, deployment.vault_resolver, position, vault, chain_id)
                    for position, vault in zip(positions, data)
                )
            )
        )
    return {"lendingPositions": lending_positions, "vaultPositions": vault_positions}


async def _lending_position(
    fluid: FluidReader, details: tuple[Any, ...], position: tuple[Any, ...], chain_id: int
) -> dict[str, Any]:
    shares, assets = position[0], position[1]
    fields, underlying, price = await ftoken_fields(fluid, details)
    return {
        "type": "fluid-lending",
        **fields,
        "chainId": chain_id,
        "shares": str(shares),
        "underlyingAmount": str(assets),
        "underlyingAmountUsd": price.value(assets, underlying["decimals"]) if price and underlying else None,
    }


async def ftoken_fields(fluid: FluidReader, details: tuple[Any, ...]) -> tuple[dict[str, Any], Any, UsdPrice | None]:
    """An fToken's own figures from the resolver's FTokenDetails (its token, asset and rates), and
    the asset's token facts and USD price."""
    ftoken, name, symbol, decimals, asset = details[0], details[3], details[4], details[5], details[6]
    rewards_rate, supply_rate = details[11], details[12]
    underlying, price = await asyncio.gather(fluid.token(asset), fluid.price(asset))
    supply_apr = supply_rate / RATE_SCALE
    rewards_apr = rewards_rate / REWARDS_RATE_SCALE
    return (
        {
            "fTokenAddress": ftoken,
            "fToken": {"address": ftoken, "name": name, "symbol": symbol, "decimals": decimals},
            "underlyingAsset": underlying,
            "supplyApr": supply_apr,
            "rewardsApr": rewards_apr,
            "supplyApy": _compounded(supply_apr + rewards_apr),
        },
        underlying,
        price,
    )


def _compounded(apr: float) -> float:
    """(1 + APR / seconds)^seconds - 1: per-second compounding, as the other adapters quote APYs."""
    return math.expm1(SECONDS_PER_YEAR * math.log1p(apr / SECONDS_PER_YEAR))


async def _vault_position(
    fluid: FluidReader, resolver: str, position: tuple[Any, ...], vault: tuple[Any, ...], chain_id: int
) -> dict[str, Any]:
    supply, borrow = position[9], position[10]
    configs = vault[CONFIGS]
    threshold, liquidate = configs[LIQUIDATION_THRESHOLD], configs[ORACLE_PRICE_LIQUIDATE]
    sides, (owed, risk) = await asyncio.gather(
        vault_sides(fluid, vault, supply, borrow), _liquidation(fluid, resolver, position, vault)
    )
    health = None
    if owed is not None and liquidate:
        health = float(Fraction(supply * liquidate, ORACLE_PRICE_SCALE) * threshold / RATE_SCALE / owed)
    return {
        "type": "fluid-vault",
        "vaultAddress": vault[0],
        "chainId": chain_id,
        "nftId": str(position[0]),
        "owner": position[1],
        "isLiquidated": position[2],
        **sides,
        "healthFactor": health,
        "risk": risk,
    }


async def _liquidation(
    fluid: FluidReader, resolver: str, position: tuple[Any, ...], vault: tuple[Any, ...]
) -> tuple[Fraction | None, dict[str, Any] | None]:
    """The debt the vault's liquidation compares with the NFT's collateral (its tick's), and the
    NFT's risk by it: none without debt, or when the branch of a liquidated NFT cannot be read."""
    nft, liquidated, supply, borrow, dust = position[0], position[2], position[9], position[10], position[11]
    if not borrow:
        return None, None
    owed: Fraction | None = Fraction(borrow + dust)
    if liquidated:
        branch = await fluid.warnings.optional(
            _branch(fluid.reader, resolver, vault[0], nft), vault[0], f"the health factor and risk of NFT {nft} are"
        )
        owed = None if branch is None else liquidation_debt(borrow + dust, branch)
    return owed, None if owed is None else await _risk(fluid, vault, supply, owed)


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


async def _risk(fluid: FluidReader, vault: tuple[Any, ...], supply: int, owed: Fraction) -> dict[str, Any]:
    """The `BorrowRisk` figures of a vault NFT (adapters/risk.py) by the vault's own test: the
    position may be liquidated once supply x oraclePriceLiquidate / 1e27 x liquidationThreshold /
    1e4 < owed (its tick's debt, `_liquidation`), the oracle quoting debt units per collateral unit
    (tokens or DEX shares) x 1e27. A smart side has no token: its prices are then stated in no
    unit but the drop, a ratio."""
    constants, configs = vault[CONSTANTS], vault[CONFIGS]
    threshold = Fraction(configs[LIQUIDATION_THRESHOLD], RATE_SCALE)
    col, debt = constants[SUPPLY_TOKEN][0], constants[BORROW_TOKEN][0]
    col_token, debt_token, debt_price, now = await asyncio.gather(
        fluid.token(col) if not vault[1] else no_read(),
        fluid.token(debt) if not vault[2] else no_read(),
        fluid.price(debt) if not vault[2] else no_read(),
        fluid.reader.block_timestamp(),
    )
    oracle = {"oracle": oracle_info(configs[ORACLE].lower(), None, now)}
    liquidate = configs[ORACLE_PRICE_LIQUIDATE]
    if not liquidate:
        return {**unknown_risk([col_token], float(threshold)), **oracle}
    known = col_token is not None and debt_token is not None
    col_scale, debt_scale = (10 ** col_token["decimals"], 10 ** debt_token["decimals"]) if known else (1, 1)
    held = Collateral(
        col_token,
        Fraction(supply, col_scale),
        Fraction(liquidate * col_scale, ORACLE_PRICE_SCALE * debt_scale),
        threshold,
    )
    unit = Unit(
        usd=Fraction(debt_price.answer, 10**debt_price.decimals) if known and debt_price else None,
        per_loan_asset=Fraction(1) if known else None,
    )
    return {**borrow_risk(owed / debt_scale, [held], unit, fluid.warnings, vault[0]), **oracle}


async def vault_sides(fluid: FluidReader, vault: tuple[Any, ...], supply: int, borrow: int) -> dict[str, Any]:
    """A vault's two sides holding `supply` and `borrow` (a position's, or the vault's totals):
    tokens or DEX shares, USD values, and the vault's type, factors and rates."""
    smart_col, smart_debt = vault[1], vault[2]
    constants, configs, rates = vault[CONSTANTS], vault[CONFIGS], vault[RATES]
    col_tokens, debt_tokens = constants[SUPPLY_TOKEN], constants[BORROW_TOKEN]
    operate = configs[ORACLE_PRICE_OPERATE]
    col_token, col_price, debt_token, debt_price, col_dex, debt_dex = await asyncio.gather(
        fluid.token(col_tokens[0]) if not smart_col else no_read(),
        fluid.price(col_tokens[0]) if not smart_col else no_read(),
        fluid.token(debt_tokens[0]) if not smart_debt else no_read(),
        fluid.price(debt_tokens[0]) if not smart_debt else no_read(),
        _dex_tokens(fluid, col_tokens) if smart_col else no_read(),
        _dex_tokens(fluid, debt_tokens) if smart_debt else no_read(),
    )
    supply_usd = borrow_usd = None
    if not smart_col:
        supply_usd = _usd(col_price, col_token, supply)
    elif not smart_debt and operate:
        supply_usd = _usd(debt_price, debt_token, Fraction(supply * operate, ORACLE_PRICE_SCALE))
    if not smart_debt:
        borrow_usd = _usd(debt_price, debt_token, borrow)
    elif not smart_col and operate:
        borrow_usd = _usd(col_price, col_token, Fraction(borrow * ORACLE_PRICE_SCALE, operate))
    return {
        "vaultType": VAULT_TYPES[(smart_col, smart_debt)],
        "supplyToken": col_token,
        "supply": None if smart_col else str(supply),
        "supplyShares": str(supply) if smart_col else None,
        "supplyDexTokens": col_dex,
        "supplyUsd": supply_usd,
        "borrowToken": debt_token,
        "borrow": None if smart_debt else str(borrow),
        "borrowShares": str(borrow) if smart_debt else None,
        "borrowDexTokens": debt_dex,
        "borrowUsd": borrow_usd,
        "collateralFactor": configs[COLLATERAL_FACTOR] / RATE_SCALE,
        "liquidationThreshold": configs[LIQUIDATION_THRESHOLD] / RATE_SCALE,
        "supplyRate": rates[SUPPLY_RATE_VAULT] / RATE_SCALE,
        "borrowRate": rates[BORROW_RATE_VAULT] / RATE_SCALE,
    }


async def _dex_tokens(fluid: FluidReader, pair: tuple[str, str]) -> list[dict[str, Any] | None]:
    """The two tokens of a smart side's Fluid DEX."""
    return list(await asyncio.gather(*(fluid.token(token) for token in pair)))


def _usd(price: UsdPrice | None, token: dict[str, Any] | None, amount: Fraction | int) -> float | None:
    if price is None or token is None:
        return None
    return float(Fraction(amount) * price.answer / 10 ** (token["decimals"] + price.decimals))


def chains(addresses: dict[int, ChainAddresses]) -> frozenset[int]:
    """Every chain whose addresses data has a "fluid" section."""
    return frozenset(chain_id for chain_id, chain in addresses.items() if chain.fluid)
