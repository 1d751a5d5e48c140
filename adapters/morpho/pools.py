"""Morpho's `poolDetails`: a Morpho Blue market by its 66-character id, a vault (V1 MetaMorpho or
Vault V2) by its address, read with the wallet query's own code (market.py, vaults.py), so that
both give the same figures at a block.

- The pool kind: a 66-character id is a market if Morpho Blue's `idToMarketParams(id)` has
  parameters at the block; an address is a vault if a configured factory says it created it
  (`isMetaMorpho` / `isVaultV2` at the block: exact, whatever the event index has reached).
  Anything else is a VALIDATION_ERROR naming what was expected.
- Markets: totals accrued to the block as MorphoBalancesLib.expectedMarketBalances accrues them;
  APYs as the market positions quote them (Morpho's SDK); utilization = borrow / supply of the
  accrued totals; liquidity = supply - borrow; USD through the loan token's feed; `oraclePrice`
  the raw `price()` of the market's oracle (loan units per collateral unit, 1e36).
- V1 vaults: the views as the contract answers them; `apy` / `netApy` as Morpho's SDK has them
  for the vault accrued to the block (`getApy` / `getNetApy`, see vaults.vault_v1_rates);
  one allocation per withdraw-queue market: the vault's supply accrued to the block, its cap
  (`config(id).cap`), the market's supply APY, and `withdrawable` = the lesser of that supply and
  the market's liquidity; the vault's `liquidity` is their sum.
- V2 vaults: `apy` / `netApy` as the wallet query's V2 APY (vaults.vault_v2_rates); fees and
  `maxRate` per second times 365 days; per adapter: what it holds (`realAssets`), the vault's
  `allocation`, `absoluteCap` and `relativeCap` for the adapter's id (`adapterId()`), and its
  markets or the V1 vault it holds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from adapters.context import FetchContext
from adapters.factories import Probe, vouched_kind
from adapters.formats import raw
from adapters.morpho.adaptive_curve_irm import SECONDS_PER_YEAR, WAD
from adapters.morpho.contracts import (
    ABSOLUTE_CAP,
    ADAPTER_ID,
    ALLOCATION,
    CONFIG,
    CURATOR,
    FEE,
    GUARDIAN,
    IS_META_MORPHO,
    IS_VAULT_V2,
    LIQUIDITY_ADAPTER,
    MANAGEMENT_FEE,
    MAX_RATE,
    OWNER,
    PERFORMANCE_FEE,
    REAL_ASSETS,
    RELATIVE_CAP,
    TIMELOCK,
    VAULT_NAME,
    VAULT_SYMBOL,
    MarketParams,
    Markets,
    stream,
)
from adapters.morpho.market import Money, MorphoReader, market_params, money, rate_to_apy
from adapters.morpho.section import MorphoAddresses
from adapters.morpho.vaults import (
    Rates,
    adapter_holding,
    vault_adapters,
    vault_asset,
    vault_v1_rates,
    vault_v2_rates,
    withdraw_queue,
)
from chain import erc20, first, no_read
from chain.abi import Function
from chain.erc4626 import CONVERT_TO_ASSETS, TOTAL_ASSETS
from errors import InputValidationError

INT_MAX = 2**31 - 1


async def details(ctx: FetchContext[MorphoAddresses], pool: str) -> dict[str, Any]:
    chain_id, chain = ctx.chain_id, ctx.chain
    deployment = ctx.section
    reader = ctx.reader()
    if len(pool) == 66:
        block, params = await asyncio.gather(
            reader.block_number(), market_params(reader, deployment.blue.address, pool)
        )
        if not params.exists:
            raise InputValidationError(
                f"{pool} is not a market of Morpho Blue {deployment.blue.address} on chain {chain_id} at block "
                f"{block}: it has no market parameters. Expected a Morpho Blue market id."
            )
        morpho = MorphoReader(reader, deployment, chain, {pool: params}, ctx.warnings)
        return {"details": await _market(morpho, pool, params)}
    block = await reader.block_number()
    kind = await vouched_kind(reader, _vault_probes(deployment, block), pool)
    if kind == "v1":
        morpho = MorphoReader(reader, deployment, chain, {}, ctx.warnings)
        return {"details": await _vault_v1(morpho, pool)}
    if kind == "v2":
        view = await ctx.events(stream(deployment))
        morpho = MorphoReader(reader, deployment, chain, Markets(view.kind("market")), ctx.warnings)
        return {"details": await _vault_v2(morpho, pool)}
    raise InputValidationError(
        f"{pool} is not a Morpho vault on chain {chain_id} at block {block}: no configured MetaMorpho or Vault V2 "
        "factory created it. Expected a vault address, or a Morpho Blue market id (0x + 64 hexadecimal characters)."
    )


def _vault_probes(deployment: MorphoAddresses, block: int) -> list[Probe]:
    """The vault factories deployed by the block, each with its registry view."""
    return [
        (factory.address, IS_META_MORPHO, "v1")
        for factory in deployment.vault_v1_factories
        if factory.start_block <= block
    ] + [
        (factory.address, IS_VAULT_V2, "v2")
        for factory in deployment.vault_v2_factories
        if factory.start_block <= block
    ]


async def _market(morpho: MorphoReader, market_id: str, params: MarketParams) -> dict[str, Any]:
    optional, reader = morpho.warnings.optional, morpho.reader
    state, loan, collateral, price, oracle_price, totals = await asyncio.gather(
        morpho.quoted_market(market_id, "the totals, utilization and APYs are"),
        optional(morpho.token(params.loan_token), params.loan_token, "loanAsset is"),
        optional(morpho.token(params.collateral_token), params.collateral_token, "collateralAsset is")
        if params.has_collateral
        else no_read(),
        optional(morpho.price(params.loan_token), params.loan_token, "the USD values are"),
        optional(morpho.oracle_price(params.oracle), params.oracle, "oraclePrice is")
        if params.has_collateral
        else no_read(),
        morpho.totals(market_id),
    )
    supply = state.total_supply_assets if state else None
    borrow = state.total_borrow_assets if state else None
    liquidity = state.liquidity if state else None
    usd = money(loan, price)
    return {
        "__typename": "MorphoMarketPool",
        "type": "morpho-market-pool",
        "marketId": market_id,
        "chainId": reader.chain_id,
        "loanAsset": loan,
        "collateralAsset": collateral,
        "oracle": params.oracle,
        "irm": params.irm,
        "lltv": params.lltv / WAD,
        "totalSupplyAssets": raw(supply),
        "totalSupplyAssetsUsd": usd(supply),
        "totalBorrowAssets": raw(borrow),
        "totalBorrowAssetsUsd": usd(borrow),
        "liquidity": raw(liquidity),
        "liquidityUsd": usd(liquidity),
        "utilization": (borrow / supply if supply else 0.0) if state else None,
        "supplyApy": state.supply_apy if state else None,
        "borrowApy": state.borrow_apy if state else None,
        "fee": totals.fee / WAD,
        "oraclePrice": raw(oracle_price),
        "lastUpdate": _int(totals.lastUpdate),
    }


async def _vault_v1(morpho: MorphoReader, vault: str) -> dict[str, Any]:
    view = _views(morpho, vault)
    (basics, usd), timelock, guardian, queue = await asyncio.gather(
        _vault_basics(morpho, vault, vault_v1_rates(morpho, vault), FEE, "asset and the USD values are"),
        view(TIMELOCK, "timelock is"),
        view(GUARDIAN, "guardian is"),
        morpho.warnings.optional(withdraw_queue(morpho.reader, vault), vault, "allocations and liquidity are"),
    )
    allocations = (
        None
        if queue is None
        else list(await asyncio.gather(*(_allocation(morpho, vault, market_id, usd) for market_id in queue)))
    )
    withdrawable = [allocation["withdrawable"] for allocation in allocations or ()]
    liquidity = None if allocations is None or None in withdrawable else sum(map(int, withdrawable))
    return {
        "__typename": "MorphoVaultV1Pool",
        "type": "morpho-vault-pool",
        **basics,
        "liquidity": raw(liquidity),
        "liquidityUsd": usd(liquidity),
        "timelock": _int(timelock),
        "guardian": _role(guardian),
        "allocations": allocations,
    }


async def _vault_basics(
    morpho: MorphoReader, vault: str, rates: Awaitable[Rates], fee: Function, asset_figures: str
) -> tuple[dict[str, Any], Money]:
    """What V1 and V2 vaults share: an ERC-4626 share token, (gross, net) rates, a performance
    fee (`fee`), an owner and a curator; and the vault's asset to USD."""
    view = _views(morpho, vault)
    (
        (token, price),
        share,
        name,
        symbol,
        total_assets,
        total_supply,
        performance_fee,
        owner,
        curator,
        (gross, net),
    ) = await asyncio.gather(
        vault_asset(morpho, vault, asset_figures, "the USD values are"),
        _share(morpho, vault),
        view(VAULT_NAME, "name is"),
        view(VAULT_SYMBOL, "symbol is"),
        view(TOTAL_ASSETS, "totalAssets is"),
        view(erc20.TOTAL_SUPPLY, "totalSupply is"),
        view(fee, "performanceFee is"),
        view(OWNER, "owner is"),
        view(CURATOR, "curator is"),
        _apys(morpho, vault, rates),
    )
    usd = money(token, price)
    return {
        "vaultAddress": vault,
        "chainId": morpho.reader.chain_id,
        "name": name,
        "symbol": symbol,
        "asset": token,
        **share,
        "totalAssets": raw(total_assets),
        "totalAssetsUsd": usd(total_assets),
        "totalSupply": raw(total_supply),
        "apy": gross,
        "netApy": net,
        "performanceFee": None if performance_fee is None else performance_fee / WAD,
        "owner": _role(owner),
        "curator": _role(curator),
    }, usd


async def _apys(morpho: MorphoReader, vault: str, rates: Awaitable[Rates]) -> tuple[float | None, float | None]:
    found = await morpho.warnings.optional(rates, vault, "apy and netApy are")
    return (None, None) if found is None else (rate_to_apy(found.gross), rate_to_apy(found.net))


async def _allocation(morpho: MorphoReader, vault: str, market_id: str, usd: Money) -> dict[str, Any]:
    """One market of a V1 vault's withdraw queue."""
    optional, where = morpho.warnings.optional, f"the vault's allocation to market {market_id}:"

    async def collateral() -> tuple[MarketParams | None, dict[str, Any] | None]:
        params = await optional(morpho.params(market_id), market_id, f"{where} collateralAsset and lltv are")
        if params is None or not params.has_collateral:
            return params, None
        return params, await optional(
            morpho.token(params.collateral_token), params.collateral_token, f"{where} collateralAsset is"
        )

    (params, collateral_token), state, supplied, config = await asyncio.gather(
        collateral(),
        morpho.quoted_market(market_id, f"{where} supplyApy and withdrawable are"),
        optional(morpho.supply(market_id, vault), market_id, f"{where} supplyAssets and withdrawable are"),
        optional(_config(morpho, vault, market_id), vault, f"{where} supplyCap is"),
    )
    withdrawable = min(supplied, state.liquidity) if state is not None and supplied is not None else None
    return {
        "marketId": market_id,
        "collateralAsset": collateral_token,
        "lltv": None if params is None else params.lltv / WAD,
        "supplyAssets": raw(supplied),
        "supplyAssetsUsd": usd(supplied),
        "supplyCap": None if config is None else str(config.cap),
        "supplyApy": state.supply_apy if state else None,
        "withdrawable": raw(withdrawable),
        "withdrawableUsd": usd(withdrawable),
    }


async def _config(morpho: MorphoReader, vault: str, market_id: str) -> Any:
    """The vault's `config(id)` (MetaMorpho's `MarketConfig`)."""
    return await morpho.reader.call(vault, CONFIG, bytes.fromhex(market_id[2:]), label=f"vault {vault}")


async def _vault_v2(morpho: MorphoReader, vault: str) -> dict[str, Any]:
    view = _views(morpho, vault)
    optional = morpho.warnings.optional
    (basics, usd), management_fee, max_rate, liquidity_adapter, adapters = await asyncio.gather(
        _vault_basics(
            morpho, vault, vault_v2_rates(morpho, vault), PERFORMANCE_FEE, "asset, idleAssets and the USD values are"
        ),
        view(MANAGEMENT_FEE, "managementFee is"),
        view(MAX_RATE, "maxRate is"),
        view(LIQUIDITY_ADAPTER, "liquidityAdapter is"),
        optional(vault_adapters(morpho.reader, vault), vault, "adapters are"),
    )
    token = basics["asset"]
    idle, adapter_list = await asyncio.gather(
        optional(
            first(morpho.reader.call(token["address"], erc20.BALANCE_OF, vault, label=f"token {token['address']}")),
            token["address"],
            "idleAssets is",
        )
        if token
        else no_read(),
        asyncio.gather(*(_adapter(morpho, vault, adapter, usd) for adapter in adapters or ())),
    )
    return {
        "__typename": "MorphoVaultV2Pool",
        "type": "morpho-vault-v2-pool",
        **basics,
        "idleAssets": raw(idle),
        "idleAssetsUsd": usd(idle),
        "managementFee": _per_year(management_fee),
        "maxRate": _per_year(max_rate),
        "liquidityAdapter": _role(liquidity_adapter),
        "adapters": None if adapters is None else list(adapter_list),
    }


async def _adapter(morpho: MorphoReader, vault: str, adapter: str, usd: Money) -> dict[str, Any]:
    """One adapter of a V2 vault: what it holds, and the vault's allocation and caps for its id."""
    optional, reader, label = morpho.warnings.optional, morpho.reader, f"adapter {adapter}"
    holding, real, adapter_id = await asyncio.gather(
        optional(adapter_holding(morpho, adapter), adapter, "its kind, marketIds and vault are"),
        optional(first(reader.call(adapter, REAL_ASSETS, label=label)), adapter, "realAssets is"),
        optional(first(reader.call(adapter, ADAPTER_ID, label=label)), adapter, "allocation and caps are"),
    )

    def by_id(function: Function, what: str) -> Awaitable[Any]:
        if adapter_id is None:
            return no_read()
        return optional(first(reader.call(vault, function, adapter_id, label=f"vault {vault}")), adapter, what)

    allocation, absolute, relative = await asyncio.gather(
        by_id(ALLOCATION, "allocation is"), by_id(ABSOLUTE_CAP, "absoluteCap is"), by_id(RELATIVE_CAP, "relativeCap is")
    )
    return {
        "address": adapter,
        "kind": holding.kind if holding else None,
        "realAssets": raw(real),
        "realAssetsUsd": usd(real),
        "allocation": raw(allocation),
        "absoluteCap": raw(absolute),
        "relativeCap": None if relative is None else relative / WAD,
        "marketIds": list(holding.market_ids) if holding else None,
        "vault": holding.vault if holding else None,
    }


def _views(morpho: MorphoReader, vault: str) -> Callable[[Function, str], Awaitable[Any]]:
    """A view of the vault with no argument: its value, or None with a warning (`what` names the figure)."""

    def view(function: Function, what: str) -> Awaitable[Any]:
        return morpho.warnings.optional(first(morpho.reader.call(vault, function, label=f"vault {vault}")), vault, what)

    return view


async def _share(morpho: MorphoReader, vault: str) -> dict[str, Any]:
    """The share token's decimals and what one whole share is worth: `convertToAssets(10^decimals)`."""
    view = _views(morpho, vault)
    decimals = await view(erc20.DECIMALS, "decimals and sharePrice are")
    price = (
        None
        if decimals is None
        else await morpho.warnings.optional(
            first(morpho.reader.call(vault, CONVERT_TO_ASSETS, 10**decimals, label=f"vault {vault}")),
            vault,
            "sharePrice is",
        )
    )
    return {"decimals": decimals, "sharePrice": raw(price)}


def _per_year(rate: int | None) -> float | None:
    """A per-second WAD rate times 365 days, not compounded (fees and caps are set that way)."""
    return None if rate is None else rate * SECONDS_PER_YEAR / WAD


def _role(address: str | None) -> str | None:
    """An address role, None where none is set (the zero address)."""
    return None if address is None or int(address, 16) == 0 else address


def _int(value: int | None) -> int | None:
    return value if value is not None and value <= INT_MAX else None
