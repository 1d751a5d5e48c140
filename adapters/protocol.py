"""A protocol as the service knows it, declared once in its package (`PROTOCOLS` in
`adapters/<package>/__init__.py`): its name, what of a chain's addresses data is its section (the
chains where that holds something are the protocol's chains), its fetch, and where it has them its
event streams, pool details, flows with their prices, the rates of its own tokens wherever they
appear, and routes of its own to the accounts a wallet controls. The registry (protocols.py)
collects the declarations and binds each to the addresses data (`bound`); nothing else names a
protocol's parts.

A fetch function takes `(ctx, wallet_address)`, the address already validated and lower-cased
and the input's chain, its addresses and its block in `ctx`, and returns the position object as a
dict holding the position lists of its GraphQL type. The resolver adds `protocol`, `chainId`,
`walletAddress`, `blockNumber` (the pinned reader's; a test's stand-in that reads no chain gives
its own) and `warnings` (from `ctx.warnings`), so an adapter cannot get them wrong. Failures
are raised as the exceptions of `errors.py`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from adapters.accounts import ROUTES, Route
from adapters.accounts import section as accounts
from adapters.accounts import streams as account_streams
from adapters.accounts.probes import Probe
from adapters.context import FetchContext
from adapters.deployment import before
from adapters.flows import FlowFunction, FlowPrices
from adapters.prices import RateRoute, Routed, Routes
from addresses import ChainAddresses, Section
from chain import ChainReader, ChainRequest
from chain.event_index import Indexes, Stream

Shape = TypeVar("Shape")
Fetch = Callable[[FetchContext[Shape], str], Awaitable[dict[str, Any]]]
"""A fetch or pool-details function: (ctx, wallet or pool) -> its answer's fields."""


def _no_streams(section: Any) -> tuple[Stream, ...]:
    return ()


def _undeclared(section: Any) -> int | None:
    return None


@dataclass(frozen=True)
class PriceRoute(Generic[Shape]):
    """A protocol's own rate of its tokens, for their USD price wherever they appear
    (adapters/prices/routes.py)."""

    rate: Callable[[Indexes, Shape, ChainReader, str], Awaitable[Routed | None]]
    """(the app's index, its section, the input's reader, a token) -> the token's rate, None
    where the token is not its own."""
    contracts: Callable[[Shape], tuple[str, ...]]
    """The contracts its rates are read on where it knows its tokens from its index, as a
    `usdPrices` entry's `source` names them: `verify` builds its index where an answer names one."""
    probes: bool = False
    """Whether it asks the chain which tokens are its own (Curve's factories), in the round of the
    ERC-4626 probe, rather than knowing them with no round trip (routes.Routes)."""


@dataclass(frozen=True, kw_only=True)
class Protocol(Generic[Shape]):
    name: str
    section: Section[Shape] | Callable[[ChainAddresses], Shape | None]
    """Its part of a chain's addresses data (its package's `section.py`), None (or empty) where the
    chain has none: the chains where it has one are the protocol's (`bound`), and its adapters get
    it as `ctx.section`. A protocol that reads several parts finds them with a function and names
    them in `parts`."""
    fetch: Fetch[Shape]
    parts: tuple[Section[Any], ...] = ()
    """The sections of the addresses data it reads, which the loading parses (protocols.py): its
    `section`'s own where that is one."""
    type_name: str = ""
    """The `<Protocol>WalletPositions` member of the `WalletPositions` union (by default the
    name's, capitalised)."""
    chains: frozenset[int] = frozenset()
    """The chains it answers on: those its section names, once bound to the addresses data."""
    addresses: Mapping[int, ChainAddresses] = field(default_factory=dict)
    """The addresses data, by chain: each input's chain reaches its adapter in the context."""
    streams: Callable[[Shape], tuple[Stream, ...]] = _no_streams
    """The event streams its discovery reads on a chain, from its section (chain/event_index.py;
    `index build` scans them)."""
    deployed: Callable[[Shape], int | None] = _undeclared
    """The block its first contract on a chain was deployed at, from its section (the data's
    `startBlock`s, whose sources its docs page cites); None where the data leaves a part's out. A
    past block before it is refused by `answer`; its adapters' code checks (adapters/deployment.py)
    guard where it is None, and leave out parts deployed after the block."""
    details: Fetch[Shape] | None = None
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
    price_route: PriceRoute[Shape] | None = None
    """The rate of its own tokens wherever they appear; None: it gives none."""
    routes: tuple[str, ...] = ()
    """How the accounts a wallet controls are found (adapters/accounts/): each input also answers
    theirs, unless it asks not to; every protocol of the registry has them (`bound`), a test's
    stand-in none."""
    own_routes: tuple[Route, ...] = ()
    """The protocol's own routes to such accounts, before the shared ones (Euler's sub-accounts)."""
    probe: Callable[[Shape], tuple[Probe, ...]] | None = None
    """The reads of its section that rule out an account holding nothing here (adapters/accounts/
    probes.py): every position it shows an account makes one of them nonzero; None: every account
    is answered in full."""
    index_probe: Callable[[FetchContext[Shape], str], Awaitable[bool]] | None = None
    """(ctx, account) -> whether the account may hold something here by what its event index links
    to it (and reads its answers share): False only where its answer would show nothing; with
    `probe`, an account is left out only where both rule it out. None: no such check."""
    borrows: bool = False
    """Whether its positions can carry a borrow's `risk` (docs/api.md, `BorrowRisk`): what a watch
    that names no protocol reads (docs/watches.md)."""
    kept: bool = True
    """Whether answers are kept per input and block (schema.py): true where every figure follows
    from the chain at the pinned block (every adapter here); a stand-in of the tests may differ."""

    def __post_init__(self) -> None:
        if isinstance(self.section, Section) and not self.parts:
            object.__setattr__(self, "parts", (self.section,))
        if not self.type_name:
            object.__setattr__(self, "type_name", f"{self.name[0].upper()}{self.name[1:]}WalletPositions")

    def bound(self, addresses: Mapping[int, ChainAddresses]) -> Protocol[Shape]:
        """The declaration as the registry serves it: on the chains whose data has its section,
        following the shared routes to controlled accounts besides its own."""
        chains = frozenset(chain_id for chain_id, chain in addresses.items() if self.part(chain))
        return dataclasses.replace(self, chains=chains, addresses=addresses, routes=ROUTES)

    def part(self, chain: ChainAddresses) -> Shape | None:
        """Its section of the chain's data, None (or empty) where the chain has none."""
        return self.section.of(chain) if isinstance(self.section, Section) else self.section(chain)

    async def price_rate(self, indexes: Indexes, reader: ChainReader, token: str) -> Routed | None:
        """Its route's rate of a token on the reader's chain; None where it has no route there or
        the token is not its own."""
        section = self._served(reader.chain_id)
        if self.price_route is None or not section:
            return None
        return await self.price_route.rate(indexes, section, reader, token)

    def price_contracts(self, chain_id: int) -> tuple[str, ...]:
        """The contracts its route reads on a chain (PriceRoute.contracts), lower case."""
        section = self._served(chain_id)
        found = () if self.price_route is None or not section else self.price_route.contracts(section)
        return tuple(contract.lower() for contract in found)

    def _served(self, chain_id: int) -> Shape | None:
        """Its section on a chain it serves; None elsewhere."""
        return self.part(self.chain(chain_id)) if chain_id in self.chains else None

    def chain(self, chain_id: int) -> ChainAddresses:
        """What the addresses data holds for a chain this protocol is asked on."""
        return self.addresses.get(chain_id) or ChainAddresses.bare(chain_id)

    def context(
        self,
        deadline: float,
        chains: ChainRequest,
        indexes: Indexes,
        chain_id: int,
        block: int | None = None,
        block_hash: str | None = None,
    ) -> FetchContext[Shape]:
        """The context of an input on a chain it serves (the resolver checked), with its section."""
        chain = self.chain(chain_id)
        section = self.part(chain)
        assert section is not None, f"{self.name} is asked only on the chains it serves"
        return FetchContext(deadline, chains, indexes, chain, self.name, block, block_hash, section=section)

    def existed(self, chain_id: int, block: int | None) -> None:
        """BeforeDeployment for a block given by number before its declared deployment on a chain
        it serves: asked before anything is read, or looked up (a kept answer's key takes a header)."""
        section = self.part(self.chain(chain_id))
        start = self.deployed(section) if section is not None else None
        if start is not None and block is not None:
            self._since(chain_id, block, start)

    async def answer(self, function: Fetch[Shape], ctx: FetchContext[Shape], key: str) -> dict[str, Any]:
        """`function` (its fetch or pool details) for `key`, after `existed`; for a block given by
        its hash, BeforeDeployment where the block is before its declared deployment, found
        beside the adapter's first round (which brings the block's number)."""
        start, reader = self.deployed(ctx.section), ctx.reader()
        if start is None or ctx.block is not None or not reader.past:
            return await function(ctx, key)
        answer, block = await asyncio.gather(function(ctx, key), reader.block_number(), return_exceptions=True)
        if isinstance(block, BaseException):
            raise block
        self._since(ctx.chain_id, block, start)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def _since(self, chain_id: int, block: int, start: int) -> None:
        if block < start:
            raise before(self.name, chain_id, block, f"its first contract there was deployed at block {start}")

    def probes(self, chain_id: int) -> tuple[Probe, ...] | None:
        """Its probes on a chain it serves; None where it declares none (or none there: an account is
        then answered in full, never ruled out by nothing)."""
        section = self.part(self.chain(chain_id))
        return (self.probe(section) or None) if self.probe is not None and section is not None else None

    def chain_streams(self, chain_id: int) -> tuple[Stream, ...]:
        """Its own streams on the chain, then those that find the accounts a wallet controls."""
        if chain_id not in self.addresses:
            return ()
        chain = self.addresses[chain_id]
        section = self.part(chain)
        own = self.streams(section) if section else ()
        return (*own, *account_streams(accounts.of(chain), self.routes))


def price_routes(protocols: Iterable[Protocol[Any]], indexes: Indexes) -> Routes:
    """The routes an input is fetched with (adapters/prices/routes.py): each protocol's that has one."""
    lookups: list[RateRoute] = []
    probes: list[RateRoute] = []
    for protocol in protocols:
        if protocol.price_route is not None:
            (probes if protocol.price_route.probes else lookups).append(functools.partial(protocol.price_rate, indexes))
    return Routes(tuple(lookups), tuple(probes))
