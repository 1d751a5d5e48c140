"""adapters/history.py: the block at a time, found from timestamps, against a scan of every block of a chain
whose block times vary (1 s to 10 min); the growth compounded to a year."""

from __future__ import annotations

import asyncio
import random

import pytest

from adapters import history
from errors import ProtocolError
from tests.evm import CHAIN_ID, Anvil

SEGMENTS = ((40, 12), (25, 1), (60, 30), (10, 600), (80, 2), (30, 12), (5, 3600), (20, 12))
"""(blocks, seconds between them): regular stretches, bursts and gaps."""


@pytest.fixture(scope="module", params=[CHAIN_ID, 1], ids=["unknown-block-time", "12-s-nominal"])
def uneven(request):
    node = Anvil(chain_id=request.param)
    try:
        for count, interval in SEGMENTS:
            node.rpc("anvil_mine", hex(count), hex(interval))
        stamps = [
            int(node.rpc("eth_getBlockByNumber", hex(block), False)["timestamp"], 16)
            for block in range(node.block_number() + 1)
        ]
        yield node, stamps
    finally:
        node.stop()


@pytest.fixture(scope="module")
def steady():
    """A chain of Ethereum's id and 12 s slots, about one in a hundred missed (its block 24 s after
    the last), as Ethereum's blocks come."""
    node = Anvil(chain_id=1)
    try:
        rng = random.Random(1)
        while node.block_number() < 3000:
            node.rpc("anvil_mine", hex(rng.randint(50, 150)), hex(12))
            node.rpc("anvil_mine", "0x1", hex(24))
        yield (
            node,
            [
                int(header["timestamp"], 16)
                for header in node.rpc_batch(
                    [
                        {"jsonrpc": "2.0", "id": block, "method": "eth_getBlockByNumber", "params": [hex(block), False]}
                        for block in range(node.block_number() + 1)
                    ]
                )
                for header in [header["result"]]
            ],
        )
    finally:
        node.stop()


@pytest.mark.full("mines thousands of blocks")
async def test_without_a_hint_a_steady_chain_settles_the_block_a_period_back_in_two_header_rounds(steady, open_chains):
    """A fresh server (no block found before): the first round probes around the nominal block
    time's guess, the second reads the interpolated block with its neighbours, which holds it."""
    node, stamps = steady
    chains = await open_chains({1: node.url})
    for blocks_back in (300, 1000, 2500):
        chains.hints.clear()
        request = chains.request(asyncio.get_running_loop().time() + 30)
        reader = request.reader(1)
        await reader.block_number()
        before = request.stats.requests
        target = stamps[-1] - blocks_back * 12 + 5
        assert await history.block_at(reader, target) == scanned(stamps, target)
        assert request.stats.requests - before <= 2, blocks_back


def scanned(stamps: list[int], target: int) -> tuple[int, int] | None:
    blocks = [block for block, stamp in enumerate(stamps) if stamp <= target]
    return (blocks[-1], stamps[blocks[-1]]) if blocks else None


async def test_the_block_at_a_time_is_the_newest_not_after_it(uneven, open_chains):
    node, stamps = uneven
    rng = random.Random(7)
    targets = sorted(
        {
            stamps[0] - 1,
            stamps[-1] + 50,
            *(stamp + d for stamp in rng.sample(stamps, 60) for d in (-1, 0, 1)),
            *(rng.randint(stamps[0], stamps[-1]) for _ in range(60)),
        }
    )
    chains = await open_chains({node.chain_id: node.url})
    rounds = []
    for target in targets:
        request = chains.request(asyncio.get_running_loop().time() + 30)
        assert await history.block_at(request.reader(node.chain_id), target) == scanned(stamps, target), target
        rounds.append(request.stats.requests)
    assert max(rounds) <= 16, "each round narrows the bracket; halving bounds it"


async def test_a_moving_target_is_found_in_one_round_from_the_block_last_found(uneven, open_chains):
    """A week back from a head that moves on moves on at the chain's pace: the block last found,
    moved on at the block time, and the one after it settle it in one round at most (none where
    both headers are kept from an earlier search)."""
    node, stamps = uneven
    chains = await open_chains({node.chain_id: node.url})
    for block in range(3, 38):
        request = chains.request(asyncio.get_running_loop().time() + 30)
        reader = request.reader(node.chain_id)
        await reader.block_number()
        before = request.stats.requests
        assert await history.block_at(reader, stamps[block] + 5) == (block, stamps[block])
        assert block == 3 or request.stats.requests - before <= 1, block


def test_growth_is_compounded_over_a_year():
    assert history.compounded(110, 100, history.YEAR) == pytest.approx(0.1, rel=1e-12)
    assert history.compounded(1_001, 1_000, history.WEEK) == pytest.approx(1.001 ** (365 / 7) - 1, rel=1e-12)
    assert history.compounded(99, 100, history.YEAR) == pytest.approx(-0.01, rel=1e-12)
    assert history.compounded(5, 0, history.WEEK) is None and history.compounded(5, 4, 0) is None
    with pytest.raises(ProtocolError, match="too large to be an APY"):
        history.compounded(10**24, 10**8, history.WEEK)


def test_dates_past_the_year_9999_are_null():
    assert history.iso_date(0) == "1970-01-01T00:00:00Z"
    assert history.iso_date(history.MAX_ISO_TIMESTAMP) == "9999-12-31T23:59:59Z"
    assert history.iso_date(2**104 - 1) is None
