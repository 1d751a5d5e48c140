"""A wallet's flows in EigenLayer (docs/protocols/eigenlayer.md, "Flows and earnings"), keyed as
positions.py keys its legs and valued as they are: a strategy's shares in its token by its
`sharesToUnderlyingView` at the flow's block (the state after it), beacon chain ETH shares in wei.

- A restaked strategy (`<strategy>`): the StrategyManager's `Deposit` adds its shares (`deposit`;
  `redeposited` where a withdrawal completed earlier in the transaction adds its shares back); a
  withdrawal queued takes out what it queued (`queued`).
- A queued withdrawal's leg (`<withdrawalRoot>:<strategy>`): the DelegationManager's
  `SlashingWithdrawalQueued` adds each strategy's `sharesToWithdraw` (`queued`), the shares the
  restaked leg (the pod's, for beacon chain ETH) gives up; `SlashingWithdrawalCompleted` takes out
  what it paid (`completed`): `getQueuedWithdrawal(root)` at the block before, where its slashable
  window is over (a completion requires it), so those shares are final.
- The EigenPod (`<pod>:restaked`): the wallet's `PodSharesUpdated` adds a positive delta
  (`restaked`: a validator's balance restaked; `redeposited`: a completion's shares added back),
  but not one a checkpoint made (the pod's `CheckpointFinalized` just before it): the validators'
  rewards are what the pod earned.
- Slashing is no flow: an operator slashed, or a beacon chain balance that fell, lowers the legs'
  withdrawable shares, a negative earned.

Neither `Deposit` nor the withdrawal events index the staker (contracts.INDEXED), so the wallet's
log stream does not hold them. `stakers` is an event-index stream of them over the whole chain,
read once for every wallet: each event a holding of its staker (a completion, which names only its
root, of that root), its figures in the key, so that a wallet's are one lookup in the store.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from adapters.context import FetchContext
from adapters.eigenlayer.contracts import (
    BEACON_CHAIN_ETH,
    CHECKPOINT_FINALIZED,
    DEPOSIT,
    OWNER_TO_POD,
    POD_SHARES_UPDATED,
    QUEUED_WITHDRAWAL,
    WITHDRAWAL,
    WITHDRAWAL_COMPLETED,
    WITHDRAWAL_QUEUED,
)
from adapters.eigenlayer.section import EigenlayerAddresses
from adapters.eigenlayer.shares import in_underlying, underlying
from adapters.flows import MAX_LOGS, Flow, TooManyLogs, WalletLogs, started, topic
from adapters.position_warnings import outcome
from chain import Log
from chain.abi import AbiError, decode
from chain.erc20 import NATIVE
from chain.event_index import Stream, View
from chain.index_store import Holding, Rows
from errors import ProtocolError

PREFIX = "eigenlayer-stakers "
DEPOSITED, QUEUED, COMPLETED, REDEPOSITED, RESTAKED = "deposit", "queued", "completed", "redeposited", "restaked"
ROOT = re.compile(r"0x[0-9a-f]{64}")
LABEL = "EigenLayer DelegationManager"


class Row(NamedTuple):
    """One event of `stakers`, as its holding's key spells it (block, log index and part first,
    zero-padded: keys sort in chain order)."""

    block: int
    log_index: int
    part: int
    """A queued withdrawal's strategy, by its place in the withdrawal."""
    kind: str
    root: str
    strategy: str
    shares: int
    transaction: str

    @property
    def key(self) -> str:
        at = f"{self.block:012d}.{self.log_index:06d}.{self.part:03d}"
        return f"{at} {self.kind} {self.root} {self.strategy} {self.shares} {self.transaction}"

    @classmethod
    def parse(cls, key: str) -> Row:
        at, kind, root, strategy, shares, transaction = key.split(" ")
        block, log_index, part = at.split(".")
        return cls(int(block), int(log_index), int(part), kind, root, strategy, int(shares), transaction)


def stakers(eigen: EigenlayerAddresses, start: int) -> Stream:
    """From `start`, the StrategyManager's `Deposit`s and the DelegationManager's
    `SlashingWithdrawalQueued` (a row per strategy) as holdings of their staker, and its
    `SlashingWithdrawalCompleted` as a holding of its withdrawal root."""
    manager, delegation = eigen.strategy_manager.lower(), eigen.delegation_manager.lower()

    def rows(log: Log) -> Rows:
        try:
            return _rows(log, manager, delegation)
        except AbiError:  # not the layout of EigenLayer's events: nothing to follow
            return []

    topics = (DEPOSIT.topic, WITHDRAWAL_QUEUED.topic, WITHDRAWAL_COMPLETED.topic)
    return Stream(f"{PREFIX}{delegation}-{start}", (manager, delegation), topics, start, rows)


def _rows(log: Log, manager: str, delegation: str) -> Rows:
    at, block = (log.block_number, log.log_index), log.block_number
    if log.address == manager and log.signature == DEPOSIT.topic:
        deposit: Any = decode(("address staker", "address strategy", "uint256 shares"), log.data)
        row = Row(*at, 0, DEPOSITED, "-", deposit.strategy, deposit.shares, log.transaction_hash)
        return [Holding(deposit.staker, row.key, block)]
    if log.address == delegation and log.signature == WITHDRAWAL_QUEUED.topic:
        queued: Any = decode(("bytes32 root", f"{WITHDRAWAL} withdrawal", "uint256[] shares"), log.data)
        root, legs = "0x" + queued.root.hex(), zip(queued.withdrawal.strategies, queued.shares)
        return [
            Holding(
                queued.withdrawal.staker,
                Row(*at, part, QUEUED, root, strategy, shares, log.transaction_hash).key,
                block,
            )
            for part, (strategy, shares) in enumerate(legs)
        ]
    if log.address == delegation and log.signature == WITHDRAWAL_COMPLETED.topic:
        (done,) = decode(("bytes32",), log.data)
        root = "0x" + done.hex()
        return [Holding(root, Row(*at, 0, COMPLETED, root, "-", 0, log.transaction_hash).key, block)]
    return []


class Move(NamedTuple):
    """A flow in shares, before it is valued in the strategy's token."""

    position: str
    kind: str
    block: int
    log_index: int
    transaction: str
    strategy: str
    shares: int
    """Signed: added to the leg, or taken out."""


async def flows(
    ctx: FetchContext[EigenlayerAddresses], wallet: str, logs: WalletLogs, legs: Mapping[str, str]
) -> list[Flow]:
    eigen = ctx.section
    prefix = f"{PREFIX}{eigen.delegation_manager.lower()}-"
    view = await ctx.events(await started(ctx, prefix, lambda start: stakers(eigen, start), logs.first))
    logs.complete = logs.complete and view.complete
    mine = _in_range(await view.keys(wallet), logs)
    roots = sorted({row.root for row in mine if row.kind == QUEUED} | _held(legs))
    completed = _in_range(await _completions(view, roots), logs)
    named, manager = topic(wallet), eigen.eigen_pod_manager.lower()
    updates = [
        log
        for log in logs
        if log.address == manager and log.signature == POD_SHARES_UPDATED.topic and log.topics[1:2] == (named,)
    ]
    beacon = bool(updates) or any(row.strategy == BEACON_CHAIN_ETH for row in mine)
    pod, paid = await asyncio.gather(
        _pod(ctx, wallet) if beacon else _none(),
        asyncio.gather(*(outcome(_paid(ctx, row)) for row in completed)),
    )
    returned = _returned(completed, paid)
    moves = [*_moves(mine, returned, f"{pod}:restaked"), *_completed(completed, paid, logs)]
    valued, restaked = await asyncio.gather(_valued(ctx, moves, logs), _restaked(ctx, pod, updates, returned))
    return sorted([*valued, *restaked], key=lambda flow: flow[2:4])


def _in_range(keys: set[str], logs: WalletLogs) -> list[Row]:
    """The rows of `keys` in the series' blocks, in chain order."""
    if len(keys) > MAX_LOGS:
        raise TooManyLogs(f"more EigenLayer events name the wallet than the {MAX_LOGS:,} one request reads")
    return [row for row in map(Row.parse, sorted(keys)) if logs.first <= row.block <= logs.last]


def _held(legs: Mapping[str, str]) -> set[str]:
    """The withdrawals the points hold (their legs' keys are `<withdrawalRoot>:<strategy>`)."""
    found = set()
    for key in legs:
        root, _, _ = key.partition(":")
        if ROOT.fullmatch(root):
            found.add(root)
    return found


async def _completions(view: View, roots: list[str]) -> set[str]:
    """The completions of the withdrawals `roots` names, as rows' keys."""
    return {key for keys in (await view.holding(roots)).values() for key in keys} if roots else set()


async def _none() -> str:
    return ""


async def _pod(ctx: FetchContext[EigenlayerAddresses], wallet: str) -> str:
    """The wallet's EigenPod at the series' last block (a pod is never removed)."""
    (pod,) = await ctx.reader().call(
        ctx.section.eigen_pod_manager, OWNER_TO_POD, wallet, label="EigenLayer EigenPodManager"
    )
    return str(pod).lower()


class Paid(NamedTuple):
    """What a completed withdrawal paid: its strategies and the shares of each."""

    strategies: list[str]
    shares: list[int]


async def _paid(ctx: FetchContext[EigenlayerAddresses], row: Row) -> Paid:
    """A completed withdrawal's strategies and the shares it paid, read at the block before."""
    before = ctx.chains.reader(ctx.chain_id, row.block - 1)
    root = bytes.fromhex(row.root.removeprefix("0x"))
    found: Any = await before.call(ctx.section.delegation_manager, QUEUED_WITHDRAWAL, root, label=LABEL)
    return Paid([strategy.lower() for strategy in found.withdrawal.strategies], list(found.shares))


Returned = Mapping[str, list[tuple[int, list[str]]]]
"""Per transaction, the wallet's withdrawals completed in it: each completion's log index and the
strategies it paid."""


def _returned(completed: list[Row], paid: list[Paid | ProtocolError]) -> Returned:
    found: dict[str, list[tuple[int, list[str]]]] = {}
    for row, got in zip(completed, paid):
        strategies = [] if isinstance(got, ProtocolError) else got.strategies
        found.setdefault(row.transaction, []).append((row.log_index, strategies))
    return found


def _redeposited(returned: Returned, transaction: str, log_index: int, strategy: str) -> bool:
    """Whether shares of `strategy` added at the log are a withdrawal's the wallet completed
    earlier in the transaction, received as shares (EigenLayer adds them after the completion's event)."""
    return any(index < log_index and strategy in paid for index, paid in returned.get(transaction, ()))


def _moves(mine: list[Row], returned: Returned, pod_leg: str) -> list[Move]:
    """The wallet's deposits and queued withdrawals (a withdrawal's strategy: out of the restaked
    leg, into its own)."""
    moves = []
    for row in mine:
        at = (row.block, row.log_index, row.transaction)
        if row.kind == DEPOSITED:
            again = _redeposited(returned, row.transaction, row.log_index, row.strategy)
            moves.append(Move(row.strategy, REDEPOSITED if again else DEPOSITED, *at, row.strategy, row.shares))
        elif row.kind == QUEUED:
            restaked = pod_leg if row.strategy == BEACON_CHAIN_ETH else row.strategy
            moves.append(Move(restaked, QUEUED, *at, row.strategy, -row.shares))
            moves.append(Move(f"{row.root}:{row.strategy}", QUEUED, *at, row.strategy, row.shares))
    return moves


def _completed(completed: list[Row], paid: list[Paid | ProtocolError], logs: WalletLogs) -> list[Move]:
    """Each completion takes out of its withdrawal's legs the shares it paid; one whose withdrawal
    cannot be read names the withdrawal unavailable."""
    moves = []
    for row, found in zip(completed, paid):
        if isinstance(found, ProtocolError) or not found.strategies:
            why = found.message if isinstance(found, ProtocolError) else "no such withdrawal queued"
            logs.unavailable[row.root] = f"the DelegationManager's getQueuedWithdrawal at block {row.block - 1}: {why}"
            continue
        at = (row.block, row.log_index, row.transaction)
        pairs = zip(found.strategies, found.shares)
        moves += [
            Move(f"{row.root}:{strategy}", COMPLETED, *at, strategy, -shares) for strategy, shares in pairs if shares
        ]
    return moves


async def _valued(ctx: FetchContext[EigenlayerAddresses], moves: list[Move], logs: WalletLogs) -> list[Flow]:
    """The moves in their strategies' tokens, each at its block; a strategy whose views fail names
    the legs it moved unavailable (a node's failure fails the series)."""
    reader, strategies = ctx.reader(), sorted({move.strategy for move in moves})
    tokens, amounts = await asyncio.gather(
        asyncio.gather(*(outcome(underlying(reader, strategy)) for strategy in strategies)),
        asyncio.gather(
            *(
                outcome(in_underlying(ctx.chains.reader(ctx.chain_id, move.block), move.strategy, abs(move.shares)))
                for move in moves
            )
        ),
    )
    token_of = dict(zip(strategies, tokens))
    found = []
    for move, amount in zip(moves, amounts):
        token, where = token_of[move.strategy], f"strategy {move.strategy}"
        if isinstance(token, ProtocolError):
            logs.unavailable[move.position] = f"{where}'s underlyingToken: {token.message}"
        elif isinstance(amount, ProtocolError):
            logs.unavailable[move.position] = (
                f"{where}'s sharesToUnderlyingView at block {move.block}: {amount.message}"
            )
        else:
            at = (move.block, move.log_index, move.transaction)
            found.append(Flow(move.position, move.kind, *at, token, amount if move.shares > 0 else -amount))
    return found


async def _restaked(
    ctx: FetchContext[EigenlayerAddresses], pod: str, updates: list[Log], returned: Returned
) -> list[Flow]:
    """The pod's beacon chain ETH shares the wallet's `PodSharesUpdated` added, in wei, but for
    those a checkpoint made (its pod's `CheckpointFinalized` the log before: earned, not brought in)."""
    checkpoints = await asyncio.gather(
        *(
            ctx.chains.reader(ctx.chain_id, block).get_logs(pod, [[CHECKPOINT_FINALIZED.topic]], block, block)
            for block in sorted({log.block_number for log in updates})
        )
    )
    earned = {(log.transaction_hash, log.log_index + 1) for found in checkpoints for log in found}
    flows = []
    for log in updates:
        (delta,) = decode(("int256",), log.data)
        if delta <= 0 or (log.transaction_hash, log.log_index) in earned:
            continue  # a balance that fell lowers the slashing factor: no flow (before the slashing release, a loss)
        again = _redeposited(returned, log.transaction_hash, log.log_index, BEACON_CHAIN_ETH)
        kind = REDEPOSITED if again else RESTAKED
        at = (log.block_number, log.log_index, log.transaction_hash)
        flows.append(Flow(f"{pod}:restaked", kind, *at, NATIVE, delta))
    return flows
