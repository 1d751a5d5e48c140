"""Per-chain contract addresses, deployment blocks and USD price feeds: data, kept in one place.

The built-in data is `addresses.json` beside this module, taken from the protocols' own published
address registries (each protocol's page under docs/protocols/ names them). `ADDRESSES_FILE` names a
JSON file of the same shape that is laid over it: for each chain it lists, a protocol section
("morpho", "aave", "spark", "sparkVaults", "compound", "pendle", "fluid", "lido", "uniswap", "neutrl",
"midas", "avantis", "avant", "ethena", "sky", "erc4626", "maker", "euler", "accounts", "eigenlayer",
"etherfi", "rocketpool", "renzo", "kelp", "balancer", "aura", "curve", "convex") replaces
the built-in one, and "priceFeeds" entries are added or replaced token by token. A chain that only
the file lists (a local devnet) is served like any other.

A face: the sections (addresses/sections.py) and their loading (addresses/load.py), re-exported.
"""

from __future__ import annotations

from addresses.load import BUILT_IN, AddressesError, load
from addresses.sections import (
    CURVE_FACTORY_KINDS,
    CURVE_REGISTRY_IDS,
    SAVINGS_RATES,
    VAULT_STYLE,
    AaveMarket,
    AccountsAddresses,
    AuraAddresses,
    BalancerAddresses,
    ChainAddresses,
    CometMarket,
    CompoundAddresses,
    ConvexAddresses,
    CurveAddresses,
    CurveFactory,
    Deployment,
    EigenlayerAddresses,
    EtherfiAddresses,
    EulerAddresses,
    FluidAddresses,
    KelpAddresses,
    LidoAddresses,
    MakerAddresses,
    MorphoAddresses,
    PendleAddresses,
    PricedToken,
    PriceFeed,
    RenzoAddresses,
    RocketPoolAddresses,
    ShareVault,
    SummerDpm,
    UniswapAddresses,
    UniswapV3Addresses,
    UniswapV4Addresses,
    VaultStyleAddresses,
)

__all__ = [
    "BUILT_IN",
    "CURVE_FACTORY_KINDS",
    "CURVE_REGISTRY_IDS",
    "SAVINGS_RATES",
    "VAULT_STYLE",
    "AaveMarket",
    "AccountsAddresses",
    "AddressesError",
    "AuraAddresses",
    "BalancerAddresses",
    "ChainAddresses",
    "CometMarket",
    "CompoundAddresses",
    "ConvexAddresses",
    "CurveAddresses",
    "CurveFactory",
    "Deployment",
    "EigenlayerAddresses",
    "EtherfiAddresses",
    "EulerAddresses",
    "FluidAddresses",
    "KelpAddresses",
    "LidoAddresses",
    "MakerAddresses",
    "MorphoAddresses",
    "PendleAddresses",
    "PriceFeed",
    "PricedToken",
    "RenzoAddresses",
    "RocketPoolAddresses",
    "ShareVault",
    "SummerDpm",
    "UniswapAddresses",
    "UniswapV3Addresses",
    "UniswapV4Addresses",
    "VaultStyleAddresses",
    "load",
]
