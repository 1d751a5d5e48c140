"""Every entry's `usdPrices` lists exactly the feed prices its figures were made of, for every
protocol of the registry: on one chain holding every test world (tests/all_worlds.py), each demo
wallet's input of each protocol (and each pool of tests/test_past_blocks.py) is asked on its own
while the server's reads are watched; the feeds of the addresses data whose `latestRoundData` was
read at the entry's block are the prices its USD figures used, and must be the feeds listed.

An entry stating no USD figure (an empty wallet's: Comet reads its currency's price for every
wallet) lists none: no figure used the price read."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import server
from adapters.prices import LATEST_ROUND_DATA, states_usd
from chain.reader import ChainReader
from tests.conftest import served_fixture
from tests.test_past_blocks import POOLS, Service, pool_inputs
from tests.test_rounds import query

worlds = served_fixture("usd-prices")
POOL_PRICES = POOLS.replace("data warnings", "data usdPrices { feed } warnings")


def named_feeds(value: Any) -> set[str]:
    """Every feed the addresses data names (priceFeeds, currencyFeeds, a Midas token's own): an
    object with a feed and its heartbeat."""
    if isinstance(value, list):
        return set().union(*map(named_feeds, value))
    if not isinstance(value, dict):
        return set()
    own = {value["feed"].lower()} if {"feed", "heartbeat"} <= value.keys() else set()
    return own.union(*map(named_feeds, value.values()))


@pytest.fixture(scope="module")
def compared(worlds: Any) -> dict[str, tuple[set[str], set[str]]]:
    """{input: (feeds read at its entries' block, feeds its entries list)}, each input asked alone."""
    built, folder, key = worlds
    feeds = named_feeds(built.addresses)
    reads: list[tuple[int, str]] = []
    call = ChainReader.call

    async def watched(self: ChainReader, target: str, function: Any, *args: Any, label: str | None = None) -> Any:
        result = await call(self, target, function, *args, label=label)
        if function == LATEST_ROUND_DATA and target.lower() in feeds:
            reads.append((await self.block_number(probed=False), target.lower()))
        return result

    async def run() -> dict[str, tuple[set[str], set[str]]]:
        found: dict[str, tuple[set[str], set[str]]] = {}
        async with Service(folder, key, built.node, state="usd-prices", rate_limit=10**6) as service:
            asked = [
                (
                    f"{name} ({role})",
                    query([{"protocol": name}]),
                    {"protocol": name, "chainId": built.node.chain_id, "walletAddress": wallet},
                )
                for name, protocol in service.app[server.REGISTRY].items()
                if built.node.chain_id in protocol.chains
                for role, wallet in built.wallets.items()
            ]
            asked += [(f"{one['protocol']} pool", POOL_PRICES, one) for one in pool_inputs(built)]
            for name, text, one in asked:
                reads.clear()
                answer = await service.ask(text, [one])
                assert not answer["errors"], (name, answer["errors"])
                blocks = {entry["blockNumber"] for entry in answer["data"]}
                read = {feed for block, feed in reads if block in blocks}
                if not any(  # `totals` are sums of the figures: 0 where there is none
                    states_usd(json.loads(entry["data"]) if "poolAddress" in entry else {**entry, "totals": None})
                    for entry in answer["data"]
                ):
                    read = set()
                listed = {price["feed"] for entry in answer["data"] for price in entry["usdPrices"]}
                found[name] = (read, listed)
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ChainReader, "call", watched)
        return asyncio.run(run())


def test_every_entry_lists_the_feed_prices_its_figures_read(compared: dict[str, tuple[set[str], set[str]]]) -> None:
    unlisted = {name: read - listed for name, (read, listed) in compared.items() if read - listed}
    unread = {name: listed - read for name, (read, listed) in compared.items() if listed - read}
    assert (unlisted, unread) == ({}, {})
    assert sum(bool(read) for read, _ in compared.values()) >= 20, "most inputs read some price"
