"""A wallet's flows in Balancer v2 and v3 for `positionsHistory` (docs/protocols/balancer.md), from
its logs (adapters/flows.py), keyed as its positions' legs: a pool's tokens `<pool>:<token>`, a
gauge stake's `<gauge>:<token>`, a gauge's rewards `<gauge>:<token>:reward`.

- BPT: every Transfer of a pool's BPT (a pool of the index's catalog: the v2 Vault's and the v3
  Vault's `PoolRegistered`) to or from the wallet. A mint is a `join`, a burn an `exit` (v2: the
  Vault's joinPool / exitPool; v3: its addLiquidity / removeLiquidity, the BPT minted and burnt
  by the Vault through the pool), a transfer to or from a gauge of the catalog a `stake` or
  `unstake`, any other a `transfer-in` / `transfer-out` (an Aura deposit is one: Aura's flows
  take it in).
- Gauge stakes: every Transfer of a gauge's own token (LiquidityGaugeV5 and ChildChainGauge mint
  it on `deposit` and burn it on `withdraw`, beside their `Deposit` / `Withdraw(provider, value)`)
  to or from the wallet: `stake`, `unstake`, `transfer-in`, `transfer-out`, in its `lp_token()`'s pool.
- Each BPT amount is valued as the position values it (shares.py `bpt_flows`): what it pays of
  each token in a proportional exit at the move's block. The tokens a join paid or an exit
  returned (the v2 Vault's `PoolBalanceChanged` deltas, the v3 Vault's `LiquidityAdded` /
  `LiquidityRemoved` amounts) are not read: they differ from the share the BPT is by the join's
  price impact, which the position never shows.
- Rewards claimed: a gauge's `claim_rewards` pays each reward token by a plain transfer (the
  published gauges emit no event of their own for it), so a Transfer of a token to the wallet
  from a gauge of the catalog is a `claim` out of `<gauge>:<token>:reward`. BAL: the Minter's
  `Minted(recipient, gauge, minted)` names the recipient's TOTAL minted from the gauge (its
  `_updateGauge`), so the claim is that total less its `minted(recipient, gauge)` before (the
  same gauge's previous `Minted` in the block, else the view at the block before), counted only
  where the transaction pays the wallet BAL (a look-alike event pays nothing).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import NamedTuple

from adapters.balancer.contracts import LP_TOKEN, MINTED, MINTED_SO_FAR, Catalog, stream
from adapters.balancer.section import BalancerAddresses
from adapters.balancer.shares import BptMove, bpt_flows
from adapters.context import FetchContext
from adapters.flows import Flow, WalletLogs, address_of, topic, transferred
from adapters.position_warnings import outcome
from chain import Log, first
from chain.abi import decode
from errors import ProtocolError

KINDS = {"mint": "join", "burn": "exit"}
"""The kind of a BPT move by its `transferred` kind (a mint by the Vault's join, a burn by its exit)."""
STAKES = {"mint": "stake", "burn": "unstake"}
"""The kind of a gauge token's move (the gauge mints it on deposit, burns it on withdraw)."""


async def flows(
    ctx: FetchContext[BalancerAddresses], wallet: str, logs: WalletLogs, legs: Mapping[str, str]
) -> list[Flow]:
    balancer, named = ctx.section, topic(wallet)
    view = await ctx.events(stream(balancer))
    logs.complete = logs.complete and view.complete  # a pool or gauge not listed yet: ask again
    catalog = Catalog(view)
    gauges = sorted({log.address for log in logs if log.address in catalog.gauges})
    pools = await asyncio.gather(*(outcome(_lp_token(ctx, gauge)) for gauge in gauges))
    pool_of = {}
    for gauge, pool in zip(gauges, pools):
        if isinstance(pool, ProtocolError) or not catalog.pool(pool):
            why = pool.message if isinstance(pool, ProtocolError) else f"its lp_token {pool} is not a Balancer pool"
            logs.unavailable[gauge] = why
        else:
            pool_of[gauge] = pool
    moves, claims = [], []
    for log in logs:
        moved = transferred(log, named)
        if moved is None:
            if balancer.bal and log.signature == MINTED.topic and log.topics[1:2] == (named,) and len(log.data) == 64:
                claims.append(log)
            continue
        other = address_of(moved.other)
        if catalog.pool(log.address):
            kind = KINDS.get(moved.kind) or _staking(moved.kind, other in catalog.gauges)
            moves.append(BptMove(log.address, log.address, kind, log, moved.amount))
        elif log.address in pool_of:
            moves.append(
                BptMove(log.address, pool_of[log.address], STAKES.get(moved.kind, moved.kind), log, moved.amount)
            )
    valued, minted = await asyncio.gather(bpt_flows(ctx, balancer, moves, logs), _minted(ctx, wallet, claims, logs))
    return sorted([*valued, *_rewards(logs, named, catalog), *minted], key=lambda flow: flow[2:4])


def _staking(kind: str, gauge: bool) -> str:
    """BPT sent to a gauge is a stake, BPT from one an unstake; any other transfer is itself."""
    if not gauge:
        return kind
    return "stake" if kind == "transfer-out" else "unstake"


async def _lp_token(ctx: FetchContext[BalancerAddresses], gauge: str) -> str:
    return str(await first(ctx.reader().call(gauge, LP_TOKEN, label=f"Balancer gauge {gauge}"))).lower()


def _rewards(logs: WalletLogs, named: str, catalog: Catalog) -> list[Flow]:
    """A token a gauge transferred to the wallet, other than its pool's BPT: a claimed reward."""
    found = []
    for log in logs:
        moved = transferred(log, named)
        if moved is None or moved.kind != "transfer-in" or catalog.pool(log.address):
            continue
        gauge = address_of(moved.other)
        if gauge in catalog.gauges:
            at = (log.block_number, log.log_index, log.transaction_hash)
            found.append(Flow(f"{gauge}:{log.address}:reward", "claim", *at, log.address, -moved.amount))
    return found


async def _minted(ctx: FetchContext[BalancerAddresses], wallet: str, claims: list[Log], logs: WalletLogs) -> list[Flow]:
    """BAL claimed: each `Minted`'s total less the total before it, where its transaction paid the
    wallet BAL."""
    bal, named = ctx.section.bal, topic(wallet)
    assert bal is not None  # claims are gathered only where the chain's BAL is known
    paid = {log.transaction_hash for log in logs if log.address == bal and _received(log, named)}
    claims = [log for log in claims if log.transaction_hash in paid]
    before: dict[Minting, int] = {}
    for log in claims:
        before.setdefault(_minting(log), -1)
    reads = list(before)
    found = await asyncio.gather(*(outcome(_minted_before(ctx, wallet, key)) for key in reads))
    for key, total in zip(reads, found):
        if isinstance(total, ProtocolError):
            logs.unavailable[key.gauge] = f"the Minter {key.minter}'s minted at block {key.block - 1}: {total.message}"
        else:
            before[key] = total
    flows = []
    for log in claims:
        key, (_, total) = _minting(log), decode(("address", "uint256"), log.data)
        if before[key] < 0:
            continue
        at = (log.block_number, log.log_index, log.transaction_hash)
        flows.append(Flow(f"{key.gauge}:{bal}:reward", "claim", *at, bal, -(total - before[key])))
        before[key] = total  # the next Minted of the gauge in the block counts from this one
    return flows


class Minting(NamedTuple):
    """A Minter's mints of a gauge's BAL in a block."""

    minter: str
    gauge: str
    block: int


def _minting(log: Log) -> Minting:
    gauge, _ = decode(("address", "uint256"), log.data)
    return Minting(log.address, str(gauge).lower(), log.block_number)


def _received(log: Log, named: str) -> bool:
    moved = transferred(log, named)
    return moved is not None and moved.amount > 0


async def _minted_before(ctx: FetchContext[BalancerAddresses], wallet: str, key: Minting) -> int:
    reader = ctx.chains.reader(ctx.chain_id, key.block - 1)
    label = f"Balancer Minter {key.minter}"
    return int(await first(reader.call(key.minter, MINTED_SO_FAR, wallet, key.gauge, label=label)))
