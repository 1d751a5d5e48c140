"""The protocol registry: protocol name -> async fetch function and the chains it serves.

A fetch function takes `(ctx, wallet_address)`, the address already validated and lower-cased
and the input's chain, its addresses and its block in `ctx`, and returns the position object as a
dict holding the position lists of its GraphQL type. The resolver adds `protocol`, `chainId`,
`walletAddress`, `blockNumber` (the pinned reader's; a test's stand-in that reads no chain gives
its own) and `warnings` (from `ctx.warnings`), so an adapter cannot get them wrong. Failures
are raised as the exceptions of `errors.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters.aave import flows as aave_flows
from adapters.aave import pools as aave_pools
from adapters.aave import positions as aave
from adapters.accounts import ROUTES as ACCOUNT_ROUTES
from adapters.accounts import Route
from adapters.accounts import streams as account_streams
from adapters.aura import positions as aura
from adapters.balancer import contracts as balancer_contracts
from adapters.balancer import positions as balancer
from adapters.compound import flows as compound_flows
from adapters.compound import pools as compound_pools
from adapters.compound import positions as compound
from adapters.context import FetchFunction
from adapters.convex import positions as convex
from adapters.curve import positions as curve
from adapters.eigenlayer import positions as eigenlayer
from adapters.euler import pools as euler_pools
from adapters.euler import positions as euler
from adapters.euler import subaccounts as euler_subaccounts
from adapters.flows import FlowFunction, FlowPrices
from adapters.fluid import flows as fluid_flows
from adapters.fluid import pools as fluid_pools
from adapters.fluid import positions as fluid
from adapters.lido import flows as lido_flows
from adapters.lido import positions as lido
from adapters.liquid_staking import positions as liquid_staking
from adapters.maker import positions as maker
from adapters.morpho import flows as morpho_flows
from adapters.morpho import pools as morpho_pools
from adapters.morpho import positions as morpho
from adapters.pendle import contracts as pendle_contracts
from adapters.pendle import flows as pendle_flows
from adapters.pendle import pools as pendle_pools
from adapters.pendle import positions as pendle
from adapters.spark import flows as spark_flows
from adapters.spark import positions as spark
from adapters.uniswap import flows as uniswap_flows
from adapters.uniswap import pools as uniswap_pools
from adapters.uniswap import positions as uniswap
from adapters.vault_style import flows as vault_style_flows
from adapters.vault_style import neutrl
from adapters.vault_style import positions as vault_style
from addresses import ChainAddresses
from chain.event_index import Stream


@dataclass(frozen=True, kw_only=True)
class Protocol:
    name: str
    type_name: str
    """The `<Protocol>WalletPositions` member of the `WalletPositions` union."""
    chains: frozenset[int]
    fetch: FetchFunction
    addresses: Mapping[int, ChainAddresses] = field(default_factory=dict)
    """The addresses data, by chain: each input's chain reaches its adapter in the context."""
    streams: Callable[[ChainAddresses], tuple[Stream, ...]] = lambda chain: ()
    """The event streams its discovery reads on a chain (chain/event_index.py; `index build` scans them)."""
    details: FetchFunction | None = None
    """`poolDetails`: (ctx, pool address or id) -> {"details"}, the details a member of the
    PoolDetails union (`__typename`, `type`); None where not offered."""
    pool_ids: bool = False
    """Whether `poolDetails` takes 64-character ids (Morpho Blue markets) besides addresses."""
    flows: FlowFunction | None = None
    """`positionsHistory` flows: the wallet's logs decoded into its positions' flows
    (adapters/flows.py); None where not derived yet (the series says so)."""
    flow_prices: FlowPrices | None = None
    """The flows' USD prices where the protocol values its positions by its own oracle; None:
    the chain's feeds, as its positions."""
    routes: tuple[str, ...] = ()
    """How the accounts a wallet controls are found (adapters/accounts/): each input also answers
    theirs, unless it asks not to; every protocol of the registry has them, a test's stand-in none."""
    own_routes: tuple[Route, ...] = ()
    """The protocol's own routes to such accounts, before the shared ones (Euler's sub-accounts)."""
    kept: bool = True
    """Whether answers are kept per input and block (schema.py): true where every figure follows
    from the chain at the pinned block (every adapter here); a stand-in of the tests may differ."""

    def chain(self, chain_id: int) -> ChainAddresses:
        """What the addresses data holds for a chain this protocol is asked on."""
        return self.addresses.get(chain_id) or ChainAddresses.bare(chain_id)

    def chain_streams(self, chain_id: int) -> tuple[Stream, ...]:
        """Its own streams on the chain, then those that find the accounts a wallet controls."""
        if chain_id not in self.addresses:
            return ()
        chain = self.addresses[chain_id]
        return (*self.streams(chain), *account_streams(chain.accounts, self.routes))


Registry = Mapping[str, Protocol]

VAULT_STYLE = ("midas", "avantis", "avant", "ethena", "sky", "erc4626")
"""The vault-style protocols answered by the shared adapter alone (Neutrl adds a field of its own)."""


WITHOUT_FLOWS = (("eigenlayer", eigenlayer), ("aura", aura), ("curve", curve), ("convex", convex))
"""The protocols answered by their fetch alone: no event streams, pool details or flows yet."""


def type_name(name: str) -> str:
    """The protocol's member of the `WalletPositions` union."""
    return f"{name[0].upper()}{name[1:]}WalletPositions"


def registry(addresses: dict[int, ChainAddresses]) -> dict[str, Protocol]:
    """The protocols this service answers for, each on the chains its addresses data covers."""

    def entry(name: str, chains: frozenset[int], fetch: FetchFunction, **more: Any) -> Protocol:
        more.setdefault("routes", ACCOUNT_ROUTES)
        return Protocol(name=name, type_name=type_name(name), chains=chains, fetch=fetch, addresses=addresses, **more)

    return {
        protocol.name: protocol
        for protocol in (
            entry(
                "morpho",
                morpho.chains(addresses),
                morpho.fetch,
                streams=morpho.streams,
                details=morpho_pools.details,
                pool_ids=True,
                flows=morpho_flows.flows,
                flow_prices=morpho_flows.prices,
            ),
            *(
                entry(
                    name,
                    module.chains(addresses),
                    module.fetch,
                    details=aave_pools.details,
                    flows=flows,
                    flow_prices=aave_flows.prices,
                )
                for name, module, flows in (("aave", aave, aave_flows.flows), ("spark", spark, spark_flows.flows))
            ),
            entry(
                "compound",
                compound.chains(addresses),
                compound.fetch,
                details=compound_pools.details,
                flows=compound_flows.flows,
                flow_prices=compound_flows.prices,
            ),
            entry("fluid", fluid.chains(addresses), fluid.fetch, details=fluid_pools.details, flows=fluid_flows.flows),
            entry(
                "pendle",
                pendle.chains(addresses),
                pendle.fetch,
                streams=pendle_contracts.streams,
                details=pendle_pools.details,
                flows=pendle_flows.flows,
                flow_prices=pendle_flows.prices,
            ),
            entry("lido", lido.chains(addresses), lido.fetch, flows=lido_flows.flows),
            entry("maker", maker.chains(addresses), maker.fetch),
            entry(
                "euler",
                euler.chains(addresses),
                euler.fetch,
                streams=euler.streams,
                details=euler_pools.details,
                own_routes=(euler_subaccounts.ROUTE,),
            ),
            entry(
                "uniswap",
                uniswap.chains(addresses),
                uniswap.fetch,
                streams=uniswap.streams,
                details=uniswap_pools.details,
                pool_ids=True,
                flows=uniswap_flows.flows,
            ),
            entry("neutrl", vault_style.chains(addresses, "neutrl"), neutrl.fetch, flows=vault_style_flows.flows),
            *(
                entry(name, vault_style.chains(addresses, name), vault_style.fetch, flows=vault_style_flows.flows)
                for name in VAULT_STYLE
            ),
            *(entry(**more) for more in liquid_staking.entries(addresses)),
            entry("balancer", balancer.chains(addresses), balancer.fetch, streams=balancer_contracts.streams),
            *(entry(name, module.chains(addresses), module.fetch) for name, module in WITHOUT_FLOWS),
        )
    }
