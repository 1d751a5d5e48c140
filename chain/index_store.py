"""What the event index stores and how a store is asked (chain/event_index.py drives it): rows of
two kinds, per stream and chain, with the stream's progress and the block hashes that tie it to
the chain. Two stores keep them: one SQLite file per chain (index_sqlite.py, the default, for one
process) and one PostgreSQL database every replica shares (index_postgres.py, `INDEX_URL`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True)
class Entry:
    kind: str
    key: str
    value: bytes
    block: int


@dataclass(frozen=True)
class Holding:
    holder: str
    key: str
    block: int
    """The block of the event that named it: the first such event is the one stored."""


Rows = list["Entry | Holding"]
Entries = dict[str, dict[str, Entry]]
"""A stream's entries by kind and key."""

WALLET_STREAMS = "wallet-"
"""Streams of one wallet or its positions (adapters/flows.py), as many as wallets asked: not held
in memory, no metric's label, and named by `label` without the wallet."""
RECENT_CHECKPOINTS = 32
"""Checkpoints kept as they are behind the newest; older ones are thinned to one per power-of-two
distance from it (about 60 in all however long the stream), so a rewind goes back at most about
twice as far as the chain changed."""


def label(name: str) -> str:
    return "wallet logs" if name.startswith(WALLET_STREAMS) else name


@dataclass(frozen=True)
class Progress:
    start_block: int
    covered_to: int
    block_hash: str | None

    @classmethod
    def none(cls, start_block: int) -> Progress:
        """A stream nothing is stored of (or stored from another start block)."""
        return cls(start_block, start_block - 1, None)


class IndexStore(Protocol):
    """One chain's stored streams. A stream's rows, progress and checkpoint change together or not
    at all; `write` changes nothing unless the stream still stands where the writer read it, so two
    writers can never store a window twice or leave a gap."""

    chain_id: int

    async def snapshot(self, name: str, start_block: int, stale: bool = False) -> tuple[Progress, Entries]:
        """The stream's progress and its entries as of that progress (entries shared, not copied);
        `stale`: a copy kept in memory, however old, is as good (read again in the background)."""
        ...

    async def progress(self, name: str, start_block: int) -> Progress: ...

    async def keys(self, name: str, holders: list[str], block: int) -> dict[str, set[str]]:
        """What each of `holders` (lowercase) may hold, by events up to `block`."""
        ...

    async def write(self, name: str, start_block: int, rows: Rows, after: Progress, to: int, block_hash: str) -> bool:
        """Store the rows of the blocks after `after` up to `to`, the new progress and checkpoint;
        False (nothing stored) where the stream no longer stands at `after`."""
        ...

    async def checkpoints(self, name: str, start_block: int) -> list[tuple[int, str]]:
        """(block, hash) the stored part is tied to, newest first."""
        ...

    async def rewind(self, name: str, block: int, block_hash: str) -> bool:
        """Forget what the blocks after `block` stored; False, nothing changed, where that cannot be told."""
        ...

    async def drop(self, name: str) -> None: ...

    async def covered(self, prefix: str = "") -> list[tuple[str, int, int]]:
        """(stream, start block, covered to) of every stream whose name starts with `prefix`."""
        ...

    async def status(self) -> list[tuple[str, int, int, int, int]]:
        """(stream, start block, covered to, entries, holdings) of every stream."""
        ...

    async def count(self, name: str) -> int:
        """Entries the stream stores."""
        ...

    async def claim(self, name: str) -> bool:
        """Whether this process may scan the stream now: always for a file of its own; for a shared
        store, while no other replica does."""
        ...

    async def export(self, target: Path) -> None:
        """A consistent SQLite copy of the chain's streams (the snapshot `index import` installs)."""
        ...


class Stores(Protocol):
    """Where each chain's store is: files of this process's own, or a database replicas share."""

    def store(self, chain_id: int) -> IndexStore: ...

    async def unreachable(self) -> str | None:
        """Why the stores cannot be read now (`GET /readyz`'s reason), or None."""
        ...

    async def close(self) -> None: ...


def thinned(blocks: list[int]) -> list[int]:
    """Of checkpoint blocks (newest first), those to forget: past the RECENT_CHECKPOINTS newest,
    all but the oldest of each power-of-two distance from the newest (the oldest stays oldest,
    so the first checkpoint is never forgotten)."""
    kept: set[int] = set()
    forgotten = []
    for block in reversed(blocks[RECENT_CHECKPOINTS:]):
        distance = (blocks[0] - block).bit_length()
        if distance in kept:
            forgotten.append(block)
        kept.add(distance)
    return forgotten
