"""A wallet's flows over a range of blocks: what went into and out of each position, from the
logs that name the wallet, each valued in its asset and in USD at its own block (docs/history.md).

- The logs: one event-index stream per wallet and chain, every contract's logs whose topics name
  the wallet in any indexed position (three topic filters), stored as they are from a start
  block and extended as blocks settle; a range the index holds costs no eth_getLogs. A later
  series that starts earlier gets a stream of its own (starts are rounded down to BUCKET blocks,
  so nearby ranges share one).
- Each protocol decodes its own events (`FlowFunction`) into `Flow`s keyed as its positions'
  legs are (each leg's `key`, adapters/legs.py): a vault by its address, a Morpho market's supply,
  borrow and collateral by `<marketId>:<leg>`.
- ERC-4626 shares (`share_flows`): `Deposit` and `Withdraw` whose owner is the wallet, in assets;
  share transfers to or from another holder, at `convertToAssets` at their block. A token that is
  its own asset (a Midas token): every transfer, mints and burns included.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from adapters.context import FetchContext
from adapters.position_warnings import outcome
from adapters.prices import UsdPrice, usd_price
from chain import ChainReader, Log
from chain.abi import Event, decode
from chain.erc20 import DECIMALS, NATIVE, TRANSFER
from chain.erc4626 import ASSET, CONVERT_TO_ASSETS
from chain.event_index import Stream
from chain.index_store import WALLET_STREAMS, Entry, Rows
from errors import ProtocolError

MAX_LOGS = 100_000
"""Stored logs a series reads for one wallet (or its positions' stream): about 1.6 KB each in
memory, so 160 MB at most; beyond it the flows are FLOWS_UNAVAILABLE, never a request that
exhausts the service."""
BUCKET = 1 << 18
"""Blocks a wallet stream's start is rounded down to (about a month of Ethereum's)."""
NO_ONE = "0x" + "00" * 32
"""The zero address as an indexed topic: a mint's sender, a burn's recipient."""

DEPOSIT = Event(
    "Deposit(address,address,uint256,uint256)", "0xdcbc1c05240f31ff3ad067ef1ee35ce4997762752e3a095284754544f4c709d7"
)
WITHDRAW = Event(
    "Withdraw(address,address,address,uint256,uint256)",
    "0xfbde797d201c681b91056529119e0b02407c7bb96a4a2c75c01fc9667232c8db",
)
"""ERC-4626's events: Deposit(sender, owner, assets, shares), Withdraw(sender, receiver, owner, assets, shares)."""


class Flow(NamedTuple):
    """One log's change to one leg of a position."""

    position: str
    """The leg's key (`Leg.key`, adapters/legs.py)."""
    kind: str
    block: int
    log_index: int
    transaction: str
    asset: str
    amount: int
    """The change to the leg's amount in raw units of `asset`, signed: a deposit adds, a withdrawal
    takes out; a borrow adds to a debt, a repayment takes from it."""


class TooManyLogs(ProtocolError):
    """More logs stored for a wallet than one request reads (MAX_LOGS)."""


@dataclass
class WalletLogs:
    """The wallet's logs over a series' range (blocks `first` to `last`, the context's block), and
    whether the index could give every log asked over it (False while a long range is still being
    scanned)."""

    first: int
    last: int
    logs: list[Log]
    complete: bool = True
    unavailable: dict[str, str] = field(default_factory=dict)
    """Legs, or positions (a leg's key less its last part), whose flows a protocol could not
    derive (key -> why): the series names them in FLOWS_UNAVAILABLE and leaves their earnings
    out, never a figure without their flows."""

    def __iter__(self) -> Iterator[Log]:
        return iter(self.logs)

    async def more(self, ctx: FetchContext[Any], prefix: str, make: Callable[[int], Stream]) -> list[Log] | None:
        """Another stream's logs over the same range, for events that do not name the wallet
        (Uniswap's, by token id): `make(start)` builds it, `prefix` names its versions. None where
        it holds more than one request reads (MAX_LOGS): the caller names the legs it serves."""
        try:
            logs, complete = await stream_logs(ctx, prefix, make, self.first, self.last)
        except TooManyLogs:
            return None
        self.complete = self.complete and complete
        return logs


FlowFunction = Callable[[FetchContext[Any], str, WalletLogs, Mapping[str, str]], Awaitable[list[Flow]]]
"""(context at the range's last block, wallet, the wallet's logs in the range, the legs the points
hold: key -> asset) -> the flows of the protocol's positions, in chain order."""


def topic(address: str) -> str:
    """An address as an indexed topic."""
    return "0x" + "00" * 12 + address[2:].lower()


def address_of(word: str) -> str:
    return "0x" + word[-40:]


def wallet_stream(wallet: str, start: int) -> Stream:
    """Every contract's logs that name `wallet` in an indexed topic, from `start`."""
    named = topic(wallet)
    return Stream(
        f"{WALLET_STREAMS}{wallet.lower()}-{start}",
        (),
        (),
        start,
        log_rows,
        filters=((None, named), (None, None, named), (None, None, None, named)),
    )


def log_rows(log: Log) -> Rows:
    """A log stored whole, keyed by its place in the chain."""
    value = json.dumps([log.address, list(log.topics), log.data.hex(), log.transaction_hash]).encode()
    return [Entry("log", f"{log.block_number:012d}.{log.log_index:06d}", value, log.block_number)]


def _log(entry: Entry) -> Log:
    address, topics, data, transaction = json.loads(entry.value)
    _, index = entry.key.split(".")  # log_rows' key: block.logIndex
    return Log(address, tuple(topics), bytes.fromhex(data), entry.block, int(index), transaction)


async def wallet_logs(ctx: FetchContext[Any], wallet: str, first: int, last: int) -> WalletLogs:
    """The wallet's logs of blocks first..last (the context's block is `last`)."""
    prefix = f"{WALLET_STREAMS}{wallet.lower()}-"
    logs, complete = await stream_logs(ctx, prefix, lambda start: wallet_stream(wallet, start), first, last)
    return WalletLogs(first, last, logs, complete)


async def stream_logs(
    ctx: FetchContext[Any], prefix: str, make: Callable[[int], Stream], first: int, last: int
) -> tuple[list[Log], bool]:
    """The logs of blocks first..last of the stream `make(start)` builds (its rows are `log_rows`,
    its start `started`'s); and whether the index could give them all."""
    index = ctx.indexes.store(ctx.chain_id)
    stream = await started(ctx, prefix, make, first)
    if await index.count(stream.name) <= MAX_LOGS:  # the stored part counted before it is read, the tail after
        view = await ctx.events(stream)
        if len(entries := view.of("log")) <= MAX_LOGS:
            return [_log(entry) for entry in entries if first <= entry.block <= last], view.complete
    raise TooManyLogs(f"more logs name the wallet than the {MAX_LOGS:,} one request reads")


async def started(ctx: FetchContext[Any], prefix: str, make: Callable[[int], Stream], first: int) -> Stream:
    """The stream `make(start)` that serves a range from `first`: from the newest start of one
    stored (names `prefix` + start) at or before `first` (the least to read), else from `first`
    rounded down to BUCKET, so that nearby ranges share one."""
    starts = [start for _, start, _ in await ctx.indexes.store(ctx.chain_id).covered(prefix) if start <= first]
    return make(max(starts, default=first // BUCKET * BUCKET))


async def share_flows(ctx: FetchContext[Any], wallet: str, logs: WalletLogs, legs: Mapping[str, str]) -> list[Flow]:
    """The flows of the share tokens among `legs` (a vault's address -> its asset)."""
    named = topic(wallet)
    found: list[Flow | Awaitable[Flow]] = []
    for log in logs:
        asset = legs.get(log.address)
        if asset is None or not log.topics:
            continue
        at = (log.block_number, log.log_index, log.transaction_hash)
        if asset == log.address:
            found += own_transfers(log, named)
        elif log.signature == DEPOSIT.topic and log.topics[2:3] == (named,):
            assets, _ = decode(("uint256", "uint256"), log.data)
            found.append(Flow(log.address, "deposit", *at, asset, assets))
        elif log.signature == WITHDRAW.topic and log.topics[3:4] == (named,):
            assets, _ = decode(("uint256", "uint256"), log.data)
            found.append(Flow(log.address, "withdraw", *at, asset, -assets))
        elif (moved := transferred(log, named)) is not None and moved.kind in ("transfer-in", "transfer-out"):
            found.append(_valued_shares(ctx, log, moved.kind, at, asset, moved.amount))
    return list(await asyncio.gather(*(_ready(flow) for flow in found)))  # transfers valued side by side


async def vault_assets(ctx: FetchContext[Any], logs: WalletLogs, vaults: list[str], label: str) -> dict[str, str]:
    """The `asset()` of vaults no point holds (entered and left between them), read at the range's
    last block, by vault; one unreadable is named not derived (`logs.unavailable`) and left out."""
    reader = ctx.reader()
    found = await asyncio.gather(*(outcome(reader.call(vault, ASSET, label=f"{label} {vault}")) for vault in vaults))
    assets = {}
    for vault, asset in zip(vaults, found):
        if isinstance(asset, ProtocolError):
            logs.unavailable[vault] = f"its asset() is unreadable: {asset.message}"
        else:
            (address,) = asset
            assets[vault] = str(address).lower()
    return assets


async def _ready(flow: Flow | Awaitable[Flow]) -> Flow:
    return flow if isinstance(flow, Flow) else await flow


class Moved(NamedTuple):
    """An ERC-20 `Transfer` of the wallet's: its kind, the amount signed for the wallet, and the
    other side (a topic)."""

    kind: str
    amount: int
    other: str


def transferred(log: Log, named: str) -> Moved | None:
    """The ERC-20 `Transfer` to or from the wallet (`named`, a topic) that `log` is, if any (not
    one to itself): a mint or burn where the other side is the zero address."""
    if len(log.topics) != 3 or log.signature != TRANSFER.topic or len(log.data) != 32:
        return None  # not an ERC-20 Transfer: anyone may emit a malformed one naming the wallet
    _, source, target = log.topics
    if (source == named) == (target == named):
        return None
    (amount,) = decode(("uint256",), log.data)
    if target == named:
        return Moved("mint" if source == NO_ONE else "transfer-in", amount, source)
    return Moved("burn" if target == NO_ONE else "transfer-out", -amount, target)


def own_transfers(log: Log, named: str) -> list[Flow]:
    """A token followed in its own units: a transfer to or from the wallet (mints and burns too)."""
    moved = transferred(log, named)
    if moved is None:
        return []
    return [
        Flow(log.address, moved.kind, log.block_number, log.log_index, log.transaction_hash, log.address, moved.amount)
    ]


async def _valued_shares(
    ctx: FetchContext[Any], log: Log, kind: str, at: tuple[int, int, str], asset: str, shares: int
) -> Flow:
    """Shares moved by a transfer, in assets at the transfer's block (its state after the block:
    the closest a read can name)."""
    reader = ctx.chains.reader(ctx.chain_id, log.block_number)
    (assets,) = await reader.call(log.address, CONVERT_TO_ASSETS, abs(shares))
    return Flow(log.address, kind, *at, asset, assets if shares > 0 else -assets)


FlowPrices = Callable[[FetchContext[Any], ChainReader, list[Flow]], Awaitable[dict[int, Fraction | None]]]
"""A protocol that values its positions by its own oracle values their flows by it too, so a PnL
never mixes two sources: (context, a reader at the flows' block, the flows of that block) -> for
the flows it values, by their index in that list, the USD per whole unit of the flow's asset there
(None: no price then); the others go by the chain's feeds."""


async def usd_values(
    ctx: FetchContext[Any], flows: list[Flow], own: FlowPrices | None
) -> tuple[list[float | None], dict[str, int]]:
    """Each flow's amount in USD at its block, by the protocol's own prices (`own`) or else the
    asset's feed read there (None where the asset has no trustworthy price then), and the decimals
    of each asset that has them (read at the range's last block: they never change)."""
    reader = ctx.reader()
    assets = sorted({flow.asset for flow in flows} - {NATIVE})  # the native coin has no contract: 18, known
    infos = await asyncio.gather(*(outcome(reader.call(asset, DECIMALS)) for asset in assets))
    known = {asset: int(info[0]) for asset, info in zip(assets, infos) if not isinstance(info, ProtocolError)}
    known.update({NATIVE: 18} if any(flow.asset == NATIVE for flow in flows) else {})
    by_block: dict[int, list[int]] = {}
    for at, flow in enumerate(flows):
        by_block.setdefault(flow.block, []).append(at)

    async def priced(block: int, indexes: list[int]) -> list[Fraction | None]:
        at, moved = ctx.chains.reader(ctx.chain_id, block), [flows[index] for index in indexes]
        valued = await own(ctx, at, moved) if own is not None else {}
        rest = [index for index in range(len(moved)) if index not in valued]
        feeds = await asyncio.gather(*(outcome(usd_price(at, ctx.chain, moved[index].asset)) for index in rest))
        for index, feed in zip(rest, feeds):
            valued[index] = Fraction(feed.answer, 10**feed.decimals) if isinstance(feed, UsdPrice) else None
        return [valued[index] for index in range(len(moved))]

    found = await asyncio.gather(*(priced(block, indexes) for block, indexes in by_block.items()))
    prices = {index: price for indexes, got in zip(by_block.values(), found) for index, price in zip(indexes, got)}
    values = []
    for index, flow in enumerate(flows):
        price, decimals = prices[index], known.get(flow.asset)
        values.append(None if price is None or decimals is None else float(flow.amount * price / 10**decimals))
    return values, known
