"""The shapes every protocol's part of the addresses data shares: a chain (`ChainAddresses`), a
contract with its deployment block, a USD price feed, and the `Section` that names a protocol's
part and parses it. Each protocol's own section classes live in its package
(`adapters/<package>/section.py`); addresses/load.py parses the parts the registry names."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

Shape = TypeVar("Shape")


@dataclass(frozen=True)
class Deployment:
    address: str
    start_block: int
    """Block the contract was deployed at: event scans start here."""


@dataclass(frozen=True)
class PriceFeed:
    pair: str
    feed: str
    """A Chainlink-style AggregatorV3 (latestRoundData, decimals) quoting the token in USD."""
    heartbeat: int
    """Seconds after which an answer that was not updated counts as stale."""


@dataclass(frozen=True)
class PriceRate:
    """A token that is a claim on another, at the rate its protocol's own view states
    (adapters/prices/rates.py): `view()` on `contract` answers how much of `of`, scaled by 1e18,
    one whole token is worth; no view: one for one (the protocol redeems one for one)."""

    of: str
    view: str | None = None
    """A view's signature without arguments, answering one uint256 (stEthPerToken())."""
    contract: str | None = None
    """Where the view is read; None: the token itself."""


@dataclass(frozen=True)
class Section(Generic[Shape]):
    """A protocol's part of a chain's addresses data: its key in `addresses.json` and the parser
    that checks and types it, declared in the protocol's package (`section.py`)."""

    key: str
    parse: Callable[[Any, str], Shape]
    """(the entry's JSON value, where it is for messages) -> the typed section; AddressesError
    (addresses/fields.py) naming the entry when it is unusable."""

    def of(self, chain: ChainAddresses) -> Shape | None:
        """The chain's parsed part, None where its data has none."""
        return cast("Shape | None", chain.parts.get(self.key))


@dataclass(frozen=True)
class ChainAddresses:
    chain_id: int
    name: str
    price_feeds: Mapping[str, PriceFeed] = field(default_factory=dict)
    """By lower-case token address."""
    currency_feeds: Mapping[str, PriceFeed] = field(default_factory=dict)
    """USD feeds of currencies that are not tokens ("ETH", "BTC"), for prices quoted in them."""
    price_rates: Mapping[str, PriceRate] = field(default_factory=dict)
    """Tokens priced by their protocol's own rate of another token, by lower-case address."""
    sequencer_uptime_feed: str | None = None
    """On an L2, Chainlink's sequencer uptime feed: prices count only while the sequencer is up."""
    parts: Mapping[str, object] = field(default_factory=dict)
    """Each protocol's parsed part by its section's key: read through the `Section` (`of`)."""

    @classmethod
    def bare(cls, chain_id: int) -> ChainAddresses:
        """A chain the data says nothing of (a test's stand-in protocol's)."""
        return cls(chain_id, f"chain {chain_id}")
