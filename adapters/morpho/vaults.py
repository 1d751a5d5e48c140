"""Morpho vaults' rates and holdings at the request's block, shared by the wallet's vault positions
and the vaults' pool details, so that both quote the same APYs.

Rates are per-second WAD rates weighed by the assets that earn them, then compounded like every
other APY (market.rate_to_apy). V1 (MetaMorpho) as Morpho's SDK has it for the vault accrued to
the block; V2 ours, for the SDK gives none. Every length read from a vault or adapter is bounded
(`_bounded`): they are untrusted contracts.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from adapters.morpho.adaptive_curve_irm import WAD
from adapters.morpho.contracts import (
    ADAPTERS,
    ADAPTERS_LENGTH,
    FEE,
    MANAGEMENT_FEE,
    MARKET_IDS,
    MARKET_IDS_LENGTH,
    MARKET_PARAMS_LIST,
    MARKET_PARAMS_LIST_LENGTH,
    MAX_RATE,
    MORPHO_VAULT_V1,
    PERFORMANCE_FEE,
    REAL_ASSETS,
    WITHDRAW_QUEUE,
    WITHDRAW_QUEUE_LENGTH,
)
from adapters.morpho.market import MorphoReader, mul_div_down
from adapters.position_warnings import outcome
from adapters.prices import UsdPrice
from chain import ChainReader, erc20, first
from chain.erc4626 import ASSET, TOTAL_ASSETS
from errors import ProtocolError

MAX_QUEUE_LENGTH = 30
"""MetaMorpho's own cap on its queues (ConstantsLib.MAX_QUEUE_LENGTH)."""
MAX_ADAPTERS = 32
MAX_ADAPTER_MARKETS = 64


class Rates(NamedTuple):
    """A vault's per-second WAD rates."""

    gross: int
    net: int
    """After the vault's fees."""


Part = tuple[Callable[[], Awaitable[int]], Callable[[], Awaitable[int]]]
"""(assets, per-second rate they earn) of a vault's holding, read only when the vault's rate is
weighed, so that no read starts (and is left unawaited) when a sibling part fails first."""


async def vault_asset(
    morpho: MorphoReader, vault: str, asset_figures: str, usd_figures: str
) -> tuple[dict[str, Any] | None, UsdPrice | None]:
    """A vault's asset and its USD price, each None with a warning naming the figures then null."""
    optional = morpho.warnings.optional
    asset = await optional(first(morpho.reader.call(vault, ASSET, label=f"vault {vault}")), vault, asset_figures)
    if asset is None:
        return None, None
    token, price = await asyncio.gather(
        optional(morpho.token(asset), asset, "the vault's asset is"), optional(morpho.price(asset), asset, usd_figures)
    )
    return token, price


async def vault_v1_rates(morpho: MorphoReader, vault: str) -> Rates:
    """A MetaMorpho vault's rates, as Morpho's SDK has them for the vault accrued to the block
    (`AccrualVault.accrueInterest(now)`, then `getApy(now)` and `getNetApy(now)`): its markets'
    accrued supply rates weighted by its accrued supply in each, over the vault's `totalAssets()`
    (which MetaMorpho v1.1 keeps including `lostAssets`, so bad debt dilutes the rate as it
    dilutes the share price); net: the fee off the rate. Read once per request."""
    return await morpho.reader.shared(("morpho", "v1rates", vault), lambda: _vault_v1_rates(morpho, vault))


async def _vault_v1_rates(morpho: MorphoReader, vault: str) -> Rates:
    reader, label = morpho.reader, f"vault {vault}"
    (fee,), queue, (total,) = await asyncio.gather(
        reader.call(vault, FEE, label=label),
        withdraw_queue(reader, vault),
        reader.call(vault, TOTAL_ASSETS, label=label),
    )
    earned, _ = await earnings([market_part(morpho, market_id, vault) for market_id in queue])
    gross = earned // total if total else 0
    return Rates(gross, mul_div_down(gross, WAD - fee, WAD))


async def _vault_v1_net_rate(morpho: MorphoReader, vault: str) -> int:
    return (await vault_v1_rates(morpho, vault)).net


async def withdraw_queue(reader: ChainReader, vault: str) -> list[str]:
    """A MetaMorpho vault's markets, in its withdraw-queue order (every market it may hold)."""
    label = f"vault {vault}"
    (length,) = await reader.call(vault, WITHDRAW_QUEUE_LENGTH, label=label)
    ids = await asyncio.gather(
        *(reader.call(vault, WITHDRAW_QUEUE, i, label=label) for i in range(_bounded(length, MAX_QUEUE_LENGTH, label)))
    )
    return list(dict.fromkeys("0x" + market_id.hex() for (market_id,) in ids))


def market_part(morpho: MorphoReader, market_id: str, owner: str) -> Part:
    """What `owner` supplies to a market (accrued to the block), and the market's accrued supply rate."""
    return functools.partial(morpho.supply, market_id, owner), functools.partial(morpho.supply_rate, market_id)


async def earnings(parts: list[Part]) -> tuple[int, int]:
    """(Σ assets x rate, Σ assets) over the parts, rates per second in WAD. ProtocolError when a
    part that holds assets has no rate (the APY is then null, with a warning)."""
    amounts, rates = await asyncio.gather(
        asyncio.gather(*(amount() for amount, _ in parts)), asyncio.gather(*(outcome(rate()) for _, rate in parts))
    )
    earned = 0
    for amount, rate in zip(amounts, rates):
        if amount:
            if isinstance(rate, ProtocolError):
                raise rate
            earned += amount * rate
    return earned, sum(amounts)


async def vault_v2_rates(morpho: MorphoReader, vault: str) -> Rates:
    """A Vault V2's rates; ours (Morpho's SDK gives no V2 APY): the adapters' assets weighted by
    their rates (markets: accrued supply rate; a V1 vault: its net rate), idle assets earning
    nothing, capped at the vault's `maxRate` (VaultV2 lets total assets grow no faster); net: the
    performance fee off the rate and the management fee (per second) subtracted."""
    reader, label = morpho.reader, f"vault {vault}"
    (performance_fee,), (management_fee,), adapters, (asset,), (max_rate,) = await asyncio.gather(
        reader.call(vault, PERFORMANCE_FEE, label=label),
        reader.call(vault, MANAGEMENT_FEE, label=label),
        vault_adapters(reader, vault),
        reader.call(vault, ASSET, label=label),
        reader.call(vault, MAX_RATE, label=label),
    )
    (idle,), parts = await asyncio.gather(
        reader.call(asset, erc20.BALANCE_OF, vault, label=f"token {asset}"),
        asyncio.gather(*(_adapter_parts(morpho, adapter) for adapter in adapters)),
    )
    earned, assets = await earnings([part for adapter_parts in parts for part in adapter_parts])
    gross = min(earned // (assets + idle) if assets + idle else 0, max_rate)
    return Rates(gross, mul_div_down(gross, WAD - performance_fee, WAD) - management_fee)


async def vault_adapters(reader: ChainReader, vault: str) -> list[str]:
    """A Vault V2's adapters, in its order, each once."""
    label = f"vault {vault}"
    (length,) = await reader.call(vault, ADAPTERS_LENGTH, label=label)
    return list(
        dict.fromkeys(
            a
            for (a,) in await asyncio.gather(
                *(reader.call(vault, ADAPTERS, i, label=label) for i in range(_bounded(length, MAX_ADAPTERS, label)))
            )
        )
    )


@dataclass(frozen=True)
class AdapterHolding:
    """Where a V2 adapter puts its assets: Morpho Blue markets, or one V1 vault."""

    kind: str
    """"morpho-market-v1" or "morpho-vault-v1"."""
    market_ids: tuple[str, ...] = ()
    vault: str | None = None


async def adapter_holding(morpho: MorphoReader, adapter: str) -> AdapterHolding:
    reader, label = morpho.reader, f"adapter {adapter}"
    (kind,) = await reader.remembered(("morpho adapter kind", adapter), lambda: _adapter_kind(reader, adapter))
    if kind == MORPHO_VAULT_V1.name:
        (underlying,) = await reader.call(adapter, MORPHO_VAULT_V1, label=label)
        return AdapterHolding("morpho-vault-v1", vault=underlying)
    if kind == MARKET_IDS_LENGTH.name:
        (length,) = await reader.call(adapter, MARKET_IDS_LENGTH, label=label)
        ids = await asyncio.gather(
            *(
                reader.call(adapter, MARKET_IDS, i, label=label)
                for i in range(_bounded(length, MAX_ADAPTER_MARKETS, label))
            )
        )
        market_ids = dict.fromkeys("0x" + market_id.hex() for (market_id,) in ids)
    else:
        (length,) = await reader.call(adapter, MARKET_PARAMS_LIST_LENGTH, label=label)
        params = await asyncio.gather(
            *(
                reader.call(adapter, MARKET_PARAMS_LIST, i, label=label)
                for i in range(_bounded(length, MAX_ADAPTER_MARKETS, label))
            )
        )
        by_params = morpho.markets_by_params
        unknown = [p for p in params if tuple(p) not in by_params]
        if unknown:
            raise ProtocolError(
                f"adapter {adapter} supplies to {len(unknown)} market(s) the event index of chain "
                f"{reader.chain_id} has not reached yet (it names markets by their parameters)."
            )
        market_ids = dict.fromkeys(by_params[tuple(p)] for p in params)
    return AdapterHolding("morpho-market-v1", market_ids=tuple(market_ids))


async def _adapter_parts(morpho: MorphoReader, adapter: str) -> list[Part]:
    """(assets, what they earn) of one V2 adapter: its markets, or the V1 vault it holds."""
    holding = await adapter_holding(morpho, adapter)
    if holding.vault is not None:
        return [
            (
                lambda: first(morpho.reader.call(adapter, REAL_ASSETS, label=f"adapter {adapter}")),
                functools.partial(_vault_v1_net_rate, morpho, holding.vault),
            )
        ]
    return [market_part(morpho, market_id, adapter) for market_id in holding.market_ids]


ADAPTER_PROBES = (MARKET_IDS_LENGTH, MARKET_PARAMS_LIST_LENGTH, MORPHO_VAULT_V1)
"""One view of each V2 adapter interface: a market adapter (V2, or the legacy one with market
parameters) or a V1-vault adapter."""


async def _adapter_kind(reader: ChainReader, adapter: str) -> tuple[str]:
    """The name of the probe an adapter answers. Probing costs a round more the first time (two
    probes revert, and a sub-call reverting with empty data is re-run alone); adapters are
    immutable contracts, so the app remembers the answer."""
    answers = await asyncio.gather(
        *(reader.call(adapter, probe, label=f"adapter {adapter}") for probe in ADAPTER_PROBES), return_exceptions=True
    )
    for probe, answer in zip(ADAPTER_PROBES, answers):
        if not isinstance(answer, BaseException):
            return (probe.name,)
        if not isinstance(answer, ProtocolError):
            raise answer
    raise ProtocolError(f"adapter {adapter} is neither a Morpho market adapter nor a V1 vault adapter.")


def _bounded(length: int, limit: int, label: str) -> int:
    """A length read from a contract, refused beyond what honest contracts have, so that a
    hostile contract cannot make one request issue millions of calls."""
    if length > limit:
        raise ProtocolError(f"{label} reports {length} entries, more than the {limit} this service reads.")
    return length
