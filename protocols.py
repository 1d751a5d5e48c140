"""The protocol registry: protocol name -> async fetch function and the chains it serves.

A fetch function takes `(ctx, chain_id, wallet_address)` with the address already validated and
lower-cased, and returns the position object as a dict holding the fields of its GraphQL type
(`blockNumber` and the position lists). The resolver adds `protocol`, `chainId`,
`walletAddress` and `warnings` (from `ctx.warnings`), so an adapter cannot get them wrong. Failures
are raised as the exceptions of `errors.py`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from adapters.aave import pools as aave_pools
from adapters.aave import positions as aave
from adapters.compound import pools as compound_pools
from adapters.compound import positions as compound
from adapters.context import FetchFunction
from adapters.fluid import pools as fluid_pools
from adapters.fluid import positions as fluid
from adapters.lido import positions as lido
from adapters.morpho import pools as morpho_pools
from adapters.morpho import positions as morpho
from adapters.pendle import pools as pendle_pools
from adapters.pendle import positions as pendle
from adapters.spark import positions as spark
from adapters.uniswap import pools as uniswap_pools
from adapters.uniswap import positions as uniswap
from adapters.vault_style import neutrl
from adapters.vault_style import positions as vault_style
from addresses import ChainAddresses
from chain.event_index import Stream


@dataclass(frozen=True)
class Protocol:
    name: str
    type_name: str
    """The `<Protocol>WalletPositions` member of the `WalletPositions` union."""
    chains: frozenset[int]
    fetch: FetchFunction
    streams: Callable[[int], tuple[Stream, ...]] = lambda chain_id: ()
    """The event streams its discovery reads on a chain (chain/event_index.py; `index build` scans them)."""
    details: FetchFunction | None = None
    """`poolDetails`: (ctx, chain_id, pool address or id) -> {"blockNumber", "details"}, the
    details a member of the PoolDetails union (`__typename`, `type`); None where not offered."""
    pool_ids: bool = False
    """Whether `poolDetails` takes 64-character ids (Morpho Blue markets) besides addresses."""
    kept: bool = True
    """Whether answers are kept per input and block (schema.py): true where every figure follows
    from the chain at the pinned block (every adapter here); a stand-in of the tests may differ."""


Registry = Mapping[str, Protocol]

VAULT_STYLE_TYPES = {
    "midas": "MidasWalletPositions",
    "avantis": "AvantisWalletPositions",
    "avant": "AvantWalletPositions",
    "ethena": "EthenaWalletPositions",
    "sky": "SkyWalletPositions",
    "erc4626": "Erc4626WalletPositions",
}
"""The vault-style protocols answered by the shared adapter alone (Neutrl adds a field of its own)."""


def registry(addresses: dict[int, ChainAddresses]) -> dict[str, Protocol]:
    """The protocols this service answers for, each on the chains its addresses data covers."""
    return {
        "morpho": Protocol(
            "morpho",
            "MorphoWalletPositions",
            morpho.chains(addresses),
            functools.partial(morpho.fetch, addresses),
            functools.partial(morpho.streams, addresses),
            functools.partial(morpho_pools.details, addresses),
            pool_ids=True,
        ),
        "aave": Protocol(
            "aave",
            "AaveWalletPositions",
            aave.chains(addresses),
            functools.partial(aave.fetch, addresses),
            details=functools.partial(aave_pools.details, addresses),
        ),
        "spark": Protocol(
            "spark",
            "SparkWalletPositions",
            spark.chains(addresses),
            functools.partial(spark.fetch, addresses),
            details=functools.partial(aave_pools.details, addresses, protocol="spark"),
        ),
        "compound": Protocol(
            "compound",
            "CompoundWalletPositions",
            compound.chains(addresses),
            functools.partial(compound.fetch, addresses),
            details=functools.partial(compound_pools.details, addresses),
        ),
        "fluid": Protocol(
            "fluid",
            "FluidWalletPositions",
            fluid.chains(addresses),
            functools.partial(fluid.fetch, addresses),
            details=functools.partial(fluid_pools.details, addresses),
        ),
        "pendle": Protocol(
            "pendle",
            "PendleWalletPositions",
            pendle.chains(addresses),
            functools.partial(pendle.fetch, addresses),
            functools.partial(pendle.streams, addresses),
            functools.partial(pendle_pools.details, addresses),
        ),
        "lido": Protocol(
            "lido", "LidoWalletPositions", lido.chains(addresses), functools.partial(lido.fetch, addresses)
        ),
        "uniswap": Protocol(
            "uniswap",
            "UniswapWalletPositions",
            uniswap.chains(addresses),
            functools.partial(uniswap.fetch, addresses),
            functools.partial(uniswap.streams, addresses),
            functools.partial(uniswap_pools.details, addresses),
            pool_ids=True,
        ),
        "neutrl": Protocol(
            "neutrl",
            "NeutrlWalletPositions",
            vault_style.chains(addresses, "neutrl"),
            functools.partial(neutrl.fetch, addresses),
        ),
        **{
            name: Protocol(
                name,
                type_name,
                vault_style.chains(addresses, name),
                functools.partial(vault_style.fetch, addresses, name),
            )
            for name, type_name in VAULT_STYLE_TYPES.items()
        },
    }
