"""The checks every section's parser shares (a section's own parser lives in its protocol's
package): each returns the typed value or raises AddressesError naming the entry."""

from __future__ import annotations

import re
from typing import Any

from addresses.sections import Deployment, PriceFeed, PriceRate

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
_VIEW = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\(\)")


class AddressesError(ValueError):
    """The addresses data is not usable; the message names the file and the entry."""


def mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise AddressesError(f"{where}: must be an object")
    return value


def listed(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise AddressesError(f"{where}: must be a list")
    return value


def address(value: Any, where: str) -> str:
    """A contract's address, lower-cased."""
    if not isinstance(value, str) or not _ADDRESS.fullmatch(value):
        raise AddressesError(f"{where}: {str(value)[:50]!r} is not an address (0x + 40 hex)")
    return value.lower()


def optional_address(section: dict[str, Any], key: str, where: str) -> str | None:
    """`section[key]` as an address, None where the entry leaves it out."""
    return address(section[key], f"{where} {key}") if section.get(key) else None


def deployment(value: Any, where: str) -> Deployment:
    if not isinstance(value, dict):
        raise AddressesError(f"{where}: must be an object with address and startBlock")
    block = start_block(value, where)
    if block is None:
        raise AddressesError(f"{where}: startBlock must be a block number")
    return Deployment(address(value.get("address"), where), block)


def start_block(entry: dict[str, Any], where: str) -> int | None:
    """`entry`'s `startBlock`: the block its contract (a section's: its first) was deployed at,
    None where the entry leaves it out."""
    block = entry.get("startBlock")
    if block is not None and (not isinstance(block, int) or isinstance(block, bool) or block < 0):
        raise AddressesError(f"{where}: startBlock must be a block number")
    return block


def deployments(value: Any, where: str) -> tuple[Deployment, ...]:
    return tuple(deployment(item, f"{where}[{index}]") for index, item in enumerate(listed(value, where)))


def feed(value: Any, where: str) -> PriceFeed:
    if not isinstance(value, dict):
        raise AddressesError(f"{where}: must be an object with pair, feed and heartbeat")
    heartbeat = value.get("heartbeat")
    if not isinstance(heartbeat, int) or isinstance(heartbeat, bool) or heartbeat <= 0:
        raise AddressesError(f"{where}: heartbeat must be a positive number of seconds")
    return PriceFeed(str(value.get("pair", "")), address(value.get("feed"), where), heartbeat)


def rate(value: Any, where: str) -> PriceRate:
    """A `priceRates` entry: {"of": token, "view": "stEthPerToken()", "contract": optional}."""
    entry = mapping(value, where)
    view = entry.get("view")
    if view is not None and (not isinstance(view, str) or not _VIEW.fullmatch(view)):
        raise AddressesError(f"{where}: view must be a function signature without arguments, like stEthPerToken()")
    return PriceRate(address(entry.get("of"), f"{where} of"), view, optional_address(entry, "contract", where))


def period(section: dict[str, Any], where: str) -> int:
    """A section's `apyPeriodDays` (7 by default), in seconds: how far back an APY is measured."""
    days = section.get("apyPeriodDays", 7)
    if not isinstance(days, int) or isinstance(days, bool) or days <= 0:
        raise AddressesError(f"{where}: apyPeriodDays must be a positive number of days")
    return days * 24 * 3600
