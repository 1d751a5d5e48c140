"""A Balancer pool's state and a holder's share of it: what a BPT amount is worth in the pool's
tokens, as a proportional exit pays it. Balancer's gauges (positions.py) and Aura's deposits
(adapters/aura/) both value their BPT here.

- v2: the Vault's `getPoolTokens(poolId)` (tokens and balances, raw units). The supply is the
  pool's `getActualSupply()` where it has one (weighted pools from v2 on, composable stable
  pools: the supply with the protocol fees due minted, what an exit is computed against), else
  `totalSupply()`. A composable stable pool lists its own BPT among its tokens (`getBptIndex()`):
  it is left out of the shares.
- The pool type by the views it answers: `getBptIndex()` composable-stable, else
  `getNormalizedWeights()` weighted, else `getAmplificationParameter()` stable, else other.
- The share of each token: balance x bpt / supply, rounded down (a proportional exit;
  `tests/test_balancer.py` compares it with `@balancer-labs/balancer-maths`' proportional remove).
- USD: each token's amount x its USD feed (adapters/prices.py); the position's value is their sum,
  null when any token has no price.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from adapters.balancer.contracts import (
    GET_ACTUAL_SUPPLY,
    GET_AMPLIFICATION_PARAMETER,
    GET_BPT_INDEX,
    GET_NORMALIZED_WEIGHTS,
    GET_POOL_TOKENS,
    TOTAL_SUPPLY,
)
from adapters.position_warnings import Warnings, outcome
from adapters.prices import warned_usd_price
from addresses import ChainAddresses
from chain import ChainReader, erc20, first
from errors import ProtocolError


@dataclass(frozen=True)
class PoolState:
    """A pool's tokens (its own BPT left out), their balances and the supply shares are of."""

    pool: str
    version: int
    pool_id: str | None
    pool_type: str
    tokens: tuple[str, ...]
    balances: tuple[int, ...]
    supply: int

    def amounts(self, bpt: int) -> list[int]:
        """What `bpt` pool tokens pay of each token in a proportional exit, rounded down."""
        return [balance * bpt // self.supply if self.supply else 0 for balance in self.balances]


async def v2_pool(reader: ChainReader, vault: str, pool: str, pool_id: str) -> PoolState:
    """A v2 pool's state at the pinned block; ProtocolError when the Vault or the pool cannot answer."""
    label = f"Balancer pool {pool}"
    tokens, actual, total, bpt_index, weights, amp = await asyncio.gather(
        reader.call(vault, GET_POOL_TOKENS, bytes.fromhex(pool_id[2:]), label="Balancer v2 Vault"),
        outcome(first(reader.call(pool, GET_ACTUAL_SUPPLY, label=label))),
        first(reader.call(pool, TOTAL_SUPPLY, label=label)),
        outcome(reader.call(pool, GET_BPT_INDEX, label=label)),
        outcome(reader.call(pool, GET_NORMALIZED_WEIGHTS, label=label)),
        outcome(reader.call(pool, GET_AMPLIFICATION_PARAMETER, label=label)),
    )
    listed = [token.lower() for token in tokens.tokens]
    balances = list(tokens.balances)
    if not isinstance(bpt_index, ProtocolError):
        (index,) = bpt_index
        if index >= len(listed) or listed[index] != pool:
            raise ProtocolError(f"{label}: getBptIndex names no BPT among the Vault's tokens.")
        del listed[index], balances[index]
        pool_type = "composable-stable"
    elif not isinstance(weights, ProtocolError):
        pool_type = "weighted"
    elif not isinstance(amp, ProtocolError):
        pool_type = "stable"
    else:
        pool_type = "other"
    supply: int = total if isinstance(actual, ProtocolError) else actual
    return PoolState(pool, 2, pool_id, pool_type, tuple(listed), tuple(balances), supply)


async def position(
    reader: ChainReader, chain: ChainAddresses, state: PoolState, bpt: int, warnings: Warnings
) -> dict[str, Any]:
    """The `BalancerPoolPosition` of `bpt` pool tokens: each token's share with its USD value."""
    amounts = state.amounts(bpt)
    pool_token, infos, prices = await asyncio.gather(
        erc20.token_info(reader, state.pool),
        asyncio.gather(*(erc20.token_info(reader, token) for token in state.tokens)),
        asyncio.gather(*(warned_usd_price(reader, chain, token, warnings) for token in state.tokens)),
    )
    shares = []
    total: Fraction | None = Fraction(0)
    for info, balance, amount, price in zip(infos, state.balances, amounts, prices):
        usd = price.exact(amount, info["decimals"]) if price else None
        total = None if total is None or usd is None else total + usd
        shares.append(
            {
                "token": info,
                "poolBalance": str(balance),
                "amount": str(amount),
                "amountUsd": float(usd) if usd is not None else None,
            }
        )
    return {
        "version": state.version,
        "poolType": state.pool_type,
        "pool": pool_token,
        "poolId": state.pool_id,
        "balance": str(bpt),
        "totalSupply": str(state.supply),
        "tokens": shares,
        "valueUsd": float(total) if total is not None else None,
    }


async def reward(
    reader: ChainReader, chain: ChainAddresses, token: str, amount: int, warnings: Warnings
) -> dict[str, Any]:
    """A `BalancerReward`: the token (null with a warning where it cannot be read), the amount, its USD."""
    info, price = await asyncio.gather(
        warnings.optional(erc20.token_info(reader, token), token, "the reward's token is"),
        warned_usd_price(reader, chain, token, warnings),
    )
    usd = price.value(amount, info["decimals"]) if price and info else None
    return {"token": info, "amount": str(amount), "amountUsd": usd}
