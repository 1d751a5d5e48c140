"""Balancer v2 and v3: the wallet's pool tokens (BPT) and gauge stakes with what they are worth, on-chain.

How each figure is derived (all at the request's pinned block; docs/protocols/balancer.md has the long form):

- Discovery through the event index (chain/event_index.py; the stream: contracts.py): every pool
  from the v2 Vault's `PoolRegistered` events (never a hand list; the pool's poolId with it) and,
  where the chain has Balancer v3, from the v3 Vault's `PoolRegistered` (the pool is its own BPT),
  every gauge from the gauge factories' `GaugeCreated`, and who may hold a pool's BPT or a gauge's
  stake from their Transfer logs. Those the wallet's logs name are asked for `balanceOf`; non-zero
  ones are held. Why logs and not a `balanceOf` of every pool: Ethereum's Vault has registered
  thousands of pools, so a sweep of them all would cost every query thousands of calls (more gas
  than some nodes allow an eth_call), where the index answers which few a wallet ever received
  from one lookup in its store. While the index is cold, every pool and gauge it has so far is
  swept in bulk instead, with a warning that later ones are not listed yet.
- A pool position: its state and the wallet's share of each token (shares.py: v2 the Vault's
  `getPoolTokens`, the pool's `getActualSupply` or `totalSupply`, balance x bpt / supply; v3 the
  v3 Vault's `getPoolTokenInfo`, `getCurrentLiveBalances`, `getPoolTokenRates` and
  `totalSupply(pool)`, as its proportional exit computes it).
- A gauge position: the gauge's `balanceOf(wallet)` (staked BPT, one gauge token per BPT) in its
  `lp_token()`'s pool (v2 or v3: v3 pools' gauges are the same gauges), valued as above; its
  claimables: BAL by `claimable_tokens(wallet)` (not a view: it checkpoints first, so it is read
  by eth_call, last in the lens) and, for each
  `reward_tokens(i)` below `reward_count()`, `claimable_reward(wallet, token)`, each priced by its
  token's USD feed. A gauge whose `lp_token` is not a pool of either Vault's is left out with a warning.
- All reads for the pools and gauges the stored index names go out at once in BalancerLens
  (lenses/, chain/lens.py), in the round that reads the index's tail.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.balancer.contracts import CLAIMABLE_REWARD, CLAIMABLE_TOKENS, LP_TOKEN, Catalog, stream
from adapters.balancer.section import BalancerAddresses
from adapters.balancer.shares import Reward, position, reward, reward_tokens, v2_pool, v3_pool
from adapters.balancer.shares import staked as staked_position
from adapters.context import FetchContext
from adapters.position_warnings import PART_UNREADABLE, Warnings
from adapters.prices import token_feeds
from adapters.sweep import balances, swept_balances
from addresses import ChainAddresses
from chain import ChainReader, first
from chain.lens import NONE, Lens
from errors import ProtocolError

LENS_PARTS = 8
"""Pools and gauges per BalancerLens call: a held gauge's records take up to about 2 KB of the tape."""
LENS = Lens(
    "BalancerLens",
    ("address", "address", "address[]", "bytes32[]", "address[]", "address[][2]", "address", "address", "address[]"),
)


async def index_probe(ctx: FetchContext[BalancerAddresses], account: str) -> bool:
    """Whether `fetch` may show the account anything: unless the complete index names no pool and
    no gauge it received tokens of."""
    view = await ctx.events(stream(ctx.section))
    if not view.complete:
        return True
    catalog = Catalog(view)
    return any(catalog.pool(key) or key in catalog.gauges for key in await view.keys(account))


async def fetch(ctx: FetchContext[BalancerAddresses], wallet: str) -> dict[str, Any]:
    chain = ctx.chain
    balancer = ctx.section
    reader = ctx.reader()
    events = stream(balancer)
    stored = await ctx.stored_events(events)
    _prefetch(reader, chain, balancer, Catalog(stored), await stored.keys(wallet), wallet)
    view = await ctx.events(events)
    catalog = Catalog(view)
    if view.complete:
        held = sorted(key for key in await view.keys(wallet) if catalog.pool(key) or key in catalog.gauges)
        found = await balances(reader, held, wallet, ctx.warnings, "Balancer token")
    else:
        everything = sorted({*catalog.pools, *catalog.v3_pools, *catalog.gauges})
        found = await swept_balances(reader, everything, wallet, ctx.warnings, "Balancer token")
        ctx.warnings.add(
            PART_UNREADABLE,
            "balancer",
            view.shortfall(ctx.chain_id, "pool and gauge"),
            retryable=True,
        )
    pools = sorted(token for token in found if catalog.pool(token))
    gauges = sorted(token for token in found if token in catalog.gauges and not catalog.pool(token))
    pool_answers, gauge_answers = await asyncio.gather(
        asyncio.gather(
            *(_pool(reader, chain, balancer, catalog, pool, found[pool], ctx.warnings) for pool in pools),
            return_exceptions=True,
        ),
        asyncio.gather(
            *(_gauge(reader, chain, balancer, catalog, gauge, found[gauge], wallet, ctx.warnings) for gauge in gauges),
            return_exceptions=True,
        ),
    )
    return {
        "poolPositions": ctx.warnings.survivors("pool", zip(pools, pool_answers)),
        "gaugePositions": ctx.warnings.survivors("gauge", zip(gauges, gauge_answers)),
    }


def _prefetch(
    reader: ChainReader,
    chain: ChainAddresses,
    balancer: BalancerAddresses,
    catalog: Catalog,
    held: set[str],
    wallet: str,
) -> None:
    """The reads of the pools and gauges the stored index says the wallet may hold, in lens calls
    of LENS_PARTS each that ride with the index's tail."""
    pools = sorted(key for key in held if key in catalog.pools)
    v3_pools = sorted(key for key in held if key in catalog.v3_pools)
    gauges = sorted(key for key in held if key in catalog.gauges and not catalog.pool(key))
    ids = [bytes.fromhex(catalog.pools[pool][2:]) for pool in pools]
    priced = token_feeds(chain)
    keys = [NONE if token == balancer.bal else token for token in priced]  # BAL, minted by gauges: always
    feeds = [feed.feed for feed in priced.values()]
    sequencer = chain.sequencer_uptime_feed or NONE
    vault = balancer.v2_vault.address
    v3_vault = balancer.v3_vault.address if balancer.v3_vault else NONE
    initcodes = [
        LENS.initcode(
            wallet,
            vault,
            pools[i : i + LENS_PARTS],
            ids[i : i + LENS_PARTS],
            gauges[i : i + LENS_PARTS],
            [keys, feeds],
            sequencer,
            v3_vault,
            v3_pools[i : i + LENS_PARTS],
        )
        for i in range(0, max(len(pools), len(v3_pools), len(gauges), 1), LENS_PARTS)
    ]
    reader.prefetch(initcodes, [vault, v3_vault, *pools, *v3_pools, *gauges, *feeds, sequencer])


async def _pool(
    reader: ChainReader,
    chain: ChainAddresses,
    balancer: BalancerAddresses,
    catalog: Catalog,
    pool: str,
    bpt: int,
    warnings: Warnings,
) -> dict[str, Any]:
    if pool in catalog.pools:
        state = await v2_pool(reader, balancer.v2_vault.address, pool, catalog.pools[pool])
    else:
        assert balancer.v3_vault is not None  # the index has v3 pools only where the chain has its Vault
        state = await v3_pool(reader, balancer.v3_vault.address, pool)
    return await position(reader, chain, state, bpt, warnings)


async def _gauge(
    reader: ChainReader,
    chain: ChainAddresses,
    balancer: BalancerAddresses,
    catalog: Catalog,
    gauge: str,
    staked: int,
    wallet: str,
    warnings: Warnings,
) -> dict[str, Any]:
    """A gauge stake: its pool share and what the gauge lets the wallet claim."""
    pool = str(await first(reader.call(gauge, LP_TOKEN, label=f"Balancer gauge {gauge}"))).lower()
    if not catalog.pool(pool):
        raise ProtocolError(f"its lp_token {pool} is not a pool of a Balancer Vault")
    share, rewards = await asyncio.gather(
        _pool(reader, chain, balancer, catalog, pool, staked, warnings),
        claimables(reader, chain, gauge, wallet, balancer.bal, warnings),
    )
    answers = [each.answer for each in rewards]
    return {
        "gauge": gauge,
        "position": share,
        "rewards": answers,
        **staked_position("BalancerGaugePosition", gauge.lower(), gauge, share, rewards),
    }


async def claimables(
    reader: ChainReader, chain: ChainAddresses, gauge: str, wallet: str, bal: str | None, warnings: Warnings
) -> list[Reward]:
    """BAL (`claimable_tokens`, where the chain's gauges mint it) and every reward token's
    `claimable_reward`, non-zero ones, each with its USD value."""
    label = f"Balancer gauge {gauge}"
    tokens = await reward_tokens(reader, gauge)
    owed = await asyncio.gather(
        *(first(reader.call(gauge, CLAIMABLE_REWARD, wallet, token, label=label)) for token in tokens),
        first(reader.call(gauge, CLAIMABLE_TOKENS, wallet, label=label)) if bal else _zero(),
    )
    pairs = [(str(token).lower(), amount) for token, amount in zip([*tokens, bal or NONE], owed) if amount]
    return list(
        await asyncio.gather(*(reward(reader, chain, token, amount, warnings, gauge) for token, amount in pairs))
    )


async def _zero() -> int:
    return 0
