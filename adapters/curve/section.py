"""Curve's part of a chain's addresses data ("curve"): CRV, the pool factories by @curvefi/api's
names, the child gauge factories and the AddressProvider."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Section, fields
from addresses.fields import AddressesError

FACTORY_KINDS = {
    "factory": "stableswap",
    "crvusd_factory": "stableswap",
    "stable_ng_factory": "stableswap-ng",
    "crypto_factory": "cryptoswap",
    "twocrypto_factory": "twocrypto-ng",
    "tricrypto_factory": "tricrypto-ng",
}
"""Curve's pool factories by @curvefi/api's alias names (its network constants' ALIASES), with
the kind of pool each makes."""

REGISTRY_IDS = {0: ("main_registry", "stableswap"), 5: ("crypto_registry", "cryptoswap")}
"""The AddressProvider's `get_address` ids of Curve's older registries, with their name and the
kind of pool each lists (curvefi/metaregistry@b18e83e0 scripts/address_provider_constants.py:
0 "Stableswap Custom Pool Registry", 5 "Cryptoswap Custom Pool Registry")."""


@dataclass(frozen=True)
class CurveFactory:
    name: str
    """@curvefi/api's alias (FACTORY_KINDS)."""
    address: str
    kind: str


@dataclass(frozen=True)
class CurveAddresses:
    """Curve on a chain: the CRV token and the pool factories (`pool_count`, `pool_list`,
    `get_gauge`) whose pools are scanned, in @curvefi/api's order."""

    crv: str | None
    """None where Curve mints no CRV (@curvefi/api's `crv` is zero: Mantle): gauges pay extra
    rewards only."""
    factories: tuple[CurveFactory, ...]
    child_gauge_factories: tuple[str, ...] = ()
    """Off Ethereum, the child gauge factories (@curvefi/api's `child_gauge_factory`, then
    `child_gauge_factory_old`): a pool's gauge is the first's `get_gauge_from_lp_token(lp)` that
    names one, as @curvefi/api finds it there; none on Ethereum (the factory's `get_gauge`)."""
    address_provider: str | None = None
    """Curve's AddressProvider (@curvefi/api's `address_provider`), where its `get_address` ids of
    REGISTRY_IDS name the older registries (the main and the crypto registry) whose pools no
    factory lists: read at the block, then scanned as the factories are."""
    start_block: int | None = None
    """`startBlock`: the block the first of its factories and registries was deployed at, where the data says (its page
    under docs/protocols/ cites the source): a block before it is refused with no read."""


def parse(value: Any, where: str) -> CurveAddresses:
    value = fields.mapping(value, where)
    factories = fields.mapping(value.get("factories"), f"{where} factories")
    unknown = factories.keys() - FACTORY_KINDS.keys()
    if unknown:
        raise AddressesError(f"{where} factories: {sorted(unknown)} not among {sorted(FACTORY_KINDS)}")
    children = fields.mapping(value.get("childGaugeFactories", {}), f"{where} childGaugeFactories")
    if list(children) not in ([], ["child_gauge_factory"], ["child_gauge_factory", "child_gauge_factory_old"]):
        raise AddressesError(f"{where} childGaugeFactories: child_gauge_factory, then child_gauge_factory_old")
    return CurveAddresses(
        fields.optional_address(value, "crv", where),
        tuple(
            CurveFactory(name, fields.address(address, f"{where} factories {name}"), FACTORY_KINDS[name])
            for name, address in factories.items()
        ),
        tuple(fields.address(address, f"{where} childGaugeFactories {name}") for name, address in children.items()),
        fields.optional_address(value, "addressProvider", where),
        fields.start_block(value, where),
    )


CURVE = Section("curve", parse)
