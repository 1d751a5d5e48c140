"""Morpho's `poolDetails`: a Morpho Blue market by its 66-character id, read with the wallet
query's own code (morpho.MorphoReader), so that both give the same figures at a block.

- The market's parameters: Morpho Blue's `idToMarketParams(id)` at the block (exact whatever the
  event index has reached); an id without parameters is not a market (VALIDATION_ERROR).
- Totals accrued to the block as MorphoBalancesLib.expectedMarketBalances accrues them; APYs as
  the market positions quote them (Morpho's SDK); utilization = borrow / supply of the accrued
  totals; liquidity = supply - borrow; USD through the loan token's feed; `oraclePrice` the raw
  `price()` of the market's oracle (loan units per collateral unit, 1e36).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from abi import Function
from addresses import ChainAddresses
from chain import no_read
from errors import InputValidationError
from morpho import MARKET, WAD, MarketParams, MorphoReader
from position_warnings import FIGURE_UNAVAILABLE

if TYPE_CHECKING:
    from fetch_context import FetchContext

ID_TO_MARKET_PARAMS = Function("idToMarketParams(bytes32)", "2c3c9157",
                               ("address", "address", "address", "address", "uint256"))
INT_MAX = 2**31 - 1


async def details(addresses: dict[int, ChainAddresses], ctx: FetchContext, chain_id: int, pool: str) -> dict[str, Any]:
    if len(pool) != 66:
        raise InputValidationError(
            f"{pool} is not a Morpho Blue market id: poolDetails serves Morpho markets, each named by its "
            "id (0x + 64 hexadecimal characters); Morpho vaults are not served by poolDetails yet.")
    chain = addresses[chain_id]
    deployment = chain.morpho
    assert deployment is not None
    reader = ctx.reader(chain_id)
    blue = deployment.blue.address
    market_id = bytes.fromhex(pool[2:])
    block, found = await asyncio.gather(
        reader.block_number(), reader.call(blue, ID_TO_MARKET_PARAMS, market_id, label="Morpho Blue"))
    params = MarketParams(*found)
    if int(params.loan_token, 16) == 0:
        raise InputValidationError(f"{pool} is not a market of Morpho Blue {blue} on chain {chain_id} at block "
                                   f"{block}: it has no market parameters. Expected a Morpho Blue market id.")
    morpho = MorphoReader(reader, deployment, chain, {pool: params}, ctx.warnings)
    return {"blockNumber": block, "details": await _market(morpho, pool, params)}


async def _market(morpho: MorphoReader, market_id: str, params: MarketParams) -> dict[str, Any]:
    optional, reader = morpho.warnings.optional, morpho.reader
    has_collateral = int(params.collateral_token, 16) != 0
    state, loan, collateral, price, oracle_price, totals = await asyncio.gather(
        optional(morpho.market(market_id), market_id, "the totals, utilization and APYs are"),
        optional(morpho.token(params.loan_token), params.loan_token, "loanAsset is"),
        optional(morpho.token(params.collateral_token), params.collateral_token, "collateralAsset is")
        if has_collateral else no_read(),
        optional(morpho.price(params.loan_token), params.loan_token, "the USD values are"),
        optional(morpho.oracle_price(params.oracle), params.oracle, "oraclePrice is") if has_collateral else no_read(),
        reader.call(morpho.blue, MARKET, bytes.fromhex(market_id[2:]), label="Morpho Blue"))
    if state is not None and state.rate_problem:
        morpho.warnings.add(FIGURE_UNAVAILABLE, market_id, f"supplyApy and borrowApy are null: {state.rate_problem}")
    supply = state.total_supply_assets if state else None
    borrow = state.total_borrow_assets if state else None
    liquidity = supply - borrow if state else None

    def usd(amount: int | None) -> float | None:
        return price.value(amount, loan["decimals"]) if price and loan and amount is not None else None

    last_update = totals[4]
    return {
        "__typename": "MorphoMarketPool", "type": "morpho-market-pool", "marketId": market_id,
        "chainId": reader.chain_id, "loanAsset": loan, "collateralAsset": collateral, "oracle": params.oracle,
        "irm": params.irm, "lltv": params.lltv / WAD,
        "totalSupplyAssets": _text(supply), "totalSupplyAssetsUsd": usd(supply),
        "totalBorrowAssets": _text(borrow), "totalBorrowAssetsUsd": usd(borrow),
        "liquidity": _text(liquidity), "liquidityUsd": usd(liquidity),
        "utilization": (borrow / supply if supply else 0.0) if state else None,
        "supplyApy": state.supply_apy if state else None, "borrowApy": state.borrow_apy if state else None,
        "fee": totals[5] / WAD, "oraclePrice": _text(oracle_price),
        "lastUpdate": last_update if last_update <= INT_MAX else None,
    }


def _text(amount: int | None) -> str | None:
    return None if amount is None else str(amount)
