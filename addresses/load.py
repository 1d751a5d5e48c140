"""Reading the addresses data: `addresses.json` with `ADDRESSES_FILE` laid over it, each chain's
shared entries (name, feeds) checked here and each protocol's part parsed by the `Section` its
package declares (the registry, protocols.py, names them all), or AddressesError naming the entry."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from addresses.fields import AddressesError, address, feed, mapping, rate
from addresses.sections import ChainAddresses, Section

BUILT_IN = Path(__file__).resolve().parents[1] / "addresses.json"
SHARED = ("name", "priceFeeds", "priceRates", "currencyFeeds", "sequencerUptimeFeed")
"""A chain's entries that are no protocol's section."""


def load(sections: Iterable[Section[Any]], override: str | Path | None = None) -> dict[int, ChainAddresses]:
    """The built-in data with `override` laid over it, every protocol's part parsed by its
    section in `sections`; AddressesError when either file is unusable or names a section that
    none of them is."""
    by_key: dict[str, Section[Any]] = {}
    for section in sections:
        if by_key.setdefault(section.key, section) != section:
            raise ValueError(f"two sections are declared for the key {section.key!r}")
    raw = _read(BUILT_IN)
    if override:
        for chain, entries in _read(Path(override)).items():
            if not isinstance(entries, dict):
                raise AddressesError(f"{override}: chain {chain} must map to an object")
            merged = dict(raw.get(chain, {}))
            tokens = {
                key: {**merged.get(key, {}), **mapping(entries.get(key, {}), f"{override}: chain {chain} {key}")}
                for key in ("priceFeeds", "priceRates")
            }
            merged.update(entries)
            merged.update(tokens)
            raw[chain] = merged
    source = f"{BUILT_IN.name}{f' + {override}' if override else ''}"
    return {chain.chain_id: chain for chain in (_chain(key, value, source, by_key) for key, value in raw.items())}


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AddressesError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise AddressesError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise AddressesError(f"{path}: must be a JSON object keyed by chain id")
    return data


def _chain(key: str, value: Any, source: str, sections: Mapping[str, Section[Any]]) -> ChainAddresses:
    where = f"{source}: chain {key}"
    if not key.isdigit() or not isinstance(value, dict):
        raise AddressesError(f"{where}: keys must be chain ids and values objects")
    unknown = sorted(value.keys() - sections.keys() - set(SHARED))
    if unknown:
        raise AddressesError(
            f"{where}: no section has the key {', '.join(map(repr, unknown))} (the keys: {sorted(sections)})"
        )
    feeds = value.get("priceFeeds", {})
    if not isinstance(feeds, dict):
        raise AddressesError(f"{where}: priceFeeds must be an object keyed by token address")
    return ChainAddresses(
        chain_id=int(key),
        name=str(value.get("name", f"chain {key}")),
        price_feeds={
            address(token, f"{where} priceFeeds"): feed(entry, f"{where} priceFeeds {token}")
            for token, entry in feeds.items()
        },
        price_rates={
            address(token, f"{where} priceRates"): rate(entry, f"{where} priceRates {token}")
            for token, entry in mapping(value.get("priceRates", {}), f"{where} priceRates").items()
        },
        currency_feeds={
            currency: feed(entry, f"{where} currencyFeeds {currency}")
            for currency, entry in mapping(value.get("currencyFeeds", {}), f"{where} currencyFeeds").items()
        },
        sequencer_uptime_feed=(
            address(value["sequencerUptimeFeed"], f"{where} sequencerUptimeFeed")
            if "sequencerUptimeFeed" in value
            else None
        ),
        parts={
            name: section.parse(value[name], f"{where} {name}") for name, section in sections.items() if name in value
        },
    )
