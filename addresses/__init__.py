"""Per-chain contract addresses, deployment blocks and USD price feeds: data, kept in one place.

The built-in data is `addresses.json` beside this module, taken from the protocols' own published
address registries (each protocol's page under docs/protocols/ names them). `ADDRESSES_FILE` names a
JSON file of the same shape that is laid over it: for each chain it lists, a protocol's section
(its key, such as "morpho" or "sparkVaults", is declared with its parser in the protocol's package,
`adapters/<package>/section.py`) replaces the built-in one, and "priceFeeds" and "priceRates"
entries are added or replaced token by token. A chain that only the file lists (a local devnet)
is served like any other.

A face: the shared shapes (addresses/sections.py), the checks every parser shares
(addresses/fields.py) and the loading (addresses/load.py), re-exported.
"""

from __future__ import annotations

from addresses import fields
from addresses.fields import AddressesError
from addresses.load import BUILT_IN, load
from addresses.sections import ChainAddresses, Deployment, PriceFeed, PriceRate, Section

__all__ = [
    "BUILT_IN",
    "AddressesError",
    "ChainAddresses",
    "Deployment",
    "PriceFeed",
    "PriceRate",
    "Section",
    "fields",
    "load",
]
