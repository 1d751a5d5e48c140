"""Where a Curve pool is listed and what belongs to it: the older registries the AddressProvider names at
the block, a pool's LP token and its gauge, as the factory or registry that lists it says
(positions.py scans with them, pools.py answers a pool with them)."""

from __future__ import annotations

import asyncio
from typing import cast

from adapters.curve.contracts import (
    GET_ADDRESS,
    GET_GAUGE,
    GET_GAUGE_FROM_LP_TOKEN,
    GET_GAUGES,
    GET_LP_TOKEN,
    GET_TOKEN,
    has_token,
    is_registry,
)
from adapters.curve.section import REGISTRY_IDS, CurveAddresses, CurveFactory
from chain import ChainReader, first
from chain.abi import ZERO_ADDRESS


async def older_registries(reader: ChainReader, curve: CurveAddresses) -> list[CurveFactory]:
    """The older registries the AddressProvider names at the block (`get_address(id)`: 0 the main
    registry, 5 the crypto registry), scanned as the factories are; an id it leaves at zero names none."""
    if not curve.address_provider:
        return []
    provider = curve.address_provider
    named = await asyncio.gather(
        *(reader.call(provider, GET_ADDRESS, i, label=f"Curve AddressProvider {provider}") for i in REGISTRY_IDS)
    )
    return [
        CurveFactory(name, address, kind)
        for (name, kind), (address,) in zip(REGISTRY_IDS.values(), named)
        if address != ZERO_ADDRESS
    ]


async def lp_token(reader: ChainReader, factory: CurveFactory, pool: str) -> str:
    if not has_token(factory):
        return pool
    view = GET_LP_TOKEN if is_registry(factory) else GET_TOKEN
    (token,) = await reader.call(factory.address, view, pool, label=f"Curve factory {factory.name}")
    return cast(str, token)


async def gauge_of(reader: ChainReader, curve: CurveAddresses, factory: CurveFactory, pool: str, lp: str) -> str:
    """The pool's gauge: the factory's `get_gauge(pool)` (an older registry's first
    `get_gauges(pool)`); where the chain has child gauge factories, the first
    `get_gauge_from_lp_token(lp)` of theirs that names one (zero: none)."""
    if not curve.child_gauge_factories:
        label = f"Curve factory {factory.name}"
        if is_registry(factory):
            (gauges, _types) = await reader.call(factory.address, GET_GAUGES, pool, label=label)
            gauge, *_others = gauges
            return cast(str, gauge)
        return cast(str, await first(reader.call(factory.address, GET_GAUGE, pool, label=label)))
    for child in curve.child_gauge_factories:
        (gauge,) = await reader.call(child, GET_GAUGE_FROM_LP_TOKEN, lp, label=f"Curve child gauge factory {child}")
        if gauge != ZERO_ADDRESS:
            return cast(str, gauge)
    return ZERO_ADDRESS
